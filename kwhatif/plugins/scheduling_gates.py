"""SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates): PreEnqueue keeps gated pods
out of the active queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.framework.interface import SUCCESS, Code, PreEnqueuePlugin, Status
from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "SchedulingGates"


class SchedulingGates(PreEnqueuePlugin):
    NAME = NAME

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return SUCCESS
        gates = " ".join(pod.scheduling_gates)
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"waiting for scheduling gates: [{gates}]")


def new(args: None, handle: Handle) -> SchedulingGates:
    return SchedulingGates()


INFO = PluginInfo(NAME)
