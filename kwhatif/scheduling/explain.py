"""Hints: what would make an unschedulable pod fit, where that is plain from the filter results.

Computed right after the cycle, on the snapshot the cycle saw, and stored on the Attempt; the
formatters only print them. Each hint looks at the nodes that fail for a single reason, because
those are the nodes one change would open.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from kwhatif.api.quantity import format_bytes, format_milli_cpu
from kwhatif.plugins import inter_pod_affinity as ipa
from kwhatif.plugins import node_affinity as na
from kwhatif.plugins import node_ports as np
from kwhatif.plugins import node_unschedulable as nu
from kwhatif.plugins import node_volume_limits as nvl
from kwhatif.plugins import pod_topology_spread as pts
from kwhatif.plugins import volume_binding as vb
from kwhatif.plugins import volume_restrictions as vr
from kwhatif.plugins import volume_zone as vz

if TYPE_CHECKING:
    from kwhatif.api.core import Node, Pod
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
    if "NodeResourcesFit" in only:
        out.extend(_resource_hint(pod, snapshot, fw, only["NodeResourcesFit"]))
    comparison = bool(getattr(fw.plugins.get("TaintToleration"), "comparison_operators", False))
    for plugin in sorted(only, key=lambda p: _HINT_ORDER.get(p, (len(_HINT_ORDER), p))):
        if plugin in _SELF_EXPLAINED:
            continue
        if plugin == "NodeAffinity":
            out.extend(_node_affinity_hints(pod, snapshot, only[plugin], reasons_of))
            continue
        groups: dict[str, list[str]] = {}
        for name in only[plugin]:
            ni = snapshot.get(name)
            if ni is None:
                continue
            text = node_hint(plugin, reasons_of[name], pod, ni.node, comparison_operators=comparison)
            groups.setdefault(text, []).append(name)
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        for text, names in ranked[: _MAX_GROUPS.get(plugin, len(ranked))]:
            out.append(f"{len(names)} node(s) ({_names(names)}) {text}")
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


# Plugins whose hints come from elsewhere: resources (the amounts short), DynamicResources (its
# own explain_hints), NodeName (the spec.nodeName hint).
_SELF_EXPLAINED = frozenset({"NodeResourcesFit", "DynamicResources", "NodeName"})
# The order hints are listed in (the plugins of upstream's default profile, then the others by name)
_HINT_ORDER: dict[str, tuple[int, str]] = {
    p: (i, p)
    for i, p in enumerate(
        (
            "TaintToleration",
            "NodeAffinity",
            "NodeUnschedulable",
            "NodePorts",
            "PodTopologySpread",
            "InterPodAffinity",
            "VolumeRestrictions",
            "NodeVolumeLimits",
            "VolumeBinding",
            "VolumeZone",
        )
    )
}
# at most this many hints (the groups of most nodes) for a plugin
_MAX_GROUPS = {"TaintToleration": 2}


# The taints the node lifecycle controller, the kubelet, the cloud node controller and drain set
# for a node's condition (k8s.io/api/core/v1 well_known_taints.go, and the cloud provider's
# in k8s.io/cloud-provider api/well_known_taints.go), with the state each says. Advising a pod to
# tolerate one would send it to a node that cannot run it.
NODE_CONDITION_TAINTS = {
    "node.kubernetes.io/not-ready": "not ready",
    "node.kubernetes.io/unreachable": "unreachable",
    "node.kubernetes.io/unschedulable": "cordoned",
    "node.kubernetes.io/memory-pressure": "under memory pressure",
    "node.kubernetes.io/disk-pressure": "under disk pressure",
    "node.kubernetes.io/pid-pressure": "under PID pressure",
    "node.kubernetes.io/network-unavailable": "without a configured network",
    "node.kubernetes.io/out-of-service": "out of service",
    "node.cloudprovider.kubernetes.io/uninitialized": "not yet initialized by the cloud provider",
    "node.cloudprovider.kubernetes.io/shutdown": "shut down",
}
OS_LABEL = "kubernetes.io/os"


# The hints whose words depend only on the plugin and its reason.
_FIXED_HINTS: dict[tuple[str, str], str] = {
    ("PodTopologySpread", pts.ERR_REASON_CONSTRAINTS_NOT_MATCH): (
        "fail only the topology spread constraints (maxSkew would be exceeded there)"
    ),
    ("InterPodAffinity", ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH): (
        "fail only the pod's required pod affinity (no pod it must join runs in their topology domain)"
    ),
    ("InterPodAffinity", ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH): (
        "fail only the pod's required pod anti-affinity (a pod it must avoid runs in their topology domain)"
    ),
    ("InterPodAffinity", ipa.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH): (
        "fail only the required anti-affinity of pods running in their topology domain, which this pod matches"
    ),
    ("NodeUnschedulable", nu.ERR_REASON_UNSCHEDULABLE): "fail only because they are cordoned (spec.unschedulable)",
    ("VolumeBinding", vb.ERR_REASON_BIND_CONFLICT): (
        "fail only because no Available PersistentVolume there matches the pod's unbound claims"
    ),
    ("VolumeBinding", vb.ERR_REASON_NODE_CONFLICT): (
        "fail only the node affinity of the PersistentVolumes the pod's claims are bound to"
    ),
    ("VolumeBinding", vb.ERR_REASON_NOT_ENOUGH_SPACE): (
        "fail only because their storage capacity (CSIStorageCapacity) is too small for the pod's claims"
    ),
    ("VolumeBinding", vb.ERR_REASON_PV_NOT_EXIST): (
        "fail only because a claim of the pod is bound to a PersistentVolume that does not exist"
    ),
    ("VolumeZone", vz.ERR_REASON_CONFLICT): (
        "fail only the zone and region labels of the pod's PersistentVolumes (a volume zone conflict)"
    ),
    ("VolumeRestrictions", vr.ERR_REASON_DISK_CONFLICT): "fail only because a pod there already mounts the same disk",
    ("NodeVolumeLimits", nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED): (
        "fail only because the pod's volumes would exceed their attachable volume limit"
    ),
}


def node_hint(
    plugin: str, reasons: tuple[str, ...], pod: Pod, node: Node, *, comparison_operators: bool = False
) -> str:
    """What would open ``node`` to ``pod`` when ``plugin`` is the only filter that rejects it,
    with ``reasons`` (that plugin's reasons there): a phrase that follows "N node(s) (names)"."""
    reason = reasons[0] if reasons else ""
    if plugin == "TaintToleration":
        taints = [
            t
            for t in node.taints
            if t.effect in ("NoSchedule", "NoExecute")
            and not any(tol.tolerates(t, comparison_operators) for tol in pod.tolerations)
        ]
        lifecycle = [t for t in taints if t.key in NODE_CONDITION_TAINTS]
        if lifecycle:
            # a taint the control plane sets for a node's condition: the node cannot run the pod
            # now, and a toleration would only place it there (DaemonSets tolerate them because
            # their pods must run on every node, whatever its state)
            states = _and(sorted({NODE_CONDITION_TAINTS[t.key] for t in lifecycle}))
            shown = _and([t.render() for t in lifecycle])
            return f"are {states} ({shown}, set by the control plane): they take pods again once that clears"
        node_os = node.labels.get(OS_LABEL, "")
        if pod.os_name and node_os and node_os != pod.os_name:
            # the kubelet admits only pods of its own OS (spec.os.name must match the node's
            # kubernetes.io/os label): tolerating the taint that keeps them apart would not help
            return (
                f"run {node_os} ({OS_LABEL}={node_os}) and the pod is a {pod.os_name} pod (spec.os.name): "
                "their taints keep it off nodes whose kubelet would refuse it"
            )
        untolerated = [t.render() for t in taints]
        if len(untolerated) == 1:
            return f"would take the pod if it tolerated taint {untolerated[0]}"
        if untolerated:
            return f"would take the pod if it tolerated taints {_and(untolerated)}"
    elif plugin == "PodTopologySpread":
        if reason == pts.ERR_REASON_NODE_LABEL_NOT_MATCH:
            keys = sorted(
                {
                    c.topology_key
                    for c in pod.topology_spread_constraints
                    if c.when_unsatisfiable == "DoNotSchedule" and c.topology_key not in node.labels
                }
            )
            what = f"label {keys[0]}" if len(keys) == 1 else f"labels {_and(keys)}" if keys else "topologyKey label"
            return (
                f"fail only the topology spread constraints: they lack the {what} the constraints spread over "
                "(a node without its topologyKey belongs to no domain); label them, or spread over a key they have"
            )
    elif plugin == "NodePorts" and reason == np.ERR_REASON:
        ports = ", ".join(f"{p.host_port}/{p.protocol}" for p in pod.host_ports())
        return f"fail only because host port {ports} is taken there"
    elif plugin == "VolumeRestrictions" and "ReadWriteOncePod" in reason:
        return "fail only because a pod there already uses the pod's ReadWriteOncePod claim"
    fixed = _FIXED_HINTS.get((plugin, reason))
    if fixed is not None:
        return fixed
    # any other reason: said as the plugin said it
    return f"fail only {plugin}: {'; '.join(reasons)}" if reasons else f"fail only {plugin}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _node_affinity_hints(
    pod: Pod, snapshot: Snapshot, nodes: list[str], reasons_of: dict[str, tuple[str, ...]]
) -> list[str]:
    """NodeAffinity: the pod's own selector and required affinity (with the values the nodes
    have), or the profile's addedAffinity."""
    out = []
    own = [n for n in nodes if na.ERR_REASON_POD in reasons_of[n]]
    if own:
        wanted = ", ".join(f"{k}={v}" for k, v in sorted(pod.node_selector.items()))
        seen: Counter[str] = Counter()
        for k in sorted(pod.node_selector):
            for name in own:
                ni = snapshot.get(name)
                if ni is not None:
                    seen[f"{k}={ni.node.labels.get(k, '<none>')}"] += 1
        detail = f" (they have {', '.join(f'{s} ×{c}' for s, c in seen.most_common(4))})" if seen else ""
        what = f"nodeSelector {wanted}" if wanted else "required node affinity"
        out.append(f"{len(own)} node(s) ({_names(own)}) fail only the pod's {what}{detail}")
    enforced = [n for n in nodes if na.ERR_REASON_ENFORCED in reasons_of[n]]
    if enforced:
        out.append(
            f"{len(enforced)} node(s) ({_names(enforced)}) fail only the scheduler profile's addedAffinity "
            "(NodeAffinityArgs), not the pod's own"
        )
    other = [n for n in nodes if n not in own and n not in enforced]
    if other:
        ni = snapshot.get(other[0])
        if ni is not None:
            out.append(
                f"{len(other)} node(s) ({_names(other)}) {node_hint('NodeAffinity', reasons_of[other[0]], pod, ni.node)}"
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
