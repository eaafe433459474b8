"""InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity): required pod affinity and
anti-affinity of the incoming pod, required anti-affinity of the pods already running, and the
preferred (and, weighted by hardPodAffinityWeight, the existing pods' required) terms as a score.

Everything is counted per topology pair (label key, value of that key on the node of a matching
pod). PreFilter builds the counts once, Filter only looks the node's pairs up; AddPod/RemovePod
adjust a cloned copy when the framework evaluates nominated pods or preemption victims.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api.core import Node, Pod
from kwhatif.api.labels import NOTHING
from kwhatif.cache.node_info import AffinityTerm, NodeInfo, PodInfo, WeightedAffinityTerm
from kwhatif.config.types import InterPodAffinityArgs
from kwhatif.framework.interface import (
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

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "InterPodAffinity"
PRE_FILTER_STATE_KEY: StateKey[PreFilterState] = StateKey("PreFilter" + NAME)
PRE_SCORE_STATE_KEY: StateKey[PreScoreState] = StateKey("PreScore" + NAME)

# interpodaffinity/filtering.go
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

# The incoming pod's terms are matched with no namespace labels at all (upstream passes nil): after
# merging, their namespace selector is either Nothing or Everything, and an empty label set gives
# both the answer a nil set gives.
_NO_NAMESPACE_LABELS: dict[str, str] = {}

TopologyPair = tuple[str, str]


class TopologyCounts(dict[TopologyPair, int]):
    """topologyToMatchedTermCount: how many matches each topology pair holds. A pair whose count
    drops to zero disappears, so emptiness means "nothing matched anywhere"."""

    def clone(self) -> TopologyCounts:
        return TopologyCounts(self)

    def update_pair(self, node: Node, topology_key: str, value: int) -> None:
        tv = node.labels.get(topology_key)
        if tv is None:
            return
        pair = (topology_key, tv)
        n = self.get(pair, 0) + value
        if n == 0:
            self.pop(pair, None)
        else:
            self[pair] = n

    def update_with_affinity_terms(self, terms: Sequence[AffinityTerm], pod: Pod, node: Node, value: int) -> None:
        """Count the pod once per term, but only when it matches every term."""
        if pod_matches_all_affinity_terms(terms, pod):
            for t in terms:
                self.update_pair(node, t.topology_key, value)

    def update_with_anti_affinity_terms(
        self,
        terms: Sequence[AffinityTerm],
        pod: Pod,
        ns_labels: dict[str, str],
        node: Node,
        value: int,
    ) -> None:
        """Count the pod once for each term it matches."""
        for t in terms:
            if t.matches(pod, ns_labels):
                self.update_pair(node, t.topology_key, value)


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """True only for a non-empty list of (incoming pod's, merged) terms that all match the pod."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(pod, _NO_NAMESPACE_LABELS):
            return False
    return True


@dataclass(slots=True)
class PreFilterState:
    # existing pods whose required anti-affinity terms match the incoming pod
    existing_anti_affinity_counts: TopologyCounts
    # existing pods matching all of the incoming pod's required affinity terms
    affinity_counts: TopologyCounts
    # existing pods matching the incoming pod's required anti-affinity terms
    anti_affinity_counts: TopologyCounts
    # the incoming pod with its required terms' namespace selectors merged into the namespaces
    required_affinity_terms: tuple[AffinityTerm, ...]
    required_anti_affinity_terms: tuple[AffinityTerm, ...]
    pod: Pod
    namespace_labels: dict[str, str]

    def clone(self) -> PreFilterState:
        # the terms, the pod and the namespace labels never change after PreFilter
        return PreFilterState(
            self.existing_anti_affinity_counts.clone(),
            self.affinity_counts.clone(),
            self.anti_affinity_counts.clone(),
            self.required_affinity_terms,
            self.required_anti_affinity_terms,
            self.pod,
            self.namespace_labels,
        )

    def update_with_pod(self, pi: PodInfo, node: Node, multiplier: int) -> None:
        self.existing_anti_affinity_counts.update_with_anti_affinity_terms(
            pi.required_anti_affinity_terms, self.pod, self.namespace_labels, node, multiplier
        )
        self.affinity_counts.update_with_affinity_terms(self.required_affinity_terms, pi.pod, node, multiplier)
        self.anti_affinity_counts.update_with_anti_affinity_terms(
            self.required_anti_affinity_terms, pi.pod, _NO_NAMESPACE_LABELS, node, multiplier
        )


@dataclass(slots=True)
class PreScoreState:
    # topology key -> topology value -> summed weight
    topology_score: dict[str, dict[str, int]]

    def clone(self) -> PreScoreState:
        # nothing mutates it after PreScore
        return self


def _process_term(
    scores: dict[str, dict[str, int]],
    term: AffinityTerm,
    weight: int,
    pod: Pod,
    ns_labels: dict[str, str],
    node: Node,
    multiplier: int,
) -> None:
    if term.matches(pod, ns_labels):
        tv = node.labels.get(term.topology_key)
        if tv is not None:
            by_value = scores.setdefault(term.topology_key, {})
            by_value[tv] = by_value.get(tv, 0) + weight * multiplier


def _process_terms(
    scores: dict[str, dict[str, int]],
    terms: Iterable[WeightedAffinityTerm],
    pod: Pod,
    ns_labels: dict[str, str],
    node: Node,
    multiplier: int,
) -> None:
    for t in terms:
        _process_term(scores, t.term, t.weight, pod, ns_labels, node, multiplier)


class InterPodAffinity(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle

    # --- namespaces -----------------------------------------------------------------------------

    def _namespaces_with_labels(self, pod: Pod) -> dict[str, Mapping[str, str]]:
        """What the namespace lister would list: the cluster's namespaces, plus those that the
        snapshot's pods (and the incoming pod) run in but the input left out; such a namespace
        exists in any real cluster, so it gets the labels the handle gives it."""
        cluster = self.handle.cluster
        out: dict[str, Mapping[str, str]] = {name: ns.labels for name, ns in cluster.namespaces.items()}
        for ns in self.handle.snapshot.namespaces():
            if ns not in out:
                out[ns] = self.handle.namespace_labels(ns)
        if pod.namespace not in out:
            out[pod.namespace] = self.handle.namespace_labels(pod.namespace)
        return out

    def merge_namespaces(self, pod: Pod, *term_lists: Sequence[AffinityTerm]) -> list[tuple[AffinityTerm, ...]]:
        """mergeAffinityTermNamespacesIfNotEmpty over each list: unroll a non-empty namespace
        selector into the term's namespaces, leaving a selector that matches nothing. An empty
        selector (every namespace) stays as it is. Public: the per-template cache
        (kwhatif.incremental) merges its terms the same way."""
        if all(t.namespace_selector.empty for terms in term_lists for t in terms):
            return [tuple(terms) for terms in term_lists]
        namespaces = self._namespaces_with_labels(pod)
        out: list[tuple[AffinityTerm, ...]] = []
        for terms in term_lists:
            merged: list[AffinityTerm] = []
            for t in terms:
                if t.namespace_selector.empty:
                    merged.append(t)
                    continue
                selected = {name for name, labels in namespaces.items() if t.namespace_selector.matches(labels)}
                merged.append(AffinityTerm(t.namespaces | selected, t.selector, t.topology_key, NOTHING))
            out.append(tuple(merged))
        return out

    # --- PreFilter ------------------------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        snapshot = self.handle.snapshot
        pi = PodInfo.of(pod)
        required_affinity, required_anti_affinity = self.merge_namespaces(
            pod, pi.required_affinity_terms, pi.required_anti_affinity_terms
        )
        ns_labels = self.handle.namespace_labels(pod.namespace)

        existing_anti = TopologyCounts()
        for ni in snapshot.have_pods_with_required_anti_affinity():
            for existing in ni.pods_with_required_anti_affinity:
                existing_anti.update_with_anti_affinity_terms(
                    existing.required_anti_affinity_terms, pod, ns_labels, ni.node, 1
                )

        affinity = TopologyCounts()
        anti_affinity = TopologyCounts()
        if required_affinity or required_anti_affinity:
            for ni in snapshot.node_infos:
                for existing in ni.pods:
                    affinity.update_with_affinity_terms(required_affinity, existing.pod, ni.node, 1)
                    anti_affinity.update_with_anti_affinity_terms(
                        required_anti_affinity, existing.pod, _NO_NAMESPACE_LABELS, ni.node, 1
                    )

        if not existing_anti and not required_affinity and not required_anti_affinity:
            return None, SKIP
        state.write(
            PRE_FILTER_STATE_KEY,
            PreFilterState(
                existing_anti, affinity, anti_affinity, required_affinity, required_anti_affinity, pod, ns_labels
            ),
        )
        return None, SUCCESS

    def write_pre_filter_state(self, state: CycleState, s: PreFilterState) -> None:
        """Hand Filter a PreFilter state computed elsewhere (the per-template cache keeps one up
        to date instead of recounting it): what pre_filter writes when it does not skip."""
        state.write(PRE_FILTER_STATE_KEY, s)

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo) -> Status:
        s = _pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(to_add, node_info.node, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        s = _pre_filter_state(state)
        if isinstance(s, Status):
            return s
        s.update_with_pod(to_remove, node_info.node, -1)
        return SUCCESS

    # --- Filter ---------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = _pre_filter_state(state)
        if isinstance(s, Status):
            return s
        node = node_info.node
        if not _satisfy_pod_affinity(s, node):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not _satisfy_pod_anti_affinity(s, node):
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not _satisfy_existing_pods_anti_affinity(s, node):
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return SUCCESS

    # --- PreScore and Score ---------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        if not nodes:
            return SKIP
        aff = pod.affinity
        has_constraints = aff is not None and (
            (aff.pod_affinity is not None and len(aff.pod_affinity.preferred) > 0)
            or (aff.pod_anti_affinity is not None and len(aff.pod_anti_affinity.preferred) > 0)
        )
        # The option only spares the existing pods' terms when the incoming pod has no preferences
        # of its own; otherwise every term still counts, as upstream does.
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP

        snapshot = self.handle.snapshot
        # Without preferences of the incoming pod, only pods with (anti-)affinity can contribute.
        candidates = snapshot.node_infos if has_constraints else snapshot.have_pods_with_affinity()
        pi = PodInfo.of(pod)
        aff_terms, anti_terms = self.merge_namespaces(
            pod, [t.term for t in pi.preferred_affinity_terms], [t.term for t in pi.preferred_anti_affinity_terms]
        )
        preferred_affinity = [WeightedAffinityTerm(m, t.weight) for m, t in zip(aff_terms, pi.preferred_affinity_terms)]
        preferred_anti_affinity = [
            WeightedAffinityTerm(m, t.weight) for m, t in zip(anti_terms, pi.preferred_anti_affinity_terms)
        ]
        ns_labels = self.handle.namespace_labels(pod.namespace)
        hard_weight = self.args.hard_pod_affinity_weight

        topology_score: dict[str, dict[str, int]] = {}
        contributed = False
        for ni in candidates:
            node = ni.node
            # a node without labels has no topology value to credit
            if not node.labels:
                continue
            node_scores: dict[str, dict[str, int]] = {}
            for existing in ni.pods if has_constraints else ni.pods_with_affinity:
                ep = existing.pod
                _process_terms(node_scores, preferred_affinity, ep, _NO_NAMESPACE_LABELS, node, 1)
                _process_terms(node_scores, preferred_anti_affinity, ep, _NO_NAMESPACE_LABELS, node, -1)
                if hard_weight > 0:
                    for t in existing.required_affinity_terms:
                        _process_term(node_scores, t, hard_weight, pod, ns_labels, node, 1)
                _process_terms(node_scores, existing.preferred_affinity_terms, pod, ns_labels, node, 1)
                _process_terms(node_scores, existing.preferred_anti_affinity_terms, pod, ns_labels, node, -1)
            if node_scores:
                contributed = True
                for key, by_value in node_scores.items():
                    total = topology_score.setdefault(key, {})
                    for value, w in by_value.items():
                        total[value] = total.get(value, 0) + w
        # A topology pair summing to zero still counts as a contribution, as upstream.
        if not contributed:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topology_score))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        s = _pre_score_state(state)
        if isinstance(s, Status):
            return 0, s
        labels = node_info.node.labels
        total = 0
        for key, by_value in s.topology_score.items():
            v = labels.get(key)
            if v is not None:
                total += by_value.get(v, 0)
        return total, SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        s = _pre_score_state(state)
        if isinstance(s, Status):
            return s
        if not s.topology_score or not scores:
            return SUCCESS
        lo = min(ns.score for ns in scores)
        hi = max(ns.score for ns in scores)
        diff = hi - lo
        for ns in scores:
            # float64 arithmetic, then truncation toward zero (Go's int64(f))
            f = float(MAX_NODE_SCORE) * (float(ns.score - lo) / float(diff)) if diff > 0 else 0.0
            ns.score = int(f)
        return SUCCESS


def _pre_score_state(state: CycleState) -> PreScoreState | Status:
    """getPreScoreState (interpodaffinity/scoring.go), with its error text."""
    try:
        return state.read(PRE_SCORE_STATE_KEY)
    except StateNotFoundError as e:
        return Status.error(f'failed to read "{PRE_SCORE_STATE_KEY.name}" from cycleState: {e}')


def _pre_filter_state(state: CycleState) -> PreFilterState | Status:
    """getPreFilterState (interpodaffinity/filtering.go), with its error text."""
    try:
        return state.read(PRE_FILTER_STATE_KEY)
    except StateNotFoundError as e:
        return Status.error(f'error reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {e}')


def _satisfy_pod_affinity(s: PreFilterState, node: Node) -> bool:
    pods_exist = True
    for term in s.required_affinity_terms:
        tv = node.labels.get(term.topology_key)
        if tv is None:
            # the node must carry every topology key of the terms
            return False
        if s.affinity_counts.get((term.topology_key, tv), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # The first pod of a group with affinity to itself: when no pod anywhere matches the terms but
    # the pod matches them itself, any node with all the topology keys will do.
    return not s.affinity_counts and pod_matches_all_affinity_terms(s.required_affinity_terms, s.pod)


def _satisfy_pod_anti_affinity(s: PreFilterState, node: Node) -> bool:
    if not s.anti_affinity_counts:
        return True
    for term in s.required_anti_affinity_terms:
        tv = node.labels.get(term.topology_key)
        if tv is not None and s.anti_affinity_counts.get((term.topology_key, tv), 0) > 0:
            return False
    return True


def _satisfy_existing_pods_anti_affinity(s: PreFilterState, node: Node) -> bool:
    counts = s.existing_anti_affinity_counts
    if not counts:
        return True
    for pair in node.labels.items():
        if counts.get(pair, 0) > 0:
            return False
    return True


def new(args: InterPodAffinityArgs, handle: Handle) -> InterPodAffinity:
    return InterPodAffinity(args, handle)
