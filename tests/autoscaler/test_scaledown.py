"""Scale-down: cases of upstream's eligibility tests (core/scaledown/eligibility/eligibility_test.go
getTestCases), the drainability rules (simulator/drainability/rules/*/rule_test.go) and node
removal (simulator/cluster_test.go TestFindNodesToRemove), cluster-autoscaler-release-1.36."""

from __future__ import annotations

import pytest

from kwhatif.api import parse
from kwhatif.api.core import Node
from kwhatif.autoscaler.nodegroups import NodeGroup, NodeGroupSet
from kwhatif.autoscaler.scaledown import drainable, eligibility, scale_down
from kwhatif.cache.cluster import ClusterState
from tests.autoscaler.ca_helpers import make_pod_obj, simulator

from builders import make_pod


def node(name: str, cpu: int, mem: int, *, taint: str = "", annotations: dict[str, str] | None = None) -> Node:
    """BuildTestNode: cpu millicores, memory bytes."""
    res = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "110"}
    spec = {"taints": [{"key": taint, "effect": "NoSchedule"}]} if taint else {}
    meta = {"name": name, "labels": {"kubernetes.io/hostname": name}, "annotations": annotations or {}}
    return parse.node({"metadata": meta, "spec": spec, "status": {"capacity": res, "allocatable": res}})


def pod(name: str, cpu: int, on: str = "regular", owner: str = "", ns: str = "default", **ann: str):
    b = make_pod().name(name).namespace(ns).req(cpu=f"{cpu}m", memory="0").node(on)
    if owner:
        b = b.owner(owner, f"{name}-owner", uid=f"uid-{name}")
    d = b.dict()
    d["metadata"]["annotations"] = {k.replace("__", "/"): v for k, v in ann.items()}
    return make_pod_obj(d)


REGULAR = node("regular", 1000, 10)
JUST_DELETED = node("justdeleted", 1000, 10, taint="ToBeDeletedByClusterAutoscaler")
NO_SCALE_DOWN = node(
    "noscaledown", 1000, 10, annotations={"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"}
)
BROKEN_UTIL = node("regular", 0, 0)


@pytest.mark.parametrize(
    ("n", "pods", "want"),
    [
        (REGULAR, [], None),  # regular node stays
        (JUST_DELETED, [], "CurrentlyBeingDeleted"),  # recently deleted node is filtered out
        (NO_SCALE_DOWN, [], "ScaleDownDisabledAnnotation: cluster-autoscaler.kubernetes.io/scale-down-disabled=true"),
        (REGULAR, [pod("bigpod", 600)], "NotUnderutilized: cpu utilization 0.60 is above 0.5"),
        (REGULAR, [pod("smallpod", 100)], None),  # underutilized node stays
        (BROKEN_UTIL, [pod("smallpod", 100)], "UnexpectedError: cpu is 0 at regular"),
        # DaemonSet pods count (--ignore-daemonsets-utilization false)
        (
            REGULAR,
            [pod("smallpod", 100), pod("dspod", 500, owner="DaemonSet")],
            "NotUnderutilized: cpu utilization 0.60 is above 0.5",
        ),
    ],
    ids=[
        "regular node stays",
        "recently deleted node is filtered out",
        "marked no scale down is filtered out",
        "highly utilized node is filtered out",
        "underutilized node stays",
        "node is filtered out if utilization can't be calculated",
        "high utilization daemonsets node is filtered out, when IgnoreDaemonSets is disabled",
    ],
)
def test_eligibility(n, pods, want):
    reason, _ = eligibility(n, pods, "ng1", 0.5)
    assert reason == want


def test_not_autoscaled():
    assert eligibility(REGULAR, [], None, 0.5)[0] == "NotAutoscaled: the node is in no node group"


STATE = ClusterState()


@pytest.mark.parametrize(
    ("p", "want"),
    [
        (pod("mirror", 10, **{"kubernetes.io__config.mirror": "x"}), ("skip", None)),
        (pod("ds", 10, owner="DaemonSet"), ("daemonset", None)),
        (pod("bare", 10), ("block", "NotReplicated: default/bare is not replicated")),
        (pod("bare-safe", 10, **{"cluster-autoscaler.kubernetes.io__safe-to-evict": "true"}), ("move", None)),
        (pod("rs", 10, owner="ReplicaSet"), ("move", None)),
        (pod("custom", 10, owner="MyController"), ("block", "NotReplicated: default/custom is not replicated")),
        (
            pod("not-safe", 10, owner="ReplicaSet", **{"cluster-autoscaler.kubernetes.io__safe-to-evict": "false"}),
            ("block", "NotSafeToEvictAnnotation: pod annotated as not safe to evict present: not-safe"),
        ),
        (
            pod("sys", 10, owner="ReplicaSet", ns="kube-system"),
            (
                "block",
                "UnmovableKubeSystemPod: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: sys",
            ),
        ),
        (
            pod("job", 10, owner="Job", **{"cluster-autoscaler.kubernetes.io__safe-to-evict": "on-completion"}),
            ("wait", None),
        ),
    ],
    ids=[
        "mirror",
        "daemonset",
        "not replicated",
        "safe to evict",
        "replicated",
        "custom controller",
        "not safe to evict",
        "kube-system without pdb",
        "on completion",
    ],
)
def test_drainability_rules(p, want):
    assert drainable(p, STATE, now=0.0) == want


def test_local_storage_blocks_unless_annotated():
    b = make_pod().name("web").req(cpu="10m").node("regular").owner("ReplicaSet", "web-rs", uid="u")
    b = b.volume({"name": "scratch", "emptyDir": {}})
    assert drainable(make_pod_obj(b.dict()), STATE, 0.0) == (
        "block",
        "LocalStorageRequested: pod with local storage present: web",
    )
    d = b.dict()
    d["metadata"]["annotations"] = {"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "scratch"}
    assert drainable(make_pod_obj(d), STATE, 0.0) == ("move", None)


def test_removal_keeps_each_success():
    """TestFindNodesToRemove: two half-empty nodes of one group: the first goes, its pod moves to
    the second, which then stays (its pods have nowhere to go); minSize keeps the last one."""
    n1, n2, n3 = node("n1", 1000, 2**30), node("n2", 1000, 2**30), node("n3", 1000, 2**30)
    pods = (pod("p1", 300, "n1", "ReplicaSet"), pod("p2", 400, "n2", "ReplicaSet"), pod("p3", 450, "n3", "ReplicaSet"))
    sim = simulator([n1, n2, n3], pods)
    ngs = NodeGroupSet((NodeGroup("ng1", 1, 10, ("n1", "n2", "n3"), 3),))
    res = scale_down(sim, ngs, {"ng1": 3}, 0.5, sim.sched.cluster, now=0.0)
    assert [(r.node, dict(r.pods_to)) for r in res.removable] == [("n1", {"default/p1": "n2"})]
    assert [(n.node, n.reason) for n in res.not_removable] == [
        ("n2", "NotUnderutilized: cpu utilization 0.70 is above 0.5"),
        ("n3", "NoPlaceToMovePods: default/p3 fits no other node"),
    ]
    # the group's minimum: with minSize 2, only one of three may go
    sim = simulator([n1, n2, n3], pods)
    ngs = NodeGroupSet((NodeGroup("ng1", 2, 10, ("n1", "n2", "n3"), 3),))
    res = scale_down(sim, ngs, {"ng1": 3}, 0.5, sim.sched.cluster, now=0.0)
    assert [r.node for r in res.removable] == ["n1"]


def test_old_kube_system_pod_is_drainable_whatever_follows():
    """system rule: a kube-system pod without a budget, older than the blocking system pod
    disruption timeout (an hour), is drainable, and no later rule (local storage) is asked."""
    b = (
        make_pod()
        .name("coredns")
        .namespace("kube-system")
        .req(cpu="10m")
        .node("regular")
        .owner("ReplicaSet", "coredns-rs", uid="u")
    )
    b = b.volume({"name": "tmp", "emptyDir": {}}).created("2026-01-01T00:00:00Z")
    p = make_pod_obj(b.dict())
    assert drainable(p, STATE, now=p.creation_timestamp + 3601) == ("move", None)
    assert drainable(p, STATE, now=p.creation_timestamp + 60)[0] == "block"
