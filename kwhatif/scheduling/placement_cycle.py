"""The pod-group cycle with TopologyAwareWorkloadScheduling on (podGroupSchedulingPlacementAlgorithm
and findBestPlacement of schedule_one_podgroup.go, v1.36.2).

The profile's PlacementGenerate plugin (TopologyPlacementGenerator) turns every node of the snapshot
into placements: one per topology domain of the PodGroup's ``schedulingConstraints.topology`` key,
or one placement of every node for a group without constraints (and for a profile without the
plugin). Each placement is tried in turn on the same snapshot: the snapshot is limited to the
placement's nodes (AssumePlacement: the members are filtered and scored on those nodes only, the
FitError counts those nodes, while PreFilter and PreScore still see the whole cluster), the default
group algorithm runs, and its assumptions are undone before the next placement. An error in one
placement ends the cycle with that error. A placement is feasible when the group is schedulable there
(or waits for preemption). None feasible: the group is Unschedulable with ``0/N placements are
available, first placement status: ...`` and its members answer as in the first placement. One
feasible: it is taken. Several: the PlacementScore plugins (PodGroupPodsCount) score them, and the
highest total wins; the chosen placement's members are assumed again and go on to bind.

Upstream is random in two places kwhatif makes deterministic: the order of the placements (a Go map)
is domain-name order here, so "first placement" is the smallest domain name; a tie of placement
scores (broken by a random number) goes to the first of the tied placements in that order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.framework.interface import Code, Placement, Status
from kwhatif.framework.types import PodOutcome
from kwhatif.scheduling.placement_record import PlacementRecord, PlacementTried
from kwhatif.scheduling.pod_group_cycle import Attempt, Host, PodGroupCycle, _Member

if TYPE_CHECKING:
    from kwhatif.framework.runtime import Framework


class PlacementHost(Host, Protocol):
    """What the placement algorithm uses of the scheduler besides the cycle's Host."""

    def framework_for(self, pod: Pod) -> Framework: ...

    def assume_placement(self, placement: Placement) -> None:
        """Limit the nodes a member is filtered and scored on (Snapshot.AssumePlacement)."""
        ...

    def forget_placement(self) -> None: ...


def unavailable_message(count: int, first: Status) -> str:
    """The group's status when no placement is feasible (podGroupSchedulingPlacementAlgorithm)."""
    return f"0/{count} placements are available, first placement status: {first.message()}"


class PlacementPodGroupCycle(PodGroupCycle):
    """A PodGroupCycle whose algorithm tries the group's placements."""

    def __init__(self, sched: PlacementHost, key: str, group: PodGroup | None) -> None:
        super().__init__(sched, key, group)
        self.host: PlacementHost = sched
        self.record = PlacementRecord()

    def algorithm(
        self,
        pods: Sequence[Pod],
        schedule: Callable[[Pod, PodGroupCycle], Attempt],
        blank: Callable[[Pod], Attempt],
    ) -> tuple[Status, bool]:
        host = self.host
        fw = host.framework_for(pods[0])
        namespace, _, name = self.key.partition("/")
        placements, st = fw.run_placement_generate(namespace, name, [ni.name for ni in host.snapshot.node_infos])
        self.record = record = PlacementRecord()
        if not st.is_success():
            # every member fails with the group's status (no member was tried)
            record.status = st
            self._fail_all(pods, blank, st)
            return st, False
        first: tuple[Status, list[_Member]] | None = None
        feasible: list[tuple[Placement, list[_Member], Status, bool]] = []
        for placement in placements:
            trial = PodGroupCycle(host, self.key, self.group)
            host.assume_placement(placement)
            try:
                status, waiting = trial.algorithm(pods, schedule, blank)
            finally:
                host.forget_placement()
            trial.revert_all()  # podGroupSchedulingDefaultAlgorithm's deferred reverts
            record.tried.append(
                PlacementTried(placement.name, len(placement.nodes), status, sum(1 for m in trial.members if m.ok))
            )
            if status.code is Code.ERROR:
                self.members = trial.members
                return status, False
            if first is None:
                first = (status, trial.members)
            if status.is_success() or waiting:
                record.tried[-1].feasible = True
                feasible.append((placement, trial.members, status, waiting))
        assert first is not None
        if not feasible:
            self.members = first[1]
            return Status(Code.UNSCHEDULABLE, (unavailable_message(len(placements), first[0]),)), False
        best = 0
        if len(feasible) > 1:
            proposed = [{m.att.pod.key: m.host for m in members if m.ok} for _, members, _, _ in feasible]
            scores, st = fw.run_placement_score(namespace, name, proposed)
            if not st.is_success():
                self._fail_all(pods, blank, st)
                return st, False
            by_name = {p.name: s for (p, _, _, _), s in zip(feasible, scores, strict=True)}
            for t in record.tried:
                t.score = by_name.get(t.name)
            # the highest total; upstream breaks a tie at random, kwhatif takes the first
            best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        placement, members, status, waiting = feasible[best]
        record.chosen = placement.name
        self.members = members
        if status.is_success():
            self._reassume(members)
        return status, waiting

    def _fail_all(self, pods: Sequence[Pod], blank: Callable[[Pod], Attempt], st: Status) -> None:
        self.members = []
        for pod in pods:
            att = blank(pod)
            att.result = PodOutcome.UNSCHEDULABLE if st.is_rejected() else PodOutcome.ERROR
            att.message = st.message()
            self.members.append(_Member(att=att, rejected=st.is_rejected()))

    def _reassume(self, members: list[_Member]) -> None:
        """prepareForBindingCycle's assumeAndReserve for the members of a schedulable group's chosen
        placement (their assumptions were undone after the placement was tried)."""
        snap = self.sched.snapshot
        states = self.sched.pod_group_states
        for m in members:
            if not m.ok or m.requires_preemption or m.fw is None or m.state is None:
                continue
            pod = m.att.pod
            m.assumed = snap.assume(pod, m.host)
            states.assume(pod)
            m.held = True
            st = m.fw.run_reserve(m.state, m.assumed, m.host)
            if not st.is_success():
                self._revert(m)
                m.ok = False
                m.att.message = st.message()
