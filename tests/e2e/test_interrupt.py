"""Ctrl-C (SIGINT): one line on stderr, no traceback, exit 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kwhatif.errors import ExitCode
from tests.e2e.conftest import ROOT, kwhatif_command

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "tiny", "namespace": "default"},
    "spec": {
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "10m", "memory": "8Mi"}}}]
    },
}


def _cluster(nodes: int) -> str:
    """A List of big nodes: a 10m pod fits hundreds of thousands of times."""
    items = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"node-{i:04d}",
                "labels": {"kubernetes.io/hostname": f"node-{i:04d}", "topology.kubernetes.io/zone": f"zone-{i % 3}"},
            },
            "status": {
                "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110000"},
                "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110000"},
            },
        }
        for i in range(nodes)
    ]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1)


def _sigint_default() -> None:
    """The command starts with SIGINT's default action, as from a terminal: a shell without job
    control starts its background commands (a test run launched with `&`, say) with SIGINT
    ignored, and an ignored SIGINT is inherited, and honoured, by every command they start."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    "launcher",
    [
        pytest.param(lambda: [kwhatif_command()], id="installed-script"),
        pytest.param(lambda: [sys.executable, "-m", "kwhatif"], id="python-m"),
    ],
)
def test_sigint_during_a_long_capacity_run_exits_130(tmp_path: Path, launcher) -> None:
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps(POD))
    cluster = _cluster(600).encode()
    assert len(cluster) > 2 * 65536  # more than a pipe holds: once written, the command is reading it
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen(
        [*launcher(), "capacity", str(pod), "--cluster", "-", "--max", "100000", "-o", "json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=str(ROOT),
        env=env,
        preexec_fn=_sigint_default,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(cluster)
        proc.stdin.close()
        time.sleep(1.0)  # loading the cluster or placing copies: either way inside the command
        assert proc.poll() is None, "the capacity run ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitCode.INTERRUPTED == 130
    assert err.decode() == "kwhatif: interrupted\n"
    assert out == b""


def test_keyboard_interrupt_in_a_command_is_one_line_and_130(monkeypatch, capsys) -> None:
    """The handler itself, in process: click would turn the interrupt into Abort ("aborted", 2)."""
    from kwhatif import cli
    from kwhatif.cli import run

    def interrupted(co: object, **_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run, "load_cluster_state", interrupted)
    with pytest.raises(SystemExit) as ei:
        cli.main(
            ["capacity", str(ROOT / "samples/pods/web-canary.yaml"), "--cluster", str(ROOT / "samples/cluster.yaml")]
        )
    assert ei.value.code == 130
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "kwhatif: interrupted\n")
