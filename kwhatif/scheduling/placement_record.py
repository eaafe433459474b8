"""What the pod-group cycle's placement algorithm (kwhatif.scheduling.placement_cycle) did for one
group: every placement tried, in order, and the one chosen; the group report reads it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.framework.interface import Status


@dataclass(slots=True)
class PlacementTried:
    """One placement the cycle tried: its domain, node count, the group's status there, and
    (when it was feasible) its score and the members it placed."""

    name: str
    nodes: int
    status: Status
    placed: int = 0
    score: int | None = None
    feasible: bool = False


@dataclass(slots=True)
class PlacementRecord:
    """What the placement algorithm did for one group: every placement tried and the one chosen."""

    tried: list[PlacementTried] = field(default_factory=list)
    chosen: str | None = None
    status: Status | None = None  # a generation failure (no placement tried)
