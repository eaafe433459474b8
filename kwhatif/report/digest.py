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
    before (a replica that fails as the last one did) reuses its digest too."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[NodesFit, Prioritized | None, NodesFit, Prioritized | None, NodeDigest] | None = None

    def __call__(self, att: Attempt) -> PodResult:
        from kwhatif.report.schedule import pod_result

        fit, prio = att.fit, att.prioritized
        if fit is None or fit.at_pre_filter or len(fit.filters) <= SHOW_ALL_NODES:
            return pod_result(att)
        last = self._last
        if last is not None and last[0] is fit and last[1] is prio:
            view_fit, view_prio, digest = last[2], last[3], last[4]
        else:
            view_fit, view_prio, digest = _digest(fit, prio, att.node)
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
    out = [n for n in failed if n in fit.filters]
    if fit.excluded:
        seen = set(out)
        out.extend(n for n in fit.excluded if n not in seen and n in fit.filters)
    feasible = len(fit.feasible_names) if fit.feasible_names is not None else None
    if feasible is None or feasible + len(out) != len(fit.filters) or fit.excluded:
        # not sure the Diagnosis lists them all: every node's record is asked
        return [n for n, fr in fit.filters.items() if not fr.feasible or n in fit.excluded]
    return sorted(out)


def _digest(
    fit: NodesFit, prio: Prioritized | None, chosen: str | None
) -> tuple[NodesFit, Prioritized | None, NodeDigest]:
    best, feasible = _best(fit, prio, chosen)
    failed = _failed(fit)
    filters = fit.filters
    excluded = fit.excluded
    # nodes by the identity of their statuses, then by what those statuses say
    by_id: dict[tuple[Any, ...], list[str]] = {}
    for name in failed:
        fr = filters[name]
        key = (*map(id, fr.statuses), name in excluded, fr.with_nominated)
        nodes = by_id.get(key)
        if nodes is None:
            by_id[key] = [name]
        else:
            nodes.append(name)
    by_text: dict[tuple[Any, ...], list[str]] = {}
    failures: dict[tuple[Any, ...], int] = {}
    for nodes in by_id.values():
        fr = filters[nodes[0]]
        text = _failure_key(fr, nodes[0] in excluded)
        if text in by_text:
            by_text[text].extend(nodes)
        else:
            by_text[text] = nodes
            failures[text] = sum(1 for st in fr.statuses if not st.is_success() and not st.is_skip())
    members: list[tuple[ReasonGroup, list[str]]] = []
    for text, nodes in by_text.items():
        if len(by_id) != len(by_text):
            nodes.sort()
        members.append((ReasonGroup(nodes[0], len(nodes), tuple(nodes[:EXAMPLES]), failures[text]), nodes))
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
