"""The framework runtime and scheduleOne with small test plugins: extension point order, Skip,
PreFilterResult narrowing, every filter recorded, failures after the host is chosen and Unreserve,
scores and weights, and sequences where later pods see earlier ones."""

from __future__ import annotations

from collections import ChainMap
from typing import Any

import pytest

from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.snapshot import Snapshot
from kwhatif.config.defaults import default_args
from kwhatif.config.types import PLUGIN_SET_FIELDS, PluginRef, PluginSet, Profile, SchedulerConfiguration
from kwhatif.errors import ConfigError
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PermitPlugin,
    PreBindPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.framework.runtime import Framework
from kwhatif.plugins.registry import in_tree
from kwhatif.scheduling.scheduler import Scheduler

from builders import PINNED, make_node, make_pod

CALLS: list[str] = []


class Reject(FilterPlugin):
    """Rejects the nodes named in its args with its own reason."""

    def __init__(self, name: str, nodes: set[str], code: Code = Code.UNSCHEDULABLE) -> None:
        self.NAME = name
        self.nodes = nodes
        self.code = code

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status:
        CALLS.append(f"{self.NAME}.filter({node_info.name})")
        if node_info.name in self.nodes:
            return Status.of(self.code, f"{self.NAME} rejects {node_info.name}")
        return SUCCESS


class Narrow(PreFilterPlugin, FilterPlugin):
    """PreFilter returns a node subset (or Skip, or a status)."""

    def __init__(self, name: str, nodes: set[str] | None = None, status: Status = SUCCESS) -> None:
        self.NAME = name
        self.nodes = nodes
        self.status = status

    def pre_filter(self, state: CycleState, pod: Any) -> tuple[PreFilterResult | None, Status]:
        CALLS.append(f"{self.NAME}.preFilter")
        return (PreFilterResult(frozenset(self.nodes)) if self.nodes is not None else None), self.status

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status:
        CALLS.append(f"{self.NAME}.filter({node_info.name})")
        return SUCCESS


class Scorer(ScorePlugin):
    def __init__(self, name: str, scores: dict[str, int], normalize: bool = False) -> None:
        self.NAME = name
        self.scores = scores
        self.normalize = normalize

    def score(self, state: CycleState, pod: Any, node_info: Any) -> tuple[int, Status]:
        return self.scores.get(node_info.name, 0), SUCCESS

    def normalize_score(self, state: CycleState, pod: Any, scores: list[NodeScore]) -> Status | None:
        if not self.normalize:
            return None
        top = max(s.score for s in scores) or 1
        for s in scores:
            s.score = s.score * 100 // top
        return SUCCESS


class Lifecycle(ReservePlugin, PermitPlugin, PreBindPlugin):
    def __init__(self, name: str, fail_at: str = "") -> None:
        self.NAME = name
        self.fail_at = fail_at

    def reserve(self, state: CycleState, pod: Any, node_name: str) -> Status:
        CALLS.append(f"{self.NAME}.reserve({node_name})")
        return Status.of(Code.UNSCHEDULABLE, f"{self.NAME} cannot reserve") if self.fail_at == "reserve" else SUCCESS

    def unreserve(self, state: CycleState, pod: Any, node_name: str) -> None:
        CALLS.append(f"{self.NAME}.unreserve({node_name})")

    def permit(self, state: CycleState, pod: Any, node_name: str) -> tuple[Status, float]:
        CALLS.append(f"{self.NAME}.permit")
        return (Status.of(Code.UNSCHEDULABLE, f"{self.NAME} denies") if self.fail_at == "permit" else SUCCESS), 0.0

    def pre_bind(self, state: CycleState, pod: Any, node_name: str) -> Status:
        CALLS.append(f"{self.NAME}.preBind")
        return Status.error(f"{self.NAME} volume not ready") if self.fail_at == "preBind" else SUCCESS


def scheduler(plugins: dict[str, Any], points: dict[str, list[Any]], nodes=("n1", "n2", "n3"), pods=()) -> Scheduler:
    """A Scheduler whose profile is exactly ``points`` (plus PrioritySort and DefaultBinder)."""
    CALLS.clear()
    # The test's plugins, then the in-tree ones (PrioritySort, DefaultBinder).
    own = {name: (lambda args, h, pl=pl: pl) for name, pl in plugins.items()}
    reg = ChainMap(own, in_tree())
    sets = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    for point, refs in points.items():
        sets[point] = PluginSet(tuple(r if isinstance(r, PluginRef) else PluginRef(r) for r in refs))
    sets["queueSort"] = PluginSet((PluginRef("PrioritySort"),))
    sets["bind"] = PluginSet((PluginRef("DefaultBinder"),))
    cfg = SchedulerConfiguration(
        (Profile("default-scheduler", sets, default_args(PINNED)),), percentage_of_nodes_to_score=100, version=PINNED
    )
    state = ClusterState(version=PINNED)
    state.nodes = {n: make_node().name(n).capacity(cpu="4", memory="8Gi", pods="110").obj() for n in nodes}
    state.pods = [p.obj() for p in pods]
    return Scheduler(state, cfg, registry=reg)


def test_every_filter_is_recorded_and_the_first_failure_marked():
    s = scheduler(
        {"A": Reject("A", {"n1"}), "B": Reject("B", {"n1", "n2"}, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)},
        {"filter": ["A", "B"]},
    )
    att = s.schedule_one(make_pod().name("p").obj())
    n1 = att.fit.filters["n1"]
    assert [(st.plugin, st.code.label) for st in n1.statuses] == [
        ("A", "Unschedulable"),
        ("B", "UnschedulableAndUnresolvable"),
    ]
    assert n1.first is not None and n1.first.plugin == "A"
    assert att.fit.filters["n2"].first is not None and att.fit.filters["n2"].first.plugin == "B"
    assert att.node == "n3"
    # the FitError histogram counts only the first failure per node (here none: n3 fits)
    att2 = scheduler(
        {"A": Reject("A", {"n1", "n2", "n3"}), "B": Reject("B", {"n1"})}, {"filter": ["A", "B"]}
    ).schedule_one(make_pod().name("p").obj())
    assert att2.message == "0/3 nodes are available: 1 A rejects n1, 1 A rejects n2, 1 A rejects n3."


def test_filter_order_follows_the_profile():
    s = scheduler({"A": Reject("A", set()), "B": Reject("B", set())}, {"filter": ["B", "A"]}, nodes=("n1",))
    s.schedule_one(make_pod().name("p").obj())
    assert CALLS == ["B.filter(n1)", "A.filter(n1)"]


def test_pre_filter_skip_skips_the_filter():
    s = scheduler({"N": Narrow("N", status=SKIP)}, {"preFilter": ["N"], "filter": ["N"]}, nodes=("n1",))
    att = s.schedule_one(make_pod().name("p").obj())
    assert CALLS == ["N.preFilter"]
    assert [(st.plugin, st.code.label) for st in att.fit.filters["n1"].statuses] == [("N", "Skip")]
    assert att.fit is not None and att.fit.pre_filter.skipped == frozenset({"N"})
    assert att.node == "n1"


def test_pre_filter_result_narrows_and_intersects():
    s = scheduler(
        {"A": Narrow("A", {"n1", "n2"}), "B": Narrow("B", {"n2", "n3"}), "R": Reject("R", {"n2"})},
        {"preFilter": ["A", "B"], "filter": ["A", "B", "R"]},
    )
    att = s.schedule_one(make_pod().name("p").obj())
    assert att.fit.excluded == frozenset({"n1", "n3"})
    # only n2 was a candidate, and R rejects it: the excluded nodes are not in the histogram
    assert att.result == "Unschedulable"
    assert att.message == "0/3 nodes are available: 1 R rejects n2."


def test_disjoint_pre_filter_results():
    s = scheduler({"A": Narrow("A", {"n1"}), "B": Narrow("B", {"n2"})}, {"preFilter": ["A", "B"], "filter": ["A"]})
    att = s.schedule_one(make_pod().name("p").obj())
    assert att.fit.at_pre_filter
    assert att.message == "0/3 nodes are available: node(s) didn't satisfy plugin(s) [A B] simultaneously."
    s = scheduler({"A": Narrow("A", set())}, {"preFilter": ["A"], "filter": ["A"]})
    assert (
        s.schedule_one(make_pod().name("p").obj()).message
        == "0/3 nodes are available: node(s) didn't satisfy plugin A."
    )


def test_pre_filter_unschedulable_continues_unresolvable_stops():
    plugins = {
        "U": Narrow("U", status=Status.of(Code.UNSCHEDULABLE, "u says no")),
        "X": Narrow("X", status=Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "x says no")),
        "Z": Narrow("Z"),
    }
    s = scheduler(plugins, {"preFilter": ["U", "Z"], "filter": ["Z"]})
    att = s.schedule_one(make_pod().name("p").obj())
    assert CALLS == ["U.preFilter", "Z.preFilter"]
    assert att.message == "0/3 nodes are available: u says no."
    s = scheduler(plugins, {"preFilter": ["X", "Z"], "filter": ["Z"]})
    att = s.schedule_one(make_pod().name("p").obj())
    assert CALLS == ["X.preFilter"]
    assert att.fit is not None and att.fit.pre_filter.status.plugin == "X"


@pytest.mark.parametrize(
    "fail_at,result,message,calls",
    [
        pytest.param(
            "reserve",
            "Unschedulable",
            "0/1 nodes are available: 1 L cannot reserve.",
            # Reserve stops at the first failure; Unreserve then runs on every plugin, in reverse
            ["L.reserve(n1)", "M.unreserve(n1)", "L.unreserve(n1)"],
            id="reserve",
        ),
        pytest.param(
            "permit",
            "Unschedulable",
            "0/1 nodes are available: 1 L denies.",
            ["L.reserve(n1)", "M.reserve(n1)", "L.permit", "M.unreserve(n1)", "L.unreserve(n1)"],
            id="permit",
        ),
        pytest.param(
            "preBind",
            "Error",
            'running PreBind plugin "L": L volume not ready',
            [
                "L.reserve(n1)",
                "M.reserve(n1)",
                "L.permit",
                "M.permit",
                "L.preBind",
                "M.unreserve(n1)",
                "L.unreserve(n1)",
            ],
            id="prebind",
        ),
    ],
)
def test_failures_after_selecting_a_host_unreserve_and_forget(fail_at, result, message, calls):
    s = scheduler(
        {"L": Lifecycle("L", fail_at), "M": Lifecycle("M")},
        {"reserve": ["L", "M"], "permit": ["L", "M"], "preBind": ["L", "M"]},
        nodes=("n1",),
    )
    att = s.schedule_one(make_pod().name("p").obj())
    assert (att.result, att.message, att.node) == (result, message, None)
    assert CALLS == calls
    assert att.binding is None
    assert s.snapshot.get("n1").pods == []  # the assumed pod was forgotten


def test_success_records_the_binding():
    s = scheduler({"L": Lifecycle("L")}, {"reserve": ["L"], "permit": ["L"], "preBind": ["L"]}, nodes=("n1",))
    att = s.schedule_one(make_pod().name("p").uid("u-1").obj())
    assert att.result == "Scheduled"
    assert att.binding is not None
    assert att.binding.to_manifest() == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"namespace": "default", "name": "p", "uid": "u-1"},
        "target": {"kind": "Node", "name": "n1"},
    }
    assert [pi.pod.name for pi in s.snapshot.get("n1").pods] == ["p"]


def test_scores_normalize_weight_and_tie():
    plugins = {
        "S1": Scorer("S1", {"n1": 5, "n2": 10, "n3": 10}, normalize=True),
        "S2": Scorer("S2", {"n1": 100, "n2": 0, "n3": 0}),
    }
    s = scheduler(plugins, {"score": [PluginRef("S1", 3), PluginRef("S2", 1)]})
    att = s.schedule_one(make_pod().name("p").obj())
    n1 = att.prioritized.scores["n1"]
    assert [(p.plugin, p.raw, p.normalized, p.weight, p.weighted) for p in n1.scores] == [
        ("S1", 5, 50, 3, 150),
        ("S2", 100, 100, 1, 100),
    ]
    assert {n: ns.total for n, ns in att.prioritized.scores.items()} == {"n1": 250, "n2": 300, "n3": 300}
    assert att.prioritized.best == ["n2", "n3"] and att.node == "n2"


def test_invalid_normalized_score_is_an_error():
    s = scheduler({"S": Scorer("S", {"n1": 101})}, {"score": ["S"]}, nodes=("n1", "n2"))
    att = s.schedule_one(make_pod().name("p").obj())
    assert att.result == "Error"
    assert "returns an invalid score 101" in att.message


def test_later_pods_see_earlier_placements():
    s = scheduler({}, {"preFilter": ["NodeResourcesFit"], "filter": ["NodeResourcesFit"]}, nodes=("n1",))
    pods = [make_pod().name(f"p{i}").req(cpu="3").obj() for i in range(2)]
    first, second = s.run(pods, rounds=1)
    assert first.result == "Scheduled" and first.node == "n1"
    assert second.result == "Unschedulable"
    assert second.message == "0/1 nodes are available: 1 Insufficient cpu."


def test_queue_order_priority_then_time():
    s = scheduler({}, {})
    pods = [
        make_pod().name("late-high").priority(10).created("2024-01-01T00:00:05Z").obj(),
        make_pod().name("early-low").priority(0).created("2024-01-01T00:00:01Z").obj(),
        make_pod().name("early-high").priority(10).created("2024-01-01T00:00:01Z").obj(),
        make_pod().name("same-time").priority(0).created("2024-01-01T00:00:01Z").obj(),
    ]
    assert [p.name for p in s.queue_order(pods)] == ["early-high", "late-high", "early-low", "same-time"]


def test_unknown_scheduler_name_is_an_input_error():
    from kwhatif.errors import InputError

    s = scheduler({}, {})
    with pytest.raises(InputError, match='no profile for schedulerName "other"'):
        s.run([make_pod().name("p").scheduler_name("other").obj()])


class AddPodFails(PreFilterPlugin, PreFilterExtensions, FilterPlugin):
    """A PreFilter plugin whose AddPod fails: a nominated pod cannot be added to its state."""

    NAME = "AddPodFails"

    def pre_filter(self, state: CycleState, pod: Any) -> tuple[PreFilterResult | None, Status]:
        return None, SUCCESS

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: Any, to_add: Any, node_info: Any) -> Status:
        return Status.error(f"no state to add {to_add.pod.name} to")

    def remove_pod(self, state: CycleState, pod: Any, to_remove: Any, node_info: Any) -> Status:
        return SUCCESS

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status:
        return SUCCESS


def test_add_pod_error_with_nominated_pods_ends_the_cycle_with_an_error():
    """RunFilterPluginsWithNominatedPods returns addNominatedPods' error as the node's status;
    findNodesThatPassFilters stops on it and schedulePod fails the pod's cycle with that error.
    The run goes on with the next pod."""
    s = scheduler({"AddPodFails": AddPodFails()}, {"preFilter": ["AddPodFails"], "filter": ["AddPodFails"]})
    s.nominator.add(make_pod().name("nominated").priority(10).obj(), "n2")
    low, high = make_pod().name("low").obj(), make_pod().name("high").priority(20).obj()
    atts = {a.pod.name: a for a in s.run([low, high], rounds=1)}
    att_low, att_high = atts["low"], atts["high"]
    assert (att_low.pod.name, att_low.result, att_low.node) == ("low", "Error", None)
    assert att_low.message == 'running AddPod on PreFilter plugin "AddPodFails": no state to add nominated to'
    fr = att_low.fit.filters["n2"]
    assert fr.first is not None and fr.first.code is Code.ERROR and fr.first.plugin == "AddPodFails"
    # a pod of higher priority than the nominated one does not add it: nothing fails
    assert (att_high.pod.name, att_high.result) == ("high", "Scheduled")


def test_without_score_plugins_every_feasible_node_ties():
    """prioritizeNodes gives every node score 1 when there is no score plugin; selectHost picks at
    random among them. kwhatif takes the first by name and lists the tie."""
    s = scheduler({"A": Reject("A", {"n2"})}, {"filter": ["A"]})
    att = s.schedule_one(make_pod().name("p").obj())
    assert (att.result, att.node, att.prioritized.best, att.prioritized.scores) == ("Scheduled", "n1", ["n1", "n3"], {})
    assert att.notes == [
        "no score plugins: upstream gives every feasible node the same score and selectHost picks one of them "
        "at random; kwhatif takes the first by name and lists them all as the tie"
    ]


class Remember(FilterPlugin):
    """Keeps the handle its factory was given."""

    NAME = "Remember"

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status:
        return SUCCESS


def test_plugins_get_their_framework_as_the_handle():
    made: list[Remember] = []

    def new(args: Any, handle: Any) -> Remember:
        made.append(Remember(handle))
        return made[-1]

    sets = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    sets["queueSort"] = PluginSet((PluginRef("PrioritySort"),))
    sets["bind"] = PluginSet((PluginRef("DefaultBinder"),))
    sets["filter"] = PluginSet((PluginRef("Remember"),))
    profiles = (Profile("a", sets, {}), Profile("b", sets, {}))
    state = ClusterState(version=PINNED)
    state.nodes = {"n1": make_node().name("n1").obj()}
    s = Scheduler(
        state, SchedulerConfiguration(profiles, version=PINNED), registry=ChainMap({"Remember": new}, in_tree())
    )
    assert [pl.handle for pl in made] == [s.frameworks["a"], s.frameworks["b"]]
    # every profile's framework shares the run's snapshot, nominator and binder
    for pl in made:
        assert pl.handle.snapshot is s.snapshot
        assert pl.handle.nominator is s.nominator
        assert pl.handle.binder is s.binder
        assert pl.handle.version is PINNED


def test_a_plugin_missing_from_the_registry_does_not_exist():
    sets = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    sets["queueSort"] = PluginSet((PluginRef("PrioritySort"),))
    sets["bind"] = PluginSet((PluginRef("DefaultBinder"),))
    sets["filter"] = PluginSet((PluginRef("NodePorts"),))
    only = {name: in_tree()[name] for name in ("PrioritySort", "DefaultBinder")}
    with pytest.raises(ConfigError, match='FilterPlugin "NodePorts" does not exist'):
        Framework(
            only,
            Profile("p", sets, {}),
            snapshot=Snapshot([], []),
            cluster=ClusterState(version=PINNED),
            version=PINNED,
        )


def test_cycle_state_reads_what_was_written_under_its_key():
    key: StateKey[tuple[str, ...]] = StateKey("PreFilterExample")
    other: StateKey[int] = StateKey("PreFilterExample")  # same name, another key
    st = CycleState()
    with pytest.raises(StateNotFoundError, match="^not found$"):
        st.read(key)
    st.write(key, ("a",))
    assert st.read(key) == ("a",)
    with pytest.raises(StateNotFoundError):
        st.read(other)
    clone = st.clone()
    st.delete(key)
    assert clone.read(key) == ("a",)
    with pytest.raises(StateNotFoundError):
        st.read(key)


class RemovePodFails(AddPodFails):
    NAME = "RemovePodFails"

    def remove_pod(self, state: CycleState, pod: Any, to_remove: Any, node_info: Any) -> Status:
        return Status.error(f"no state to remove {to_remove.pod.name} from")


@pytest.mark.parametrize(
    "op,message",
    [
        pytest.param(
            "add", 'running AddPod on PreFilter plugin "RemovePodFails": no state to add other to', id="AddPod"
        ),
        pytest.param(
            "remove",
            'running RemovePod on PreFilter plugin "RemovePodFails": no state to remove other from',
            id="RemovePod",
        ),
    ],
)
def test_pre_filter_extensions_name_the_operation_and_skip_skipped_plugins(op, message):
    s = scheduler({"RemovePodFails": RemovePodFails()}, {"preFilter": ["RemovePodFails"], "filter": ["RemovePodFails"]})
    fw = s.frameworks["default-scheduler"]
    from kwhatif.cache.node_info import PodInfo

    run = fw.run_pre_filter_extension_add_pod if op == "add" else fw.run_pre_filter_extension_remove_pod
    other, ni = PodInfo.of(make_pod().name("other").obj()), s.snapshot.node_infos[0]
    state = CycleState()
    st = run(state, make_pod().name("p").obj(), other, ni)
    assert (st.code, st.message(), st.plugin) == (Code.ERROR, message, "RemovePodFails")
    state.skip_filter_plugins = frozenset({"RemovePodFails"})
    assert run(state, make_pod().name("p").obj(), other, ni).is_success()


class FakeTemplate:
    """A per-template cache that narrows Narrow's PreFilter to n2 and keeps n2's filter result."""

    def __init__(self, kept_filters: bool) -> None:
        self.kept_filters = kept_filters

    def pre_filter_substitutes(self) -> dict[str, Any]:
        def narrow(state: CycleState, pod: Any) -> tuple[PreFilterResult | None, Status]:
            CALLS.append("substitute.preFilter")
            return PreFilterResult(frozenset({"n2"})), SUCCESS

        return {"Narrow": narrow}

    def filter_nodes(self, state: CycleState, pod: Any, pre: Any) -> Any:
        from kwhatif.framework.types import Filtered, FilterResult

        CALLS.append("cache.filter")
        if not self.kept_filters:
            return None
        rejected = Status.of(Code.UNSCHEDULABLE, "kept")
        filters = {"n1": FilterResult("n1", [rejected], rejected), "n2": FilterResult("n2", [SUCCESS])}
        return Filtered(filters, ["n2"], {"kept": 1}, {"n1": rejected}, None)

    def prioritize(self, state: CycleState, pod: Any, fast_path: bool, feasible: list[str], names: list[str]) -> Any:
        CALLS.append("cache.score")
        return None


class FakeCache:
    def __init__(self, kept_filters: bool) -> None:
        self.pods: list[str] = []
        self.kept_filters = kept_filters

    def template_for(self, fw: Framework, pod: Any) -> FakeTemplate:
        self.pods.append(pod.name)
        return FakeTemplate(self.kept_filters)


@pytest.mark.parametrize("kept_filters", [False, True], ids=["filter-from-scratch", "filter-from-cache"])
def test_the_framework_consults_its_cycle_cache_at_each_extension_point(kept_filters):
    s = scheduler({"Narrow": Narrow("Narrow")}, {"preFilter": ["Narrow"], "filter": ["Narrow"]})
    fw = s.frameworks["default-scheduler"]
    cache = FakeCache(kept_filters)
    fw.cache = cache
    [att] = s.run([make_pod().name("p").obj()], rounds=1)
    assert cache.pods == ["p"]
    assert "Narrow.preFilter" not in CALLS and CALLS[0] == "substitute.preFilter"
    assert att.result == "Scheduled" and att.node == "n2"
    if kept_filters:
        # the feasible nodes are known in node order: scoring asks the cache too
        assert CALLS == ["substitute.preFilter", "cache.filter", "cache.score"]
        assert att.fit.filters["n1"].first is not None and att.fit.filters["n1"].first.reasons == ("kept",)
    else:
        # the cache answered "not handled": every node is filtered (the PreFilterResult subset)
        assert CALLS[:2] == ["substitute.preFilter", "cache.filter"]
        assert "Narrow.filter(n2)" in CALLS and "cache.score" not in CALLS


def test_without_a_cycle_cache_the_plugins_run_themselves():
    s = scheduler({"Narrow": Narrow("Narrow", {"n3"})}, {"preFilter": ["Narrow"], "filter": ["Narrow"]})
    fw = s.frameworks["default-scheduler"]
    fw.cache = None
    [att] = s.run([make_pod().name("p").obj()], rounds=1)
    assert CALLS[0] == "Narrow.preFilter" and att.node == "n3"
    assert fw.run_filter_from_cache(CycleState(), att.pod, att.fit.pre_filter) is None
    assert fw.run_score_from_cache(CycleState(), att.pod, False, ["n3"], ["n3"]) is None
