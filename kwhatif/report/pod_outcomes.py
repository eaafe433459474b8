"""What each autoscaler's report says of a pod the same way: its outcome (it fits an existing
node, gets a new one, or none) and the counts of the summary."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

EXISTING = "existing"
SCALE_UP = "scale-up"
NONE = "none"


class HasOutcome(Protocol):
    @property
    def outcome(self) -> str: ...


def outcome_counts(pods: Iterable[HasOutcome]) -> dict[str, int]:
    """The first counts of an autoscale summary: the pods, and how many fit the existing nodes,
    get a new node, or none."""
    outcomes = [p.outcome for p in pods]
    return {
        "pods": len(outcomes),
        "existing": outcomes.count(EXISTING),
        "scaleUp": outcomes.count(SCALE_UP),
        "none": outcomes.count(NONE),
    }
