"""Hints: what would make an unschedulable pod fit, where that is plain from the filter results.

Computed right after the cycle, on the snapshot the cycle saw, and stored on the Attempt; the
formatters only print them. Each hint looks at the nodes that fail for a single reason, because
those are the nodes one change would open.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from kwhatif.api.quantity import format_bytes, format_milli_cpu

if TYPE_CHECKING:
    from kwhatif.api.core import Pod
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.framework.runtime import Framework
    from kwhatif.framework.types import NodesFit

MAX_LISTED = 3


def _names(nodes: list[str]) -> str:
    shown = ", ".join(nodes[:MAX_LISTED])
    return shown + (f" and {len(nodes) - MAX_LISTED} more" if len(nodes) > MAX_LISTED else "")


def _amount(resource: str, n: int) -> str:
    if resource == "cpu":
        return f"{format_milli_cpu(n)} cpu"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return f"{format_bytes(n)} {resource}"
    return f"{n} {resource}"


def hints(pod: Pod, fit: NodesFit, snapshot: Snapshot, fw: Framework) -> list[str]:
    """Hints for a pod no node fits, from every node's filter results (none when PreFilter
    rejected it), leaving out the nodes a PreFilterResult excluded."""
    filters = {} if fit.at_pre_filter else fit.filters
    if not filters:
        return []
    only: dict[str, list[str]] = {}
    for name, fr in filters.items():
        if name in fit.excluded:
            continue
        failing = {st.plugin for st in fr.statuses if not st.is_success() and not st.is_skip()}
        if len(failing) == 1:
            only.setdefault(failing.pop(), []).append(name)
    out: list[str] = []
    if "NodeResourcesFit" in only:
        out.extend(_resource_hint(pod, snapshot, fw, only["NodeResourcesFit"]))
    if "TaintToleration" in only:
        taints: Counter[str] = Counter()
        where: dict[str, list[str]] = {}
        for name in only["TaintToleration"]:
            ni = snapshot.get(name)
            if ni is None:
                continue
            for t in ni.node.taints:
                if t.effect in ("NoSchedule", "NoExecute") and not any(tol.tolerates(t) for tol in pod.tolerations):
                    text = t.render()
                    taints[text] += 1
                    where.setdefault(text, []).append(name)
                    break
        for text, n in taints.most_common(2):
            out.append(f"{n} node(s) ({_names(where[text])}) would take the pod if it tolerated taint {text}")
    if "NodeAffinity" in only:
        nodes = only["NodeAffinity"]
        wanted = ", ".join(f"{k}={v}" for k, v in sorted(pod.node_selector.items()))
        seen: Counter[str] = Counter()
        for k in sorted(pod.node_selector):
            for name in nodes:
                ni = snapshot.get(name)
                if ni is not None:
                    seen[f"{k}={ni.node.labels.get(k, '<none>')}"] += 1
        detail = f" (they have {', '.join(f'{s} ×{c}' for s, c in seen.most_common(4))})" if seen else ""
        what = f"nodeSelector {wanted}" if wanted else "required node affinity"
        out.append(f"{len(nodes)} node(s) ({_names(nodes)}) fail only the pod's {what}{detail}")
    if "NodeUnschedulable" in only:
        nodes = only["NodeUnschedulable"]
        out.append(f"{len(nodes)} node(s) ({_names(nodes)}) fail only because they are cordoned (spec.unschedulable)")
    if "NodePorts" in only:
        nodes = only["NodePorts"]
        ports = ", ".join(f"{p.host_port}/{p.protocol}" for p in pod.host_ports())
        out.append(f"{len(nodes)} node(s) ({_names(nodes)}) fail only because host port {ports} is taken there")
    if "PodTopologySpread" in only:
        nodes = only["PodTopologySpread"]
        out.append(
            f"{len(nodes)} node(s) ({_names(nodes)}) fail only the topology spread constraints "
            "(maxSkew would be exceeded there)"
        )
    if "InterPodAffinity" in only:
        nodes = only["InterPodAffinity"]
        out.append(f"{len(nodes)} node(s) ({_names(nodes)}) fail only pod (anti-)affinity")
    # Plugins that explain themselves (DynamicResources: requests no node can satisfy).
    for pl in fw.plugins.values():
        extra = getattr(pl, "explain_hints", None)
        if callable(extra):
            out.extend(extra(pod))
    if any(st.plugin == "NodeAffinity" and not st.is_success() for fr in filters.values() for st in fr.statuses):
        out.extend(_unparsable_terms_hint(pod))
    if pod.node_name and any(
        st.plugin == "NodeName" and not st.is_success() for fr in filters.values() for st in fr.statuses
    ):
        pinned = (
            f"pins the pod to node {pod.node_name}"
            if snapshot.get(pod.node_name) is not None
            else f"names node {pod.node_name}, which is not in the cluster"
        )
        out.append(
            f"spec.nodeName {pinned} (a pod exported from a cluster keeps the node it ran on): drop spec.nodeName, "
            "or run with --ignore-node-name, to schedule it anew"
        )
    return out


def _unparsable_terms_hint(pod: Pod) -> list[str]:
    """Required terms the scheduler's label parsing rejects never match (the API server stored
    them all the same): say which, with the parser's error."""
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or na.required is None:
        return []
    out = []
    for term in na.required.terms:
        if term.parse_errors:
            out.append(
                f"the scheduler cannot parse this required node affinity term, so it never matches: "
                f"{term.parse_errors[0]}"
            )
    return out


def _resource_hint(pod: Pod, snapshot: Snapshot, fw: Framework, nodes: list[str]) -> list[str]:
    fit = fw.plugins.get("NodeResourcesFit")
    lacking_fn = getattr(fit, "insufficient_resources", None)
    if lacking_fn is None:
        return []
    best: tuple[float, str, list[str]] | None = None
    full: list[str] = []
    too_small: dict[tuple[str, ...], list[str]] = {}
    for name in nodes:
        ni = snapshot.get(name)
        if ni is None:
            continue
        lacking = lacking_fn(pod, ni)
        if not lacking:
            continue
        if any(r.resource == "pods" for r in lacking):
            full.append(name)
            continue
        never = tuple(sorted(r.resource for r in lacking if r.requested > r.capacity))
        if never:
            too_small.setdefault(never, []).append(name)  # would not fit even if it were empty
            continue
        if any(r.used > r.capacity for r in lacking):
            continue  # over-committed already: lowering this pod's requests would not help
        parts = []
        score = 0.0
        for r in lacking:
            short = r.requested - (r.capacity - r.used)
            score += short / r.capacity if r.capacity else float("inf")
            parts.append(_amount(r.resource, short))
        if best is None or (score, name) < (best[0], best[1]):
            best = (score, name, parts)
    out = []
    if best is not None:
        _, name, parts = best
        out.append(
            f"closest fit: {name} is short of {' and '.join(parts)}; lower the pod's requests by that much, "
            f"or free it on {name} ({len(nodes)} node(s) fail only on resources)"
        )
    if full:
        out.append(f"{len(full)} node(s) ({_names(full)}) are at their pod limit (status.allocatable.pods)")
    if best is None:
        for resources, names in sorted(too_small.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            out.append(
                f"{len(names)} node(s) ({_names(names)}) have less {' and '.join(resources)} in all "
                "than the pod requests"
            )
    return out
