"""The installed `kwhatif` script and `python -m kwhatif` are the same program: same output, same
exit status, for a representative command of each kind."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT, kwhatif_command

CLUSTER = "samples/cluster.yaml"
COMMANDS = [
    pytest.param(
        ("schedule", "samples/pods/web-canary.yaml", "samples/pods/gpu-inference.yaml", "--cluster", CLUSTER),
        1,
        "FITS shop/web-canary -> general-c-2 (score 691)",
        id="schedule",
    ),
    pytest.param(("check", "samples/workloads/release.yaml", "--cluster", CLUSTER), 0, "4/4 workloads fit", id="check"),
    pytest.param(
        ("capacity", "samples/pods/web-canary.yaml", "--cluster", CLUSTER, "--max", "3", "-o", "json"),
        0,
        '"kind": "CapacityReport"',
        id="capacity",
    ),
    pytest.param(("schedule", "samples/pods/missing.yaml", "--cluster", CLUSTER), 2, "", id="bad-input"),
]


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(argv, capture_output=True, text=True, cwd=str(ROOT), env=env, timeout=120)


@pytest.mark.parametrize("args,code,expected", COMMANDS)
def test_python_m_kwhatif_is_the_installed_command(args: tuple[str, ...], code: int, expected: str) -> None:
    script = _run([kwhatif_command(), *args])
    module = _run([sys.executable, "-m", "kwhatif", *args])
    assert (script.returncode, module.returncode) == (code, code), script.stderr + module.stderr
    assert expected in script.stdout
    assert module.stdout == script.stdout
    assert module.stderr == script.stderr
    assert "Traceback" not in module.stderr
