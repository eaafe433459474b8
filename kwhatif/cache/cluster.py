"""The cluster model: every object kwhatif read of a cluster, typed, as the scheduler, its
plugins (through the Handle's listers) and the what-if engines see it. load/ builds it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from kwhatif.api import parse, workload
from kwhatif.api.autoscaling import HorizontalPodAutoscaler
from kwhatif.api.core import (
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    RuntimeClass,
    Service,
)
from kwhatif.api.labels import NOTHING, Selector, selector_from_set
from kwhatif.api.resources import PodRules
from kwhatif.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)
from kwhatif.cache.kinds import KINDS, Kind, Merge, Store
from kwhatif.cache.pod_groups import PodGroupStates
from kwhatif.controlplane.admission.limitranger import LimitRange
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.controlplane.admission.resourcequota import ResourceQuota
from kwhatif.dra.types import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kwhatif.errors import FieldError
from kwhatif.release.versions import SchedulerVersion, default_version


@dataclass(frozen=True, slots=True)
class Workload:
    """A controller object as written; load/workloads.py turns it into pods.

    Its spec.selector is parsed when the Workload is made, as helper.DefaultSelector reads it for
    PodTopologySpread's default constraints (upstream helper/spread.go), so no plugin reads the body.
    """

    kind: str
    namespace: str
    name: str
    uid: str
    body: dict[str, Any]
    source: str
    # A ReplicationController's selector map (the API server defaults an empty one to the pod
    # template's labels); DefaultSelector merges it into the Services' label set. None for other kinds.
    selector_set: Mapping[str, str] | None = field(init=False, repr=False, compare=False)
    # labels.Selector of a ReplicationController (SelectorFromSet of selector_set), ReplicaSet or
    # StatefulSet (metav1.LabelSelectorAsSelector: NOTHING for a nil selector, and where it fails,
    # for upstream then adds none of it). None for the kinds DefaultSelector does not read.
    selector: Selector | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        selector_set: Mapping[str, str] | None = None
        selector: Selector | None = None
        if self.kind == "ReplicationController":
            selector_set = _rc_selector(self.body)
            selector = selector_from_set(selector_set)
        elif self.kind in ("ReplicaSet", "StatefulSet"):
            selector = _apps_selector(self.body)
        object.__setattr__(self, "selector_set", selector_set)
        object.__setattr__(self, "selector", selector)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)


def _rc_selector(body: dict[str, Any]) -> Mapping[str, str]:
    """A ReplicationController's spec.selector, or its template's labels when empty."""
    spec = body.get("spec")
    if not isinstance(spec, dict):
        return {}
    raw = spec.get("selector")
    if not raw:
        tmpl = spec.get("template")
        meta = tmpl.get("metadata") if isinstance(tmpl, dict) else None
        raw = meta.get("labels") if isinstance(meta, dict) else None
    if not isinstance(raw, dict):
        return {}
    return {str(k): str(v) for k, v in raw.items()}


def _apps_selector(body: dict[str, Any]) -> Selector:
    """A ReplicaSet's or StatefulSet's spec.selector through LabelSelectorAsSelector."""
    spec = body.get("spec")
    raw = spec.get("selector") if isinstance(spec, dict) else None
    try:
        return parse.label_selector(raw if isinstance(raw, dict) else None, "spec.selector")
    except FieldError:
        return NOTHING


@dataclass(slots=True)
class ClusterState:
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: list[Pod] = field(default_factory=list)  # bound, not terminal
    pending_pods: list[Pod] = field(default_factory=list)  # no nodeName, not terminal
    orphaned_pods: int = 0  # bound to a node that is not there, left out
    orphaned_pod_uids: set[str] = field(default_factory=set)  # their uids (DRA: their claims stay reserved)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    runtime_classes: dict[str, RuntimeClass] = field(default_factory=dict)
    services: list[Service] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    pvs: dict[str, PersistentVolume] = field(default_factory=dict)
    pvcs: dict[str, PersistentVolumeClaim] = field(default_factory=dict)  # "ns/name"
    storage_classes: dict[str, StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriver] = field(default_factory=dict)
    volume_attachments: list[VolumeAttachment] = field(default_factory=list)
    csi_capacities: list[CSIStorageCapacity] = field(default_factory=list)
    workloads: dict[tuple[str, str, str], Workload] = field(default_factory=dict)
    # scheduling.k8s.io Workloads and PodGroups (gang scheduling), by "namespace/name"
    scheduling_workloads: dict[str, workload.SchedulingWorkload] = field(default_factory=dict)
    pod_groups: dict[str, workload.PodGroup] = field(default_factory=dict)
    # the pods of each group the scheduler knows (kept by the scheduler as it runs)
    pod_group_states: PodGroupStates = field(default_factory=PodGroupStates)
    # resource.k8s.io (dynamic resource allocation)
    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    resource_slices: list[ResourceSlice] = field(default_factory=list)
    resource_claims: dict[str, ResourceClaim] = field(default_factory=dict)  # "ns/name"
    resource_claim_templates: dict[str, ResourceClaimTemplate] = field(default_factory=dict)  # "ns/name"
    # admission and controllers around the scheduler, by "namespace/name"
    limit_ranges: dict[str, LimitRange] = field(default_factory=dict)
    resource_quotas: dict[str, ResourceQuota] = field(default_factory=dict)
    hpas: dict[str, HorizontalPodAutoscaler] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    # The kube-scheduler release the pods were derived for (requests, host ports) and whose API
    # server admits new pods; use_version() switches it.
    version: SchedulerVersion = field(default_factory=default_version)
    server_version: str = ""  # gitVersion from a live cluster's /version
    recorded_server_version: str = ""  # the same, as `kwhatif snapshot` recorded it in its file
    # generateName's names for this cluster and the manifests read with it
    names: parse.NameGenerator = field(default_factory=parse.NameGenerator)

    def collection(self, kind: Kind) -> Any:
        """The dict or list that holds ``kind``'s objects (cache/kinds.py says which)."""
        return getattr(self, kind.field)

    def add(self, kind: Kind, obj: Any) -> None:
        """Keep a parsed object of ``kind`` where its table row says."""
        held = getattr(self, kind.field)
        match kind.store:
            case Store.BY_NAME:
                held[obj.name] = obj
            case Store.BY_KEY:
                held[obj.key] = obj
            case Store.BY_NAMESPACED_NAME:
                held[f"{obj.namespace}/{obj.name}"] = obj
            case Store.LISTED:
                held.append(obj)
            case Store.OWN:
                raise ValueError(f"{kind.kind} objects are kept by the loader")
            case _ as unreachable:
                assert_never(unreachable)

    def apply(self, extra: ClusterState) -> None:
        """The objects of ``extra`` (a manifest's) whose kind merges as REPLACE join this state,
        replacing those of the same name, as kubectl apply would leave them. KEEP and ADMIT kinds
        are the caller's (they need the PV controller and admission)."""
        for kind in KINDS:
            if kind.merge is not Merge.REPLACE:
                continue
            mine, theirs = getattr(self, kind.field), getattr(extra, kind.field)
            if not theirs:
                continue
            if kind.store is Store.LISTED:

                def ident(o: Any, namespaced: bool = kind.namespaced) -> tuple[str, str]:
                    return (o.namespace if namespaced else "", o.name)

                replaced = {ident(o) for o in theirs}
                setattr(self, kind.field, [o for o in mine if ident(o) not in replaced] + list(theirs))
            else:
                mine.update(theirs)

    def fork(self) -> ClusterState:
        """An independent copy for a what-if: every collection is copied (the objects in them are
        immutable and shared), so adding, removing or replacing objects in the fork leaves this
        state as it is. Linear in the number of objects, with a small constant: pointer copies
        (cost in the README's Performance section)."""
        copied: dict[str, Any] = {}
        for name in _COLLECTIONS:
            value = getattr(self, name)
            copied[name] = value.copy()
        return ClusterState(
            **copied,
            orphaned_pods=self.orphaned_pods,
            orphaned_pod_uids=set(self.orphaned_pod_uids),
            pod_group_states=self.pod_group_states.copy(),
            version=self.version,
            server_version=self.server_version,
            recorded_server_version=self.recorded_server_version,
            names=self.names.copy(),
        )

    @property
    def admission(self) -> Admission:
        return Admission(self.priority_classes, self.runtime_classes, self.version, PodRules.of(self.version))

    def use_version(self, version: SchedulerVersion) -> None:
        """Derive the pods again as ``version`` does (only pods whose derivation differs between
        releases: sidecars, pod-level requests, resize status)."""
        old, new = PodRules.of(self.version), PodRules.of(version)
        self.version = version
        if old == new:
            return

        def again(pods: list[Pod]) -> list[Pod]:
            return [parse.rebuild_pod(p, new) if p.derivation_sensitive else p for p in pods]

        self.pods = again(self.pods)
        self.pending_pods = again(self.pending_pods)

    def limit_ranges_in(self, namespace: str) -> list[LimitRange]:
        """The namespace's LimitRanges, by name (the order the admission plugin sees is the
        lister's, which upstream does not fix)."""
        return sorted((lr for lr in self.limit_ranges.values() if lr.namespace == namespace), key=lambda lr: lr.name)

    def namespace_labels(self, name: str) -> dict[str, str]:
        ns = self.namespaces.get(name)
        return dict(ns.labels) if ns else {"kubernetes.io/metadata.name": name}


# The collections fork() copies: those of the kinds table, and the others the loader fills.
_COLLECTIONS: tuple[str, ...] = tuple(dict.fromkeys([*(k.field for k in KINDS), "pending_pods", "skipped"]))
