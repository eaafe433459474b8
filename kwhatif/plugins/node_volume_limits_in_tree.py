"""EBSLimits, GCEPDLimits, AzureDiskLimits and CinderLimits
(pkg/scheduler/framework/plugins/nodevolumelimits/non_csi.go): the deprecated per-cloud attach
limits. Each counts the distinct in-tree disks of its kind on a node, inline or through claims,
against the node's ``attachable-volumes-<kind>`` allocatable or the cloud's default, and defers
to NodeVolumeLimits once its plugin is migrated to CSI on the node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kwhatif.api import storage
from kwhatif.api.core import Node, Pod, Volume
from kwhatif.api.storage import PersistentVolume, PersistentVolumeClaim
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreFilterResult,
    Status,
)
from kwhatif.plugins.info import PluginInfo
from kwhatif.plugins.node_volume_limits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    UNBOUND_VOLUME_ID_PREFIX,
    ClaimNotFound,
    VolumeError,
    claim_name_of,
    is_csi_migration_on,
    lookup_claim,
    node_volume_limits,
)

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

EBS_NAME = "EBSLimits"
GCE_PD_NAME = "GCEPDLimits"
AZURE_DISK_NAME = "AzureDiskLimits"
CINDER_NAME = "CinderLimits"

# non_csi.go and pkg/volume/util/attach_limit.go
DEFAULT_MAX_GCE_PD_VOLUMES = 16
DEFAULT_MAX_AZURE_DISK_VOLUMES = 16
DEFAULT_MAX_CINDER_VOLUMES = 256
DEFAULT_MAX_EBS_VOLUMES = 39
DEFAULT_MAX_EBS_NITRO_VOLUMES = 25
EBS_NITRO_LIMIT_REGEX = re.compile(r"^[cmr]5.*|t3|z1d")  # searched, as Go's MatchString does

EBS_VOLUME_LIMIT_KEY = "attachable-volumes-aws-ebs"
GCE_VOLUME_LIMIT_KEY = "attachable-volumes-gce-pd"
AZURE_VOLUME_LIMIT_KEY = "attachable-volumes-azure-disk"
CINDER_VOLUME_LIMIT_KEY = "attachable-volumes-cinder"

LABEL_INSTANCE_TYPE_STABLE = "node.kubernetes.io/instance-type"
LABEL_INSTANCE_TYPE = "beta.kubernetes.io/instance-type"


def _instance_type(node: Node) -> str:
    # Upstream takes whichever of the two labels its map iteration meets first; they carry the
    # same value on real nodes. The GA label is preferred here to stay deterministic.
    for key in (LABEL_INSTANCE_TYPE_STABLE, LABEL_INSTANCE_TYPE):
        if key in node.labels:
            return node.labels[key]
    return ""


def _max_ebs_volumes(node: Node) -> int:
    if EBS_NITRO_LIMIT_REGEX.search(_instance_type(node)):
        return DEFAULT_MAX_EBS_NITRO_VOLUMES
    return DEFAULT_MAX_EBS_VOLUMES


@dataclass(frozen=True, slots=True)
class VolumeFilter:
    """Which volumes one in-tree plugin counts (non_csi.go VolumeFilter)."""

    source: str  # the volume source field, the same in a pod volume and a PV spec
    plugin: str  # the in-tree plugin name: the provisioner of its classes, the CSINode migration key
    limit_key: str
    # Upstream lets KUBE_MAX_PD_VOLS in the scheduler's environment override the default; the
    # environment of the real scheduler is not known to a what-if, so the default applies.
    default_max: Callable[[Node], int]

    def filter_volume(self, vol: Volume) -> str | None:
        return vol.disk_id if vol.kind == self.source else None

    def filter_persistent_volume(self, pv: PersistentVolume) -> str | None:
        return pv.disk_id if pv.source_kind == self.source else None


EBS_FILTER = VolumeFilter("awsElasticBlockStore", storage.AWS_EBS_PLUGIN, EBS_VOLUME_LIMIT_KEY, _max_ebs_volumes)
GCE_PD_FILTER = VolumeFilter(
    "gcePersistentDisk", storage.GCE_PD_PLUGIN, GCE_VOLUME_LIMIT_KEY, lambda _: DEFAULT_MAX_GCE_PD_VOLUMES
)
AZURE_DISK_FILTER = VolumeFilter(
    "azureDisk", storage.AZURE_DISK_PLUGIN, AZURE_VOLUME_LIMIT_KEY, lambda _: DEFAULT_MAX_AZURE_DISK_VOLUMES
)
CINDER_FILTER = VolumeFilter(
    "cinder", storage.CINDER_PLUGIN, CINDER_VOLUME_LIMIT_KEY, lambda _: DEFAULT_MAX_CINDER_VOLUMES
)


class NonCSILimits(PreFilterPlugin, FilterPlugin):
    volume_filter: VolumeFilter

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        for v in pod.volumes:
            if self.volume_filter.filter_volume(v) is not None or v.kind in ("persistentVolumeClaim", "ephemeral"):
                return None, SUCCESS
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.volumes:
            return SUCCESS
        new_volumes: set[str] = set()
        try:
            self._filter_volumes(pod, True, new_volumes)
        except ClaimNotFound as e:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(e))
        except VolumeError as e:
            return Status.error(str(e))
        if not new_volumes:
            return SUCCESS
        node = node_info.node
        csi_node = self.handle.cluster.csi_nodes.get(node.name)
        if is_csi_migration_on(csi_node, self.volume_filter.plugin):
            return SUCCESS  # NodeVolumeLimits counts these volumes under the CSI driver
        existing: set[str] = set()
        for pi in node_info.pods:
            try:
                self._filter_volumes(pi.pod, False, existing)
            except (ClaimNotFound, VolumeError) as e:
                return Status.error(str(e))
        new_volumes -= existing
        max_limit = self.volume_filter.default_max(node)
        from_allocatable = node_volume_limits(node_info).get(self.volume_filter.limit_key)
        if from_allocatable is not None:
            max_limit = from_allocatable
        if len(existing) + len(new_volumes) > max_limit:
            return Status.of(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return SUCCESS

    def _filter_volumes(self, pod: Pod, new_pod: bool, out: set[str]) -> None:
        cluster = self.handle.cluster
        for vol in pod.volumes:
            disk = self.volume_filter.filter_volume(vol)
            if disk is not None:
                out.add(disk)
                continue
            claim = claim_name_of(pod, vol)
            if claim is None:
                continue
            name, ephemeral = claim
            # Until the real volume is known, the claim stands for it.
            pv_id = f"{UNBOUND_VOLUME_ID_PREFIX}-{pod.namespace}/{name}"
            pvc = lookup_claim(cluster, pod, name, ephemeral, new_pod)
            if pvc is None:
                continue
            if not pvc.volume_name:
                # Unbound (or forcibly unbound): it still counts when its class is this plugin's.
                if self._match_provisioner(pvc):
                    out.add(pv_id)
                continue
            pv = cluster.pvs.get(pvc.volume_name)
            if pv is None:
                if self._match_provisioner(pvc):
                    out.add(pv_id)
                continue
            disk = self.volume_filter.filter_persistent_volume(pv)
            if disk is not None:
                out.add(disk)

    def _match_provisioner(self, pvc: PersistentVolumeClaim) -> bool:
        # Only spec.storageClassName is read here, not the beta annotation.
        if pvc.spec_storage_class_name is None:
            return False
        sc = self.handle.cluster.storage_classes.get(pvc.spec_storage_class_name)
        return sc is not None and sc.provisioner == self.volume_filter.plugin


class EBSLimits(NonCSILimits):
    NAME = EBS_NAME
    volume_filter = EBS_FILTER


class GCEPDLimits(NonCSILimits):
    NAME = GCE_PD_NAME
    volume_filter = GCE_PD_FILTER


class AzureDiskLimits(NonCSILimits):
    NAME = AZURE_DISK_NAME
    volume_filter = AZURE_DISK_FILTER


class CinderLimits(NonCSILimits):
    NAME = CINDER_NAME
    volume_filter = CINDER_FILTER


def new_ebs(args: None, handle: Handle) -> EBSLimits:
    return EBSLimits(handle)


def new_gce_pd(args: None, handle: Handle) -> GCEPDLimits:
    return GCEPDLimits(handle)


def new_azure_disk(args: None, handle: Handle) -> AzureDiskLimits:
    return AzureDiskLimits(handle)


def new_cinder(args: None, handle: Handle) -> CinderLimits:
    return CinderLimits(handle)


EBS_INFO = PluginInfo(EBS_NAME)
GCE_PD_INFO = PluginInfo(GCE_PD_NAME)
AZURE_DISK_INFO = PluginInfo(AZURE_DISK_NAME)
CINDER_INFO = PluginInfo(CINDER_NAME)
