"""release/gate_plugins.py: a gate is named as a cause of a pod's difference only when what
differs (plugin and extension point) can come from that gate."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.config.defaults import default_configuration
from kwhatif.release import gate_plugins as gp
from kwhatif.release.gate_plugins import FRAMEWORK, PREEMPTION_PLUGIN, Point, explains
from kwhatif.release.versions import MODELLED_GATES, ChosenVersion, VersionSource, get
from kwhatif.whatif.diff import ABSENT, CauseIndex, PodValues, Side, compare_points

F, S, P, C, A = Point.FILTER, Point.SCORE, Point.POST_FILTER, Point.CYCLE, Point.ADMISSION


def test_every_modelled_gate_has_its_effects() -> None:
    assert set(gp.GATE_EFFECTS) == set(MODELLED_GATES)
    assert all(effects for effects in gp.GATE_EFFECTS.values())


@pytest.mark.parametrize(
    ("gate", "evidence", "named"),
    [
        # score-only gates: VolumeBinding's Score
        pytest.param("StorageCapacityScoring", {("VolumeBinding", S)}, True, id="scoring-gate-score"),
        pytest.param("StorageCapacityScoring", {("VolumeBinding", F)}, False, id="scoring-gate-filter"),
        pytest.param("StorageCapacityScoring", {(FRAMEWORK, C)}, False, id="scoring-gate-message"),
        pytest.param("StorageCapacityScoring", {(PREEMPTION_PLUGIN, P)}, False, id="scoring-gate-preemption"),
        # filter-only gates
        pytest.param("NodeDeclaredFeatures", {("NodeDeclaredFeatures", F)}, True, id="ndf-filter"),
        pytest.param("NodeDeclaredFeatures", {("NodeDeclaredFeatures", S)}, False, id="ndf-score"),
        pytest.param("VolumeLimitScaling", {("NodeVolumeLimits", S)}, False, id="vls-score"),
        # DRAExtendedResource: NodeResourcesFit's Filter only, not its Score
        pytest.param("DRAExtendedResource", {("NodeResourcesFit", S)}, False, id="dra-er-fit-score"),
        pytest.param("DRAExtendedResource", {("NodeResourcesFit", F)}, True, id="dra-er-fit-filter"),
        pytest.param("DRAExtendedResource", {("DynamicResources", S)}, True, id="dra-er-dra-score"),
        # a Filter effect explains a preemption or a FitError text with the same first failures:
        # the preemption dry run runs the filters again
        pytest.param("NodeDeclaredFeatures", {(PREEMPTION_PLUGIN, P)}, True, id="filter-gate-preemption"),
        pytest.param("NodeDeclaredFeatures", {(FRAMEWORK, C)}, True, id="filter-gate-message"),
        pytest.param("PodDisruptionConditions", {(FRAMEWORK, C)}, True, id="postfilter-gate-message"),
        pytest.param("PodDisruptionConditions", {("NodeResourcesFit", F)}, False, id="postfilter-gate-filter"),
        # a gate of another plugin
        pytest.param("TaintTolerationComparisonOperators", {("NodeResourcesFit", F)}, False, id="other-plugin"),
        # Gt/Lt tolerations also decide which nodes PodTopologySpread's nodeTaintsPolicy: Honor counts
        pytest.param("TaintTolerationComparisonOperators", {("PodTopologySpread", F)}, True, id="tt-spread"),
        # admission: the pod refused on one side
        pytest.param("ContainerRestartRules", {("api", A)}, True, id="restart-rules-refused"),
        pytest.param("ContainerRestartRules", {("NodeResourcesFit", S)}, False, id="restart-rules-score"),
        pytest.param("NotAGate", {("NodeResourcesFit", F)}, False, id="unknown-gate"),
        # 1.37+: workload-aware preemption follows GenericWorkload
        pytest.param("GenericWorkload", {(PREEMPTION_PLUGIN, P)}, True, id="generic-workload-preemption"),
        pytest.param("GenericWorkload", {("GangScheduling", F)}, True, id="generic-workload-pre-enqueue"),
        pytest.param("GenericWorkload", {("NodeResourcesBalancedAllocation", S)}, False, id="generic-workload-score"),
    ],
)
def test_a_gate_explains_only_what_its_plugins_points_produce(
    gate: str, evidence: set[tuple[str, Point]], named: bool
) -> None:
    assert explains(gate, evidence) is named


def _values(**kw: object) -> PodValues:
    base = PodValues(
        status="Scheduled",
        node="a",
        tie=(),
        message=None,
        filters={"a": None, "b": ("NodeResourcesFit", "Unschedulable", ("Insufficient cpu",))},
        feasible=("a",),
        totals={},
        scores={},
        nominated_node=None,
        victims=(),
    )
    return dataclasses.replace(base, **kw)  # type: ignore[arg-type]


def test_compare_points_names_the_extension_point_of_each_difference() -> None:
    _, ev = compare_points(_values(), _values(filters={"a": None, "b": ("TaintToleration", "Unschedulable", ())}))
    assert ev == {("NodeResourcesFit", F), ("TaintToleration", F)}
    _, ev = compare_points(_values(message="m1"), _values(message="m2"))
    assert ev == {(FRAMEWORK, C)}
    _, ev = compare_points(_values(), _values(nominated_node="a", victims=("ns/v",)))
    assert ev == {(PREEMPTION_PLUGIN, P)}
    _, ev = compare_points(_values(), ABSENT)
    assert ("api", A) in ev


def _side(version: str, gates: str = "") -> Side:
    v = get(version, gates)
    return Side(ChosenVersion(v, VersionSource.FLAG), default_configuration(v))


def test_causes_name_only_the_gates_that_can_produce_the_difference() -> None:
    idx = CauseIndex.of(_side("1.36.2"), _side("1.36.2", "DRAExtendedResource=false,StorageCapacityScoring=true"))
    assert sorted(c.text for c in idx.gates) == ["DRAExtendedResource", "StorageCapacityScoring"]
    assert idx.for_evidence({("NodeResourcesFit", S)}) == ()
    assert [c.text for c in idx.for_evidence({("NodeResourcesFit", F)})] == ["DRAExtendedResource"]
    assert [c.text for c in idx.for_evidence({("VolumeBinding", S)})] == ["StorageCapacityScoring"]
    assert idx.for_evidence({("VolumeBinding", F)}) == ()
