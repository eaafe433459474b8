"""gc.freeze() belongs to the command: a Scheduler or a load does not freeze the heap; a command
freezes its cluster and snapshot while it runs and hands them back to the collector at its end."""

from __future__ import annotations

import gc
from pathlib import Path

from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.load.cluster import load_cluster
from kwhatif.scheduling.scheduler import Scheduler

from builders import PINNED, make_node

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def test_loading_and_constructing_a_scheduler_do_not_freeze_the_heap() -> None:
    gc.unfreeze()
    state = load_cluster([str(SAMPLES / "cluster.yaml")])
    assert gc.get_freeze_count() == 0
    st = ClusterState(version=PINNED)
    st.nodes = {"n1": make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj()}
    Scheduler(st, default_configuration(PINNED))
    Scheduler(state, default_configuration(state.version))
    assert gc.get_freeze_count() == 0


def test_a_command_freezes_while_it_runs_and_unfreezes_at_its_end(run_cli, monkeypatch) -> None:
    from kwhatif.cli import run

    gc.unfreeze()
    seen: list[int] = []
    emit = run.emit

    def recording_emit(*args: object, **kw: object) -> None:
        seen.append(gc.get_freeze_count())
        emit(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "emit", recording_emit)
    code, out = run_cli(
        "capacity", str(SAMPLES / "pods/web-canary.yaml"), "--cluster", str(SAMPLES / "cluster.yaml"), "--max", "2"
    )
    assert code == 0 and "2" in out
    assert len(seen) == 1 and seen[0] > 0
    assert gc.get_freeze_count() == 0


def test_a_load_hands_the_command_its_cluster_before_the_collector_runs_again() -> None:
    """load_cluster calls the command's long_lived while the collector it paused is still paused
    (so that its first pass does not go over everything built), and leaves it as it found it."""
    seen: list[bool] = []
    assert gc.isenabled()
    state = load_cluster([str(SAMPLES / "cluster.yaml")], long_lived=lambda: seen.append(gc.isenabled()))
    assert seen == [False] and gc.isenabled() and state.nodes
    assert gc.get_freeze_count() == 0  # the callback, not the load, decides what is kept
