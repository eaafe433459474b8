"""What plugins may reach besides the pod and the node: upstream's framework.Handle.

The snapshot (SnapshotSharedLister), the cluster's other objects (informer listers), the pod
nominator, the binder DefaultBinder hands bindings to, the framework operations preemption
re-runs (filters with nominated pods, the PreFilter extensions), and the release being
reproduced (upstream hands plugins its feature gates as plugins/feature.Features). The
Framework (kwhatif.framework.runtime) implements it, as upstream's frameworkImpl does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from kwhatif.cache.node_info import PodInfo, pod_id

if TYPE_CHECKING:
    from kwhatif.api.core import Pod
    from kwhatif.binder import Binder
    from kwhatif.cache.node_info import NodeInfo
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.framework.interface import CycleState, Status
    from kwhatif.framework.types import FilterResult
    from kwhatif.load.cluster import ClusterState
    from kwhatif.versions import SchedulerVersion


@dataclass(slots=True)
class Nominator:
    """Pods nominated to a node by preemption, waiting for their next attempt."""

    by_node: dict[str, list[PodInfo]] = field(default_factory=dict)
    node_of: dict[str, str] = field(default_factory=dict)
    version: int = 0  # bumped on every change, so callers can tell nothing changed

    def add(self, pod: Pod, node_name: str) -> None:
        self.delete(pod)
        self.version += 1
        self.by_node.setdefault(node_name, []).append(PodInfo.of(pod))
        self.node_of[pod_id(pod)] = node_name

    def delete(self, pod: Pod) -> None:
        key = pod_id(pod)
        node = self.node_of.pop(key, None)
        if node is None:
            return
        self.version += 1
        rest = [pi for pi in self.by_node.get(node, []) if pod_id(pi.pod) != key]
        if rest:
            self.by_node[node] = rest
        else:
            self.by_node.pop(node, None)

    def pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self.by_node.get(node_name, [])

    def clear(self) -> None:
        """Forget every nomination (in place: every profile's handle shares this nominator)."""
        if self.node_of:
            self.version += 1
        self.by_node.clear()
        self.node_of.clear()


class Handle(Protocol):
    """framework.Handle: what a plugin may use besides the pod and the node."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def cluster(self) -> ClusterState: ...

    @property
    def nominator(self) -> Nominator: ...

    @property
    def binder(self) -> Binder | None:
        """The run's Binder, used by DefaultBinder (None: bindings are not recorded)."""
        ...

    @property
    def version(self) -> SchedulerVersion:
        """The kube-scheduler release being reproduced: plugins read its gates and behaviour switches."""
        ...

    def namespace_labels(self, name: str) -> dict[str, str]:
        """A namespace missing from the dump still exists where its pods run: it gets the label
        the API server puts on every namespace."""
        ...

    def run_filter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, *, all_plugins: bool = True
    ) -> FilterResult: ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status: ...
