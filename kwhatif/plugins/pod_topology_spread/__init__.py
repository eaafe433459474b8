"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread).

Filter enforces the pod's DoNotSchedule constraints; Score prefers the nodes whose domains hold
the fewest matching pods under its ScheduleAnyway constraints. A pod without constraints of its
own gets the profile's default constraints, whose selector is deduced from the Services and the
controller that select the pod (helper.DefaultSelector).

Cost per cycle is linear in nodes plus pods: PreFilter and PreScore count matching pods once per
node and keep the counts per topology domain; Filter and Score only look them up (the hostname
constraint is counted per node in Score, over that node's pods only).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api.core import (
    Node,
    NodeInclusionPolicy,
    Pod,
    TopologySpreadConstraint,
    WhenUnsatisfiable,
)
from kwhatif.api.labels import NOTHING, Selector, selector_from_set
from kwhatif.cache.node_info import NodeInfo, PodInfo
from kwhatif.config.types import SYSTEM_DEFAULTING, PodTopologySpreadArgs
from kwhatif.framework.interface import (
    ERR_NOT_FOUND,
    MAX_NODE_SCORE,
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.gocompat import go_round
from kwhatif.plugins.helper import DO_NOT_SCHEDULE_EFFECTS, find_matching_untolerated_taint
from kwhatif.plugins.node_affinity import RequiredNodeAffinity

if TYPE_CHECKING:
    from kwhatif.cache.cluster import Workload
    from kwhatif.framework.handle import Handle

NAME = "PodTopologySpread"
PRE_FILTER_STATE_KEY: StateKey[PreFilterState] = StateKey("PreFilter" + NAME)
PRE_SCORE_STATE_KEY: StateKey[PreScoreState] = StateKey("PreScore" + NAME)
# The two reads word a missing state differently (filtering.go, scoring.go).
ERR_READ_PRE_FILTER_STATE = f'reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {ERR_NOT_FOUND}'
ERR_READ_PRE_SCORE_STATE = f'error reading "{PRE_SCORE_STATE_KEY.name}" from cycleState: {ERR_NOT_FOUND}'

# podtopologyspread/plugin.go
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"


# plugin.go systemDefaultConstraints: soft spreading over hosts and zones.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(3, LABEL_HOSTNAME, WhenUnsatisfiable.SCHEDULE_ANYWAY, NOTHING),
    TopologySpreadConstraint(5, LABEL_TOPOLOGY_ZONE, WhenUnsatisfiable.SCHEDULE_ANYWAY, NOTHING),
)

# Controllers whose selector joins the default selector, by the controlling owner reference's
# (apiVersion, kind); helper/spread.go compares the parsed group/version/kind exactly.
_RC = ("v1", "ReplicationController")
_RS = ("apps/v1", "ReplicaSet")
_SS = ("apps/v1", "StatefulSet")

# math.MaxInt32, the "no domain seen yet" match count of a critical path.
_MAX_INT32 = (1 << 31) - 1
# scoring.go invalidScore: marks nodes that are ignored while normalizing.
_INVALID_SCORE = -1

TopologyPair = tuple[str, str]


# --- constraints -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Constraint:
    """topologySpreadConstraint: a pod's constraint with matchLabelKeys merged into its
    selector and the nil fields resolved (minDomains 1, Honor node affinity, Ignore taints)."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    node_affinity_policy: NodeInclusionPolicy
    node_taints_policy: NodeInclusionPolicy
    # TaintTolerationComparisonOperators: Gt/Lt tolerations compare integers under nodeTaintsPolicy Honor
    comparison_operators: bool = False
    # an empty selector ({}) counts every pod of the namespace (1.38, #141340); before, nothing
    empty_selector_counts_all: bool = False

    def matches_node_inclusion_policies(self, pod: Pod, node: Node, required: RequiredNodeAffinity) -> bool:
        if self.node_affinity_policy is NodeInclusionPolicy.HONOR and not required.matches(node.labels, node.name):
            return False
        if self.node_taints_policy is NodeInclusionPolicy.HONOR and (
            find_matching_untolerated_taint(
                node.taints, pod.tolerations, DO_NOT_SCHEDULE_EFFECTS, self.comparison_operators
            )
            is not None
        ):
            return False
        return True


def _merge_label_set(match_labels: Mapping[str, str], sel: Selector) -> Selector:
    """mergeLabelSetWithSelector: the pod's values for matchLabelKeys ANDed into the selector.
    A selector that selects nothing has no requirements to merge and stays as it is."""
    if sel.nothing:
        return sel
    base = selector_from_set(match_labels)
    return Selector(base.requirements + sel.requirements)


def filter_constraints(
    constraints: Sequence[TopologySpreadConstraint],
    pod_labels: Mapping[str, str],
    action: WhenUnsatisfiable,
    comparison_operators: bool = False,
    empty_selector_counts_all: bool = False,
) -> list[Constraint]:
    """filterTopologySpreadConstraints with MatchLabelKeysInPodTopologySpread and
    NodeInclusionPolicyInPodTopologySpread on (their v1.30 defaults)."""
    out: list[Constraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        sel = c.label_selector
        if c.match_label_keys:
            match_labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
            if match_labels:
                sel = _merge_label_set(match_labels, sel)
        out.append(
            Constraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=sel,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                node_affinity_policy=c.node_affinity_policy or NodeInclusionPolicy.HONOR,
                node_taints_policy=c.node_taints_policy or NodeInclusionPolicy.IGNORE,
                comparison_operators=comparison_operators,
                empty_selector_counts_all=empty_selector_counts_all,
            )
        )
    return out


def node_labels_match_constraints(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: the node has every topology key."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


def count_pods_match_selector(
    pod_infos: Sequence[PodInfo], selector: Selector, namespace: str, empty_counts_all: bool = False
) -> int:
    """countPodsMatchSelector: pods of the namespace that the selector matches, skipping
    terminating pods. An empty selector counts nothing, as upstream until 1.37; with
    ``empty_counts_all`` (1.38, #141340) it counts every pod of the namespace."""
    if selector.empty and not empty_counts_all:
        return 0
    count = 0
    for pi in pod_infos:
        p = pi.pod
        if p.deleting or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            count += 1
    return count


# --- default selector (helper/spread.go) -------------------------------------------------------


class DefaultSelectorSource:
    """Reads the Services and controllers of the handle's cluster for helper.DefaultSelector.

    The controllers' selectors were parsed when they were loaded (load/cluster.py's Workload).
    """

    __slots__ = ("_handle",)

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def selector(self, pod: Pod) -> Selector:
        """helper.DefaultSelector: the Services' selectors merged, plus the controlling
        ReplicationController's, ReplicaSet's or StatefulSet's."""
        label_set: dict[str, str] = {}
        for svc in self._handle.cluster.services:
            if svc.namespace != pod.namespace:
                continue
            # A nil selector matches nothing; an empty one matches every pod but adds no label,
            # so both leave the set as it is.
            if all(pod.labels.get(k) == v for k, v in svc.selector.items()):
                label_set.update(svc.selector)
        sel = selector_from_set(label_set)
        owner = pod.controller_ref
        if owner is None:
            return sel
        gvk = (owner.api_version, owner.kind)
        if gvk == _RC:
            w = self._workload("ReplicationController", pod.namespace, owner.name)
            if w is not None and w.selector_set is not None:
                label_set.update(w.selector_set)
                sel = selector_from_set(label_set)
        elif gvk in (_RS, _SS):
            w = self._workload(owner.kind, pod.namespace, owner.name)
            other = w.selector if w is not None else None
            # a selector that selects nothing has no requirements to add (Requirements() is not ok)
            if other is not None and not other.nothing and other.requirements:
                sel = Selector(sel.requirements + other.requirements)
        return sel

    def _workload(self, kind: str, namespace: str, name: str) -> Workload | None:
        w: Workload | None = self._handle.cluster.workloads.get((kind, namespace, name))
        return w


# --- PreFilter state ---------------------------------------------------------------------------


class CriticalPaths:
    """criticalPaths: the two domains with the fewest matching pods of one topology key.

    Slot 0 always holds the minimum; slot 1 is at least that, not always the second minimum.
    Good enough because preemption and nominated pods only change the counts of one node.
    """

    __slots__ = ("values", "nums")

    def __init__(self) -> None:
        self.values = ["", ""]
        self.nums = [_MAX_INT32, _MAX_INT32]

    def copy(self) -> CriticalPaths:
        c = CriticalPaths()
        c.values = list(self.values)
        c.nums = list(self.nums)
        return c

    def update(self, value: str, num: int) -> None:
        vals, nums = self.values, self.nums
        if value == vals[0]:
            i = 0
        elif value == vals[1]:
            i = 1
        else:
            i = -1
        if i >= 0:
            nums[i] = num
            if nums[0] > nums[1]:
                vals.reverse()
                nums.reverse()
        elif num < nums[0]:
            vals[1], nums[1] = vals[0], nums[0]
            vals[0], nums[0] = value, num
        elif num < nums[1]:
            vals[1], nums[1] = value, num


class PreFilterState:
    """preFilterState: the DoNotSchedule constraints, matching pods per domain, the domain
    with the fewest of them per topology key, and the number of domains per key."""

    __slots__ = ("constraints", "critical_paths", "domains_num", "match_num")

    def __init__(
        self,
        constraints: tuple[Constraint, ...] = (),
        critical_paths: dict[str, CriticalPaths] | None = None,
        domains_num: dict[str, int] | None = None,
        match_num: dict[TopologyPair, int] | None = None,
    ) -> None:
        self.constraints = constraints
        self.critical_paths = critical_paths or {}
        self.domains_num = domains_num or {}
        self.match_num = match_num or {}

    def clone(self) -> PreFilterState:
        # constraints and domain counts never change after PreFilter, so they are shared
        return PreFilterState(
            self.constraints,
            {k: p.copy() for k, p in self.critical_paths.items()},
            self.domains_num,
            dict(self.match_num),
        )

    def min_match_num(self, key: str, min_domains: int) -> int | None:
        """The global minimum for the skew; 0 when fewer than minDomains domains exist.
        None where upstream fails to find the key (the constraint is then not checked)."""
        paths = self.critical_paths.get(key)
        if paths is None:
            return None
        domains = self.domains_num.get(key)
        if domains is None:
            return None
        if domains < min_domains:
            return 0
        return paths.nums[0]


# --- PreScore state ----------------------------------------------------------------------------


@dataclass(slots=True)
class PreScoreState:
    """preScoreState: the ScheduleAnyway constraints, the nodes not scored, matching pods per
    domain (hostname is counted per node in Score) and each constraint's topology weight."""

    constraints: tuple[Constraint, ...]
    ignored_nodes: set[str]
    pair_counts: dict[TopologyPair, int]
    weights: list[float]

    def clone(self) -> PreScoreState:
        # never changed after PreScore
        return self


def topology_normalizing_weight(size: int) -> float:
    """Smaller topologies weigh less, so their counts are not watered down by bigger ones."""
    return math.log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    # maxSkew-1 waters down the differences between domains: the tolerance to skew
    return float(cnt) * weight + float(max_skew - 1)


# --- the plugin --------------------------------------------------------------------------------


class PodTopologySpread(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(
        self,
        handle: Handle,
        default_constraints: tuple[TopologySpreadConstraint, ...],
        system_defaulted: bool,
    ) -> None:
        self.handle = handle
        self.default_constraints = default_constraints
        self.system_defaulted = system_defaulted
        self.comparison_operators = handle.version.gate("TaintTolerationComparisonOperators")
        self.empty_selector_counts_all = handle.version.behaviour.spread_empty_selector_matches_all
        self._selectors = DefaultSelectorSource(handle) if default_constraints else None

    # --- constraints of a pod -------------------------------------------------------------------

    def build_default_constraints(self, pod: Pod, action: WhenUnsatisfiable) -> list[Constraint]:
        """buildDefaultConstraints: the default constraints of this action, selecting what the
        pod's Services and controller select; none when they select nothing in particular."""
        constraints = filter_constraints(
            self.default_constraints, pod.labels, action, self.comparison_operators, self.empty_selector_counts_all
        )
        if not constraints or self._selectors is None:
            return []
        sel = self._selectors.selector(pod)
        if sel.empty:
            return []
        return [dataclasses.replace(c, selector=sel) for c in constraints]

    def constraints_for(self, pod: Pod, action: WhenUnsatisfiable) -> list[Constraint]:
        """getConstraints (for DoNotSchedule) and the PreScore counterpart: the pod's own
        constraints, or the defaults only when it has none at all."""
        if pod.topology_spread_constraints:
            return filter_constraints(
                pod.topology_spread_constraints,
                pod.labels,
                action,
                self.comparison_operators,
                self.empty_selector_counts_all,
            )
        return self.build_default_constraints(pod, action)

    # --- PreFilter ------------------------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        constraints = self.constraints_for(pod, WhenUnsatisfiable.DO_NOT_SCHEDULE)
        if not constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, self._pre_filter_state(pod, tuple(constraints)))
        return None, SUCCESS

    def write_pre_filter_state(self, state: CycleState, s: PreFilterState) -> None:
        """Hand Filter a PreFilter state computed elsewhere (the per-template cache keeps one up
        to date instead of recounting it): what pre_filter writes when it does not skip."""
        state.write(PRE_FILTER_STATE_KEY, s)

    def _pre_filter_state(self, pod: Pod, constraints: tuple[Constraint, ...]) -> PreFilterState:
        required = RequiredNodeAffinity.of(pod)
        match_num: dict[TopologyPair, int] = {}
        for ni in self.handle.snapshot.node_infos:
            node = ni.node
            labels = node.labels
            if not node_labels_match_constraints(labels, constraints):
                continue
            # Constraints sharing a topology key share the pair: the last one counted wins on
            # this node, as upstream's per-node map does.
            node_counts: dict[TopologyPair, int] = {}
            for c in constraints:
                if not c.matches_node_inclusion_policies(pod, node, required):
                    continue
                pair = (c.topology_key, labels[c.topology_key])
                node_counts[pair] = count_pods_match_selector(
                    ni.pods, c.selector, pod.namespace, c.empty_selector_counts_all
                )
            for pair, n in node_counts.items():
                match_num[pair] = match_num.get(pair, 0) + n
        domains_num: dict[str, int] = {}
        for key, _ in match_num:
            domains_num[key] = domains_num.get(key, 0) + 1
        paths = {c.topology_key: CriticalPaths() for c in constraints}
        # upstream walks a Go map here; sorted pairs make the recorded domains deterministic
        for pair in sorted(match_num):
            paths[pair[0]].update(pair[1], match_num[pair])
        return PreFilterState(constraints, paths, domains_num, match_num)

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_READ_PRE_FILTER_STATE)
        self._update_with_pod(s, to_add.pod, pod, node_info.node, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_READ_PRE_FILTER_STATE)
        self._update_with_pod(s, to_remove.pod, pod, node_info.node, -1)
        return SUCCESS

    def _update_with_pod(self, s: PreFilterState, updated: Pod, preemptor: Pod, node: Node | None, delta: int) -> None:
        if updated.namespace != preemptor.namespace or node is None:
            return
        if not node_labels_match_constraints(node.labels, s.constraints):
            return
        required = RequiredNodeAffinity.of(preemptor)
        for c in s.constraints:
            if not c.selector.matches(updated.labels):
                continue
            if not c.matches_node_inclusion_policies(preemptor, node, required):
                continue
            pair = (c.topology_key, node.labels[c.topology_key])
            n = s.match_num.get(pair, 0) + delta
            s.match_num[pair] = n
            s.critical_paths[c.topology_key].update(pair[1], n)

    # --- Filter ---------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_READ_PRE_FILTER_STATE)
        labels = node_info.node.labels
        for c in s.constraints:
            value = labels.get(c.topology_key)
            if value is None:
                return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
            min_match = s.min_match_num(c.topology_key, c.min_domains)
            if min_match is None:
                # upstream logs the missing key and does not check this constraint
                continue
            self_match = 1 if c.selector.matches(pod.labels) else 0
            match = s.match_num.get((c.topology_key, value), 0)
            if match + self_match - min_match > c.max_skew:
                return Status.of(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return SUCCESS

    # --- PreScore and Score ---------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        all_nodes = self.handle.snapshot.node_infos
        if not all_nodes:
            return SKIP
        # Only the pod's own constraints or a List default need every topology key on a node;
        # with the system defaults a node without a zone label still spreads by hostname.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        constraints = tuple(self.constraints_for(pod, WhenUnsatisfiable.SCHEDULE_ANYWAY))
        if not constraints:
            return SKIP
        ignored: set[str] = set()
        pair_counts: dict[TopologyPair, int] = {}
        topo_size = [0] * len(constraints)
        for ni in nodes:
            labels = ni.node.labels
            if require_all and not node_labels_match_constraints(labels, constraints):
                ignored.add(ni.name)
                continue
            for i, c in enumerate(constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue
                # a node without the key makes the "" domain, which counts toward the weight
                pair = (c.topology_key, labels.get(c.topology_key, ""))
                if pair not in pair_counts:
                    pair_counts[pair] = 0
                    topo_size[i] += 1
        weights: list[float] = []
        for i, c in enumerate(constraints):
            size = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                size = len(nodes) - len(ignored)
            weights.append(topology_normalizing_weight(size))

        required = RequiredNodeAffinity.of(pod)
        for ni in all_nodes:
            node = ni.node
            labels = node.labels
            if require_all and not node_labels_match_constraints(labels, constraints):
                continue
            for c in constraints:
                if not c.matches_node_inclusion_policies(pod, node, required):
                    continue
                pair = (c.topology_key, labels.get(c.topology_key, ""))
                # only domains of candidate nodes are counted; hostname is counted in Score
                if pair not in pair_counts:
                    continue
                pair_counts[pair] += count_pods_match_selector(
                    ni.pods, c.selector, pod.namespace, c.empty_selector_counts_all
                )
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(constraints, ignored, pair_counts, weights))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            return 0, Status.error(ERR_READ_PRE_SCORE_STATE)
        node = node_info.node
        if node.name in s.ignored_nodes:
            return 0, SUCCESS
        total = 0.0
        for i, c in enumerate(s.constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                cnt = count_pods_match_selector(node_info.pods, c.selector, pod.namespace, c.empty_selector_counts_all)
            else:
                cnt = s.pair_counts.get((c.topology_key, value), 0)
            total += score_for_count(cnt, c.max_skew, s.weights[i])
        return go_round(total), SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        try:
            s = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_READ_PRE_SCORE_STATE)
        min_score = (1 << 63) - 1
        max_score = 0
        for ns in scores:
            if ns.name in s.ignored_nodes:
                ns.score = _INVALID_SCORE
                continue
            min_score = min(min_score, ns.score)
            max_score = max(max_score, ns.score)
        for ns in scores:
            if ns.score == _INVALID_SCORE:
                ns.score = 0
            elif max_score == 0:
                ns.score = MAX_NODE_SCORE
            else:
                # every operand is non-negative, so floor division is Go's truncation
                ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
        return SUCCESS


def new(args: PodTopologySpreadArgs, handle: Handle) -> PodTopologySpread:
    if args.defaulting_type == SYSTEM_DEFAULTING:
        return PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, True)
    return PodTopologySpread(handle, args.default_constraints, False)
