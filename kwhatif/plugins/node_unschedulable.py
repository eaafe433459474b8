"""NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod, Taint
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import SUCCESS, Code, CycleState, FilterPlugin, Status
from kwhatif.plugins.helper import tolerations_tolerate_taint
from kwhatif.plugins.info import Hints, Incremental, PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeUnschedulable"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule")


class NodeUnschedulable(FilterPlugin):
    NAME = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not node_info.node.unschedulable:
            return SUCCESS
        if tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return SUCCESS
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)


def new(args: None, handle: Handle) -> NodeUnschedulable:
    return NodeUnschedulable()


INFO = PluginInfo(
    NAME,
    sarif_help="The nodes are cordoned: uncordon them or tolerate node.kubernetes.io/unschedulable.",
    hints=Hints(3, fixed={ERR_REASON_UNSCHEDULABLE: "fail only because they are cordoned (spec.unschedulable)"}),
    incremental=Incremental(node_filter=True),
)
