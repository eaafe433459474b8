"""Shared plugin helpers (pkg/scheduler/framework/plugins/helper)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kwhatif.api.core import Taint, Toleration
from kwhatif.framework.interface import NodeScore
from kwhatif.gocompat import go_div


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """helper.DefaultNormalizeScore: scale to 0..max_priority by the maximum, optionally reversed."""
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        if reverse:
            score = max_priority - score
        s.score = score


def tolerations_tolerate_taint(
    tolerations: Sequence[Toleration], taint: Taint, comparison_operators: bool = False
) -> bool:
    for t in tolerations:
        if t.tolerates(taint, comparison_operators):
            return True
    return False


def find_matching_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    effects: frozenset[str],
    comparison_operators: bool = False,
) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint over taints with the given effects."""
    for taint in taints:
        if taint.effect not in effects:
            continue
        if not tolerations_tolerate_taint(tolerations, taint, comparison_operators):
            return taint
    return None


DO_NOT_SCHEDULE_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Any:
    """helper.BuildBrokenLinearFunction over (utilization, score) points."""

    def fn(p: int) -> int:
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    return shape[0][1]
                pu, ps = shape[i - 1]
                return ps + go_div((score - ps) * (p - pu), util - pu)
        return shape[-1][1]

    return fn
