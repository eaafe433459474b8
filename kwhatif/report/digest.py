"""The compact form of a pod's result, for clusters too large to show every node of every pod.

A result in this form keeps, of its nodes' records, only those it shows: for a pod that fits, the
best few feasible nodes (the chosen one first among its tie, as kwhatif picks it); for every pod,
one node of each group of infeasible nodes that fail the same filters with the same reasons;
for a pod that fits nowhere, the nodes closest to fitting (those that fail the fewest filters).
The digest counts the rest. The table shows this form by default on clusters of more than
SHOW_ALL_NODES nodes; ``--explain all`` shows every node, and JSON and YAML keep every node unless
``--detail summary`` asks for this form.

The digest is read off the cycle's records without building a record per node: the best nodes
from the score table's totals (numpy), the infeasible ones from the Diagnosis (the nodes that
failed), grouped by the identity of their statuses (the engine shares one status per outcome),
so it costs little more than the nodes that failed.
"""

from __future__ import annotations

import dataclasses
import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kwhatif.framework.types import FilterResult, NodesFit, Prioritized
    from kwhatif.report.schedule import PodResult
    from kwhatif.scheduler import Attempt

# a cycle over at most this many nodes is shown whole, as --explain all shows any
SHOW_ALL_NODES = 20
BEST_NODES = 5  # feasible nodes shown, best first
EXAMPLES = 4  # nodes named per group of infeasible nodes
CLOSEST = 5  # nodes named as closest to fitting


@dataclass(frozen=True, slots=True)
class ReasonGroup:
    """Infeasible nodes that fail the same filters with the same reasons."""

    node: str  # the first of them, whose record (in the result's nodes) says why
    count: int
    examples: tuple[str, ...]  # the first EXAMPLES of them, in node order
    failures: int  # how many filters fail on each of them


@dataclass(frozen=True, slots=True)
class NodeDigest:
    """What a compact result says of the nodes it does not show."""

    feasible: int
    infeasible: int
    best: tuple[str, ...]  # the feasible nodes shown, best first
    groups: tuple[ReasonGroup, ...]  # the infeasible nodes, largest group first
    closest: tuple[str, ...] = ()  # a pod that fits nowhere: the nodes that fail the fewest filters


def digest_dict(d: NodeDigest) -> dict[str, Any]:
    """The ``nodeSummary`` of a result in the compact form (schema revision 6)."""
    return {
        "feasibleNodes": d.feasible,
        "infeasibleNodes": d.infeasible,
        "best": list(d.best),
        "groups": [
            {"node": g.node, "nodes": g.count, "failingFilters": g.failures, "examples": list(g.examples)}
            for g in d.groups
        ],
        "closest": list(d.closest),
    }


class Digester:
    """Builds the compact result of each attempt; an attempt that reuses the records of the one
    before (a replica that fails as the last one did) reuses its digest too, and a node's record
    kept from an earlier cycle (the engine keeps them while the node is unchanged) keeps the
    failure it was grouped by."""

    __slots__ = ("_keys", "_last")

    def __init__(self) -> None:
        self._last: tuple[NodesFit, Prioritized | None, NodesFit, Prioritized | None, NodeDigest] | None = None
        # id of a node's FilterResult -> it (holding its id) and what its failure is made of
        self._keys: dict[int, tuple[FilterResult, tuple[Any, ...]]] = {}

    def __call__(self, att: Attempt) -> PodResult:
        from kwhatif.report.schedule import pod_result

        fit, prio = att.fit, att.prioritized
        if fit is None or fit.at_pre_filter or len(fit.filters) <= SHOW_ALL_NODES:
            return pod_result(att)
        last = self._last
        if last is not None and last[0] is fit and last[1] is prio:
            view_fit, view_prio, digest = last[2], last[3], last[4]
        else:
            if len(self._keys) > 4 * len(fit.filters):
                self._keys.clear()
            view_fit, view_prio, digest = _digest(fit, prio, att.node, self._keys)
            self._last = (fit, prio, view_fit, view_prio, digest)
        view = dataclasses.replace(att, fit=view_fit, prioritized=view_prio)
        return dataclasses.replace(pod_result(view), digest=digest)


def _best(fit: NodesFit, prio: Prioritized | None, chosen: str | None) -> tuple[list[str], int]:
    """The best feasible nodes (total descending, then name: kwhatif's pick first) and how many
    nodes are feasible."""
    scores = prio.scores if prio is not None else None
    if scores:
        totals = getattr(scores, "totals", None)
        names_of = getattr(scores, "names", None)
        if totals is not None and names_of is not None:
            import numpy as np

            # node order is name order: a stable sort keeps ties by name
            order = np.argsort(-totals, kind="stable")[:BEST_NODES].tolist()
            best = [names_of[i] for i in order]
        else:
            best = [n for n, _ in heapq.nsmallest(BEST_NODES, scores.items(), key=lambda kv: (-kv[1].total, kv[0]))]
        feasible = len(scores)
    else:
        names = fit.feasible
        best, feasible = names[:BEST_NODES], len(names)
    if chosen is not None and chosen not in best and chosen in fit.filters:
        best = [chosen, *best[: BEST_NODES - 1]]
    return best, feasible


def _failed(fit: NodesFit) -> list[str]:
    """The nodes that are not feasible, in node order."""
    failed = fit.diagnosis.node_to_status
    if fit.feasible_names is None or fit.excluded or len(fit.feasible_names) + len(failed) != len(fit.filters):
        # not sure the Diagnosis lists them all: every node's record is asked
        return [n for n, fr in fit.filters.items() if not fr.feasible or n in fit.excluded]
    return sorted(failed)


def _digest(
    fit: NodesFit,
    prio: Prioritized | None,
    chosen: str | None,
    keys: dict[int, tuple[FilterResult, tuple[Any, ...]]],
) -> tuple[NodesFit, Prioritized | None, NodeDigest]:
    best, feasible = _best(fit, prio, chosen)
    failed = _failed(fit)
    filters = fit.filters
    excluded = fit.excluded
    # the infeasible nodes by what their failure is made of
    by_failure: dict[tuple[Any, ...], list[str]] = {}
    for name in failed:
        fr = filters[name]
        if excluded:
            key = _failure_key(fr, name in excluded)
        else:
            known = keys.get(id(fr))
            if known is not None and known[0] is fr:
                key = known[1]
            else:
                key = _failure_key(fr, False)
                keys[id(fr)] = (fr, key)
        nodes = by_failure.get(key)
        if nodes is None:
            by_failure[key] = [name]
        else:
            nodes.append(name)
    members = [
        (ReasonGroup(nodes[0], len(nodes), tuple(nodes[:EXAMPLES]), len(key[0])), nodes)
        for key, nodes in by_failure.items()
    ]
    groups = sorted((g for g, _ in members), key=lambda g: (-g.count, g.node))
    closest: list[str] = []
    if chosen is None and not feasible:
        for _, nodes in sorted(members, key=lambda gn: (gn[0].failures, -gn[0].count, gn[0].node)):
            closest.extend(nodes[: CLOSEST - len(closest)])
            if len(closest) >= CLOSEST:
                break
    shown = {*best, *(g.node for g in groups), *closest}
    view_filters: dict[str, FilterResult] = {n: filters[n] for n in sorted(shown)}
    view_fit = dataclasses.replace(fit, filters=view_filters)
    view_prio = None
    if prio is not None:
        scores = prio.scores
        view_prio = dataclasses.replace(prio, scores={n: scores[n] for n in best if n in scores})
    digest = NodeDigest(feasible, len(failed), tuple(best), tuple(groups), tuple(closest))
    return view_fit, view_prio, digest


def _failure_key(fr: FilterResult, excluded: bool) -> tuple[Any, ...]:
    """What a node's failure text is made of."""
    first = fr.first
    return (
        tuple(
            (st.plugin, st.code.label, tuple(st.reasons), tuple(st.details), st is first)
            for st in fr.statuses
            if not st.is_success() and not st.is_skip()
        ),
        excluded,
        fr.with_nominated,
    )
