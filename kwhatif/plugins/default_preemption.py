"""DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and the
evaluator in pkg/scheduler/framework/preemption/preemption.go).

A PostFilter plugin: when no node fits, it looks for a node where evicting lower-priority pods
would let the pod fit, picks the best such node and names the victims. It never deletes anything
itself: the scheduler removes the victims from its snapshot and nominates the pod, the way the
API server and the informers would after upstream's prepareCandidate.

Everything is simulated on clones (NodeInfo.clone() and CycleState.clone()), so the shared
snapshot is never touched during a dry run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod, PodDisruptionBudget
from kwhatif.cache.node_info import NodeInfo, PodInfo
from kwhatif.config.types import DefaultPreemptionArgs
from kwhatif.framework.interface import (
    SUCCESS,
    Code,
    CycleState,
    PostFilterPlugin,
    PostFilterResult,
    PreemptionCandidate,
    PreemptionDetails,
    PreemptionVictim,
    Status,
)
from kwhatif.framework.types import fit_error_message
from kwhatif.gocompat import go_sort_slice

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "DefaultPreemption"
MSG_NOT_ELIGIBLE_WAP = "preemption: not eligible due to workload aware preemption enabled"

# Status messages, byte-exact from default_preemption.go and preemption.go.
MSG_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING_ON_NOMINATED_NODE = "not eligible due to a terminating pod on the nominated node."
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE = "no candidate node for preemption"
MSG_PREFIX = "preemption: "

PREEMPT_NEVER = "Never"
# v1.PodReasonPreemptionByScheduler: the DisruptionTarget reason of a pod preemption evicts
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
_INT32_MAX = (1 << 31) - 1

# The criteria of pickOneNodeForPreemption, in order; these names appear in the result details.
BY_ONLY_CANDIDATE = "onlyCandidate"
BY_PDB_VIOLATIONS = "fewestPDBViolations"
BY_HIGHEST_PRIORITY = "lowestHighestVictimPriority"
BY_SUM_PRIORITIES = "lowestSumOfPriorities"
BY_NUM_VICTIMS = "fewestVictims"
BY_LATEST_START = "latestStartTime"
BY_FIRST = "first"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where the pod fits once ``victims`` are gone (extenderv1.Victims plus the node)."""

    node: str
    # violating victims first, each group most important first; from 1.32.0 (1.30.7, 1.31.3) sorted
    # by importance again when the node had both kinds
    victims: tuple[Pod, ...]
    num_pdb_violations: int
    pdb_violating: frozenset[str] = field(default_factory=frozenset)  # keys of victims that break a PDB


# --- the plugin ----------------------------------------------------------------------------------


class DefaultPreemption(PostFilterPlugin):
    NAME = NAME

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle
        self.resort_victims: bool = handle.version.behaviour.preemption_resorts_victims
        self.success_message: str | None = handle.version.behaviour.preemption_success_message

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        if pod.pod_group and self.handle.version.gate("WorkloadAwarePreemption"):
            # the pod group preempts as a whole (kwhatif.framework.pod_group_preemption), not pod by pod
            return None, Status.of(Code.UNSCHEDULABLE, MSG_NOT_ELIGIBLE_WAP)
        result, st = self.preempt(state, pod, statuses)
        msg = st.message()
        if msg:
            return result, Status(st.code, (MSG_PREFIX + msg,))
        return result, st

    # --- Evaluator.Preempt ----------------------------------------------------------------------

    def preempt(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        """Returns None with a rejection to keep the pod's nomination as it is, and a result with an
        empty node name to clear it, as upstream's NominatingMode Noop and Override."""
        eligible, msg = self.pod_eligible_to_preempt_others(pod, statuses.get(pod.nominated_node_name))
        if not eligible:
            return None, Status.of(Code.UNSCHEDULABLE, msg)

        candidates, node_statuses, errors = self.find_candidates(state, pod, statuses)
        if errors and not candidates:
            return None, Status.error(_aggregate(errors))
        if not candidates:
            # The FitError text over the preemption statuses.
            message = fit_error_message(len(node_statuses), "", node_statuses, "")
            # An empty nominated node clears any nomination the pod had.
            return PostFilterResult(), Status.of(Code.UNSCHEDULABLE, message)

        best, selected_by = self.select_candidate(candidates)
        if best is None or not best.node:
            return None, Status.of(Code.UNSCHEDULABLE, MSG_NO_CANDIDATE)
        found = (
            Status.of(Code.SUCCESS, self.success_message.format(node=best.node, count=len(best.victims)))
            if self.success_message
            else SUCCESS
        )
        return (
            PostFilterResult(
                nominated_node_name=best.node,
                victims=best.victims,
                details=_summary(candidates, best, selected_by),
            ),
            found,
        )

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, MSG_PREEMPTION_POLICY_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            # Filters say preemption cannot help on the nominated node: look elsewhere.
            if nominated_node_status is not None and nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = self.handle.snapshot.get(nominated)
            if ni is not None:
                disruption_conditions = self.handle.version.gate("PodDisruptionConditions")
                for pi in ni.pods:
                    if pi.pod.priority < pod.priority and pod_terminating_by_preemption(pi.pod, disruption_conditions):
                        # Earlier victims are still shutting down: wait for them.
                        return False, MSG_TERMINATING_ON_NOMINATED_NODE
        return True, ""

    # --- findCandidates and DryRunPreemption ----------------------------------------------------

    def find_candidates(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        all_nodes = self.handle.snapshot.node_infos
        if not all_nodes:
            return [], {}, ["no nodes available"]
        potential, node_statuses = nodes_where_preemption_might_help(all_nodes, statuses)
        if not potential:
            return [], node_statuses, []
        num_candidates = self.calculate_num_candidates(len(potential))
        candidates, dry_run_statuses, errors = self.dry_run_preemption(
            state, pod, potential, self.handle.cluster.pdbs, 0, num_candidates
        )
        dry_run_statuses.update(node_statuses)
        return candidates, dry_run_statuses, errors

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """calculateNumCandidates: a percentage of the nodes, at least the absolute minimum, at most
        all of them (int32 arithmetic, all operands non-negative)."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential: Sequence[NodeInfo],
        pdbs: Sequence[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        """DryRunPreemption. Upstream starts at a random offset and checks nodes in parallel,
        stopping once it has enough candidates; kwhatif checks them one by one in node-name order
        from ``offset`` (0 when called by the plugin), so the answer does not depend on chance."""
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        node_statuses: dict[str, Status] = {}
        errors: list[str] = []
        for i in range(len(potential)):
            original = potential[(offset + i) % len(potential)]
            node_info = original.clone()
            state_copy = state.clone()
            victims, num_violations, pdb_violating, st = self.select_victims_on_node(state_copy, pod, node_info, pdbs)
            if st.is_success() and victims:
                c = Candidate(node_info.name, tuple(victims), num_violations, frozenset(pdb_violating))
                target = non_violating if num_violations == 0 else violating
                # candidateList has a fixed size: extra candidates are dropped.
                if len(target) < num_candidates:
                    target.append(c)
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if st.is_success():
                st = Status.error(f'expected at least one victim pod on node "{node_info.name}"')
            if st.code is Code.ERROR:
                errors.append(st.message())
            node_statuses[node_info.name] = st
        return non_violating + violating, node_statuses, errors

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[PodDisruptionBudget]
    ) -> tuple[list[Pod], int, list[str], Status]:
        """SelectVictimsOnNode, on a clone of the node and of the cycle state: evict every
        lower-priority pod, check the pod fits, then give back as many pods as possible, PDB-protected
        ones first, most important first. Returns the victims, how many of them break a PDB, the keys
        of those, and the status."""
        fw = self.handle

        def remove(pi: PodInfo) -> Status:
            node_info.remove_pod(pi.pod)
            return fw.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)

        def add(pi: PodInfo) -> Status:
            node_info.add_pod_info(pi)
            return fw.run_pre_filter_extension_add_pod(state, pod, pi, node_info)

        def fits() -> Status:
            fr = fw.run_filter_with_nominated_pods(state, pod, node_info, all_plugins=False)
            return fr.first if fr.first is not None else SUCCESS

        # In node order: upstream removes pods while ranging over the node's list, and its
        # swap-with-last removal still visits them in that order.
        potential = [pi for pi in node_info.pods if pi.pod.priority < pod.priority]
        for pi in potential:
            st = remove(pi)
            if not st.is_success():
                return [], 0, [], _as_error(st)
        if not potential:
            return [], 0, [], Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)

        # Even with every lower-priority pod gone the pod does not fit (affinity to a victim is not
        # considered, as upstream).
        st = fits()
        if not st.is_success():
            return [], 0, [], st

        # Most important first, ordered exactly as upstream's sort.Slice with MoreImportantPod does,
        # unstable sort and all: it decides which of several equal pods is given back first.
        go_sort_slice(potential, lambda a, b: more_important_pod(a.pod, b.pod))
        violating, non_violating = filter_pods_with_pdb_violation(
            potential, pdbs, self.handle.version.behaviour.preemption_pdb_empty_selector_matches_all
        )
        victims: list[Pod] = []
        pdb_violating: list[str] = []

        def reprieve(pi: PodInfo) -> tuple[bool, Status]:
            st = add(pi)
            if not st.is_success():
                return False, st
            if fits().is_success():
                return True, SUCCESS
            st = remove(pi)
            if not st.is_success():
                return False, st
            victims.append(pi.pod)
            return False, SUCCESS

        for pi in violating:
            kept, st = reprieve(pi)
            if not st.is_success():
                return [], 0, [], _as_error(st)
            if not kept:
                pdb_violating.append(pi.pod.key)
        for pi in non_violating:
            _, st = reprieve(pi)
            if not st.is_success():
                return [], 0, [], _as_error(st)
        if self.resort_victims and violating and non_violating:
            # Keep victims most important first: the candidate choice reads victims[0] (#128307).
            go_sort_slice(victims, more_important_pod)
        return victims, len(pdb_violating), pdb_violating, SUCCESS

    # --- SelectCandidate ------------------------------------------------------------------------

    def select_candidate(self, candidates: Sequence[Candidate]) -> tuple[Candidate | None, str]:
        """SelectCandidate: the only candidate, or the one pickOneNodeForPreemption prefers."""
        if not candidates:
            return None, ""
        if len(candidates) == 1:
            return candidates[0], BY_ONLY_CANDIDATE
        # CandidatesToVictimsMap: one entry per node (DefaultPreemption has one candidate per node).
        by_node: dict[str, Candidate] = {}
        for c in candidates:
            by_node[c.node] = c
        node, selected_by = pick_one_node_for_preemption(by_node)
        return by_node.get(node, candidates[0]), selected_by


def pod_terminating_by_preemption(pod: Pod, enable_pod_disruption_conditions: bool = True) -> bool:
    """podTerminatingByPreemption: the pod is being deleted and, with PodDisruptionConditions (on
    from v1.26), its DisruptionTarget condition is True with reason PreemptionByScheduler."""
    if not pod.deleting:
        return False
    if not enable_pod_disruption_conditions:
        return True
    return pod.disruption_target and pod.disruption_reason == REASON_PREEMPTION_BY_SCHEDULER


def nodes_where_preemption_might_help(
    nodes: Sequence[NodeInfo], statuses: Mapping[str, Status]
) -> tuple[list[NodeInfo], dict[str, Status]]:
    """nodesWherePreemptionMightHelp: only nodes that failed as Unschedulable can be helped by
    evicting pods. Nodes that failed as UnschedulableAndUnresolvable, and nodes never filtered
    (outside a PreFilterResult), get "Preemption is not helpful for scheduling"."""
    potential: list[NodeInfo] = []
    unresolvable: dict[str, Status] = {}
    not_helpful = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NOT_HELPFUL)
    for ni in nodes:
        st = statuses.get(ni.name)
        if st is not None and st.code is Code.UNSCHEDULABLE:
            potential.append(ni)
        elif st is None or st.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            unresolvable[ni.name] = not_helpful
    return potential, unresolvable


ScoreFunc = Callable[[Candidate], float]


def _min_pdb_violations(c: Candidate) -> float:
    return -c.num_pdb_violations


def _min_highest_priority(c: Candidate) -> float:
    # Victims[0] is taken as the highest-priority victim, as upstream does, even when a PDB-violating
    # victim of lower priority comes first.
    return -c.victims[0].priority


def _min_sum_priorities(c: Candidate) -> float:
    # Every priority is shifted by MaxInt32+1 so that it counts as positive: more pods never sum lower.
    return -sum(p.priority + _INT32_MAX + 1 for p in c.victims)


def _min_num_pods(c: Candidate) -> float:
    return -len(c.victims)


def _latest_start_time(c: Candidate) -> float:
    # Victims that never started count as starting now, after any recorded start. Upstream reads
    # the clock once per node, so among several such nodes the one it happens to score last wins;
    # here they tie and the next rule decides.
    return earliest_pod_start_time(c.victims)


SCORE_FUNCS: tuple[tuple[str, ScoreFunc], ...] = (
    (BY_PDB_VIOLATIONS, _min_pdb_violations),
    (BY_HIGHEST_PRIORITY, _min_highest_priority),
    (BY_SUM_PRIORITIES, _min_sum_priorities),
    (BY_NUM_VICTIMS, _min_num_pods),
    (BY_LATEST_START, _latest_start_time),
)


def pick_one_node_for_preemption(nodes_to_victims: Mapping[str, Candidate]) -> tuple[str, str]:
    """pickOneNodeForPreemption: apply each criterion in turn and stop as soon as one node is best.
    Returns the node and the criterion that decided. Upstream walks a Go map (random order) and its
    last resort is "the first node" of that order; kwhatif keeps the candidates' order (node names)."""
    if not nodes_to_victims:
        return "", ""
    remaining = list(nodes_to_victims)
    for name, fn in SCORE_FUNCS:
        best = -math.inf
        selected: list[str] = []
        for node in remaining:
            score = fn(nodes_to_victims[node])
            if score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0], name
        remaining = selected
    return remaining[0], BY_FIRST


# --- PodDisruptionBudgets ------------------------------------------------------------------------


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget], empty_matches_all: bool = False
) -> tuple[list[PodInfo], list[PodInfo]]:
    """filterPodsWithPDBViolation: split the victims, keeping their order, into those whose eviction
    would take a PDB below zero allowed disruptions and the others. Each matching pod that is not
    already in the PDB's disruptedPods uses up one allowed disruption."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pod_infos:
        pod = pi.pod
        violated = False
        # Until 1.37 a pod without labels matches no PDB, and an empty selector ({}), like a
        # missing one, matches nothing here; from 1.38 (#141785) the selector alone decides: {}
        # covers every pod of the namespace, a missing one none.
        if pod.labels or empty_matches_all:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                if (pdb.selector.empty and not empty_matches_all) or not pdb.selector.matches(pod.labels):
                    continue
                # Already being disrupted: the API server has accounted for it.
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


# --- util helpers (pkg/scheduler/util/utils.go) --------------------------------------------------


def pod_start_key(pod: Pod) -> float:
    """GetPodStartTime as a sortable number. A pod that has not started yet gets the current time
    upstream, which is later than any recorded start: it sorts after every pod with a start time."""
    return pod.start_time if pod.start_time else math.inf


def more_important_pod(a: Pod, b: Pod) -> bool:
    """MoreImportantPod: higher priority first, then the one that started earlier. A pod without a
    start time gets time.Now() at each call, so of two such pods of equal priority the first argument
    always counts as the earlier one: the answer is true both ways round, and Go's sort then reverses
    their order."""
    if a.priority != b.priority:
        return a.priority > b.priority
    if not a.start_time:
        return not b.start_time
    return not b.start_time or a.start_time < b.start_time


def earliest_pod_start_time(victims: Sequence[Pod]) -> float:
    """GetEarliestPodStartTime: the earliest start among the victims of the highest priority."""
    earliest = pod_start_key(victims[0])
    max_priority = victims[0].priority
    for p in victims:
        if p.priority == max_priority:
            earliest = min(earliest, pod_start_key(p))
        elif p.priority > max_priority:
            max_priority = p.priority
            earliest = pod_start_key(p)
    return earliest


def _as_error(st: Status) -> Status:
    return st if st.code is Code.ERROR else Status.error(st.message())


def _aggregate(errors: Sequence[str]) -> str:
    """utilerrors.NewAggregate(errs).Error()."""
    if len(errors) == 1:
        return errors[0]
    return "[" + ", ".join(errors) + "]"


def _summary(candidates: Sequence[Candidate], best: Candidate, selected_by: str) -> PreemptionDetails:
    """What the report shows about the decision: every victim with its priority and PDB verdict, the
    rule that picked the node, and the candidates that were compared."""
    return PreemptionDetails(
        node=best.node,
        selected_by=selected_by,
        victims=tuple(PreemptionVictim(v.key, v.priority, v.key in best.pdb_violating) for v in best.victims),
        pdb_violating_victims=tuple(sorted(best.pdb_violating)),
        num_pdb_violations=best.num_pdb_violations,
        candidates=tuple(
            PreemptionCandidate(
                node=c.node,
                victims=tuple(v.key for v in c.victims),
                num_pdb_violations=c.num_pdb_violations,
                highest_priority=c.victims[0].priority,
                sum_priorities=sum(v.priority for v in c.victims),
            )
            for c in candidates
        ),
    )


def new(args: DefaultPreemptionArgs, handle: Handle) -> DefaultPreemption:
    return DefaultPreemption(args, handle)
