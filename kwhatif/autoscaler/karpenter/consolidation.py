"""What Karpenter's disruption controller would consolidate now: empty nodes deleted (Emptiness),
then underutilized ones deleted or replaced by one cheaper NodeClaim, several at once
(MultiNodeConsolidation) or one at a time (SingleNodeConsolidation), under each NodePool's
consolidation policy and disruption budgets, `karpenter.sh/do-not-disrupt` and the
PodDisruptionBudgets; and why every other node stays.

Ported from kubernetes-sigs/karpenter v1.14.1 pkg/controllers/disruption: controller.go (the
methods' order: a method that finds a command runs it, and the loop starts again), emptiness.go,
consolidation.go (ShouldDisrupt, computeConsolidation, computeSpotToSpotConsolidation),
singlenodeconsolidation.go, multinodeconsolidation.go (firstNConsolidationOption,
filterOutSameInstanceType), helpers.go (SimulateScheduling, BuildDisruptionBudgetMapping),
types.go (NewCandidate, SavingsRatio, IsEmpty) and pkg/controllers/state/statenode.go
(ValidateNodeDisruptable, ValidatePodsDisruptable). Drift is not modelled (it needs the cloud
provider's view of each NodeClaim). Time-based inputs kwhatif cannot see are taken as met: every
node's consolidateAfter has elapsed, no node is nominated for a pending pod, a budget with a
schedule is in its window; the notes say so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kwhatif.api.core import Node, Pod, Taint
from kwhatif.api.labels import Selector
from kwhatif.autoscaler.karpenter.instancetypes import InstanceType, milli, order_by_price, satisfies_min_values
from kwhatif.autoscaler.karpenter.nodepools import (
    CONSOLIDATION_BALANCED,
    CONSOLIDATION_WHEN_EMPTY,
    REASON_EMPTY,
    REASON_UNDERUTILIZED,
    NodeClaim,
    NodePool,
)
from kwhatif.autoscaler.karpenter.provisioner import (
    NodeInput,
    PlannedClaim,
    ProvisionOptions,
    Results,
    host_ports,
    provision,
    requests_for_pods,
    summarize,
)
from kwhatif.autoscaler.karpenter.requirements import (
    CAPACITY_TYPE_LABEL,
    CAPACITY_TYPE_ON_DEMAND,
    CAPACITY_TYPE_SPOT,
    DO_NOT_DISRUPT_ANNOTATION,
    INSTANCE_TYPE_LABEL,
    NODE_INITIALIZED_LABEL,
    NODEPOOL_LABEL,
    WELL_KNOWN_LABELS,
    ZONE_LABEL,
    Requirement,
    Requirements,
)
from kwhatif.autoscaler.karpenter.topology import ExistingPod
from kwhatif.load.http import parse_duration

PER_NODE_BASE_DISRUPTION_COST = 1.0  # types.go PerNodeBaseDisruptionCost
MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT = 15  # consolidation.go MinInstanceTypesForSpotToSpotConsolidation
MAX_PARALLEL = 100  # multinodeconsolidation.go: at most 100 candidates in a batch
MAX_INSTANCE_TYPES = 600
DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"

BALANCED_K = 2  # pkg/apis/v1/nodepool.go BalancedK

EMPTY = "empty"
UNDERUTILIZED = "underutilized"
EMPTINESS = "emptiness"
MULTI_NODE = "multi-node"
SINGLE_NODE = "single-node"
DELETE = "delete"
REPLACE = "replace"


@dataclass(slots=True)
class ModelNode:
    """A node of the cluster as the disruption controller sees it, with the pods it runs."""

    name: str
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    allocatable: dict[str, int]  # thousandths
    pods: list[Pod]
    nodepool: str
    managed: bool  # Karpenter's: it has a NodeClaim (a NodePool label when the state has no NodeClaim)
    initialized: bool
    deleting: bool
    do_not_disrupt: bool
    instance_type: InstanceType | None
    claim: str = ""  # the NodeClaim's name, when known


@dataclass(slots=True)
class Candidate:
    node: ModelNode
    pool: NodePool
    price: float
    capacity_type: str
    zone: str
    reschedulable: list[Pod]
    reschedule_cost: float

    @property
    def name(self) -> str:
        return self.node.name

    def savings_ratio(self) -> float:
        return self.price / self.reschedule_cost

    def is_empty(self) -> bool:
        return self.reschedule_cost <= PER_NODE_BASE_DISRUPTION_COST


@dataclass(slots=True)
class Command:
    method: str  # emptiness | multi-node | single-node
    reason: str  # empty | underutilized
    candidates: list[Candidate]
    replacement: PlannedClaim | None = None
    pods_to: dict[str, str] = field(default_factory=dict)  # pod -> node or "replacement"

    @property
    def action(self) -> str:
        return REPLACE if self.replacement is not None else DELETE


@dataclass(slots=True)
class Consolidation:
    commands: list[Command]
    stays: dict[str, str]  # node -> why it stays
    budgets: dict[str, int]  # NodePool -> disruptions allowed at the first pass (Underutilized)
    allow: frozenset[str]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Score:
    """balanced.go ScoreMove's result (types.go ScoreResult): the move's savings and disruption
    as fractions of its NodePool's cost and disruption cost; approved when their ratio is at
    least 1/k."""

    savings_fraction: float
    disruption_fraction: float
    k: int = BALANCED_K

    def score(self) -> float:
        if self.savings_fraction <= 0:
            return 0.0
        if self.disruption_fraction == 0:
            return math.inf
        return self.savings_fraction / self.disruption_fraction

    def threshold(self) -> float:
        return 1.0 / self.k

    def approved(self) -> bool:
        return self.score() >= self.threshold()

    def message(self) -> str:
        """events.go consolidationScoreMessage, with < when the move is rejected."""
        op = ">=" if self.approved() else "<"
        return (
            f"score {self.score():.2f} {op} threshold {self.threshold():.2f} (k: {self.k}, "
            f"savings {self.savings_fraction * 100:.1f}%, disruption {self.disruption_fraction * 100:.1f}%)"
        )


def score_move(savings: float, disruption_cost: float, total_cost: float, total_disruption: float, k: int) -> Score:
    """balanced.go ScoreMove: zero totals give a zero score."""
    if total_cost <= 0 or total_disruption <= 0:
        return Score(0.0, 0.0, k)
    return Score(savings / total_cost, disruption_cost / total_disruption, k)


def _active(p: Pod) -> bool:
    return not p.terminal and not p.deleting


def do_not_disrupt_active(p: Pod, now: float) -> bool:
    """pod.IsDoNotDisruptActive: `karpenter.sh/do-not-disrupt: "true"`, or a positive Go duration
    the pod has not yet run for since its start (active when the start is unknown); any other
    value is as no annotation."""
    value = p.annotations.get(DO_NOT_DISRUPT_ANNOTATION)
    if value is None:
        return False
    if value == "true":
        return True
    if value.strip().isdigit():  # time.ParseDuration wants a unit
        return False
    try:
        duration = parse_duration(value)
    except ValueError:
        return False
    if duration <= 0:
        return False
    if not p.start_time:
        return True
    return now - p.start_time < duration


def _owned_by(p: Pod, kind: str) -> bool:
    return any(r.kind == kind for r in p.owner_references)


def reschedulable(p: Pod) -> bool:
    """pod.IsReschedulable: active (or a terminating StatefulSet pod), not a DaemonSet's, not static."""
    return (
        (_active(p) or (_owned_by(p, "StatefulSet") and p.deleting))
        and not _owned_by(p, "DaemonSet")
        and not _owned_by(p, "Node")
        and not p.is_mirror
    )


def eviction_cost(p: Pod) -> float:
    """disruptionutils.EvictionCost: 1, moved by the pod-deletion-cost annotation and priority."""
    cost = 1.0
    raw = p.annotations.get(DELETION_COST_ANNOTATION)
    if raw is not None:
        try:
            cost += float(raw) / 2**27
        except ValueError:
            pass
    cost += p.priority / 2**25
    return max(-10.0, min(10.0, cost))


def allowed_disruptions(pool: NodePool, nodes: int, reason: str) -> int:
    """NodePool.MustGetAllowedDisruptions: the smallest budget that applies to the reason."""
    allowed = (1 << 31) - 1
    for b in pool.budgets:
        if not b.reasons or reason in b.reasons:
            allowed = min(allowed, b.allowed(nodes))
    return allowed


class Disruption:
    def __init__(
        self,
        nodes: list[ModelNode],
        pools: Sequence[NodePool],
        catalog: Sequence[InstanceType],
        pdbs: Sequence[tuple[str, str, Selector, int]],  # (namespace, name, selector, disruptionsAllowed)
        daemonsets: Sequence[Pod],
        pending: Sequence[Pod],
        namespace_labels: Mapping[str, Mapping[str, str]],
        options: ProvisionOptions,
        well_known: frozenset[str],
        spot_to_spot: bool,
        fully_blocking: frozenset[tuple[str, str]] = frozenset(),  # PDBs (namespace, name) that never allow one
        now: float | None = None,
    ) -> None:
        self.now = time.time() if now is None else now
        self.nodes = nodes
        self.fully_blocking = fully_blocking
        self.pools = {p.name: p for p in pools}
        self.pool_list = list(pools)
        self.catalog = list(catalog)
        self.pdbs = pdbs
        self.daemonsets = daemonsets
        self.pending = list(pending)
        self.namespace_labels = namespace_labels
        self.options = options
        self.well_known = well_known
        self.allow = WELL_KNOWN_LABELS | well_known
        self.spot_to_spot = spot_to_spot
        self.stays: dict[str, str] = {}
        self.totals: dict[str, tuple[float, float]] = {}  # NodePool -> (cost, disruption cost)

    # -- candidates (types.go NewCandidate, statenode.go) ---------------------------------------

    def _blocked_by_pods(self, node: ModelNode) -> str | None:
        for p in sorted(node.pods, key=lambda p: (p.namespace, p.name)):
            if _active(p) and do_not_disrupt_active(p, self.now):
                return f'pod has "karpenter.sh/do-not-disrupt" annotation (Pod={p.namespace}/{p.name})'
        for p in sorted(node.pods, key=lambda p: (p.namespace, p.name)):
            if not _active(p) or p.is_mirror or _owned_by(p, "Node"):
                continue
            matching = [
                (ns, name, allowed)
                for ns, name, sel, allowed in self.pdbs
                if ns == p.namespace and sel.matches(p.labels)
            ]
            if len(matching) > 1:
                keys = " ".join(f"{ns}/{name}" for ns, name, _ in matching)
                return f"eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{keys}])"
            if matching and matching[0][2] <= 0:
                return f"pdb prevents pod evictions (PodDisruptionBudget=[{matching[0][0]}/{matching[0][1]}])"
        return None

    def candidate(self, node: ModelNode) -> Candidate | str:
        """NewCandidate: the candidate, or why the node cannot be one."""
        if not node.managed:
            return "node isn't managed by karpenter"
        if not node.initialized:
            return "node isn't initialized"
        if node.deleting:
            return "node is deleting or marked for deletion"
        if node.do_not_disrupt:
            return f'disruption is blocked through the "{DO_NOT_DISRUPT_ANNOTATION}" annotation'
        if NODEPOOL_LABEL not in node.labels:
            return f"node doesn't have required label (label={NODEPOOL_LABEL})"
        pool = self.pools.get(node.nodepool)
        if pool is None:
            return f"nodepool not found (NodePool={node.nodepool})"
        blocked = self._blocked_by_pods(node)
        if blocked is not None:
            return blocked
        resched = [p for p in node.pods if reschedulable(p)]
        price = 0.0
        it = node.instance_type
        if it is not None:
            for o in it.offerings:
                if o.zone == node.labels.get(ZONE_LABEL) and o.capacity_type == node.labels.get(CAPACITY_TYPE_LABEL):
                    price = o.price
                    break
        cost = PER_NODE_BASE_DISRUPTION_COST + sum(max(0.0, eviction_cost(p)) for p in resched)
        return Candidate(
            node, pool, price, node.labels.get(CAPACITY_TYPE_LABEL, ""), node.labels.get(ZONE_LABEL, ""), resched, cost
        )

    def _consolidation_filter(self, c: Candidate) -> str | None:
        """consolidation.ShouldDisrupt: None when single- and multi-node consolidation may take it."""
        if c.pool.static:
            return "static NodePool: not consolidated"
        if c.node.instance_type is None:
            return f'Instance Type "{c.node.labels.get(INSTANCE_TYPE_LABEL, "")}" not found'
        if CAPACITY_TYPE_LABEL not in c.node.labels:
            return f'Node does not have label "{CAPACITY_TYPE_LABEL}"'
        if ZONE_LABEL not in c.node.labels:
            return f'Node does not have label "{ZONE_LABEL}"'
        if c.pool.consolidate_after is None:
            return f'NodePool "{c.pool.name}" has consolidation disabled'
        if c.is_empty():
            return "empty: left to emptiness"
        if c.pool.consolidation_policy == CONSOLIDATION_WHEN_EMPTY:
            return f'NodePool "{c.pool.name}" has consolidation policy WhenEmpty, but node is not empty'
        return None

    def _budgets(self, reason: str) -> dict[str, int]:
        """BuildDisruptionBudgetMapping: per NodePool, the budget less the nodes already disrupting."""
        counts: dict[str, int] = {}
        disrupting: dict[str, int] = {}
        for n in self.nodes:
            if not n.managed or not n.initialized:
                continue
            counts[n.nodepool] = counts.get(n.nodepool, 0) + 1
            if n.deleting:
                disrupting[n.nodepool] = disrupting.get(n.nodepool, 0) + 1
        return {
            name: max(0, allowed_disruptions(p, counts.get(name, 0), reason) - disrupting.get(name, 0))
            for name, p in self.pools.items()
        }

    # -- Balanced (balanced.go) -----------------------------------------------------------------

    def _node_price(self, n: ModelNode) -> float:
        it = n.instance_type
        if it is None:
            return 0.0
        for o in it.offerings:
            if o.zone == n.labels.get(ZONE_LABEL) and o.capacity_type == n.labels.get(CAPACITY_TYPE_LABEL):
                return o.price
        return 0.0

    def _compute_totals(self, cands: Sequence[Candidate]) -> None:
        """computeNodePoolTotals: per NodePool of a candidate, its cost (ClusterCost: the prices of
        its nodes, else the candidates') and the disruption cost of all its nodes (a candidate's
        reschedule cost, else 1 and each non-DaemonSet pod's positive eviction cost)."""
        by_name = {c.name: c for c in cands}
        fallback: dict[str, float] = {}
        for c in cands:
            fallback[c.pool.name] = fallback.get(c.pool.name, 0.0) + c.price
        disruption: dict[str, float] = {}
        cost: dict[str, float] = {}
        for n in self.nodes:
            name = n.labels.get(NODEPOOL_LABEL)
            if name is None:
                continue
            cand = by_name.get(n.name)
            if cand is not None:
                d = cand.reschedule_cost
            else:
                d = PER_NODE_BASE_DISRUPTION_COST + sum(
                    e for p in n.pods if not _owned_by(p, "DaemonSet") for e in (eviction_cost(p),) if e > 0
                )
            disruption[name] = disruption.get(name, 0.0) + d
            if n.managed:
                cost[name] = cost.get(name, 0.0) + self._node_price(n)
        self.totals = {
            pool: (cost.get(pool, 0.0) if cost.get(pool, 0.0) > 0 else total, disruption.get(pool, 0.0))
            for pool, total in fallback.items()
        }

    def _savings(self, cmd: Command) -> float:
        """Command.EstimatedSavings: the candidates' prices, less the replacement's cheapest
        available compatible offering of its first instance type."""
        source = sum(c.price for c in cmd.candidates)
        claim = cmd.replacement
        if claim is None or not claim.instance_types:
            return source
        it = claim.instance_types[0]
        prices = [
            o.price for o in it.available_offerings() if claim.requirements.is_compatible(o.requirements, self.allow)
        ]
        return source - (min(prices) if prices else 0.0)

    def _can_pass(self, c: Candidate) -> Score | None:
        """balancedEvaluator.CanPassThreshold: the score of deleting the candidate when it cannot
        pass (no move on it can), else None."""
        if c.pool.consolidation_policy != CONSOLIDATION_BALANCED:
            return None
        total = self.totals.get(c.pool.name)
        if total is None or total[0] <= 0:
            return None
        s = score_move(c.price, c.reschedule_cost, total[0], total[1], BALANCED_K)
        return None if s.approved() else s

    def _approve(self, cmd: Command) -> tuple[bool, str]:
        """EvaluateBalancedMove: each Balanced NodePool of the move scores its share of the
        savings (in proportion to its candidates' prices) against its candidates' disruption."""
        if not cmd.candidates:
            return False, ""
        by_pool: dict[str, list[Candidate]] = {}
        for c in cmd.candidates:
            by_pool.setdefault(c.pool.name, []).append(c)
        savings = self._savings(cmd)
        source = sum(c.price for c in cmd.candidates)
        rejected = []
        for name, cands in sorted(by_pool.items()):
            if cands[0].pool.consolidation_policy != CONSOLIDATION_BALANCED:
                continue
            share = savings
            if source > 0 and len(by_pool) > 1:
                share = savings * (sum(c.price for c in cands) / source)
            total_cost, total_disruption = self.totals.get(name, (0.0, 0.0))
            s = score_move(share, sum(c.reschedule_cost for c in cands), total_cost, total_disruption, BALANCED_K)
            if not s.approved():
                rejected.append(
                    f'NodePool "{name}" has consolidation policy Balanced, and the move scores too low: {s.message()}'
                )
        return not rejected, "; ".join(rejected)

    # -- SimulateScheduling --------------------------------------------------------------------

    def _node_input(self, n: ModelNode) -> NodeInput:
        ds = [p for p in n.pods if _owned_by(p, "DaemonSet")]
        return NodeInput(
            name=n.name,
            labels=n.labels,
            taints=n.taints,
            allocatable=n.allocatable,
            requested=requests_for_pods(n.pods) if n.pods else {},
            daemon_requested=requests_for_pods(ds) if ds else {},
            host_ports=host_ports(n.pods),
            nodepool=n.nodepool,
            capacity=dict(n.instance_type.capacity) if n.instance_type is not None else None,
            initialized=n.initialized or not n.managed,
        )

    def _currently_reschedulable(self, p: Pod) -> bool:
        """pdb.Limits.IsCurrentlyReschedulable: reschedulable, not held by
        `karpenter.sh/do-not-disrupt`, and no fully blocking PDB (maxUnavailable 0 or 0%,
        minAvailable 100%) selects it."""
        if not reschedulable(p) or (_active(p) and do_not_disrupt_active(p, self.now)):
            return False
        return not any(
            (ns, name) in self.fully_blocking and ns == p.namespace and sel.matches(p.labels)
            for ns, name, sel, _ in self.pdbs
        )

    def simulate(self, candidates: Sequence[Candidate]) -> tuple[Results, dict[str, str], list[Pod]]:
        """SimulateScheduling: the candidates' reschedulable pods, the pods of the nodes already
        deleting (those they would reschedule now) and the pending pods over every other node;
        the errors of the pods that are bound now."""
        names = {c.name for c in candidates}
        others = [n for n in self.nodes if n.name not in names and not n.deleting]
        moving = [p for c in candidates for p in c.reschedulable if self._currently_reschedulable(p)]
        leaving = [
            p
            for n in self.nodes
            if n.deleting and n.name not in names
            for p in n.pods
            if self._currently_reschedulable(p)
        ]
        existing = [
            ExistingPod(
                p.namespace,
                p.labels,
                n.labels,
                n.name,
                n.taints,
                tuple(p.affinity.pod_anti_affinity.required) if p.affinity and p.affinity.pod_anti_affinity else (),
                p.uid or f"{p.namespace}/{p.name}",
            )
            for n in others
            for p in n.pods
        ]
        results = provision(
            self.pool_list,
            self.catalog,
            [*self.pending, *moving, *leaving],
            nodes=[self._node_input(n) for n in others],
            daemonsets=self.daemonsets,
            existing_pods=existing,
            namespace_labels=self.namespace_labels,
            options=self.options,
            well_known=self.well_known,
        )
        # helpers.go UninitializedNodeError: the NodeClaim (when known) and the node
        uninitialized = {
            n.name: ", ".join([*([f"nodeclaim/{n.claim}"] if n.claim else []), f"node/{n.name}"])
            for n in others
            if n.managed and not n.initialized
        }
        errors: dict[str, str] = {}
        moving_ids = {id(p) for p in moving}
        leaving_ids = {id(p) for p in leaving}
        for r in results.pods:
            if id(r.pod) not in moving_ids and id(r.pod) not in leaving_ids:
                continue
            key = f"{r.pod.namespace}/{r.pod.name}"
            if r.claim is None and not r.node:
                errors[key] = r.error
            elif r.node in uninitialized and id(r.pod) in moving_ids:
                # a deleting node's pod may count on an uninitialized node (helpers.go)
                errors[key] = f"would schedule against uninitialized {uninitialized[r.node]}"
        return results, errors, moving

    # -- computeConsolidation ------------------------------------------------------------------

    def _remove_by_price(self, claim: PlannedClaim, max_price: float) -> str | None:
        """RemoveInstanceTypeOptionsByPriceAndMinValues."""
        claim.instance_types = [
            it for it in claim.instance_types if it.worst_launch_price(claim.requirements, self.allow) < max_price
        ]
        _, _, err = satisfies_min_values(claim.instance_types, claim.requirements)
        return err

    def compute(self, candidates: Sequence[Candidate]) -> tuple[Command | None, str]:
        results, errors, moving = self.simulate(candidates)
        if errors:
            shown = list(errors.items())[:5]
            # Results.NonPendingPodSchedulingErrors, as pretty.Sentence capitalizes it for the event
            msg = "Not all pods would schedule, " + " ".join(f"{k} => {v}" for k, v in shown)
            if len(errors) > 5:
                msg += f"  and {len(errors) - 5} other(s)"
            return None, msg
        pods_to: dict[str, str] = {}
        moving_ids = {id(p) for p in moving}
        for r in results.pods:
            if id(r.pod) in moving_ids:
                pods_to[f"{r.pod.namespace}/{r.pod.name}"] = r.node if r.node else "the replacement NodeClaim"
        # every claim the simulation plans (pending pods' too), as Karpenter counts them
        new_claims = results.claims
        if not new_claims:
            return Command("", "", list(candidates), None, pods_to), ""
        if len(new_claims) != 1:
            return None, f"Can't remove without creating {len(new_claims)} candidates"
        claim = new_claims[0]
        price = sum(c.price for c in candidates)
        claim.instance_types = order_by_price(claim.instance_types, claim.requirements, self.allow)
        all_spot = all(c.capacity_type == CAPACITY_TYPE_SPOT for c in candidates)
        if all_spot and claim.requirements.get(CAPACITY_TYPE_LABEL).has(CAPACITY_TYPE_SPOT):
            return self._spot_to_spot(candidates, claim, price, pods_to)
        err = self._remove_by_price(claim, price)
        if err is not None:
            return None, f"Filtering by price: {err}"
        if not claim.instance_types:
            return None, "Can't replace with a cheaper node"
        ct = claim.requirements.get(CAPACITY_TYPE_LABEL)
        if ct.has(CAPACITY_TYPE_SPOT) and ct.has(CAPACITY_TYPE_ON_DEMAND):
            claim.requirements.add(Requirement.new(CAPACITY_TYPE_LABEL, "In", (CAPACITY_TYPE_SPOT,)))
        return Command("", "", list(candidates), claim, pods_to), ""

    def _spot_to_spot(
        self, candidates: Sequence[Candidate], claim: PlannedClaim, price: float, pods_to: dict[str, str]
    ) -> tuple[Command | None, str]:
        if not self.spot_to_spot:
            return None, "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"
        claim.requirements.add(Requirement.new(CAPACITY_TYPE_LABEL, "In", (CAPACITY_TYPE_SPOT,)))
        claim.instance_types = [
            it
            for it in claim.instance_types
            if any(o.available and claim.requirements.is_compatible(o.requirements, self.allow) for o in it.offerings)
        ]
        err = self._remove_by_price(claim, price)
        if err is not None:
            return None, f"Filtering by price: {err}"
        if not claim.instance_types:
            return None, "Can't replace with a cheaper node"
        if len(candidates) > 1:
            return Command("", "", list(candidates), claim, pods_to), ""
        if len(claim.instance_types) < MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT:
            return None, (
                f"SpotToSpotConsolidation requires {MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT} cheaper instance type options "
                f"than the current candidate to consolidate, got {len(claim.instance_types)}"
            )
        keep = MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT
        if claim.requirements.has_min_values():
            need, _, _ = satisfies_min_values(claim.instance_types, claim.requirements)
            keep = max(keep, need)
        claim.instance_types = claim.instance_types[:keep]
        return Command("", "", list(candidates), claim, pods_to), ""

    # -- the methods ---------------------------------------------------------------------------

    def _candidates(self) -> list[Candidate]:
        out: list[Candidate] = []
        for n in self.nodes:
            c = self.candidate(n)
            if isinstance(c, str):
                self.stays.setdefault(n.name, c)
            else:
                out.append(c)
        return out

    @staticmethod
    def _sort(cands: list[Candidate]) -> list[Candidate]:
        """sortCandidates: the best price per unit of disruption first (ties by name)."""
        return sorted(cands, key=lambda c: (-c.savings_ratio(), c.name))

    def emptiness(self, cands: list[Candidate]) -> Command | None:
        budgets = self._budgets(REASON_EMPTY)
        empty: list[Candidate] = []
        for c in self._sort(cands):
            if c.pool.static or c.pool.consolidate_after is None or not c.is_empty():
                continue
            if budgets.get(c.pool.name, 0) == 0:
                self.stays[c.name] = (
                    f"empty, but the disruption budget of NodePool {c.pool.name} allows no Empty disruption now"
                )
                continue
            empty.append(c)
            budgets[c.pool.name] -= 1
        if not empty:
            return None
        return Command(EMPTINESS, EMPTY, empty, None, {})

    def multi_node(self, cands: list[Candidate]) -> Command | None:
        budgets = self._budgets(REASON_UNDERUTILIZED)
        ok: list[Candidate] = []
        for c in self._sort(cands):
            if budgets.get(c.pool.name, 0) == 0:
                continue
            ok.append(c)
            budgets[c.pool.name] -= 1
        if len(ok) < 2:
            return None
        low, high = 1, min(len(ok), MAX_PARALLEL)
        if len(ok) <= high:
            high = len(ok) - 1
        best: Command | None = None
        while low <= high:
            mid = (low + high) // 2
            batch = ok[: mid + 1]
            cmd, _ = self.compute(batch)
            valid = cmd is not None and cmd.replacement is None
            if cmd is not None and cmd.replacement is not None:
                valid = self._filter_out_same_type(cmd.replacement, batch)
            if valid and cmd is not None:
                valid = self._approve(cmd)[0]  # Balanced pools may reject
            if valid and cmd is not None:
                best = cmd
                low = mid + 1
            else:
                high = mid - 1
        if best is None:
            return None
        best.method, best.reason = MULTI_NODE, UNDERUTILIZED
        return best

    def _filter_out_same_type(self, claim: PlannedClaim, batch: Sequence[Candidate]) -> bool:
        """filterOutSameInstanceType: a replacement of one of the removed types must be cheaper
        than the cheapest removed node of that type."""
        names = {c.node.instance_type.name for c in batch if c.node.instance_type is not None}
        prices: dict[str, float] = {}
        for c in batch:
            it = c.node.instance_type
            if it is None:
                continue
            reqs = Requirements.from_labels(c.node.labels)
            offers = [o.price for o in it.offerings if reqs.is_compatible(o.requirements, self.allow)]
            if offers:
                prices[it.name] = min(prices.get(it.name, math.inf), min(offers))
        max_price = math.inf
        for it in claim.instance_types:
            if it.name in names and prices.get(it.name, math.inf) < max_price:
                max_price = prices[it.name]
        err = self._remove_by_price(claim, max_price)
        return err is None and bool(claim.instance_types)

    def single_node(self, cands: list[Candidate]) -> Command | None:
        budgets = self._budgets(REASON_UNDERUTILIZED)
        by_pool: dict[str, list[Candidate]] = {}
        for c in self._sort(cands):
            by_pool.setdefault(c.pool.name, []).append(c)
        order: list[Candidate] = []
        for i in range(max((len(v) for v in by_pool.values()), default=0)):
            for name in sorted(by_pool):
                if i < len(by_pool[name]):
                    order.append(by_pool[name][i])
        for c in order:
            if budgets.get(c.pool.name, 0) == 0:
                self.stays[c.name] = (
                    f"the disruption budget of NodePool {c.pool.name} allows no Underutilized disruption now"
                )
                continue
            low = self._can_pass(c)
            if low is not None:
                self.stays[c.name] = (
                    f'NodePool "{c.pool.name}" has consolidation policy Balanced, and even deleting the node '
                    f"scores too low: {low.message()}"
                )
                continue
            cmd, why = self.compute([c])
            if cmd is None:
                self.stays[c.name] = why
                continue
            ok, why = self._approve(cmd)
            if not ok:
                self.stays[c.name] = why
                continue
            cmd.method, cmd.reason = SINGLE_NODE, UNDERUTILIZED
            return cmd
        return None

    def run(self, rounds: int = 50) -> list[Command]:
        """The controller's loop: the first method with a command runs it; then again, on the
        cluster as the command leaves it, until no method finds one."""
        commands: list[Command] = []
        for _ in range(rounds):
            self.stays = {}
            cands = self._candidates()
            self._compute_totals(cands)
            consolidatable = []
            for c in cands:
                why = self._consolidation_filter(c)
                if why is None:
                    consolidatable.append(c)
                elif not c.is_empty() or c.pool.consolidate_after is None:
                    self.stays.setdefault(c.name, why)
            cmd = self.emptiness(cands) or self.multi_node(consolidatable) or self.single_node(consolidatable)
            if cmd is None:
                break
            commands.append(cmd)
            self._apply(cmd)
        for done in commands:
            for cand in done.candidates:
                self.stays.pop(cand.name, None)
        return commands

    def _apply(self, cmd: Command) -> None:
        """The cluster once the command is done: the candidates gone, their pods where the
        simulation put them, the replacement a new (not yet initialized) node."""
        gone = {c.name for c in cmd.candidates}
        moved = {f"{p.namespace}/{p.name}": p for c in cmd.candidates for p in c.reschedulable}
        self.nodes = [n for n in self.nodes if n.name not in gone]
        by_name = {n.name: n for n in self.nodes}
        repl_node: ModelNode | None = None
        if cmd.replacement is not None:
            claim = cmd.replacement
            s = summarize(claim, self.allow)
            it = claim.instance_types[0]
            labels = {k: v for k, v in s.labels}
            labels.update({INSTANCE_TYPE_LABEL: it.name, ZONE_LABEL: s.zone, CAPACITY_TYPE_LABEL: s.capacity_type})
            labels.update({k: v for k, v in it.labels.items()})
            name = f"{claim.template.pool.name}-replacement-{len(self.nodes) + 1}"
            labels["kubernetes.io/hostname"] = name
            repl_node = ModelNode(
                name,
                labels,
                claim.taints,
                dict(it.allocatable),
                [],
                claim.template.pool.name,
                True,
                False,
                False,
                False,
                it,
            )
            self.nodes.append(repl_node)
        for key, where in cmd.pods_to.items():
            p = moved.get(key)
            if p is None:
                continue
            target = by_name.get(where) or repl_node
            if target is not None:
                target.pods.append(p)


def model_nodes(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    claims: Sequence[NodeClaim],
    catalog: Sequence[InstanceType],
    do_not_disrupt: set[str],
) -> list[ModelNode]:
    by_node: dict[str, list[Pod]] = {}
    for p in pods:
        by_node.setdefault(p.node_name, []).append(p)
    claim_of = {c.node_name: c for c in claims if c.node_name}
    types = {it.name: it for it in catalog}
    out = []
    for n in sorted(nodes, key=lambda n: n.name):
        claim = claim_of.get(n.name)
        pool = n.labels.get(NODEPOOL_LABEL, "") or (claim.nodepool if claim else "")
        # StateNode.Managed: the node has a NodeClaim. A state without any NodeClaim (often not
        # dumped) leaves the NodePool label to say it
        managed = claim is not None if claim_of else bool(pool)
        initialized = n.labels.get(NODE_INITIALIZED_LABEL) == "true" or (
            managed and NODE_INITIALIZED_LABEL not in n.labels
        )
        taints = n.taints
        out.append(
            ModelNode(
                n.name,
                dict(n.labels),
                taints,
                milli(n.allocatable_list),
                list(by_node.get(n.name, [])),
                pool,
                managed,
                initialized,
                bool(claim and claim.deleting),
                n.name in do_not_disrupt,
                types.get(n.labels.get(INSTANCE_TYPE_LABEL, "")),
                claim.name if claim else "",
            )
        )
    return out


def consolidate(
    *,
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    pending: Sequence[Pod],
    pdbs: Sequence[tuple[str, str, Selector, int]],
    pools: Sequence[NodePool],
    claims: Sequence[NodeClaim],
    catalog: Sequence[InstanceType],
    daemonsets: Sequence[Pod],
    do_not_disrupt: set[str],
    namespace_labels: Mapping[str, Mapping[str, str]],
    options: ProvisionOptions,
    well_known: frozenset[str],
    spot_to_spot: bool,
    fully_blocking: frozenset[tuple[str, str]] = frozenset(),
    now: float | None = None,
) -> Consolidation:
    """The disruption controller's consolidation commands on the cluster as it is now."""
    from kwhatif.autoscaler.karpenter.nodepools import order_by_weight

    model = model_nodes(nodes, pods, claims, catalog, do_not_disrupt)
    d = Disruption(
        model,
        order_by_weight(pools),
        catalog,
        pdbs,
        daemonsets,
        pending,
        namespace_labels,
        options,
        well_known,
        spot_to_spot,
        fully_blocking,
        now,
    )
    budgets = d._budgets(REASON_UNDERUTILIZED)
    commands = d.run()
    removed = {c.name for cmd in commands for c in cmd.candidates}
    stays = {n.name: d.stays.get(n.name, "no consolidation command removes it") for n in model if n.name not in removed}
    notes = [
        "consolidation as of now: every node's consolidateAfter is taken as elapsed, no node as nominated for a "
        "pending pod, and a budget with a schedule as in its window; drift is not modelled"
    ]
    return Consolidation(
        commands, {k: v for k, v in stays.items() if k in {n.name for n in nodes}}, budgets, d.allow, notes
    )
