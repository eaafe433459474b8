"""Workloads expand into the pods their controllers would create: counts, names, labels, owners,
priorities, StatefulSet claims, DaemonSet placement, ownership of existing pods, and the API
server's refusals."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from kwhatif.api.core import OwnerReference, Pod, Toleration
from kwhatif.api.labels import Op
from kwhatif.api.storage import StorageClass
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.controlplane.controllers.workloads import (
    CREATION_TIME,
    ExpandedWorkload,
    expand_workload,
    owned_pods,
    template_hash,
)
from kwhatif.errors import FieldError, InputError
from kwhatif.load.cluster import build_cluster, load_cluster
from kwhatif.load.files import Document

from builders import make_node, make_pod

SOURCE = "app.yaml"
SAMPLE = str(Path(__file__).resolve().parents[2] / "samples" / "cluster.yaml")
API_VERSIONS = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "ReplicationController": "v1",
}
T0 = CREATION_TIME.timestamp()


# --- builders ----------------------------------------------------------------------------------


def template(labels: dict[str, str] | None = None, cpu: str = "100m", **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": dict({"app": "web"} if labels is None else labels)},
        "spec": {"containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}], **spec},
    }


def workload(kind: str, name: str, spec: dict[str, Any], ns: str = "shop", uid: str = "", **meta: Any) -> Workload:
    md: dict[str, Any] = {"name": name, "namespace": ns, **meta}
    if uid:
        md["uid"] = uid
    body = {"apiVersion": API_VERSIONS[kind], "kind": kind, "metadata": md, "spec": spec}
    return Workload(kind, ns, name, uid, body, SOURCE)


def apps(kind: str, name: str = "web", replicas: int | None = None, uid: str = "", **spec: Any) -> Workload:
    """An apps/v1 workload selecting app=web with a matching template."""
    s: dict[str, Any] = {"selector": {"matchLabels": {"app": "web"}}, "template": template()}
    if replicas is not None:
        s["replicas"] = replicas
    s.update(spec)
    return workload(kind, name, s, uid=uid)


def job(name: str = "train", uid: str = "", **spec: Any) -> Workload:
    return workload("Job", name, {"template": template({"app": "batch"}, restartPolicy="Never"), **spec}, uid=uid)


def cronjob(name: str = "nightly", suspend: bool = False, **job_spec: Any) -> Workload:
    spec: dict[str, Any] = {
        "schedule": "0 2 * * *",
        "jobTemplate": {"spec": {"template": template({"app": "batch"}, restartPolicy="OnFailure"), **job_spec}},
    }
    if suspend:
        spec["suspend"] = True
    return workload("CronJob", name, spec, uid="uid-cj")


def rc(name: str = "legacy", selector: dict[str, str] | None = None, replicas: int = 2) -> Workload:
    spec: dict[str, Any] = {"replicas": replicas, "template": template({"app": "legacy", "tier": "web"})}
    if selector is not None:
        spec["selector"] = selector
    return workload("ReplicationController", name, spec, uid="uid-rc")


def doc(obj: dict[str, Any]) -> Document:
    return Document(obj, "cluster.yaml", obj["kind"], obj["apiVersion"])


def cluster(*objs: dict[str, Any], nodes: tuple[str, ...] = ("n1",)) -> ClusterState:
    items = [make_node().name(n).dict() for n in nodes] + list(objs)
    return build_cluster(doc(o) for o in items)


def priority_class(name: str, value: int, default: bool = False, policy: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if default:
        d["globalDefault"] = True
    if policy:
        d["preemptionPolicy"] = policy
    return d


def owner(p: Pod) -> tuple[str, str, str, str, bool]:
    (ref,) = p.owner_references
    return (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller)


# --- counts ------------------------------------------------------------------------------------

# template_hash(template()): a stand-in for upstream's hash, pinned so a change to it shows.
DEPLOY_HASH = "9d599fc85"
NEW_RS = (
    f"Deployment: creates ReplicaSet web-{DEPLOY_HASH} (pod-template-hash {DEPLOY_HASH} stands in for upstream's hash)",
)

COUNT_CASES = [
    pytest.param(apps("Deployment", replicas=3), 3, 3, NEW_RS, id="deployment-3"),
    pytest.param(apps("Deployment"), 1, 1, NEW_RS, id="deployment-default-1"),
    pytest.param(apps("Deployment", replicas=0), 0, 0, NEW_RS, id="deployment-0"),
    pytest.param(apps("ReplicaSet", replicas=2), 2, 2, (), id="replicaset-2"),
    pytest.param(apps("ReplicaSet", replicas=0), 0, 0, (), id="replicaset-0"),
    pytest.param(rc(selector={"app": "legacy"}), 2, 2, (), id="rc-selector"),
    pytest.param(rc(), 2, 2, (), id="rc-selector-defaulted"),
    pytest.param(
        apps("StatefulSet", replicas=3, podManagementPolicy="Parallel"), 3, 3, (), id="statefulset-3-parallel"
    ),
    pytest.param(apps("StatefulSet", replicas=0), 0, 0, (), id="statefulset-0"),
    pytest.param(job(), 1, 1, (), id="job-defaults"),
    pytest.param(
        job(parallelism=4),
        4,
        4,
        ("Job: parallelism 4 without completions: pods run until one succeeds",),
        id="job-parallelism-only",
    ),
    pytest.param(
        job(completions=10), 1, 1, ("Job: parallelism 1 of completions 10 run at once",), id="job-completions-only"
    ),
    pytest.param(
        job(parallelism=4, completions=10),
        4,
        4,
        ("Job: parallelism 4 of completions 10 run at once",),
        id="job-parallelism-of-completions",
    ),
    pytest.param(job(parallelism=5, completions=2), 2, 2, (), id="job-completions-cap"),
    pytest.param(job(parallelism=3, completions=3), 3, 3, (), id="job-equal"),
    pytest.param(
        job(parallelism=0, completions=3), 0, 0, ("Job: parallelism 0; it runs no pods",), id="job-parallelism-0"
    ),
    pytest.param(
        job(parallelism=2, suspend=True),
        0,
        0,
        ("Job: suspended; it creates no pods until it is resumed",),
        id="job-suspended",
    ),
    pytest.param(
        job(parallelism=2, completions=5, completionMode="Indexed"),
        2,
        2,
        ("Job: parallelism 2 of completions 5 run at once",),
        id="job-indexed",
    ),
    pytest.param(
        cronjob(parallelism=2, completions=2),
        2,
        2,
        ("CronJob: one run of its job template, as Job nightly-68374080",),
        id="cronjob",
    ),
    pytest.param(
        cronjob(suspend=True),
        0,
        0,
        ("CronJob: suspended; it creates no Job until it is resumed",),
        id="cronjob-suspended",
    ),
]


@pytest.mark.parametrize("w,desired,count,notes", COUNT_CASES)
def test_counts(w: Workload, desired: int, count: int, notes: tuple[str, ...]) -> None:
    e = expand_workload(w, cluster())
    assert (e.desired, len(e.pods)) == (desired, count)
    assert e.notes == notes
    assert [p.creation_timestamp for p in e.pods] == [T0 + i / 1000 for i in range(count)]
    assert len({p.uid for p in e.pods}) == count


def test_identity_of_result() -> None:
    e = expand_workload(apps("ReplicaSet", replicas=1, uid="uid-rs"), cluster(), index=2)
    assert (e.kind, e.namespace, e.name, e.uid, e.source) == ("ReplicaSet", "shop", "web", "uid-rs", SOURCE)
    # Later workloads' pods are created after earlier ones'.
    assert e.pods[0].creation_timestamp == T0 + 2 * 86400
    assert e.pods[0].uid == "kwhatif-replicaset-shop-web-0"


def test_namespace_defaults() -> None:
    w = apps("ReplicaSet", replicas=1)
    w = dataclasses.replace(w, namespace="")
    e = expand_workload(w, cluster())
    assert (e.namespace, e.pods[0].namespace, e.uid) == ("default", "default", "kwhatif-replicaset-default-web")


# --- names, labels, owners ---------------------------------------------------------------------

NAME_CASES = [
    pytest.param(
        apps("Deployment", replicas=2, uid="uid-web"),
        ["web-9d599fc85-hcgvl", "web-9d599fc85-xfr9b"],
        {"app": "web", "pod-template-hash": DEPLOY_HASH},
        ("apps/v1", "ReplicaSet", f"web-{DEPLOY_HASH}", f"kwhatif-replicaset-shop-web-{DEPLOY_HASH}", True),
        id="deployment",
    ),
    pytest.param(
        apps("ReplicaSet", replicas=2, uid="uid-rs"),
        ["web-9hjlf", "web-5826k"],
        {"app": "web"},
        ("apps/v1", "ReplicaSet", "web", "uid-rs", True),
        id="replicaset",
    ),
    pytest.param(
        apps("ReplicaSet", replicas=1),
        ["web-9hjlf"],
        {"app": "web"},
        ("apps/v1", "ReplicaSet", "web", "kwhatif-replicaset-shop-web", True),
        id="replicaset-without-uid",
    ),
    pytest.param(
        rc(),
        ["legacy-q89wk", "legacy-rdbsr"],
        {"app": "legacy", "tier": "web"},
        ("v1", "ReplicationController", "legacy", "uid-rc", True),
        id="replicationcontroller",
    ),
    pytest.param(
        apps("StatefulSet", replicas=2, uid="uid-db"),
        ["web-0", "web-1"],
        {
            "app": "web",
            "controller-revision-hash": f"web-{DEPLOY_HASH}",
            "statefulset.kubernetes.io/pod-name": "web-0",
            "apps.kubernetes.io/pod-index": "0",
        },
        ("apps/v1", "StatefulSet", "web", "uid-db", True),
        id="statefulset",
    ),
    pytest.param(
        apps("StatefulSet", replicas=2, uid="uid-db", ordinals={"start": 5}),
        ["web-5", "web-6"],
        {
            "app": "web",
            "controller-revision-hash": f"web-{DEPLOY_HASH}",
            "statefulset.kubernetes.io/pod-name": "web-5",
            "apps.kubernetes.io/pod-index": "5",
        },
        ("apps/v1", "StatefulSet", "web", "uid-db", True),
        id="statefulset-start-ordinal",
    ),
    pytest.param(
        job(parallelism=2, uid="uid-job"),
        ["train-g6rwr", "train-thn64"],
        {
            "app": "batch",
            "controller-uid": "uid-job",
            "job-name": "train",
            "batch.kubernetes.io/controller-uid": "uid-job",
            "batch.kubernetes.io/job-name": "train",
        },
        ("batch/v1", "Job", "train", "uid-job", True),
        id="job",
    ),
    pytest.param(
        job(),
        ["train-g6rwr"],
        {
            "app": "batch",
            "controller-uid": "kwhatif-job-shop-train",
            "job-name": "train",
            "batch.kubernetes.io/controller-uid": "kwhatif-job-shop-train",
            "batch.kubernetes.io/job-name": "train",
        },
        ("batch/v1", "Job", "train", "kwhatif-job-shop-train", True),
        id="job-without-uid",
    ),
    pytest.param(
        job(parallelism=2, completions=4, completionMode="Indexed", uid="uid-job"),
        ["train-0-cwbd2", "train-1-bp89v"],
        {
            "app": "batch",
            "controller-uid": "uid-job",
            "job-name": "train",
            "batch.kubernetes.io/controller-uid": "uid-job",
            "batch.kubernetes.io/job-name": "train",
            "batch.kubernetes.io/job-completion-index": "0",
        },
        ("batch/v1", "Job", "train", "uid-job", True),
        id="job-indexed",
    ),
    pytest.param(
        cronjob(),
        ["nightly-68374080-psh4p"],
        {
            "app": "batch",
            "controller-uid": "kwhatif-job-shop-nightly-68374080",
            "job-name": "nightly-68374080",
            "batch.kubernetes.io/controller-uid": "kwhatif-job-shop-nightly-68374080",
            "batch.kubernetes.io/job-name": "nightly-68374080",
        },
        ("batch/v1", "Job", "nightly-68374080", "kwhatif-job-shop-nightly-68374080", True),
        id="cronjob",
    ),
]


@pytest.mark.parametrize("w,names,labels,ref", NAME_CASES)
def test_names_labels_owner(
    w: Workload, names: list[str], labels: dict[str, str], ref: tuple[str, str, str, str, bool]
) -> None:
    e = expand_workload(w, cluster())
    assert [p.name for p in e.pods] == names
    assert dict(e.pods[0].labels) == labels
    assert owner(e.pods[0]) == ref
    assert all(p.namespace == "shop" for p in e.pods)


def test_deployment_hash_has_upstream_shape() -> None:
    assert template_hash(template()) == DEPLOY_HASH
    # SafeEncodeString of a decimal uint32: up to 10 characters of the vowel-free alphabet.
    assert 1 <= len(DEPLOY_HASH) <= 10
    assert set(DEPLOY_HASH) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert template_hash(template(), 1) != DEPLOY_HASH


def test_generated_names_skip_names_in_use() -> None:
    taken = make_pod().name("web-9hjlf").namespace("shop").node("n1").obj()
    state = cluster()
    state.pods.append(taken)
    e = expand_workload(apps("ReplicaSet", replicas=2), state)
    assert [p.name for p in e.pods] == ["web-k4v6k", "web-5826k"]


def test_indexed_job_pod_labels_follow_index() -> None:
    e = expand_workload(job(parallelism=3, completions=3, completionMode="Indexed"), cluster())
    assert [p.labels["batch.kubernetes.io/job-completion-index"] for p in e.pods] == ["0", "1", "2"]


def test_template_annotations_and_spec_reach_the_pod() -> None:
    tmpl = template(
        nodeSelector={"disk": "ssd"},
        tolerations=[{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
    )
    tmpl["metadata"]["annotations"] = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
    e = expand_workload(apps("ReplicaSet", replicas=1, template=tmpl), cluster())
    p = e.pods[0]
    assert dict(p.annotations) == {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
    assert dict(p.node_selector) == {"disk": "ssd"}
    assert p.tolerations == (Toleration("dedicated", "Exists", "", "NoSchedule"),)
    assert p.node_name == "" and p.source == SOURCE
    assert p.requests.milli_cpu == 100


# --- Deployments and their ReplicaSets ---------------------------------------------------------


def test_deployment_reuses_matching_replicaset_from_sample() -> None:
    state = load_cluster([SAMPLE])
    e = expand_workload(state.workloads[("Deployment", "shop", "web")], state)
    assert e.desired == 6
    assert {owner(p) for p in e.pods} == {("apps/v1", "ReplicaSet", "web-6f9c7d8b5c", "uid-rs-web", True)}
    assert all(p.name.startswith("web-6f9c7d8b5c-") and len(p.name) == len("web-6f9c7d8b5c-") + 5 for p in e.pods)
    assert dict(e.pods[0].labels) == {"app": "web", "pod-template-hash": "6f9c7d8b5c"}
    assert (e.pods[0].priority, e.pods[0].priority_class_name) == (100000, "business-critical")
    assert e.notes == ("Deployment: its template is that of ReplicaSet web-6f9c7d8b5c, which the controller scales up",)


def test_deployment_with_changed_template_gets_a_new_replicaset() -> None:
    state = load_cluster([SAMPLE])
    w = state.workloads[("Deployment", "shop", "web")]
    body = dict(w.body)
    body["spec"] = {**w.body["spec"], "template": template({"app": "web"}, cpu="2")}
    e = expand_workload(dataclasses.replace(w, body=body), state)
    h = template_hash(body["spec"]["template"])
    assert owner(e.pods[0]) == ("apps/v1", "ReplicaSet", f"web-{h}", f"kwhatif-replicaset-shop-web-{h}", True)
    assert e.notes == (f"Deployment: creates ReplicaSet web-{h} (pod-template-hash {h} stands in for upstream's hash)",)


def test_deployment_collision_count_changes_the_hash() -> None:
    w = apps("Deployment", replicas=1)
    w.body["status"] = {"collisionCount": 2}
    e = expand_workload(w, cluster())
    assert e.pods[0].labels["pod-template-hash"] == template_hash(template(), 2)


def test_paused_deployment_note() -> None:
    e = expand_workload(apps("Deployment", replicas=1, paused=True), cluster())
    assert e.notes[-1] == "Deployment: paused; these are the pods it creates once resumed"
    assert len(e.pods) == 1


# --- admission ---------------------------------------------------------------------------------

PRIORITY_CASES = [
    pytest.param((), None, (0, "", "PreemptLowerPriority"), id="no-class"),
    pytest.param((priority_class("high", 1000),), "high", (1000, "high", "PreemptLowerPriority"), id="class"),
    pytest.param((priority_class("batch", -5, policy="Never"),), "batch", (-5, "batch", "Never"), id="class-never"),
    pytest.param(
        (priority_class("dflt", 7, default=True),), None, (7, "dflt", "PreemptLowerPriority"), id="global-default"
    ),
    pytest.param(
        (priority_class("dflt", 7, default=True), priority_class("high", 1000)),
        "high",
        (1000, "high", "PreemptLowerPriority"),
        id="class-over-global-default",
    ),
    pytest.param(
        (), "system-node-critical", (2000001000, "system-node-critical", "PreemptLowerPriority"), id="system-class"
    ),
]


def with_pod_spec(kind: str, **pod_spec: Any) -> Workload:
    """A two-pod workload of ``kind`` whose template spec has ``pod_spec``."""
    if kind == "Job":
        return job(parallelism=2, template=template({"app": "batch"}, restartPolicy="Never", **pod_spec))
    if kind == "CronJob":
        return workload(
            "CronJob",
            "nightly",
            {"jobTemplate": {"spec": {"parallelism": 2, "template": template(restartPolicy="OnFailure", **pod_spec)}}},
        )
    return apps(kind, replicas=2, template=template(**pod_spec))


@pytest.mark.parametrize("classes,name,expected", PRIORITY_CASES)
@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet", "Job", "CronJob"])
def test_priority(
    kind: str, classes: tuple[dict[str, Any], ...], name: str | None, expected: tuple[int, str, str]
) -> None:
    w = with_pod_spec(kind, **({"priorityClassName": name} if name else {}))
    e = expand_workload(w, cluster(*classes))
    assert len(e.pods) == 2
    assert {(p.priority, p.priority_class_name, p.preemption_policy) for p in e.pods} == {expected}


def test_runtime_class_overhead() -> None:
    rc_obj = {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "kata"},
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
    }
    e = expand_workload(apps("ReplicaSet", replicas=1, template=template(runtimeClassName="kata")), cluster(rc_obj))
    assert e.pods[0].requests.milli_cpu == 350
    assert e.pods[0].requests.memory == 120 * 1024 * 1024


# --- StatefulSet claims ------------------------------------------------------------------------


def claim_template(name: str, storage: str = "10Gi", storage_class: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {"metadata": {"name": name}, "spec": spec}


def sts_with_claims(**spec: Any) -> Workload:
    tmpl = template(volumes=[{"name": "data", "emptyDir": {}}, {"name": "config", "configMap": {"name": "cfg"}}])
    return apps(
        "StatefulSet",
        name="db",
        replicas=2,
        uid="uid-db",
        template=tmpl,
        volumeClaimTemplates=[claim_template("logs", "1Gi", "standard"), claim_template("data", "10Gi", "fast")],
        podManagementPolicy="Parallel",
        **spec,
    )


def test_statefulset_claims_and_volumes() -> None:
    e = expand_workload(sts_with_claims(), cluster())
    assert [(v.name, v.kind, v.claim_name) for v in e.pods[1].volumes] == [
        ("data", "persistentVolumeClaim", "data-db-1"),
        ("logs", "persistentVolumeClaim", "logs-db-1"),
        ("config", "configMap", ""),
    ]
    assert [(c.key, c.storage_class_name, c.request, c.phase, c.volume_name, c.access_modes) for c in e.pvcs] == [
        ("shop/data-db-0", "fast", 10 * 1024**3, "Pending", "", ("ReadWriteOnce",)),
        ("shop/logs-db-0", "standard", 1024**3, "Pending", "", ("ReadWriteOnce",)),
        ("shop/data-db-1", "fast", 10 * 1024**3, "Pending", "", ("ReadWriteOnce",)),
        ("shop/logs-db-1", "standard", 1024**3, "Pending", "", ("ReadWriteOnce",)),
    ]
    assert e.notes == ()


def test_statefulset_reuses_existing_claim() -> None:
    existing = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-db-0", "namespace": "shop"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "10Gi"}},
            "volumeName": "pv-1",
        },
        "status": {"phase": "Bound"},
    }
    e = expand_workload(sts_with_claims(), cluster(existing))
    assert [c.name for c in e.pvcs] == ["logs-db-0", "data-db-1", "logs-db-1"]
    assert e.notes == ("StatefulSet: PersistentVolumeClaim data-db-0 exists and is reused",)
    assert e.pods[0].volumes[0].claim_name == "data-db-0"


def test_statefulset_creates_only_missing_ordinals() -> None:
    state = load_cluster([SAMPLE])
    w = state.workloads[("StatefulSet", "data", "postgres")]
    e = expand_workload(w, state)
    assert (e.desired, e.pods) == (2, ())
    assert e.notes[0] == "StatefulSet: 2 of its pods already run"
    state.pods = [p for p in state.pods if p.name != "postgres-1"]
    e = expand_workload(w, state)
    assert [(p.name, p.labels["apps.kubernetes.io/pod-index"], p.uid) for p in e.pods] == [
        ("postgres-1", "1", "kwhatif-statefulset-data-postgres-1")
    ]
    assert owner(e.pods[0]) == ("apps/v1", "StatefulSet", "postgres", "uid-sts-postgres", True)


@dataclasses.dataclass(frozen=True, slots=True)
class DefaultableStorageClass(StorageClass):
    """A StorageClass carrying the default-class annotation and its creation time."""

    is_default: bool = False
    creation_timestamp: float = 0.0


def storage_class(name: str, default: bool, created: float = 0.0) -> DefaultableStorageClass:
    return DefaultableStorageClass(name, "csi.example.com", "WaitForFirstConsumer", (), {}, default, created)


DEFAULT_CLASS_CASES = [
    pytest.param([storage_class("a", False)], None, id="no-default"),
    pytest.param([storage_class("a", False), storage_class("b", True)], "b", id="one-default"),
    pytest.param([storage_class("old", True, 100.0), storage_class("new", True, 200.0)], "new", id="newest-default"),
    pytest.param([storage_class("z", True), storage_class("m", True)], "m", id="same-age-by-name"),
]


@pytest.mark.parametrize("classes,expected", DEFAULT_CLASS_CASES)
def test_statefulset_claims_get_the_default_class(classes: list[StorageClass], expected: str | None) -> None:
    state = cluster()
    state.storage_classes = {sc.name: sc for sc in classes}
    w = apps(
        "StatefulSet",
        name="db",
        replicas=1,
        volumeClaimTemplates=[claim_template("data"), claim_template("x", storage_class="")],
    )
    e = expand_workload(w, state)
    # An explicit "" asks for no class and is left alone.
    assert [(c.name, c.storage_class_name) for c in e.pvcs] == [("data-db-0", expected), ("x-db-0", "")]
    assert [(c.name, c.spec_storage_class_name) for c in e.pvcs] == [("data-db-0", expected), ("x-db-0", "")]
    if expected is None:
        assert e.notes == (
            "StatefulSet: volumeClaimTemplate data names no StorageClass and the cluster has none marked default",
        )
    else:
        assert e.notes == ()


# --- DaemonSets --------------------------------------------------------------------------------

DAEMON_DEFAULT_TOLERATIONS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),
)
NETWORK_UNAVAILABLE = Toleration("node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule")


def daemon_nodes() -> list[dict[str, Any]]:
    return [
        make_node().name("a-plain").label("role", "worker").dict(),
        make_node().name("b-gpu").label("role", "worker").taint("nvidia.com/gpu", "present").dict(),
        make_node()
        .name("c-not-ready")
        .label("role", "worker")
        .taint("node.kubernetes.io/not-ready", effect="NoExecute")
        .dict(),
        make_node()
        .name("d-cordoned")
        .label("role", "worker")
        .taint("node.kubernetes.io/unschedulable")
        .unschedulable()
        .dict(),
        make_node().name("e-no-network").label("role", "worker").taint("node.kubernetes.io/network-unavailable").dict(),
        make_node()
        .name("f-control-plane")
        .label("role", "control-plane")
        .taint("node-role.kubernetes.io/control-plane")
        .dict(),
        make_node().name("g-prefer").label("role", "worker").taint("spot", effect="PreferNoSchedule").dict(),
    ]


def daemonset(**tmpl_spec: Any) -> Workload:
    return workload(
        "DaemonSet",
        "agent",
        {"selector": {"matchLabels": {"app": "agent"}}, "template": template({"app": "agent"}, **tmpl_spec)},
        ns="kube-system",
        uid="uid-ds",
    )


NODE_SELECTOR_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "role", "operator": "In", "values": ["worker"]}]}]
        }
    }
}

DAEMON_CASES = [
    pytest.param({}, ["a-plain", "c-not-ready", "d-cordoned", "g-prefer"], id="default-tolerations"),
    pytest.param(
        {"hostNetwork": True}, ["a-plain", "c-not-ready", "d-cordoned", "e-no-network", "g-prefer"], id="host-network"
    ),
    pytest.param(
        {"tolerations": [{"operator": "Exists"}]},
        ["a-plain", "b-gpu", "c-not-ready", "d-cordoned", "e-no-network", "f-control-plane", "g-prefer"],
        id="tolerate-all",
    ),
    pytest.param(
        {"nodeSelector": {"role": "worker"}, "tolerations": [{"operator": "Exists"}]},
        ["a-plain", "b-gpu", "c-not-ready", "d-cordoned", "e-no-network", "g-prefer"],
        id="node-selector",
    ),
    pytest.param(
        {"affinity": NODE_SELECTOR_AFFINITY, "hostNetwork": True},
        ["a-plain", "c-not-ready", "d-cordoned", "e-no-network", "g-prefer"],
        id="required-affinity",
    ),
    pytest.param(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["g-prefer"]}]}
                        ]
                    }
                }
            }
        },
        ["g-prefer"],
        id="match-fields",
    ),
    pytest.param({"nodeName": "a-plain"}, ["a-plain"], id="node-name"),
]


@pytest.mark.parametrize("tmpl_spec,nodes", DAEMON_CASES)
def test_daemonset_eligible_nodes(tmpl_spec: dict[str, Any], nodes: list[str]) -> None:
    e = expand_workload(daemonset(**tmpl_spec), build_cluster(doc(n) for n in daemon_nodes()))
    assert e.desired == len(nodes)
    assert [_pinned_node(p) for p in e.pods] == nodes
    assert e.notes == (f"DaemonSet: runs on {len(nodes)} of 7 nodes",)


def _pinned_node(p: Pod) -> str:
    assert p.affinity is not None and p.affinity.node_affinity is not None
    required = p.affinity.node_affinity.required
    assert required is not None and len(required.terms) == 1
    term = required.terms[0]
    assert term.expressions is None and term.fields is not None
    (req,) = term.fields.requirements
    assert (req.key, req.op) == ("metadata.name", Op.IN) and len(req.values) == 1
    return next(iter(req.values))


def test_daemonset_pod_shape() -> None:
    tolerations = [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"},
    ]
    preferred = [
        {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}
    ]
    affinity = {
        "nodeAffinity": {
            **NODE_SELECTOR_AFFINITY["nodeAffinity"],
            "preferredDuringSchedulingIgnoredDuringExecution": preferred,
        }
    }
    w = daemonset(
        tolerations=tolerations, affinity=affinity, hostNetwork=True, priorityClassName="system-node-critical"
    )
    w.body["metadata"]["annotations"] = {"deprecated.daemonset.template.generation": "3"}
    e = expand_workload(w, build_cluster(doc(n) for n in daemon_nodes()))
    p = e.pods[0]
    assert p.name == "agent-dzwcz" and p.namespace == "kube-system"
    assert owner(p) == ("apps/v1", "DaemonSet", "agent", "uid-ds", True)
    h = template_hash(w.body["spec"]["template"])
    assert dict(p.labels) == {"app": "agent", "controller-revision-hash": h, "pod-template-generation": "3"}
    # The matching not-ready toleration is replaced (losing its tolerationSeconds); the others appended.
    assert p.tolerations == (
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"),
        Toleration("dedicated", "Equal", "infra", "NoSchedule"),
    ) + DAEMON_DEFAULT_TOLERATIONS[1:] + (NETWORK_UNAVAILABLE,)
    # The required terms are replaced by the node pin; preferred terms stay.
    assert p.affinity is not None and p.affinity.node_affinity is not None
    assert [t.weight for t in p.affinity.node_affinity.preferred] == [5]
    assert _pinned_node(p) == "a-plain"
    assert p.priority == 2000001000


def test_daemonset_skips_nodes_with_its_pod() -> None:
    state = build_cluster(doc(n) for n in daemon_nodes())
    state.pods.append(
        make_pod()
        .name("agent-old")
        .namespace("kube-system")
        .node("a-plain")
        .owner("DaemonSet", "agent", "uid-ds")
        .obj()
    )
    pinned = make_pod().name("agent-pending").namespace("kube-system").owner("DaemonSet", "agent", "uid-ds")
    pinned.affinity(
        {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["d-cordoned"]}]}
                    ]
                }
            }
        }
    )
    state.pending_pods.append(pinned.obj())
    # Another DaemonSet's pod does not count.
    state.pods.append(
        make_pod().name("other").namespace("kube-system").node("c-not-ready").owner("DaemonSet", "other").obj()
    )
    e = expand_workload(daemonset(), state)
    assert e.desired == 4
    assert [_pinned_node(p) for p in e.pods] == ["c-not-ready", "g-prefer"]
    assert e.notes == ("DaemonSet: runs on 4 of 7 nodes", "DaemonSet: 2 of them already run its pod")


def test_daemonset_of_sample_runs_everywhere_already() -> None:
    state = load_cluster([SAMPLE])
    e = expand_workload(state.workloads[("DaemonSet", "kube-system", "kube-proxy")], state)
    assert (e.desired, e.pods) == (len(state.nodes), ())
    state.pods = [p for p in state.pods if p.name != "kube-proxy-gpu-c-1"]
    e = expand_workload(state.workloads[("DaemonSet", "kube-system", "kube-proxy")], state)
    assert [_pinned_node(p) for p in e.pods] == ["gpu-c-1"]
    assert e.pods[0].host_network and e.pods[0].priority == 2000001000


# --- owned pods --------------------------------------------------------------------------------


def pod(name: str, ns: str = "shop", node: str = "n1", **labels: str) -> Any:
    return make_pod().name(name).namespace(ns).node(node).labels(**labels)


def test_owned_pods_of_sample() -> None:
    state = load_cluster([SAMPLE])
    names = {
        key: sorted(p.name for p in owned_pods(w, state))
        for key, w in state.workloads.items()
        if key[0] != "ReplicaSet" or key[2] == "checkout-5d4f8b9c7"
    }
    assert names[("Deployment", "shop", "web")] == sorted(
        f"web-6f9c7d8b5c-{s}" for s in ("x7k2p", "m4n8q", "r2t6v", "b9c3d", "h5j7k", "w1z4y")
    )
    assert names[("ReplicaSet", "shop", "checkout-5d4f8b9c7")] == [
        "checkout-5d4f8b9c7-aa1",
        "checkout-5d4f8b9c7-bb2",
        "checkout-5d4f8b9c7-cc3",
    ]
    assert names[("StatefulSet", "data", "postgres")] == ["postgres-0", "postgres-1"]
    assert len(names[("DaemonSet", "kube-system", "kube-proxy")]) == len(state.nodes)


OWNED_CASES = [
    pytest.param(
        apps("ReplicaSet", uid="uid-rs"),
        [
            pod("mine", app="web").owner("ReplicaSet", "web", "uid-rs"),
            pod("same-name-other-uid", app="web").owner("ReplicaSet", "web", "uid-old"),
            pod("other-ns", ns="team", app="web").owner("ReplicaSet", "web", "uid-rs"),
        ],
        [],
        ["mine"],
        id="replicaset-by-uid",
    ),
    pytest.param(
        apps("ReplicaSet"),
        [pod("mine").owner("ReplicaSet", "web", "uid-x"), pod("other").owner("ReplicaSet", "web2")],
        [],
        ["mine"],
        id="replicaset-by-name-without-uid",
    ),
    pytest.param(
        apps("ReplicaSet", uid="uid-rs"),
        [pod("orphan", app="web"), pod("orphan-other", app="api"), pod("deleting-orphan", app="web").terminating()],
        [],
        ["orphan"],
        id="replicaset-adopts-orphans",
    ),
    pytest.param(
        rc(),
        [pod("mine").owner("ReplicationController", "legacy", "uid-rc", "v1"), pod("orphan", app="legacy", tier="web")],
        [],
        ["mine", "orphan"],
        id="rc",
    ),
    pytest.param(
        apps("StatefulSet", uid="uid-sts"),
        [pod("web-0").owner("StatefulSet", "web", "uid-sts"), pod("web-3", app="web"), pod("web-x", app="web")],
        [],
        ["web-0", "web-3"],
        id="statefulset",
    ),
    pytest.param(
        daemonset(),
        [
            pod("agent-1", ns="kube-system").owner("DaemonSet", "agent", "uid-ds"),
            pod("agent-2", ns="kube-system", node="").owner("DaemonSet", "agent", "uid-ds"),
        ],
        [],
        ["agent-1", "agent-2"],
        id="daemonset-pending-too",
    ),
    pytest.param(
        job(uid="uid-job"),
        [
            pod("train-a").owner("Job", "train", "uid-job", "batch/v1"),
            pod("orphan", **{"batch.kubernetes.io/controller-uid": "uid-job"}),
            pod("labelled-only", app="batch"),
        ],
        [],
        ["train-a", "orphan"],
        id="job",
    ),
    pytest.param(
        apps("Deployment", uid="uid-dep"),
        [
            pod("new").owner("ReplicaSet", "web-1", "uid-rs1"),
            pod("old").owner("ReplicaSet", "web-2", "uid-rs2"),
            pod("foreign", app="web").owner("ReplicaSet", "other-1", "uid-other"),
            pod("bare", app="web"),
        ],
        [
            workload(
                "ReplicaSet",
                "web-1",
                {},
                uid="uid-rs1",
                ownerReferences=[
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-dep", "controller": True}
                ],
            ),
            workload(
                "ReplicaSet",
                "web-2",
                {},
                uid="uid-rs2",
                ownerReferences=[
                    {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-dep", "controller": True}
                ],
            ),
            workload("ReplicaSet", "other-1", {}, uid="uid-other"),
        ],
        ["new", "old"],
        id="deployment-through-replicasets",
    ),
    pytest.param(
        apps("Deployment", uid="uid-dep"),
        [
            pod("by-selector", app="web").owner("ReplicaSet", "web-1"),
            pod("other-labels", app="api").owner("ReplicaSet", "api-1"),
            pod("bare", app="web"),
        ],
        [],
        ["by-selector"],
        id="deployment-replicasets-not-in-dump",
    ),
    pytest.param(
        cronjob(),
        [
            pod("run-a").owner("Job", "nightly-100", "uid-j1", "batch/v1"),
            pod("run-b").owner("Job", "nightly-200", "uid-j2", "batch/v1"),
            pod("manual").owner("Job", "manual-run", "uid-j3", "batch/v1"),
            pod("other-cron").owner("Job", "nightly-backup-1", "uid-j4", "batch/v1"),
        ],
        [
            workload(
                "Job",
                "nightly-100",
                {},
                uid="uid-j1",
                ownerReferences=[
                    {
                        "apiVersion": "batch/v1",
                        "kind": "CronJob",
                        "name": "nightly",
                        "uid": "uid-cj",
                        "controller": True,
                    }
                ],
            )
        ],
        ["run-a", "run-b"],
        id="cronjob-through-jobs",
    ),
]


@pytest.mark.parametrize("w,pods,children,expected", OWNED_CASES)
def test_owned_pods(w: Workload, pods: list[Any], children: list[Workload], expected: list[str]) -> None:
    state = cluster()
    for b in pods:
        p = b.obj()
        (state.pods if p.node_name else state.pending_pods).append(p)
    state.workloads = {c.key: c for c in children}
    assert [p.name for p in owned_pods(w, state)] == expected


# --- errors ------------------------------------------------------------------------------------


def with_spec(w: Workload, **changes: Any) -> Workload:
    body = dict(w.body)
    body["spec"] = {**w.body["spec"], **changes}
    return dataclasses.replace(w, body=body)


BAD_CPU = template(cpu="1x")
ERROR_CASES = [
    pytest.param(
        with_spec(apps("Deployment"), selector={"matchLabels": {"app": "api"}}),
        'spec.template.metadata.labels: Invalid value: {"app": "web"}: `selector` does not match template `labels`',
        id="selector-mismatch",
    ),
    pytest.param(
        rc(selector={"app": "other"}),
        'spec.template.metadata.labels: Invalid value: {"app": "legacy", "tier": "web"}: `selector` does not match template `labels`',
        id="rc-selector-mismatch",
    ),
    pytest.param(
        with_spec(
            apps("StatefulSet"), selector={"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]}
        ),
        'spec.template.metadata.labels: Invalid value: {"app": "web"}: `selector` does not match template `labels`',
        id="statefulset-selector-expression-mismatch",
    ),
    pytest.param(with_spec(apps("ReplicaSet"), selector=None), "spec.selector: Required value", id="missing-selector"),
    pytest.param(
        with_spec(apps("Deployment"), selector={}),
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
        id="empty-selector-deployment",
    ),
    pytest.param(
        with_spec(apps("ReplicaSet"), selector={}),
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
        id="empty-selector-replicaset",
    ),
    pytest.param(
        with_spec(apps("StatefulSet"), selector={}),
        "spec.selector: Invalid value: {}: empty selector is invalid for statefulset",
        id="empty-selector-statefulset",
    ),
    pytest.param(
        with_spec(daemonset(), selector={}),
        "spec.selector: Invalid value: {}: empty selector is invalid for daemonset",
        id="empty-selector-daemonset",
    ),
    pytest.param(
        workload("ReplicationController", "r", {"template": template({})}),
        "spec.selector: Required value",
        id="rc-no-selector-no-labels",
    ),
    pytest.param(
        apps("Deployment", replicas=-1),
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        id="negative-replicas",
    ),
    pytest.param(
        apps("Deployment", replicas=0, template=BAD_CPU),
        "spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        id="bad-quantity",
    ),
    pytest.param(
        job(template=template({"app": "batch"}, cpu="1x", restartPolicy="Never")),
        "spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        id="bad-quantity-job",
    ),
    pytest.param(
        workload("CronJob", "c", {"jobTemplate": {"spec": {"template": template(cpu="1x", restartPolicy="Never")}}}),
        "spec.jobTemplate.spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        id="bad-quantity-cronjob",
    ),
    pytest.param(
        apps("ReplicaSet", template={"metadata": {"labels": {"app": "web"}}}),
        "spec.template.spec.containers: Required value",
        id="no-containers",
    ),
    pytest.param(
        apps("ReplicaSet", template=template({"app": 1})),
        "spec.template.metadata.labels.app: expected a string, got int 1",
        id="label-not-a-string",
    ),  # type: ignore[dict-item]
    pytest.param(
        apps("ReplicaSet", template={**template(), "metadata": {"labels": {"app": "web"}, "annotations": {"a": 2}}}),
        "spec.template.metadata.annotations.a: expected a string, got int 2",
        id="annotation-not-a-string",
    ),
    pytest.param(
        apps("ReplicaSet", template=template(runtimeClassName="gvisor")),
        'spec.template.spec.runtimeClassName: RuntimeClass "gvisor" not found',
        id="unknown-runtime-class",
    ),
    pytest.param(
        apps("Deployment", template=template(restartPolicy="Never")),
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        id="restart-never",
    ),
    pytest.param(
        job(template=template({"app": "batch"})),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
        id="job-restart-default",
    ),
    pytest.param(
        job(template=template({"app": "batch"}, restartPolicy="Always")),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
        id="job-restart-always",
    ),
    pytest.param(
        job(parallelism=-2),
        "spec.parallelism: Invalid value: -2: must be greater than or equal to 0",
        id="job-negative-parallelism",
    ),
    pytest.param(
        job(completionMode="Indexed"),
        "spec.completions: Required value: when completion mode is Indexed",
        id="job-indexed-without-completions",
    ),
    pytest.param(
        job(completionMode="Each"),
        'spec.completionMode: Unsupported value: "Each": supported values: "NonIndexed", "Indexed"',
        id="job-bad-completion-mode",
    ),
    pytest.param(
        job(uid="u1", selector={"matchLabels": {"app": "batch"}}),
        'spec.selector: Invalid value: {"matchLabels": {"app": "batch", "batch.kubernetes.io/controller-uid": "u1"}}: `selector` not auto-generated',
        id="job-selector-not-generated",
    ),
    pytest.param(
        job(uid="u2", template=template({"app": "batch", "controller-uid": "u1"}, restartPolicy="Never")),
        "spec.template.metadata.labels[controller-uid]: Invalid value: "
        '{"app": "batch", "batch.kubernetes.io/controller-uid": "u2", "batch.kubernetes.io/job-name": "train", "controller-uid": "u1", "job-name": "train"}: '
        "must be 'u2'",
        id="job-stale-controller-uid",
    ),
    pytest.param(job(manualSelector=True), "spec.selector: Required value", id="job-manual-selector-missing"),
    pytest.param(
        job(manualSelector=True, selector={"matchLabels": {"app": "other"}}),
        'spec.template.metadata.labels: Invalid value: {"app": "batch"}: `selector` does not match template `labels`',
        id="job-manual-selector-mismatch",
    ),
    pytest.param(
        apps("StatefulSet", podManagementPolicy="Fast"),
        "spec.podManagementPolicy: Invalid value: \"Fast\": must be 'OrderedReady' or 'Parallel'",
        id="statefulset-bad-policy",
    ),
    pytest.param(
        apps("StatefulSet", volumeClaimTemplates=[{"spec": {}}]),
        "spec.volumeClaimTemplates[0].metadata.name: Required value",
        id="statefulset-claim-without-name",
    ),
    pytest.param(
        apps("StatefulSet", volumeClaimTemplates=[claim_template("data", "ten")]),
        "spec.volumeClaimTemplates[0].spec.resources.requests[storage]: Invalid value: \"ten\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        id="statefulset-claim-bad-storage",
    ),
]


@pytest.mark.parametrize("w,message", ERROR_CASES)
def test_errors(w: Workload, message: str) -> None:
    with pytest.raises(FieldError) as ei:
        expand_workload(w, cluster())
    assert str(ei.value) == f"{SOURCE}: {w.kind} {w.namespace}/{w.name}: {message}"
    assert ei.value.exit_code == 2


def test_unknown_kind() -> None:
    w = Workload("Pod", "shop", "p", "", {"spec": {}}, SOURCE)
    with pytest.raises(InputError) as ei:
        expand_workload(w, cluster())
    assert str(ei.value) == "app.yaml: Pod shop/p: kind Pod has no pods to expand"


def test_pods_are_admitted_ready_for_the_scheduler() -> None:
    e = expand_workload(apps("Deployment", replicas=2), cluster())
    for p in e.pods:
        assert p.priority_resolved and p.scheduler_name == "default-scheduler" and not p.node_name
        assert isinstance(p.owner_references[0], OwnerReference)
    assert isinstance(e, ExpandedWorkload)


def test_priority_admission_refuses_the_pods_of_a_template_naming_a_missing_class() -> None:
    e = expand_workload(apps("ReplicaSet", replicas=2, template=template(priorityClassName="gold")), cluster())
    assert (e.desired, e.pods, e.refused_by) == (2, (), "Priority")
    assert e.refusal is not None
    assert e.refusal.endswith('" is forbidden: no PriorityClass with name gold was found')
