"""NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go): the resource filter
and the LeastAllocated / MostAllocated / RequestedToCapacityRatio scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kwhatif.api.core import Pod
from kwhatif.api.quantity import format_bytes, format_milli_cpu
from kwhatif.api.resources import Resource, is_extended
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
)
from kwhatif.config.validation import MAX_CUSTOM_PRIORITY_SCORE, validate_node_resources_fit_args
from kwhatif.framework.interface import (
    MAX_NODE_SCORE,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.gocompat import go_div, go_round
from kwhatif.plugins.helper import build_broken_linear_function
from kwhatif.plugins.info import HintInput, Hints, Incremental, Normalize, PluginInfo, names
from kwhatif.plugins.resource_allocation import (
    Scorer,
    pod_request_list,
    resource_allocation_score,
)

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeResourcesFit"
PRE_FILTER_STATE_KEY: StateKey[Resource] = StateKey("PreFilter" + NAME)
PRE_SCORE_STATE_KEY: StateKey[list[int]] = StateKey("PreScore" + NAME)
MAX_UTILIZATION = 100
ERR_REASON_TOO_MANY_PODS = "Too many pods"


def insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    resource: str
    reason: str
    requested: int
    used: int
    capacity: int

    @property
    def unresolvable(self) -> bool:
        """The request alone exceeds the node's allocatable: no preemption can help (the pod count
        never is)."""
        return self.resource != "pods" and self.requested > self.capacity


def fits_request(
    req: Resource,
    node_info: NodeInfo,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """fitsRequest: pods first, then cpu, memory, ephemeral-storage, then scalar resources
    (upstream walks a Go map; kwhatif sorts them by name)."""
    out: list[InsufficientResource] = []
    alloc = node_info.allocatable
    used = node_info.requested
    n = len(node_info.pods)
    if n + 1 > alloc.allowed_pod_number:
        out.append(InsufficientResource("pods", ERR_REASON_TOO_MANY_PODS, 1, n, alloc.allowed_pod_number))
    if req.milli_cpu == 0 and req.memory == 0 and req.ephemeral_storage == 0 and not req.scalar:
        return out
    if req.milli_cpu > 0 and req.milli_cpu > alloc.milli_cpu - used.milli_cpu:
        out.append(InsufficientResource("cpu", insufficient("cpu"), req.milli_cpu, used.milli_cpu, alloc.milli_cpu))
    if req.memory > 0 and req.memory > alloc.memory - used.memory:
        out.append(InsufficientResource("memory", insufficient("memory"), req.memory, used.memory, alloc.memory))
    if req.ephemeral_storage > 0 and req.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage:
        out.append(
            InsufficientResource(
                "ephemeral-storage",
                insufficient("ephemeral-storage"),
                req.ephemeral_storage,
                used.ephemeral_storage,
                alloc.ephemeral_storage,
            )
        )
    for name in sorted(req.scalar):
        amount = req.scalar[name]
        if amount == 0:
            continue
        if is_extended(name):
            prefix = name.split("/", 1)[0] if ignored_groups else ""
            if name in ignored or prefix in ignored_groups:
                continue
        cap = alloc.scalar.get(name, 0)
        have = used.scalar.get(name, 0)
        if amount > cap - have:
            out.append(InsufficientResource(name, insufficient(name), amount, have, cap))
    return out


def least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)


def most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return go_div(requested * MAX_NODE_SCORE, capacity)


def weighted_scorer(resources: tuple[ResourceSpec, ...], per_resource: Any) -> Scorer:
    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i in range(len(requested)):
            if allocatable[i] == 0:
                continue
            w = resources[i].weight
            node_score += per_resource(requested[i], allocatable[i]) * w
            weight_sum += w
        if weight_sum == 0:
            return 0
        return go_div(node_score, weight_sum)

    return scorer


def requested_to_capacity_ratio_scorer(resources: tuple[ResourceSpec, ...], shape: list[tuple[int, int]]) -> Scorer:
    points = [(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    raw_fn = build_broken_linear_function(points)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return int(raw_fn(MAX_UTILIZATION))
        return int(raw_fn(go_div(requested * MAX_UTILIZATION, capacity)))

    def scorer(requested: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i in range(len(requested)):
            if allocatable[i] == 0:
                continue
            w = resources[i].weight
            s = resource_score(requested[i], allocatable[i])
            if s > 0:
                node_score += s * w
                weight_sum += w
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer


class NodeResourcesFit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, args: NodeResourcesFitArgs, unresolvable_above_allocatable: bool = False) -> None:
        self.args = args
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        # 1.34+ (#131345): a request above the node's allocatable is UnschedulableAndUnresolvable.
        self.unresolvable_above_allocatable = unresolvable_above_allocatable
        strategy = args.scoring_strategy
        self.resources = strategy.resources
        if strategy.type == LEAST_ALLOCATED:
            self.scorer = weighted_scorer(strategy.resources, least_requested_score)
        elif strategy.type == MOST_ALLOCATED:
            self.scorer = weighted_scorer(strategy.resources, most_requested_score)
        else:
            rtcr = strategy.requested_to_capacity_ratio
            shape = [(p.utilization, p.score) for p in rtcr.shape] if rtcr is not None else []
            self.scorer = requested_to_capacity_ratio_scorer(strategy.resources, shape)

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        state.write(PRE_FILTER_STATE_KEY, pod.requests)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            req = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as e:
            # getPreFilterState (fit.go)
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {e}')
        lacking = fits_request(req, node_info, self.ignored_resources, self.ignored_resource_groups)
        if lacking:
            code = Code.UNSCHEDULABLE
            if self.unresolvable_above_allocatable and any(r.unresolvable for r in lacking):
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            return Status(code, tuple(r.reason for r in lacking))
        return SUCCESS

    def insufficient_resources(self, pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
        return fits_request(pod.requests, node_info, self.ignored_resources, self.ignored_resource_groups)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        state.write(PRE_SCORE_STATE_KEY, pod_request_list(pod, self.resources, False))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            reqs = pod_request_list(pod, self.resources, False)
        return resource_allocation_score(node_info, self.resources, reqs, False, self.scorer), SUCCESS


def new(args: NodeResourcesFitArgs, handle: Handle) -> NodeResourcesFit:
    # NewFit validates its args itself: the configuration's validation does not (validation.py).
    behaviour = handle.version.behaviour
    validate_node_resources_fit_args(args, behaviour.shape_order_detail)
    return NodeResourcesFit(args, behaviour.fit_unresolvable_above_allocatable)


def _amount(resource: str, n: int) -> str:
    if resource == "cpu":
        return f"{format_milli_cpu(n)} cpu"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return f"{format_bytes(n)} {resource}"
    return f"{n} {resource}"


def _hints(given: HintInput) -> list[str]:
    """The node closest to fitting and the amounts it is short of; the nodes at their pod limit;
    the nodes too small for the pod."""
    pod, snapshot, nodes = given.pod, given.snapshot, given.nodes
    fit = given.fw.plugins.get(NAME)
    lacking_fn = getattr(fit, "insufficient_resources", None)
    if lacking_fn is None:
        return []
    best: tuple[float, str, list[str]] | None = None
    full: list[str] = []
    too_small: dict[tuple[str, ...], list[str]] = {}
    for name in nodes:
        ni = snapshot.get(name)
        if ni is None:
            continue
        lacking = lacking_fn(pod, ni)
        if not lacking:
            continue
        if any(r.resource == "pods" for r in lacking):
            full.append(name)
            continue
        never = tuple(sorted(r.resource for r in lacking if r.requested > r.capacity))
        if never:
            too_small.setdefault(never, []).append(name)  # would not fit even if it were empty
            continue
        if any(r.used > r.capacity for r in lacking):
            continue  # over-committed already: lowering this pod's requests would not help
        parts = []
        score = 0.0
        for r in lacking:
            short = r.requested - (r.capacity - r.used)
            score += short / r.capacity if r.capacity else float("inf")
            parts.append(_amount(r.resource, short))
        if best is None or (score, name) < (best[0], best[1]):
            best = (score, name, parts)
    out = []
    if best is not None:
        _, name, parts = best
        out.append(
            f"closest fit: {name} is short of {' and '.join(parts)}; lower the pod's requests by that much, "
            f"or free it on {name} ({len(nodes)} node(s) fail only on resources)"
        )
    if full:
        out.append(f"{len(full)} node(s) ({names(full)}) are at their pod limit (status.allocatable.pods)")
    if best is None:
        for resources, group in sorted(too_small.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            out.append(
                f"{len(group)} node(s) ({names(group)}) have less {' and '.join(resources)} in all "
                "than the pod requests"
            )
    return out


INFO = PluginInfo(
    NAME,
    column="Fit",
    sarif_help="Lower the pods' requests, or add nodes (or free capacity on them): the message names the resources that are short.",
    hints=Hints(0, nodes=_hints),
    incremental=Incremental(node_filter=True, node_score=Normalize.NONE),
)
