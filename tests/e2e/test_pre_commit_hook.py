""".pre-commit-hooks.yaml: the kwhatif-check hook has the keys pre-commit requires, and its entry
runs as pre-commit runs it: the entry, then the user's args, then the staged files its `files`
pattern selects, exiting non-zero (the hook fails) when a workload does not fit."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
(HOOK,) = HOOKS


def test_the_hook_has_the_required_keys():
    assert {"id", "name", "entry", "language"} <= set(HOOK)
    assert (HOOK["id"], HOOK["entry"], HOOK["language"]) == ("kwhatif-check", "kwhatif check", "python")
    assert HOOK["require_serial"] is True
    assert HOOK["pass_filenames"] is True


@pytest.mark.parametrize(
    "name, selected",
    [
        ("deploy/web.yaml", True),
        ("deploy/web.yml", True),
        ("cluster-state/cluster.json", True),
        ("README.md", False),
        ("deploy/web.yaml.orig", False),
    ],
)
def test_files_pattern(name, selected):
    assert bool(re.search(HOOK["files"], name)) is selected


def _as_pre_commit_runs(
    args: list[str], staged: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    files = [f for f in staged if re.search(HOOK["files"], f)]
    command = shlex.split(HOOK["entry"]) + args + files
    env = dict(os.environ) | (env or {})
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "deploy").mkdir()
    (tmp_path / "cluster-state").mkdir()
    shutil.copy(ROOT / "samples/cluster.yaml", tmp_path / "cluster-state/cluster.yaml")
    shutil.copy(ROOT / "samples/workloads/release.yaml", tmp_path / "deploy/release.yaml")
    shutil.copy(ROOT / "samples/workloads/ml-batch.yaml", tmp_path / "deploy/ml-batch.yaml")
    (tmp_path / "README.md").write_text("# deploy\n")
    return tmp_path


def test_a_change_that_fits_passes(repo):
    p = _as_pre_commit_runs(["--cluster", "cluster-state/cluster.yaml"], ["deploy/release.yaml", "README.md"], repo)
    assert p.returncode == 0, p.stderr
    assert "4/4 workloads fit" in p.stdout


def test_a_change_that_does_not_fit_fails_the_hook(repo):
    p = _as_pre_commit_runs(
        ["--cluster", "cluster-state/cluster.yaml"], ["deploy/release.yaml", "deploy/ml-batch.yaml"], repo
    )
    assert p.returncode == 1, p.stderr
    assert "DOES NOT FIT" in p.stdout


def test_the_user_args_choose_the_output(repo):
    p = _as_pre_commit_runs(["--cluster", "cluster-state/cluster.yaml", "-o", "github"], ["deploy/ml-batch.yaml"], repo)
    assert p.returncode == 1
    assert p.stdout.startswith("::error file=deploy/ml-batch.yaml,line=")


def test_without_the_cluster_the_hook_fails_with_bad_usage(repo):
    p = _as_pre_commit_runs([], ["deploy/release.yaml"], repo, env={"HOME": str(repo), "KUBECONFIG": ""})
    assert p.returncode == 2
    assert (
        p.stderr.splitlines()[-1]
        == "Error: no cluster state: give --cluster PATH (or '-'), --kubeconfig/--context, or set $KUBECONFIG"
    )
