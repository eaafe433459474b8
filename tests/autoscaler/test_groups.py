"""Pod equivalence groups (core/scaleup/equivalence/groups_test.go), node group similarity and
balancing (processors/nodegroupset/compare_nodegroups_test.go, balancing_processor_test.go), node
groups from a file, provider labels and the status ConfigMap, and template nodes
(simulator/node_info_utils_test.go), cluster-autoscaler-release-1.36."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.api import parse
from kwhatif.api.core import Taint
from kwhatif.autoscaler.balancing import ScaleUpInfo, balance, dissimilarity
from kwhatif.autoscaler.equivalence import MAX_EQUIVALENCE_GROUPS_BY_CONTROLLER, build_pod_groups
from kwhatif.autoscaler.nodegroups import UNBOUNDED, GroupStatus, discover, parse_node_groups, parse_status
from kwhatif.autoscaler.template import build_template, instantiate, sanitize_taints
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import InputError
from tests.autoscaler.ca_helpers import make_pod_obj, template

from builders import make_cluster, make_pod


def test_pod(
    name: str,
    cpu: int = 100,
    rc: str = "",
    labels: dict[str, str] | None = None,
    volume: dict | None = None,
    kind: str = "ReplicationController",
):
    b = make_pod().name(name).req(cpu=f"{cpu}m", memory="200000")
    if rc:
        b = b.owner(kind, rc, uid=f"uid-{rc}", api_version="v1")
    if labels:
        b = b.labels(**labels)
    if volume:
        b = b.volume(volume)
    return make_pod_obj(b.dict())


test_pod.__test__ = False  # type: ignore[attr-defined]


def test_group_schedulable_pods_for_node():
    """TestGroupSchedulablePodsForNode: pods of one controller with equal specs share a group;
    projected (service account token) volumes are ignored, other volumes are not."""
    sa = {"projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
    pods = [
        test_pod("p1", 1500),
        test_pod("p2-1", 3000, "rc1"),
        test_pod("p2-2", 3000, "rc1"),
        test_pod("p3-1", 100, "rc2"),
        test_pod("p3-2", 100, "rc2"),
        test_pod("p4-1", 100, "rc3", volume={"name": "kube-api-access-nz94b", **sa}),
        test_pod("p4-2", 100, "rc3", volume={"name": "kube-api-access-mo25i", **sa}),
        test_pod("p5-1", 100, "rc4", volume={"name": "volume-nz94b", "flexVolume": {"driver": "testDriver"}}),
        test_pod("p5-2", 100, "rc4", volume={"name": "volume-mo25i", "flexVolume": {"driver": "testDriver"}}),
    ]
    groups = build_pod_groups(pods)
    assert [[p.name for p in g.pods] for g in groups] == [
        ["p1"],
        ["p2-1", "p2-2"],
        ["p3-1", "p3-2"],
        ["p4-1", "p4-2"],
        ["p5-1"],
        ["p5-2"],
    ]


def test_equivalence_group_size_limiting():
    """TestEquivalenceGroupSizeLimiting: at most ten groups per controller; past them, a group each."""
    n = MAX_EQUIVALENCE_GROUPS_BY_CONTROLLER + 1
    pods = [
        test_pod(f"p{i}", 3000, "rc", {"uniqueLabel": f"l{min(i, MAX_EQUIVALENCE_GROUPS_BY_CONTROLLER)}"})
        for i in range(n + 1)
    ]
    groups = build_pod_groups(pods)
    assert len(groups) == len(pods)
    assert all(len(g.pods) == 1 for g in groups)


def test_equivalence_group_ignores_daemon_sets():
    """TestEquivalenceGroupIgnoresDaemonSets."""
    pods = [test_pod("p1", 3000, "ds", kind="DaemonSet"), test_pod("p2", 3000, "ds", kind="DaemonSet")]
    assert len(build_pod_groups(pods)) == 2


def node(
    name: str,
    cpu: int = 1000,
    mem: int = 2000,
    alloc: dict[str, str] | None = None,
    cap: dict[str, str] | None = None,
    **labels: str,
):
    capacity = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "110", **(cap or {})}
    allocatable = {**capacity, **(alloc or {})}
    return parse.node(
        {
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
            "status": {"capacity": capacity, "allocatable": allocatable},
        }
    )


def similar(n1, n2, pods1=(), pods2=()):
    return dissimilarity(template(n1, tuple(pods1)), template(n2, tuple(pods2))) is None


def test_nodes_similar():
    """TestIdenticalNodesSimilar, TestNodesSimilarVariousRequirements."""
    n1 = node("node1")
    assert similar(n1, node("node2"))
    assert not similar(n1, node("node2", cpu=1001, alloc={"cpu": "1000m"}))  # different cpu capacity
    assert similar(n1, node("node3", alloc={"cpu": "999m"}))  # slightly different allocatable
    assert not similar(n1, node("node4", alloc={"cpu": "500m"}))  # significantly different allocatable
    assert not similar(n1, node("node5", cap={"nvidia.com/gpu": "1"}))  # one with a GPU


def test_nodes_similar_with_pods():
    """TestNodesSimilarVariousRequirementsAndPods."""
    n1 = node("node1")
    p1 = test_pod("pod1", 500)
    p1 = dataclasses.replace(p1, requests=dataclasses.replace(p1.requests, memory=1000))
    # different allocatable, but the same free
    assert not similar(n1, node("node2", alloc={"cpu": "500m", "memory": "1000"}), [p1], [])
    p3 = dataclasses.replace(p1, name="pod3")
    assert similar(n1, node("node3"), [p1], [p3])
    p4 = test_pod("pod4", 501)
    p4 = dataclasses.replace(p4, requests=dataclasses.replace(p4.requests, memory=1001))
    assert similar(n1, node("node4", alloc={"cpu": "999m"}), [p1], [p4])


@pytest.mark.parametrize(
    ("m1", "m2", "want"),
    [
        (1000, 1000 - 15 + 1, True),  # TestNodesSimilarVariousMemoryRequirements: within 1.5%
        (1000, 1000 - 15 - 1, False),
        (16116152 * 1024, 15944120 * 1024, True),  # ...LargeMemoryRequirementsM5XLarge
        (16116152 * 1024, 16438475 * 1024, False),
        (259970052 * 1024, 257217528 * 1024, True),  # ...M516XLarge
        (259970052 * 1024, 265169453 * 1024, False),
    ],
)
def test_nodes_similar_memory(m1, m2, want):
    n1 = node("node1", mem=m1)
    n2 = node("node2", mem=m1, cap={"memory": str(m2)}, alloc={"memory": str(m1)})
    assert similar(n1, n2) is want


def test_nodes_similar_labels():
    """TestNodesSimilarVariousLabels: labels must be equal, but hostname and zone labels."""
    n1 = node("node1", **{"test-label": "test-value", "character": "winnie the pooh"})
    n2 = node("node2", **{"test-label": "test-value"})
    assert not similar(n1, n2)
    n2 = node("node2", **{"test-label": "test-value", "character": "winnie the pooh"})
    assert similar(n1, n2)
    n1z = node(
        "node1",
        **{
            "test-label": "test-value",
            "character": "winnie the pooh",
            "failure-domain.beta.kubernetes.io/zone": "mars-olympus-mons1-b",
        },
    )
    n2z = node(
        "node2",
        **{
            "test-label": "test-value",
            "character": "winnie the pooh",
            "failure-domain.beta.kubernetes.io/zone": "us-houston1-a",
        },
    )
    assert similar(n1z, n2z)
    n1f = node("node1", **{"beta.kubernetes.io/fluentd-ds-ready": "true"})
    n2f = node("node2", **{"beta.kubernetes.io/fluentd-ds-ready": "false"})
    assert not similar(n1f, n2f)


UNDER = [("ng1", 1, 10), ("ng2", 3, 10), ("ng3", 5, 10), ("ng4", 5, 10)]
HITTING = {
    "ng1": ("ng1", 1, 1),
    "ng2": ("ng2", 1, 3),
    "ng3": ("ng3", 3, 10),
    "ng4": ("ng4", 5, 7),
    "ng5": ("ng5", 6, 3),
}


@pytest.mark.parametrize(
    ("groups", "new", "want"),
    [
        # TestBalanceSingleGroup
        ([("ng1", 1, 10)], 1, {"ng1": 2}),
        ([("ng1", 1, 10)], 4, {"ng1": 5}),
        # TestBalanceUnderMaxSize (5 nodes: 4 and 5, whichever group gets which; here ng1 the 5)
        (UNDER, 1, {"ng1": 2}),
        (UNDER, 2, {"ng1": 3}),
        (UNDER, 4, {"ng1": 4, "ng2": 4}),
        (UNDER, 5, {"ng1": 5, "ng2": 4}),
        (UNDER, 10, {"ng1": 6, "ng2": 6, "ng3": 6, "ng4": 6}),
        # TestBalanceHittingMaxSize
        ([HITTING["ng1"]], 1, {}),
        ([HITTING["ng1"], HITTING["ng2"]], 1, {"ng2": 2}),
        ([HITTING["ng1"], HITTING["ng2"]], 5, {"ng2": 3}),
        ([HITTING["ng2"], HITTING["ng3"]], 4, {"ng2": 3, "ng3": 5}),
        ([HITTING["ng2"], HITTING["ng3"], HITTING["ng4"]], 9, {"ng2": 3, "ng3": 8, "ng4": 7}),
        ([HITTING["ng2"], HITTING["ng3"], HITTING["ng4"]], 900, {"ng2": 3, "ng3": 10, "ng4": 7}),
    ],
)
def test_balance(groups, new, want):
    infos = balance(list(groups), new)
    assert {i.group: i.new for i in infos} == want
    assert all(isinstance(i, ScaleUpInfo) for i in infos)


STRUCTURED = """time: 2026-12-07 09:00:00 +0000 UTC
autoscalerStatus: Running
nodeGroups:
- name: eks-general-20c5
  health:
    status: Healthy
    nodeCounts: {registered: {total: 2, ready: 2}}
    cloudProviderTarget: 2
    minSize: 1
    maxSize: 4
"""
TEXT = """Cluster-autoscaler status at 2019-06-19 09:56:13.513128581 +0000 UTC:
NodeGroups:
  Name:        pool-a
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=0 registered=3 longUnregistered=0 cloudProviderTarget=3 (minSize=1, maxSize=10))
  ScaleUp:     NoActivity (ready=3 cloudProviderTarget=3)
"""


def test_status_config_map_both_forms():
    assert parse_status(STRUCTURED) == {"eks-general-20c5": GroupStatus(2, 1, 4)}
    assert parse_status(TEXT) == {"pool-a": GroupStatus(3, 1, 10)}
    assert parse_status("garbage: [") == {}


def labelled(name: str, **labels: str):
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}},
    }


def test_discovery_by_provider_label_and_status():
    state = make_cluster(
        [
            labelled("a1", **{"eks.amazonaws.com/nodegroup": "general"}),
            labelled("a2", **{"eks.amazonaws.com/nodegroup": "general"}),
            labelled("b1", **{"cluster.x-k8s.io/deployment-name": "md-0"}),
            labelled("c1"),
        ]
    )
    state.config_maps["kube-system/cluster-autoscaler-status"] = {"status": STRUCTURED}
    ngs = discover(state)
    by = {g.name: g for g in ngs.groups}
    assert (by["general"].min_size, by["general"].max_size, by["general"].nodes) == (1, 4, ("a1", "a2"))
    assert by["general"].source == "eks.amazonaws.com/nodegroup"
    assert (by["md-0"].max_size, by["md-0"].max_known) == (UNBOUNDED, False)
    assert ngs.notes == (
        "node group md-0: its maximum size is unknown (no cluster-autoscaler-status entry): treated as unbounded; "
        "give it with --node-groups",
    )
    with pytest.raises(InputError, match="no node carries a provider label"):
        discover(make_cluster([labelled("c1")]))


def test_node_groups_file():
    state = make_cluster([labelled("a1", pool="x"), labelled("a2", pool="x"), labelled("b1")])
    ngs = parse_node_groups(
        {
            "apiVersion": "kwhatif/v1",
            "kind": "NodeGroups",
            "expander": "priority,least-waste",
            "maxNodesTotal": 10,
            "coresTotal": "0:320",
            "memoryTotal": "0:1280Gi",
            "priorities": {10: ["ng-.*"], 50: ["ng-gpu"]},
            "nodeGroups": [
                {"name": "ng-1", "maxSize": 5, "nodeSelector": {"pool": "x"}},
                {"name": "ng-2", "maxSize": 5, "nodes": ["b1"], "price": 0.2},
                {
                    "name": "ng-gpu",
                    "maxSize": 2,
                    "template": {"status": {"allocatable": {"cpu": "4", "nvidia.com/gpu": "1"}}},
                },
            ],
        },
        state,
        "ng.yaml",
    )
    assert [(g.name, g.nodes, g.target_size) for g in ngs.groups] == [
        ("ng-1", ("a1", "a2"), 2),
        ("ng-2", ("b1",), 1),
        ("ng-gpu", (), 0),
    ]
    assert (ngs.max_nodes_total, ngs.cores_total, ngs.memory_total) == (10, (0, 320), (0, 1280 * 2**30))
    assert ngs.priorities == {10: ("ng-.*",), 50: ("ng-gpu",)}
    assert ngs.groups[2].template is not None and ngs.groups[2].template.name == "template-ng-gpu"
    with pytest.raises(
        InputError,
        match=r"^ng.yaml: NodeGroups: nodeGroups\[1\]: Invalid value: \"a1\": node is already in node group a",
    ):
        parse_node_groups(
            {
                "apiVersion": "kwhatif/v1",
                "kind": "NodeGroups",
                "nodeGroups": [{"name": "a", "nodes": ["a1"]}, {"name": "b", "nodes": ["a1"]}],
            },
            state,
            "ng.yaml",
        )


def test_sanitized_template_from_a_node():
    """createSanitizedNode and podsExpectedOnFreshNode: a new name and hostname label, the
    autoscaler's and node condition taints dropped, the node's DaemonSet and mirror pods copied,
    not its other pods."""
    from kwhatif.autoscaler.nodegroups import NodeGroup

    n = node("n1", **{"eks.amazonaws.com/nodegroup": "ng"})
    n = dataclasses.replace(
        n,
        taints=(
            Taint("ToBeDeletedByClusterAutoscaler", "", "NoSchedule"),
            Taint("node.kubernetes.io/not-ready", "", "NoExecute"),
            Taint("ignore-taint.cluster-autoscaler.kubernetes.io/x", "", "NoSchedule"),
            Taint("dedicated", "gpu", "NoSchedule"),
        ),
    )
    assert sanitize_taints(n.taints) == (Taint("dedicated", "gpu", "NoSchedule"),)
    ds = dataclasses.replace(test_pod("ds-1", 50, "ds", kind="DaemonSet"), node_name="n1")
    app = dataclasses.replace(test_pod("app-1", 50, "rs", kind="ReplicaSet"), node_name="n1")
    mirror = dataclasses.replace(
        test_pod("static-n1", 50), node_name="n1", annotations={"kubernetes.io/config.mirror": "x"}
    )
    state = ClusterState(nodes={"n1": n}, pods=[ds, app, mirror])
    # a node being deleted is no good candidate, but the only one: the template still comes from it
    tmpl, _ = build_template(NodeGroup("ng", 0, 3, ("n1",), 1), state, {"n1": [ds, app, mirror]})
    assert tmpl is not None
    assert tmpl.node.name == "template-node-for-ng"
    assert tmpl.node.labels["kubernetes.io/hostname"] == "template-node-for-ng"
    assert tmpl.node.labels["cluster-autoscaler.kubernetes.io/template-node"] == "true"
    assert tmpl.node.taints == (Taint("dedicated", "gpu", "NoSchedule"),)
    assert [p.name for p in tmpl.pods] == ["ds-1-template", "static-n1-template"]
    copy, pods = instantiate(tmpl, "template-node-for-ng-e-0")
    assert copy.labels["kubernetes.io/hostname"] == "template-node-for-ng-e-0"
    assert [(p.name, p.node_name) for p in pods] == [
        ("ds-1-template-template-node-for-ng-e-0", "template-node-for-ng-e-0"),
        ("static-n1-template-template-node-for-ng-e-0", "template-node-for-ng-e-0"),
    ]
