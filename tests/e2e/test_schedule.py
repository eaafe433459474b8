"""The installed `kwhatif` command, end to end, on samples/."""

from __future__ import annotations

import json

import yaml

CLUSTER = "samples/cluster.yaml"
FIT = "samples/pods/web-canary.yaml"
MISFIT = "samples/pods/analytics-big.yaml"
TAINT = "samples/pods/gpu-inference.yaml"


def test_fit_exit_0(run):
    r = run("schedule", FIT, "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    rep = json.loads(r.out)
    assert rep["apiVersion"] == "kwhatif/v1" and rep["kind"] == "ScheduleReport"
    res = rep["results"][0]
    assert res["status"] == "Scheduled"
    assert res["binding"] == {
        "node": res["node"],
        "recorded": True,
        "applied": False,
        "outcome": "recorded",
        "object": {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"namespace": "shop", "name": "web-canary", "uid": "kwhatif-shop-web-canary"},
            "target": {"kind": "Node", "name": res["node"]},
        },
    }
    assert rep["summary"] == {"pods": 1, "scheduled": 1, "unschedulable": 0, "errors": 0, "gated": 0, "preempted": 0}
    # the chosen node has the best total
    totals = {n["name"]: n["total"] for n in res["nodes"] if n["feasible"]}
    assert totals[res["node"]] == max(totals.values())


def test_misfit_exit_1_with_upstream_message(run):
    r = run("schedule", MISFIT, TAINT, "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1
    res = {x["pod"]["name"]: x for x in json.loads(r.out)["results"]}
    assert res["analytics-big"]["message"] == (
        "0/11 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {nvidia.com/gpu: present}, "
        "3 Insufficient memory, 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/11 nodes are "
        "available: 3 No preemption victims found for incoming pod, 8 Preemption is not helpful for scheduling."
    )
    assert res["inference"]["status"] == "Unschedulable"
    assert "2 node(s) had untolerated taint {nvidia.com/gpu: present}" in res["inference"]["message"]


def test_yaml_output_is_the_same_document(run):
    j = run("schedule", FIT, "--cluster", CLUSTER, "-o", "json")
    y = run("schedule", FIT, "--cluster", CLUSTER, "-o", "yaml")
    assert yaml.safe_load(y.out) == json.loads(j.out)


def test_table_output(run):
    r = run("schedule", FIT, MISFIT, "--cluster", CLUSTER)
    assert r.code == 1
    assert "FITS shop/web-canary -> " in r.out
    assert "DOES NOT FIT data/analytics-big" in r.out
    assert "*NodeResourcesFit: Insufficient memory" in r.out
    assert "\x1b[" not in r.out  # not a terminal: no colour


def test_stdin_cluster(run):
    with open(CLUSTER) as fh:
        r = run("schedule", FIT, "--cluster", "-", "-o", "json", stdin=fh.read())
    assert r.code == 0, r.err
    assert json.loads(r.out)["results"][0]["status"] == "Scheduled"


def test_skipped_kinds_note_on_stderr(run):
    r = run("schedule", FIT, "--cluster", CLUSTER, "-o", "json")
    assert r.err.strip() == "kwhatif: note: skipped objects kwhatif does not read: 1 ConfigMap"


def test_bad_pod_exit_2_one_line(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n    image: i\n    resources: {requests: {cpu: 1x}}\n"
    )
    r = run("schedule", str(bad), "--cluster", CLUSTER)
    assert r.code == 2
    assert r.out == ""
    lines = [line for line in r.err.splitlines() if not line.startswith("kwhatif: note:")]
    assert lines == [
        f"kwhatif: error: {bad}: Pod default/x: spec.containers[0].resources.requests[cpu]: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    ]
    assert "Traceback" not in r.err


def test_missing_cluster_is_usage_error(run):
    r = run("schedule", FIT)
    assert r.code == 2
    assert "no cluster state" in r.err


def test_unknown_profile(run):
    r = run("schedule", FIT, "--cluster", CLUSTER, "--profile", "nope")
    assert r.code == 2
    assert "no profile named 'nope'" in r.err


def test_help_and_version(run):
    r = run("--help")
    assert r.code == 0 and "schedule" in r.out
    r = run("--version")
    assert r.code == 0 and r.out.startswith("kwhatif, version ")
