"""What plugins may reach besides the pod and the node: upstream's framework.Handle.

The snapshot (SnapshotSharedLister), the listers of the cluster's other objects that plugins
read (upstream's informer listers: ClusterListers, read-only, never all of ClusterState), the pod
nominator, the binder DefaultBinder hands bindings to, the framework operations preemption
re-runs (filters with nominated pods, the PreFilter extensions), and the release being
reproduced (upstream hands plugins its feature gates as plugins/feature.Features). The
Framework (kwhatif.framework.runtime) implements it, as upstream's frameworkImpl does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from kwhatif.cache.node_info import PodInfo, pod_id

if TYPE_CHECKING:
    from kwhatif.api.core import Namespace, Pod, PodDisruptionBudget, Service
    from kwhatif.api.storage import (
        CSIDriver,
        CSINode,
        CSIStorageCapacity,
        PersistentVolume,
        PersistentVolumeClaim,
        StorageClass,
        VolumeAttachment,
    )
    from kwhatif.api.workload import PodGroup
    from kwhatif.cache.cluster import Workload
    from kwhatif.cache.node_info import NodeInfo
    from kwhatif.cache.pod_groups import PodGroupStates
    from kwhatif.cache.snapshot import Snapshot
    from kwhatif.dra.types import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
    from kwhatif.framework.interface import Binder, CycleState, Status
    from kwhatif.framework.types import FilterResult
    from kwhatif.release.versions import SchedulerVersion


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


class ClusterListers(Protocol):
    """The cluster objects plugins read besides nodes and pods (those come from the snapshot),
    as upstream's plugins read them through informer listers; kwhatif.cache.cluster.ClusterState
    provides them. Read-only: a plugin that keeps its own view (DynamicResources' assumed
    claims) copies."""

    # VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits
    @property
    def pvcs(self) -> Mapping[str, PersistentVolumeClaim]:
        """By "namespace/name"."""
        ...

    @property
    def pvs(self) -> Mapping[str, PersistentVolume]: ...

    @property
    def storage_classes(self) -> Mapping[str, StorageClass]: ...

    @property
    def csi_nodes(self) -> Mapping[str, CSINode]: ...

    @property
    def csi_drivers(self) -> Mapping[str, CSIDriver]: ...

    @property
    def csi_capacities(self) -> Sequence[CSIStorageCapacity]: ...

    @property
    def volume_attachments(self) -> Sequence[VolumeAttachment]: ...

    # DynamicResources
    @property
    def device_classes(self) -> Mapping[str, DeviceClass]: ...

    @property
    def resource_slices(self) -> Sequence[ResourceSlice]: ...

    @property
    def resource_claims(self) -> Mapping[str, ResourceClaim]:
        """By "namespace/name"."""
        ...

    @property
    def resource_claim_templates(self) -> Mapping[str, ResourceClaimTemplate]:
        """By "namespace/name"."""
        ...

    @property
    def pending_pods(self) -> Sequence[Pod]:
        """The cluster's unbound pods (whose claims are reserved for them)."""
        ...

    @property
    def orphaned_pod_uids(self) -> AbstractSet[str]:
        """The uids of pods bound to a node the cluster no longer has: left off every node, but
        they exist, and the claims reserved for them stay allocated."""
        ...

    # PodTopologySpread's default constraints (helper.DefaultSelector)
    @property
    def services(self) -> Sequence[Service]: ...

    @property
    def workloads(self) -> Mapping[tuple[str, str, str], Workload]:
        """The controllers (ReplicationControllers, ReplicaSets, StatefulSets ...) by
        (kind, namespace, name)."""
        ...

    # DefaultPreemption
    @property
    def pdbs(self) -> Sequence[PodDisruptionBudget]: ...

    # InterPodAffinity's namespace selectors
    @property
    def namespaces(self) -> Mapping[str, Namespace]: ...

    def namespace_labels(self, name: str) -> dict[str, str]: ...

    # GangScheduling
    @property
    def pod_groups(self) -> Mapping[str, PodGroup]:
        """scheduling.k8s.io PodGroups by "namespace/name"."""
        ...

    @property
    def pod_group_states(self) -> PodGroupStates:
        """The pods of each group the scheduler knows."""
        ...


class Handle(Protocol):
    """framework.Handle: what a plugin may use besides the pod and the node."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def cluster(self) -> ClusterListers:
        """The listers of the cluster's other objects."""
        ...

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
