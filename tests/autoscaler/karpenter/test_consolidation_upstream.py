"""Karpenter's consolidation against its own disruption test suite: cases transcribed from
kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption/consolidation_test.go (and
suite_test.go), each named by its Ginkgo text (Describe / Context / It, or the DescribeTable
entry). Each case builds the test's cluster (upstream_disruption.World: the fake cloud provider's
InstanceTypesAssorted catalog and the suite's NodePool) and asserts the commands the disruption
controller issues (method, reason, delete or replace, the nodes removed, the replacement's
instance types and capacity type) and why the other nodes stay, where the Go test checks them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from autoscaler.karpenter import fake
from autoscaler.karpenter.upstream_disruption import (
    ASSORTED,
    LEAST_EXPENSIVE,
    LEAST_EXPENSIVE_SPOT,
    MOST_EXPENSIVE,
    MOST_EXPENSIVE_SPOT,
    World,
    pool,
    shape,
)

from kwhatif.api.core import Pod
from kwhatif.autoscaler.karpenter.consolidation import (
    Candidate,
    Consolidation,
    Disruption,
    ModelNode,
    eviction_cost,
    model_nodes,
)
from kwhatif.autoscaler.karpenter.instancetypes import Offering
from kwhatif.autoscaler.karpenter.nodepools import NodeClaim, NodePool, parse_nodepool
from kwhatif.autoscaler.karpenter.provisioner import MinValuesPolicy, PreferencePolicy, ProvisionOptions

from builders import PodBuilder, make_pod

CHEAPEST = "1-cpu-1-mem-"  # the cheapest size of the assorted catalog
EMPTINESS = ("emptiness", "empty", "delete")
SINGLE_DELETE = ("single-node", "underutilized", "delete")
SINGLE_REPLACE = ("single-node", "underutilized", "replace")
MULTI_DELETE = ("multi-node", "underutilized", "delete")
MULTI_REPLACE = ("multi-node", "underutilized", "replace")


@dataclass(frozen=True)
class Replacement:
    """What a replace command launches: its cheapest candidate type (``first``: the start of its
    name, the size; Karpenter's sort by price leaves the order of equal prices unspecified) and
    its price, how many types it may take, its capacity types; ``excludes`` and ``includes`` list
    types that must not, or must, be among them."""

    first: str
    count: int
    capacity_types: tuple[str, ...]
    price: float | None = None
    excludes: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    zones: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Case:
    name: str  # the Go test's text
    build: Callable[[], World]
    # the commands, in order: (method, reason, action, nodes removed)
    commands: list[tuple[str, str, str, list[str]]]
    replacements: dict[int, Replacement] = field(default_factory=dict)
    stays: dict[str, str] = field(default_factory=dict)
    first_only: bool = False  # the Go test looks at the first command only
    budgets: dict[str, int] | None = None


def check(case: Case, res: Consolidation) -> None:
    got = [shape(c) for c in res.commands]
    want = [(m, r, a, sorted(n)) for m, r, a, n in case.commands]
    if case.first_only:
        got = got[: len(want)]
    assert got == want
    for i, rep in case.replacements.items():
        claim = res.commands[i].replacement
        assert claim is not None
        names = [it.name for it in claim.instance_types]
        assert names[0].startswith(rep.first)
        assert len(names) == rep.count
        assert tuple(claim.requirements.get("karpenter.sh/capacity-type").sorted_values()) == rep.capacity_types
        if rep.price is not None:
            cheapest = min(o.price for o in claim.instance_types[0].offerings if o.available)
            assert cheapest == pytest.approx(rep.price)
        assert not set(rep.excludes) & set(names)
        assert set(rep.includes) <= set(names)
        if rep.zones is not None:
            assert tuple(claim.requirements.get("topology.kubernetes.io/zone").sorted_values()) == rep.zones
    for node, why in case.stays.items():
        assert res.stays[node] == why
    if case.budgets is not None:
        assert {k: v for k, v in res.budgets.items() if k in case.budgets} == case.budgets


# -- Budgets ------------------------------------------------------------------------------------


def budget_nodes(budget: str, pods_cpu: str | None = None, n: int = 10) -> World:
    w = World(pools=[pool(budget=budget)])
    for i in range(n):
        w.node(f"n{i}", MOST_EXPENSIVE)
        if pods_cpu is not None:
            w.pod(f"p{i}", f"n{i}", cpu=pods_cpu)
    return w


def per_pool_nodes(budget: str) -> World:
    """10 NodePools of 3 empty nodes each, and the suite's own (empty) NodePool."""
    w = World(pools=[pool(), *(pool(f"np-{i}", budget=budget) for i in range(10))])
    for i in range(10):
        for j in range(3):
            w.node(f"np{i}-n{j}", MOST_EXPENSIVE, nodepool=f"np-{i}")
    return w


BUDGETS = [
    Case(
        "Budgets should only allow 3 empty nodes to be disrupted",
        lambda: budget_nodes("30%"),
        [(*EMPTINESS, ["n0", "n1", "n2"])],
        first_only=True,
        budgets={"default": 3},
    ),
    Case(
        "Budgets should allow all empty nodes to be disrupted",
        lambda: budget_nodes("100%"),
        [(*EMPTINESS, [f"n{i}" for i in range(10)])],
        budgets={"default": 10},
    ),
    Case(
        "Budgets should allow no empty nodes to be disrupted",
        lambda: budget_nodes("0%"),
        [],
        stays={"n0": "empty, but the disruption budget of NodePool default allows no Empty disruption now"},
        budgets={"default": 0},
    ),
    Case(
        "Budgets should only allow 3 nodes to be deleted in multi node consolidation delete",
        # 10 pods of 100m fit one node: the best multi-node command deletes 9, the budget allows 3
        # (the candidates tie on price and cost: the first three by name)
        lambda: budget_nodes("30%", "100m"),
        [(*MULTI_DELETE, ["n0", "n1", "n2"])],
        first_only=True,
    ),
    Case(
        "Budgets should only allow 3 nodes to be deleted in single node consolidation delete",
        # pods of 15 CPUs: two fit a 32-CPU node. The Go test asserts only that 3 of the 10 nodes go
        # (its comment expects single-node commands); multi-node consolidation's binary search over
        # the 3 candidates the budget leaves finds all three pods a place on the other 7 nodes, so
        # the first command already deletes the three
        lambda: budget_nodes("30%", "15"),
        [(*MULTI_DELETE, ["n0", "n1", "n2"])],
        first_only=True,
    ),
    Case(
        "Budgets should allow 2 nodes from each nodePool to be deleted",
        lambda: per_pool_nodes("50%"),
        [(*EMPTINESS, [f"np{i}-n{j}" for i in range(10) for j in range(2)])],
        first_only=True,
        budgets={f"np-{i}": 2 for i in range(10)},
    ),
    Case(
        "Budgets should allow all nodes from each nodePool to be deleted",
        lambda: per_pool_nodes("100%"),
        [(*EMPTINESS, [f"np{i}-n{j}" for i in range(10) for j in range(3)])],
        budgets={f"np-{i}": 3 for i in range(10)},
    ),
    Case(
        "Budgets should allow no nodes from each nodePool to be deleted",
        lambda: per_pool_nodes("0%"),
        [],
        budgets={f"np-{i}": 0 for i in range(10)},
    ),
]


# -- Replace ------------------------------------------------------------------------------------


def one_node(itype: str, **kw: object) -> World:
    """The suite's nodeClaim/node (or spotNodeClaim/spotNode): 32 CPUs, no pods capacity, one pod."""
    w = World(**kw)  # type: ignore[arg-type]
    w.node("node", itype, pods=None)
    w.pod("pod", "node")
    return w


def spot_sliced(total: int, assign: Callable[[World], str]) -> World:
    w = World()
    w.catalog = w.catalog[:total]
    name = assign(w)
    w.node("spot-node", name, pods=None)
    w.pod("pod", "spot-node")
    return w


def less_than_minimum(w: World) -> str:
    # the first 5 types; the first (spot already) at 0.001; the node on the dearest spot type
    it0 = w.catalog[0]
    w.catalog[0] = fake.new_instance_type(
        it0.name, {"cpu": "1", "memory": "1Gi"}, [Offering("test-zone-1", "spot", 0.001)], arch="amd64", oses=("linux",)
    )
    return w.catalog[3].name


def spot_prices_18(w: World) -> str:
    """The first 18 spot types at 1.0, 1.1, ... 2.7, but the 17th at 0.001; the node on the 18th."""
    spots = [it for it in w.catalog if it.offerings[0].capacity_type == "spot"][:18]
    out = []
    for i, it in enumerate(spots):
        price = 0.001 if i == 16 else 1.0 + i * 0.1
        parts = it.name.split("-")
        cpu, mem, arch, os_ = parts[0], parts[2], parts[4], parts[5]
        o = it.offerings[0]
        out.append(
            fake.new_instance_type(
                it.name, {"cpu": cpu, "memory": f"{mem}Gi"}, [Offering(o.zone, o.capacity_type, price)], arch, (os_,)
            )
        )
    w.catalog = out
    return out[17].name


def _spot_18_cheapest() -> tuple[str, ...]:
    w = World()
    spot_prices_18(w)
    by_price = sorted(w.catalog, key=lambda it: it.offerings[0].price)
    return tuple(it.name for it in by_price[:15])


SPOT_18_CHEAPEST = _spot_18_cheapest()


def no_dearer_spot_replacement(on_demand_pool: bool) -> World:
    current = fake.new_instance_type("current-on-demand", None, [Offering("test-zone-1a", "on-demand", 0.5, False)])
    if on_demand_pool:
        repl = fake.new_instance_type(
            "on-demand-replacement",
            None,
            [
                Offering("test-zone-1a", "on-demand", 0.6),
                Offering("test-zone-1b", "on-demand", 0.6),
                Offering("test-zone-1b", "spot", 0.2),
                Offering("test-zone-1c", "spot", 0.3),
            ],
        )
    else:
        repl = fake.new_instance_type(
            "potential-spot-replacement",
            None,
            [
                Offering("test-zone-1a", "spot", 1.0),
                Offering("test-zone-1b", "spot", 0.2),
                Offering("test-zone-1c", "spot", 0.4),
            ],
        )
    reqs = (
        [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}] if on_demand_pool else None
    )
    w = World(catalog=[current, repl], pools=[pool(requirements=reqs)])
    w.node("node", "current-on-demand", pods=None)
    w.pod("pod", "node")
    return w


REPLACE = [
    Case(
        "Replace can replace node if the candidate is on-demand node",
        # one pod without requests: the cheapest types (1 CPU, 1Gi) take it; the pool allows spot,
        # so the replacement is held to spot, priced as spot
        lambda: one_node(MOST_EXPENSIVE),
        [(*SINGLE_REPLACE, ["node"])],
        # (SimulateScheduling truncates the claim's types to the 600 cheapest; equal prices in name order,
        # which Karpenter's sort leaves unspecified)
        {0: Replacement(CHEAPEST, 600, ("spot",), 0.2073741824, excludes=(MOST_EXPENSIVE,))},
    ),
    Case(
        "Replace can replace node if the candidate is spot node",
        # spot to spot: the 15 cheapest spot types
        lambda: one_node(MOST_EXPENSIVE_SPOT),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST, 15, ("spot",), 0.2073741824, excludes=(MOST_EXPENSIVE_SPOT,))},
    ),
    Case(
        "Replace cannot replace spot with spot if less than minimum InstanceTypes flexibility",
        lambda: spot_sliced(5, less_than_minimum),
        [],
        stays={
            "spot-node": "SpotToSpotConsolidation requires 15 cheaper instance type options than the current "
            "candidate to consolidate, got 1"
        },
    ),
    Case(
        "Replace cannot replace spot with spot if the spotToSpotConsolidation is disabled",
        lambda: one_node(MOST_EXPENSIVE_SPOT, spot_to_spot=False),
        [],
        stays={"node": "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"},
    ),
    Case(
        "Replace spot to spot consolidation should order the instance types by price before enforcing "
        "minimum flexibility.",
        lambda: spot_sliced(10**6, spot_prices_18),
        [(*SINGLE_REPLACE, ["spot-node"])],
        # the 17th spot type of the catalog at 0.001 first, then the 14 next cheapest (1.0 to 2.3)
        {0: Replacement("1-cpu-2-mem-amd64-linux-test-zone-2-spot", 15, ("spot",), 0.001, includes=SPOT_18_CHEAPEST)},
    ),
    Case(
        "Replace won't replace node if any spot replacement is more expensive",
        lambda: no_dearer_spot_replacement(False),
        [],
        stays={"node": "Can't replace with a cheaper node"},
    ),
    Case(
        "Replace won't replace on-demand node if on-demand replacement is more expensive",
        lambda: no_dearer_spot_replacement(True),
        [],
        stays={"node": "Can't replace with a cheaper node"},
    ),
]


def spot_prices_18_min_values(min_values: int) -> World:
    w = spot_sliced(10**6, spot_prices_18)
    w.pools = [
        pool(
            requirements=[
                {"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": min_values},
            ]
        )
    ]
    return w


def spot_among_cheapest(w: World) -> str:
    """The first 20 types, the first at 0.001; the node on the second cheapest spot type (sorted by
    price, a 1-CPU 1Gi spot type)."""
    less_than_minimum(w)
    return w.catalog[1].name


def filter_by_price_min_values() -> World:
    """The node on the 16th cheapest spot type (2 CPUs, 1Gi); minValues 16 of instance types. The Go
    test appends the 18 cheapest types again to the catalog (the same objects): left out here, as
    they change nothing. Both of its entries apply the spot node."""
    w = World(
        pools=[pool(requirements=[{"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 16}])]
    )
    w.node("spot-node", "2-cpu-1-mem-amd64-linux-test-zone-1-spot", pods=None)
    w.pod("pod", "spot-node")
    return w


def same_type_min_values() -> World:
    current = fake.new_instance_type("current-on-demand", {"cpu": "5"}, [Offering("test-zone-1a", "on-demand", 0.5)])
    other = fake.new_instance_type("other-on-demand", {"cpu": "5"}, [Offering("test-zone-1a", "on-demand", 0.4)])
    reqs = [
        {"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 2},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    ]
    w = World(catalog=[current, other], pools=[pool(requirements=reqs)])
    for i in range(3):
        w.node(f"n{i}", "current-on-demand", cpu="4")
    for i, on in enumerate(("n0", "n1", "n2", "n2")):
        w.pod(f"p{i}", on, cpu="2", labels={}, owner=False)
    return w


def replace_with_pdb(itype: str, pdb_namespace: str = "default", pods: int = 3) -> World:
    w = World()
    w.node("node", itype, pods=None)
    for i in range(pods):
        w.pod(f"p{i}", "node")
    w.pdb("pdb", 0, namespace=pdb_namespace)
    return w


def replace_beside_blocked(itype: str, on_node: bool) -> World:
    """node (32 CPUs) runs two pods of 2 CPUs; a second node of 5 CPUs, blocked by the annotation on
    the node (or on its pod), runs the third: one pod moves there, the other to a 4-CPU claim."""
    w = World()
    w.node("node", itype, pods=None)
    w.node("annotated", itype, cpu="5")
    w.pod("p0", "node", cpu="2")
    w.pod("p1", "node", cpu="2")
    ann = {} if on_node else {"karpenter.sh/do-not-disrupt": "true"}
    w.pod("p2", "annotated", cpu="2", annotations=ann)
    if on_node:
        w.do_not_disrupt.add("annotated")
    return w


CHEAPEST_4CPU = "4-cpu-1-mem-"
PRICE_4CPU_1GI = 0.4 + 0.1 * 1.073741824
PRICE_1CPU_1GI = 0.1 + 0.1 * 1.073741824
POD_DND = 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p2)'
NODE_DND = 'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'
MIN_VALUES_UNMET = (
    "Filtering by price: minValues requirement is not met for label(s) (label(s)=[node.kubernetes.io/instance-type])"
)

REPLACE += [
    Case(
        "Replace cannot replace spot with spot if it is part of the 15 cheapest instance types.",
        lambda: spot_sliced(20, spot_among_cheapest),
        [],
        stays={
            "spot-node": "SpotToSpotConsolidation requires 15 cheaper instance type options than the current "
            "candidate to consolidate, got 1"
        },
    ),
    Case(
        "Replace spot to spot consolidation should consider the max of default and minimum number of "
        "instanceTypeOptions from minValues in requirement for truncation if minimum number of "
        "instanceTypeOptions from minValues in requirement is greater than 15.",
        lambda: spot_prices_18_min_values(16),
        [(*SINGLE_REPLACE, ["spot-node"])],
        {0: Replacement("1-cpu-2-mem-amd64-linux-test-zone-2-spot", 16, ("spot",), 0.001, includes=SPOT_18_CHEAPEST)},
    ),
    Case(
        "Replace spot to spot consolidation should consider the default for truncation if minimum number of "
        "instanceTypeOptions from minValues in requirement is less than 15.",
        lambda: spot_prices_18_min_values(10),
        [(*SINGLE_REPLACE, ["spot-node"])],
        {0: Replacement("1-cpu-2-mem-amd64-linux-test-zone-2-spot", 15, ("spot",), 0.001, includes=SPOT_18_CHEAPEST)},
    ),
    Case(
        "Replace should handle failing filterOutSameInstanceType correctly (without a panic) when minValues "
        "isn't satisfied",
        # merging n0 and n1 leaves one type cheaper than theirs, short of minValues 2: no multi-node
        # command; single-node consolidation deletes n0 (its pod fits on n1)
        same_type_min_values,
        [(*SINGLE_DELETE, ["n0"])],
    ),
    Case(
        "Replace Consolidation should fail if filterByPrice breaks the minimum requirement from the NodePools. "
        "if the candidate is spot node",
        filter_by_price_min_values,
        [],
        stays={"spot-node": MIN_VALUES_UNMET},
    ),
    Case(
        "Replace can replace nodes, considers PDB if the candidate is on-demand node",
        lambda: replace_with_pdb(MOST_EXPENSIVE),
        [],
        stays={"node": "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])"},
    ),
    Case(
        "Replace can replace nodes, considers PDB if the candidate is spot node",
        lambda: replace_with_pdb(MOST_EXPENSIVE_SPOT),
        [],
        stays={"node": "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])"},
    ),
    Case(
        "Replace can replace nodes, PDB namespace must match if the candidate is on-demand node",
        lambda: replace_with_pdb(MOST_EXPENSIVE, "other", pods=1),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST, 600, ("spot",), PRICE_1CPU_1GI, excludes=(MOST_EXPENSIVE,))},
    ),
    Case(
        "Replace can replace nodes, PDB namespace must match if the candidate is spot node",
        lambda: replace_with_pdb(MOST_EXPENSIVE_SPOT, "other", pods=1),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST, 15, ("spot",), PRICE_1CPU_1GI)},
    ),
    Case(
        "Replace can replace nodes, considers karpenter.sh/do-not-disrupt set to true on nodes "
        "if the candidate is on-demand node",
        lambda: replace_beside_blocked(MOST_EXPENSIVE, on_node=True),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST_4CPU, 600, ("spot",), PRICE_4CPU_1GI, excludes=(MOST_EXPENSIVE,))},
        stays={"annotated": NODE_DND},
    ),
    Case(
        "Replace can replace nodes, considers karpenter.sh/do-not-disrupt set to true on nodes "
        "if the candidate is spot node",
        lambda: replace_beside_blocked(MOST_EXPENSIVE_SPOT, on_node=True),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST_4CPU, 15, ("spot",), PRICE_4CPU_1GI)},
        stays={"annotated": NODE_DND},
    ),
    Case(
        "Replace can replace nodes, considers karpenter.sh/do-not-disrupt set to true on pods "
        "if the candidate is on-demand node",
        lambda: replace_beside_blocked(MOST_EXPENSIVE, on_node=False),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST_4CPU, 600, ("spot",), PRICE_4CPU_1GI, excludes=(MOST_EXPENSIVE,))},
        stays={"annotated": POD_DND},
    ),
    Case(
        "Replace can replace nodes, considers karpenter.sh/do-not-disrupt set to true on pods "
        "if the candidate is spot node",
        lambda: replace_beside_blocked(MOST_EXPENSIVE_SPOT, on_node=False),
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST_4CPU, 15, ("spot",), PRICE_4CPU_1GI)},
        stays={"annotated": POD_DND},
    ),
]


# -- Delete -------------------------------------------------------------------------------------


def two_cheap_nodes(**kw: object) -> World:
    """The Delete context's two nodes: the cheapest on-demand type, 32 CPUs, 100 pods."""
    w = World(**kw)  # type: ignore[arg-type]
    w.node("n0", LEAST_EXPENSIVE)
    w.node("n1", LEAST_EXPENSIVE)
    return w


def delete_basic(**kw: object) -> World:
    w = two_cheap_nodes(**kw)
    for i, on in enumerate(("n0", "n0", "n1")):
        w.pod(f"p{i}", on)
    return w


def delete_pdb() -> World:
    w = two_cheap_nodes()
    w.pod("p0", "n0", labels={})
    w.pod("p1", "n0", labels={})
    w.pod("p2", "n1")
    w.pdb("pdb", 0)
    return w


def delete_dnd(on_node: bool) -> World:
    w = two_cheap_nodes()
    w.pod("p0", "n0")
    w.pod("p1", "n0")
    w.pod("p2", "n1", annotations=None if on_node else {"karpenter.sh/do-not-disrupt": "true"})
    if on_node:
        w.do_not_disrupt.add("n1")
    return w


def delete_unowned() -> World:
    w = two_cheap_nodes()
    w.pod("p0", "n0", labels={})
    w.pod("p1", "n0", labels={})
    w.pod("p2", "n1", labels={}, owner=False)
    return w


def delete_unmanaged() -> World:
    w = World()
    w.node("n0", LEAST_EXPENSIVE)
    w.node("unmanaged", "", managed=False)
    for i in range(3):
        w.pod(f"p{i}", "n0")
    return w


def delete_uninitialized() -> World:
    w = World()
    w.node("n0", LEAST_EXPENSIVE, initialized=False)
    w.node("n1", LEAST_EXPENSIVE)
    w.claims.append(
        NodeClaim("nc-0", "default", "n0", LEAST_EXPENSIVE, (), (), (), (), (), False),
    )
    for i, on in enumerate(("n0", "n0", "n1")):
        w.pod(f"p{i}", on)
    return w


def delete_with_pending() -> World:
    w = delete_basic()
    pending = make_pod().name("pending").uid("pending").node_selector(**{"non-existent": "node-label"}).obj()
    w.pending.append(pending)
    return w


def delete_would_pend() -> World:
    w = World()
    w.node("n0", LEAST_EXPENSIVE, labels={"foo": "1"})
    w.node("n1", LEAST_EXPENSIVE, labels={"foo": "2"})
    for i, (on, foo) in enumerate((("n0", "1"), ("n0", "1"), ("n1", "2"))):
        w.pod(f"p{i}", on, node_selector={"foo": foo})
    return w


DELETE = [
    Case("Delete can delete nodes", delete_basic, [(*SINGLE_DELETE, ["n1"])]),
    Case(
        "Delete can delete nodes, when non-Karpenter capacity can fit pods",
        delete_unmanaged,
        [(*SINGLE_DELETE, ["n0"])],
        stays={"unmanaged": "node isn't managed by karpenter"},
    ),
    Case(
        "Delete can delete nodes, considers PDB",
        # the node with more pods goes: the other one's pod is held by the PDB
        delete_pdb,
        [(*SINGLE_DELETE, ["n0"])],
        stays={"n1": "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])"},
    ),
    Case(
        "Delete can delete nodes, considers karpenter.sh/do-not-disrupt set to true on nodes",
        lambda: delete_dnd(True),
        [(*SINGLE_DELETE, ["n0"])],
        stays={"n1": NODE_DND},
    ),
    Case(
        "Delete can delete nodes, considers karpenter.sh/do-not-disrupt set to true on pods",
        lambda: delete_dnd(False),
        [(*SINGLE_DELETE, ["n0"])],
        stays={"n1": POD_DND},
    ),
    Case("Delete can delete nodes, evicts pods without an ownerRef", delete_unowned, [(*SINGLE_DELETE, ["n1"])]),
    Case(
        "Delete won't delete node if it would require pods to schedule on an uninitialized node",
        delete_uninitialized,
        [],
        stays={
            "n0": "node isn't initialized",
            "n1": "Not all pods would schedule, default/p2 => would schedule against uninitialized nodeclaim/nc-0, "
            "node/n0",
        },
    ),
    Case(
        "Delete can delete nodes with a permanently pending pod",
        delete_with_pending,
        [(*SINGLE_DELETE, ["n1"])],
    ),
    Case(
        "Delete won't delete nodes if it would make a non-pending pod go pending",
        delete_would_pend,
        [],
    ),
]


# -- Multi-NodeClaim ----------------------------------------------------------------------------


def three_nodes(types: tuple[str, str, str]) -> World:
    w = World()
    for i, t in enumerate(types):
        w.node(f"n{i}", t)
        w.pod(f"p{i}", f"n{i}")
    return w


def two_of_same_type(itype: str) -> World:
    w = World()
    w.node("n0", itype)
    w.node("n1", itype)
    w.pod("p0", "n0")
    w.pod("p1", "n1")
    w.pod("p2", "n1")
    return w


MULTI = [
    Case(
        "Multi-NodeClaim can merge 3 nodes into 1 if the candidate is on-demand node",
        # the pool allows spot: the replacement is held to spot, and filterOutSameInstanceType's
        # second price filter (worst launch price under that requirement) drops the on-demand-only
        # types: the 300 spot types of the 600 cheapest
        lambda: three_nodes((MOST_EXPENSIVE,) * 3),
        [(*MULTI_REPLACE, ["n0", "n1", "n2"])],
        {0: Replacement(CHEAPEST, 300, ("spot",), PRICE_1CPU_1GI, excludes=(MOST_EXPENSIVE,))},
    ),
    Case(
        "Multi-NodeClaim can merge 3 nodes into 1 if the candidate is spot node",
        # spot to spot over several nodes: no 15-type cut, every cheaper spot type of the 600 cheapest
        lambda: three_nodes((MOST_EXPENSIVE_SPOT,) * 3),
        [(*MULTI_REPLACE, ["n0", "n1", "n2"])],
        {0: Replacement(CHEAPEST, 300, ("spot",), PRICE_1CPU_1GI)},
    ),
    Case(
        "Multi-NodeClaim can merge 3 nodes into 1 if the candidates have both spot and on-demand",
        lambda: three_nodes((MOST_EXPENSIVE, MOST_EXPENSIVE, MOST_EXPENSIVE_SPOT)),
        [(*MULTI_REPLACE, ["n0", "n1", "n2"])],
        {0: Replacement(CHEAPEST, 300, ("spot",), PRICE_1CPU_1GI)},
    ),
    Case(
        "Multi-NodeClaim won't merge 2 nodes into 1 of the same type if the candidate is on-demand node",
        # (this entry puts the nodes on the cheapest spot type)
        lambda: two_of_same_type(LEAST_EXPENSIVE_SPOT),
        [(*SINGLE_DELETE, ["n0"])],
    ),
    Case(
        "Multi-NodeClaim won't merge 2 nodes into 1 of the same type if the candidate is spot node",
        # (and this one on the cheapest on-demand type)
        lambda: two_of_same_type(LEAST_EXPENSIVE),
        [(*SINGLE_DELETE, ["n0"])],
    ),
    Case(
        "Node Lifetime Consideration should consolidate the node with best savings ratio first",
        # node 1 has fewer pods: a lower disruption cost, a better price per disruption
        delete_basic,
        [(*SINGLE_DELETE, ["n1"])],
    ),
]


# -- Events: why a node is no consolidation candidate ------------------------------------------


def event_node(disruption: dict[str, Any] | None = None, drop: str = "", pod: bool = True) -> World:
    """The suite's node (the dearest on-demand type) with one bare pod (test.Pod: no owner)."""
    w = World(pools=[pool(disruption=disruption)])
    w.node("node", MOST_EXPENSIVE, pods=None)
    if drop:
        labels = dict(w.nodes[0].labels)
        del labels[drop]
        w.nodes[0] = replace(w.nodes[0], labels=labels)
    if pod:
        w.pod("pod", "node", labels={}, owner=False)
    return w


EVENTS = [
    Case(
        "Events should not fire an event for ConsolidationDisabled when the NodePool has consolidation set to "
        "WhenEmptyOrUnderutilized",
        # the node is empty: emptiness deletes it, nothing is unconsolidatable
        lambda: event_node(pod=False),
        [(*EMPTINESS, ["node"])],
    ),
    Case(
        "Events should fire an event for ConsolidationDisabled when the NodePool has consolidation set to WhenEmpty",
        lambda: event_node({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1m"}),
        [],
        stays={"node": 'NodePool "default" has consolidation policy WhenEmpty, but node is not empty'},
    ),
    Case(
        "Events should fire an event for ConsolidationDisabled when the NodePool has consolidateAfter set to 'Never'",
        lambda: event_node({"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "Never"}),
        [],
        stays={"node": 'NodePool "default" has consolidation disabled'},
    ),
    Case(
        "Events should fire an event when a candidate does not have a resolvable instance type",
        lambda: event_node(drop="node.kubernetes.io/instance-type"),
        [],
        stays={"node": 'Instance Type "" not found'},
    ),
    Case(
        "Events should fire an event when a candidate does not have the capacity type label",
        lambda: event_node(drop="karpenter.sh/capacity-type"),
        [],
        stays={"node": 'Node does not have label "karpenter.sh/capacity-type"'},
    ),
    Case(
        "Events should fire an event when a candidate does not have the zone label",
        lambda: event_node(drop="topology.kubernetes.io/zone"),
        [],
        stays={"node": 'Node does not have label "topology.kubernetes.io/zone"'},
    ),
]


# -- Topology, preferences, minValues, static NodePools -----------------------------------------

ZONE1_CHEAPEST = "1-cpu-1-mem-amd64-linux-test-zone-1-on-demand"
ZONE2_CHEAPEST = "1-cpu-1-mem-amd64-linux-test-zone-2-on-demand"
ZONE2_DEAREST = "64-cpu-128-mem-amd64-linux-test-zone-2-on-demand"
ZONE3_CHEAPEST = "1-cpu-1-mem-amd64-linux-test-zone-3-on-demand"


def zonal(zone2_type: str, extra: Callable[[PodBuilder], PodBuilder], labels: dict[str, str]) -> World:
    """Topology Consideration: three nodes of 1 CPU, one per zone; a pod of 1 CPU on each."""
    w = World()
    for i, t in enumerate((ZONE1_CHEAPEST, zone2_type, ZONE3_CHEAPEST)):
        w.node(f"n{i}", t, cpu="1", pods=None)
        w.pod(f"p{i}", f"n{i}", cpu="1", labels=labels, extra=extra)
    return w


def zonal_spread() -> World:
    sel = {"matchLabels": {"app": "test-zonal-spread"}}
    return zonal(
        ZONE2_DEAREST, lambda b: b.spread(1, "topology.kubernetes.io/zone", selector=sel), {"app": "test-zonal-spread"}
    )


def zonal_anti_affinity() -> World:
    term = {"labelSelector": {"matchLabels": {"app": "test"}}, "topologyKey": "kubernetes.io/hostname"}
    aff = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return zonal(ZONE2_CHEAPEST, lambda b: b.affinity(aff), {"app": "test"})


def ignore_preferences_delete() -> World:
    w = World(options=ProvisionOptions(preference_policy=PreferencePolicy.IGNORE))
    w.node("n0", LEAST_EXPENSIVE, cpu="5")
    w.node("n1", LEAST_EXPENSIVE, cpu="5")
    term = {"labelSelector": {"matchLabels": {"app": "foo"}}, "topologyKey": "kubernetes.io/hostname"}
    aff = {
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": term}]}
    }
    for i, on in enumerate(("n0", "n0", "n1")):
        w.pod(f"p{i}", on, labels={"app": "foo"}, owner=False, extra=lambda b: b.affinity(aff))
    return w


def ignore_preferences_replace() -> World:
    w = World(options=ProvisionOptions(preference_policy=PreferencePolicy.IGNORE))
    w.node("node", MOST_EXPENSIVE, pods=None)
    pref = {
        "preference": {
            "matchExpressions": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [MOST_EXPENSIVE]}
            ]
        },
        "weight": 1,
    }
    aff = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [pref]}}
    w.pod("pod", "node", labels={"app": "foo"}, owner=False, extra=lambda b: b.affinity(aff))
    return w


def min_values_best_effort() -> World:
    """MinValuesPolicy: a pool (weight 100) asking for 3 instance types among the catalog's, a
    catalog of two (the cheapest and dearest on-demand types): minValues cannot be met."""
    mv = fake.nodepool_body(
        "np-minvalues",
        weight=100,
        requirements=[
            {
                "key": "node.kubernetes.io/instance-type",
                "operator": "In",
                "values": [it.name for it in ASSORTED],
                "minValues": 3,
            }
        ],
        disruption={
            "consolidationPolicy": "WhenEmptyOrUnderutilized",
            "budgets": [{"nodes": "100%"}],
            "consolidateAfter": "0s",
        },
    )
    w = World(
        catalog=[next(it for it in ASSORTED if it.name == n) for n in (LEAST_EXPENSIVE, MOST_EXPENSIVE)],
        pools=[parse_nodepool(mv, "test")],
        options=ProvisionOptions(min_values_policy=MinValuesPolicy.BEST_EFFORT),
    )
    w.node("node", MOST_EXPENSIVE, nodepool="np-minvalues", cpu="5")
    w.pod("pod", "node", labels={}, owner=False)
    return w


def static_pool() -> World:
    body = fake.nodepool_body("static", disruption={})
    body["spec"]["replicas"] = 2
    w = World(pools=[parse_nodepool(body, "test")])
    for i in range(2):
        w.node(f"n{i}", "", nodepool="static", cpu="10", memory="1000Mi", pods="2")
    return w


OTHERS = [
    Case(
        "Topology Consideration can replace node maintaining zonal topology spread",
        # the zone-2 node (the dearest type) goes; its pod can only go to zone 2 (skew 1), on a
        # 2-CPU type (1 CPU and the type's 100m overhead)
        zonal_spread,
        [(*SINGLE_REPLACE, ["n1"])],
        {0: Replacement("2-cpu-1-mem-", 376, ("spot",), 0.2 + 0.1 * 1.073741824, zones=("test-zone-2",))},
    ),
    Case(
        "Topology Consideration won't delete node if it would violate pod anti-affinity",
        zonal_anti_affinity,
        [],
    ),
    Case(
        "Preferences should consolidate a node through deletion when ignoring preferences",
        ignore_preferences_delete,
        [(*SINGLE_DELETE, ["n1"])],
    ),
    Case(
        "Preferences should consolidate a node through replacement when ignoring preferences",
        ignore_preferences_replace,
        [(*SINGLE_REPLACE, ["node"])],
        {0: Replacement(CHEAPEST, 600, ("spot",), PRICE_1CPU_1GI, excludes=(MOST_EXPENSIVE,))},
    ),
    Case(
        "MinValuesPolicy should not consolidate a node by relaxing min values when policy is set to BestEffort",
        min_values_best_effort,
        [],
        stays={"node": MIN_VALUES_UNMET},
    ),
    Case("Static NodePool should not consolidate static NodePool nodes", static_pool, []),
]


CASES = BUDGETS + REPLACE + DELETE + MULTI + EVENTS + OTHERS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_upstream_consolidation(case: Case) -> None:
    check(case, case.build().run())


# -- suite_test.go "Pod Eviction Cost" and singlenodeconsolidation_test.go "Candidate Shuffling" --


def _bare_pod(annotations: dict[str, str] | None = None, priority: int | None = None) -> Pod:
    b = make_pod().name("p")
    if annotations:
        b.d["metadata"]["annotations"] = annotations
    if priority is not None:
        b = b.priority(priority)
    return b.obj()


DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


@pytest.mark.parametrize(
    ("name", "pod", "cost"),
    [
        ("should have a standard disruptionCost for a pod with no priority or disruptionCost specified", {}, 1.0),
        (
            "should have a higher disruptionCost for a pod with a positive deletion disruptionCost",
            {"annotations": {DELETION_COST: "100"}},
            1.0 + 100 / 2**27,
        ),
        (
            "should have a lower disruptionCost for a pod with a positive deletion disruptionCost",
            {"annotations": {DELETION_COST: "-100"}},
            1.0 - 100 / 2**27,
        ),
        ("should have a higher disruptionCost for a pod with a higher priority", {"priority": 1}, 1.0 + 1 / 2**25),
        ("should have a lower disruptionCost for a pod with a lower priority", {"priority": -1}, 1.0 - 1 / 2**25),
        # the clamp to [-10, 10] (disruption.go EvictionCost)
        ("(clamp) the highest priority", {"priority": 1_000_000_000}, 10.0),
        ("(clamp) the lowest deletion cost", {"annotations": {DELETION_COST: "-2147483647"}}, -10.0),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_pod_eviction_cost(name: str, pod: dict[str, Any], cost: float) -> None:
    """suite_test.go Describe("Pod Eviction Cost")."""
    assert eviction_cost(_bare_pod(**pod)) == pytest.approx(cost, abs=1e-12)


def test_higher_deletion_costs_cost_more() -> None:
    """suite_test.go "should have higher costs for higher deletion costs"."""
    c101, c100, c99 = (eviction_cost(_bare_pod({DELETION_COST: v})) for v in ("101", "100", "99"))
    assert c101 > c100 > c99


def _candidates(price: float, count: int, cost: float) -> list[Candidate]:
    """createCandidates: ``count`` candidates in each of nodepool-1..3 at ``price``."""
    out = []
    for p in ("nodepool-1", "nodepool-2", "nodepool-3"):
        np_ = pool(p)
        for i in range(count):
            node = ModelNode(f"{p}-{price}-{i}", {}, (), {}, [], p, True, True, False, False, None)
            out.append(Candidate(node, np_, price, "on-demand", "test-zone-1", [], cost))
    return out


def test_candidates_sorted_by_savings_ratio_with_different_disruption_costs() -> None:
    """singlenodeconsolidation_test.go "should sort candidates by savings ratio with different
    disruption costs": reschedule costs 1, 5 and 20 at prices 1, 2 and 3, given in reverse."""
    cands = _candidates(3.0, 1, 20.0) + _candidates(2.0, 1, 5.0) + _candidates(1.0, 1, 1.0)
    ordered = Disruption._sort(cands)
    assert [c.reschedule_cost for c in ordered] == [1.0] * 3 + [5.0] * 3 + [20.0] * 3


def test_candidates_sorted_by_savings_ratio_descending() -> None:
    """singlenodeconsolidation_test.go "should sort candidates by savings ratio descending"."""
    cands = _candidates(1.0, 3, 1.0)
    for i, c in enumerate(cands):
        c.reschedule_cost = 1.0 + i % 4
    ratios = [c.savings_ratio() for c in Disruption._sort(cands)]
    assert len(ratios) == 9 and ratios == sorted(ratios, reverse=True)


# -- suite_test.go "Candidate Filtering": NewCandidate for graceful disruption --------------------


def candidate_of(w: World, name: str) -> Candidate | str:
    """disruption.NewCandidate on the node ``name`` of the world: the candidate or the error."""
    model = model_nodes(w.nodes, w.pods, w.all_claims(), w.catalog, w.do_not_disrupt)
    d = Disruption(model, w.pools, w.catalog, w.pdbs, [], [], {}, w.options, fake.FAKE_WELL_KNOWN, True)
    return d.candidate(next(n for n in model if n.name == name))


DND = {"karpenter.sh/do-not-disrupt": "true"}


def filtered(
    pod: Callable[[PodBuilder], PodBuilder] | None = None,
    pdbs: tuple[str, ...] = (),
    node_kw: dict[str, Any] | None = None,
    claim: tuple[str, bool] | None = None,
    drop: str = "",
    pools: list[NodePool] | None = None,
) -> World:
    """The filtering tests' node: the dearest on-demand type, in the suite's NodePool; one pod
    shaped by ``pod``; PDBs with no disruption allowed selecting it; its NodeClaim when given
    (name of its NodePool, deleting)."""
    w = World(pools=pools if pools is not None else [pool()])
    w.node("node", MOST_EXPENSIVE, **(node_kw or {}))
    if drop:
        labels = dict(w.nodes[0].labels)
        del labels[drop]
        w.nodes[0] = replace(w.nodes[0], labels=labels)
    if pod is not None:
        w.pod("pod", "node", owner=False, extra=pod)
    for name in pdbs:
        w.pdb(name, 0)
    if claim is not None:
        w.claims.append(NodeClaim("nodeclaim", claim[0], "node", MOST_EXPENSIVE, (), (), (), (), (), claim[1]))
    return w


def _ann(b: PodBuilder, ann: dict[str, str]) -> PodBuilder:
    b.d["metadata"]["annotations"] = dict(ann)
    return b


POD_DND_ONE = 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/pod)'
PDB_BLOCKS = "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb])"

FILTERING: list[tuple[str, Callable[[], World], str | None]] = [
    (
        "should not consider candidates that have do-not-disrupt pods scheduled and no terminationGracePeriod",
        lambda: filtered(lambda b: _ann(b, DND)),
        POD_DND_ONE,
    ),
    (
        "should not consider candidates that have do-not-disrupt mirror pods scheduled",
        lambda: filtered(lambda b: _ann(b.owner("Node", "node", api_version="v1"), DND)),
        POD_DND_ONE,
    ),
    (
        "should not consider candidates that have do-not-disrupt daemonset pods scheduled",
        lambda: filtered(lambda b: _ann(b.owner("DaemonSet", "ds"), DND)),
        POD_DND_ONE,
    ),
    (
        "should consider candidates that have do-not-disrupt terminating pods",
        lambda: filtered(lambda b: _ann(b.terminating(), DND)),
        None,
    ),
    (
        "should consider candidates that have do-not-disrupt terminal pods",
        lambda: filtered(lambda b: _ann(b.phase("Succeeded"), DND)),
        None,
    ),
    (
        "should not consider candidates that have do-not-disrupt on nodes",
        lambda: _dnd_node(),
        'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
    ),
    (
        "should not consider candidates that have multiple PDBs on the same pod",
        lambda: filtered(lambda b: b, pdbs=("pdb", "pdb2")),
        "eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/pdb default/pdb2])",
    ),
    (
        "should not consider candidates that have fully blocking PDBs",
        lambda: filtered(lambda b: b, ("pdb",)),
        PDB_BLOCKS,
    ),
    (
        "should not consider candidates that have fully blocking PDBs on daemonset pods",
        lambda: filtered(lambda b: b.owner("DaemonSet", "ds"), ("pdb",)),
        PDB_BLOCKS,
    ),
    (
        "should consider candidates that have fully blocking PDBs on mirror pods",
        lambda: filtered(lambda b: b.owner("Node", "node", api_version="v1"), ("pdb",)),
        None,
    ),
    (
        "should consider candidates that have fully blocking PDBs on terminal pods",
        lambda: filtered(lambda b: b.phase("Failed"), ("pdb",)),
        None,
    ),
    (
        "should consider candidates that have fully blocking PDBs on terminating pods",
        lambda: filtered(lambda b: b.terminating(), ("pdb",)),
        None,
    ),
    (
        "should not consider candidates that has just a Node representation",
        lambda: _node_only(),
        "node isn't managed by karpenter",
    ),
    (
        "should not consider candidates that are deleting",
        lambda: filtered(claim=("default", True)),
        "node is deleting or marked for deletion",
    ),
    (
        "should not consider candidates that aren't yet initialized",
        lambda: filtered(node_kw={"initialized": False}),
        "node isn't initialized",
    ),
    (
        "should not consider candidates that are not owned by a NodePool (no karpenter.sh/nodepool label)",
        lambda: filtered(claim=("", False), drop="karpenter.sh/nodepool"),
        "node doesn't have required label (label=karpenter.sh/nodepool)",
    ),
    (
        "should not consider candidates that are have a non-existent NodePool",
        lambda: filtered(pools=[]),
        "nodepool not found (NodePool=default)",
    ),
    (
        "should consider candidates that do not have the karpenter.sh/capacity-type label",
        lambda: filtered(drop="karpenter.sh/capacity-type"),
        None,
    ),
    (
        "should consider candidates that do not have the topology.kubernetes.io/zone label",
        lambda: filtered(drop="topology.kubernetes.io/zone"),
        None,
    ),
    (
        "should consider candidates that do not have the node.kubernetes.io/instance-type label",
        lambda: filtered(drop="node.kubernetes.io/instance-type"),
        None,
    ),
]


def _node_only() -> World:
    """The node without its NodeClaim; the state holds another node's NodeClaim (a state with no
    NodeClaim at all leaves the NodePool label to say which nodes are Karpenter's)."""
    w = filtered()
    w.claims_for_all = False
    w.node("other", MOST_EXPENSIVE)
    w.claims.append(NodeClaim("other-claim", "default", "other", MOST_EXPENSIVE, (), (), (), (), (), False))
    return w


def _dnd_node() -> World:
    w = filtered()
    w.do_not_disrupt.add("node")
    return w


@pytest.mark.parametrize(("name", "build", "error"), FILTERING, ids=[f[0] for f in FILTERING])
def test_candidate_filtering(name: str, build: Callable[[], World], error: str | None) -> None:
    got = candidate_of(build(), "node")
    if error is None:
        assert isinstance(got, Candidate) and got.name == "node"
    else:
        assert got == error


# -- pods of deleting nodes and pending pods in the simulation ------------------------------------


def _deleting_claim(node: str, itype: str) -> NodeClaim:
    return NodeClaim(f"nc-{node}", "default", node, itype, (), (), (), (), (), True)


def test_pods_on_deleting_nodes_may_go_to_new_capacity() -> None:
    """suite_test.go "Simulate Scheduling should allow pods on deleting nodes to reschedule to
    uninitialized nodes": nine of ten nodes of 3 CPUs are deleting; the candidate's pod (2 CPUs,
    100Mi) goes to a new NodeClaim, with no error."""
    w = World(pools=[pool(disruption={"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"})])
    for i in range(10):
        w.node(f"n{i}", MOST_EXPENSIVE, cpu="3")
        if i:
            w.claims.append(_deleting_claim(f"n{i}", MOST_EXPENSIVE))
    w.pod("pod", "n0", cpu="2", labels={}, owner=False, extra=lambda b: b.req(memory="100Mi"))
    model = model_nodes(w.nodes, w.pods, w.all_claims(), w.catalog, w.do_not_disrupt)
    d = Disruption(model, w.pools, w.catalog, [], [], [], {}, w.options, fake.FAKE_WELL_KNOWN, True)
    cand = d.candidate(model[0])
    assert isinstance(cand, Candidate)
    results, errors, _ = d.simulate([cand])
    assert errors == {}
    assert len(results.claims) == 1


def test_no_consolidation_of_a_node_launched_for_pods_still_pending() -> None:
    """consolidation_test.go "Parallelization should not consolidate a node that is launched for
    pods on a deleting node": five pods of 1 CPU got a node (8 CPUs, 5 pods) after the first one
    launched for them began deleting; two are bound to it, three still pend. The simulation places
    the pending pods too: the five need a node of the same price, none cheaper."""
    w = World()
    node_type = "8-cpu-1-mem-amd64-linux-test-zone-1-on-demand"
    w.node("old", node_type, cpu="7900m", pods="5")
    w.claims.append(_deleting_claim("old", node_type))
    w.node("new", node_type, cpu="7900m", pods="5")
    w.pod("p0", "new", cpu="1")
    w.pod("p1", "new", cpu="1")
    w.pending = [make_pod().name(f"p{i}").uid(f"p{i}").req(cpu="1").label("app", "test").obj() for i in (2, 3, 4)]
    res = w.run()
    assert res.commands == []
    assert res.stays == {"old": "node is deleting or marked for deletion", "new": "Can't replace with a cheaper node"}


def test_pods_of_a_deleting_node_need_room() -> None:
    """(kwhatif's scenario, SimulateScheduling's deleting-node pods) a deleting node's three pods of
    1 CPU reschedule in every simulation: the other node, running two, cannot be replaced by a
    smaller one that would leave them no room; without the deleting node it is."""
    node_type = "8-cpu-1-mem-amd64-linux-test-zone-1-on-demand"

    def world(deleting: bool) -> World:
        w = World()
        w.node("new", node_type, cpu="7900m", pods="5")
        w.pod("p0", "new", cpu="1")
        w.pod("p1", "new", cpu="1")
        if deleting:
            w.node("old", node_type, cpu="7900m", pods="5")
            w.claims.append(_deleting_claim("old", node_type))
            for i in (2, 3, 4):
                w.pod(f"p{i}", "old", cpu="1")
        return w

    res = world(True).run()
    assert res.commands == []
    assert res.stays["new"] == "Can't replace with a cheaper node"
    res = world(False).run()
    assert [shape(c) for c in res.commands] == [("single-node", "underutilized", "replace", ["new"])]


# -- duration-based karpenter.sh/do-not-disrupt ---------------------------------------------------

START = "2026-12-07T12:00:00Z"
START_EPOCH = 1796644800.0  # START in seconds since the epoch


def dnd_durations(values: tuple[str | None, str | None, str | None], now: float) -> World:
    """The Delete context's two nodes, two pods on n0 and one on n1, each pod annotated with its
    value (None: no annotation) and started at START; consolidation at ``now``."""
    w = two_cheap_nodes()
    w.now = now
    for i, (on, value) in enumerate(zip(("n0", "n0", "n1"), values, strict=True)):
        ann = {"karpenter.sh/do-not-disrupt": value} if value is not None else None
        w.pod(f"p{i}", on, annotations=ann, extra=lambda b: b.start_time(START))
    return w


def test_start_epoch() -> None:
    assert make_pod().name("p").start_time(START).obj().start_time == START_EPOCH


DURATIONS = [
    Case(
        "Delete does not consolidate nodes with pods that have a duration-based do-not-disrupt annotation that "
        "is still active",
        # a 2m protection on n1's pod, started now: n0 goes instead
        lambda: dnd_durations((None, None, "2m"), START_EPOCH),
        [(*SINGLE_DELETE, ["n0"])],
        stays={"n1": 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p2)'},
    ),
    Case(
        "Delete can consolidate nodes after duration-based do-not-disrupt annotation expires (before)",
        lambda: dnd_durations(("2m", "2m", "2m"), START_EPOCH),
        [],
        stays={"n1": 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/p2)'},
    ),
    Case(
        "Delete can consolidate nodes after duration-based do-not-disrupt annotation expires (3 minutes later)",
        lambda: dnd_durations(("2m", "2m", "2m"), START_EPOCH + 180),
        [(*SINGLE_DELETE, ["n1"])],
    ),
    Case(
        "Delete can delete nodes, considers invalid do-not-disrupt annotation format as not blocking",
        lambda: dnd_durations((None, None, "invalid-format"), START_EPOCH),
        [(*SINGLE_DELETE, ["n1"])],
    ),
]


@pytest.mark.parametrize("case", DURATIONS, ids=[c.name for c in DURATIONS])
def test_duration_do_not_disrupt(case: Case) -> None:
    check(case, case.build().run())
