"""NodeName (pkg/scheduler/framework/plugins/nodename)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import SUCCESS, Code, CycleState, FilterPlugin, Status

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(FilterPlugin):
    NAME = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.node_name or pod.node_name == node_info.name:
            return SUCCESS
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)


def new(args: None, handle: Handle) -> NodeName:
    return NodeName()
