"""Hints: what would make an unschedulable pod fit, where that is plain from the filter results.

Computed right after the cycle, on the snapshot the cycle saw, and stored on the Attempt; the
formatters only print them. Each hint looks at the nodes that fail for a single reason, because
those are the nodes one change would open. The words are the plugins' own (the ``hints`` of each
plugin's record, kwhatif.plugins.info.Hints); this module groups the nodes and orders the hints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.plugins import registry
from kwhatif.plugins.info import HintInput, Hints, names, said_by

if TYPE_CHECKING:
    from kwhatif.api.core import Node, Pod
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.framework.runtime import Framework
    from kwhatif.framework.types import NodesFit

# the rank of plugins without hints: after those with, by name
_UNRANKED = 1 << 30


def _hints_of(plugin: str) -> Hints | None:
    record = registry.info(plugin)
    return None if record is None else record.hints


def _rank(plugin: str) -> tuple[int, str]:
    h = _hints_of(plugin)
    return (_UNRANKED if h is None else h.rank, plugin)


def hints(pod: Pod, fit: NodesFit, snapshot: Snapshot, fw: Framework) -> list[str]:
    """Hints for a pod no node fits, from every node's filter results (none when PreFilter
    rejected it), leaving out the nodes a PreFilterResult excluded. Each hint is derived from the
    reasons the one plugin that rejects a node gave there, so it says what those reasons say."""
    filters = {} if fit.at_pre_filter else fit.filters
    if not filters:
        return []
    only: dict[str, list[str]] = {}
    reasons_of: dict[str, tuple[str, ...]] = {}  # node -> the reasons of its only failing plugin
    for name, fr in filters.items():
        if name in fit.excluded:
            continue
        failing = [st for st in fr.statuses if not st.is_success() and not st.is_skip()]
        plugins = {st.plugin for st in failing}
        if len(plugins) == 1:
            only.setdefault(failing[0].plugin, []).append(name)
            reasons_of[name] = tuple(r for st in failing for r in st.reasons)
    out: list[str] = []
    for plugin in sorted(only, key=_rank):
        h = _hints_of(plugin)
        if h is not None and h.nodes is not None:
            out.extend(h.nodes(HintInput(pod, snapshot, fw, only[plugin], reasons_of)))
            continue
        groups: dict[str, list[str]] = {}
        for name in only[plugin]:
            ni = snapshot.get(name)
            if ni is None:
                continue
            text = node_hint(plugin, reasons_of[name], pod, ni.node, fw)
            groups.setdefault(text, []).append(name)
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        limit = h.max_groups if h is not None and h.max_groups is not None else len(ranked)
        for text, group in ranked[:limit]:
            out.append(f"{len(group)} node(s) ({names(group)}) {text}")
    # Plugins that explain themselves (DynamicResources: requests no node can satisfy).
    for pl in fw.plugins.values():
        extra = getattr(pl, "explain_hints", None)
        if callable(extra):
            out.extend(extra(pod))
    # The hints of a plugin that rejects any node at all (a required node affinity term the
    # scheduler cannot parse, a spec.nodeName).
    rejecting = {st.plugin for fr in filters.values() for st in fr.statuses if not st.is_success()}
    for plugin in sorted(rejecting, key=_rank):
        h = _hints_of(plugin)
        if h is not None and h.rejected is not None:
            out.extend(h.rejected(pod, snapshot))
    return out


def node_hint(plugin: str, reasons: tuple[str, ...], pod: Pod, node: Node, fw: Framework | None = None) -> str:
    """What would open ``node`` to ``pod`` when ``plugin`` is the only filter that rejects it,
    with ``reasons`` (that plugin's reasons there): a phrase that follows "N node(s) (names)"."""
    h = _hints_of(plugin)
    if h is not None:
        if h.node is not None:
            text = h.node(reasons, pod, node, fw)
            if text is not None:
                return text
        fixed = h.fixed.get(reasons[0] if reasons else "")
        if fixed is not None:
            return fixed
    # any other reason: said as the plugin said it
    return said_by(plugin, reasons)
