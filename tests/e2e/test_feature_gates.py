"""--feature-gates end to end: the answer changes with the gate, the report records the gates in
force, and a gate set the release refuses is one line on standard error with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import yaml

from builders import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())


def _inputs(tmp_path: Path) -> tuple[str, str]:
    nodes = [
        make_node().name(n).capacity(cpu="4", memory="8Gi", pods="110").taint("gpu-mem", v).dict()
        for n, v in (("n1", "16"), ("n2", "32"))
    ]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes}))
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        yaml.safe_dump(make_pod().name("p").req(cpu="1").toleration("gpu-mem", operator="Lt", value="20").dict())
    )
    return str(cluster), str(pod)


def test_the_gate_changes_the_answer_and_the_report_records_it(run, tmp_path: Path) -> None:
    cluster, pod = _inputs(tmp_path)
    base = ("schedule", pod, "--cluster", cluster, "--scheduler-version", "1.35", "-o", "json", "--quiet")
    off = run(*base)
    assert off.code == 1
    report = json.loads(off.out)
    assert "featureGates" not in report
    assert report["results"][0]["status"] == "Unschedulable"
    on = run(*base, "--feature-gates", "TaintTolerationComparisonOperators=true,ComponentFlagz=true")
    assert on.code == 0, on.err
    report = json.loads(on.out)
    jsonschema.validate(report, SCHEMA)
    assert report["results"][0]["node"] == "n1"
    assert report["featureGates"] == {"ComponentFlagz": True, "TaintTolerationComparisonOperators": True}
    assert report["featureGatesNotModelled"] == ["ComponentFlagz"]


def test_a_refused_gate_set_is_one_line(run, tmp_path: Path) -> None:
    cluster, pod = _inputs(tmp_path)
    r = run(
        "schedule",
        pod,
        "--cluster",
        cluster,
        "--scheduler-version",
        "1.34",
        "--feature-gates",
        "TaintTolerationComparisonOperators=true",
    )
    assert r.code == 2
    assert r.err == "kwhatif: error: feature-gates: unrecognized feature gate: TaintTolerationComparisonOperators\n"
    r = run(
        "capacity",
        pod,
        "--cluster",
        cluster,
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "SidecarContainers=false",
    )
    assert r.code == 2
    assert (
        r.err
        == "kwhatif: error: feature-gates: cannot set feature gate SidecarContainers to false, feature is locked to true\n"
    )


def test_1_37_gates_from_upstream_s_1_37_table(run, tmp_path: Path) -> None:
    """1.37's gates as its kube_features.go has them: a removed gate and a locked one are refused,
    a new alpha gate is accepted and reported as set but not modelled."""
    cluster, pod = _inputs(tmp_path)
    base = ("schedule", pod, "--cluster", cluster, "--scheduler-version", "1.37", "--quiet")
    for gates, line in (
        ("SidecarContainers=true", "unrecognized feature gate: SidecarContainers"),
        (
            "DRAExtendedResource=false",
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true",
        ),
    ):
        r = run(*base, "--feature-gates", gates)
        assert r.code == 2
        assert r.out == ""
        assert r.err.strip() == f"kwhatif: error: feature-gates: {line}"
        assert "Traceback" not in r.err
    ok = run(*base, "-o", "json", "--feature-gates", "InterPodAffinityHostnameFastPath=true")
    assert ok.code == 1, ok.err  # the pod's Lt toleration needs TaintTolerationComparisonOperators (alpha, off)
    report = json.loads(ok.out)
    assert report["featureGates"] == {"InterPodAffinityHostnameFastPath": True}
    assert (
        "--feature-gates: InterPodAffinityHostnameFastPath=true is set, but kwhatif does not model its effect"
        in report["notes"]
    )
