"""Storage objects the volume plugins read: PV, PVC, StorageClass, CSINode, CSIDriver,
CSIStorageCapacity, with the core/v1 and storage/v1 defaulting the API server applies."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from kwhatif.api import fields as f
from kwhatif.api.core import NodeSelector
from kwhatif.api.labels import Selector
from kwhatif.api.parse import label_selector, name_of, namespace_of, node_selector, owner_references
from kwhatif.api.core import OwnerReference

Dict = Mapping[str, Any]

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

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
    return StorageClass(
        name=name_of(d),
        provisioner=f.string(d, "provisioner", ""),
        volume_binding_mode=mode,
        allowed_topologies=tuple(terms),
        parameters={str(k): str(v) for k, v in params.items()} if isinstance(params, dict) else {},
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
