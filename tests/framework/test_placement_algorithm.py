"""podGroupSchedulingPlacementAlgorithm and RunPlacementScorePlugins with fake plugins: the cases
of upstream's TestPodGroupSchedulingPlacementAlgorithm and TestPodGroupSchedulingPlacementAlgorithm_Scoring
(schedule_one_podgroup_test.go) that 1.36.2's algorithm shares (not those of 1.37's
PlacementFeasible), transcribed. One pod "foo" of PodGroup "pg" (basic: no Permit plugin, so the
group is schedulable as soon as it fits), two nodes, and a plugin that filters, generates the
placements {placement1: node1, placement2: node2} and scores them."""

from __future__ import annotations

import dataclasses
from collections import ChainMap
from collections.abc import Mapping
from typing import Any

import pytest

from kwhatif.api.workload import PodGroup, SchedulingPolicy
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_args
from kwhatif.config.types import PLUGIN_SET_FIELDS, PluginRef, PluginSet, Profile, SchedulerConfiguration
from kwhatif.framework.interface import (
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    Placement,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Status,
)
from kwhatif.framework.types import PodOutcome
from kwhatif.plugins.registry import in_tree
from kwhatif.release.versions import get
from kwhatif.scheduling.scheduler import Scheduler

from builders import make_node, make_pod

V136 = get("1.36.2").with_feature_gates("GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
GATES = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
TWO = {"placement1": ("node1",), "placement2": ("node2",)}


class Fake(FilterPlugin, PlacementGeneratePlugin, PlacementScorePlugin):
    """fakePlacementPlugin: Filter, PlacementGenerate and PlacementScore from tables."""

    def __init__(
        self,
        name: str,
        filters: Mapping[str, Status] | None = None,
        placements: Mapping[str, tuple[str, ...]] | None = None,
        generate: Status = SUCCESS,
        scores: Mapping[str, int] | None = None,
        score_status: Mapping[str, Status] | None = None,
    ) -> None:
        self.NAME = name
        self.filters = filters or {}
        self.placements = placements or {}
        self.generate = generate
        self.scores = scores or {}
        self.score_status = score_status or {}
        self.current = ""

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status:
        return self.filters.get(node_info.name, SUCCESS)

    def generate_placements(self, namespace: str, group: str, parent: Placement) -> tuple[list[Placement], Status]:
        # upstream's test wraps the generator to order the placements by name
        return [Placement(n, self.placements[n]) for n in sorted(self.placements)], self.generate

    def score_placement(self, namespace: str, group: str, proposed: Mapping[str, str]) -> tuple[int, Status]:
        name = next(n for n, nodes in self.placements.items() if set(proposed.values()) <= set(nodes))
        return self.scores.get(name, 0), self.score_status.get(name, SUCCESS)


def _schedule(plugins: list[tuple[Fake, int]]) -> tuple[Any, Scheduler]:
    """Schedule pod "foo" of PodGroup "pg" with ``plugins`` (the first also filters and generates)
    and their PlacementScore weights."""
    first = plugins[0][0]
    own = {pl.NAME: (lambda args, h, pl=pl: pl) for pl, _ in plugins}
    sets = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    sets["queueSort"] = PluginSet((PluginRef("PrioritySort"),))
    sets["bind"] = PluginSet((PluginRef("DefaultBinder"),))
    sets["filter"] = PluginSet((PluginRef(first.NAME),))
    sets["placementGenerate"] = PluginSet((PluginRef(first.NAME),))
    sets["placementScore"] = PluginSet(tuple(PluginRef(pl.NAME, w) for pl, w in plugins))
    cfg = SchedulerConfiguration(
        (Profile("default-scheduler", sets, default_args(V136)),), percentage_of_nodes_to_score=100, version=V136
    )
    state = ClusterState(version=V136)
    state.nodes = {n: make_node().name(n).obj() for n in ("node1", "node2")}
    state.pod_groups = {"default/pg": PodGroup("default", "pg", "scheduling.k8s.io/v1alpha2", SchedulingPolicy(False))}
    sched = Scheduler(state, cfg, registry=ChainMap(own, in_tree()), feature_gates=GATES)
    foo = dataclasses.replace(make_pod().name("foo").obj(), pod_group="pg")
    (att,) = sched.run([foo], rounds=1)
    return att, sched


def _condition(sched: Scheduler) -> str:
    return sched.gang.conditions["default/pg"].message


@pytest.mark.parametrize(
    ("scores", "node"),
    [({"placement1": 2, "placement2": 1}, "node1"), ({"placement1": 1, "placement2": 2}, "node2")],
    ids=["respects higher score of placement1", "respects higher score of placement2"],
)
def test_respects_higher_score(scores: dict[str, int], node: str) -> None:
    att, _ = _schedule([(Fake("FakePlacementPlugin", placements=TWO, scores=scores), 1)])
    assert (att.result, att.node) == (PodOutcome.SCHEDULED, node)


def test_when_no_placements_are_generated_returns_unschedulable() -> None:
    att, sched = _schedule([(Fake("FakePlacementPlugin"), 1)])
    assert (att.result, att.message) == (PodOutcome.UNSCHEDULABLE, "no feasible placements found")
    assert _condition(sched) == "no feasible placements found"


def test_when_all_placements_are_infeasible_returns_unschedulable() -> None:
    no = Status.of(Code.UNSCHEDULABLE)
    fake = Fake("FakePlacementPlugin", {"node1": no, "node2": no}, TWO, scores={"placement1": 1, "placement2": 2})
    att, sched = _schedule([(fake, 1)])
    assert att.result is PodOutcome.UNSCHEDULABLE
    assert att.message.startswith("0/1 nodes are available")
    assert _condition(sched) == "0/2 placements are available, first placement status: pod group is unschedulable"


def test_filters_out_infeasible_placements() -> None:
    fake = Fake("FakePlacementPlugin", {"node2": Status.of(Code.UNSCHEDULABLE)}, TWO, scores={"placement1": 1})
    att, _ = _schedule([(fake, 1)])
    assert (att.result, att.node) == (PodOutcome.SCHEDULED, "node1")


def test_when_generate_plugin_fails_returns_error() -> None:
    att, sched = _schedule([(Fake("FakePlacementPlugin", generate=Status.error("error for test")), 1)])
    assert (att.result, att.message) == (PodOutcome.ERROR, "error for test")
    assert sched.gang.conditions["default/pg"].reason == "SchedulerError"


def test_when_score_plugin_fails_returns_error() -> None:
    fake = Fake(
        "FakePlacementPlugin",
        placements=TWO,
        scores={"placement1": 1},
        score_status={"placement2": Status.error("error for test")},
    )
    att, _ = _schedule([(fake, 1)])
    assert (att.result, att.message) == (
        PodOutcome.ERROR,
        'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: error for test',
    )


# TestPodGroupSchedulingPlacementAlgorithm_Scoring: two plugins with weights
@pytest.mark.parametrize(
    ("first", "second", "node"),
    [
        ({"placement1": 50, "placement2": 75}, {"placement1": 25, "placement2": 10}, "node1"),
        ({"placement1": 75, "placement2": 50}, {"placement1": 10, "placement2": 25}, "node2"),
    ],
    ids=["respects higher score of placement1", "respects higher score of placement2"],
)
def test_scoring_weights(first: dict[str, int], second: dict[str, int], node: str) -> None:
    a = Fake("FakePlacementPlugin", placements=TWO, scores=first)
    b = Fake("FakePlacementPlugin2", placements=TWO, scores=second)
    att, _ = _schedule([(a, 1), (b, 2)])
    assert att.node == node
