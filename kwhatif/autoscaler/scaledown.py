"""Scale-down: which nodes cluster-autoscaler could remove, where their pods would go, and why each
other node stays (core/scaledown/eligibility/eligibility.go, simulator/utilization/info.go,
simulator/cluster.go SimulateNodeRemoval, simulator/drain.go GetPodsToMove and
simulator/drainability/rules/*, cluster-autoscaler-release-1.36).

A node is a candidate when it belongs to a group, is not annotated scale-down-disabled nor being
deleted, and the larger of its requested cpu and memory over allocatable is at most the
threshold. Its pods must all be movable (the drainability rules, in upstream's order: mirror
pods stay with the node, DaemonSet pods go with it, safe-to-evict wins, a pod not replicated, a
kube-system pod without a PodDisruptionBudget, one annotated not safe to evict, one with local
storage or a budget with no disruption left blocks) and each must fit another node, filters only;
a removal that succeeds is kept, so the next candidates see its pods moved. A group never goes
below its minimum size.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from kwhatif.api.core import Node, Pod, Taint
from kwhatif.autoscaler.nodegroups import NodeGroupSet
from kwhatif.autoscaler.simulator import Simulator
from kwhatif.autoscaler.template import TO_BE_DELETED_TAINT
from kwhatif.cache.cluster import ClusterState

SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
REPLICATED_KINDS = frozenset({"ReplicationController", "Job", "ReplicaSet", "StatefulSet"})
BSP_DISRUPTION_TIMEOUT = 3600.0  # --blocking-system-pod-distruption-timeout


@dataclass(frozen=True, slots=True)
class Removable:
    node: str
    group: str | None
    utilization: float
    pods_to: Mapping[str, str]  # pod -> the node it moves to


@dataclass(frozen=True, slots=True)
class NotRemovable:
    node: str
    reason: str


@dataclass(slots=True)
class ScaleDownResult:
    threshold: float
    removable: list[Removable] = field(default_factory=list)
    not_removable: list[NotRemovable] = field(default_factory=list)


def utilization(pods: list[Pod], alloc_cpu: int, alloc_mem: int) -> tuple[float, str]:
    """utilization.Calculate: the larger of cpu and memory requested over allocatable (DaemonSet
    and mirror pods counted, as --ignore-daemonsets-utilization and
    --ignore-mirror-pods-utilization default to false)."""
    cpu = sum(p.requests.milli_cpu for p in pods if not p.deleting) / alloc_cpu if alloc_cpu else 0.0
    mem = sum(p.requests.memory for p in pods if not p.deleting) / alloc_mem if alloc_mem else 0.0
    return (cpu, "cpu") if cpu > mem else (mem, "memory")


def drainable(pod: Pod, state: ClusterState, now: float) -> tuple[str, str | None]:
    """rules.Default's verdict on one pod: ("skip" | "move" | "daemonset" | "wait" | "block", why)."""
    ann = pod.annotations
    ref = pod.controller_ref
    if pod.is_mirror:
        return "skip", None  # mirror: stays with the node
    if ref is not None and ref.kind == "DaemonSet":
        return "daemonset", None
    if ann.get(SAFE_TO_EVICT) == "true":
        return "move", None
    if pod.phase == "Failed" or (pod.phase == "Succeeded"):
        return "move", None  # terminal
    if ann.get(SAFE_TO_EVICT) == "on-completion":
        return "wait", None
    if ref is None or ref.kind not in REPLICATED_KINDS:
        return "block", f"NotReplicated: {pod.key} is not replicated"
    pdbs = [b for b in state.pdbs if b.namespace == pod.namespace and b.selector.matches(pod.labels)]
    if pod.namespace == "kube-system" and not pdbs:
        created = pod.creation_timestamp
        if created and now > created + BSP_DISRUPTION_TIMEOUT:
            return "move", None  # past --blocking-system-pod-distruption-timeout: drainable, no later rule
        return "block", (
            f"UnmovableKubeSystemPod: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: {pod.name}"
        )
    if ann.get(SAFE_TO_EVICT) == "false":
        return "block", f"NotSafeToEvictAnnotation: pod annotated as not safe to evict present: {pod.name}"
    safe_volumes = set(filter(None, ann.get(SAFE_TO_EVICT_LOCAL_VOLUMES, "").split(",")))
    if any(v.kind in ("emptyDir", "hostPath") and v.name not in safe_volumes for v in pod.volumes):
        return "block", f"LocalStorageRequested: pod with local storage present: {pod.name}"
    for b in pdbs:
        if b.disruptions_allowed < 1:
            return "block", f"NotEnoughPdb: not enough pod disruption budget to move {pod.key}"
    return "move", None


def eligibility(node: Node, pods: list[Pod], group: str | None, threshold: float) -> tuple[str | None, float]:
    """Checker.unremovableReasonAndNodeUtilization: why the node is not a candidate (None: it is),
    and its utilization. Unready nodes are candidates (--scale-down-unready-enabled)."""
    if any(t.key == TO_BE_DELETED_TAINT for t in node.taints):
        return "CurrentlyBeingDeleted", 0.0
    if node.annotations.get(SCALE_DOWN_DISABLED) == "true":
        return f"ScaleDownDisabledAnnotation: {SCALE_DOWN_DISABLED}=true", 0.0
    if group is None:
        return "NotAutoscaled: the node is in no node group", 0.0
    alloc = node.allocatable
    if alloc.milli_cpu == 0 or alloc.memory == 0:
        which = "cpu" if alloc.milli_cpu == 0 else "memory"
        return f"UnexpectedError: {which} is 0 at {node.name}", 0.0
    util, which = utilization(pods, alloc.milli_cpu, alloc.memory)
    if util > threshold:
        return f"NotUnderutilized: {which} utilization {util:.2f} is above {threshold:g}", util
    return None, util


def scale_down(
    sim: Simulator,
    ngs: NodeGroupSet,
    sizes: Mapping[str, int],
    threshold: float,
    state: ClusterState,
    now: float | None = None,
) -> ScaleDownResult:
    """The unneeded nodes of the simulator's snapshot, removed one after another (each removal
    kept). Changes the snapshot: give it one of its own."""
    now = time.time() if now is None else now
    res = ScaleDownResult(threshold)
    group_of = ngs.group_of()
    by_name = {g.name: g for g in ngs.groups}
    left = {g.name: sizes.get(g.name, g.target_size) for g in ngs.groups}
    removed: set[str] = set()
    for ni in list(sorted(sim.snapshot.node_infos, key=lambda n: n.name)):
        node = ni.node
        name = node.name
        group = group_of.get(name)
        if name not in state.nodes:
            continue  # a node this run added
        pods = [pi.pod for pi in ni.pods]
        reason, util = eligibility(node, pods, group, threshold)
        if reason is not None:
            res.not_removable.append(NotRemovable(name, reason))
            continue
        assert group is not None
        if left[group] <= by_name[group].min_size:
            res.not_removable.append(
                NotRemovable(name, f"NodeGroupMinSizeReached: {group} is at its minimum size {by_name[group].min_size}")
            )
            continue
        to_move: list[Pod] = []
        blocked: str | None = None
        for p in pods:
            verdict, why = drainable(p, state, now)
            if verdict == "block":
                blocked = why
                break
            if verdict == "move":
                to_move.append(p)
        if blocked is not None:
            res.not_removable.append(NotRemovable(name, f"BlockedByPod: {blocked}"))
            continue
        moved = _find_place(sim, name, to_move, removed)
        if isinstance(moved, str):
            res.not_removable.append(NotRemovable(name, f"NoPlaceToMovePods: {moved} fits no other node"))
            continue
        removed.add(name)
        left[group] -= 1
        res.removable.append(Removable(name, group, round(util, 4), moved))
    return res


def _find_place(sim: Simulator, removed_node: str, pods: list[Pod], removed: set[str]) -> dict[str, str] | str:
    """findPlaceFor: the pods leave the node, which is tainted ToBeDeletedByClusterAutoscaler (a
    ghost node), then each must fit another node that is not being removed; on success the node
    goes (the moves returned), else everything is put back (the pod that fits nowhere returned)."""
    snap = sim.snapshot
    ni = snap.get(removed_node)
    assert ni is not None
    original = ni.node
    for p in pods:
        snap.remove_pod(p)
    snap.replace_node(
        dataclasses.replace(original, taints=(*original.taints, Taint(TO_BE_DELETED_TAINT, "", "NoSchedule")))
    )
    candidates = [n.name for n in snap.node_infos if n.name != removed_node and n.name not in removed]
    placed: list[Pod] = []
    moves: dict[str, str] = {}
    stuck = ""
    for p in pods:
        loose = dataclasses.replace(p, node_name="")
        k = sim.fits_any(loose, candidates, 0)
        if k < 0:
            stuck = p.key
            break
        placed.append(sim.place(loose, candidates[k]))
        moves[p.key] = candidates[k]
    if not stuck:
        sim.remove_node(removed_node)
        return moves
    for q in placed:
        snap.forget(q)
    snap.replace_node(original)
    for p in pods:
        snap.add_pod(p)
    return stuck
