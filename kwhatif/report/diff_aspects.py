"""What `kwhatif diff` compares for a pod, and what --fail-on fails on: the choices the diff
engine (kwhatif.whatif.diff) and its report share, as report/verdict.py is for check."""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Aspect(enum.StrEnum):
    """What can differ for a pod between the two sides, in the order reports list them."""

    STATUS = "status"  # Scheduled / Unschedulable / Error / Gated
    NODE = "node"  # the chosen node (each side breaks ties as kwhatif does: the first by name)
    MESSAGE = "message"  # the FitError text
    FILTERS = "filters"  # some node's first failing filter: plugin, code or reasons
    SCORES = "scores"  # some feasible node's total, or the feasible set
    PREEMPTION = "preemption"  # the nominated node or the victims


class FailOn(enum.StrEnum):
    """--fail-on: which differences make the command exit 1."""

    STATUS = "status"
    NODE = "node"
    ANY = "any"

    def fails(self, changed: Iterable[Aspect]) -> bool:
        aspects = set(changed)
        if self is FailOn.STATUS:
            return Aspect.STATUS in aspects
        if self is FailOn.NODE:
            return bool(aspects & {Aspect.STATUS, Aspect.NODE})
        return bool(aspects)
