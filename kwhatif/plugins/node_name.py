"""NodeName (pkg/scheduler/framework/plugins/nodename)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import SUCCESS, Code, CycleState, FilterPlugin, Status
from kwhatif.plugins.info import Hints, Incremental, PluginInfo, no_hints

if TYPE_CHECKING:
    from kwhatif.cache.snapshot import Snapshot
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


def _pinned_hint(pod: Pod, snapshot: Snapshot) -> list[str]:
    """A pod that names a node NodeName turns away: drop the name, or ignore it."""
    if not pod.node_name:
        return []
    pinned = (
        f"pins the pod to node {pod.node_name}"
        if snapshot.get(pod.node_name) is not None
        else f"names node {pod.node_name}, which is not in the cluster"
    )
    return [
        f"spec.nodeName {pinned} (a pod exported from a cluster keeps the node it ran on): drop spec.nodeName, "
        "or run with --ignore-node-name, to schedule it anew"
    ]


INFO = PluginInfo(
    NAME,
    sarif_help="The pods name a node (spec.nodeName) that does not take them: remove it or name another node.",
    # the spec.nodeName hint says it, once
    hints=Hints(11, nodes=no_hints, rejected=_pinned_hint),
    incremental=Incremental(node_filter=True),
)
