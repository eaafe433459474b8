"""Template nodes: what cluster-autoscaler believes a new node of a group looks like, and the pods
it would run from the start (simulator/node_info_utils.go, processors/nodeinfosprovider/
mixed_nodeinfos_processor.go, cluster-autoscaler-release-1.36).

A group with a good existing node (ready, schedulable, not being deleted) takes a sanitized copy
of it: a new name (and hostname label), the autoscaler's and the node conditions' taints dropped,
the node's mirror and DaemonSet pods copied, and the DaemonSets it does not run yet whose pods are
system-node-critical. A group with no such node takes the template it was given (scale from zero),
with the pods of every DaemonSet that would run there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from kwhatif.api.core import Node, Pod, Taint
from kwhatif.autoscaler.nodegroups import NodeGroup
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import InputError

# utils/taints/taints.go
TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE_TAINT = "DeletionCandidateOfClusterAutoscaler"
IGNORE_TAINT_PREFIXES = (
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
    "startup-taint.cluster-autoscaler.kubernetes.io/",
    "status-taint.cluster-autoscaler.kubernetes.io/",
)
NODE_CONDITION_TAINTS = frozenset(
    {
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/pid-pressure",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
        "cloud.google.com/impending-node-termination",
        "NodeWithImpairedVolumes",
    }
)
TEMPLATE_NODE_LABEL = "cluster-autoscaler.kubernetes.io/template-node"
HOSTNAME_LABEL = "kubernetes.io/hostname"
SYSTEM_NODE_CRITICAL = "system-node-critical"
# labels.UpdateDeprecatedLabels: the beta labels a group's template gets from the stable ones
_DEPRECATED = (
    ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"),
    ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"),
    ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"),
)


@dataclass(frozen=True, slots=True)
class Template:
    """A group's template node and the pods a fresh node of it runs (DaemonSet and static pods)."""

    group: str
    node: Node
    pods: tuple[Pod, ...]
    origin: str  # "node <name>" (a copy of an existing node) or "template" (the group's own)


def sanitize_taints(taints: tuple[Taint, ...]) -> tuple[Taint, ...]:
    """taints.SanitizeTaints with the default taint configuration."""
    return tuple(
        t
        for t in taints
        if t.key not in (TO_BE_DELETED_TAINT, DELETION_CANDIDATE_TAINT)
        and t.key not in NODE_CONDITION_TAINTS
        and not t.key.startswith(IGNORE_TAINT_PREFIXES)
    )


def good_candidate(node: Node) -> bool:
    """isNodeGoodTemplateCandidate: ready, schedulable, not being deleted (a node that reports no
    Ready condition at all, as hand-written manifests, counts as ready; the one-minute
    stabilisation is not modelled)."""
    return (
        node.ready in ("", "True")
        and not node.unschedulable
        and not any(t.key == TO_BE_DELETED_TAINT for t in node.taints)
    )


def copy_node(node: Node, name: str, *, sanitize: bool) -> Node:
    """createSanitizedNode: the node under a new name (and hostname label); with ``sanitize``, its
    taints as SanitizeTaints leaves them."""
    labels = dict(node.labels)
    labels[HOSTNAME_LABEL] = name
    return dataclasses.replace(
        node,
        name=name,
        uid=f"kwhatif-{name}",
        labels=labels,
        taints=sanitize_taints(node.taints) if sanitize else node.taints,
    )


def copy_pod(pod: Pod, node: str, suffix: str) -> Pod:
    """createSanitizedPod: a new uid, the name with a suffix, bound to ``node``."""
    name = f"{pod.name}-{suffix}"
    return dataclasses.replace(
        pod, name=name, uid=f"kwhatif-{pod.namespace}-{name}", node_name=node, nominated_node_name=""
    )


def _daemonset_pods(
    state: ClusterState, node: Node, skip: set[str], only_critical: bool
) -> tuple[list[Pod], list[str]]:
    """The pods of the DaemonSets (but those in ``skip``, by uid or name) that would run on
    ``node`` (daemonset.GetDaemonSetPodsForNode); ``only_critical``: only system-node-critical
    ones that may preempt (isPreemptingSystemNodeCritical)."""
    from kwhatif.controlplane.controllers.workloads import expand_workload

    mini = ClusterState(
        nodes={node.name: node},
        namespaces=state.namespaces,
        priority_classes=state.priority_classes,
        runtime_classes=state.runtime_classes,
        limit_ranges=state.limit_ranges,
        version=state.version,
    )
    pods: list[Pod] = []
    notes: list[str] = []
    for w in state.workloads.values():
        if w.kind != "DaemonSet" or w.uid in skip or f"{w.namespace}/{w.name}" in skip:
            continue
        try:
            exp = expand_workload(w, mini)
        except InputError as e:
            notes.append(f"DaemonSet {w.namespace}/{w.name} left off the template nodes: {e}")
            continue
        for p in exp.pods:
            if only_critical and not (p.priority_class_name == SYSTEM_NODE_CRITICAL and p.preemption_policy != "Never"):
                continue
            pods.append(dataclasses.replace(p, name=f"{w.name}-{node.name}", node_name=node.name))
    return pods, notes


def build_template(
    group: NodeGroup, state: ClusterState, pods_on: dict[str, list[Pod]]
) -> tuple[Template | None, list[str]]:
    """The group's template node (None when it has no good node and no template), with notes."""
    base = f"template-node-for-{group.name}"
    notes: list[str] = []
    example = next((state.nodes[n] for n in group.nodes if good_candidate(state.nodes[n])), None)
    if example is None and group.template is None:
        # processNode over the bad candidates: a group with only nodes that are not ready still
        # gets a template from one of them
        example = next((state.nodes[n] for n in group.nodes), None)
    if example is not None:
        node = copy_node(example, base, sanitize=True)
        node = dataclasses.replace(node, labels={**node.labels, TEMPLATE_NODE_LABEL: "true"})
        kept: list[Pod] = []
        running: set[str] = set()
        for p in pods_on.get(example.name, ()):
            if p.deleting:
                continue
            ref = p.controller_ref
            if p.is_mirror or (ref is not None and ref.kind == "DaemonSet"):
                kept.append(copy_pod(p, base, "template"))
            if ref is not None and ref.kind == "DaemonSet":
                running.add(ref.uid)
                running.add(f"{p.namespace}/{ref.name}")
        extra, ds_notes = _daemonset_pods(state, node, running, only_critical=True)
        notes += ds_notes
        return Template(group.name, node, tuple(kept + extra), f"node {example.name}"), notes
    if group.template is None:
        return None, notes
    tmpl = group.template
    labels = dict(tmpl.labels)
    for stable, beta in _DEPRECATED:
        if stable in labels:
            labels[beta] = labels[stable]
    node = copy_node(dataclasses.replace(tmpl, labels=labels), base, sanitize=True)
    node = dataclasses.replace(node, labels={**node.labels, TEMPLATE_NODE_LABEL: "true"})
    extra, ds_notes = _daemonset_pods(state, node, set(), only_critical=False)
    notes += ds_notes
    return Template(group.name, node, tuple(extra), "template"), notes


def instantiate(template: Template, name: str) -> tuple[Node, list[Pod]]:
    """SanitizedNodeInfo: a copy of the template node named ``name``, with its pods."""
    node = copy_node(template.node, name, sanitize=False)
    return node, [copy_pod(p, name, name) for p in template.pods]


__all__ = ["Template", "build_template", "good_candidate", "instantiate"]
