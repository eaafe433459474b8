"""The progress line: drawn on a terminal only, never with --quiet, cleared when the work ends."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from kwhatif import progress

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = str(ROOT / "samples" / "cluster.yaml")
POD = str(ROOT / "samples" / "pods" / "web-canary.yaml")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(progress.time, "monotonic", c)
    return c


@pytest.fixture(autouse=True)
def reset() -> Any:
    yield
    progress.configure(None)


def test_line_shows_done_total_rate_and_time_left(clock: Clock) -> None:
    out = Terminal()
    progress.configure(out)
    task = progress.task("placing pods", 1000, "pods")
    clock.now += 0.5
    task.update(100)
    assert out.getvalue() == ""  # nothing within the first second
    clock.now += 1.5
    task.update(400)
    assert out.getvalue() == "\rkwhatif: placing pods 400/1000 pods (200 pods/s, 3s left)\x1b[K"
    clock.now += 0.1
    task.update(410)  # redrawn at most every 0.2 s
    assert out.getvalue().count("\r") == 1
    task.close()
    assert out.getvalue().endswith("\r\x1b[K")


@pytest.mark.parametrize(
    ("total", "unit", "done", "expected"),
    [
        pytest.param(436_000_000, "MB", 218_000_000, "kwhatif: t 218/436 MB (109 MB/s, 2s left)", id="megabytes"),
        pytest.param(None, "", 1500, "kwhatif: t 1500 (750/s)", id="no-total"),
        pytest.param(
            1_000_000, "copies", 1000, "kwhatif: t 1000/1000000 copies (500 copies/s, 33m18s left)", id="minutes"
        ),
    ],
)
def test_line_formats(clock: Clock, total: int | None, unit: str, done: int, expected: str) -> None:
    out = Terminal()
    progress.configure(out)
    task = progress.task("t", total, unit)
    clock.now += 2.0
    task.update(done)
    assert out.getvalue() == "\r" + expected + "\x1b[K"


def test_silent_when_not_configured(clock: Clock) -> None:
    task = progress.task("placing pods", 10, "pods")
    clock.now += 5
    task.update(5)
    task.close()  # nothing to draw on, nothing raised


@pytest.mark.parametrize(
    ("tty", "quiet", "shown"),
    [
        pytest.param(True, False, True, id="terminal"),
        pytest.param(True, True, False, id="terminal-quiet"),
        pytest.param(False, False, False, id="pipe"),
    ],
)
def test_enabled_only_on_a_terminal_without_quiet(
    monkeypatch: pytest.MonkeyPatch, tty: bool, quiet: bool, shown: bool
) -> None:
    err = Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress.enable_for_terminal(quiet)
    assert (progress._stream is err) is shown


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        pytest.param(
            ("check", str(ROOT / "samples" / "workloads" / "release.yaml"), "--cluster", CLUSTER), True, id="check"
        ),
        pytest.param(("capacity", POD, "--cluster", CLUSTER, "--max", "20"), True, id="capacity"),
        pytest.param(
            ("check", str(ROOT / "samples" / "workloads" / "release.yaml"), "--cluster", CLUSTER, "--quiet"),
            False,
            id="check-quiet",
        ),
        pytest.param(("capacity", POD, "--cluster", CLUSTER, "--max", "20", "--quiet"), False, id="capacity-quiet"),
    ],
)
def test_commands_draw_and_clear_the_line_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], shown: bool
) -> None:
    from kwhatif.cli import main

    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    with pytest.raises(SystemExit):
        main(list(args))
    out = capsys.readouterr().out
    text = err.getvalue()
    assert "\r" not in out
    if shown:
        assert "\rkwhatif: placing " in text
        assert text.endswith("\r\x1b[K")
    else:
        assert "\r" not in text and "placing" not in text


def test_listing_a_live_cluster_shows_the_lists_being_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from kwhatif.load.live import load_live_cluster
    from tests.e2e.fake_apiserver import FakeAPIServer

    from builders import make_node, make_pod

    objects = [make_node().name(f"n{i}").dict() for i in range(5)] + [
        make_pod().name(f"p{i}").node("n1").dict() for i in range(3)
    ]
    out = Terminal()
    progress.configure(out)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    with FakeAPIServer(objects) as srv:
        state = load_live_cluster(srv.kubeconfig(str(tmp_path / "kubeconfig")), None)
    assert len(state.nodes) == 5
    text = out.getvalue()
    # pages of two: the server says how many are left, so the total is known from the first page
    assert "\rkwhatif: listing nodes 2/5 " in text
    assert "\rkwhatif: listing nodes 5/5 " in text
    assert "\rkwhatif: listing pods 2/3 " in text
    assert text.endswith("\r\x1b[K")


def test_reading_a_large_dump_and_indexing_its_pods(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import json

    from kwhatif.cache import snapshot
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.load import files
    from kwhatif.load.cluster import load_cluster

    from builders import make_node, make_pod

    items = [make_node().name("n1").dict()] + [make_pod().name(f"p{i}").node("n1").dict() for i in range(5)]
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    out = Terminal()
    progress.configure(out)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    monkeypatch.setattr(files, "PROGRESS_MIN_CHARS", 0)
    monkeypatch.setattr(snapshot, "_PROGRESS_MIN_PODS", 0)
    state = load_cluster([str(dump)])
    Snapshot(state.nodes.values(), state.pods)
    text = out.getvalue()
    assert "\rkwhatif: reading cluster.json 0/0 MB (" in text  # a tiny file: 0 MB of 0
    assert "\rkwhatif: indexing pods 0/5 pods (" in text
    assert text.endswith("\r\x1b[K")
