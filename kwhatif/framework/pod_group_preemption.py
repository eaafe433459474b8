"""Workload-aware preemption (framework/preemption/podgrouppreemption.go, v1.36.2): with the
WorkloadAwarePreemption gate, a pod group that does not fit preempts as a whole, at the
PodGroup's priority (per-pod preemption of its members is off: "not eligible due to workload
aware preemption enabled").

Over the whole cluster (one domain), every bound pod of lower priority than the PodGroup is a
potential victim (a pod group's bound pods are one victim). All of them are taken out; if the
group then fits, victims are given back, most important first, as long as the group still fits;
the rest are preempted. PodDisruptionBudgets do not order the victims here (upstream tries the
victims whose eviction would violate one first).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.cache.pod_groups import group_key
from kwhatif.framework.interface import SUCCESS, Code, Status

# podgrouppreemption.go and schedule_one_podgroup.go, verbatim
MSG_NO_VICTIMS = "No preemption victims found for incoming preemptor"
MSG_CONSTRAINTS = "workload aware preemption is not supported for pod groups with scheduling constraints"
MSG_NOT_ELIGIBLE = "preemption: not eligible due to workload aware preemption enabled"


@dataclass(frozen=True, slots=True)
class Victim:
    pods: tuple[Pod, ...]
    is_pod_group: bool

    @property
    def priority(self) -> int:
        return max(p.priority for p in self.pods)

    @property
    def earliest_start(self) -> float:
        return min(p.start_time or p.creation_timestamp for p in self.pods)


def _more_important(a: Victim, b: Victim) -> int:
    """moreImportantVictim as a comparison (-1: a first)."""
    if a.priority != b.priority:
        return -1 if a.priority > b.priority else 1
    if a.is_pod_group != b.is_pod_group:
        return -1 if a.is_pod_group else 1
    if a.is_pod_group and len(a.pods) != len(b.pods):
        return -1 if len(a.pods) > len(b.pods) else 1
    if a.earliest_start != b.earliest_start:
        return -1 if a.earliest_start < b.earliest_start else 1
    return 0


def victims(bound: Sequence[Pod], priority: int, grouped: bool) -> list[Victim]:
    """The potential victims: bound pods below ``priority``, a pod group's pods as one."""
    by_group: dict[str, list[Pod]] = {}
    out: list[Victim] = []
    for p in bound:
        key = group_key(p) if grouped else ""
        if key:
            by_group.setdefault(key, []).append(p)
        elif p.priority < priority:
            out.append(Victim((p,), False))
    for pods in by_group.values():
        v = Victim(tuple(pods), True)
        if v.priority < priority:
            out.append(v)
    return out


def preempt(
    group: PodGroup | None,
    bound: Sequence[Pod],
    grouped: bool,
    remove: Callable[[Pod], None],
    add: Callable[[Pod], None],
    fits: Callable[[], Status],
    evict: Callable[[Pod], None],
) -> Status:
    """PodGroupEvaluator.Preempt. ``fits`` runs the group algorithm on the snapshot as it stands
    (without PostFilter) and says whether the group is schedulable; ``remove``/``add`` change the
    snapshot; ``evict`` deletes a victim for good."""
    if group is None:
        return Status(Code.ERROR, ("failed to get pod group object: not found",))
    if group.topology_keys:
        return Status.of(Code.UNSCHEDULABLE, MSG_CONSTRAINTS)
    prio = group.priority if group.priority is not None else 0
    own = f"{group.namespace}/{group.name}"
    potential = victims([p for p in bound if not grouped or group_key(p) != own], prio, grouped)
    if not potential:
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS)
    for v in potential:
        for p in v.pods:
            remove(p)
    st = fits()
    if not st.is_success():
        for v in potential:
            for p in v.pods:
                add(p)
        return st
    potential.sort(key=functools.cmp_to_key(_more_important))
    chosen: list[Victim] = []
    for v in potential:
        for p in v.pods:
            add(p)
        if not fits().is_success():
            for p in v.pods:
                remove(p)
            chosen.append(v)
    # the snapshot is restored, then the chosen victims are deleted
    for v in chosen:
        for p in v.pods:
            add(p)
    chosen.sort(key=functools.cmp_to_key(_more_important))
    for v in chosen:
        for p in v.pods:
            evict(p)
    return SUCCESS
