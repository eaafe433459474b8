"""Storage objects the volume plugins read: PV, PVC, StorageClass, CSINode, CSIDriver,
CSIStorageCapacity, with the core/v1 and storage/v1 defaulting the API server applies."""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api.core import NodeSelector, NodeSelectorTerm, OwnerReference, Volume
from kwhatif.api.fields import Dict
from kwhatif.api.labels import Op, Requirement, Selector
from kwhatif.api.parse import label_selector, name_of, namespace_of, node_selector, owner_references

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
DEFAULT_STORAGE_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
# SetDefaults_AzureDiskVolumeSource: an azureDisk without kind is a shared blob disk.
AZURE_SHARED_DISK_KIND = "Shared"

# In-tree persistent volume sources whose identity the volume plugins read.
_PV_DISK_FIELDS = {
    "gcePersistentDisk": "pdName",
    "awsElasticBlockStore": "volumeID",
    "azureDisk": "diskName",
    "cinder": "volumeID",
}


@dataclass(frozen=True, slots=True)
class ClaimRef:
    namespace: str
    name: str
    uid: str


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    name: str
    uid: str
    resource_version: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    capacity: Fraction | None  # spec.capacity.storage
    access_modes: tuple[str, ...]
    volume_mode: str  # Filesystem (defaulted) or Block
    storage_class_name: str  # the beta annotation wins over spec.storageClassName
    claim_ref: ClaimRef | None
    node_affinity: NodeSelector | None  # spec.nodeAffinity.required
    source_kind: str  # csi, gcePersistentDisk, awsElasticBlockStore, azureDisk, cinder, local, hostPath, ...
    disk_id: str  # in-tree disk name / id
    csi_driver: str
    csi_handle: str
    source_attrs: Mapping[str, Any]  # the raw source for CSI translation (fsType, partition, ...)
    phase: str  # defaulted to Pending
    deleting: bool
    # azureDisk: diskURI and kind (defaulted to Shared, which CSI migration cannot translate)
    disk_uri: str = ""
    disk_kind: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    uid: str
    resource_version: str
    annotations: Mapping[str, str]
    owner_references: tuple[OwnerReference, ...]
    access_modes: tuple[str, ...]
    request: Fraction | None  # spec.resources.requests.storage
    storage_class_name: str | None  # None: unset (the beta annotation wins when present)
    volume_name: str
    volume_mode: str
    selector: Selector | None
    phase: str  # defaulted to Pending
    deleting: bool
    # spec.storageClassName alone (None: unset); the in-tree attach limits read only this field
    spec_storage_class_name: str | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class TopologySelectorTerm:
    expressions: tuple[tuple[str, frozenset[str]], ...]  # key In values, ANDed


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    provisioner: str
    volume_binding_mode: str  # Immediate (defaulted) or WaitForFirstConsumer
    allowed_topologies: tuple[TopologySelectorTerm, ...]
    parameters: Mapping[str, str]
    is_default: bool = False  # storageclass(.beta).kubernetes.io/is-default-class: "true"
    creation_timestamp: float = 0.0


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    name: str
    node_id: str
    allocatable_count: int | None
    topology_keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CSINode:
    name: str
    annotations: Mapping[str, str]
    drivers: tuple[CSINodeDriver, ...]


@dataclass(frozen=True, slots=True)
class CSIDriver:
    name: str
    attach_required: bool
    storage_capacity: bool
    # spec.preventPodSchedulingIfMissing (1.36+, VolumeLimitScaling): nodes whose CSINode lacks the
    # driver do not take pods with its volumes
    prevent_pod_scheduling_if_missing: bool = False


@dataclass(frozen=True, slots=True)
class VolumeAttachment:
    """storage.k8s.io/v1 VolumeAttachment: a volume a CSI driver attached (or is attaching) to a node."""

    name: str
    attacher: str
    node_name: str
    persistent_volume_name: str  # spec.source.persistentVolumeName; "" for inline sources


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity:
    namespace: str
    name: str
    storage_class_name: str
    capacity: Fraction | None
    maximum_volume_size: Fraction | None
    node_topology: Selector  # NOTHING when absent


def _storage(d: Dict, key: str, path: str) -> Fraction | None:
    rl = f.resource_list(d, key, path)
    return rl.get("storage")


def persistent_volume(d: Dict) -> PersistentVolume:
    meta = f.mapping(d, "metadata", "")
    spec = f.mapping(d, "spec", "")
    status = f.mapping(d, "status", "")
    annotations = f.str_map(meta, "annotations", "metadata")
    claim = f.opt_mapping(spec, "claimRef", "spec")
    na = f.opt_mapping(spec, "nodeAffinity", "spec")
    required = f.opt_mapping(na, "required", "spec.nodeAffinity") if na else None
    kind = ""
    src: Dict = {}
    for k, v in spec.items():
        if isinstance(v, dict) and k not in ("capacity", "claimRef", "nodeAffinity"):
            kind, src = k, v
            break
    sc = annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if sc is None:
        sc = f.string(spec, "storageClassName", "spec")
    return PersistentVolume(
        name=name_of(d),
        uid=f.string(meta, "uid", "metadata"),
        resource_version=str(meta.get("resourceVersion") or ""),
        labels=f.str_map(meta, "labels", "metadata"),
        annotations=annotations,
        capacity=_storage(spec, "capacity", "spec"),
        access_modes=f.str_list(spec, "accessModes", "spec"),
        volume_mode=f.string(spec, "volumeMode", "spec") or "Filesystem",
        storage_class_name=sc,
        claim_ref=ClaimRef(
            f.string(claim, "namespace", "spec.claimRef"),
            f.string(claim, "name", "spec.claimRef"),
            f.string(claim, "uid", "spec.claimRef"),
        )
        if claim
        else None,
        node_affinity=node_selector(required, "spec.nodeAffinity.required") if required else None,
        source_kind=kind,
        disk_id=f.string(src, _PV_DISK_FIELDS[kind], f"spec.{kind}") if kind in _PV_DISK_FIELDS else "",
        csi_driver=f.string(src, "driver", "spec.csi") if kind == "csi" else "",
        csi_handle=f.string(src, "volumeHandle", "spec.csi") if kind == "csi" else "",
        source_attrs=dict(src),
        phase=f.string(status, "phase", "status") or "Pending",
        deleting=meta.get("deletionTimestamp") is not None,
        disk_uri=f.string(src, "diskURI", f"spec.{kind}") if kind == "azureDisk" else "",
        disk_kind=(f.string(src, "kind", f"spec.{kind}") or AZURE_SHARED_DISK_KIND) if kind == "azureDisk" else "",
    )


def persistent_volume_claim(d: Dict) -> PersistentVolumeClaim:
    meta = f.mapping(d, "metadata", "")
    spec = f.mapping(d, "spec", "")
    status = f.mapping(d, "status", "")
    annotations = f.str_map(meta, "annotations", "metadata")
    sc: str | None = annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if sc is None and spec.get("storageClassName") is not None:
        sc = f.string(spec, "storageClassName", "spec")
    sel = f.opt_mapping(spec, "selector", "spec")
    spec_sc = f.string(spec, "storageClassName", "spec") if spec.get("storageClassName") is not None else None
    return PersistentVolumeClaim(
        namespace=namespace_of(d),
        name=name_of(d),
        uid=f.string(meta, "uid", "metadata"),
        resource_version=str(meta.get("resourceVersion") or ""),
        annotations=annotations,
        owner_references=owner_references(meta),
        access_modes=f.str_list(spec, "accessModes", "spec"),
        request=_storage(f.mapping(spec, "resources", "spec"), "requests", "spec.resources"),
        storage_class_name=sc,
        volume_name=f.string(spec, "volumeName", "spec"),
        volume_mode=f.string(spec, "volumeMode", "spec") or "Filesystem",
        selector=label_selector(sel, "spec.selector") if sel is not None else None,
        phase=f.string(status, "phase", "status") or "Pending",
        deleting=meta.get("deletionTimestamp") is not None,
        spec_storage_class_name=spec_sc,
    )


def storage_class(d: Dict) -> StorageClass:
    mode = f.string(d, "volumeBindingMode", "") or "Immediate"
    if mode not in ("Immediate", "WaitForFirstConsumer"):
        raise f.unsupported("volumeBindingMode", mode, ("Immediate", "WaitForFirstConsumer"))
    terms = []
    for i, t in enumerate(f.obj_seq(d, "allowedTopologies", "")):
        exprs = []
        for j, e in enumerate(f.obj_seq(t, "matchLabelExpressions", f"allowedTopologies[{i}]")):
            p = f"allowedTopologies[{i}].matchLabelExpressions[{j}]"
            exprs.append((f.string(e, "key", p), frozenset(f.str_list(e, "values", p))))
        terms.append(TopologySelectorTerm(tuple(exprs)))
    params = d.get("parameters") or {}
    meta = f.mapping(d, "metadata", "")
    annotations = f.str_map(meta, "annotations", "metadata")
    default = any(annotations.get(k) == "true" for k in DEFAULT_STORAGE_CLASS_ANNOTATIONS)
    return StorageClass(
        name=name_of(d),
        provisioner=f.string(d, "provisioner", ""),
        volume_binding_mode=mode,
        allowed_topologies=tuple(terms),
        parameters={str(k): str(v) for k, v in params.items()} if isinstance(params, dict) else {},
        is_default=default,
        creation_timestamp=f.timestamp(meta, "creationTimestamp", "metadata"),
    )


def csi_node(d: Dict) -> CSINode:
    meta = f.mapping(d, "metadata", "")
    spec = f.mapping(d, "spec", "")
    drivers = []
    for i, drv in enumerate(f.obj_seq(spec, "drivers", "spec")):
        p = f"spec.drivers[{i}]"
        alloc = f.mapping(drv, "allocatable", p)
        drivers.append(
            CSINodeDriver(
                name=f.string(drv, "name", p),
                node_id=f.string(drv, "nodeID", p),
                allocatable_count=f.integer(alloc, "count", f"{p}.allocatable"),
                topology_keys=f.str_list(drv, "topologyKeys", p),
            )
        )
    return CSINode(name_of(d), f.str_map(meta, "annotations", "metadata"), tuple(drivers))


def csi_driver(d: Dict) -> CSIDriver:
    spec = f.mapping(d, "spec", "")
    return CSIDriver(
        name=name_of(d),
        attach_required=f.boolean(spec, "attachRequired", "spec", True),
        storage_capacity=f.boolean(spec, "storageCapacity", "spec", False),
        prevent_pod_scheduling_if_missing=f.boolean(spec, "preventPodSchedulingIfMissing", "spec", False),
    )


def volume_attachment(d: Dict) -> VolumeAttachment:
    spec = f.mapping(d, "spec", "")
    source = f.mapping(spec, "source", "spec")
    return VolumeAttachment(
        name=name_of(d),
        attacher=f.string(spec, "attacher", "spec"),
        node_name=f.string(spec, "nodeName", "spec"),
        persistent_volume_name=f.string(source, "persistentVolumeName", "spec.source"),
    )


def csi_storage_capacity(d: Dict) -> CSIStorageCapacity:
    cap = d.get("capacity")
    mvs = d.get("maximumVolumeSize")
    return CSIStorageCapacity(
        namespace=namespace_of(d),
        name=name_of(d),
        storage_class_name=f.string(d, "storageClassName", ""),
        capacity=f.quantity(cap, "capacity") if cap is not None else None,
        maximum_volume_size=f.quantity(mvs, "maximumVolumeSize") if mvs is not None else None,
        node_topology=label_selector(f.opt_mapping(d, "nodeTopology", ""), "nodeTopology"),
    )


# --- in-tree to CSI translation (k8s.io/csi-translation-lib) ------------------------------------
#
# The scheduler translates in-tree volumes to CSI to count attachments per CSI driver and to
# check a translated PV's node affinity. Only the facts it reads are produced here: the driver,
# the volume handle and the PV's node affinity. Plugins whose migration is off by default in
# v1.30 (Azure File, vSphere, Portworx, RBD) are recognised but never translated.

GCE_PD_PLUGIN = "kubernetes.io/gce-pd"
AWS_EBS_PLUGIN = "kubernetes.io/aws-ebs"
AZURE_DISK_PLUGIN = "kubernetes.io/azure-disk"
CINDER_PLUGIN = "kubernetes.io/cinder"
AZURE_FILE_PLUGIN = "kubernetes.io/azure-file"
VSPHERE_PLUGIN = "kubernetes.io/vsphere-volume"
PORTWORX_PLUGIN = "kubernetes.io/portworx-volume"
RBD_PLUGIN = "kubernetes.io/rbd"

GCE_PD_DRIVER = "pd.csi.storage.gke.io"
AWS_EBS_DRIVER = "ebs.csi.aws.com"
AZURE_DISK_DRIVER = "disk.csi.azure.com"
CINDER_DRIVER = "cinder.csi.openstack.org"

# in-tree plugin name -> (volume source field, CSI driver name)
IN_TREE_PLUGINS: dict[str, tuple[str, str]] = {
    GCE_PD_PLUGIN: ("gcePersistentDisk", GCE_PD_DRIVER),
    AWS_EBS_PLUGIN: ("awsElasticBlockStore", AWS_EBS_DRIVER),
    CINDER_PLUGIN: ("cinder", CINDER_DRIVER),
    AZURE_DISK_PLUGIN: ("azureDisk", AZURE_DISK_DRIVER),
    AZURE_FILE_PLUGIN: ("azureFile", "file.csi.azure.com"),
    VSPHERE_PLUGIN: ("vsphereVolume", "csi.vsphere.vmware.com"),
    PORTWORX_PLUGIN: ("portworxVolume", "pxd.portworx.com"),
    RBD_PLUGIN: ("rbd", "rbd.csi.ceph.com"),
}
_PLUGIN_BY_SOURCE = {source: plugin for plugin, (source, _) in IN_TREE_PLUGINS.items()}

LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
LABEL_MULTI_ZONE_DELIMITER = "__"

_CSI_TOPOLOGY_KEYS = {
    GCE_PD_PLUGIN: "topology.gke.io/zone",
    AWS_EBS_PLUGIN: "topology." + AWS_EBS_DRIVER + "/zone",
    CINDER_PLUGIN: "topology.cinder.csi.openstack.org/zone",
}
_UNSPECIFIED = "UNSPECIFIED"
_AWS_VOLUME_ID = re.compile(r"^vol-[^/]*$")


class TranslationError(ValueError):
    """An in-tree volume that csi-translation-lib refuses to translate."""


def in_tree_plugin_of_pv(pv: PersistentVolume) -> str | None:
    """GetInTreePluginNameFromSpec for a PV (None: not a migratable in-tree source)."""
    return _PLUGIN_BY_SOURCE.get(pv.source_kind)


def in_tree_plugin_of_volume(vol: Volume) -> str | None:
    """GetInTreePluginNameFromSpec for an inline pod volume."""
    return _PLUGIN_BY_SOURCE.get(vol.kind)


def csi_driver_of_plugin(plugin: str) -> str | None:
    entry = IN_TREE_PLUGINS.get(plugin)
    return entry[1] if entry else None


def translate_inline_volume(vol: Volume) -> tuple[str, str]:
    """TranslateInTreeInlineVolumeToCSI: the (driver, volume handle) of an inline volume."""
    if vol.kind == "gcePersistentDisk":
        return GCE_PD_DRIVER, _gce_zonal_handle(_UNSPECIFIED, vol.disk_id)
    if vol.kind == "awsElasticBlockStore":
        return AWS_EBS_DRIVER, _ebs_volume_id(vol.disk_id)
    if vol.kind == "azureDisk":
        _check_azure_kind(vol.disk_kind or AZURE_SHARED_DISK_KIND)
        return AZURE_DISK_DRIVER, vol.disk_uri
    if vol.kind == "cinder":
        return CINDER_DRIVER, vol.disk_id
    raise TranslationError(f"could not find in-tree plugin translation logic for {vol.name!r}")


def translate_pv(pv: PersistentVolume) -> PersistentVolume:
    """TranslateInTreePVToCSI: the PV with a CSI source and its zone topology renamed to the
    driver's topology key."""
    plugin = in_tree_plugin_of_pv(pv)
    if plugin == GCE_PD_PLUGIN:
        driver, handle = GCE_PD_DRIVER, _gce_pv_handle(pv)
    elif plugin == AWS_EBS_PLUGIN:
        driver, handle = AWS_EBS_DRIVER, _ebs_volume_id(pv.disk_id)
    elif plugin == AZURE_DISK_PLUGIN:
        _check_azure_kind(pv.disk_kind or AZURE_SHARED_DISK_KIND)
        driver, handle = AZURE_DISK_DRIVER, pv.disk_uri
    elif plugin == CINDER_PLUGIN:
        driver, handle = CINDER_DRIVER, pv.disk_id
    else:
        raise TranslationError(f"could not find in-tree plugin translation logic for {pv.name!r}")
    affinity = pv.node_affinity
    topology_key = _CSI_TOPOLOGY_KEYS.get(plugin)
    if topology_key is not None:
        affinity = _translate_topology(pv, topology_key)
    return dataclasses.replace(
        pv, source_kind="csi", csi_driver=driver, csi_handle=handle, disk_id="", node_affinity=affinity
    )


def _gce_zonal_handle(zone: str, pd_name: str) -> str:
    return f"projects/{_UNSPECIFIED}/zones/{zone}/disks/{pd_name}"


def _gce_pv_handle(pv: PersistentVolume) -> str:
    # The beta zone label is read first, then the GA one.
    zones_label = pv.labels.get(LABEL_BETA_ZONE) or pv.labels.get(LABEL_TOPOLOGY_ZONE) or ""
    zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        return _gce_zonal_handle(zones[0], pv.disk_id)
    if len(zones) > 1:
        regions = set()
        for zone in zones:
            parts = zone.split("-")
            if len(parts) != 3:
                raise TranslationError(
                    "failed to get region from zones: zone in unexpected format, "
                    f"expected: {{locale}}-{{region}}-{{zone}}, got: {zone}"
                )
            regions.add("-".join(parts[:2]))
        if len(regions) != 1:
            raise TranslationError(
                f"failed to get region from zones: multiple or no regions gotten from zones, got: {sorted(regions)}"
            )
        return f"projects/{_UNSPECIFIED}/regions/{regions.pop()}/disks/{pv.disk_id}"
    return _gce_zonal_handle(_UNSPECIFIED, pv.disk_id)


def _ebs_volume_id(kubernetes_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: aws://<zone>/<volume-id> becomes <volume-id>."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    path = urllib.parse.unquote(urllib.parse.urlsplit(kubernetes_id).path).strip("/")
    if not _AWS_VOLUME_ID.match(path):
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume ({kubernetes_id})"
        )
    return path


def _check_azure_kind(kind: str) -> None:
    if kind.lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")


def _affinity_keys(selector: NodeSelector | None) -> set[str]:
    if selector is None:
        return set()
    return {r.key for t in selector.terms if t.expressions for r in t.expressions.requirements}


def _affinity_values(selector: NodeSelector | None, key: str) -> list[str]:
    if selector is None:
        return []
    values: set[str] = set()
    for t in selector.terms:
        for r in t.expressions.requirements if t.expressions else ():
            if r.key == key:
                values |= r.values
    return sorted(values)


def _rename_key(selector: NodeSelector, old: str, new: str) -> NodeSelector:
    terms = []
    for t in selector.terms:
        if t.expressions is not None:
            reqs = tuple(dataclasses.replace(r, key=new) if r.key == old else r for r in t.expressions.requirements)
            t = NodeSelectorTerm(Selector(reqs), t.fields)
        terms.append(t)
    return NodeSelector(tuple(terms), selector.had_empty_term)


def _add_topology(selector: NodeSelector | None, key: str, zones: list[str]) -> NodeSelector | None:
    """addTopology: AND `key In zones` into every term (a PV without terms gets one)."""
    values = frozenset(z.strip() for z in zones if z.strip())
    if not values:
        return selector  # upstream's error is ignored by its caller
    req = Requirement(key, Op.IN, values)
    if selector is None or (not selector.terms and not selector.had_empty_term):
        return NodeSelector((NodeSelectorTerm(Selector((req,)), None),))
    terms = [
        NodeSelectorTerm(Selector((t.expressions.requirements if t.expressions else ()) + (req,)), t.fields)
        for t in selector.terms
    ]
    if selector.had_empty_term:
        # An empty term becomes a term holding only the topology requirement.
        terms.append(NodeSelectorTerm(Selector((req,)), None))
    return NodeSelector(tuple(terms))


def _translate_topology(pv: PersistentVolume, csi_key: str) -> NodeSelector | None:
    """translateTopologyFromInTreeToCSI."""
    keys = _affinity_keys(pv.node_affinity)
    if LABEL_TOPOLOGY_ZONE in keys:
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    elif LABEL_BETA_ZONE in keys:
        zone_label, region_label = LABEL_BETA_ZONE, LABEL_BETA_REGION
    elif LABEL_TOPOLOGY_ZONE in pv.labels:
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    elif LABEL_BETA_ZONE in pv.labels:
        zone_label, region_label = LABEL_BETA_ZONE, LABEL_BETA_REGION
    else:
        zone_label, region_label = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
    affinity = pv.node_affinity
    if _affinity_values(affinity, zone_label):
        assert affinity is not None
        affinity = _rename_key(affinity, zone_label, csi_key)
    elif zone_label in pv.labels:
        affinity = _add_topology(affinity, csi_key, pv.labels[zone_label].split(LABEL_MULTI_ZONE_DELIMITER))
    if region_label == LABEL_BETA_REGION and affinity is not None and _affinity_values(affinity, region_label):
        affinity = _rename_key(affinity, region_label, LABEL_TOPOLOGY_REGION)
    return affinity
