"""action.yml: valid action metadata (a composite action whose steps all name their shell), and
its check step, run as the runner runs it (bash -eo pipefail, the inputs in its environment),
annotates, appends the summary and fails by the gate's exit status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")


def test_metadata_has_the_required_keys():
    assert isinstance(ACTION["name"], str) and ACTION["name"]
    assert isinstance(ACTION["description"], str) and ACTION["description"]
    assert set(ACTION["inputs"]) == {"paths", "cluster", "release", "feature-gates", "strict", "args", "python-version"}
    for name, spec in ACTION["inputs"].items():
        assert spec["description"], name
        assert spec["required"] is (name in ("paths", "cluster")), name
    assert ACTION["runs"]["using"] == "composite"
    for step in ACTION["runs"]["steps"]:
        assert ("uses" in step) != ("run" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"


def test_it_installs_kwhatif_from_its_own_checkout():
    steps = {s.get("id"): s for s in ACTION["runs"]["steps"]}
    assert ACTION["runs"]["steps"][0]["uses"].startswith("actions/setup-python@")
    assert '"${{ github.action_path }}"' in steps["install"]["run"]
    assert "pip install" in steps["install"]["run"]


def test_the_script_takes_the_inputs_from_its_environment_only():
    """An input pasted into a script could run as code: the scripts read them from env."""
    for step in ACTION["runs"]["steps"]:
        assert not EXPRESSION.search(step.get("run", "")), step["name"]


def _run_check(tmp_path: Path, **inputs: str) -> tuple[int, str, str, str, str]:
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "check")
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()} | inputs
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    for key, expr in step["env"].items():
        env[key] = EXPRESSION.sub(lambda m: values[m.group(1)], expr)
    work = Path(tempfile.mkdtemp(dir=tmp_path))  # each run its own runner files
    summary, output = work / "summary.md", work / "output"
    summary.write_text("# earlier step\n")
    env |= {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    script = work / "check.sh"
    script.write_text(step["run"])
    p = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    return p.returncode, p.stdout, summary.read_text(), output.read_text() if output.exists() else "", p.stderr


def test_a_change_that_fits(tmp_path):
    code, out, summary, output, err = _run_check(
        tmp_path, paths="samples/workloads/release.yaml", cluster="samples/cluster.yaml"
    )
    assert code == 0, err
    assert out == "::notice title=kwhatif check::4/4 workloads fit on 11 nodes\n"
    assert summary.startswith("# earlier step\n### kwhatif check: 4/4 workloads fit\n")
    assert "| ✅ Deployment `shop/web` | 8 | 8 | 0 |  |" in summary
    assert output == "exit-code=0\n"


def test_a_change_that_does_not_fit_fails_with_annotations(tmp_path):
    code, out, summary, output, err = _run_check(
        tmp_path,
        paths="samples/dra/train*.yaml\n",
        cluster="samples/dra/cluster.yaml",
        release="1.36",
    )
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=samples/dra/training.yaml,line=22,title=Job ml/train-llm%3A 1 of 2 pods do not fit::"
    )
    assert summary.startswith("# earlier step\n### kwhatif check: ")
    assert "ml/train-llm" in summary
    assert output == "exit-code=1\n"


def test_strict_and_extra_args_reach_kwhatif(tmp_path):
    manifests = tmp_path / "m.yaml"
    manifests.write_text(
        "apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: main, namespace: default}\nspec: {replicas: 2}\n"
    )
    base = {"paths": str(manifests), "cluster": "samples/cluster.yaml"}
    code, out, *_ = _run_check(tmp_path, **base)
    assert code == 0
    code, out, _, output, _ = _run_check(tmp_path, **base, strict="true", args="--surge --hpa-max")
    assert code == 1
    assert out.startswith("::error file=")
    assert output == "exit-code=1\n"


@pytest.mark.parametrize(
    "inputs, message",
    [
        pytest.param(
            {"paths": "nowhere/*.yaml"},
            "::error title=kwhatif check::no file matches paths entry 'nowhere/*.yaml'\n",
            id="no-match",
        ),
        pytest.param(
            {"paths": " \n "},
            "::error title=kwhatif check::the paths input names no manifest\n",
            id="empty",
        ),
        pytest.param(
            {"paths": "samples/workloads/release.yaml", "strict": "maybe"},
            "::error title=kwhatif check::strict must be true or false, not 'maybe'\n",
            id="strict-not-a-boolean",
        ),
    ],
)
def test_bad_inputs_exit_2(tmp_path, inputs, message):
    code, out, summary, output, _ = _run_check(tmp_path, cluster="samples/cluster.yaml", **inputs)
    assert (code, out, summary, output) == (2, message, "# earlier step\n", "exit-code=2\n")


def test_bad_input_to_kwhatif_exits_2(tmp_path):
    code, out, _, output, err = _run_check(
        tmp_path, paths="samples/workloads/release.yaml", cluster="samples/cluster.yaml", release="1.20"
    )
    assert code == 2
    assert output == "exit-code=2\n"
    assert err.startswith("kwhatif: error: ")
