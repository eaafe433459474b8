"""`kwhatif check` never passes silently: every object that may run pods gets an entry, and
operators' resources say how many pods they ask for (tests/e2e/realworld/operators, SOURCES.md)."""

from __future__ import annotations

import json

OPS = "tests/e2e/realworld/operators"
EKS = "tests/e2e/realworld/eks/cluster-info-dump.txt"
SUMMARY = "(profile default-scheduler, 2 nodes, kube-scheduler 1.31.14 from the nodes' kubelets)"
NOT_CHECKED = (
    "is a custom resource: the operator that watches it creates its pods, and kwhatif cannot tell which, so they "
    "are not checked"
)


def test_rook_ceph_cluster_is_not_checked_and_strict_fails(run):
    r = run("check", f"{OPS}/rook-ceph-cluster-test.yaml", "--cluster", EKS)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[:2] == [
        "KIND         WORKLOAD              DESIRED    PLACED    NOT PLACED    VERDICT      DOMINANT REASON",
        "CephCluster  rook-ceph/my-cluster  2          -         -             not checked",
    ]
    assert (
        f"note: CephCluster rook-ceph/my-cluster: CephCluster (ceph.rook.io) {NOT_CHECKED}; the manifest asks for "
        "2 pod(s) (spec.mon.count 1, spec.mgr.count 1)"
    ) in lines
    assert lines[-1] == f"0/0 workloads fit, 1 not checked {SUMMARY}"
    # the CephBlockPool runs no pod: counted on standard error only
    assert "kwhatif: note: objects in the manifests that run no pods, not checked: 1 CephBlockPool" in r.err
    r = run("check", f"{OPS}/rook-ceph-cluster-test.yaml", "--cluster", EKS, "--strict")
    assert r.code == 1
    assert r.out.splitlines()[-1] == f"0/0 workloads fit, 1 not checked (--strict: they fail) {SUMMARY}"


def test_cloudnative_pg_cluster_in_every_format(run):
    args = ("check", f"{OPS}/cnpg-cluster-example.yaml", "--cluster", EKS)
    note = f"Cluster (postgresql.cnpg.io) {NOT_CHECKED}; the manifest asks for 3 pod(s) (spec.instances 3)"
    r = run(*args, "-o", "json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    (w,) = d["workloads"]
    assert (w["kind"], w["namespace"], w["name"], w["desired"], w["verdict"]) == (
        "Cluster",
        "default",
        "cluster-example",
        3,
        "not checked",
    )
    assert w["notes"] == [note]
    assert (d["summary"]["notChecked"], d["summary"]["warnings"], d["summary"]["unknown"]) == (1, 1, 0)
    r = run(*args, "-o", "yaml")
    assert "- kind: Cluster\n" in r.out and "  verdict: not checked\n" in r.out
    r = run(*args, "-o", "markdown")
    assert "| ⚠️ Cluster `default/cluster-example` | 3 | - | - | not checked |" in r.out
    assert f"- Cluster `default/cluster-example`: {note}" in r.out
    r = run(*args, "-o", "github")
    assert r.out.splitlines()[0] == (
        f"::warning file={OPS}/cnpg-cluster-example.yaml,line=1,title=Cluster default/cluster-example%3A not checked "
        f"(a custom resource)::{note}"
    )
    r = run(*args, "-o", "github", "--strict")
    assert r.code == 1 and r.out.startswith("::error ")
    r = run(*args, "-o", "junit")
    assert (
        '<skipped message="Cluster default/cluster-example: not checked (a custom resource)">' + note + "</skipped>"
    ) in r.out
    r = run(*args, "-o", "html")
    assert '"kind":"Cluster","namespace":"default","name":"cluster-example"' in r.out
    assert '"verdict":"not checked"' in r.out


def test_strimzi_kafka_and_node_pool(run):
    code_out = run("check", f"{OPS}/strimzi-kafka-node-pools.yaml", "--cluster", EKS, "-o", "json")
    assert code_out.code == 0, code_out.err
    rows = [(w["kind"], w["name"], w["desired"], w["verdict"]) for w in json.loads(code_out.out)["workloads"]]
    # with node pools the Kafka names no replicas: its pods come from the KafkaNodePool
    assert rows == [("KafkaNodePool", "dual-role", 3, "not checked"), ("Kafka", "my-cluster", None, "not checked")]
    r = run("check", f"{OPS}/strimzi-kafka-node-pools.yaml", "--cluster", EKS)
    assert "Kafka          default/my-cluster  ?          -         -             not checked" in r.out
    assert f"note: Kafka default/my-cluster: Kafka (kafka.strimzi.io) {NOT_CHECKED}" in r.out.splitlines()
    assert run("check", f"{OPS}/strimzi-kafka-node-pools.yaml", "--cluster", EKS, "--strict").code == 1
    r = run("check", f"{OPS}/strimzi-kafka-zookeeper.yaml", "--cluster", EKS, "-o", "json")
    (w,) = json.loads(r.out)["workloads"]
    assert w["desired"] == 6
    assert w["notes"] == [
        f"Kafka (kafka.strimzi.io) {NOT_CHECKED}; the manifest asks for 6 pod(s) (spec.kafka.replicas 3, "
        "spec.zookeeper.replicas 3)"
    ]


def test_a_custom_resource_without_a_pod_count_is_listed_too(run, tmp_path):
    f = tmp_path / "cr.yaml"
    f.write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {colour: blue}\n"
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
    )
    r = run("check", str(f), "--cluster", EKS, "-o", "json")
    assert r.code == 0, r.err
    (w,) = json.loads(r.out)["workloads"]
    assert (w["kind"], w["name"], w["desired"], w["verdict"]) == ("Widget", "w", None, "not checked")
    assert "kwhatif: note: objects in the manifests that run no pods, not checked: 1 ConfigMap" in r.err


DROPPED = (
    "Job's pods: spec.resourceClaims: the DynamicResourceAllocation feature gate is off by default in 1.33.13; its "
    "API server drops the field (the pod is scheduled without its ResourceClaims)"
)


def test_claims_dropped_before_1_34_show_in_the_ci_outputs(run):
    args = (
        "check",
        "samples/dra/training.yaml",
        "--cluster",
        "samples/dra/cluster.yaml",
        "--scheduler-version",
        "1.33",
    )
    r = run(*args)
    assert r.code == 0, r.err
    assert f"note: Job ml/train-llm: {DROPPED}" in r.out.splitlines()
    r = run(*args, "-o", "markdown")
    assert f"- Job `ml/train-llm`: {DROPPED}" in r.out.splitlines()
    r = run(*args, "-o", "github")
    assert f"::warning file=samples/dra/training.yaml,line=22,title=Job ml/train-llm::{DROPPED}" in r.out.splitlines()
    r = run(*args, "-o", "junit")
    assert f"<system-out>2/2 pods placed\n{DROPPED}</system-out>" in r.out
