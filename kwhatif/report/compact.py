"""Building the compact form of a pod's result (report/digest.py) from a scheduling attempt.

The digest is read off the cycle's records without building a record per node: the best nodes
from the score table's totals (numpy), the infeasible ones from the Diagnosis (the nodes that
failed), grouped by what their failing statuses say, worked out once per node record (the engine
keeps a node's record while the node is unchanged), so it costs little more than a look-up per
node that failed.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from kwhatif.report.digest import BEST_NODES, CLOSEST, EXAMPLES, SHOW_ALL_NODES, NodeDigest, ReasonGroup
from kwhatif.report.schedule import EntryCache, PodResult, pod_result

if TYPE_CHECKING:
    from kwhatif.framework.types import FilterResult, NodeScores, NodesFit, Prioritized
    from kwhatif.scheduling.scheduler import Attempt

# the records a compact result shows: the filters of its nodes, the scores of its best ones
View = tuple[dict[str, "FilterResult"], dict[str, "NodeScores"]]


class Digester:
    """Builds the compact result of each attempt; an attempt that reuses the records of the one
    before (a replica that fails as the last one did) reuses its digest too, and a node's record
    kept from an earlier cycle (the engine keeps them while the node is unchanged) keeps the
    failure it was grouped by."""

    __slots__ = ("_entries", "_manifests", "_failed", "_failing", "_failures", "_groups", "_keys", "_last")

    def __init__(self, *, manifests: bool = True) -> None:
        self._entries = EntryCache()  # the shown nodes' records, built once while they hold
        self._manifests = manifests  # False: no binding object (the table never shows it)
        self._last: tuple[NodesFit, Prioritized | None, View, NodeDigest] | None = None
        # id of a node's FilterResult -> its failure's number, how many filters fail in it, and the
        # record itself (held, so that its id stays its own)
        self._keys: dict[int, tuple[int, int, FilterResult]] = {}
        # each distinct failure's number, and how many filters fail in it
        self._failures: dict[tuple[Any, ...], int] = {}
        self._failing: list[int] = []
        # the last cycle's infeasible nodes, their records, and the groups and closest nodes they made
        self._groups: list[Any] = []
        self._failed: list[Any] = []  # the last Diagnosis's order of the failed nodes, and them sorted

    def __call__(self, att: Attempt) -> PodResult:
        fit, prio = att.fit, att.prioritized
        if fit is None or fit.at_pre_filter or len(fit.filters) <= SHOW_ALL_NODES:
            return pod_result(att, cache=self._entries, manifests=self._manifests)
        last = self._last
        if last is not None and last[0] is fit and last[1] is prio:
            view, digest = last[2], last[3]
        else:
            if len(self._keys) > 4 * len(fit.filters):
                self._keys.clear()
            view, digest = _digest(fit, prio, att.node, self._keys, self._number, self._groups, self._failed)
            self._last = (fit, prio, view, digest)
        return pod_result(att, cache=self._entries, view=view, digest=digest, manifests=self._manifests)

    def _number(self, key: tuple[Any, ...]) -> tuple[int, int]:
        """A failure's number (an int hashes at once, a tuple of the statuses' strings every
        time), and how many filters fail in it."""
        n = self._failures.get(key)
        if n is None:
            n = self._failures[key] = len(self._failing)
            self._failing.append(len(key[0]))
        return n, self._failing[n]


def _best(fit: NodesFit, prio: Prioritized | None, chosen: str | None) -> tuple[list[str], int]:
    """The best feasible nodes (total descending, then name: kwhatif's pick first) and how many
    nodes are feasible."""
    scores = prio.scores if prio is not None else None
    if scores:
        totals = getattr(scores, "totals", None)
        names_of = getattr(scores, "names", None)
        if totals is not None and names_of is not None and prio is not None and len(prio.best) >= BEST_NODES:
            # as many nodes as are shown share the best total (a template's replicas on a roomy
            # cluster): the first of them by name (prio.best is in node order, name order)
            best = list(prio.best[:BEST_NODES])
        elif totals is not None and names_of is not None:
            import numpy as np

            # the nodes at or above the k-th best total, then those by total (node order is name
            # order: a stable sort keeps ties by name)
            k = min(BEST_NODES, len(totals))
            floor = np.partition(totals, len(totals) - k)[len(totals) - k]
            top = np.flatnonzero(totals >= floor)
            order = top[np.argsort(-totals[top], kind="stable")[:k]].tolist()
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


def _failed(fit: NodesFit, last: list[Any]) -> list[str]:
    """The nodes that are not feasible, in node order (the last cycle's list when the Diagnosis
    names the same nodes in the same order: ``last`` holds that order and that list)."""
    failed = fit.diagnosis.node_to_status
    if fit.feasible_names is None or fit.excluded or len(fit.feasible_names) + len(failed) != len(fit.filters):
        # not sure the Diagnosis lists them all: every node's record is asked
        return [n for n, fr in fit.filters.items() if not fr.feasible or n in fit.excluded]
    names = list(failed)
    if last and last[0] == names:
        return cast("list[str]", last[1])
    out = sorted(names)
    last[:] = [names, out]
    return out


def _digest(
    fit: NodesFit,
    prio: Prioritized | None,
    chosen: str | None,
    keys: dict[int, tuple[int, int, FilterResult]],
    number: Callable[[tuple[Any, ...]], tuple[int, int]],
    last: list[Any],
    last_failed: list[Any],
) -> tuple[View, NodeDigest]:
    best, feasible = _best(fit, prio, chosen)
    failed = _failed(fit, last_failed)
    filters = fit.filters
    excluded = fit.excluded
    nofit = chosen is None and not feasible
    frs: list[FilterResult] = [filters[n] for n in failed] if excluded else list(map(filters.__getitem__, failed))
    # the same nodes failing with the same records as in the last cycle (most nodes keep theirs
    # from one pod to the next): the same groups; the lists compare at C speed, record by identity
    if last and not excluded and last[2] == nofit and last[0] == failed and last[1] == frs:
        groups, closest = last[3], last[4]
    else:
        groups, closest = _groups(failed, frs, excluded, nofit, keys, number)
        last[:] = [failed, frs, nofit, groups, closest] if not excluded else []
    shown = {*best, *(g.node for g in groups), *closest}
    view_filters: dict[str, FilterResult] = {n: filters[n] for n in sorted(shown)}
    view_scores: dict[str, NodeScores] = {}
    if prio is not None:
        scores = prio.scores
        for n in best:
            try:
                view_scores[n] = scores[n]  # a ScoreTable builds a node's scores on each read
            except KeyError:
                pass
    digest = NodeDigest(feasible, len(failed), tuple(best), groups, closest)
    return (view_filters, view_scores), digest


def _groups(
    failed: list[str],
    frs: list[FilterResult],
    excluded: frozenset[str],
    nofit: bool,
    keys: dict[int, tuple[int, int, FilterResult]],
    number: Callable[[tuple[Any, ...]], tuple[int, int]],
) -> tuple[tuple[ReasonGroup, ...], tuple[str, ...]]:
    """The infeasible nodes grouped, largest group first, and for a pod that fits nowhere the
    nodes closest to fitting."""
    # each infeasible node's failure: its number and how many filters fail in it; a record met
    # in an earlier cycle (``keys`` holds it, so its id stays its own) is looked up at C speed
    got: list[tuple[int, int, FilterResult] | None] = (
        [None] * len(frs) if excluded else list(map(keys.get, map(id, frs)))
    )
    if None in got:
        for i, fr in enumerate(frs):
            if got[i] is None:
                num, fails = number(_failure_key(fr, bool(excluded) and failed[i] in excluded))
                got[i] = entry = (num, fails, fr)
                if not excluded:
                    keys[id(fr)] = entry
    known = cast("list[tuple[int, int, FilterResult]]", got)
    nums = list(map(itemgetter(0), known))
    counts = Counter(nums)
    failing = {num: fails for num, fails, _ in (known[nums.index(n)] for n in counts)}
    # the first nodes of each group (node order), read until every group has its examples, and
    # for a pod that fits nowhere the nodes of the groups that fail the fewest filters
    want = {n: min(c, EXAMPLES) for n, c in counts.items()}
    firsts: dict[int, list[str]] = {n: [] for n in counts}
    left = len(want)
    for name, num in zip(failed, nums, strict=True):
        names = firsts[num]
        if len(names) < want[num]:
            names.append(name)
            if len(names) == want[num]:
                left -= 1
                if not left:
                    break
    groups = sorted(
        (ReasonGroup(firsts[n][0], c, tuple(firsts[n]), failing[n]) for n, c in counts.items()),
        key=lambda g: (-g.count, g.node),
    )
    closest: list[str] = []
    if nofit:
        order = sorted(counts, key=lambda n: (failing[n], -counts[n], firsts[n][0]))
        for num in order:
            take = CLOSEST - len(closest)
            closest.extend([name for name, k in zip(failed, nums, strict=True) if k == num][:take])
            if len(closest) >= CLOSEST:
                break
    return tuple(groups), tuple(closest)


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
