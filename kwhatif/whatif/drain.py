"""`kubectl drain` as a what-if: cordon the nodes, evict their pods the way drain does, and
schedule the replacements the controllers would create, each seeing the earlier ones.

DaemonSet pods and mirror (static) pods are skipped, as drain skips them; a pod whose eviction
a PodDisruptionBudget refuses stays where it is; bare pods are evicted but nothing recreates them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from kwhatif.api.core import Pod
from kwhatif.cache.cluster import ClusterState
from kwhatif.framework.types import PodOutcome
from kwhatif.report.capacity import NodeUsage
from kwhatif.scheduler import Attempt, Scheduler
from kwhatif.whatif.capacity import node_usage, requested

EVICT = "evict"
BLOCKED = "blocked"  # the eviction is refused (a PodDisruptionBudget): drain cannot finish
SKIP_DAEMONSET = "skip-daemonset"
SKIP_MIRROR = "skip-mirror"


@dataclass(slots=True)
class DrainedPod:
    pod: Pod
    action: str
    controller: tuple[str, str] | None  # (kind, name) of the controlling owner
    lost: bool  # a bare pod: evicted, never recreated
    empty_dir: bool  # its emptyDir data is lost
    pdb_blocked: str | None  # the PDB that refuses the eviction
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
    attempts: list[Attempt] = field(default_factory=list)
    usage: tuple[NodeUsage, ...] = ()  # every node, by name: what is requested before and after the drain


def plan(state: ClusterState, nodes: list[str]) -> list[DrainedPod]:
    """What drain would do with every pod on the nodes, in node then pod name order."""
    budgets = {(p.namespace, p.name): p.disruptions_allowed for p in state.pdbs}
    out: list[DrainedPod] = []
    drained = set(nodes)
    for pod in sorted(
        (p for p in state.pods if p.node_name in drained), key=lambda p: (p.node_name, p.namespace, p.name)
    ):
        ref = pod.controller_ref
        controller = (ref.kind, ref.name) if ref else None
        empty_dir = any(v.kind == "emptyDir" for v in pod.volumes)
        if pod.is_mirror:
            out.append(DrainedPod(pod, SKIP_MIRROR, controller, False, empty_dir, None))
            continue
        if ref is not None and ref.kind == "DaemonSet":
            out.append(DrainedPod(pod, SKIP_DAEMONSET, controller, False, empty_dir, None))
            continue
        blocked = None
        for pdb in sorted(state.pdbs, key=lambda b: b.name):
            if pdb.namespace != pod.namespace or not pdb.selector.matches(pod.labels):
                continue
            key = (pdb.namespace, pdb.name)
            if budgets[key] <= 0:
                blocked = pdb.name
                break
        if blocked is None:
            # The eviction API checks every matching budget; each one gives up a disruption.
            for pdb in state.pdbs:
                if pdb.namespace == pod.namespace and pdb.selector.matches(pod.labels):
                    budgets[(pdb.namespace, pdb.name)] -= 1
        out.append(DrainedPod(pod, EVICT if blocked is None else BLOCKED, controller, ref is None, empty_dir, blocked))
    return out


def drain(sched: Scheduler, state: ClusterState, nodes: list[str]) -> DrainResult:
    result = DrainResult(nodes=list(nodes))
    result.pods = plan(state, nodes)
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
        if d.lost:
            # A bare pod is deleted and nothing recreates it (kubectl drain wants --force for it):
            # it takes no room anywhere.
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
