"""Turn Documents into a ClusterState: typed objects, validated, admitted, de-duplicated."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from kwhatif.api import autoscaling, parse, storage, workload
from kwhatif.api.core import (
    Node,
    Pod,
)
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.controlplane.admission import limitranger, resourcequota
from kwhatif.dra import parse as dra_parse
from kwhatif.errors import FieldError, InputError
from kwhatif.load import typed
from kwhatif.load.depth import depth_problem
from kwhatif.load.files import SERVER_VERSION_KIND, Document
from kwhatif.load.typed import TypedRun
from kwhatif.release.versions import SchedulerVersion, default_version

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


class _Reader(NamedTuple):
    """How build_cluster reads one kind of READ_KINDS besides Pods, Nodes and workloads: the
    parser (body, apiVersion, source) and where the object goes in the ClusterState."""

    parse: Callable[[dict[str, Any], str, str], Any]
    store: Callable[[ClusterState, Any], None]


def _body(fn: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any], str, str], Any]:
    """A parser of the body alone (one apiVersion, no source kept)."""
    return lambda body, _version, _source: fn(body)


def _by_name(attr: str) -> Callable[[ClusterState, Any], None]:
    def store(state: ClusterState, obj: Any) -> None:
        getattr(state, attr)[obj.name] = obj

    return store


def _by_key(attr: str) -> Callable[[ClusterState, Any], None]:
    def store(state: ClusterState, obj: Any) -> None:
        getattr(state, attr)[obj.key] = obj

    return store


def _by_namespaced_name(attr: str) -> Callable[[ClusterState, Any], None]:
    def store(state: ClusterState, obj: Any) -> None:
        getattr(state, attr)[f"{obj.namespace}/{obj.name}"] = obj

    return store


def _listed(attr: str) -> Callable[[ClusterState, Any], None]:
    def store(state: ClusterState, obj: Any) -> None:
        getattr(state, attr).append(obj)

    return store


_OBJECTS: dict[str, _Reader] = {
    "Namespace": _Reader(_body(parse.namespace), _by_name("namespaces")),
    "PriorityClass": _Reader(_body(parse.priority_class), _by_name("priority_classes")),
    "RuntimeClass": _Reader(_body(parse.runtime_class), _by_name("runtime_classes")),
    "Service": _Reader(_body(parse.service), _listed("services")),
    "PodDisruptionBudget": _Reader(_body(parse.pod_disruption_budget), _listed("pdbs")),
    "PersistentVolume": _Reader(_body(storage.persistent_volume), _by_name("pvs")),
    "PersistentVolumeClaim": _Reader(_body(storage.persistent_volume_claim), _by_key("pvcs")),
    "StorageClass": _Reader(_body(storage.storage_class), _by_name("storage_classes")),
    "CSINode": _Reader(_body(storage.csi_node), _by_name("csi_nodes")),
    "CSIDriver": _Reader(_body(storage.csi_driver), _by_name("csi_drivers")),
    "VolumeAttachment": _Reader(_body(storage.volume_attachment), _listed("volume_attachments")),
    "CSIStorageCapacity": _Reader(_body(storage.csi_storage_capacity), _listed("csi_capacities")),
    "LimitRange": _Reader(_body(limitranger.limit_range), _by_namespaced_name("limit_ranges")),
    "ResourceQuota": _Reader(_body(resourcequota.resource_quota), _by_namespaced_name("resource_quotas")),
    "HorizontalPodAutoscaler": _Reader(_body(autoscaling.horizontal_pod_autoscaler), _by_key("hpas")),
    "DeviceClass": _Reader(dra_parse.device_class, _by_name("device_classes")),
    "ResourceSlice": _Reader(dra_parse.resource_slice, _listed("resource_slices")),
    "ResourceClaim": _Reader(
        lambda body, version, source: dra_parse.resource_claim(body, version, "default", source),
        _by_key("resource_claims"),
    ),
    "ResourceClaimTemplate": _Reader(
        lambda body, version, source: dra_parse.resource_claim_template(body, version, "default", source),
        _by_key("resource_claim_templates"),
    ),
    # scheduling.k8s.io (gang scheduling): whether the release serves the apiVersion is checked
    # once the release is known (workload.refuse_unserved)
    "Workload": _Reader(
        lambda body, _version, source: workload.workload(body, source), _by_key("scheduling_workloads")
    ),
    "PodGroup": _Reader(lambda body, _version, source: workload.pod_group(body, source), _by_key("pod_groups")),
}

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
    "scheduling.k8s.io": {"v1", "v1alpha1", "v1alpha2", "v1alpha3", "v1beta1"},
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


class UnservedVersion(InputError):
    """A built-in group/version the API server does not serve (kubectl: "no matches for kind")."""


def classify(doc: Document) -> str | None:
    """The kind to read, None to skip (with a note); raises for what cannot exist."""
    kind, version = doc.kind, doc.api_version
    if not version:
        raise InputError("missing apiVersion", source=doc.source, obj=doc.describe(), field="apiVersion")
    spec = READ_KINDS.get(kind)
    group = version.split("/", 1)[0] if "/" in version else ""
    if spec is not None and (group == "" or group in _BUILTIN_GROUP_VERSIONS):
        if version not in spec[0]:
            raise (UnservedVersion if "/" in version else InputError)(
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
        raise UnservedVersion(
            f"unknown apiVersion {version!r}", source=doc.source, obj=doc.describe(), field="apiVersion"
        )
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

    def add(doc: Document) -> None:
        if doc.kind == SERVER_VERSION_KIND:
            state.recorded_server_version = doc.body["gitVersion"]
            return
        kind = classify(doc)
        if kind is None:
            state.skipped[doc.kind] += 1
            return
        ident = _identity(doc, kind, state.names)
        prev = seen.get(ident)
        if prev is not None:
            raise InputError(f"duplicate object: also defined in {prev}", source=doc.source, obj=doc.describe())
        seen[ident] = doc.source
        src = doc.source
        if kind == "Pod":
            pod: Pod = _guard(doc, lambda b: parse.pod(b, "default", src, validate=False, rules=rules))
            if not pod.terminal:
                pods.append((pod, doc.source))
            return
        if kind == "Node":
            node: Node = _guard(doc, lambda b: parse.node(b, src))
            state.nodes[node.name] = node
            return
        if kind in WORKLOAD_KINDS:
            # its template is copied, hashed and encoded, which recurse: bounded first
            problem = depth_problem(doc.body)
            if problem is not None:
                raise InputError(problem, source=doc.source, obj=doc.describe())
            meta = doc.body.get("metadata") or {}
            state.workloads[ident] = Workload(
                kind, ident[1], ident[2], str(meta.get("uid") or ""), doc.body, doc.source
            )
            return
        reader = _OBJECTS[kind]
        api_version = doc.api_version
        reader.store(state, _guard(doc, lambda b: reader.parse(b, api_version, src)))

    for doc in docs:
        if type(doc) is TypedRun:
            # pods decoded into typed.py's schema and built as parse.pod builds them, under the
            # same rules (equal ones are the run's from then on); one the fast conversion handed
            # back is read from its dict, as any other document
            same = doc.rules is rules or doc.rules == rules
            if same:
                rules = doc.rules
            sources = doc.sources
            for k, built in enumerate(doc.pods):
                if built is not None and same:
                    ident = ("Pod", built.namespace, built.name)
                    if ident not in seen:
                        seen[ident] = sources[k]
                        if not built.terminal:
                            pods.append((built, sources[k]))
                        continue
                add(doc.document(k))
            continue
        add(doc)
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


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Decoding a dump allocates millions of containers and no cycles; the cyclic collector would
    rescan them over and over (it triples the load time). Pause it while decoding (the command then
    freezes what was built: cli.long_lived), and while a report is built and written (two thirds
    of building the JSON report of a pod explained over 1,000 nodes)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_cluster(
    paths: list[str], limits: Any = None, stdin: Any = None, long_lived: Callable[[], None] | None = None
) -> ClusterState:
    """The cluster of these files. ``long_lived`` (the command's gc.freeze) is called once it is
    built, before the cyclic collector, paused while it was built, runs again: the collector's
    first pass would otherwise go over everything built, as young objects (a tenth of a load)."""
    from kwhatif.load.files import Limits, read_path

    lim = limits or Limits()
    # the pods of a JSON List are decoded and built as build_cluster builds them: under the rules
    # of the release it loads the cluster as (its default)
    pod_runs = typed.PodRuns(PodRules.of(default_version()))

    def docs() -> Iterable[Document]:
        for p in paths:
            yield from read_path(p, lim, stdin, pod_runs)

    with no_gc():
        # A dump can hold a pod bound to a node it does not hold (the node was deleted while the
        # dump was taken, or the file was edited): it is left out, as a live read leaves it out.
        state = build_cluster(docs(), check_node_refs=False)
        if long_lived is not None:
            long_lived()
    if not state.nodes:
        where = ", ".join(paths)
        raise InputError("the cluster has no nodes (expected Node objects)", source=where)
    return state
