"""`kubectl drain` as a what-if: cordon the nodes, evict their pods the way drain does, and
schedule the replacements the controllers would create, each seeing the earlier ones.

The pods are sorted out as kubectl drain's filters (k8s.io/kubectl/pkg/drain/filters.go) sort
them, in their order, the first filter that keeps a pod deciding: a running DaemonSet pod refuses
the drain unless --ignore-daemonsets (then it stays), a mirror (static) pod stays, a running pod
with emptyDir volumes refuses unless --delete-emptydir-data, a running pod that declares no
controller refuses unless --force (then it is deleted and nothing recreates it). A node with a
refusing pod is cordoned and nothing on it is evicted, as kubectl drain gives up on that node.
A pod whose eviction a PodDisruptionBudget refuses stays where it is, unless --disable-eviction
(pods are deleted, no budget is consulted). --pod-selector narrows the pods drain looks at.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.api.labels import Selector
from kwhatif.cache.cluster import ClusterState
from kwhatif.framework.types import PodOutcome
from kwhatif.report.capacity import NodeUsage
from kwhatif.scheduling.scheduler import Attempt, Scheduler
from kwhatif.whatif.capacity import node_usage, requested

if TYPE_CHECKING:
    from kwhatif.release.versions import ChosenVersion
    from kwhatif.report.drain import DrainReport

EVICT = "evict"
BLOCKED = "blocked"  # the eviction is refused (a PodDisruptionBudget): drain cannot finish
SKIP_DAEMONSET = "skip-daemonset"
SKIP_MIRROR = "skip-mirror"
REFUSED = "refused"  # the pod makes drain refuse its node (kubectl drain's filter errors)
NOT_EVICTED = "not-evicted"  # on a node drain refused: left where it is

# kubectl's drain filter errors (k8s.io/kubectl/pkg/drain/filters.go), in filter order; each is
# reported as "cannot delete <what>: ns/pod, ..."
DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
FATAL_ORDER = (DAEMONSET_FATAL, LOCAL_STORAGE_FATAL, UNMANAGED_FATAL)


@dataclass(frozen=True, slots=True)
class DrainOptions:
    """kubectl drain's flags that change what is evicted."""

    ignore_daemonsets: bool = False
    delete_emptydir_data: bool = False
    force: bool = False
    disable_eviction: bool = False  # delete instead of evict: no PodDisruptionBudget is consulted
    pod_selector: Selector | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """One of kubectl drain's errors for a node: the filter's message and the pods it names."""

    node: str
    reason: str
    pods: tuple[str, ...]

    @property
    def message(self) -> str:
        return f"cannot delete {self.reason}: {', '.join(self.pods)}"


@dataclass(slots=True)
class DrainedPod:
    pod: Pod
    action: str
    controller: tuple[str, str] | None  # (kind, name) of the controlling owner
    lost: bool  # a bare pod: evicted, never recreated
    empty_dir: bool  # its emptyDir data is lost
    pdb_blocked: str | None  # the PDB that refuses the eviction
    refusal: str | None = None  # with REFUSED: the kubectl drain filter error it raises
    attempt: Attempt | None = None  # the replacement's last scheduling cycle
    attempts: list[Attempt] = field(default_factory=list)  # all of them, in order

    @property
    def node(self) -> str | None:
        if self.attempt is not None and self.attempt.result is PodOutcome.SCHEDULED:
            return self.attempt.node
        return None


@dataclass(slots=True)
class DrainResult:
    nodes: list[str]
    pods: list[DrainedPod] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)  # by node, then in filter order
    unselected: int = 0  # pods on the nodes --pod-selector leaves alone
    attempts: list[Attempt] = field(default_factory=list)
    usage: tuple[NodeUsage, ...] = ()  # every node, by name: what is requested before and after the drain


def _filter(pod: Pod, opts: DrainOptions) -> tuple[str, str | None]:
    """kubectl drain's filters, in their order: the pod's action, and the error it raises."""
    ref = pod.controller_ref
    finished = pod.phase in ("Succeeded", "Failed")
    if ref is not None and ref.kind == "DaemonSet" and not finished:
        return (SKIP_DAEMONSET, None) if opts.ignore_daemonsets else (REFUSED, DAEMONSET_FATAL)
    if pod.is_mirror:
        return SKIP_MIRROR, None
    if not finished and not opts.delete_emptydir_data and any(v.kind == "emptyDir" for v in pod.volumes):
        return REFUSED, LOCAL_STORAGE_FATAL
    if not finished and ref is None and not opts.force:
        return REFUSED, UNMANAGED_FATAL
    return EVICT, None


def plan(state: ClusterState, nodes: list[str], opts: DrainOptions | None = None) -> DrainResult:
    """What drain would do with every pod on the nodes, in node then pod name order."""
    opts = opts or DrainOptions()
    result = DrainResult(nodes=list(nodes))
    budgets = {(p.namespace, p.name): p.disruptions_allowed for p in state.pdbs}
    drained = set(nodes)
    on_nodes = sorted(
        (p for p in state.pods if p.node_name in drained), key=lambda p: (p.node_name, p.namespace, p.name)
    )
    if opts.pod_selector is not None:
        sel = opts.pod_selector
        picked = [p for p in on_nodes if sel.matches(p.labels)]
        result.unselected = len(on_nodes) - len(picked)
        on_nodes = picked
    filtered = [(pod, *_filter(pod, opts)) for pod in on_nodes]
    refused_nodes: dict[str, dict[str, list[str]]] = {}
    for pod, _, error in filtered:
        if error is not None:
            refused_nodes.setdefault(pod.node_name, {}).setdefault(error, []).append(f"{pod.namespace}/{pod.name}")
    for name in nodes:
        errors = refused_nodes.get(name, {})
        for reason in FATAL_ORDER:
            if reason in errors:
                result.refusals.append(Refusal(name, reason, tuple(errors[reason])))
    for pod, action, error in filtered:
        ref = pod.controller_ref
        controller = (ref.kind, ref.name) if ref else None
        empty_dir = any(v.kind == "emptyDir" for v in pod.volumes)
        if action == EVICT and pod.node_name in refused_nodes:
            action = NOT_EVICTED
        blocked = None
        if action == EVICT and not opts.disable_eviction:
            for pdb in sorted(state.pdbs, key=lambda b: b.name):
                if pdb.namespace != pod.namespace or not pdb.selector.matches(pod.labels):
                    continue
                if budgets[(pdb.namespace, pdb.name)] <= 0:
                    blocked = pdb.name
                    break
            if blocked is None:
                # The eviction API checks every matching budget; each one gives up a disruption.
                for pdb in state.pdbs:
                    if pdb.namespace == pod.namespace and pdb.selector.matches(pod.labels):
                        budgets[(pdb.namespace, pdb.name)] -= 1
            else:
                action = BLOCKED
        lost = action == EVICT and ref is None
        result.pods.append(DrainedPod(pod, action, controller, lost, empty_dir, blocked, error))
    return result


def drain(sched: Scheduler, state: ClusterState, nodes: list[str], opts: DrainOptions | None = None) -> DrainResult:
    result = plan(state, nodes, opts)
    before = {ni.name: requested(ni) for ni in sched.snapshot.node_infos}
    # Cordon first, as drain does: the drained nodes take no replacement.
    for name in nodes:
        ni = sched.snapshot.get(name)
        if ni is not None:
            sched.snapshot.replace_node(dataclasses.replace(ni.node, unschedulable=True))
    evicted = [d for d in result.pods if d.action == EVICT and d.pdb_blocked is None]
    for d in evicted:
        sched.snapshot.remove_pod(d.pod)
    replacements: dict[str, DrainedPod] = {}
    pods: list[Pod] = []
    for d in evicted:
        if d.lost or d.pod.phase in ("Succeeded", "Failed"):
            # A bare pod (--force) is deleted and nothing recreates it, nor a finished pod: they
            # take no room anywhere.
            continue
        # The controller's replacement: the same template, not bound yet.
        repl = dataclasses.replace(d.pod, node_name="", nominated_node_name="", deleting=False, phase="Pending")
        replacements[repl.key] = d
        pods.append(repl)
    attempts = sched.run(pods, skip_unchanged=True)
    result.attempts = attempts
    for att in attempts:
        d = replacements[att.pod.key]
        d.attempt = att
        d.attempts.append(att)
    result.usage = node_usage(sched, before, {ni.name: requested(ni) for ni in sched.snapshot.node_infos})
    return result


def run_report(
    sched: Scheduler,
    state: ClusterState,
    nodes: list[str],
    opts: DrainOptions,
    pod_selector: str | None,
    profile: str,
    chosen: ChosenVersion,
) -> DrainReport:
    """``drain`` and its report, the notes first saying what --disable-eviction and
    --pod-selector (``pod_selector``, as given) changed, then the release's."""
    from kwhatif.report.drain import drain_report

    result = drain(sched, state, nodes, opts)
    notes = list(chosen.notes)
    if opts.disable_eviction:
        notes.insert(0, "--disable-eviction: the pods are deleted, no PodDisruptionBudget is checked")
    if opts.pod_selector is not None and result.unselected:
        notes.insert(0, f"--pod-selector {pod_selector}: {result.unselected} pod(s) on the nodes do not match and stay")
    return drain_report(result, profile, chosen, tuple(notes))
