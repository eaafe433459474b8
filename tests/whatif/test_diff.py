"""whatif/diff.py: the fork both sides run on, the aspects compared, the causes offered."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.release.versions import ChosenVersion, VersionSource, get
from kwhatif.report.diff_aspects import Aspect, FailOn
from kwhatif.whatif.diff import ABSENT, CauseIndex, PodValues, Side, compare, diff_pods, fork
from tests.builders import make_node, make_pod


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


def test_fork_leaves_the_original_untouched() -> None:
    from kwhatif.cache.pod_groups import PodGroupState

    state = ClusterState()
    state.nodes = {"n1": make_node().name("n1").obj()}
    state.pending_pods = [make_pod().name("p").obj()]
    mine = fork(state)
    mine.pending_pods = []
    mine.nodes["n2"] = make_node().name("n2").obj()
    mine.pod_group_states.groups["ns/g"] = PodGroupState()  # the run's tracker, changed in place
    mine.names({"metadata": {"generateName": "web-"}})  # generateName's counter, too
    assert [p.name for p in state.pending_pods] == ["p"]
    assert list(state.nodes) == ["n1"]
    assert "ns/g" not in state.pod_group_states.groups
    for name in ("resource_claims", "pvcs", "pvs", "namespaces", "priority_classes", "pod_groups"):
        assert getattr(mine, name) is not getattr(state, name)
    first: dict[str, object] = {"metadata": {"generateName": "web-"}}
    fork(state).names(first)
    again: dict[str, object] = {"metadata": {"generateName": "web-"}}
    fork(state).names(again)
    assert first == again  # each fork names from the original's counter, which neither advanced


@pytest.mark.parametrize(
    ("after", "changed"),
    [
        pytest.param({}, (), id="same"),
        pytest.param({"node": "b"}, (Aspect.NODE,), id="node"),
        pytest.param(
            {"status": "Unschedulable", "node": None, "message": "0/2 nodes are available: ..."},
            (Aspect.STATUS, Aspect.NODE, Aspect.MESSAGE),
            id="status",
        ),
        pytest.param(
            {"filters": {"a": None, "b": ("NodeResourcesFit", "UnschedulableAndUnresolvable", ("Insufficient cpu",))}},
            (Aspect.FILTERS,),
            id="filter-code",
        ),
        pytest.param({"feasible": ("a", "b")}, (Aspect.SCORES,), id="feasible-set"),
        pytest.param({"totals": {"a": 10}}, (Aspect.SCORES,), id="a-total"),
        pytest.param({"nominated_node": "b", "victims": ("ns/v",)}, (Aspect.PREEMPTION,), id="preemption"),
    ],
)
def test_changed_lists_exactly_the_aspects_that_differ(after: dict[str, object], changed: tuple[Aspect, ...]) -> None:
    got, _ = compare(_values(), _values(**after))
    assert got == changed


def test_the_plugins_behind_a_difference() -> None:
    a = _values()
    b = _values(filters={"a": None, "b": ("TaintToleration", "UnschedulableAndUnresolvable", ("x",))})
    assert compare(a, b)[1] == ("NodeResourcesFit", "TaintToleration")
    # only the message differs: scheduleOne's FitError text
    assert compare(_values(message="m1"), _values(message="m2"))[1] == ("framework",)
    assert compare(_values(), _values(nominated_node="a"))[1] == ("DefaultPreemption",)


def _side(version: str, gates: str = "") -> Side:
    v = get(version, gates)
    return Side(ChosenVersion(v, VersionSource.FLAG), default_configuration(v))


def test_causes_are_the_changes_of_the_plugins_that_differ_and_their_gates() -> None:
    causes = CauseIndex.of(_side("1.35.7"), _side("1.36.2"))
    found = causes.for_plugins(["NodeResourcesBalancedAllocation"])
    releases = [(c.release, c.prs, c.side) for c in found if c.kind == "release"]
    assert releases == [("1.36.0", (135573,), "to")]
    # a downgrade names the change as in force on the first side only
    back = CauseIndex.of(_side("1.36.2"), _side("1.35.7")).for_plugins(["NodeResourcesBalancedAllocation"])
    assert [(c.release, c.side) for c in back if c.kind == "release"] == [("1.36.0", "from")]
    # a gate set on one side is a cause of its plugins' differences only
    gated = CauseIndex.of(_side("1.36.2"), _side("1.36.2", "TaintTolerationComparisonOperators=true"))
    assert [c.text for c in gated.for_plugins(["TaintToleration"])] == ["TaintTolerationComparisonOperators"]
    assert gated.for_plugins(["NodeResourcesFit"]) == ()


def test_an_earlier_pod_that_moved_is_named_among_a_later_pods_causes() -> None:
    before = {"ns/a": _values(node="a"), "ns/b": _values(message=None)}
    after = {"ns/a": _values(node="b"), "ns/b": _values(totals={"a": 1})}
    pods = diff_pods(before, after, CauseIndex((), (), ()))
    assert [p.changed for p in pods] == [(Aspect.NODE,), (Aspect.SCORES,)]
    assert [c.to_dict() for c in pods[1].causes] == [{"earlierPod": "ns/a", "from": "a", "to": "b"}]


def test_a_pod_on_one_side_only_differs_in_status() -> None:
    changed, _ = compare(_values(), ABSENT)
    assert Aspect.STATUS in changed


@pytest.mark.parametrize(
    ("fail_on", "aspects", "fails"),
    [
        (FailOn.STATUS, (Aspect.NODE, Aspect.SCORES), False),
        (FailOn.STATUS, (Aspect.STATUS,), True),
        (FailOn.NODE, (Aspect.NODE,), True),
        (FailOn.NODE, (Aspect.MESSAGE,), False),
        (FailOn.ANY, (Aspect.SCORES,), True),
        (FailOn.ANY, (), False),
    ],
)
def test_fail_on(fail_on: FailOn, aspects: tuple[Aspect, ...], fails: bool) -> None:
    assert fail_on.fails(aspects) is fails
