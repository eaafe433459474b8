"""kubectl-whatif: the same command line as a kubectl plugin, named `kubectl whatif` in its usage,
help and errors; kubectl finds it on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PLUGIN = Path(sys.executable).parent / "kubectl-whatif"


def _plugin(*args: str, path: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    cmd = [str(PLUGIN), *args] if path is None else list(args)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(cwd), timeout=120)


@pytest.fixture(autouse=True)
def _installed():
    if not PLUGIN.exists():
        pytest.fail("kubectl-whatif is not installed next to this interpreter (pip install -e '.[test]')")


def test_usage_and_help_name_kubectl_whatif():
    r = _plugin("--help")
    assert r.returncode == 0
    assert r.stdout.startswith("Usage: kubectl whatif [OPTIONS] COMMAND [ARGS]...\n")
    r = _plugin("check", "--help")
    assert r.returncode == 0
    assert r.stdout.startswith("Usage: kubectl whatif check [OPTIONS]")


def test_errors_name_kubectl_whatif():
    r = _plugin("schedule", "nosuch.yaml", "--cluster", "samples/cluster.yaml")
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == "kubectl whatif: error: nosuch.yaml: no such file or directory"
    r = _plugin("bogus")
    assert r.returncode == 2
    assert r.stderr == (
        "Usage: kubectl whatif [OPTIONS] COMMAND [ARGS]...\n"
        "Try 'kubectl whatif --help' for help.\n\n"
        "Error: No such command 'bogus'.\n"
    )


def test_same_answers_as_kwhatif(run):
    args = ("schedule", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "-o", "json")
    plugin = _plugin(*args)
    direct = run(*args)
    assert (plugin.returncode, json.loads(plugin.stdout)) == (direct.code, json.loads(direct.out))
    # chatter is named after the program too
    assert plugin.stderr == direct.err.replace("kwhatif: ", "kubectl whatif: ")


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_finds_and_runs_the_plugin(tmp_path):
    kubectl = shutil.which("kubectl")
    assert kubectl is not None
    path = os.pathsep.join([str(PLUGIN.parent), str(Path(kubectl).parent), "/usr/bin", "/bin"])
    listed = _plugin(kubectl, "plugin", "list", path=path, cwd=tmp_path)
    assert str(PLUGIN) in listed.stdout.splitlines()
    r = _plugin(
        kubectl,
        "whatif",
        "check",
        str(ROOT / "samples" / "dra" / "training.yaml"),
        "--cluster",
        str(ROOT / "samples" / "dra" / "cluster.yaml"),
        "-o",
        "json",
        path=path,
        cwd=tmp_path,
    )
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["kind"] == "CheckReport"
