"""GangScheduling (pkg/scheduler/framework/plugins/gangscheduling, v1.36.2): PreEnqueue keeps a
gang's pods out of the active queue until its PodGroup exists and the scheduler knows at least
minCount of its pods; Permit makes a member wait until minCount members are scheduled (bound, or
assumed in the pod-group cycle). A group with the basic policy passes both.

1.37's plugin (gangscheduling.go at kubernetes/kubernetes 037891575693) has PreEnqueue and
PlacementFeasible and no Permit: the pod-group cycle asks PlacementFeasible after each member
whether minCount can still be met. kwhatif answers 1.37 with the Permit above (the cycle notes it),
with 1.37's PreEnqueue message for a missing PodGroup."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.cache.pod_groups import PodGroupState, PodGroupStates
from kwhatif.framework.interface import SUCCESS, Code, CycleState, PermitPlugin, PreEnqueuePlugin, Status

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "GangScheduling"
PERMIT_TIMEOUT_SECONDS = 5 * 60.0  # permitTimeoutDuration
# gangscheduling.go, verbatim
MSG_WAITING_FOR_POD_GROUP = 'waiting for pods\'s pod group "{}" to appear in scheduling queue'
# (1.37 says "pod's": the release's Behaviour.gang_missing_pod_group_reason)
MSG_WAITING_FOR_MIN_COUNT_IN_QUEUE = "waiting for minCount pods from a gang to appear in scheduling queue"
MSG_WAITING_FOR_MIN_COUNT_SCHEDULED = "waiting for minCount pods from a gang to be scheduled"


def pre_enqueue_status(
    pod: Pod, group: PodGroup | None, state: PodGroupState | None, missing: str = MSG_WAITING_FOR_POD_GROUP
) -> Status:
    """PreEnqueue, given the pod's PodGroup (None: not found) and its group state; ``missing``
    is the release's message for a PodGroup that does not exist."""
    if not pod.pod_group:
        return SUCCESS
    if group is None:
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, missing.format(pod.pod_group))
    if not group.policy.gang:
        return SUCCESS
    count = state.all_pods_count() if state is not None else 0
    if count < group.policy.min_count:
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_WAITING_FOR_MIN_COUNT_IN_QUEUE)
    return SUCCESS


def permit_status(pod: Pod, group: PodGroup | None, state: PodGroupState | None) -> tuple[Status, float]:
    """Permit, given the pod's PodGroup and its group state (this pod already assumed)."""
    if not pod.pod_group:
        return SUCCESS, 0.0
    if group is None:
        return Status(Code.ERROR, (f"failed to get podGroup {pod.namespace}/{pod.pod_group}: not found",)), 0.0
    if not group.policy.gang:
        return SUCCESS, 0.0
    scheduled = state.scheduled_pods_count() if state is not None else 0
    if scheduled < group.policy.min_count:
        return Status.of(Code.WAIT, MSG_WAITING_FOR_MIN_COUNT_SCHEDULED), PERMIT_TIMEOUT_SECONDS
    return SUCCESS, 0.0


class GangScheduling(PreEnqueuePlugin, PermitPlugin):
    NAME = NAME

    def __init__(
        self, groups: Mapping[str, PodGroup], states: PodGroupStates, missing: str = MSG_WAITING_FOR_POD_GROUP
    ) -> None:
        self.groups = groups
        self.states = states
        self.missing = missing  # the release's PreEnqueue reason for a PodGroup not there

    def _group(self, pod: Pod) -> tuple[PodGroup | None, PodGroupState | None]:
        return self.groups.get(f"{pod.namespace}/{pod.pod_group}"), self.states.get(pod.namespace, pod.pod_group)

    def pre_enqueue(self, pod: Pod) -> Status:
        return pre_enqueue_status(pod, *self._group(pod), self.missing)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        return permit_status(pod, *self._group(pod))


def new(args: None, handle: Handle) -> GangScheduling:
    cluster = handle.cluster
    return GangScheduling(
        cluster.pod_groups, cluster.pod_group_states, handle.version.behaviour.gang_missing_pod_group_reason
    )
