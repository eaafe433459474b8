"""The kubelet's admission of pods bound by spec.nodeName: TestGeneralPredicates and
TestRejectPodAdmissionBasedOnOSSelector of pkg/kubelet/lifecycle/predicate_test.go (v1.36),
transcribed (the cases of the node fetched again after a node-affinity failure need a second
node object, which a cluster state has not)."""

from __future__ import annotations

import pytest

from kwhatif.cache.snapshot import Snapshot
from kwhatif.whatif.kubelet import Rejection, admit, general_filter
from tests.builders import make_node, make_pod

AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REQUIRE_FOO = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "Exists"}]}]
        }
    }
}


def machine1():
    # makeAllocatableResources(10, 20, 32, ...): 10 millicpu, 20 bytes of memory, 32 pods
    return make_node().name("machine1").capacity(cpu="10m", memory="20", pods="32")


def file_source(b):
    b.d["metadata"].setdefault("annotations", {})["kubernetes.io/config.source"] = "file"
    return b


CASES = [
    pytest.param(
        make_pod().name("p"),
        machine1(),
        [make_pod().name("e").req(cpu="9m", memory="19")],
        [],
        id="no resources/port/host requested always fits",
    ),
    pytest.param(
        make_pod().name("p").req(cpu="8m", memory="10"),
        machine1(),
        [make_pod().name("e").req(cpu="5m", memory="19")],
        [
            Rejection("OutOfcpu", "Node didn't have enough resource: cpu, requested: 8, used: 5, capacity: 10"),
            Rejection("OutOfmemory", "Node didn't have enough resource: memory, requested: 10, used: 19, capacity: 20"),
        ],
        id="not enough cpu and memory resource",
    ),
    pytest.param(
        make_pod().name("p").node("machine2"),
        machine1(),
        [],
        [Rejection("NodeName", "Predicate NodeName failed: node(s) didn't match the requested node name")],
        id="host not match",
    ),
    pytest.param(
        make_pod().name("p").host_port(123),
        machine1(),
        [make_pod().name("e").host_port(123)],
        [
            Rejection(
                "NodePorts", "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
            )
        ],
        id="hostport conflict",
    ),
    pytest.param(
        make_pod().name("p").toleration("foo", "Exists").toleration("bar", "Exists"),
        machine1().taint("foo").taint("bar", effect="NoExecute"),
        [],
        [],
        id="taint/toleration match",
    ),
    pytest.param(make_pod().name("p"), machine1().taint("foo"), [], [], id="NoSchedule taint/toleration not match"),
    pytest.param(
        make_pod().name("p"),
        machine1().taint("bar", effect="NoExecute"),
        [],
        [
            Rejection(
                "TaintToleration", "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
            )
        ],
        id="NoExecute taint/toleration not match",
    ),
    pytest.param(
        make_pod().name("p"),
        machine1().taint("baz", effect="PreferNoSchedule"),
        [],
        [],
        id="PreferNoSchedule taint/toleration not match",
    ),
    pytest.param(
        file_source(make_pod().name("p")),
        machine1().taint("foo").taint("bar", effect="NoExecute"),
        [],
        [],
        id="static pods ignore taints",
    ),
    pytest.param(
        file_source(make_pod().name("p")).affinity(REQUIRE_FOO),
        machine1(),
        [],
        [Rejection("NodeAffinity", f"Predicate NodeAffinity failed: {AFFINITY}")],
        id="node affinity failure",
    ),
    pytest.param(
        file_source(make_pod().name("p").node("some-node-name")).affinity(REQUIRE_FOO),
        machine1(),
        [],
        [
            Rejection("NodeAffinity", f"Predicate NodeAffinity failed: {AFFINITY}"),
            Rejection("NodeName", "Predicate NodeName failed: node(s) didn't match the requested node name"),
        ],
        id="node affinity failure on cached node and node name doesn't match",
    ),
]


@pytest.mark.parametrize("pod,node,existing,want", CASES)
def test_general_predicates(pod, node, existing, want):
    n = node.obj()
    info = Snapshot([n], [e.node("machine1").obj() for e in existing]).get("machine1")
    assert info is not None
    assert general_filter(pod.obj(), info) == want


@pytest.mark.parametrize(
    "pod_os,node_os,rejected",
    [
        ("linux", "linux", False),  # OS label match
        ("linux", None, False),  # a node without the label runs linux here
        ("dummyOS", "linux", True),  # the pod's label does not match the node's OS
        (None, "dummyOS", False),  # no label selector on the pod, should be admitted
    ],
)
def test_os_selector(pod_os, node_os, rejected):
    node = make_node().name("n").capacity(cpu="1", memory="1Gi", pods="10")
    if node_os is not None:
        node.label("kubernetes.io/os", node_os)
    pod = make_pod().name("p").node("n")
    if pod_os is not None:
        pod.label("kubernetes.io/os", pod_os)
    info = Snapshot([node.obj()], []).get("n")
    assert info is not None
    got = admit(pod.obj(), info)
    assert (got is not None) is rejected
    if rejected:
        assert got == Rejection(
            "PodOSSelectorNodeLabelDoesNotMatch",
            "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
        )
