"""VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions): disks that cannot be
mounted by two pods on one node (GCE PD, AWS EBS, iSCSI, Ceph RBD) and ReadWriteOncePod claims
already in use anywhere in the cluster."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api.core import Pod, Volume
from kwhatif.cache.node_info import NodeInfo, PodInfo
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.info import Hints, PluginInfo

if TYPE_CHECKING:
    from kwhatif.api.core import Node
    from kwhatif.framework.handle import Handle
    from kwhatif.framework.runtime import Framework

NAME = "VolumeRestrictions"
PRE_FILTER_STATE_KEY: StateKey[_PreFilterState] = StateKey("PreFilter" + NAME)
# volume_restrictions.go
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
# The ReadWriteOncePod reason of 1.30 … 1.33; the release's own is versions.Behaviour.volume_restrictions_rwop_reason.
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)
READ_WRITE_ONCE_POD = "ReadWriteOncePod"

# Volume sources whose disks two pods on one node may conflict over.
_CONFLICT_KINDS = frozenset({"gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi"})


def needs_restrictions_check(vol: Volume) -> bool:
    return vol.kind in _CONFLICT_KINDS


def is_volume_conflict(vol: Volume, existing_pod: Pod) -> bool:
    """Whether vol cannot be mounted next to existing_pod's volumes."""
    for ev in existing_pod.volumes:
        if ev.kind != vol.kind:
            continue
        if vol.kind == "gcePersistentDisk":
            # Shared only when every mount is read-only.
            if vol.disk_id == ev.disk_id and not (vol.read_only and ev.read_only):
                return True
        elif vol.kind == "awsElasticBlockStore":
            # An EBS volume attaches to one instance, read-only or not.
            if vol.disk_id == ev.disk_id:
                return True
        elif vol.kind == "iscsi":
            assert vol.iscsi is not None and ev.iscsi is not None
            # The same IQN is the same volume; only read-only mounts may share it.
            if vol.iscsi[1] == ev.iscsi[1] and not (vol.read_only and ev.read_only):
                return True
        elif vol.kind == "rbd":
            assert vol.rbd is not None and ev.rbd is not None
            monitors, pool, image = vol.rbd
            e_monitors, e_pool, e_image = ev.rbd
            if (
                set(monitors) & set(e_monitors)
                and pool == e_pool
                and image == e_image
                and not (vol.read_only and ev.read_only)
            ):
                return True
    return False


@dataclass(slots=True)
class _PreFilterState:
    # names of the pod's claims with the ReadWriteOncePod access mode
    rwop_claims: frozenset[str]
    # how many scheduled pods reference one of them
    conflicting_ref_count: int

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.rwop_claims, self.conflicting_ref_count)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        conflicts = sum(
            1 for v in pod.volumes if v.kind == "persistentVolumeClaim" and v.claim_name in self.rwop_claims
        )
        self.conflicting_ref_count += multiplier * conflicts


def _claim_not_found(name: str) -> str:
    return f'persistentvolumeclaim "{name}" not found'


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, PreFilterExtensions):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.rwop_reason: str = handle.version.behaviour.volume_restrictions_rwop_reason

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        needs_check = any(needs_restrictions_check(v) for v in pod.volumes)
        rwop: set[str] = set()
        pvcs = self.handle.cluster.pvcs
        for v in pod.volumes:
            if v.kind != "persistentVolumeClaim":
                continue
            pvc = pvcs.get(f"{pod.namespace}/{v.claim_name}")
            if pvc is None:
                return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, _claim_not_found(v.claim_name))
            if READ_WRITE_ONCE_POD in pvc.access_modes:
                rwop.add(pvc.name)
        snapshot = self.handle.snapshot
        # At most one pod may use a ReadWriteOncePod claim, wherever it runs.
        count = sum(1 for name in rwop if snapshot.is_pvc_used_by_pods(f"{pod.namespace}/{name}"))
        if not needs_check and count == 0:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(frozenset(rwop), count))
        return None, SUCCESS

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def _state(self, state: CycleState) -> _PreFilterState | None:
        try:
            return state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError:
            return None

    def add_pod(self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo) -> Status:
        s = self._state(state)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY.name}" from cycleState')
        s.update_with_pod(to_add.pod, 1)
        return SUCCESS

    def remove_pod(self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        s = self._state(state)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY.name}" from cycleState')
        s.update_with_pod(to_remove.pod, -1)
        return SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        for v in pod.volumes:
            if not needs_restrictions_check(v):
                continue
            for pi in node_info.pods:
                if is_volume_conflict(v, pi.pod):
                    return Status.of(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        s = self._state(state)
        if s is None:
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY.name}" from cycleState')
        if s.conflicting_ref_count > 0:
            return Status.of(Code.UNSCHEDULABLE, self.rwop_reason)
        return SUCCESS


def new(args: None, handle: Handle) -> VolumeRestrictions:
    return VolumeRestrictions(handle)


def _node_hint(reasons: tuple[str, ...], pod: Pod, node: Node, fw: Framework | None) -> str | None:
    if reasons and "ReadWriteOncePod" in reasons[0]:
        return "fail only because a pod there already uses the pod's ReadWriteOncePod claim"
    return None


INFO = PluginInfo(
    NAME,
    sarif_help="A volume of the pods is already in use in a way that excludes them (ReadWriteOncePod, a disk attached elsewhere).",
    hints=Hints(
        7,
        fixed={ERR_REASON_DISK_CONFLICT: "fail only because a pod there already mounts the same disk"},
        node=_node_hint,
    ),
)
