"""The compact form of a pod's result, for clusters too large to show every node of every pod.

A result in this form keeps, of its nodes' records, only those it shows: for a pod that fits, the
best few feasible nodes (the chosen one first among its tie, as kwhatif picks it); for every pod,
one node of each group of infeasible nodes that fail the same filters with the same reasons;
for a pod that fits nowhere, the nodes closest to fitting (those that fail the fewest filters).
The digest counts the rest. The table shows this form by default on clusters of more than
SHOW_ALL_NODES nodes; ``--explain all`` shows every node, and JSON and YAML keep every node unless
``--detail summary`` asks for this form.

This module holds the form itself; report/compact.py builds it from a scheduling attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    """The ``nodeSummary`` of a result in the compact form (schema revision 7)."""
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
