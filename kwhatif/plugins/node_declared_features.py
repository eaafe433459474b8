"""NodeDeclaredFeatures (pkg/scheduler/framework/plugins/nodedeclaredfeatures, 1.35+): a pod that
needs a node feature (inferred from its spec) fits only nodes that declare it in
status.declaredFeatures. The plugin joins the default profile when its gate is on (1.36+); with the
gate off it skips every pod."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod
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
from kwhatif.plugins.info import Incremental, PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeDeclaredFeatures"
PRE_FILTER_STATE_KEY: StateKey[tuple[str, ...]] = StateKey("PreFilter" + NAME)
# The reason is the release's (versions.Behaviour.node_declared_features_reason): 1.35's alpha
# plugin lists the missing features, from 1.36 "node(s) didn't match Pod's required features".


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin):
    NAME = NAME

    def __init__(self, enabled: bool, reason_template: str) -> None:
        self.enabled = enabled
        self.reason_template = reason_template

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled or not pod.required_node_features:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, pod.required_node_features)
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not self.enabled:
            return SUCCESS
        try:
            required = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as e:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY.name}" from cycleState: {e}')
        missing = [f for f in required if f not in node_info.node.declared_features]
        if not missing:
            return SUCCESS
        return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.reason_template.format(features=", ".join(missing)))


def new(args: None, handle: Handle) -> NodeDeclaredFeatures:
    version = handle.version
    return NodeDeclaredFeatures(version.gate("NodeDeclaredFeatures"), version.behaviour.node_declared_features_reason)


INFO = PluginInfo(NAME, incremental=Incremental(node_filter=True))
