"""TopologyPlacementGenerator and PodGroupPodsCount (TopologyAwareWorkloadScheduling, 1.36): the
cases of upstream's TestGeneratePlacements (topologyaware/topology_placement_test.go; the cases
without CompositePodGroup), TestScorePlacement and TestNormalizePlacementScore
(podgrouppodscount/podgroup_pods_count_test.go), transcribed."""

from __future__ import annotations

import pytest

from kwhatif.api.core import Node
from kwhatif.api.workload import PodGroup, SchedulingPolicy
from kwhatif.framework.interface import Code, Placement
from kwhatif.plugins import podgroup_pods_count as count
from kwhatif.plugins import topology_placement as tp

from builders import make_node


def node(name: str, **labels: str) -> Node:
    b = make_node().name(name)
    for k, v in labels.items():
        b.label(k, v)
    return b.obj()


def group(*keys: str) -> PodGroup:
    return PodGroup("default", "pg", "scheduling.k8s.io/v1alpha2", SchedulingPolicy(gang=False), topology_keys=keys)


# TestGeneratePlacements: (name, topology key or None, scheduled pods' nodes, placement nodes,
# other nodes, wanted placements {domain: nodes} or None for an Error status)
GENERATE = [
    (
        "without constraint returns placement matching all nodes",
        None,
        [],
        [node("node1"), node("node2", foo="bar")],
        [node("node3")],
        {"": ["node1", "node2"]},
    ),
    (
        "with topology key constraint, returns placement for each topology domain",
        "topology1",
        [],
        [
            node("node0", topology2="d1"),
            node("node1", topology2="d4"),
            node("node2", topology1="d1"),
            node("node3", topology1="d2"),
            node("node4", topology1="d1"),
            node("node5", topology1="d3"),
        ],
        [],
        {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]},
    ),
    (
        "without matching topology label, returns empty",
        "topology3",
        [],
        [
            node("node0", topology2="d1"),
            node("node2", topology1="d1"),
            node("node3", topology1="d2"),
        ],
        [],
        {},
    ),
    (
        "with pods already scheduled in a single domain, returns that domain",
        "topology",
        ["node2", "node3"],
        [node("node0", topology="d2"), node("node1", topology="d1")],
        [node("node2", topology="d1"), node("node3", topology="d1")],
        {"d1": ["node1"]},
    ),
    (
        "with pods already scheduled in a single domain not present in current placement, returns empty",
        "topology",
        ["node2", "node3"],
        [node("node0", topology="d2")],
        [node("node2", topology="d1"), node("node3", topology="d1")],
        {},
    ),
    (
        "with pods already scheduled in conflicting domains, returns error",
        "topology",
        ["node2", "node3"],
        [node("node0", topology="d2"), node("node1", topology="d1")],
        [node("node2", topology="d0"), node("node3", topology="d1")],
        None,
    ),
    (
        "with pods already scheduled in the empty string domain, returns that domain",
        "topology",
        ["node2", "node3"],
        [node("node0", topology="d1"), node("node1", topology="")],
        [node("node2", topology=""), node("node3", topology="")],
        {"": ["node1"]},
    ),
    (
        "with already scheduled pod on node outside of snapshot, returns error",
        "topology",
        ["node2", "node4"],
        [node("node0", topology="d2"), node("node1", topology="d1")],
        [node("node2", topology="d1"), node("node3", topology="d1")],
        None,
    ),
    (
        "with already scheduled pod on node without topology label, returns error",
        "topology",
        ["node2"],
        [node("node1", topology="d2")],
        [node("node2", foo="bar")],
        None,
    ),
]


@pytest.mark.parametrize(
    ("key", "scheduled", "placement_nodes", "other_nodes", "want"),
    [c[1:] for c in GENERATE],
    ids=[c[0] for c in GENERATE],
)
def test_generate_placements(
    key: str | None,
    scheduled: list[str],
    placement_nodes: list[Node],
    other_nodes: list[Node],
    want: dict[str, list[str]] | None,
) -> None:
    nodes = {n.name: n for n in [*placement_nodes, *other_nodes]}
    parent = Placement("", tuple(n.name for n in placement_nodes))
    pods = {f"default/pod{i}": n for i, n in enumerate(scheduled)}
    placements, st = tp.generate(group(key) if key else group(), parent, pods, nodes.get)
    if want is None:
        assert st.code is Code.ERROR
        assert placements == []
        return
    assert st.is_success()
    assert {p.name: list(p.nodes) for p in placements} == want


def test_generate_placements_error_messages() -> None:
    """The Error statuses' messages (topology_placement.go's fmt.Errorf texts)."""
    other = {"node2": node("node2", topology="d0"), "node3": node("node3", topology="d1")}
    parent = Placement("", ())
    _, st = tp.generate(group("topology"), parent, {"default/p0": "node2", "default/p1": "node3"}, other.get)
    assert (
        st.message()
        == "cannot determine domain for already scheduled pods: more than 1 domain found for pod group: d0, d1"
    )
    _, st = tp.generate(group("topology"), parent, {"default/p0": "node9"}, other.get)
    assert st.message() == (
        "cannot determine domain for already scheduled pods: getting node for pod default/p0: nodeinfo not found for "
        'node name "node9"'
    )
    bare = {"node2": node("node2", foo="bar")}
    _, st = tp.generate(group("topology"), parent, {"default/p0": "node2"}, bare.get)
    assert (
        st.message()
        == "cannot determine domain for already scheduled pods: no topology domain found for pod default/p0"
    )


def test_generate_placements_in_domain_name_order() -> None:
    """Upstream's order is a Go map's; kwhatif's is by domain name, nodes in the parent's order."""
    nodes = {n.name: n for n in [node("n1", z="c"), node("n2", z="a"), node("n3", z="b"), node("n4", z="a")]}
    placements, _ = tp.generate(group("z", "ignored"), Placement("", ("n1", "n2", "n3", "n4")), {}, nodes.get)
    assert [(p.name, p.nodes) for p in placements] == [("a", ("n2", "n4")), ("b", ("n3",)), ("c", ("n1",))]


# TestScorePlacement: (name, assigned, assumed, proposed, expected)
@pytest.mark.parametrize(
    ("assigned", "assumed", "want"),
    [(2, 1, 5), (1, 0, 3), (0, 1, 3), (0, 0, 2)],
    ids=[
        "existing assigned and assumed pods",
        "no assumed pods",
        "no assigned pods",
        "no assigned pods, no assumed pods",
    ],
)
def test_score_placement(assigned: int, assumed: int, want: int) -> None:
    from kwhatif.cache.pod_groups import PodGroupState, PodGroupStates

    state = PodGroupState(
        {f"default/a{i}" for i in range(assigned)}
        | {f"default/s{i}" for i in range(assumed)}
        | {"default/p1", "default/p2"},
        {f"default/a{i}" for i in range(assigned)},
        {f"default/s{i}" for i in range(assumed)},
    )
    pl = count.PodGroupPodsCount(PodGroupStates({"default/pg1": state}))
    score, st = pl.score_placement("default", "pg1", {"default/p1": "node1", "default/p2": "node2"})
    assert st.is_success()
    assert score == want


# TestNormalizePlacementScore
@pytest.mark.parametrize(
    ("scores", "want"),
    [
        ([10, 50, 110], [9, 45, 100]),
        ([50, 50], [100, 100]),
        ([50], [100]),
        ([11, 100, 101, 102], [10, 98, 99, 100]),
    ],
    ids=[
        "distinct scores",
        "equal scores",
        "single score",
        "some minimal score that is far from a group of scores located closely",
    ],
)
def test_normalize_placement_score(scores: list[int], want: list[int]) -> None:
    assert count.normalize(scores).is_success()
    assert scores == want


def test_normalize_placement_score_zero_scores() -> None:
    st = count.normalize([0, 0])
    assert st.code is Code.ERROR
    assert st.message() == "no pods from pod group are assigned to any of the candidate placements"
