"""NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go, utils.go): how many
distinct CSI volumes each driver may attach to a node, from the CSINode's allocatable counts (and,
until 1.31, the node's ``attachable-volumes-*`` allocatable). In-tree volumes count under their CSI
driver once the plugin is migrated on the node; unbound claims count through their class's
provisioner; from 1.32 the node's VolumeAttachments count as attached too. From 1.35, with
VolumeLimitScaling on, a node whose CSINode lacks the driver of a new volume is rejected.

The shared helpers of the in-tree limit plugins (node_volume_limits_in_tree.py) live here too.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import TYPE_CHECKING, Any

from kwhatif.api import storage
from kwhatif.api.core import Pod, Volume
from kwhatif.api.resources import ATTACHABLE_VOLUMES_PREFIX
from kwhatif.api.storage import CSINode, PersistentVolumeClaim
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
from kwhatif.plugins.info import Hints, PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "NodeVolumeLimits"
# nodevolumelimits/non_csi.go
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


def err_reason_driver_not_installed(driver: str) -> str:
    return f"{driver} CSI driver is not installed on the node"


# pkg/volume/util/attach_limit.go
CSI_ATTACH_LIMIT_PREFIX = ATTACHABLE_VOLUMES_PREFIX + "csi-"
RESOURCE_NAME_LENGTH_LIMIT = 63

# Upstream prefixes the stand-in handle of a claim without a PV with 32 random characters so that
# it can never equal a real volume handle; a fixed prefix does the same and stays deterministic.
UNBOUND_VOLUME_ID_PREFIX = "kwhatif-unbound-claim"

# isCSIMigrationOn: migration of these plugins is GA and always on (once the node has a CSINode).
# Portworx and RBD would also need the node's migrated-plugins annotation, but their feature
# gates (CSIMigrationPortworx, CSIMigrationRBD) are off by default in v1.30.
_ALWAYS_MIGRATED = frozenset(
    {storage.AWS_EBS_PLUGIN, storage.GCE_PD_PLUGIN, storage.AZURE_DISK_PLUGIN, storage.CINDER_PLUGIN}
)


class ClaimNotFound(Exception):
    """The new pod's claim does not exist: UnschedulableAndUnresolvable."""


class VolumeError(Exception):
    """Anything else that keeps the plugin from counting: an Error status."""


def lookup_claim(cluster: Any, pod: Pod, name: str, ephemeral: bool, new_pod: bool) -> PersistentVolumeClaim | None:
    """The claim a pod volume refers to; None for an existing pod whose claim is gone (it may
    not be attached at all, so it is not counted). Raises for the new pod's missing claim and for
    an ephemeral claim the pod does not own."""
    pvc: PersistentVolumeClaim | None = cluster.pvcs.get(f"{pod.namespace}/{name}")
    if pvc is None:
        if new_pod:
            raise ClaimNotFound(claim_lookup_error(pod, name))
        return None
    if ephemeral:
        err = ephemeral_owner_error(pod, pvc)
        if err is not None:
            raise VolumeError(err)
    return pvc


def csi_attach_limit_key(driver: str) -> str:
    """volumeutil.GetCSIAttachLimitKey: long driver names are shortened with a hash."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= RESOURCE_NAME_LENGTH_LIMIT:
        hashed = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + hashed
    return CSI_ATTACH_LIMIT_PREFIX + driver


def is_csi_migration_on(csi_node: CSINode | None, plugin: str) -> bool:
    if csi_node is None or not plugin:
        return False
    return plugin in _ALWAYS_MIGRATED


def node_volume_limits(node_info: NodeInfo) -> dict[str, int]:
    """The node's attachable-volumes-* allocatable."""
    return {k: v for k, v in node_info.allocatable.scalar.items() if k.startswith(ATTACHABLE_VOLUMES_PREFIX)}


def ephemeral_claim_name(pod: Pod, vol: Volume) -> str:
    """ephemeral.VolumeClaimName."""
    return f"{pod.name}-{vol.name}"


def ephemeral_owner_error(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """ephemeral.VolumeIsForPod: the claim of an ephemeral volume must be controlled by the pod."""
    # metav1.IsControlledBy reads the first controller reference only
    controller = next((ref for ref in pvc.owner_references if ref.controller), None)
    if pvc.namespace != pod.namespace or controller is None or controller.uid != pod.uid:
        return f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"
    return None


def claim_lookup_error(pod: Pod, name: str) -> str:
    return f'looking up PVC {pod.namespace}/{name}: persistentvolumeclaim "{name}" not found'


def claim_name_of(pod: Pod, vol: Volume) -> tuple[str, bool] | None:
    """The claim a volume uses and whether it is an ephemeral volume's; None for other sources."""
    if vol.kind == "persistentVolumeClaim":
        return vol.claim_name, False
    if vol.kind == "ephemeral":
        return ephemeral_claim_name(pod, vol), True
    return None


def get_volume_limits(node_info: NodeInfo, csi_node: CSINode | None, from_node: bool = True) -> dict[str, int]:
    """getVolumeLimits, keyed by attach-limit key: the CSINode's counts, over the node's
    attachable-volumes-* allocatable while ``from_node`` (until 1.31)."""
    limits = node_volume_limits(node_info) if from_node else {}
    if csi_node is not None:
        for d in csi_node.drivers:
            if d.allocatable_count is not None:
                limits[csi_attach_limit_key(d.name)] = d.allocatable_count
    return limits


class CSILimits(PreFilterPlugin, FilterPlugin):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        version = handle.version
        b = version.behaviour
        self.limits_from_node = b.volume_limits_from_node_allocatable
        self.count_attachments = b.volume_limits_count_volume_attachments
        self.check_driver = b.volume_limits_check_csi_driver and version.gate("VolumeLimitScaling")
        self.check_needs_opt_in = b.csi_driver_check_needs_opt_in

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        for v in pod.volumes:
            if v.kind in ("persistentVolumeClaim", "ephemeral") or storage.in_tree_plugin_of_volume(v):
                return None, SUCCESS
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.volumes:
            return SUCCESS
        csi_node = self.handle.cluster.csi_nodes.get(node_info.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi_node, True, new_volumes)
        except ClaimNotFound as e:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(e))
        except VolumeError as e:
            return Status.error(str(e))
        if not new_volumes:
            return SUCCESS
        if self.check_driver:
            for unique_name in sorted(new_volumes):
                driver = unique_name.split("/", 1)[0]
                if not self._driver_on_node(driver, csi_node):
                    return Status.of(Code.UNSCHEDULABLE, err_reason_driver_not_installed(driver))
        limits = get_volume_limits(node_info, csi_node, self.limits_from_node)
        if not limits:
            return SUCCESS
        attached: dict[str, str] = {}
        for pi in node_info.pods:
            try:
                self._attachable_volumes(pi.pod, csi_node, False, attached)
            except (ClaimNotFound, VolumeError) as e:
                return Status.error(str(e))
        attached_count: Counter[str] = Counter()
        for unique_name, limit_key in attached.items():
            # a volume already attached for another pod is not attached again
            new_volumes.pop(unique_name, None)
            attached_count[limit_key] += 1
        if self.count_attachments:
            # getNodeVolumeAttachmentInfo: volumes still attached (a deleted pod's, detaching) count too
            for unique_name, limit_key in self._node_attachments(node_info.name).items():
                if unique_name not in attached:
                    attached_count[limit_key] += 1
        new_count = Counter(new_volumes.values())
        for limit_key, count in sorted(new_count.items()):
            max_limit = limits.get(limit_key)
            if max_limit is not None and attached_count[limit_key] + count > max_limit:
                return Status.of(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return SUCCESS

    def _driver_on_node(self, driver: str, csi_node: CSINode | None) -> bool:
        """checkCSIDriverOnNode: a driver without a CSIDriver object (maybe not CSI) passes; from
        1.36 so does one that does not opt in."""
        obj = self.handle.cluster.csi_drivers.get(driver)
        if obj is None or (self.check_needs_opt_in and not obj.prevent_pod_scheduling_if_missing):
            return True
        if csi_node is None:
            return False
        return any(d.name == driver for d in csi_node.drivers)

    def _node_attachments(self, node_name: str) -> dict[str, str]:
        """The CSI volumes the node's VolumeAttachments name: "driver/handle" -> attach limit key."""
        out: dict[str, str] = {}
        pvs = self.handle.cluster.pvs
        for va in self.handle.cluster.volume_attachments:
            if va.node_name != node_name or not va.attacher or not va.persistent_volume_name:
                continue
            pv = pvs.get(va.persistent_volume_name)
            if pv is None or pv.source_kind != "csi":
                continue
            out[f"{va.attacher}/{pv.csi_handle}"] = csi_attach_limit_key(va.attacher)
        return out

    def _attachable_volumes(self, pod: Pod, csi_node: CSINode | None, new_pod: bool, result: dict[str, str]) -> None:
        """filterAttachableVolumes: "driver/handle" -> attach limit key for each CSI volume."""
        cluster = self.handle.cluster
        for vol in pod.volumes:
            claim = claim_name_of(pod, vol)
            if claim is None:
                self._inline_volume(vol, csi_node, result)
                continue
            name, ephemeral = claim
            pvc = lookup_claim(cluster, pod, name, ephemeral, new_pod)
            if pvc is None:
                continue
            driver, handle = self._csi_driver_info(csi_node, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _inline_volume(self, vol: Volume, csi_node: CSINode | None, result: dict[str, str]) -> None:
        """checkAttachableInlineVolume: an in-tree inline volume counts once its plugin is migrated."""
        plugin = storage.in_tree_plugin_of_volume(vol)
        if plugin is None or not is_csi_migration_on(csi_node, plugin):
            return
        try:
            driver, handle = storage.translate_inline_volume(vol)
        except storage.TranslationError as e:
            raise VolumeError(f"converting volume({vol.name}) from inline to csi: {e}") from None
        result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _csi_driver_info(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfo: the driver and handle of the claim's PV, translated when migrated."""
        if not pvc.volume_name:
            return self._csi_driver_info_from_class(csi_node, pvc)
        pv = self.handle.cluster.pvs.get(pvc.volume_name)
        if pv is None:
            # deleted, or the claim was pre-bound to a PV not created yet: count by class
            return self._csi_driver_info_from_class(csi_node, pvc)
        if pv.source_kind == "csi":
            return pv.csi_driver, pv.csi_handle
        plugin = storage.in_tree_plugin_of_pv(pv)
        if plugin is None or not is_csi_migration_on(csi_node, plugin):
            return "", ""
        try:
            csi_pv = storage.translate_pv(pv)
        except storage.TranslationError:
            return "", ""
        return csi_pv.csi_driver, csi_pv.csi_handle

    def _csi_driver_info_from_class(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """getCSIDriverInfoFromSC: an unbound claim counts under its class's provisioner."""
        class_name = pvc.storage_class_name or ""
        if not class_name:
            return "", ""  # no class: immediate binding, so it is bound before it is scheduled
        sc = self.handle.cluster.storage_classes.get(class_name)
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        provisioner = sc.provisioner
        driver = storage.csi_driver_of_plugin(provisioner)
        if driver is not None:
            if not is_csi_migration_on(csi_node, provisioner):
                return "", ""
            return driver, handle
        return provisioner, handle


def new(args: None, handle: Handle) -> CSILimits:
    return CSILimits(handle)


INFO = PluginInfo(
    NAME,
    sarif_help="The nodes have attached as many volumes of the driver as they can: spread the pods or add nodes.",
    hints=Hints(
        8,
        fixed={
            ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: (
                "fail only because the pod's volumes would exceed their attachable volume limit"
            ),
        },
    ),
)
