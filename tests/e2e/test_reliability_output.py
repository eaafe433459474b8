"""Output that never contradicts itself, from the installed command: a refused drain says so in
every format, the HTML page's summary is the table's, one reason is one SARIF rule, hints never
advise tolerating a node-condition taint or another OS's taint, --add-node's clones run their
DaemonSet pods, nodes that are not ready without the lifecycle taint are noted, and annotations
of standard input name no file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")


def write(path: Path, *docs: dict) -> str:
    path.write_text(yaml.safe_dump_all(list(docs), sort_keys=False))
    return str(path)


def node(name: str, cpu: str = "4", memory: str = "8Gi", *, taints=(), ready: str = "True", os_: str = "linux") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": os_}},
        "spec": {"taints": list(taints)} if taints else {},
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
            "conditions": [{"type": "Ready", "status": ready}],
        },
    }


def pod(name: str, cpu: str = "1", memory: str = "1Gi", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "app:1", "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
            **spec,
        },
    }


# --- a refused drain --------------------------------------------------------------------------------


def test_a_refused_drain_is_refused_in_the_table_the_html_and_the_json(run):
    # general-a-1 runs a DaemonSet pod: without --ignore-daemonsets kubectl drain refuses the node
    table = run("drain", "general-a-1", "--cluster", CLUSTER)
    assert table.code == 1
    row = next(ln for ln in table.out.splitlines() if ln.strip().startswith("general-a-1 ") and "%" in ln)
    assert "refused (cordoned)" in row and "drained" not in row
    page = run("drain", "general-a-1", "--cluster", CLUSTER, "-o", "html")
    assert page.code == 1
    summary = page.out.split('id="summary">', 1)[1].split("<", 1)[0]
    assert summary.startswith("drain refuses general-a-1 (cordoned, nothing on it evicted); ")
    doc = json.loads(run("drain", "general-a-1", "--cluster", CLUSTER, "-o", "json").out)
    assert [r["node"] for r in doc["refusals"]] == ["general-a-1"]
    # a drain that goes through still says drained
    ok = run("drain", "general-a-1", "--cluster", CLUSTER, "--ignore-daemonsets")
    row = next(ln for ln in ok.out.splitlines() if ln.strip().startswith("general-a-1 ") and "%" in ln)
    assert " drained " in row


# --- one summary --------------------------------------------------------------------------------------


def test_the_html_check_summary_is_the_table_line(run, tmp_path):
    crd_object = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "shop"}}
    nowhere = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "nowhere", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "nowhere"}},
            "template": {
                "metadata": {"labels": {"app": "nowhere"}},
                "spec": {"nodeSelector": {"no": "such"}, "containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    manifests = write(tmp_path / "m.yaml", crd_object, nowhere)
    args = ("check", manifests, str(SAMPLES / "workloads" / "ml-batch.yaml"), "--cluster", CLUSTER)
    table = run(*args)
    page = run(*args, "-o", "html")
    assert table.code == page.code == 1
    line = next(ln for ln in table.out.splitlines() if "workloads fit" in ln)
    summary = page.out.split('id="summary">', 1)[1].split("<", 1)[0]
    assert summary == "0/1 workloads fit, 1 with no eligible nodes, 1 not checked"
    assert line.startswith(summary + " (")


# --- one reason, one rule -------------------------------------------------------------------------


def test_sarif_files_a_failure_under_the_plugin_of_its_dominant_reason(run, tmp_path):
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    # three tainted nodes (one reason: the taint) and four small ones that fail NodeResourcesFit
    # with two different reasons: more nodes fail NodeResourcesFit, but the taint is the reason
    # given most, which the table shows as the dominant reason
    nodes = [node(f"t{i}", taints=[taint]) for i in range(3)]
    nodes += [node("s1", cpu="1"), node("s2", cpu="1"), node("s3", memory="1Gi"), node("s4", memory="1Gi")]
    cluster = write(tmp_path / "c.yaml", {"apiVersion": "v1", "kind": "List", "items": nodes})
    manifest = write(tmp_path / "p.yaml", pod("big", cpu="2", memory="2Gi"))
    sarif = json.loads(run("check", manifest, "--cluster", cluster, "-o", "sarif").out)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "does-not-fit/TaintToleration"
    table = run("check", manifest, "--cluster", cluster)
    assert table.out.splitlines()[1].endswith("DOES NOT FIT  node(s) had untolerated taint(s)")


# --- hints ------------------------------------------------------------------------------------------

CONDITION_TAINTS = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
]


@pytest.mark.parametrize("key", CONDITION_TAINTS)
def test_no_hint_advises_tolerating_a_node_condition_taint(run, tmp_path, key):
    nodes = [node("sick", taints=[{"key": key, "effect": "NoSchedule"}]), node("small", cpu="1")]
    cluster = write(tmp_path / "c.yaml", {"apiVersion": "v1", "kind": "List", "items": nodes})
    r = run("schedule", write(tmp_path / "p.yaml", pod("p", cpu="2")), "--cluster", cluster)
    assert r.code == 1
    hints = [ln.strip() for ln in r.out.splitlines() if ln.strip().startswith("hint:")]
    assert not any("tolerat" in h for h in hints), hints
    (sick,) = [h for h in hints if "(sick)" in h]
    assert f"({key}:NoSchedule, set by the control plane): they take pods again once that clears" in sick


def test_no_hint_advises_tolerating_the_taint_of_another_os(run, tmp_path):
    windows = node("win", os_="windows", taints=[{"key": "os", "value": "windows", "effect": "NoSchedule"}])
    gpu = node("gpu", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}])
    cluster = write(tmp_path / "c.yaml", {"apiVersion": "v1", "kind": "List", "items": [windows, gpu]})
    r = run("schedule", write(tmp_path / "p.yaml", pod("p", os={"name": "linux"})), "--cluster", cluster)
    assert r.code == 1
    hints = [ln.strip() for ln in r.out.splitlines() if ln.strip().startswith("hint:")]
    assert sorted(hints) == [
        "hint: 1 node(s) (gpu) would take the pod if it tolerated taint gpu=true:NoSchedule",
        "hint: 1 node(s) (win) run windows (kubernetes.io/os=windows) and the pod is a linux pod (spec.os.name): "
        "their taints keep it off nodes whose kubelet would refuse it",
    ]


# --- nodes that are not ready --------------------------------------------------------------------


@pytest.mark.parametrize(("ready", "taint"), [("False", "not-ready"), ("Unknown", "unreachable")])
def test_a_node_not_ready_without_the_lifecycle_taint_is_noted(run, tmp_path, ready, taint):
    cluster = write(
        tmp_path / "c.yaml",
        {"apiVersion": "v1", "kind": "List", "items": [node("sick", ready=ready), node("ok", cpu="1")]},
    )
    r = run("schedule", write(tmp_path / "p.yaml", pod("p", cpu="2")), "--cluster", cluster)
    assert r.code == 0 and "FITS default/p -> sick" in r.out
    assert (
        f"note: 1 node(s) report they are not ready but carry no taint saying so: sick (Ready={ready}, no "
        f"node.kubernetes.io/{taint} taint)"
    ) in r.out
    # with the taint (the lifecycle controller's work done), no note
    tainted = node("sick", ready=ready, taints=[{"key": f"node.kubernetes.io/{taint}", "effect": "NoSchedule"}])
    write(tmp_path / "c.yaml", {"apiVersion": "v1", "kind": "List", "items": [tainted, node("ok", cpu="1")]})
    r = run("schedule", str(tmp_path / "p.yaml"), "--cluster", cluster)
    assert r.code == 1 and "not ready but carry no taint" not in r.out


# --- --add-node and DaemonSets ----------------------------------------------------------------------


def _daemonset(name: str, cpu: str, **template_spec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "kube-system", "uid": f"uid-{name}"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
                    **template_spec,
                },
            },
        },
    }


def test_add_node_clones_run_the_daemonset_pods_a_new_node_would_run(run, tmp_path):
    agent = _daemonset("agent", "1")
    # a DaemonSet that selects other nodes only, and one the template's taint keeps off: not on the clones
    elsewhere = _daemonset("gpu-driver", "1", nodeSelector={"gpu": "true"})
    cluster = write(
        tmp_path / "c.yaml", {"apiVersion": "v1", "kind": "List", "items": [node("base", cpu="1"), agent, elsewhere]}
    )
    template = write(tmp_path / "n.yaml", node("tmpl", cpu="4"))
    manifest = write(tmp_path / "p.yaml", pod("p", cpu="1", memory="1Mi"))
    r = run("capacity", manifest, "--cluster", cluster, "--add-node", f"{template}:2", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    # each 4-cpu clone runs the agent's 1-cpu pod first: 3 copies each, not 4
    assert doc["perNode"] == {"base": 1, "tmpl-1": 3, "tmpl-2": 3}
    assert "kwhatif: note: --add-node: the 2 new node(s) run 2 DaemonSet pod(s) (agent)" in r.err
    drain = run("drain", "tmpl-1", "--cluster", cluster, "--add-node", template, "-o", "json")
    pods = json.loads(drain.out)["pods"]
    assert [(p["controller"]["name"], p["fromNode"]) for p in pods] == [("agent", "tmpl-1")]


# --- annotations of standard input ----------------------------------------------------------------


def test_github_annotations_of_standard_input_name_no_file(run):
    manifest = (SAMPLES / "workloads" / "ml-batch.yaml").read_text()
    r = run("check", "-f", "-", "--cluster", CLUSTER, "-o", "github", stdin=manifest)
    assert r.code == 1
    assert "<stdin>" not in r.out and "file=" not in r.out
    assert r.out.startswith("::error title=Job ml/train-llm%3A 2 of 2 pods do not fit::0/11 nodes are available")
    named = run("check", str(SAMPLES / "workloads" / "ml-batch.yaml"), "--cluster", CLUSTER, "-o", "github")
    assert "::error file=" in named.out and "samples/workloads/ml-batch.yaml,line=" in named.out
