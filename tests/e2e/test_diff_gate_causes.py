"""`kwhatif diff` names a feature gate as a cause only where its plugin's extension point can
produce the difference (kwhatif.release.gate_plugins)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import SAMPLES
from tests.e2e.test_diff import CLUSTER, GATES, MOST_ALLOCATED, PODS, _pod


def test_a_gate_is_named_only_where_its_plugin_can_change_the_answer(run, tmp_path: Path) -> None:
    """MostAllocated moves pods by NodeResourcesFit's Score; DRAExtendedResource, turned off on the
    same side, changes NodeResourcesFit's Filter only and StorageCapacityScoring VolumeBinding's
    Score only: neither is named for a pod whose scores alone moved it, and DRAExtendedResource is
    for the pod whose first failing filter changed."""
    cfg = tmp_path / "most.yaml"
    cfg.write_text(MOST_ALLOCATED)
    r = run(
        "diff",
        *PODS,
        "--cluster",
        CLUSTER,
        "--scheduler-version",
        "1.36.2",
        "--to-config",
        str(cfg),
        "--to-feature-gates",
        "DRAExtendedResource=false,StorageCapacityScoring=true",
        "-o",
        "json",
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    moved = _pod(doc, "data/nightly-export")
    assert moved["changed"] == ["node", "scores"] and moved["plugins"] == ["NodeResourcesFit"]
    assert moved["causes"] == [
        {"config": f"the default configuration -> {cfg}: NodeResourcesFit", "plugins": ["NodeResourcesFit"]}
    ]
    assert not any("gate" in c for c in _pod(doc, "shop/web-canary")["causes"])
    inference = _pod(doc, "ml/inference")
    assert inference["changed"] == ["message", "filters"]
    gates = [c for c in inference["causes"] if "gate" in c]
    assert gates == [
        {"gate": "DRAExtendedResource", "from": True, "to": False, "plugins": ["DynamicResources", "NodeResourcesFit"]}
    ]
    assert not any(c.get("gate") == "StorageCapacityScoring" for p in doc["pods"] for c in p["causes"])
    assert SAMPLES.is_dir()


# The fidelity sample's gate cases (each a gate set the real scheduler answered with): the diff
# from the release's defaults to that set, and the gates named for the pod.
GATE_CASES = {
    "mlk-anyway-off-135": (
        ["node", "scores"],
        ["MatchLabelKeysInPodTopologySpread", "MatchLabelKeysInPodTopologySpreadSelectorMerge"],
    ),
    "mlk-off-136": (
        ["node", "filters", "scores"],
        ["MatchLabelKeysInPodTopologySpread", "MatchLabelKeysInPodTopologySpreadSelectorMerge"],
    ),
    "ndf-on-135": (["filters", "scores"], ["NodeDeclaredFeatures"]),
    "ndf-plain-on-135": ([], []),
    "tt-equal-boundary-on-135": (
        ["status", "node", "message", "filters", "scores"],
        ["TaintTolerationComparisonOperators"],
    ),
    "tt-prefer-on-135": (["scores"], ["TaintTolerationComparisonOperators"]),
}


@pytest.mark.skipif(not GATES.is_dir(), reason="the fidelity sample's gates/ cases are not here")
@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_the_gate_set_is_named_where_the_real_schedulers_answers_differ(run, case: str) -> None:
    d = GATES / case
    version = json.loads((d / "meta.json").read_text())["version"]
    gates = (d / "feature-gates.txt").read_text().strip()
    r = run(
        "diff",
        str(d / "pod.yaml"),
        "--cluster",
        str(d / "cluster.yaml"),
        "--scheduler-version",
        version,
        "--to-feature-gates",
        gates,
        "-o",
        "json",
    )
    (p,) = json.loads(r.out)["pods"]
    changed, named = GATE_CASES[case]
    assert p["changed"] == changed
    assert [c["gate"] for c in p["causes"] if "gate" in c] == named
