"""DefaultPreemption: args, eligibility, where preemption might help, PDB grouping, victim
selection and reprieve, the candidate criteria, the status messages, and what the scheduler does
with the result (victims removed, nominations set, overridden and cleared)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.api import parse
from kwhatif.api.core import Pod, PodDisruptionBudget
from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.node_info import PodInfo
from kwhatif.config.defaults import default_args
from kwhatif.config.options import Options
from kwhatif.config.types import DefaultPreemptionArgs, PluginRef, PluginSet, Profile, SchedulerConfiguration
from kwhatif.errors import ConfigError
from kwhatif.framework.interface import Code, PreemptionDetails, PreemptionVictim, Status
from kwhatif.plugins import default_preemption as dp
from kwhatif.scheduling.scheduler import Attempt, Scheduler

from builders import PINNED, PodBuilder, make_handle, make_node, make_pod, plugin_args

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
HOST = "kubernetes.io/hostname"

PLUGINS = (
    "PrioritySort",
    "NodeUnschedulable",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "DefaultPreemption",
    "DefaultBinder",
)


# --- helpers ---------------------------------------------------------------------------------------


def profile(args: dict[str, Any] | None = None) -> Profile:
    cfg = default_args()
    if args is not None:
        cfg["DefaultPreemption"] = plugin_args("DefaultPreemption", args)
    plugins = {"multiPoint": PluginSet(tuple(PluginRef(n, 1 if n == "NodeResourcesFit" else None) for n in PLUGINS))}
    return Profile("default-scheduler", plugins, cfg)


def scheduler(
    nodes: Sequence[Any],
    pods: Sequence[Any] = (),
    pdbs: Sequence[PodDisruptionBudget] = (),
    args: dict[str, Any] | None = None,
    options: Options = Options(),
) -> Scheduler:
    node_objs = [n.obj() for n in nodes]
    pod_objs = [p.obj() for p in pods]
    cluster = ClusterState(nodes={n.name: n for n in node_objs}, pods=pod_objs, pdbs=list(pdbs), version=PINNED)
    config = SchedulerConfiguration(profiles=(profile(args),), percentage_of_nodes_to_score=100, version=PINNED)
    return Scheduler(cluster, config, options=options)


def node(name: str, cpu: str = "4") -> Any:
    return make_node().name(name).capacity(cpu=cpu, memory="8Gi", pods="110")


def bound(name: str, node_name: str, priority: int, cpu: str = "1", **labels: str) -> PodBuilder:
    b = make_pod().name(name).node(node_name).priority(priority).req(cpu=cpu)
    for k, v in labels.items():
        b.label(k, v)
    return b


def pending(name: str, priority: int, cpu: str = "1") -> PodBuilder:
    return make_pod().name(name).priority(priority).req(cpu=cpu)


def pdb(
    name: str,
    allowed: int,
    match: dict[str, str] | None = None,
    namespace: str = "default",
    disrupted: Sequence[str] = (),
    selector: dict[str, Any] | None = None,
) -> PodDisruptionBudget:
    spec: dict[str, Any] = {"minAvailable": 1}
    if selector is not None:
        spec["selector"] = selector
    elif match is not None:
        spec["selector"] = {"matchLabels": match}
    return parse.pod_disruption_budget(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
            "status": {
                "disruptionsAllowed": allowed,
                "disruptedPods": {p: "2024-01-01T00:00:00Z" for p in disrupted},
            },
        }
    )


def details(att: Attempt) -> PreemptionDetails:
    assert att.preemption_details is not None
    return att.preemption_details


def victims(att: Attempt) -> list[str]:
    return [v.name for v in att.victims]


def schedule(s: Scheduler, pod: PodBuilder) -> Attempt:
    return s.schedule_one(pod.obj())


# --- args ------------------------------------------------------------------------------------------


def test_default_args() -> None:
    pl = dp.new(plugin_args(dp.NAME), make_handle([]))
    assert pl.args == DefaultPreemptionArgs(10, 100)
    assert plugin_args(dp.NAME, {"minCandidateNodesPercentage": 0}) == DefaultPreemptionArgs(0, 100)


# Decoded, defaulted and validated by the configuration (kwhatif.config), which reports an error under
# the pluginConfig entry's args, and several as upstream's aggregate.
PC = "profiles[0].pluginConfig[0].args"


@pytest.mark.parametrize(
    "args,message",
    [
        pytest.param(
            {"minCandidateNodesPercentage": 120},
            "minCandidateNodesPercentage: Invalid value: 120: not in valid range [0, 100]",
            id="pct-high",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": -1},
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
            id="pct-negative",
        ),
        pytest.param(
            {"minCandidateNodesAbsolute": -5},
            "minCandidateNodesAbsolute: Invalid value: -5: not in valid range [0, inf)",
            id="abs-negative",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            # both errors, aggregated as upstream prints them
            f"[{PC}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            f"minCandidateNodesAbsolute, {PC}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the "
            "same time as minCandidateNodesPercentage]",
            id="both-zero",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 101, "minCandidateNodesAbsolute": -1},
            f"[{PC}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100], "
            f"{PC}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]",
            id="two-errors",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": "10"},
            "minCandidateNodesPercentage: cannot unmarshal string into Go value of type int32",
            id="not-int",
        ),
        pytest.param({"minCandidateNodes": 1}, ': unknown field "minCandidateNodes"', id="unknown-field"),
    ],
)
def test_invalid_args(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as e:
        plugin_args(dp.NAME, args)
    if message.startswith("["):
        assert str(e.value) == message
        return
    assert str(e.value) == PC + ("" if message.startswith(":") else ".") + message


@pytest.mark.parametrize(
    "num_nodes,pct,absolute,want",
    [
        pytest.param(10, 10, 100, 10, id="few-nodes"),
        pytest.param(1000, 10, 100, 100, id="absolute-wins"),
        pytest.param(5000, 10, 100, 500, id="percentage-wins"),
        pytest.param(50, 0, 3, 3, id="zero-pct"),
        pytest.param(7, 50, 1, 3, id="int-division"),
        pytest.param(2, 100, 0, 2, id="never-above-nodes"),
    ],
)
def test_calculate_num_candidates(num_nodes: int, pct: int, absolute: int, want: int) -> None:
    pl = dp.DefaultPreemption(DefaultPreemptionArgs(pct, absolute), make_handle([]))
    assert pl.calculate_num_candidates(num_nodes) == want


# --- eligibility -----------------------------------------------------------------------------------

TERMINATING_BY_PREEMPTION = [
    {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"},
]


@pytest.mark.parametrize(
    "pod,existing,nominated_status,eligible,message",
    [
        pytest.param(
            pending("p", 100).preemption_policy("Never"),
            [],
            None,
            False,
            "not eligible due to preemptionPolicy=Never.",
            id="policy-never",
        ),
        pytest.param(pending("p", 100), [], None, True, "", id="not-nominated"),
        pytest.param(
            pending("p", 100).nominated("n1"),
            [bound("v", "n1", 0).terminating().set("status.conditions", TERMINATING_BY_PREEMPTION)],
            None,
            False,
            "not eligible due to a terminating pod on the nominated node.",
            id="terminating-victim-on-nominated-node",
        ),
        pytest.param(
            # PodDisruptionConditions is on in v1.30: deletion for another reason does not count.
            pending("p", 100).nominated("n1"),
            [bound("v", "n1", 0).terminating()],
            None,
            True,
            "",
            id="terminating-not-by-preemption",
        ),
        pytest.param(
            pending("p", 100).nominated("n1"),
            [bound("v", "n1", 100).terminating().set("status.conditions", TERMINATING_BY_PREEMPTION)],
            None,
            True,
            "",
            id="terminating-pod-not-lower-priority",
        ),
        pytest.param(
            pending("p", 100).nominated("n1"),
            [bound("v", "n1", 0).terminating().set("status.conditions", TERMINATING_BY_PREEMPTION)],
            Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unschedulable"),
            True,
            "",
            id="nominated-node-unresolvable",
        ),
        pytest.param(
            pending("p", 100).nominated("n2"),
            [bound("v", "n1", 0).terminating().set("status.conditions", TERMINATING_BY_PREEMPTION)],
            None,
            True,
            "",
            id="terminating-on-another-node",
        ),
    ],
)
def test_pod_eligible_to_preempt_others(
    pod: PodBuilder, existing: list[PodBuilder], nominated_status: Status | None, eligible: bool, message: str
) -> None:
    h = make_handle([node("n1").obj(), node("n2").obj()], [e.obj() for e in existing])
    pl = dp.new(plugin_args(dp.NAME), h)
    assert pl.pod_eligible_to_preempt_others(pod.obj(), nominated_status) == (eligible, message)


def _disruption(status: str, reason: str) -> list[dict[str, str]]:
    return [{"type": "DisruptionTarget", "status": status, "reason": reason}]


@pytest.mark.parametrize(
    "victim,gate,want",
    [
        pytest.param(
            bound("v", "n1", 0).terminating().set("status.conditions", TERMINATING_BY_PREEMPTION),
            True,
            True,
            id="preempted",
        ),
        pytest.param(
            bound("v", "n1", 0).set("status.conditions", TERMINATING_BY_PREEMPTION), True, False, id="not-deleted"
        ),
        pytest.param(
            bound("v", "n1", 0).terminating().set("status.conditions", _disruption("True", "EvictionByEvictionAPI")),
            True,
            False,
            id="evicted-by-the-eviction-api",
        ),
        pytest.param(
            bound("v", "n1", 0).terminating().set("status.conditions", _disruption("True", "DeletionByTaintManager")),
            True,
            False,
            id="deleted-by-the-taint-manager",
        ),
        pytest.param(
            bound("v", "n1", 0).terminating().set("status.conditions", _disruption("False", "PreemptionByScheduler")),
            True,
            False,
            id="condition-false",
        ),
        pytest.param(
            bound("v", "n1", 0)
            .terminating()
            .set(
                "status.conditions",
                _disruption("True", "EvictionByEvictionAPI") + _disruption("True", "PreemptionByScheduler"),
            ),
            True,
            False,
            id="first-condition-decides",
        ),
        pytest.param(bound("v", "n1", 0).terminating(), True, False, id="no-condition"),
        pytest.param(bound("v", "n1", 0).terminating(), False, True, id="gate-off-any-deletion"),
        pytest.param(bound("v", "n1", 0), False, False, id="gate-off-not-deleted"),
    ],
)
def test_pod_terminating_by_preemption(victim: PodBuilder, gate: bool, want: bool) -> None:
    """podTerminatingByPreemption (default_preemption.go): deletionTimestamp set and, with
    PodDisruptionConditions, the DisruptionTarget condition True with reason PreemptionByScheduler."""
    assert dp.pod_terminating_by_preemption(victim.obj(), gate) is want


def test_terminating_pod_evicted_for_another_reason_does_not_block_preemption() -> None:
    existing = bound("v", "n1", 0).terminating().set("status.conditions", _disruption("True", "EvictionByEvictionAPI"))
    h = make_handle([node("n1").obj(), node("n2").obj()], [existing.obj()])
    pl = dp.new(plugin_args(dp.NAME), h)
    assert pl.pod_eligible_to_preempt_others(pending("p", 100).nominated("n1").obj(), None) == (True, "")


# --- nodesWherePreemptionMightHelp -----------------------------------------------------------------


def test_nodes_where_preemption_might_help() -> None:
    h = make_handle([node(n).obj() for n in ("a", "b", "c", "d")])
    statuses = {
        "a": Status.of(Code.UNSCHEDULABLE, "Insufficient cpu"),
        "b": Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unschedulable"),
        "d": Status.of(Code.PENDING, "waiting"),
    }
    potential, unresolvable = dp.nodes_where_preemption_might_help(h.snapshot.node_infos, statuses)
    assert [ni.name for ni in potential] == ["a"]
    # c was never filtered (outside a PreFilterResult); d is neither kind and is left out.
    assert {n: (st.code, st.reasons) for n, st in unresolvable.items()} == {
        "b": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,)),
        "c": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,)),
    }


# --- PDBs ------------------------------------------------------------------------------------------


def infos(*pods: PodBuilder) -> list[PodInfo]:
    return [PodInfo.of(p.obj()) for p in pods]


@pytest.mark.parametrize(
    "pods,pdbs,violating",
    [
        pytest.param([bound("a", "n1", 0, app="web")], [pdb("p", 0, {"app": "web"})], ["a"], id="none-allowed"),
        pytest.param([bound("a", "n1", 0, app="web")], [pdb("p", 1, {"app": "web"})], [], id="one-allowed"),
        pytest.param(
            # minAvailable/maxUnavailable are already folded into status.disruptionsAllowed: one left.
            [bound("a", "n1", 0, app="web"), bound("b", "n1", 0, app="web"), bound("c", "n1", 0, app="web")],
            [pdb("p", 1, {"app": "web"})],
            ["b", "c"],
            id="budget-used-up-in-order",
        ),
        pytest.param([bound("a", "n1", 0)], [pdb("p", 0, {"app": "web"})], [], id="no-labels"),
        pytest.param([bound("a", "n1", 0, app="db")], [pdb("p", 0, {"app": "web"})], [], id="selector-mismatch"),
        pytest.param(
            [bound("a", "n1", 0, app="web")], [pdb("p", 0, {"app": "web"}, namespace="other")], [], id="other-namespace"
        ),
        pytest.param(
            [bound("a", "n1", 0, app="web")], [pdb("p", 0, selector={})], [], id="empty-selector-matches-nothing"
        ),
        pytest.param([bound("a", "n1", 0, app="web")], [pdb("p", 0)], [], id="no-selector"),
        pytest.param(
            # Already being disrupted: it does not use up the budget again.
            [bound("a", "n1", 0, app="web"), bound("b", "n1", 0, app="web")],
            [pdb("p", 1, {"app": "web"}, disrupted=["a"])],
            [],
            id="disrupted-pods",
        ),
        pytest.param(
            [bound("a", "n1", 0, app="web", tier="fe")],
            [pdb("p1", 5, {"app": "web"}), pdb("p2", 0, {"tier": "fe"})],
            ["a"],
            id="any-pdb-violated",
        ),
    ],
)
def test_filter_pods_with_pdb_violation(
    pods: list[PodBuilder], pdbs: list[PodDisruptionBudget], violating: list[str]
) -> None:
    bad, good = dp.filter_pods_with_pdb_violation(infos(*pods), pdbs)
    assert [pi.pod.name for pi in bad] == violating
    assert [pi.pod.name for pi in good] == [p.obj().name for p in pods if p.obj().name not in violating]


# --- MoreImportantPod, GetEarliestPodStartTime and the sort ------------------------------------------


def pod(name: str, priority: int, started: str | None = None) -> Pod:
    b = make_pod().name(name).priority(priority)
    if started:
        b.start_time(started)
    return b.obj()


T1, T2, T3 = "2024-01-01T00:00:01Z", "2024-01-01T00:00:02Z", "2024-01-01T00:00:03Z"


@pytest.mark.parametrize(
    "a,b,want",
    [
        pytest.param(pod("a", 10), pod("b", 5), True, id="higher"),
        pytest.param(pod("a", 5), pod("b", 10), False, id="lower"),
        pytest.param(pod("a", 5, T1), pod("b", 5, T2), True, id="earlier"),
        pytest.param(pod("a", 5, T2), pod("b", 5, T1), False, id="later"),
        pytest.param(pod("a", 5, T1), pod("b", 5, T1), False, id="same-time"),
        pytest.param(pod("a", 5, T1), pod("b", 5), True, id="started-vs-not"),
        pytest.param(pod("a", 5), pod("b", 5, T1), False, id="not-vs-started"),
        pytest.param(pod("a", 5), pod("b", 5), True, id="neither-started"),
    ],
)
def test_more_important_pod(a: Pod, b: Pod, want: bool) -> None:
    assert dp.more_important_pod(a, b) is want


def test_sort_like_upstream() -> None:
    # Pods that never started compare "earlier" both ways round; Go's sort then reverses them.
    pods = [pod("a", 0), pod("b", 0), pod("c", -10), pod("d", 0, T1), pod("e", -10)]
    dp.go_sort_slice(pods, dp.more_important_pod)
    assert [p.name for p in pods] == ["d", "b", "a", "e", "c"]


@pytest.mark.parametrize(
    "pods,want",
    [
        pytest.param([pod("a", 10, T2), pod("b", 10, T1), pod("c", 5, T3)], T1, id="earliest-of-highest"),
        pytest.param([pod("a", 5, T1), pod("b", 10, T3), pod("c", 10, T2)], T2, id="higher-later-in-list"),
        pytest.param([pod("a", 10, T2), pod("b", 10)], T2, id="unstarted-counts-as-now"),
    ],
)
def test_earliest_pod_start_time(pods: list[Pod], want: str) -> None:
    assert dp.earliest_pod_start_time(pods) == pod("x", 0, want).start_time


# --- pickOneNodeForPreemption ----------------------------------------------------------------------


def cand(node_name: str, *victim_pods: Pod, violations: int = 0) -> dp.Candidate:
    return dp.Candidate(node_name, tuple(victim_pods), violations)


@pytest.mark.parametrize(
    "candidates,node_name,criterion",
    [
        pytest.param(
            [cand("n1", pod("a", 0), violations=1), cand("n2", pod("b", 0), pod("c", 0))],
            "n2",
            dp.BY_PDB_VIOLATIONS,
            id="fewest-pdb-violations",
        ),
        pytest.param(
            [cand("n1", pod("a", 5)), cand("n2", pod("b", 1), pod("c", 1))],
            "n2",
            dp.BY_HIGHEST_PRIORITY,
            id="lowest-highest-priority",
        ),
        pytest.param(
            [cand("n1", pod("a", 5), pod("b", 4)), cand("n2", pod("c", 5), pod("d", 1))],
            "n2",
            dp.BY_SUM_PRIORITIES,
            id="lowest-sum",
        ),
        pytest.param(
            # Raw sums would prefer n1 (-100 < 0); shifted by MaxInt32+1 each, one pod weighs more.
            [cand("n1", pod("a", 0), pod("b", -100)), cand("n2", pod("c", 0))],
            "n2",
            dp.BY_SUM_PRIORITIES,
            id="sum-offset",
        ),
        pytest.param(
            # A MinInt32 victim adds nothing to the shifted sum, so only the count tells them apart.
            [cand("n1", pod("a", 0), pod("b", -(2**31))), cand("n2", pod("c", 0))],
            "n2",
            dp.BY_NUM_VICTIMS,
            id="fewest-victims",
        ),
        pytest.param(
            [cand("n1", pod("a", 5), pod("b", 0), pod("c", 0)), cand("n2", pod("d", 5), pod("e", 0), pod("f", 0))],
            "n1",
            dp.BY_FIRST,
            id="first-on-tie",
        ),
        pytest.param(
            [cand("n1", pod("a", 5, T1)), cand("n2", pod("b", 5, T2)), cand("n3", pod("c", 5, T1))],
            "n2",
            dp.BY_LATEST_START,
            id="latest-start",
        ),
        pytest.param(
            [cand("n1", pod("a", 5, T3)), cand("n2", pod("b", 5))],
            "n2",
            dp.BY_LATEST_START,
            id="unstarted-is-latest",
        ),
        pytest.param(
            # Victims[0] stands for the highest priority even when a lower PDB victim comes first.
            [cand("n1", pod("a", 1), pod("b", 9), violations=1), cand("n2", pod("c", 2), violations=1)],
            "n1",
            dp.BY_HIGHEST_PRIORITY,
            id="victims0-is-highest",
        ),
    ],
)
def test_pick_one_node_for_preemption(candidates: list[dp.Candidate], node_name: str, criterion: str) -> None:
    assert dp.pick_one_node_for_preemption({c.node: c for c in candidates}) == (node_name, criterion)


def test_select_candidate_single() -> None:
    pl = dp.new(plugin_args(dp.NAME), make_handle([]))
    c = cand("n1", pod("a", 0))
    assert pl.select_candidate([c]) == (c, dp.BY_ONLY_CANDIDATE)
    assert pl.select_candidate([]) == (None, "")


# --- preemption through the scheduler ----------------------------------------------------------------


def test_preemption_success() -> None:
    s = scheduler(
        [node("n1")],
        [bound("low", "n1", 0, cpu="2"), bound("lower", "n1", -5, cpu="1"), bound("high", "n1", 1000, cpu="1")],
    )
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.result == "Unschedulable"
    # No suffix when preemption succeeded.
    assert att.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert att.nominated_node == "n1"
    # "low" (priority 0) is given back first and does not fit; "lower" then fits.
    assert victims(att) == ["low"]
    assert details(att).victims == (PreemptionVictim("default/low", 0, False),)
    assert details(att).selected_by == dp.BY_ONLY_CANDIDATE
    # The scheduler, not the plugin, removes the victims and nominates the pod; as upstream's
    # NodeInfo.RemovePod, the last pod takes the removed one's place.
    assert [pi.pod.name for pi in s.snapshot.get("n1").pods] == ["high", "lower"]
    assert s.nominator.node_of == {"uid-p": "n1"}


def test_reprieve_highest_priority_first() -> None:
    s = scheduler(
        [node("n1")],
        [bound(name, "n1", prio) for name, prio in (("a", 1), ("b", 3), ("c", 2), ("d", 0))],
    )
    att = schedule(s, pending("p", 100, cpu="2"))
    # Given back in order b(3), c(2), a(1), d(0): b and c fit again, a and d do not.
    assert victims(att) == ["a", "d"]


def test_pdb_violating_victims_reprieved_first() -> None:
    s = scheduler(
        [node("n1")],
        [bound("hi", "n1", 50, cpu="2"), bound("protected", "n1", 10, cpu="2", app="db")],
        pdbs=[pdb("db", 0, {"app": "db"})],
    )
    att = schedule(s, pending("p", 100, cpu="2"))
    # "protected" would break its PDB, so it is given back before the higher-priority "hi".
    assert victims(att) == ["hi"]
    assert details(att).pdb_violating_victims == ()
    assert details(att).num_pdb_violations == 0


def test_pdb_violation_counted_when_unavoidable() -> None:
    s = scheduler(
        [node("n1")],
        [bound("protected", "n1", 10, cpu="4", app="db")],
        pdbs=[pdb("db", 0, {"app": "db"})],
    )
    att = schedule(s, pending("p", 100, cpu="2"))
    assert victims(att) == ["protected"]
    assert details(att).pdb_violating_victims == ("default/protected",)
    assert details(att).victims == (PreemptionVictim("default/protected", 10, True),)


def test_prefers_node_without_pdb_violation() -> None:
    s = scheduler(
        [node("n1"), node("n2")],
        [bound("a", "n1", 0, cpu="4", app="db"), bound("b", "n2", 50, cpu="4", app="web")],
        pdbs=[pdb("db", 0, {"app": "db"})],
    )
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.nominated_node == "n2"
    assert details(att).selected_by == dp.BY_PDB_VIOLATIONS
    assert [c.node for c in details(att).candidates] == ["n2", "n1"]


@pytest.mark.parametrize(
    "pods,cpu,want_node,criterion",
    [
        pytest.param(
            [bound("a", "n1", 50, cpu="4"), bound("b", "n2", 10, cpu="4")],
            "2",
            "n2",
            dp.BY_HIGHEST_PRIORITY,
            id="lowest-priority-victim",
        ),
        pytest.param(
            [bound("a", "n1", 10, cpu="2"), bound("b", "n1", 10, cpu="2"), bound("c", "n2", 10, cpu="4")],
            "4",
            "n2",
            dp.BY_SUM_PRIORITIES,
            id="fewer-victims-lower-sum",
        ),
        pytest.param(
            [
                bound("a", "n1", 10, cpu="4").start_time(T1),
                bound("b", "n2", 10, cpu="4").start_time(T2),
            ],
            "2",
            "n2",
            dp.BY_LATEST_START,
            id="latest-start",
        ),
        pytest.param(
            [bound("a", "n1", 10, cpu="4"), bound("b", "n2", 10, cpu="4")], "2", "n1", dp.BY_FIRST, id="tie-first-node"
        ),
    ],
)
def test_candidate_choice(pods: list[PodBuilder], cpu: str, want_node: str, criterion: str) -> None:
    s = scheduler([node("n1"), node("n2")], pods)
    att = schedule(s, pending("p", 100, cpu=cpu))
    assert att.nominated_node == want_node
    assert details(att).selected_by == criterion


@pytest.mark.parametrize(
    "nodes,pods,pod,message",
    [
        pytest.param(
            [node("n1")],
            [bound("a", "n1", 100, cpu="4")],
            pending("p", 100, cpu="2"),
            f"0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 {NO_VICTIMS}.",
            id="no-victims",
        ),
        pytest.param(
            [node("n1"), node("n2").taint("dedicated", "infra")],
            [bound("a", "n1", 0, cpu="3")],
            pending("p", 100, cpu="8"),
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: infra}. "
            f"preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 {NOT_HELPFUL}.",
            id="leftover-reason-and-not-helpful",
        ),
        pytest.param(
            [node("n1"), node("n2")],
            [bound("a", "n1", 200, cpu="4"), bound("b", "n2", 0, cpu="4")],
            pending("p", 100, cpu="2").preemption_policy("Never"),
            "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
            id="policy-never",
        ),
        pytest.param(
            [make_node().name("n1").unschedulable()],
            [],
            pending("p", 100),
            "0/1 nodes are available: 1 node(s) were unschedulable. "
            f"preemption: 0/1 nodes are available: 1 {NOT_HELPFUL}.",
            id="all-unresolvable",
        ),
    ],
)
def test_failure_messages(nodes: list[Any], pods: list[PodBuilder], pod: PodBuilder, message: str) -> None:
    s = scheduler(nodes, pods)
    att = schedule(s, pod)
    assert att.message == message
    assert att.nominated_node == ""
    assert att.victims == []


def test_pre_filter_result_excluded_nodes_are_not_helpful() -> None:
    # NodeAffinity's PreFilterResult keeps n1 only: n2 is never filtered, so preemption treats it
    # as a node where it cannot help (absent from the status map).
    aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]
            }
        }
    }
    s = scheduler([node("n1"), node("n2")], [bound("a", "n1", 100, cpu="4")])
    att = schedule(s, pending("p", 100, cpu="2").affinity(aff))
    assert att.message == (
        "0/2 nodes are available: 1 Insufficient cpu. "
        f"preemption: 0/2 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}."
    )


def test_preemption_disabled_has_no_suffix() -> None:
    s = scheduler([node("n1")], [bound("a", "n1", 0, cpu="4")], options=Options(preemption=False))
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert att.nominated_node == "" and s.nominator.node_of == {}


def test_num_candidates_stops_in_node_order() -> None:
    # With at most one candidate to find, the first node (by name) that works is the answer even
    # though n3 would need a lower-priority victim.
    pods = [bound("a", "n1", 50, cpu="4"), bound("b", "n2", 40, cpu="4"), bound("c", "n3", 1, cpu="4")]
    nodes = [node("n1"), node("n2"), node("n3")]
    s = scheduler(nodes, pods, args={"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1})
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.nominated_node == "n1"
    assert [c.node for c in details(att).candidates] == ["n1"]
    # With the defaults every node is a candidate and the lowest victim priority wins.
    s = scheduler(nodes, pods)
    assert schedule(s, pending("p", 100, cpu="2")).nominated_node == "n3"


def test_nominated_pods_are_honoured_in_the_dry_run() -> None:
    # q (priority 500) is nominated to n1 and reserves 3 cpu there; p (100) can only use what q leaves.
    s = scheduler([node("n1")], [bound("a", "n1", 0, cpu="1")])
    q = pending("q", 500, cpu="3").obj()
    s.nominator.add(q, "n1")
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu."
    )


def test_terminating_victims_block_a_second_preemption() -> None:
    s = scheduler(
        [node("n1"), node("n2")],
        [
            bound("old", "n1", 0, cpu="1").terminating().set("status.conditions", TERMINATING_BY_PREEMPTION),
            bound("a", "n1", 0, cpu="3"),
            bound("b", "n2", 0, cpu="4"),
        ],
    )
    p = pending("p", 100, cpu="2").nominated("n1")
    s.nominator.add(p.obj(), "n1")
    att = schedule(s, p)
    assert att.message == (
        "0/2 nodes are available: 2 Insufficient cpu. "
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    # NominatingMode Noop: the nomination stays.
    assert s.nominator.node_of == {"uid-p": "n1"}
    assert att.victims == []


def test_failed_preemption_clears_the_nomination() -> None:
    s = scheduler([node("n1")], [bound("a", "n1", 200, cpu="4")])
    p = pending("p", 100, cpu="2").nominated("n1")
    s.nominator.add(p.obj(), "n1")
    att = schedule(s, p)
    assert att.message.endswith(f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}.")
    assert s.nominator.node_of == {}


def test_lower_priority_nominations_on_the_node_are_cleared() -> None:
    s = scheduler([node("n1"), node("n2")], [bound("a", "n1", 0, cpu="4"), bound("b", "n2", 0, cpu="4")])
    low = pending("low", 10, cpu="1").obj()
    other = pending("other", 10, cpu="1").obj()
    equal = pending("equal", 100, cpu="1").obj()
    s.nominator.add(low, "n1")
    s.nominator.add(other, "n2")
    s.nominator.add(equal, "n1")
    att = schedule(s, pending("p", 100, cpu="2"))
    assert att.nominated_node == "n1"
    assert s.nominator.node_of == {"uid-other": "n2", "uid-equal": "n1", "uid-p": "n1"}


def test_evicts_in_round_one_and_lands_in_round_two() -> None:
    s = scheduler(
        [node("n1"), node("n2")],
        [bound("a", "n1", 0, cpu="3"), bound("b", "n2", 10, cpu="2")],
    )
    pods = [pending("filler", 50, cpu="2").created(T1), pending("big", 1000, cpu="3").created(T2)]
    attempts = s.run([p.obj() for p in pods], rounds=2)
    summary = [(a.round, a.pod.name, a.result, a.node, a.nominated_node, victims(a)) for a in attempts]
    assert summary == [
        # big goes first (priority), evicts the lowest-priority pod and is nominated to n1.
        (1, "big", "Unschedulable", None, "n1", ["a"]),
        # n1 has room for filler, but big's nomination reserves it: filler goes to n2.
        (1, "filler", "Scheduled", "n2", "", []),
        (2, "big", "Scheduled", "n1", "", []),
    ]
    assert attempts[0].message == "0/2 nodes are available: 2 Insufficient cpu."
    assert s.nominator.node_of == {}
    assert [v.name for v in s.deleted] == ["a"]
