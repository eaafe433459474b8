"""Karpenter's consolidation (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption), with
scenarios modelled on its consolidation_test.go and emptiness_test.go cases (named in each test):
who is a candidate, the budgets, emptiness, deletion and replacement, and the reasons a node
stays in Karpenter's words."""

from __future__ import annotations

from typing import Any

from autoscaler.karpenter import fake

from kwhatif.api import parse
from kwhatif.api.core import Node, Pod
from kwhatif.autoscaler.karpenter.consolidation import (
    DELETE,
    EMPTINESS,
    REPLACE,
    SINGLE_NODE,
    Consolidation,
    consolidate,
)
from kwhatif.autoscaler.karpenter.instancetypes import InstanceType, Offering
from kwhatif.autoscaler.karpenter.provisioner import ProvisionOptions

from builders import make_node, make_pod

POOL = "default"
ZONE = "test-zone-1"


def catalog() -> list[InstanceType]:
    big = [Offering(ZONE, "on-demand", 1.6), Offering(ZONE, "spot", 0.8)]
    small = [Offering(ZONE, "on-demand", 0.4), Offering(ZONE, "spot", 0.2)]
    return [
        fake.new_instance_type("big", {"cpu": "16", "memory": "32Gi", "pods": "50"}, big),
        fake.new_instance_type("small", {"cpu": "4", "memory": "8Gi", "pods": "20"}, small),
    ]


def node(name: str, itype: str = "big", ct: str = "on-demand", pool: str | None = POOL) -> Node:
    b = make_node().name(name)
    cap = {"big": ("16", "32Gi", "50"), "small": ("4", "8Gi", "20")}[itype]
    b = b.capacity(cpu=cap[0], memory=cap[1], pods=cap[2])
    labels = {
        "node.kubernetes.io/instance-type": itype,
        "topology.kubernetes.io/zone": ZONE,
        "karpenter.sh/capacity-type": ct,
        "kubernetes.io/hostname": name,
    }
    if pool:
        labels |= {"karpenter.sh/nodepool": pool, "karpenter.sh/initialized": "true"}
    return b.labels(**labels).obj()


def pod(name: str, on: str, cpu: str = "1", **ann: str) -> Pod:
    b = make_pod().name(name).uid(name).node(on).req(cpu=cpu).label("app", "web").owner("ReplicaSet", "web-rs", "rs")
    b.d["metadata"].setdefault("annotations", {}).update(ann)
    return b.obj()


def run(
    nodes: list[Node],
    pods: list[Pod],
    *,
    disruption: dict[str, Any] | None = None,
    pdbs: list[tuple[str, str, Any, int]] | None = None,
    spot_to_spot: bool = False,
    do_not_disrupt: set[str] | None = None,
    capacity_types: tuple[str, ...] = ("on-demand",),
) -> Consolidation:
    pool = fake.nodepool(
        POOL,
        requirements=[{"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(capacity_types)}],
        disruption=disruption
        if disruption is not None
        else {
            "consolidationPolicy": "WhenEmptyOrUnderutilized",
            "consolidateAfter": "0s",
            "budgets": [{"nodes": "100%"}],
        },
    )
    return consolidate(
        nodes=nodes,
        pods=pods,
        pending=[],
        pdbs=pdbs or [],
        pools=[pool],
        claims=[],
        catalog=catalog(),
        daemonsets=[],
        do_not_disrupt=do_not_disrupt or set(),
        namespace_labels={},
        options=ProvisionOptions(),
        well_known=fake.FAKE_WELL_KNOWN,
        spot_to_spot=spot_to_spot,
    )


def test_only_budgeted_empty_nodes_are_disrupted() -> None:
    """consolidation_test.go "should only allow 3 empty nodes to be disrupted": 10 empty nodes and a
    30% budget give a first command of 3 (later loops take the rest)."""
    nodes = [node(f"n{i:02d}") for i in range(10)]
    res = run(nodes, [], disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "30%"}]})
    first = res.commands[0]
    assert (first.method, first.reason, first.action) == (EMPTINESS, "empty", DELETE)
    assert len(first.candidates) == 3
    assert res.budgets == {POOL: 3}


def test_no_empty_node_disrupted_with_a_zero_budget() -> None:
    """ "should allow no empty nodes to be disrupted": a budget of 0 keeps every empty node."""
    res = run([node("n1"), node("n2")], [], disruption={"consolidateAfter": "0s", "budgets": [{"nodes": "0"}]})
    assert res.commands == []
    assert res.stays["n1"] == f"empty, but the disruption budget of NodePool {POOL} allows no Empty disruption now"


def test_can_delete_nodes() -> None:
    """ "can delete nodes": a node whose pods fit on the other node is deleted, nothing is launched."""
    nodes = [node("busy"), node("light")]
    pods = [pod("a", "busy", "4"), pod("b", "busy", "4"), pod("c", "light", "1")]
    res = run(nodes, pods)
    cmd = res.commands[0]
    assert [c.name for c in cmd.candidates] == ["light"]
    assert cmd.action == DELETE and cmd.method == SINGLE_NODE
    assert cmd.pods_to == {"default/c": "busy"}


def test_can_replace_node_with_a_cheaper_one() -> None:
    """ "can replace node": a lone big on-demand node running 1 CPU is replaced by a small one."""
    res = run([node("n1")], [pod("a", "n1", "1")])
    cmd = res.commands[0]
    assert cmd.action == REPLACE
    assert cmd.replacement is not None
    assert [it.name for it in cmd.replacement.instance_types] == ["small"]


def test_do_not_disrupt_on_pods() -> None:
    """ "can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods"."""
    pods = [pod("a", "busy", "4"), pod("keep", "light", "1", **{"karpenter.sh/do-not-disrupt": "true"})]
    res = run([node("busy"), node("light")], pods)
    assert res.commands == [] or all(c.name != "light" for cmd in res.commands for c in cmd.candidates)
    assert res.stays["light"] == 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/keep)'


def test_do_not_disrupt_on_nodes() -> None:
    """ "can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes"."""
    res = run([node("busy"), node("light")], [pod("a", "busy", "4"), pod("c", "light")], do_not_disrupt={"light"})
    assert res.stays["light"] == 'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'


def test_pdb_blocks() -> None:
    """ "can delete nodes, considers PDB": a budget allowing no disruption keeps the node."""
    sel = parse.label_selector({"matchLabels": {"app": "web"}}, "spec.selector")
    res = run(
        [node("busy"), node("light")], [pod("a", "busy", "4"), pod("c", "light")], pdbs=[("default", "web", sel, 0)]
    )
    assert res.stays["light"] == "pdb prevents pod evictions (PodDisruptionBudget=[default/web])"


def test_when_empty_policy_keeps_busy_nodes() -> None:
    """ "should fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmpty"."""
    res = run(
        [node("busy"), node("light")],
        [pod("a", "busy", "4"), pod("c", "light")],
        disruption={"consolidationPolicy": "WhenEmpty", "consolidateAfter": "0s"},
    )
    assert res.commands == []
    assert res.stays["light"] == f'NodePool "{POOL}" has consolidation policy WhenEmpty, but node is not empty'


def test_consolidate_after_never() -> None:
    """ "should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to 'Never'"."""
    res = run([node("n1")], [pod("a", "n1")], disruption={"consolidateAfter": "Never"})
    assert res.stays["n1"] == f'NodePool "{POOL}" has consolidation disabled'


def test_spot_to_spot_disabled() -> None:
    """ "cannot replace spot with spot if the spotToSpotConsolidation is disabled"."""
    res = run([node("s1", ct="spot")], [pod("a", "s1")], capacity_types=("spot",))
    assert res.commands == []
    assert res.stays["s1"] == "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"
    # enabled, but fewer than 15 cheaper types
    res = run([node("s1", ct="spot")], [pod("a", "s1")], spot_to_spot=True, capacity_types=("spot",))
    assert res.stays["s1"] == (
        "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to "
        "consolidate, got 1"
    )


def test_unmanaged_nodes_stay() -> None:
    """ "can delete nodes, when non-Karpenter capacity can fit pods": the unmanaged node takes the pods
    and is never a candidate itself."""
    res = run([node("managed"), node("system", pool=None)], [pod("a", "managed"), pod("b", "system", "2")])
    assert res.stays["system"] == "node isn't managed by karpenter"
    cmd = res.commands[0]
    assert [c.name for c in cmd.candidates] == ["managed"] and cmd.action == DELETE
    assert cmd.pods_to == {"default/a": "system"}


def test_would_not_make_a_pod_pending() -> None:
    """ "won't delete nodes if it would make a non-pending pod go pending": a pod too big for any
    other place keeps its node (a replacement is dearer: the big type is the only one that fits)."""
    res = run([node("n1")], [pod("a", "n1", "12")])
    assert res.commands == []
    assert res.stays["n1"] == "Can't replace with a cheaper node"


def test_on_demand_to_spot_merge() -> None:
    """ "can merge 3 nodes into 1 if the candidates have both spot and on-demand" (its shape): two
    on-demand nodes whose pods fit one node are replaced by one spot node, the cheaper launch."""
    nodes = [node("busy"), node("light")]
    pods = [pod("a", "busy", "4"), pod("b", "busy", "4"), pod("c", "light", "1")]
    res = run(nodes, pods, capacity_types=("on-demand", "spot"))
    cmd = res.commands[0]
    assert cmd.method == "multi-node" and cmd.action == REPLACE
    assert sorted(c.name for c in cmd.candidates) == ["busy", "light"]
    assert cmd.replacement is not None
    assert cmd.replacement.requirements.get("karpenter.sh/capacity-type").sorted_values() == ["spot"]
