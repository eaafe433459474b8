"""The gang-aware piece of the scheduling queue: which pods go through the pod-group cycle, the
members a popped pod brings along, and the record of every pod-group cycle.

With GenericWorkload off the API server drops spec.schedulingGroup, so those pods are scheduled
one by one as any other. With it on, the cache tracks every group's pods (bound or pending), and
popping one member pulls the group's other unscheduled members out of the queue
(podGroupInfoForPod)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.cache.pod_groups import PodGroupStates, group_key
from kwhatif.framework import pod_group_preemption as preemption
from kwhatif.framework.interface import Status
from kwhatif.framework.types import PodOutcome
from kwhatif.release.versions import Behaviour
from kwhatif.release.workload_gates import GangGates
from kwhatif.scheduling.placement_cycle import PlacementHost, PlacementPodGroupCycle
from kwhatif.scheduling.pod_group_cycle import Attempt, Condition, GroupOutcome, Host, PodGroupCycle, member_order

NOTE_DROPPED = "spec.schedulingGroup dropped by the API server: the GenericWorkload feature gate is off"
NOTE_FOLLOWS_GENERIC_WORKLOAD = (
    "kube-scheduler 1.37 has no GangScheduling or WorkloadAwarePreemption feature gate: kwhatif runs the "
    "GangScheduling plugin and workload-aware preemption whenever GenericWorkload is on"
)


class GangQueue:
    def __init__(
        self,
        gates: GangGates,
        pod_groups: Mapping[str, PodGroup],
        states: PodGroupStates,
        behaviour: Behaviour | None = None,
    ) -> None:
        self.gates = gates
        self.behaviour = behaviour or Behaviour()
        self.pod_groups = pod_groups
        self.states = states
        self.outcomes: list[GroupOutcome] = []
        self.conditions: dict[str, Condition] = {}  # the PodGroupScheduled condition, by group
        self.cycles = 0  # ScheduleOne calls so far (pod-group cycles and single pods)
        self.notes: list[str] = []  # about the run as a whole

    def prepare(self, bound: Iterable[Pod], pending: Sequence[Pod]) -> list[Pod]:
        """The pending pods as the scheduler gets them; the cache learns every group's pods."""
        if not self.gates.generic_workload:
            dropped = sum(1 for p in pending if p.pod_group)
            if dropped:
                self.notes.append(
                    f"{dropped} pod(s) name a PodGroup (spec.schedulingGroup), which the API server drops while the "
                    "GenericWorkload feature gate is off: they are scheduled one by one, not as a group"
                )
            return [
                dataclasses.replace(p, pod_group="", admission_notes=(*p.admission_notes, NOTE_DROPPED))
                if p.pod_group
                else p
                for p in pending
            ]
        for p in bound:
            self.states.add_pod(p)
        for p in pending:
            self.states.add_pod(p)
        if any(p.pod_group for p in pending):
            if self.behaviour.gang_follows_generic_workload:
                self.notes.append(NOTE_FOLLOWS_GENERIC_WORKLOAD)
            if not self.behaviour.gang_scheduling_permit:
                self.notes.append(
                    "GangScheduling has no Permit from 1.38 (#141182): PlacementFeasible decides a gang's quorum inside "
                    "the pod-group cycle (and its messages differ); kwhatif answers with the Permit-based cycle of the "
                    "releases before it"
                )
            elif self.behaviour.gang_placement_feasible:
                self.notes.append(
                    "kube-scheduler 1.37 decides a gang's quorum with GangScheduling's PlacementFeasible inside the "
                    "pod-group cycle (and its messages differ); kwhatif answers with 1.36's Permit-based cycle"
                )
        return list(pending)

    def group_of(self, pod: Pod) -> str:
        """The key of the pod's group when it goes through the pod-group cycle, else ''."""
        return group_key(pod) if self.gates.generic_workload else ""

    def schedule_group(
        self,
        first: Pod,
        queued: Sequence[Pod],
        rnd: int,
        host: Host,
        schedule: Callable[[Pod, PodGroupCycle | None], Attempt],
        blank: Callable[[Pod], Attempt],
        enqueued: Callable[[Pod], bool],
    ) -> list[Attempt]:
        """scheduleOnePodGroup for the group of ``first``: ``queued`` are the pods still in the
        queue this round (``first`` among them). A member PreEnqueue keeps out is gated, not tried."""
        self.cycles += 1
        key = group_key(first)
        members = [p for p in queued if group_key(p) == key]
        gated = [p for p in members if not enqueued(p)]
        attempts = [schedule(p, None) for p in gated]
        tried = member_order([p for p in members if enqueued(p)], first) if enqueued(first) else []
        if not tried:
            return attempts
        group = self.pod_groups.get(key)
        cycle = (
            PlacementPodGroupCycle(cast("PlacementHost", host), key, group)
            if self.gates.topology_aware
            else PodGroupCycle(host, key, group)
        )
        deleted_before = len(getattr(host, "deleted", ()))

        def workload_aware_preemption(pods: Sequence[Pod]) -> Status:
            def fits() -> Status:
                dry = PodGroupCycle(host, key, group)
                with host.without_preemption():
                    st, _ = dry.algorithm(pods, lambda p, c: schedule(p, c), blank)
                dry.revert_all()
                return st

            snap = host.snapshot
            return preemption.preempt(
                group,
                [pi.pod for pi in snap.pods()],
                self.gates.generic_workload,
                lambda p: None if snap.remove_pod(p) else None,
                lambda p: None if snap.add_pod(p) else None,
                fits,
                host.evict,
            )

        wap = workload_aware_preemption if self.gates.workload_aware_preemption else None
        status = cycle.run(tried, lambda p, c: schedule(p, c), blank, wap)
        outcome = GroupOutcome(key, self.cycles, rnd, [p.key for p in tried], list(cycle.fit))
        if isinstance(cycle, PlacementPodGroupCycle):
            outcome.placements = cycle.record
        outcome.victims = sorted(v.key for v in list(getattr(host, "deleted", ()))[deleted_before:])
        outcome.condition = cond = cycle.condition(status)
        if cond is not None:
            # updatePodGroupCondition: a group once scheduled stays PodGroupScheduled=True
            existing = self.conditions.get(key)
            group = self.pod_groups.get(key)
            was_true = (existing is not None and existing.status == "True") or (
                existing is None and group is not None and group.scheduled
            )
            if group is not None and not (was_true and cond.status != "True"):
                self.conditions[key] = cond
        self.outcomes.append(outcome)
        return attempts + [m.att for m in cycle.members]

    def single(self) -> None:
        """An ordinary ScheduleOne (one pod) took a cycle."""
        self.cycles += 1


def unbound(attempts: Iterable[Attempt]) -> list[Attempt]:
    return [a for a in attempts if a.result in (PodOutcome.UNSCHEDULABLE, PodOutcome.ERROR)]
