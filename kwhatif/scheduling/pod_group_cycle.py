"""The pod-group scheduling cycle (schedule_one_podgroup.go of v1.36.2) and its queue side.

When a pod of a PodGroup is popped, the queue hands over every other unscheduled member it holds;
the members, by priority then queue order, each run the normal Filter/Score/PostFilter on one
snapshot and are assumed there, so later members see them. Permit then runs (GangScheduling: Wait
until minCount members are scheduled). The group succeeds as soon as one member's Permit says
Success (with a pending preemption, it waits for that instead). A group that succeeded binds every
member that fit; one that did not binds none of them: the members that fit are reported
unschedulable with the group's message, the others keep their own FitError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.binder import Binder, Binding
from kwhatif.cache.pod_groups import PodGroupStates, group_key
from kwhatif.cache.snapshot import Snapshot
from kwhatif.framework.handle import Nominator
from kwhatif.framework.interface import Code, CycleState, Status
from kwhatif.framework.types import PodOutcome, fit_error_message
from kwhatif.plugins.gang_scheduling import MSG_WAITING_FOR_MIN_COUNT_SCHEDULED
from kwhatif.scheduling.placement_record import PlacementRecord

if TYPE_CHECKING:
    from kwhatif.framework.runtime import Framework

# schedule_one_podgroup.go and the framework's Permit status, verbatim
ERR_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
MSG_WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"
MSG_PERMIT_WAIT = "one or more plugins asked to wait and no plugin rejected pod"
COND_POD_GROUP_SCHEDULED = "PodGroupScheduled"


class Attempt(Protocol):
    """The parts of a scheduler Attempt the cycle completes."""

    pod: Pod
    result: PodOutcome
    node: str | None
    message: str
    nominated_node: str
    binding: Binding | None
    notes: list[str]


class Host(Protocol):
    """What the cycle uses of the scheduler running it."""

    snapshot: Snapshot
    nominator: Nominator
    binder: Binder
    pod_group_states: PodGroupStates

    def without_preemption(self) -> AbstractContextManager[None]:
        """Cycles run meanwhile skip PostFilter (runWithoutPostFilters)."""
        ...

    def evict(self, pod: Pod) -> None:
        """A preemption victim is deleted."""
        ...


@dataclass(frozen=True, slots=True)
class Condition:
    type: str
    status: str
    reason: str
    message: str


@dataclass(slots=True)
class GroupOutcome:
    """What one pod-group cycle decided for its group."""

    key: str  # "namespace/name" of the PodGroup
    cycle: int
    round: int
    members: list[str] = field(default_factory=list)  # pod keys, in the order tried
    fit: list[str] = field(default_factory=list)  # members placed in the cycle's snapshot (before the verdict)
    condition: Condition | None = None
    victims: list[str] = field(default_factory=list)
    # with TopologyAwareWorkloadScheduling: the placements tried
    placements: PlacementRecord | None = None


@dataclass(slots=True)
class _Member:
    att: Attempt
    fw: Framework | None = None
    state: CycleState | None = None
    assumed: Pod | None = None
    host: str = ""
    ok: bool = False  # scheduled in the snapshot (Permit said Success or Wait)
    held: bool = False  # still assumed in the snapshot
    rejected: bool = True  # a failure that is a rejection (else an error)
    requires_preemption: bool = False
    permit: Status | None = None


class PodGroupCycle:
    """One scheduleOnePodGroup: schedule_one calls ``place`` and ``place_nominated`` instead of
    binding, so a member only assumes its node (in the snapshot) and runs Reserve and Permit."""

    def __init__(self, sched: Host, key: str, group: PodGroup | None) -> None:
        self.sched = sched
        self.key = key
        self.group = group
        self.members: list[_Member] = []
        self.fit: list[str] = []  # members scheduled in the snapshot, before the group's verdict
        self._current: _Member | None = None

    # --- hooks of schedule_one ------------------------------------------------------------------

    def place(
        self, fw: Framework, state: CycleState, pod: Pod, host: str
    ) -> tuple[PodOutcome, str, Binding | None, list[str]]:
        """assumeAndReserve and Permit in the snapshot; the binding waits for the group."""
        m = self._current
        assert m is not None
        ok, msg = self._assume_and_permit(m, fw, state, pod, host)
        if ok:
            return PodOutcome.SCHEDULED, "", None, []
        return (PodOutcome.UNSCHEDULABLE if m.rejected else PodOutcome.ERROR), msg, None, []

    def place_nominated(self, fw: Framework, state: CycleState, pod: Pod, node: str) -> None:
        """A member that needs preemption is assumed at its nominated node."""
        m = self._current
        assert m is not None
        m.requires_preemption = True
        self._assume_and_permit(m, fw, state, pod, node)
        if not m.ok:
            m.requires_preemption = False

    def _assume_and_permit(self, m: _Member, fw: Framework, state: CycleState, pod: Pod, host: str) -> tuple[bool, str]:
        snap = self.sched.snapshot
        states = self.sched.pod_group_states
        assumed = snap.assume(pod, host)
        states.assume(pod)

        def revert() -> None:
            fw.run_unreserve(state, assumed, host)
            snap.forget(assumed)
            states.forget(pod)

        st = fw.run_reserve(state, assumed, host)
        if st.is_success():
            st = fw.run_permit(state, assumed, host)
            if st.is_success() or st.is_wait():
                m.fw, m.state, m.assumed, m.host, m.ok, m.permit = fw, state, assumed, host, True, st
                m.held = True
                return True, ""
        revert()
        m.rejected = st.is_rejected()
        if st.is_rejected():
            return False, fit_error_message(1, "", {host: st}, "")
        return False, st.message()

    # --- the cycle --------------------------------------------------------------------------------

    def run(
        self,
        pods: Sequence[Pod],
        schedule: Callable[[Pod, PodGroupCycle], Attempt],
        blank: Callable[[Pod], Attempt],
        preemption: Callable[[Sequence[Pod]], Status] | None = None,
    ) -> Status:
        """podGroupCycle over ``pods`` (in the order tried): the group algorithm, workload-aware
        ``preemption`` when it is on and the group is unschedulable, then
        submitPodGroupAlgorithmResult. The group's status."""
        status, waiting = self.algorithm(pods, schedule, blank)
        self.fit = [m.att.pod.key for m in self.members if m.ok]
        if preemption is not None and status.code is Code.UNSCHEDULABLE:
            self.revert_all()  # the algorithm's assumptions are in its snapshot only
            st = preemption(pods)
            if st.is_success():
                waiting = True
            elif st.code is Code.ERROR:
                status = st
            else:
                status = Status(status.code, (*status.reasons, st.message()))
        self._submit(status, waiting)
        return status

    def algorithm(
        self,
        pods: Sequence[Pod],
        schedule: Callable[[Pod, PodGroupCycle], Attempt],
        blank: Callable[[Pod], Attempt],
    ) -> tuple[Status, bool]:
        """podGroupSchedulingDefaultAlgorithm: the group's status, and whether it waits for a
        preemption of its members."""
        status = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
        waiting = False
        requires_preemption = False
        stopped_at = len(pods)
        for i, pod in enumerate(pods):
            self._current = m = _Member(att=None)  # type: ignore[arg-type]
            m.att = schedule(pod, self)
            self.members.append(m)
            if m.att.result is PodOutcome.ERROR and not m.ok:
                m.rejected = False
            if not m.ok:
                if m.rejected:
                    continue
                status = Status(Code.ERROR, (f"failed to schedule other pod from a pod group: {m.att.message}",))
                waiting = False
                stopped_at = i + 1
                break
            requires_preemption = requires_preemption or m.requires_preemption
            if m.permit is not None and m.permit.is_success():
                if requires_preemption:
                    status = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE, MSG_WAITING_FOR_PREEMPTION))
                    waiting = True
                else:
                    status = Status(Code.SUCCESS, ())
        self._current = None
        for pod in pods[stopped_at:]:
            # never tried: they fail with the group's error
            att = blank(pod)
            att.result = PodOutcome.ERROR
            att.message = status.message()
            self.members.append(_Member(att=att, rejected=False))
        return status, waiting

    def revert_all(self) -> None:
        for m in self.members:
            self._revert(m)

    def _submit(self, status: Status, waiting: bool) -> None:
        sched = self.sched
        states = sched.pod_group_states
        # every member assumed in the snapshot is forgotten unless the group goes on to bind
        for m in self.members:
            att = m.att
            if status.code is Code.ERROR:
                if att.result is not PodOutcome.ERROR:
                    att.result, att.message = PodOutcome.ERROR, status.message()
                self._revert(m)
                sched.nominator.delete(att.pod)
                continue
            if m.ok and not m.requires_preemption:
                if status.is_success() and m.held:
                    assert m.fw is not None and m.state is not None and m.assumed is not None
                    result, msg, binding, notes = self._bind(m.fw, m.state, att.pod, m.assumed, m.host)
                    att.result, att.message, att.binding = result, msg, binding
                    att.notes.extend(notes)
                    if result is PodOutcome.SCHEDULED:
                        att.node = m.host
                        states.bind(att.pod)
                    else:
                        states.forget(att.pod)
                    continue
                self._revert(m)
                att.result, att.node = PodOutcome.UNSCHEDULABLE, None
                if waiting:
                    att.message = status.message()
                    att.nominated_node = m.host
                    sched.nominator.add(att.pod, m.host)
                else:
                    att.message = _group_pod_message(m.permit)
                    sched.nominator.delete(att.pod)
                continue
            if m.requires_preemption:
                self._revert(m)
                att.result, att.node = PodOutcome.UNSCHEDULABLE, None
                if not waiting:
                    att.message = _group_pod_message(m.permit)
                    att.nominated_node = ""
                    sched.nominator.delete(att.pod)
                continue
            # a member that did not fit keeps its own answer (and any nomination)

    def _bind(
        self, fw: Framework, state: CycleState, pod: Pod, assumed: Pod, host: str
    ) -> tuple[PodOutcome, str, Binding | None, list[str]]:
        """The binding cycle of a member of a group that succeeded: PreBind, Bind, PostBind."""
        sched = self.sched

        def fail(st: Status) -> tuple[PodOutcome, str]:
            fw.run_unreserve(state, assumed, host)
            sched.snapshot.forget(assumed)
            return (PodOutcome.UNSCHEDULABLE if st.is_rejected() else PodOutcome.ERROR), st.message()

        st = fw.run_pre_bind(state, assumed, host)
        if not st.is_success():
            return (*fail(st), None, [])
        st = fw.run_bind(state, assumed, host)
        if not st.is_success():
            return (*fail(st), sched.binder.binding_for(pod), [])
        fw.run_post_bind(state, assumed, host)
        binding = sched.binder.binding_for(pod) or Binding(pod.namespace, pod.name, pod.uid, host)
        sched.nominator.delete(pod)
        return PodOutcome.SCHEDULED, "", binding, []

    def _revert(self, m: _Member) -> None:
        if m.held and m.fw is not None and m.state is not None and m.assumed is not None:
            m.fw.run_unreserve(m.state, m.assumed, m.host)
            self.sched.snapshot.forget(m.assumed)
            self.sched.pod_group_states.forget(m.att.pod)
            m.held = False

    def condition(self, status: Status) -> Condition | None:
        """The PodGroupScheduled condition the scheduler writes on the PodGroup."""
        if status.is_success():
            return Condition(COND_POD_GROUP_SCHEDULED, "True", "Scheduled", "")
        if status.is_rejected():
            return Condition(COND_POD_GROUP_SCHEDULED, "False", "Unschedulable", status.message())
        return Condition(COND_POD_GROUP_SCHEDULED, "False", "SchedulerError", status.message())


def _group_pod_message(permit: Status | None) -> str:
    """A member that fit, in a group that did not: the group's error with its Permit message."""
    if permit is not None and permit.is_wait():
        return f"{ERR_POD_GROUP_UNSCHEDULABLE}, {MSG_WAITING_FOR_MIN_COUNT_SCHEDULED}, {MSG_PERMIT_WAIT}"
    return ERR_POD_GROUP_UNSCHEDULABLE


def member_order(pods: Sequence[Pod], first: Pod) -> list[Pod]:
    """The members of one cycle in the order tried: by priority, highest first, then the order
    they left the queue (the popped pod first among equals; upstream's order among members of
    equal priority and equal first-attempt time is arbitrary)."""
    rest = [p for p in pods if p.key != first.key]
    ordered = [first, *rest]
    index = {p.key: i for i, p in enumerate(ordered)}
    return sorted(ordered, key=lambda p: (-p.priority, index[p.key]))


def in_group(pod: Pod) -> str:
    return group_key(pod)
