"""TaintToleration (pkg/scheduler/framework/plugins/tainttoleration)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kwhatif.api.core import Pod, Toleration
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import (
    MAX_NODE_SCORE,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.helper import (
    DO_NOT_SCHEDULE_EFFECTS,
    default_normalize_score,
    find_matching_untolerated_taint,
    tolerations_tolerate_taint,
)
from kwhatif.plugins.info import Hints, Incremental, Normalize, PluginInfo, and_list

if TYPE_CHECKING:
    from kwhatif.api.core import Node
    from kwhatif.framework.handle import Handle
    from kwhatif.framework.runtime import Framework

NAME = "TaintToleration"
PRE_SCORE_STATE_KEY: StateKey[tuple[Toleration, ...]] = StateKey("PreScore" + NAME)


# The Filter reason, per release (versions.Behaviour.taint_reason): up to 1.34.1 it names the
# first untolerated taint, "node(s) had untolerated taint {key: value}"; from 1.34.2 and 1.35.0,
# "node(s) had untolerated taint(s)".
ERR_REASON_UNTOLERATED_V1_30 = "node(s) had untolerated taint {{{key}: {value}}}"


def err_reason_untolerated(key: str, value: str, template: str = ERR_REASON_UNTOLERATED_V1_30) -> str:
    return template.format(key=key, value=value)


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin):
    NAME = NAME

    def __init__(self, reason_template: str = ERR_REASON_UNTOLERATED_V1_30, comparison_operators: bool = False) -> None:
        self.reason_template = reason_template
        # TaintTolerationComparisonOperators: Gt/Lt tolerations compare integers (else match nothing)
        self.comparison_operators = comparison_operators

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        taint = find_matching_untolerated_taint(
            node_info.node.taints, pod.tolerations, DO_NOT_SCHEDULE_EFFECTS, self.comparison_operators
        )
        if taint is None:
            return SUCCESS
        return Status.of(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err_reason_untolerated(taint.key, taint.value, self.reason_template)
        )

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        if not nodes:
            return SUCCESS
        prefer = tuple(t for t in pod.tolerations if not t.effect or t.effect == "PreferNoSchedule")
        state.write(PRE_SCORE_STATE_KEY, prefer)
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        try:
            tolerations = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as e:
            # getPreScoreState (taint_toleration.go)
            return 0, Status.error(f'failed to read "{PRE_SCORE_STATE_KEY.name}" from cycleState: {e}')
        count = 0
        for taint in node_info.node.taints:
            if taint.effect != "PreferNoSchedule":
                continue
            if not tolerations_tolerate_taint(tolerations, taint, self.comparison_operators):
                count += 1
        return count, SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return SUCCESS


def new(args: None, handle: Handle) -> TaintToleration:
    version = handle.version
    return TaintToleration(version.behaviour.taint_reason, version.gate("TaintTolerationComparisonOperators"))


# The taints the node lifecycle controller, the kubelet, the cloud node controller and drain set
# for a node's condition (k8s.io/api/core/v1 well_known_taints.go, and the cloud provider's
# in k8s.io/cloud-provider api/well_known_taints.go), with the state each says. Advising a pod to
# tolerate one would send it to a node that cannot run it.
NODE_CONDITION_TAINTS = {
    "node.kubernetes.io/not-ready": "not ready",
    "node.kubernetes.io/unreachable": "unreachable",
    "node.kubernetes.io/unschedulable": "cordoned",
    "node.kubernetes.io/memory-pressure": "under memory pressure",
    "node.kubernetes.io/disk-pressure": "under disk pressure",
    "node.kubernetes.io/pid-pressure": "under PID pressure",
    "node.kubernetes.io/network-unavailable": "without a configured network",
    "node.kubernetes.io/out-of-service": "out of service",
    "node.cloudprovider.kubernetes.io/uninitialized": "not yet initialized by the cloud provider",
    "node.cloudprovider.kubernetes.io/shutdown": "shut down",
}
OS_LABEL = "kubernetes.io/os"


def _node_hint(reasons: tuple[str, ...], pod: Pod, node: Node, fw: Framework | None) -> str | None:
    """The taints of the node the pod does not tolerate; none to tolerate when they say the node's
    condition, or when the node runs another OS than the pod's."""
    comparison_operators = bool(getattr(fw.plugins.get(NAME), "comparison_operators", False)) if fw else False
    taints = [
        t
        for t in node.taints
        if t.effect in ("NoSchedule", "NoExecute")
        and not any(tol.tolerates(t, comparison_operators) for tol in pod.tolerations)
    ]
    lifecycle = [t for t in taints if t.key in NODE_CONDITION_TAINTS]
    if lifecycle:
        # a taint the control plane sets for a node's condition: the node cannot run the pod
        # now, and a toleration would only place it there (DaemonSets tolerate them because
        # their pods must run on every node, whatever its state)
        states = and_list(sorted({NODE_CONDITION_TAINTS[t.key] for t in lifecycle}))
        shown = and_list([t.render() for t in lifecycle])
        return f"are {states} ({shown}, set by the control plane): they take pods again once that clears"
    node_os = node.labels.get(OS_LABEL, "")
    if pod.os_name and node_os and node_os != pod.os_name:
        # the kubelet admits only pods of its own OS (spec.os.name must match the node's
        # kubernetes.io/os label): tolerating the taint that keeps them apart would not help
        return (
            f"run {node_os} ({OS_LABEL}={node_os}) and the pod is a {pod.os_name} pod (spec.os.name): "
            "their taints keep it off nodes whose kubelet would refuse it"
        )
    untolerated = [t.render() for t in taints]
    if len(untolerated) == 1:
        return f"would take the pod if it tolerated taint {untolerated[0]}"
    if untolerated:
        return f"would take the pod if it tolerated taints {and_list(untolerated)}"
    return None


INFO = PluginInfo(
    NAME,
    column="Taint",
    sarif_help="Tolerate the taints the message names, or let the pods run on untainted nodes.",
    # at most two hints (the groups of most nodes)
    hints=Hints(1, node=_node_hint, max_groups=2),
    incremental=Incremental(node_filter=True, node_score=Normalize.DEFAULT_REVERSED),
)
