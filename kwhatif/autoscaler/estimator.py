"""The BinpackingNodeEstimator (estimator/binpacking_estimator.go, decreasing_pod_orderer.go,
threshold_based_limiter.go and its thresholds, cluster-autoscaler-release-1.36): how many nodes of
a group the pods need, first-fit decreasing.

Each equivalence group, largest first, tries the new nodes added so far, then the last added
node, then a new copy of the template, until the limiter refuses another node: at most 1,000 new
nodes per scale-up (--max-nodes-per-scaleup), the group's and its similar groups' room, and what
--max-nodes-total leaves. A pod that does not fit an empty new node stops the group: a node more
would not help it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.core import Pod
from kwhatif.autoscaler.simulator import ERR_REASON_CONSTRAINTS_NOT_MATCH, Simulator
from kwhatif.autoscaler.template import Template, instantiate

MAX_NODES_PER_SCALE_UP = 1000  # --max-nodes-per-scaleup's default


@dataclass(frozen=True, slots=True)
class EstimationContext:
    """estimator.EstimationContext: --max-nodes-total, the similar groups' room, the node count."""

    max_nodes_total: int
    similar_room: int | None  # the group's and its similar groups' room (max - target, each at least
    # 0); None: no such threshold (upstream's tests run the estimator without a context)
    current_node_count: int
    max_nodes_per_scale_up: int = MAX_NODES_PER_SCALE_UP


def _min_limit(base: int, target: int) -> int:
    """getMinLimit: -1 (no node at all) wins, then the smallest positive limit; 0 is no limit."""
    if base < 0 or target < 0:
        return -1
    if (base == 0 or base > target) and target > 0:
        return target
    return base


def node_limit(ctx: EstimationContext) -> int:
    """The thresholds of the default limiter: static (--max-nodes-per-scaleup), the similar node
    groups' capacity (sng_capacity_threshold.go), the cluster's (cluster_capacity_threshold.go)."""
    limit = _min_limit(0, ctx.max_nodes_per_scale_up)
    if ctx.similar_room is not None:
        limit = _min_limit(limit, ctx.similar_room if ctx.similar_room > 0 else -1)
    if ctx.max_nodes_total:
        cluster = -1 if ctx.max_nodes_total <= ctx.current_node_count else ctx.max_nodes_total - ctx.current_node_count
        limit = _min_limit(limit, cluster)
    return limit


class Limiter:
    """thresholdBasedEstimationLimiter (no duration limit)."""

    def __init__(self, max_nodes: int) -> None:
        self.max_nodes = max_nodes
        self.nodes = 0
        self.refused = False

    def permission_to_add_node(self) -> bool:
        if self.max_nodes < 0 or (self.max_nodes > 0 and self.nodes >= self.max_nodes):
            self.refused = True
            return False
        self.nodes += 1
        return True


def pod_score(pod: Pod, template: Template) -> Fraction:
    """DecreasingPodOrderer's score: cpu over the template's allocatable cpu plus memory over its
    allocatable memory (exact fractions, so equal pods tie exactly)."""
    alloc = template.node.allocatable
    score = Fraction(0)
    if alloc.milli_cpu > 0:
        score += Fraction(pod.requests.milli_cpu, alloc.milli_cpu)
    if alloc.memory > 0:
        score += Fraction(pod.requests.memory, alloc.memory)
    return score


def order(groups: list[list[Pod]], template: Template) -> list[list[Pod]]:
    """DecreasingPodOrderer.Order: by score, largest first (a stable sort: equal scores keep their
    order, where upstream's sort.Slice leaves it open)."""
    return sorted(groups, key=lambda g: -pod_score(g[0], template))


@dataclass(slots=True)
class Estimate:
    """The nodes the group needs and the pods they take (pod key -> new node name, in order)."""

    node_count: int
    pods: dict[str, str] = field(default_factory=dict)
    scheduled: list[Pod] = field(default_factory=list)
    limited: bool = False  # the limiter refused a node that a pod needed
    node_names: list[str] = field(default_factory=list)


def _uses_hostname_topology(pod: Pod) -> bool:
    return any(c.topology_key == "kubernetes.io/hostname" for c in pod.topology_spread_constraints)


def estimate(
    sim: Simulator, groups: list[list[Pod]], template: Template, ctx: EstimationContext, prefix: str
) -> Estimate:
    """BinpackingNodeEstimator.Estimate on a fork of the snapshot: every node it adds is removed
    again before it returns. New nodes are named ``<prefix>-<i>``."""
    limiter = Limiter(node_limit(ctx))
    new_nodes: list[str] = []
    with_pods: set[str] = set()
    last = ""
    last_match = -1
    out = Estimate(0)

    def track(pod: Pod, node: str) -> None:
        sim.place(pod, node)
        with_pods.add(node)
        out.pods[pod.key] = node
        out.scheduled.append(pod)

    try:
        more_nodes = True
        for pods in order(groups, template):
            # tryToScheduleOnExistingNodes: the new nodes so far, from after the last match
            remaining: list[Pod] = []
            for i, pod in enumerate(pods):
                k = sim.fits_any(pod, new_nodes, last_match + 1)
                if k < 0:
                    remaining = pods[i:]
                    break
                last_match = k
                track(pod, new_nodes[k])
            if not more_nodes:
                continue
            # tryToScheduleOnNewNodes
            for pod in remaining:
                found = False
                if last:
                    fail = sim.check(pod, last)
                    if fail is None:
                        found = True
                        track(pod, last)
                    elif _uses_hostname_topology(pod) and ERR_REASON_CONSTRAINTS_NOT_MATCH in fail.reasons:
                        # any node but the last: an existing one too (its pods then count it
                        # among the nodes "with pods", as upstream's trackScheduledPod does)
                        others = [ni.name for ni in sim.snapshot.node_infos if ni.name != last]
                        k = sim.fits_any(pod, others, 0)
                        if k >= 0:
                            found = True
                            track(pod, others[k])
                if found:
                    continue
                if last and last not in with_pods:
                    break  # an empty new node did not take it: another one would not either
                if not limiter.permission_to_add_node():
                    out.limited = True
                    more_nodes = False
                    break
                name = f"{prefix}-{len(new_nodes)}"
                node, node_pods = instantiate(template, name)
                sim.add_node(node, node_pods)
                new_nodes.append(name)
                last = name
                if sim.check(pod, last) is not None:
                    break
                track(pod, last)
        out.node_count = len(with_pods)
        out.node_names = [n for n in new_nodes if n in with_pods]
        return out
    finally:
        for pod in reversed(out.scheduled):
            sim.snapshot.forget(pod)
        for name in reversed(new_nodes):
            sim.remove_node(name)
