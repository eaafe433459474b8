"""NodeName (pkg/scheduler/framework/plugins/nodename)."""

from __future__ import annotations

from typing import Any

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import SUCCESS, Code, CycleState, FilterPlugin, Status

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(FilterPlugin):
    NAME = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.node_name or pod.node_name == node_info.name:
            return SUCCESS
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)


def new(args: Any, handle: Any) -> NodeName:
    return NodeName()
