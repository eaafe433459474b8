"""Nodes whose Ready condition says they cannot run pods, but that carry no taint saying so.

The node lifecycle controller taints such a node within a few seconds (TaintNodesByCondition:
Ready=False gives node.kubernetes.io/not-ready:NoSchedule, Ready=Unknown gives
node.kubernetes.io/unreachable:NoSchedule; nodeConditionToTaintKeyStatusMap and
doNoScheduleTaintingPass in pkg/controller/nodelifecycle/node_lifecycle_controller.go), and from
then on the scheduler places nothing there. A state caught before that (a dump taken at the wrong
moment, a node written by hand) lets pods land on a node that cannot run them: kwhatif places
them as the scheduler would now, and says so.
"""

from __future__ import annotations

from kwhatif.cache.cluster import ClusterState

# the Ready condition's status -> the taint the node lifecycle controller sets for it
CONDITION_TAINTS = {"False": "node.kubernetes.io/not-ready", "Unknown": "node.kubernetes.io/unreachable"}


def untainted_not_ready_notes(state: ClusterState) -> list[str]:
    """One note naming the nodes whose Ready condition is False or Unknown and that lack the taint
    the node lifecycle controller would give them (none when there is no such node)."""
    found: list[str] = []
    for node in state.nodes.values():
        key = CONDITION_TAINTS.get(node.ready)
        if key is None or any(t.key == key for t in node.taints):
            continue
        found.append(f"{node.name} (Ready={node.ready}, no {key} taint)")
    if not found:
        return []
    shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
    return [
        f"{len(found)} node(s) report they are not ready but carry no taint saying so: {shown}; pods are "
        "placed there as the scheduler would place them now, but the node lifecycle controller taints such "
        "a node within seconds (NoSchedule), and from then on it takes no pod"
    ]
