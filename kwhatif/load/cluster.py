"""Turn Documents into a ClusterState: typed objects, validated, admitted, de-duplicated."""

from __future__ import annotations

import contextlib
import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api import autoscaling, limitranger, parse, resourcequota, storage, workload
from kwhatif.api.admission import Admission
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
from kwhatif.api.limitranger import LimitRange
from kwhatif.api.resourcequota import ResourceQuota
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
from kwhatif.dra import parse as dra_parse
from kwhatif.dra.types import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kwhatif.errors import FieldError, InputError
from kwhatif.gang.state import PodGroupStates
from kwhatif.load.files import SERVER_VERSION_KIND, Document
from kwhatif.versions import SchedulerVersion, default_version

# Kinds kwhatif reads, with the apiVersions it accepts for each and whether they are namespaced.
READ_KINDS: dict[str, tuple[frozenset[str], bool]] = {
    "Node": (frozenset({"v1"}), False),
    "Pod": (frozenset({"v1"}), True),
    "Namespace": (frozenset({"v1"}), False),
    "Service": (frozenset({"v1"}), True),
    "PersistentVolume": (frozenset({"v1"}), False),
    "PersistentVolumeClaim": (frozenset({"v1"}), True),
    "ReplicationController": (frozenset({"v1"}), True),
    "PriorityClass": (frozenset({"scheduling.k8s.io/v1"}), False),
    "PodDisruptionBudget": (frozenset({"policy/v1"}), True),
    "StorageClass": (frozenset({"storage.k8s.io/v1"}), False),
    "CSINode": (frozenset({"storage.k8s.io/v1"}), False),
    "CSIDriver": (frozenset({"storage.k8s.io/v1"}), False),
    "VolumeAttachment": (frozenset({"storage.k8s.io/v1"}), False),
    "CSIStorageCapacity": (frozenset({"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}), True),
    "RuntimeClass": (frozenset({"node.k8s.io/v1"}), False),
    "ReplicaSet": (frozenset({"apps/v1"}), True),
    "StatefulSet": (frozenset({"apps/v1"}), True),
    "Deployment": (frozenset({"apps/v1"}), True),
    "DaemonSet": (frozenset({"apps/v1"}), True),
    "Job": (frozenset({"batch/v1"}), True),
    "CronJob": (frozenset({"batch/v1"}), True),
    "DeviceClass": (dra_parse.API_VERSIONS, False),
    "ResourceSlice": (dra_parse.API_VERSIONS, False),
    "ResourceClaim": (dra_parse.API_VERSIONS, True),
    "ResourceClaimTemplate": (dra_parse.API_VERSIONS, True),
    "LimitRange": (frozenset({"v1"}), True),
    "ResourceQuota": (frozenset({"v1"}), True),
    "HorizontalPodAutoscaler": (frozenset({"autoscaling/v1", "autoscaling/v2"}), True),
    "Workload": (workload.API_VERSIONS, True),
    "PodGroup": (workload.API_VERSIONS, True),
}
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController")

# Other core/v1 kinds: valid, not read. A core/v1 kind outside both sets does not exist.
_OTHER_CORE_KINDS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Endpoints",
        "Event",
        "ServiceAccount",
        "PodTemplate",
        "ComponentStatus",
        "Binding",
    }
)
# Built-in API groups and the versions served by v1.30; a kind in one of these with another
# version is an error, any other group (custom resources) is skipped.
_BUILTIN_GROUP_VERSIONS = {
    "apps": {"v1"},
    "batch": {"v1"},
    "policy": {"v1"},
    "autoscaling": {"v1", "v2"},
    "scheduling.k8s.io": {"v1", "v1alpha1", "v1alpha2", "v1beta1"},
    "storage.k8s.io": {"v1", "v1beta1", "v1alpha1"},
    "node.k8s.io": {"v1"},
    "networking.k8s.io": {"v1", "v1alpha1", "v1beta1"},
    "rbac.authorization.k8s.io": {"v1"},
    "apiextensions.k8s.io": {"v1"},
    "admissionregistration.k8s.io": {"v1", "v1beta1", "v1alpha1"},
    "apiregistration.k8s.io": {"v1"},
    "certificates.k8s.io": {"v1", "v1alpha1"},
    "coordination.k8s.io": {"v1", "v1alpha1"},
    "discovery.k8s.io": {"v1"},
    "events.k8s.io": {"v1"},
    "flowcontrol.apiserver.k8s.io": {"v1", "v1beta3"},
    "resource.k8s.io": {"v1", "v1beta2", "v1beta1", "v1alpha3"},
    "authentication.k8s.io": {"v1", "v1beta1", "v1alpha1"},
    "authorization.k8s.io": {"v1"},
    "internal.apiserver.k8s.io": {"v1alpha1"},
    "storagemigration.k8s.io": {"v1alpha1"},
    "metrics.k8s.io": {"v1beta1"},
}


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


def classify(doc: Document) -> str | None:
    """The kind to read, None to skip (with a note); raises for what cannot exist."""
    kind, version = doc.kind, doc.api_version
    if not version:
        raise InputError("missing apiVersion", source=doc.source, obj=doc.describe(), field="apiVersion")
    spec = READ_KINDS.get(kind)
    group = version.split("/", 1)[0] if "/" in version else ""
    if spec is not None and (group == "" or group in _BUILTIN_GROUP_VERSIONS):
        if version not in spec[0]:
            raise InputError(
                f"unknown apiVersion {version!r} for {kind} (expected {', '.join(sorted(spec[0]))})",
                source=doc.source,
                obj=doc.describe(),
                field="apiVersion",
            )
        return kind
    if group == "":
        if version != "v1":
            raise InputError(
                f"unknown apiVersion {version!r}", source=doc.source, obj=doc.describe(), field="apiVersion"
            )
        if kind in _OTHER_CORE_KINDS:
            return None
        raise InputError(f"unknown kind {kind!r} in apiVersion v1", source=doc.source, obj=doc.describe(), field="kind")
    versions = _BUILTIN_GROUP_VERSIONS.get(group)
    if versions is not None and version.split("/", 1)[1] not in versions:
        raise InputError(f"unknown apiVersion {version!r}", source=doc.source, obj=doc.describe(), field="apiVersion")
    return None  # another built-in kind, or a custom resource


def apply_namespace(docs: list[Document], namespace: str) -> None:
    """`kubectl apply -n NAMESPACE`: namespaced objects that name no namespace get it; one that
    names another is an error, in kubectl's words. Cluster-scoped objects are left alone; a custom
    resource is taken as namespaced unless a CustomResourceDefinition of the manifests says it is
    cluster-scoped."""
    from kwhatif.load.files import CLUSTER_SCOPED_KINDS

    crd_scopes: dict[tuple[str, str], str] = {}
    for d in docs:
        if d.kind == "CustomResourceDefinition":
            spec = d.body.get("spec")
            if isinstance(spec, dict):
                names = spec.get("names")
                kind = names.get("kind") if isinstance(names, dict) else None
                crd_scopes[(str(spec.get("group") or ""), str(kind or ""))] = str(spec.get("scope") or "Namespaced")
    for d in docs:
        spec = READ_KINDS.get(d.kind)
        group = d.api_version.split("/", 1)[0] if "/" in d.api_version else ""
        custom = is_custom_resource(d)
        if custom:
            if crd_scopes.get((group, d.kind), "Namespaced") != "Namespaced":
                continue
        elif (spec is not None and not spec[1]) or (spec is None and d.kind in CLUSTER_SCOPED_KINDS):
            continue
        meta = d.body.get("metadata")
        if not isinstance(meta, dict):
            continue
        have = meta.get("namespace")
        if not have:
            meta["namespace"] = namespace
        elif have != namespace:
            raise InputError(
                f'the namespace from the provided object "{have}" does not match the namespace "{namespace}". '
                f"You must pass '--namespace={have}' to perform this operation.",
                source=d.source,
                obj=d.describe(),
            )


def is_custom_resource(doc: Document) -> bool:
    """The document's API group is none of the built-in ones: a custom resource."""
    version = doc.api_version
    return "/" in version and version.split("/", 1)[0] not in _BUILTIN_GROUP_VERSIONS


def _guard(doc: Document, fn: Callable[[dict[str, Any]], Any]) -> Any:
    try:
        return fn(doc.body)
    except FieldError as e:
        raise e.with_context(source=doc.source, obj=doc.describe()) from None
    except RecursionError:
        raise InputError("object nested too deeply", source=doc.source, obj=doc.describe()) from None


def _identity(doc: Document, kind: str, names: parse.NameGenerator) -> tuple[str, str, str]:
    names(doc.body)
    name = _guard(doc, parse.name_of)
    namespaced = READ_KINDS[kind][1]
    ns = _guard(doc, parse.namespace_of) if namespaced else ""
    return (kind, ns, name)


def _add_workload_object(state: ClusterState, doc: Document, kind: str) -> None:
    """A Workload or PodGroup (whether the release serves its apiVersion is checked once the
    release is known: workload.refuse_unserved)."""
    src = doc.source
    if kind == "Workload":
        wl: workload.SchedulingWorkload = _guard(doc, lambda b: workload.workload(b, src))
        state.scheduling_workloads[wl.key] = wl
    else:
        pg: workload.PodGroup = _guard(doc, lambda b: workload.pod_group(b, src))
        state.pod_groups[pg.key] = pg


_CONVERTERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Namespace": parse.namespace,
    "PriorityClass": parse.priority_class,
    "RuntimeClass": parse.runtime_class,
    "Service": parse.service,
    "PodDisruptionBudget": parse.pod_disruption_budget,
    "PersistentVolume": storage.persistent_volume,
    "PersistentVolumeClaim": storage.persistent_volume_claim,
    "StorageClass": storage.storage_class,
    "CSINode": storage.csi_node,
    "CSIDriver": storage.csi_driver,
    "VolumeAttachment": storage.volume_attachment,
    "CSIStorageCapacity": storage.csi_storage_capacity,
    "LimitRange": limitranger.limit_range,
    "ResourceQuota": resourcequota.resource_quota,
    "HorizontalPodAutoscaler": autoscaling.horizontal_pod_autoscaler,
}


def build_cluster(
    docs: Iterable[Document],
    *,
    check_node_refs: bool = True,
    version: SchedulerVersion | None = None,
    names: parse.NameGenerator | None = None,
) -> ClusterState:
    """Convert documents as they come (a large dump is never held decoded in full), then admit
    the pods once every PriorityClass and RuntimeClass is known. Pods are derived as ``version``
    (default: kwhatif's default release) derives them. ``names`` names generateName objects
    (default: a new generator; the manifests of a cluster pass the cluster's)."""
    state = ClusterState(version=version or default_version(), names=names or parse.NameGenerator())
    rules = PodRules.of(state.version)
    seen: dict[tuple[str, str, str], str] = {}
    pods: list[tuple[Pod, str]] = []  # with where it came from, for errors
    for doc in docs:
        if doc.kind == SERVER_VERSION_KIND:
            state.recorded_server_version = doc.body["gitVersion"]
            continue
        kind = classify(doc)
        if kind is None:
            state.skipped[doc.kind] += 1
            continue
        ident = _identity(doc, kind, state.names)
        prev = seen.get(ident)
        if prev is not None:
            raise InputError(f"duplicate object: also defined in {prev}", source=doc.source, obj=doc.describe())
        seen[ident] = doc.source
        src = doc.source
        if kind == "Pod":
            # _guard calls each parser at once: the loop variables are current
            pod: Pod = _guard(doc, lambda b: parse.pod(b, "default", src, validate=False, rules=rules))  # noqa: B023
            if not pod.terminal:
                pods.append((pod, doc.source))
            continue
        if kind == "Node":
            node: Node = _guard(doc, lambda b: parse.node(b, src))  # noqa: B023
            state.nodes[node.name] = node
            continue
        if kind in WORKLOAD_KINDS:
            meta = doc.body.get("metadata") or {}
            state.workloads[ident] = Workload(
                kind, ident[1], ident[2], str(meta.get("uid") or ""), doc.body, doc.source
            )
            continue
        if kind in dra_parse.KINDS:
            _add_dra_object(state, doc, kind)
            continue
        if kind in workload.KINDS:
            _add_workload_object(state, doc, kind)
            continue
        obj = _guard(doc, _CONVERTERS[kind])
        if kind == "Namespace":
            state.namespaces[obj.name] = obj
        elif kind == "PriorityClass":
            state.priority_classes[obj.name] = obj
        elif kind == "RuntimeClass":
            state.runtime_classes[obj.name] = obj
        elif kind == "Service":
            state.services.append(obj)
        elif kind == "PodDisruptionBudget":
            state.pdbs.append(obj)
        elif kind == "PersistentVolume":
            state.pvs[obj.name] = obj
        elif kind == "PersistentVolumeClaim":
            state.pvcs[obj.key] = obj
        elif kind == "StorageClass":
            state.storage_classes[obj.name] = obj
        elif kind == "CSINode":
            state.csi_nodes[obj.name] = obj
        elif kind == "CSIDriver":
            state.csi_drivers[obj.name] = obj
        elif kind == "VolumeAttachment":
            state.volume_attachments.append(obj)
        elif kind == "CSIStorageCapacity":
            state.csi_capacities.append(obj)
        elif kind == "LimitRange":
            state.limit_ranges[f"{obj.namespace}/{obj.name}"] = obj
        elif kind == "ResourceQuota":
            state.resource_quotas[f"{obj.namespace}/{obj.name}"] = obj
        elif kind == "HorizontalPodAutoscaler":
            state.hpas[obj.key] = obj
    state.nodes = dict(sorted(state.nodes.items()))
    admission = state.admission
    nodes = state.nodes
    for pod, where in pods:
        pod = admission.admit(pod, strict=False)
        if pod.node_name:
            if pod.node_name not in nodes:
                if check_node_refs:
                    raise InputError(
                        f'node "{pod.node_name}" is not in the cluster dump',
                        source=where,
                        obj=f"Pod {pod.key}",
                        field="spec.nodeName",
                    )
                # A live cluster can list a pod whose node was just deleted: the scheduler's
                # cache keeps it off every node it sees.
                state.orphaned_pods += 1
                continue
            state.pods.append(pod)
        else:
            state.pending_pods.append(pod)
    return state


def _add_dra_object(state: ClusterState, doc: Document, kind: str) -> None:
    version, src = doc.api_version, doc.source
    if kind == "DeviceClass":
        dc: DeviceClass = _guard(doc, lambda b: dra_parse.device_class(b, version, src))
        state.device_classes[dc.name] = dc
    elif kind == "ResourceSlice":
        state.resource_slices.append(_guard(doc, lambda b: dra_parse.resource_slice(b, version, src)))
    elif kind == "ResourceClaim":
        rc: ResourceClaim = _guard(doc, lambda b: dra_parse.resource_claim(b, version, "default", src))
        state.resource_claims[rc.key] = rc
    else:
        tpl: ResourceClaimTemplate = _guard(
            doc, lambda b: dra_parse.resource_claim_template(b, version, "default", src)
        )
        state.resource_claim_templates[tpl.key] = tpl


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Decoding a dump allocates millions of containers and no cycles; the cyclic collector would
    rescan them over and over (it triples the load time). Pause it while decoding (the command then
    freezes what was built: cli.long_lived)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_cluster(paths: list[str], limits: Any = None, stdin: Any = None) -> ClusterState:
    from kwhatif.load.files import Limits, read_path

    lim = limits or Limits()

    def docs() -> Iterable[Document]:
        for p in paths:
            yield from read_path(p, lim, stdin)

    with no_gc():
        # A dump can hold a pod bound to a node it does not hold (the node was deleted while the
        # dump was taken, or the file was edited): it is left out, as a live read leaves it out.
        state = build_cluster(docs(), check_node_refs=False)
    if not state.nodes:
        where = ", ".join(paths)
        raise InputError("the cluster has no nodes (expected Node objects)", source=where)
    return state
