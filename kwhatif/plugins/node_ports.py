"""NodePorts (pkg/scheduler/framework/plugins/nodeports): host port conflicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import ContainerPort, Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.info import Hints, Incremental, PluginInfo

if TYPE_CHECKING:
    from kwhatif.api.core import Node
    from kwhatif.framework.handle import Handle
    from kwhatif.framework.runtime import Framework

NAME = "NodePorts"
PRE_FILTER_STATE_KEY: StateKey[list[ContainerPort]] = StateKey("PreFilter" + NAME)
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def container_ports(pod: Pod) -> list[ContainerPort]:
    """GetHostPorts: host ports of app containers, and from 1.34 (1.33.6) of restartable init
    containers too (derived with the pod under the release's rules)."""
    return pod.host_ports()


def fits_ports(want: list[ContainerPort], node_info: NodeInfo) -> bool:
    used = node_info.used_ports
    for p in want:
        if used.check_conflict(p.host_ip, p.protocol, p.host_port):
            return False
    return True


class NodePorts(PreFilterPlugin, FilterPlugin):
    NAME = NAME

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        ports = container_ports(pod)
        if not ports:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            want = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as e:
            # getPreFilterState (node_ports.go)
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {e}')
        if not fits_ports(want, node_info):
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON)
        return SUCCESS


def new(args: None, handle: Handle) -> NodePorts:
    return NodePorts()


def _node_hint(reasons: tuple[str, ...], pod: Pod, node: Node, fw: Framework | None) -> str | None:
    if not reasons or reasons[0] != ERR_REASON:
        return None
    ports = ", ".join(f"{p.host_port}/{p.protocol}" for p in pod.host_ports())
    return f"fail only because host port {ports} is taken there"


INFO = PluginInfo(
    NAME,
    sarif_help="The host ports the pods ask for are taken on the nodes: choose other ports or drop hostPort.",
    hints=Hints(4, node=_node_hint),
    incremental=Incremental(node_filter=True),
)
