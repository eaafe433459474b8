"""kwhatif.whatif.check decisions around the scheduler: template changes under --surge, the
HorizontalPodAutoscaler's bounds, and DaemonSet update strategies (the rules themselves are in
controlplane/controllers/rollout.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kwhatif.cache.cluster import Workload
from kwhatif.config.defaults import default_configuration
from kwhatif.config.options import Options
from kwhatif.controlplane.controllers.rollout import autoscaled, daemonset_max_surge, template_unchanged
from kwhatif.load.files import Document
from kwhatif.scheduling.scheduler import Scheduler
from kwhatif.whatif.check import check

from builders import make_cluster, make_node


def sts(cpu: str = "500m", **extra_spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {
                    "containers": [{"name": "db", "image": "postgres:16", "resources": {"requests": {"cpu": cpu}}}]
                },
            },
            **extra_spec,
        },
    }


def running_pod(name: str, node: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": {"app": "db"},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "", "controller": True}
            ],
        },
        "spec": {
            "nodeName": node,
            "containers": [{"name": "db", "image": "postgres:16", "resources": {"requests": {"cpu": cpu}}}],
        },
        "status": {"phase": "Running"},
    }


def workload(body: dict[str, Any]) -> Workload:
    meta = body["metadata"]
    return Workload(body["kind"], meta.get("namespace", "default"), meta["name"], "", body, "x.yaml")


def run_check(objs: list[dict[str, Any]], manifest: list[dict[str, Any]], **kw: Any) -> Any:
    state = make_cluster(objs)
    cfg = default_configuration()
    docs = [Document(copy.deepcopy(b), "x.yaml", b["kind"], b["apiVersion"]) for b in manifest]
    result, _ = check(state, docs, lambda st: Scheduler(st, cfg, options=Options(preemption=False, compact=True)), **kw)
    return result


NODES = [make_node().name(n).capacity(cpu="2", memory="4Gi", pods="110").dict() for n in ("n1", "n2")]


def test_statefulset_template_change_is_not_surged():
    # the running pods use 1.5 cpu of each 2-cpu node; new 1-cpu pods fit only once they leave,
    # which is what the StatefulSet controller does even when --surge keeps other workloads' pods
    objs = NODES + [sts("1500m"), running_pod("db-0", "n1", "1500m"), running_pod("db-1", "n2", "1500m")]
    result = run_check(objs, [sts("1")], surge=True)
    (cw,) = result.workloads
    assert cw.replaced == 2
    assert cw.notes[0].startswith("StatefulSet: its template changes and a StatefulSet never surges")
    assert [a.result for a in result.attempts] == ["Scheduled", "Scheduled"]


def test_statefulset_unchanged_under_surge_keeps_its_pods():
    objs = NODES + [sts(), running_pod("db-0", "n1", "500m"), running_pod("db-1", "n2", "500m")]
    result = run_check(objs, [sts()], surge=True)
    (cw,) = result.workloads
    assert (cw.replaced, cw.pods) == (0, [])
    assert "StatefulSet: 2 of its pods already run" in cw.notes


@pytest.mark.parametrize(
    "old,new,unchanged",
    [
        pytest.param(sts(), sts(), True, id="same"),
        # the API server's defaults in the running object are no change
        pytest.param(
            {
                **sts(),
                "spec": {
                    **sts()["spec"],
                    "template": {
                        **sts()["spec"]["template"],
                        "spec": {
                            **sts()["spec"]["template"]["spec"],
                            "dnsPolicy": "ClusterFirst",
                            "restartPolicy": "Always",
                        },
                    },
                },
            },
            sts(),
            True,
            id="defaults",
        ),
        pytest.param(sts("0.5"), sts("500m"), True, id="quantity-written-differently"),
        pytest.param(sts(), sts("1"), False, id="request-changed"),
        pytest.param(
            {
                **sts(),
                "spec": {
                    **sts()["spec"],
                    "template": {
                        **sts()["spec"]["template"],
                        "spec": {**sts()["spec"]["template"]["spec"], "nodeSelector": {"pool": "db"}},
                    },
                },
            },
            sts(),
            False,
            id="node-selector-dropped",
        ),
    ],
)
def test_template_unchanged(old: dict[str, Any], new: dict[str, Any], unchanged: bool):
    assert template_unchanged(workload(old), workload(new)) is unchanged


@pytest.mark.parametrize(
    "strategy,surge",
    [
        pytest.param(None, 0, id="default"),
        pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}, 1, id="int"),
        pytest.param(
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}}, 1, id="percent"
        ),
        pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "0%"}}, 0, id="zero-percent"),
        pytest.param({"type": "OnDelete"}, 0, id="on-delete"),
    ],
)
def test_daemonset_max_surge(strategy: dict[str, Any] | None, surge: int):
    body: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": {}}
    if strategy is not None:
        body["spec"]["updateStrategy"] = strategy
    assert daemonset_max_surge(workload(body)) == surge


def hpa(min_replicas: int | None, max_replicas: int, target: str = "db", kind: str = "StatefulSet") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
        "maxReplicas": max_replicas,
    }
    if min_replicas is not None:
        spec["minReplicas"] = min_replicas
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "db-hpa", "namespace": "default"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    "replicas,hpa_obj,hpa_max,want",
    [
        # reconcileAutoscaler: below min -> min, above max -> max, 0 -> autoscaling disabled
        pytest.param(None, hpa(3, 10), False, 3, id="unset-raised-to-min"),
        pytest.param(2, hpa(None, 10), False, 2, id="min-defaults-to-1"),
        pytest.param(12, hpa(3, 10), False, 10, id="lowered-to-max"),
        pytest.param(5, hpa(3, 10), False, 5, id="within"),
        pytest.param(0, hpa(3, 10), False, 0, id="scaled-to-zero"),
        pytest.param(5, hpa(3, 10), True, 10, id="hpa-max"),
        pytest.param(5, hpa(3, 10, target="other"), False, 5, id="other-target"),
        pytest.param(5, hpa(3, 10, kind="Deployment"), False, 5, id="other-kind"),
    ],
)
def test_autoscaled(replicas: int | None, hpa_obj: dict[str, Any], hpa_max: bool, want: int):
    body = sts()
    if replicas is None:
        del body["spec"]["replicas"]
    else:
        body["spec"]["replicas"] = replicas
    state = make_cluster([hpa_obj])
    notes: list[str] = []
    w = autoscaled(workload(body), state.hpas.values(), hpa_max, notes)
    got = w.body["spec"].get("replicas", 1)
    assert got == want


def test_limit_range_default_limit_below_the_request_makes_the_pod_invalid():
    # LimitRanger sets the default limit; validation then finds the request above it and the API
    # server refuses every pod the controller creates
    lr = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "default": {"cpu": "1"}}]},
    }
    result = run_check(NODES, [lr, sts("2")])
    (cw,) = result.workloads
    assert (cw.refused, cw.pods, str(cw.refused_by)) == (2, [], "refused by LimitRange")
    assert cw.refusal == (
        'Pod "db-0" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to '
        "cpu limit of 1"
    )
    assert result.attempts == []


CLAIM_TEMPLATES = [{"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]
STANDARD = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "ebs.csi.aws.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}


def _verdicts(result: Any) -> list[tuple[str, str | None, list[str]]]:
    return [
        (cw.name, None if cw.verdict is None else str(cw.verdict), [s for s, _ in cw.missing])
        for cw in result.workloads
    ]


def test_claims_without_any_storage_class_are_unknown():
    result = run_check(NODES, [sts(volumeClaimTemplates=CLAIM_TEMPLATES)])
    assert _verdicts(result) == [("db", "unknown", ["the cluster state has no StorageClasses"])]
    assert result.workloads[0].pods == [] and result.attempts == []
    # with the class, the pods are placed
    result = run_check([*NODES, STANDARD], [sts(volumeClaimTemplates=CLAIM_TEMPLATES)])
    assert _verdicts(result) == [("db", None, [])]
    assert len(result.attempts) == 2


def test_a_claim_the_pv_controller_binds_needs_no_class():
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-1"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "manual",
            "hostPath": {"path": "/mnt"},
        },
    }
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "storageClassName": "manual",
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
        },
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "x"}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}],
        },
    }
    result = run_check(NODES, [pv, claim, pod])
    assert _verdicts(result) == [("p", None, [])]


def test_a_missing_priority_class_is_unknown_only_when_the_state_lists_none():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"priorityClassName": "high", "containers": [{"name": "c", "image": "x"}]},
    }
    result = run_check(NODES, [pod])
    assert _verdicts(result) == [("p", "unknown", ["the cluster state has no PriorityClasses"])]
    assert result.workloads[0].refused == 0
    other = {**HIGH, "metadata": {"name": "other"}}
    result = run_check([*NODES, other], [pod])
    assert result.workloads[0].refused_by is not None and str(result.workloads[0].refused_by) == "refused by Priority"


def test_a_live_state_is_whole():
    # read live (or saved by `kwhatif snapshot`), an empty list means the cluster has none
    state = make_cluster(NODES)
    state.server_version = "v1.30.6"
    cfg = default_configuration()
    doc = sts(volumeClaimTemplates=CLAIM_TEMPLATES)
    docs = [Document(copy.deepcopy(doc), "x.yaml", doc["kind"], doc["apiVersion"])]
    result, _ = check(state, docs, lambda st: Scheduler(st, cfg, options=Options(preemption=False, compact=True)))
    assert _verdicts(result) == [("db", None, [])]


# --- objects the API server refuses, and OrderedReady --------------------------------------------


def test_an_invalid_workload_is_refused_and_the_others_are_placed():
    bad = sts()
    bad["spec"]["replicas"] = -1
    bad["metadata"] = {"name": "broken", "namespace": "default"}
    result = run_check(NODES, [bad, sts()])
    broken, db = result.workloads
    assert (broken.name, broken.verdict, broken.refusal, broken.pods) == (
        "broken",
        "refused by the API server",
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        [],
    )
    assert (db.name, db.verdict, len(db.pods)) == ("db", None, 2)
    assert [a.result for a in result.attempts] == ["Scheduled", "Scheduled"]


@pytest.mark.parametrize(
    "policy,pods,never,attempted",
    [
        pytest.param(None, ["db-0", "db-1"], 1, ["db-0", "db-1"], id="ordered-ready-by-default"),
        pytest.param("OrderedReady", ["db-0", "db-1"], 1, ["db-0", "db-1"], id="ordered-ready"),
        pytest.param("Parallel", ["db-0", "db-1", "db-2"], 0, ["db-0", "db-1", "db-2"], id="parallel"),
    ],
)
def test_ordered_ready_never_creates_the_pods_after_one_that_does_not_fit(policy, pods, never, attempted):
    one_node = [make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="110").dict()]
    body = sts("1500m")
    body["spec"]["replicas"] = 3
    if policy:
        body["spec"]["podManagementPolicy"] = policy
    result = run_check(one_node, [body])
    (cw,) = result.workloads
    assert [p.name for p in cw.pods] == pods
    assert cw.never_created == never
    assert sorted({a.pod.name for a in result.attempts}) == attempted
