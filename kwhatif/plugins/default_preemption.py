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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generic, Mapping, Sequence, TypeVar

from kwhatif.api.core import Pod, PodDisruptionBudget
from kwhatif.cache.node_info import NodeInfo, PodInfo
from kwhatif.errors import ConfigError
from kwhatif.framework.interface import (
    SUCCESS,
    Code,
    CycleState,
    PostFilterPlugin,
    PostFilterResult,
    Status,
)
from kwhatif.framework.profile import default_args
from kwhatif.plugins.helper import check_args

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle
    from kwhatif.framework.runtime import Framework

T = TypeVar("T")

NAME = "DefaultPreemption"

# Status messages, byte-exact from default_preemption.go and preemption.go.
MSG_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING_ON_NOMINATED_NODE = "not eligible due to a terminating pod on the nominated node."
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE = "no candidate node for preemption"
MSG_PREFIX = "preemption: "

PREEMPT_NEVER = "Never"
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
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


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

    def __init__(self, args: DefaultPreemptionArgs, handle: "Handle") -> None:
        self.args = args
        self.handle = handle
        self.resort_victims: bool = handle.version.behaviour.preemption_resorts_victims
        self.success_message: str | None = handle.version.behaviour.preemption_success_message

    @property
    def framework(self) -> "Framework":
        # The framework is attached to the handle after its plugins are built.
        fw = self.handle.framework
        assert fw is not None, "DefaultPreemption needs the framework on its handle"
        return fw

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
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
            # The FitError text over the preemption statuses; imported here because the scheduler
            # module sits above the plugins.
            from kwhatif.scheduler import fit_error_message

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
                for pi in ni.pods:
                    if pi.pod.priority < pod.priority and pod_terminating_by_preemption(pi.pod):
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
            victims, num_violations, pdb_violating, st = self.select_victims_on_node(
                state_copy, pod, node_info, pdbs
            )
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
        fw = self.framework

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
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
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


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """podTerminatingByPreemption with PodDisruptionConditions on (the v1.30 default): the pod is
    being deleted and carries DisruptionTarget=True. Upstream also requires the condition's reason to
    be PreemptionByScheduler, which the parsed Pod does not keep."""
    return pod.deleting and pod.disruption_target


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
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
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
        # A pod without labels matches no PDB.
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                # An empty selector ({}), like a missing one, matches nothing here.
                if pdb.selector.empty or not pdb.selector.matches(pod.labels):
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


# --- Go's sort.Slice ----------------------------------------------------------------------------


# The shifts of the xorshift that sort's breakPatterns draws its swaps from. Go 1.22, which
# kube-scheduler v1.30 is built with, uses 13, 17, 5 (sort.go; still so in go1.23, see
# golang/go#70144); later Go releases use the 64-bit triple 13, 7, 17. It only matters for a
# node with more than 12 potential victims whose partitions come out unbalanced.
XORSHIFT_GO122 = (13, 17, 5)
XORSHIFT_64 = (13, 7, 17)


def go_sort_slice(
    items: list[T], less: Callable[[T, T], bool], xorshift: tuple[int, int, int] = XORSHIFT_GO122
) -> None:
    """Sort in place exactly as Go's sort.Slice (pattern-defeating quicksort, Go 1.22) does.

    Upstream orders victims with an unstable sort and a comparison that is not a strict weak order
    for pods without a start time, so which of two equal pods comes first is decided by the
    algorithm itself, given the order of the input (a node's pods in cache order). Reproducing it
    step by step keeps kwhatif's victims identical to upstream's."""
    _GoSorter(items, less, xorshift).pdqsort(0, len(items), len(items).bit_length())


_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2
_MASK64 = (1 << 64) - 1


def xorshift_next(state: int, shifts: tuple[int, int, int] = XORSHIFT_GO122) -> int:
    """sort's xorshift.Next on a uint64: left, right, left."""
    a, b, c = shifts
    state ^= (state << a) & _MASK64
    state ^= state >> b
    state ^= (state << c) & _MASK64
    return state


class _GoSorter(Generic[T]):
    __slots__ = ("data", "_less", "swaps", "_xorshift")

    def __init__(self, data: list[T], less: Callable[[T, T], bool], xorshift: tuple[int, int, int]) -> None:
        self.data = data
        self._less = less
        self.swaps = 0  # choosePivot's swap counter
        self._xorshift = xorshift

    def less(self, i: int, j: int) -> bool:
        return self._less(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        d = self.data
        d[i], d[j] = d[j], d[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= 12:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT
            if was_balanced and was_partitioned and hint == _INCREASING_HINT:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left_len, right_len = mid - a, b - mid
            threshold = length // 8
            if left_len < right_len:
                was_balanced = left_len >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right_len >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        i = a + 1
        for _ in range(5):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < 50:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                # Go's loop runs down to index 1, not to a+1.
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        random = length  # xorshift seeded with the length
        modulus = 1 << length.bit_length()
        start = a + (length // 4) * 2 - 1
        for idx in range(start, start + 3):
            random = xorshift_next(random, self._xorshift)
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        n = b - a
        self.swaps = 0
        i, j, k = a + n // 4, a + n // 4 * 2, a + n // 4 * 3
        if n >= 8:
            if n >= 50:
                i = self.median(i - 1, i, i + 1)
                j = self.median(j - 1, j, j + 1)
                k = self.median(k - 1, k, k + 1)
            j = self.median(i, j, k)
        if self.swaps == 0:
            return j, _INCREASING_HINT
        if self.swaps == 12:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    def order2(self, a: int, b: int) -> tuple[int, int]:
        if self.less(b, a):
            self.swaps += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int) -> int:
        a, b = self.order2(a, b)
        b, c = self.order2(b, c)
        a, b = self.order2(a, b)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1


def _as_error(st: Status) -> Status:
    return st if st.code is Code.ERROR else Status.error(st.message())


def _aggregate(errors: Sequence[str]) -> str:
    """utilerrors.NewAggregate(errs).Error()."""
    if len(errors) == 1:
        return errors[0]
    return "[" + ", ".join(errors) + "]"


def _summary(candidates: Sequence[Candidate], best: Candidate, selected_by: str) -> dict[str, Any]:
    """What the report shows about the decision: every victim with its priority and PDB verdict, the
    rule that picked the node, and the candidates that were compared."""
    return {
        "node": best.node,
        "selectedBy": selected_by,
        "victims": [
            {"pod": v.key, "priority": v.priority, "pdbViolation": v.key in best.pdb_violating} for v in best.victims
        ],
        "pdbViolatingVictims": sorted(best.pdb_violating),
        "numPDBViolations": best.num_pdb_violations,
        "candidates": [
            {
                "node": c.node,
                "victims": [v.key for v in c.victims],
                "numPDBViolations": c.num_pdb_violations,
                "highestPriority": c.victims[0].priority,
                "sumPriorities": sum(v.priority for v in c.victims),
            }
            for c in candidates
        ],
    }


# --- args ----------------------------------------------------------------------------------------


def parse_args(args: Mapping[str, Any] | None) -> DefaultPreemptionArgs:
    """Defaults field by field, then ValidateDefaultPreemptionArgs (validation_pluginargs.go)."""
    defaults = default_args()[NAME]
    a = check_args(NAME, args, {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"})
    values: dict[str, int] = {}
    for key in ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"):
        v = a.get(key)
        if v is None:
            v = defaults[key]
        if isinstance(v, bool) or not isinstance(v, int) or not -(_INT32_MAX + 1) <= v <= _INT32_MAX:
            raise ConfigError("must be a 32-bit integer", field=key)
        values[key] = v
    pct, absolute = values["minCandidateNodesPercentage"], values["minCandidateNodesAbsolute"]
    errs: list[tuple[str, str]] = []
    if pct < 0 or pct > 100:
        errs.append(("minCandidateNodesPercentage", f"Invalid value: {pct}: not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(("minCandidateNodesAbsolute", f"Invalid value: {absolute}: not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(
            (
                "minCandidateNodesPercentage",
                "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
            )
        )
        errs.append(
            (
                "minCandidateNodesAbsolute",
                "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage",
            )
        )
    if len(errs) == 1:
        raise ConfigError(errs[0][1], field=errs[0][0])
    if errs:
        # An aggregate of field errors prints as "[field: msg, field: msg]".
        raise ConfigError("[" + ", ".join(f"{f}: {m}" for f, m in errs) + "]")
    return DefaultPreemptionArgs(pct, absolute)


def new(args: Mapping[str, Any] | None, handle: "Handle") -> DefaultPreemption:
    return DefaultPreemption(parse_args(args), handle)
