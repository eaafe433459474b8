"""`kwhatif diff` from the installed command: releases, feature gates, configurations, --check,
--fail-on and every output format."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.e2e.conftest import SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")
PODS = sorted(str(p) for p in (SAMPLES / "pods").glob("*.yaml"))
GATES = (
    Path(os.environ.get("KWHATIF_FIDELITY_SAMPLE", str(SAMPLES.parent.parent / "shared" / "fidelity-sample"))) / "gates"
)

MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
"""


def _pod(doc: dict, key: str) -> dict:
    return next(p for p in doc["pods"] if f"{p['pod']['namespace']}/{p['pod']['name']}" == key)


def test_releases_balanced_allocation_moves_a_pod_and_names_the_change(run) -> None:
    r = run(
        "diff",
        *PODS,
        "--cluster",
        CLUSTER,
        "--scheduler-version",
        "1.35.7",
        "--to-scheduler-version",
        "1.36.2",
        "-o",
        "json",
    )
    assert r.code == 0, r.err  # no pod's status changes
    doc = json.loads(r.out)
    assert doc["kind"] == "DiffReport" and doc["from"]["schedulerVersion"] == "1.35.7"
    assert doc["to"]["schedulerVersion"] == "1.36.2"
    p = _pod(doc, "data/nightly-export")
    assert p["changed"] == ["node", "scores"]
    assert (p["from"]["node"], p["from"]["tie"], p["to"]["node"]) == (
        "general-a-3",
        ["general-a-3", "general-c-2"],
        "memory-c-1",
    )
    assert p["plugins"] == ["NodeResourcesBalancedAllocation"]
    releases = [c for c in p["causes"] if "release" in c]
    assert releases == [
        {
            "release": "1.36.0",
            "change": "NodeResourcesBalancedAllocation scores the balance with and without the pod",
            "plugins": ["NodeResourcesBalancedAllocation"],
            "pr": ["#135573"],
            "inForce": "to",
        }
    ]
    # the pods whose answers are the same are listed with nothing changed
    assert _pod(doc, "ml/fraud-model")["changed"] == []
    assert doc["summary"] == {
        "pods": 6,
        "changed": 4,
        "byAspect": {"status": 0, "node": 1, "message": 2, "filters": 2, "scores": 2, "preemption": 0},
    }


def test_fail_on_chooses_which_changes_fail(run, tmp_path: Path) -> None:
    cfg = tmp_path / "most.yaml"
    cfg.write_text(MOST_ALLOCATED)
    args = ("diff", *PODS, "--cluster", CLUSTER, "--to-config", str(cfg))
    assert run(*args).code == 0
    assert run(*args, "--fail-on", "node").code == 1
    assert run(*args, "--fail-on", "any").code == 1
    doc = json.loads(run(*args, "-o", "json").out)
    assert doc["to"]["config"] == str(cfg) and doc["from"]["config"] is None
    p = _pod(doc, "data/nightly-export")
    assert p["changed"] == ["node", "scores"] and p["to"]["node"] == "general-b-2"
    assert p["causes"] == [
        {"config": f"the default configuration -> {cfg}: NodeResourcesFit", "plugins": ["NodeResourcesFit"]}
    ]


def test_the_same_scheduler_on_both_sides_changes_nothing(run) -> None:
    r = run("diff", *PODS, "--cluster", CLUSTER, "--scheduler-version", "1.34", "-o", "json")
    assert r.code == 0
    doc = json.loads(r.out)
    assert doc["to"]["schedulerVersion"] == doc["from"]["schedulerVersion"] == "1.34.10"
    assert all(p["changed"] == [] for p in doc["pods"]) and doc["summary"]["changed"] == 0
    assert doc["changes"] == []


@pytest.mark.skipif(not GATES.is_dir(), reason="the fidelity sample's gates/ cases are not here")
def test_a_feature_gate_changes_a_pods_status(run) -> None:
    case = GATES / "tt-noexecute-on-136"
    expected = json.loads((case / "expected.json").read_text())
    r = run(
        "diff",
        str(case / "pod.yaml"),
        "--cluster",
        str(case / "cluster.yaml"),
        "--scheduler-version",
        "1.36.2",
        "--to-feature-gates",
        "TaintTolerationComparisonOperators=true",
    )
    assert r.code == 1  # the status changes
    assert "default/incoming  status,node,message,filters,scores  Unschedulable  Scheduled on node-0" in r.out
    assert "because: feature gate TaintTolerationComparisonOperators false -> true" in r.out
    assert expected["result"] == "Scheduled" and expected["node"] in ("node-0", "node-1")
    assert r.out.rstrip().endswith("1 of 1 pods change (status 1, node 1, message 1, filters 1, scores 1)")


def test_check_compares_workloads(run, tmp_path: Path) -> None:
    cfg = tmp_path / "most.yaml"
    cfg.write_text(MOST_ALLOCATED)
    r = run(
        "diff",
        "--check",
        str(SAMPLES / "workloads/release.yaml"),
        "--cluster",
        CLUSTER,
        "--to-config",
        str(cfg),
        "-o",
        "json",
    )
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    names = {(w["kind"], w["name"]) for w in doc["workloads"]}
    assert ("Deployment", "web") in names
    web = next(w for w in doc["workloads"] if w["name"] == "web")
    assert web["changed"] == [] and web["from"]["verdict"] == web["to"]["verdict"] == "fits"
    assert web["from"]["placed"] == web["to"]["placed"] == web["from"]["desired"]
    assert doc["summary"]["workloads"] == len(doc["workloads"]) and doc["summary"]["workloadsChanged"] == 0
    # MostAllocated packs the Deployment's replicas differently
    assert any(p["changed"] for p in doc["pods"] if p["pod"]["name"].startswith("web-"))


def test_every_format(run) -> None:
    args = ("diff", *PODS, "--cluster", CLUSTER, "--scheduler-version", "1.35.7", "--to-scheduler-version", "1.36.2")
    yaml_out = run(*args, "-o", "yaml").out
    assert yaml_out.startswith("apiVersion: kwhatif/v1\nkind: DiffReport\n")
    md = run(*args, "-o", "markdown").out
    assert (
        "| `data/nightly-export` | node, scores | Scheduled on general-a-3 (tie: general-a-3, general-c-2) | "
        "Scheduled on memory-c-1 |"
    ) in md.splitlines()
    junit = ET.fromstring(run(*args, "-o", "junit").out)
    suite = junit.find("testsuite")
    assert suite is not None and suite.get("tests") == "6" and suite.get("failures") == "0"
    junit_node = ET.fromstring(run(*args, "-o", "junit", "--fail-on", "node").out).find("testsuite")
    assert junit_node is not None and junit_node.get("failures") == "1"
    gh = run(*args, "-o", "github", "--fail-on", "node").out.splitlines()
    assert any(
        line.startswith("::error file=") and "pod data/nightly-export%3A node%2C scores changed" in line for line in gh
    )
    assert gh[-1] == "::notice title=kwhatif diff::4 of 6 pods change (node 1, message 2, filters 2, scores 2)"
    sarif = json.loads(run(*args, "-o", "sarif", "--fail-on", "node").out)
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("diff/node", "error"),
        ("diff/answer", "warning"),
        ("diff/answer", "warning"),
        ("diff/answer", "warning"),
    ]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("samples/pods/tie.yaml")
    page = run(*args, "-o", "html").out
    assert page.startswith("<!DOCTYPE html>") and 'data-kind="DiffReport"' in page
    assert '<th class="a">kube-scheduler 1.35.7</th><th class="b">kube-scheduler 1.36.2</th>' in page
    assert '<td class="a">Scheduled on general-a-3 (tie: general-a-3, general-c-2)</td>' in page


def test_bad_to_flags_are_one_line_errors(run) -> None:
    r = run("diff", *PODS, "--cluster", CLUSTER, "--to-scheduler-version", "1.99")
    assert r.code == 2 and r.err.strip().splitlines()[-1].startswith("kwhatif: error: --to-scheduler-version: ")
    r = run(
        "diff",
        *PODS,
        "--cluster",
        CLUSTER,
        "--scheduler-version",
        "1.36",
        "--to-feature-gates",
        "DynamicResourceAllocation=false",
    )
    assert r.code == 2
    assert r.err.strip().splitlines()[-1] == (
        "kwhatif: error: --to-feature-gates: cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"
    )
    r = run("diff", "--cluster", CLUSTER)
    assert r.code == 2 and "nothing to compare" in r.err
