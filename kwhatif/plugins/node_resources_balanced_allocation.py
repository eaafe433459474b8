"""NodeResourcesBalancedAllocation (noderesources/balanced_allocation.go): favour nodes whose
resource fractions stay close to each other after placing the pod (actual requests, no
non-zero defaults)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import NodeResourcesBalancedAllocationArgs, ResourceSpec
from kwhatif.framework.interface import (
    MAX_NODE_SCORE,
    SKIP,
    SUCCESS,
    CycleState,
    PreScorePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.info import Incremental, Normalize, PluginInfo
from kwhatif.plugins.resource_allocation import (
    allocatable_and_requested,
    pod_request_list,
    resource_allocation_score,
)

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeResourcesBalancedAllocation"
PRE_SCORE_STATE_KEY: StateKey[list[int]] = StateKey("PreScore" + NAME)


def balanced_resource_scorer(requested: list[int], allocatable: list[int]) -> int:
    fractions: list[float] = []
    total = 0.0
    for i in range(len(requested)):
        if allocatable[i] == 0:
            continue
        fraction = float(requested[i]) / float(allocatable[i])
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / float(len(fractions))
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))


class NodeResourcesBalancedAllocation(PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(
        self, resources: tuple[ResourceSpec, ...], skip_best_effort: bool = False, with_and_without: bool = False
    ) -> None:
        self.resources = resources
        # 1.36+ (#135573): score the change of balance the pod brings, 50 + (50 + with - without) / 2.
        self.with_and_without = with_and_without
        # 1.33+ (#130260): a pod requesting none of the resources is not scored (PreScore Skip),
        # so best-effort pods do not pile onto one node.
        self.skip_best_effort = skip_best_effort

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        reqs = pod_request_list(pod, self.resources, True)
        if self.skip_best_effort and not any(reqs):
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, reqs)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            reqs = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            reqs = pod_request_list(pod, self.resources, True)
            if self.skip_best_effort and not any(reqs):
                return 0, SUCCESS
        if self.with_and_without:
            return self._change_of_balance(node_info, reqs), SUCCESS
        return resource_allocation_score(node_info, self.resources, reqs, True, balanced_resource_scorer), SUCCESS

    def _change_of_balance(self, node_info: NodeInfo, reqs: list[int]) -> int:
        allocatable: list[int] = []
        with_pod: list[int] = []
        without_pod: list[int] = []
        for i, r in enumerate(self.resources):
            alloc, req = allocatable_and_requested(node_info, r.name, reqs[i], True)
            if alloc == 0:
                alloc = req = 0
            allocatable.append(alloc)
            with_pod.append(req)
            without_pod.append(req - reqs[i] if alloc else 0)
        with_score = balanced_resource_scorer(with_pod, allocatable)
        without_score = balanced_resource_scorer(without_pod, allocatable)
        return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_score - without_score) // 2


def new(args: NodeResourcesBalancedAllocationArgs, handle: Handle) -> NodeResourcesBalancedAllocation:
    b = handle.version.behaviour
    return NodeResourcesBalancedAllocation(
        args.resources, b.balanced_allocation_skips_best_effort, b.balanced_allocation_with_and_without_pod
    )


INFO = PluginInfo(NAME, column="Balanced", incremental=Incremental(node_score=Normalize.NONE))
