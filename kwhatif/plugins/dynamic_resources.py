"""DynamicResources (pkg/scheduler/framework/plugins/dynamicresources), for pods without claims.

From 1.34 (DynamicResourceAllocation on) the plugin is in the default profile, just before
DefaultPreemption, and it shows in every answer: its PreFilter skips a pod that has no
ResourceClaims, its PostFilter then rejects with "no new claims to deallocate" (which the FitError
message carries before DefaultPreemption's "preemption: ..."), and from 1.35 it is also a Score
plugin (weight 2) that scores 0. When a PreFilter plugin ahead of it rejects the pod, its PreFilter
never runs, so its PostFilter cannot read its state and fails with "not found". With the gate off
(1.30 … 1.33) a profile may still enable it: it skips PreFilter and its PostFilter says
"plugin disabled".

Claims are allocated by a ClaimAllocator (kwhatif/dra/): when one is attached, the pod's claims
come from it and it answers each extension point. Without one, every pod counts as having no claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import (
    MAX_NODE_SCORE,
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kwhatif.plugins.helper import default_normalize_score

NAME = "DynamicResources"
STATE_KEY = NAME  # stateKey = Name
ERR_NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate"
ERR_PLUGIN_DISABLED = "plugin disabled"
ERR_STATE_NOT_FOUND = "not found"  # framework.ErrNotFound, when PreFilter did not run


class ClaimAllocator(Protocol):
    """What kwhatif/dra/ provides to answer for pods with ResourceClaims."""

    def claims_of(self, pod: Pod) -> tuple[Any, ...]: ...

    def pre_filter(self, state: CycleState, pod: Pod, claims: tuple[Any, ...]) -> Status: ...

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...

    def post_filter(self, state: CycleState, pod: Pod) -> Status: ...

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int: ...

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...


@dataclass(slots=True)
class _State:
    """What PreFilter leaves in CycleState (stateData): the pod's claims, none here."""

    claims: tuple[Any, ...] = field(default=())

    def clone(self) -> "_State":
        return self


class DynamicResources(PreFilterPlugin, FilterPlugin, PostFilterPlugin, ReservePlugin, PreBindPlugin):
    NAME = NAME

    def __init__(self, enabled: bool, allocator: ClaimAllocator | None = None) -> None:
        self.enabled = enabled  # the DynamicResourceAllocation feature gate
        self.allocator = allocator

    def _claims(self, pod: Pod) -> tuple[Any, ...]:
        return self.allocator.claims_of(pod) if self.allocator is not None else ()

    @staticmethod
    def _state(state: CycleState) -> _State | None:
        s = state.get(STATE_KEY)
        return s if isinstance(s, _State) else None

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled:
            return None, SKIP
        claims = self._claims(pod)
        state.write(STATE_KEY, _State(claims))
        if not claims:
            return None, SKIP
        assert self.allocator is not None
        return None, self.allocator.pre_filter(state, pod, claims)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = self._state(state)
        if not self.enabled or s is None or not s.claims or self.allocator is None:
            return SUCCESS
        return self.allocator.filter(state, pod, node_info)

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        if not self.enabled:
            return None, Status.of(Code.UNSCHEDULABLE, ERR_PLUGIN_DISABLED)
        s = self._state(state)
        if s is None:
            return None, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims or self.allocator is None:
            return None, Status.of(Code.UNSCHEDULABLE, ERR_NO_CLAIMS_TO_DEALLOCATE)
        return None, self.allocator.post_filter(state, pod)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = self._state(state)
        if not self.enabled or s is None or not s.claims or self.allocator is None:
            return SUCCESS
        return self.allocator.reserve(state, pod, node_name)

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = self._state(state)
        if self.enabled and s is not None and s.claims and self.allocator is not None:
            self.allocator.unreserve(state, pod, node_name)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = self._state(state)
        if not self.enabled or s is None or not s.claims or self.allocator is None:
            return SUCCESS
        return self.allocator.pre_bind(state, pod, node_name)


class ScoringDynamicResources(DynamicResources, ScorePlugin):
    """1.35+: also a Score plugin (prioritized-list subrequests); a pod without claims scores 0."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        if not self.enabled:
            return 0, SUCCESS
        s = self._state(state)
        if s is None:
            return 0, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims or self.allocator is None:
            return 0, SUCCESS
        return self.allocator.score(state, pod, node_info), SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        if self.enabled:
            default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS


def new(args: Any, handle: Any) -> DynamicResources:
    version = handle.version
    enabled = version.gate("DynamicResourceAllocation")
    if version.behaviour.dynamic_resources_score_weight is not None:
        return ScoringDynamicResources(enabled)
    return DynamicResources(enabled)
