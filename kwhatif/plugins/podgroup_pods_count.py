"""PodGroupPodsCount (pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count.go,
v1.36.2): a placement score plugin favouring the placement that holds more of the group's pods.
A placement scores the group's scheduled pods (bound or assumed) plus the members the placement
placed; NormalizePlacementScore scales every score by the largest (score * 100 // max, integer
division), and is an error when the largest is 0. In the default profile with weight 1 while
TopologyAwareWorkloadScheduling is on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kwhatif.cache.pod_groups import PodGroupStates
from kwhatif.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, SUCCESS, Code, PlacementScorePlugin, Status
from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "PodGroupPodsCount"
ERR_NO_PODS_ASSIGNED = "no pods from pod group are assigned to any of the candidate placements"


def score(scheduled_pods_count: int, proposed: int) -> int:
    """ScorePlacement: the group's scheduled pods plus the placement's proposed assignments."""
    return scheduled_pods_count + proposed


def normalize(scores: list[int]) -> Status:
    """NormalizePlacementScore, in place."""
    top = max([0, *scores])
    if top == 0:
        return Status(Code.ERROR, (ERR_NO_PODS_ASSIGNED,))
    for i, s in enumerate(scores):
        scores[i] = MIN_NODE_SCORE + s * (MAX_NODE_SCORE - MIN_NODE_SCORE) // top
    return SUCCESS


class PodGroupPodsCount(PlacementScorePlugin):
    NAME = NAME

    def __init__(self, states: PodGroupStates) -> None:
        self.states = states

    def score_placement(self, namespace: str, group: str, proposed: Mapping[str, str]) -> tuple[int, Status]:
        state = self.states.get(namespace, group)
        scheduled = state.scheduled_pods_count() if state is not None else 0
        return score(scheduled, len(proposed)), SUCCESS

    def normalize_placement_scores(self, scores: list[int]) -> Status:
        return normalize(scores)


def new(args: None, handle: Handle) -> PodGroupPodsCount:
    return PodGroupPodsCount(handle.cluster.pod_group_states)


INFO = PluginInfo(NAME)
