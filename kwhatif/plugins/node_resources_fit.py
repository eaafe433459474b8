"""NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go): the resource filter
and the LeastAllocated / MostAllocated / RequestedToCapacityRatio scores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kwhatif.api.core import Pod
from kwhatif.api.resources import Resource, is_extended
from kwhatif.cache.node_info import NodeInfo
from kwhatif.errors import ConfigError
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
from kwhatif.framework.profile import default_args
from kwhatif.gocompat import go_div, go_round
from kwhatif.plugins.helper import build_broken_linear_function, check_args
from kwhatif.plugins.resource_allocation import (
    ResourceSpec,
    Scorer,
    parse_resource_specs,
    pod_request_list,
    resource_allocation_score,
)

NAME = "NodeResourcesFit"
PRE_FILTER_STATE_KEY: StateKey[Resource] = StateKey("PreFilter" + NAME)
PRE_SCORE_STATE_KEY: StateKey[list[int]] = StateKey("PreScore" + NAME)
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10
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
    req: Resource, node_info: NodeInfo, ignored: frozenset[str] = frozenset(), ignored_groups: frozenset[str] = frozenset()
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


@dataclass(frozen=True, slots=True)
class FitArgs:
    ignored_resources: frozenset[str]
    ignored_resource_groups: frozenset[str]
    strategy: str
    resources: tuple[ResourceSpec, ...]
    shape: tuple[tuple[int, int], ...]


def _str_list(a: Mapping[str, Any], key: str) -> list[str]:
    v = a.get(key) or []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError("must be a list of strings", field=key)
    return v


def parse_args(
    args: Mapping[str, Any] | None, shape_order_detail: str = "utilization values must be sorted in increasing order"
) -> FitArgs:
    if args is None:
        args = default_args()[NAME]
    a = check_args(NAME, args, {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"})
    ignored = _str_list(a, "ignoredResources")
    groups = _str_list(a, "ignoredResourceGroups")
    for i, g in enumerate(groups):
        if "/" in g:
            raise ConfigError(f'Invalid value: "{g}": resource group name can\'t contain \'/\'', field=f"ignoredResourceGroups[{i}]")
    ss = a.get("scoringStrategy")
    if ss is None:
        ss = default_args()[NAME]["scoringStrategy"]
    if not isinstance(ss, dict):
        raise ConfigError("must be an object", field="scoringStrategy")
    for k in ss:
        if k not in ("type", "resources", "requestedToCapacityRatio"):
            raise ConfigError(f'unknown field "{k}"', field="scoringStrategy")
    # SetDefaults fills in a whole scoringStrategy only when it is absent: one given without a
    # type keeps "" and fails validation, as upstream.
    strategy = ss.get("type", "")
    if strategy not in STRATEGIES:
        raise ConfigError(
            f'Unsupported value: "{strategy}": supported values: ' + ", ".join(f'"{s}"' for s in STRATEGIES),
            field="scoringStrategy.type",
        )
    resources = parse_resource_specs(ss.get("resources"), "scoringStrategy.resources")
    if not resources:
        resources = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    resources = tuple(ResourceSpec(r.name, r.weight or 1) for r in resources)
    for i, r in enumerate(resources):
        if r.weight <= 0 or r.weight > 100:
            raise ConfigError(
                f"Invalid value: {r.weight}: resource weight of {r.name} not in valid range (0, 100]",
                field=f"scoringStrategy.resources[{i}].weight",
            )
    shape: list[tuple[int, int]] = []
    rtcr = ss.get("requestedToCapacityRatio")
    if rtcr is not None:
        if not isinstance(rtcr, dict):
            raise ConfigError("must be an object", field="scoringStrategy.requestedToCapacityRatio")
        for k in rtcr:
            if k != "shape":
                raise ConfigError(f'unknown field "{k}"', field="scoringStrategy.requestedToCapacityRatio")
        raw_shape = rtcr.get("shape") or []
        if not isinstance(raw_shape, list):
            raise ConfigError("must be a list", field="scoringStrategy.shape")
        if not raw_shape:
            raise ConfigError("Required value: at least one point must be specified", field="scoringStrategy.shape")
        for i, pt in enumerate(raw_shape):
            if not isinstance(pt, dict) or any(k not in ("utilization", "score") for k in pt):
                raise ConfigError("must be an object with utilization and score", field=f"scoringStrategy.shape[{i}]")
            u, s = pt.get("utilization", 0), pt.get("score", 0)
            if not isinstance(u, int) or not isinstance(s, int):
                raise ConfigError("utilization and score must be integers", field=f"scoringStrategy.shape[{i}]")
            shape.append((u, s))
        for i in range(1, len(shape)):
            if shape[i - 1][0] >= shape[i][0]:
                raise ConfigError(
                    f"Invalid value: {shape[i][0]}: {shape_order_detail}",
                    field=f"scoringStrategy.shape[{i}].utilization",
                )
        for i, (u, s) in enumerate(shape):
            if not 0 <= u <= 100:
                raise ConfigError(f"Invalid value: {u}: not in valid range [0, 100]", field=f"scoringStrategy.shape[{i}].utilization")
            if not 0 <= s <= MAX_CUSTOM_PRIORITY_SCORE:
                raise ConfigError(f"Invalid value: {s}: not in valid range [0, 10]", field=f"scoringStrategy.shape[{i}].score")
    elif strategy == REQUESTED_TO_CAPACITY_RATIO:
        # Upstream validation lets this through and kube-scheduler then dies on a nil pointer.
        raise ConfigError(
            "Required value: scoringStrategy.requestedToCapacityRatio with a shape is needed for the "
            "RequestedToCapacityRatio strategy (kube-scheduler would crash on this configuration)",
            field="scoringStrategy.requestedToCapacityRatio",
        )
    return FitArgs(frozenset(ignored), frozenset(groups), strategy, resources, tuple(shape))


class NodeResourcesFit(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, args: FitArgs, unresolvable_above_allocatable: bool = False) -> None:
        self.args = args
        # 1.34+ (#131345): a request above the node's allocatable is UnschedulableAndUnresolvable.
        self.unresolvable_above_allocatable = unresolvable_above_allocatable
        self.resources = args.resources
        if args.strategy == LEAST_ALLOCATED:
            self.scorer = weighted_scorer(args.resources, least_requested_score)
        elif args.strategy == MOST_ALLOCATED:
            self.scorer = weighted_scorer(args.resources, most_requested_score)
        else:
            self.scorer = requested_to_capacity_ratio_scorer(args.resources, list(args.shape))

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        state.write(PRE_FILTER_STATE_KEY, pod.requests)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            req = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as e:
            # getPreFilterState (fit.go)
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {e}')
        lacking = fits_request(req, node_info, self.args.ignored_resources, self.args.ignored_resource_groups)
        if lacking:
            code = Code.UNSCHEDULABLE
            if self.unresolvable_above_allocatable and any(r.unresolvable for r in lacking):
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            return Status(code, tuple(r.reason for r in lacking))
        return SUCCESS

    def insufficient_resources(self, pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
        return fits_request(pod.requests, node_info, self.args.ignored_resources, self.args.ignored_resource_groups)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        state.write(PRE_SCORE_STATE_KEY, pod_request_list(pod, self.resources, False))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            reqs = pod_request_list(pod, self.resources, False)
        return resource_allocation_score(node_info, self.resources, reqs, False, self.scorer), SUCCESS


def new(args: Mapping[str, Any] | None, handle: Any) -> NodeResourcesFit:
    behaviour = handle.version.behaviour
    return NodeResourcesFit(
        parse_args(args, behaviour.shape_order_detail), behaviour.fit_unresolvable_above_allocatable
    )
