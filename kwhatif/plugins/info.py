"""What the rest of the program knows about a plugin, exported by the plugin's own module.

Each plugin module (or package) holds one ``PluginInfo`` record (its ``INFO``): the short column
name the table shows for its score, the help of its SARIF rule, the hints that say what would
open a node it rejects, and its model for the incremental engine. kwhatif.plugins.registry
collects them by plugin name (kwhatif.report.plugin_info hands them to the report formats); the
engine (kwhatif.scheduling.incremental), the hints (kwhatif.scheduling.explain) and the formats
read these records and name no plugin themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kwhatif.api.core import Node, Pod
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.framework.runtime import Framework

# Nodes a hint lists by name; the others are counted.
MAX_LISTED = 3


def names(nodes: list[str]) -> str:
    """The first MAX_LISTED of ``nodes``, and how many more."""
    shown = ", ".join(nodes[:MAX_LISTED])
    return shown + (f" and {len(nodes) - MAX_LISTED} more" if len(nodes) > MAX_LISTED else "")


def and_list(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def said_by(plugin: str, reasons: tuple[str, ...]) -> str:
    """The hint of a reason no plugin explains: said as the plugin said it."""
    return f"fail only {plugin}: {'; '.join(reasons)}" if reasons else f"fail only {plugin}"


@dataclass(frozen=True, slots=True)
class HintInput:
    """What a plugin's hints read: the pod, the snapshot its cycle saw, the profile, the nodes the
    plugin alone rejects, and each such node's reasons from it."""

    pod: Pod
    snapshot: Snapshot
    fw: Framework
    nodes: list[str]
    reasons_of: Mapping[str, tuple[str, ...]]


# The phrase that follows "N node(s) (names)" for one node the plugin alone rejects with these
# reasons; None: the plugin's fixed hint of the first reason, else the reasons as said.
NodeHint = Callable[[tuple[str, ...], "Pod", "Node", "Framework | None"], "str | None"]
# Whole hints for the nodes the plugin alone rejects (instead of grouping node hints).
NodesHint = Callable[[HintInput], list[str]]
# Hints when the plugin rejects any node (checked after the plugins' own explain_hints).
RejectedHint = Callable[["Pod", "Snapshot"], list[str]]


def no_hints(_: HintInput) -> list[str]:
    """For a plugin whose hints come from elsewhere (its explain_hints, its ``rejected`` hint)."""
    return []


@dataclass(frozen=True, slots=True)
class Hints:
    """How kwhatif.scheduling.explain says what would open the nodes a plugin alone rejects.

    ``rank`` orders the plugins' hints (and their ``rejected`` hints); plugins without hints come
    after, by name. ``nodes`` replaces the grouping of node hints; otherwise each node gets
    ``node``'s phrase, or the fixed phrase of its first reason, or its reasons as said, and the
    nodes sharing a phrase form one hint (the ``max_groups`` of most nodes, when set)."""

    rank: int
    fixed: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    node: NodeHint | None = None
    nodes: NodesHint | None = None
    max_groups: int | None = None
    rejected: RejectedHint | None = None


class Normalize(StrEnum):
    """How a node-local score is normalized (NormalizeScore)."""

    NONE = "none"
    DEFAULT = "default"  # helper.DefaultNormalizeScore
    DEFAULT_REVERSED = "default-reversed"  # helper.DefaultNormalizeScore, reversed


@dataclass(frozen=True, slots=True)
class Incremental:
    """The plugin's model for the incremental engine (kwhatif.scheduling.incremental).

    ``node_filter``: its Filter reads only the pod, the node's NodeInfo and state its PreFilter
    derives from the pod alone, so its answer on a node is kept until the node changes.
    ``node_score``: its Score is of the same kind, normalized so (None: not node-local)."""

    node_filter: bool = False
    node_score: Normalize | None = None


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One plugin's record: its upstream name, the short column heading of its score (None: the
    name), the help of its SARIF rule (None: the generic FitError help), its hints and its
    incremental model."""

    name: str
    column: str | None = None
    sarif_help: str | None = None
    hints: Hints | None = None
    incremental: Incremental = Incremental()
