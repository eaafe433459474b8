"""Cluster-wide resource limits (resourcequotas/tracker.go and the cloud provider's
ResourceLimiter, quota "cluster-wide"; cluster-autoscaler-release-1.36): --cores-total and
--memory-total bound the sum of the nodes' capacity; --max-nodes-total bounds their number
(orchestrator.go GetCappedNewNodeCount).

A node counts its status.capacity: cpu in whole cores (Quantity.Value rounds up), memory in bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.core import Node

CLUSTER_WIDE = "cluster-wide"
# config/const.go: DefaultMaxClusterCores = 5000 * 64, DefaultMaxClusterMemory = 5000 * 64 * 20 (GiB)
DEFAULT_MAX_CORES = 5000 * 64
DEFAULT_MAX_MEMORY = 5000 * 64 * 20 * 2**30


def node_resources(node: Node) -> dict[str, int]:
    """totalNodeResources: cpu cores and memory bytes of the node's capacity, and one node."""
    cap = node.capacity_list or node.allocatable_list
    return {
        "cpu": max(0, math.ceil(cap.get("cpu", Fraction(0)))),
        "memory": max(0, math.ceil(cap.get("memory", Fraction(0)))),
        "nodes": 1,
    }


@dataclass(frozen=True, slots=True)
class CheckResult:
    allowed: int
    exceeded: tuple[str, ...] = ()  # the resources a full delta would exceed

    @property
    def message(self) -> str:
        """NewMaxResourceLimitReached's reason."""
        return f'exceeded quota: "{CLUSTER_WIDE}", resources: {", ".join(self.exceeded)}'


@dataclass(slots=True)
class Tracker:
    """The cluster-wide quota: what the limits leave once the existing nodes are counted."""

    left: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, nodes: Iterable[Node], cores: tuple[int, int], memory: tuple[int, int]) -> Tracker:
        used = {"cpu": 0, "memory": 0}
        for n in nodes:
            r = node_resources(n)
            used["cpu"] += r["cpu"]
            used["memory"] += r["memory"]
        return cls({"cpu": max(cores[1] - used["cpu"], 0), "memory": max(memory[1] - used["memory"], 0)})

    def check(self, node: Node, delta: int) -> CheckResult:
        """CheckDelta: how many of ``delta`` nodes like ``node`` the limits allow."""
        res = node_resources(node)
        allowed = delta
        exceeded: list[str] = []
        for name in ("cpu", "memory"):
            per = res[name]
            left = self.left.get(name)
            if per <= 0 or left is None:
                continue
            if left < per * delta:
                allowed = min(allowed, left // per)
                exceeded.append(name)
        return CheckResult(allowed, tuple(exceeded))

    def consume(self, node: Node, delta: int) -> CheckResult:
        """ConsumeQuota: the check, and when all of ``delta`` is allowed, the limits it uses."""
        result = self.check(node, delta)
        if result.allowed != delta:
            return result
        res = node_resources(node)
        for name in ("cpu", "memory"):
            if name in self.left:
                self.left[name] = max(self.left[name] - delta * res[name], 0)
        return result


def capped_new_node_count(new_nodes: int, current: int, max_nodes_total: int) -> int:
    """GetCappedNewNodeCount: what --max-nodes-total leaves (below 1: none)."""
    if max_nodes_total > 0 and new_nodes + current > max_nodes_total:
        return max_nodes_total - current
    return new_nodes
