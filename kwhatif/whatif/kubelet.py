"""Pods created with spec.nodeName: the scheduler never sees them, the node's kubelet admits them.

A pod that names its node is bound as it is created: no scheduler filters it (so cordoning and
NoSchedule taints do not matter). The kubelet of that node runs its admission handlers on it
(pkg/kubelet/lifecycle/predicate.go, predicateAdmitHandler.Admit, v1.36.2): the pod's
`kubernetes.io/os` label against the node's OS, then GeneralPredicates, which is the scheduler's
AdmissionCheck (pkg/scheduler/eventhandlers.go: resources, required node affinity and
nodeSelector, node name, host ports) over the pods the node runs, and the node's NoExecute taints.
A pod it admits runs; one it rejects fails at once, with the first reason as the pod's
status.reason (``OutOfcpu``, ``NodeAffinity``, ...) and "Pod was rejected: <message>" as its
status.message (Kubelet.rejectPod, pkg/kubelet/kubelet.go).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from kwhatif.api.core import Pod
from kwhatif.api.resources import Resource, is_extended
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.types import PodOutcome
from kwhatif.plugins import node_affinity, node_name, node_ports, taint_toleration
from kwhatif.plugins.helper import find_matching_untolerated_taint
from kwhatif.plugins.node_affinity import ERR_REASON_POD as NODE_AFFINITY_REASON
from kwhatif.plugins.node_affinity import RequiredNodeAffinity
from kwhatif.plugins.node_name import ERR_REASON as NODE_NAME_REASON
from kwhatif.plugins.node_ports import ERR_REASON as NODE_PORTS_REASON
from kwhatif.plugins.node_ports import container_ports, fits_ports
from kwhatif.plugins.node_resources_fit import fits_request
from kwhatif.scheduling.scheduler import Attempt, Scheduler

# pkg/kubelet/lifecycle/predicate.go
OS_LABEL = "kubernetes.io/os"
POD_OS_SELECTOR_MISMATCH = "PodOSSelectorNodeLabelDoesNotMatch"
POD_OS_SELECTOR_MESSAGE = "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"
INSUFFICIENT_RESOURCE_PREFIX = "OutOf"
# tainttoleration.ErrReasonNotMatch, the reason GeneralPredicates gives for a NoExecute taint
TAINT_REASON = "node(s) had taints that the pod didn't tolerate"
NO_EXECUTE = frozenset({"NoExecute"})
REJECTED = "Pod was rejected: "
CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"  # pkg/kubelet/types


@dataclass(frozen=True, slots=True)
class Rejection:
    reason: str  # status.reason: OutOfcpu, NodeAffinity, TaintToleration, ...
    message: str  # what the kubelet says, without "Pod was rejected: "


def admit(pod: Pod, node_info: NodeInfo) -> Rejection | None:
    """The kubelet's answer to ``pod`` on the node of ``node_info`` (its pods: the node's active
    pods), None when it admits it."""
    node = node_info.node
    # rejectPodAdmissionBasedOnOSSelector: the node's OS is the kubelet's (runtime.GOOS), which
    # the kubelet writes as the node's label; a node without the label runs linux here
    os_name = node.labels.get(OS_LABEL) or "linux"
    wanted = pod.labels.get(OS_LABEL)
    if wanted is not None and wanted != os_name:
        return Rejection(POD_OS_SELECTOR_MISMATCH, POD_OS_SELECTOR_MESSAGE)
    reasons = general_filter(pod, node_info)
    return reasons[0] if reasons else None


def general_filter(pod: Pod, node_info: NodeInfo) -> list[Rejection]:
    """generalFilter: AdmissionCheck with every failure (resources, required node affinity, node
    name, host ports), then an untolerated NoExecute taint unless the pod is a static pod; the
    first one is the kubelet's answer."""
    out: list[Rejection] = []
    for r in fits_request(_without_missing_extended(pod.requests, node_info), node_info):
        # InsufficientResourceError: OutOfcpu, OutOfmemory, OutOfephemeral-storage, OutOfpods,
        # OutOf<name> for the others
        out.append(
            Rejection(
                INSUFFICIENT_RESOURCE_PREFIX + r.resource,
                f"Node didn't have enough resource: {r.resource}, requested: {r.requested}, used: {r.used}, "
                f"capacity: {r.capacity}",
            )
        )
    if not RequiredNodeAffinity.of(pod).matches(node_info.node.labels, node_info.node.name):
        out.append(_predicate(node_affinity.NAME, NODE_AFFINITY_REASON))
    if pod.node_name and pod.node_name != node_info.node.name:
        out.append(_predicate(node_name.NAME, NODE_NAME_REASON))
    if not fits_ports(container_ports(pod), node_info):
        out.append(_predicate(node_ports.NAME, NODE_PORTS_REASON))
    # types.IsStaticPod: a pod the kubelet read from a file or URL ignores the taints
    static = pod.annotations.get(CONFIG_SOURCE_ANNOTATION, "api") != "api"
    if not static and find_matching_untolerated_taint(node_info.node.taints, pod.tolerations, NO_EXECUTE) is not None:
        out.append(_predicate(taint_toleration.NAME, TAINT_REASON))
    return out


def _predicate(name: str, desc: str) -> Rejection:
    """PredicateFailureError: its name is the reason, "Predicate <name> failed: <desc>" the message;
    the kubelet names each by its scheduler plugin's Name (predicate.go)."""
    return Rejection(name, f"Predicate {name} failed: {desc}")


def _without_missing_extended(req: Resource, node_info: NodeInfo) -> Resource:
    """removeMissingExtendedResources: an extended resource the node does not list at all (no
    device plugin registered it) is not asked of it."""
    alloc = node_info.allocatable.scalar
    missing = [n for n in req.scalar if is_extended(n) and n not in alloc]
    if not missing:
        return req
    return replace(req, scalar={n: v for n, v in req.scalar.items() if n not in missing})


def is_bound(pod: Pod, sched: Scheduler) -> bool:
    """A new pod that names a node of the cluster: the kubelet, not the scheduler, takes it. (One
    that names a node the cluster lacks stays pending: no kubelet ever runs it.) With `schedule
    --apply` (a binder that writes to the cluster) every pod goes through the binder, as before."""
    from kwhatif.binder import RecordingBinder

    return bool(pod.node_name) and pod.node_name in sched.snapshot and isinstance(sched.binder, RecordingBinder)


def run(sched: Scheduler, pods: list[Pod], *, skip_unchanged: bool = False) -> list[Attempt]:
    """The new pods as a cluster takes them: those bound by their spec.nodeName are admitted by
    their node's kubelet first (they run as soon as they are created), in order, each seeing the
    ones admitted before it; the scheduler then places the others around them."""
    bound = [p for p in pods if is_bound(p, sched)]
    rest = [p for p in pods if not is_bound(p, sched)]
    attempts = [_kubelet_attempt(sched, p) for p in bound]
    if rest:
        attempts += sched.run(rest, skip_unchanged=skip_unchanged)
    return attempts


def iter_run(sched: Scheduler, pods: list[Pod], *, skip_unchanged: bool = False) -> Iterator[tuple[Attempt, bool]]:
    """run(), each attempt as soon as it ends, with whether it is its pod's last (Scheduler.iter_run's
    shape): the kubelet's admissions first, then the scheduler's attempts."""
    bound = [p for p in pods if is_bound(p, sched)]
    rest = [p for p in pods if not is_bound(p, sched)]
    for p in bound:
        yield _kubelet_attempt(sched, p), True
    if rest:
        yield from sched.iter_run(rest, skip_unchanged=skip_unchanged)


def _kubelet_attempt(sched: Scheduler, pod: Pod) -> Attempt:
    node_info = sched.snapshot.get(pod.node_name)
    assert node_info is not None
    profile = pod.scheduler_name
    att = Attempt(pod=pod, profile=profile, round=1, num_nodes=sched.snapshot.num_nodes)
    rejection = admit(pod, node_info)
    if rejection is None:
        sched.snapshot.assume(pod, pod.node_name)
        att.result, att.node = PodOutcome.SCHEDULED, pod.node_name
        att.notes.append(
            f"spec.nodeName names node {pod.node_name}: the pod is bound as it is created, the scheduler never "
            "sees it, and the node's kubelet admits it (resources, node affinity, host ports and NoExecute "
            "taints: cordoning and NoSchedule taints do not matter)"
        )
        return att
    att.result = PodOutcome.UNSCHEDULABLE
    att.message = f"{rejection.reason}: {REJECTED}{rejection.message}"
    att.reason_counts = {rejection.reason: 1}
    att.notes.append(
        f"spec.nodeName names node {pod.node_name}: the scheduler never sees the pod; the node's kubelet rejects "
        f"it and the pod fails (status.reason {rejection.reason})"
    )
    return att
