"""NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity): nodeSelector, required and
preferred node affinity, and the scheduler-enforced addedAffinity from the plugin args."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api.core import NodeAffinity as NodeAffinitySpec
from kwhatif.api.core import NodeSelector, Pod, PreferredSchedulingTerm
from kwhatif.api.labels import Selector, selector_from_set
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import NodeAffinityArgs
from kwhatif.framework.interface import (
    MAX_NODE_SCORE,
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.gocompat import aggregate
from kwhatif.plugins.helper import default_normalize_score

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeAffinity"
PRE_FILTER_STATE_KEY: StateKey[RequiredNodeAffinity] = StateKey("PreFilter" + NAME)
PRE_SCORE_STATE_KEY: StateKey[tuple[PreferredSchedulingTerm, ...]] = StateKey("PreScore" + NAME)
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """nodeaffinity.RequiredNodeAffinity: the nodeSelector and the required terms, ANDed."""

    label_selector: Selector | None
    node_selector: NodeSelector | None

    @classmethod
    def of(cls, pod: Pod) -> RequiredNodeAffinity:
        sel = selector_from_set(pod.node_selector) if pod.node_selector else None
        aff = pod.affinity.node_affinity if pod.affinity else None
        return cls(sel, aff.required if aff else None)

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if self.label_selector is not None and not self.label_selector.matches(labels):
            return False
        if self.node_selector is not None:
            return self.node_selector.matches(labels, node_name)
        return True


def score_preferred(terms: tuple[PreferredSchedulingTerm, ...], labels: Mapping[str, str], node_name: str) -> int:
    total = 0
    for t in terms:
        if t.term.matches(labels, node_name):
            total += t.weight
    return total


def pod_preferred_terms(pod: Pod) -> tuple[PreferredSchedulingTerm, ...] | None:
    """The pod's preferred terms; None when the field is absent (upstream skips only then: a list
    whose terms were all dropped still scores every node 0)."""
    aff = pod.affinity.node_affinity if pod.affinity else None
    return aff.preferred if aff is not None and aff.preferred_set else None


def preferred_parse_error(terms: tuple[PreferredSchedulingTerm, ...] | None) -> str | None:
    """nodeaffinity.NewPreferredSchedulingTerms fails on the first term its label parsing
    rejects, with every such error aggregated."""
    errors = [e for t in terms or () for e in t.term.parse_errors]
    return aggregate(errors) if errors else None


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, added: NodeAffinitySpec | None, has_added_preferred: bool = False) -> None:
        self.added_node_selector = added.required if added else None
        # Upstream keeps the added preferred terms whenever the args list any, even when every
        # one of them is dropped (weight 0 or an empty preference): PreScore then does not skip.
        self.added_pref_terms: tuple[PreferredSchedulingTerm, ...] | None = (
            added.preferred if added is not None and has_added_preferred else None
        )

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        aff = pod.affinity.node_affinity if pod.affinity else None
        required = aff.required if aff else None
        if required is None and self.added_node_selector is None and not pod.node_selector:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, RequiredNodeAffinity.of(pod))
        if required is None or not required.terms or required.had_empty_term:
            # an empty term has no matchFields, which makes every node worth filtering
            return None, SUCCESS
        node_names: set[str] | None = None
        for term in required.terms:
            term_names: set[str] | None = None
            if term.fields is not None:
                for r in term.fields.requirements:
                    if r.key == "metadata.name" and r.op == "In":
                        term_names = set(r.values) if term_names is None else term_names & set(r.values)
            if term_names is None:
                return None, SUCCESS
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(frozenset(node_names)), SUCCESS
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.matches(node.labels, node.name):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        try:
            s = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError:
            s = RequiredNodeAffinity.of(pod)
        if not s.matches(node.labels, node.name):
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return SUCCESS

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        if not nodes:
            return SUCCESS
        preferred = pod_preferred_terms(pod)
        err = preferred_parse_error(preferred)
        if err is not None:
            return Status.of(Code.ERROR, err)
        if preferred is None and self.added_pref_terms is None:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, preferred or ())
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        node = node_info.node
        count = 0
        if self.added_pref_terms is not None:
            count += score_preferred(self.added_pref_terms, node.labels, node.name)
        try:
            terms = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            # PreScore did not run: rebuild the terms, as upstream does
            terms = pod_preferred_terms(pod) or ()
            err = preferred_parse_error(terms)
            if err is not None:
                return 0, Status.of(Code.ERROR, err)
        count += score_preferred(terms, node.labels, node.name)
        return count, SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS


def new(args: NodeAffinityArgs, handle: Handle) -> NodeAffinity:
    return NodeAffinity(args.added_affinity, args.added_preferred)
