"""Turn Documents into a ClusterState: typed objects, validated, admitted, de-duplicated."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import (
    Node,
    Pod,
)
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import AUTOSCALER_CONFIG_MAPS, ClusterState, Workload
from kwhatif.cache.kinds import BY_KIND, KINDS, WORKLOAD_KINDS
from kwhatif.errors import FieldError, InputError
from kwhatif.load import typed
from kwhatif.load.depth import depth_problem
from kwhatif.load.files import SERVER_VERSION_KIND, Document
from kwhatif.load.typed import TypedRun
from kwhatif.release.versions import SchedulerVersion, default_version

# Kinds kwhatif reads, with the apiVersions it accepts for each and whether they are namespaced
# (from the one table of kinds, cache/kinds.py).
READ_KINDS: dict[str, tuple[frozenset[str], bool]] = {k.kind: (k.versions, k.namespaced) for k in KINDS}


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
    # served by none of the releases kwhatif answers as: its Deployments, DaemonSets and
    # ReplicaSets left with 1.16, NetworkPolicy and PodSecurityPolicy with 1.16 and 1.21, Ingress
    # with 1.22 (pkg/controlplane/apiserver: no storage for the group since then)
    "extensions": set(),
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


def _keep_config_map(state: ClusterState, doc: Document) -> bool:
    """Keep the data of a ConfigMap `kwhatif autoscale` reads (AUTOSCALER_CONFIG_MAPS)."""
    meta = doc.body.get("metadata")
    if not isinstance(meta, dict):
        return False
    key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
    if key not in AUTOSCALER_CONFIG_MAPS:
        return False
    data = doc.body.get("data")
    if not isinstance(data, dict):
        data = {}
    state.config_maps[key] = {str(k): str(v) for k, v in data.items() if isinstance(v, str)}
    return True


def _do_not_disrupt(body: dict[str, Any]) -> bool:
    meta = body.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return False
    ann = meta.get("annotations")
    return isinstance(ann, dict) and ann.get("karpenter.sh/do-not-disrupt") == "true"


class _Seen:
    """Where each object of a load was read, by kind, namespace and name. A dump's 100,000s of
    pods cost no key of their own: pods are found by name, each name's entry the Pod read first
    (which names its namespace and source), or its namespace and source, or, for a name read in
    several namespaces, those by namespace. A (kind, namespace, name) key per pod was a tenth of
    the load's peak memory."""

    __slots__ = ("pods", "others")

    def __init__(self) -> None:
        self.pods: dict[str, Pod | tuple[str, str] | dict[str, str]] = {}
        self.others: dict[tuple[str, str, str], str] = {}

    def first(self, ident: tuple[str, str, str], source: str) -> str | None:
        """Where the object ``ident`` (kind, namespace, name) was read before; None: it was not,
        and it is now, from ``source``."""
        kind, ns, name = ident
        if kind != "Pod":
            prev = self.others.get(ident)
            if prev is None:
                self.others[ident] = source
            return prev
        entry = self.pods.get(name)
        if entry is None:
            self.pods[name] = (ns, source)
            return None
        if type(entry) is dict:
            prev = entry.get(ns)
            if prev is None:
                entry[ns] = source
            return prev
        other_ns, other_source = (entry.namespace, entry.source) if isinstance(entry, Pod) else entry
        if other_ns == ns:
            return other_source
        self.pods[name] = {other_ns: other_source, ns: source}
        return None

    def clear(self) -> None:
        self.pods.clear()
        self.others.clear()


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
    seen = _Seen()
    pods: list[Pod] = []  # each names where it came from (Pod.source), for errors

    def add(doc: Document) -> None:
        if doc.api_version.startswith("karpenter.sh/"):
            state.karpenter_objects.append((doc.source, doc.body))  # read by `autoscale`
            return
        if doc.kind == "Node" and _do_not_disrupt(doc.body):
            # the node's karpenter.sh/do-not-disrupt annotation, for `autoscale --consolidation`
            state.karpenter_objects.append(
                (doc.source, {"kind": "NodeDoNotDisrupt", "name": doc.body["metadata"]["name"]})
            )
        if doc.kind == SERVER_VERSION_KIND:
            state.recorded_server_version = doc.body["gitVersion"]
            return
        kind = classify(doc)
        if kind is None:
            if doc.kind == "ConfigMap" and _keep_config_map(state, doc):
                return
            state.skipped[doc.kind] += 1
            return
        ident = _identity(doc, kind, state.names)
        prev = seen.first(ident, doc.source)
        if prev is not None:
            raise InputError(f"duplicate object: also defined in {prev}", source=doc.source, obj=doc.describe())
        src = doc.source
        if kind == "Pod":
            pod: Pod = _guard(doc, lambda b: parse.pod(b, "default", src, validate=False, rules=rules))
            if not pod.terminal:
                pods.append(pod)
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
        row = BY_KIND[kind]
        parser = row.parse
        assert parser is not None  # every kind the loader does not keep itself has its parser
        api_version = doc.api_version
        state.add(row, _guard(doc, lambda b: parser(b, api_version, src)))

    for doc in docs:
        if type(doc) is TypedRun:
            # pods decoded into typed.py's schema and built as parse.pod builds them, under the
            # same rules (equal ones are the run's from then on); one the fast conversion handed
            # back is read from its dict, as any other document
            same = doc.rules is rules or doc.rules == rules
            if same:
                rules = doc.rules
            pods_seen = seen.pods
            for k, built in enumerate(doc.pods):
                if built is not None and same:
                    if built.name not in pods_seen:  # (else: seen.first tells which)
                        pods_seen[built.name] = built  # its namespace and source (doc.sources[k])
                        if not built.terminal:
                            pods.append(built)
                        continue
                    if seen.first(("Pod", built.namespace, built.name), built.source) is None:
                        if not built.terminal:
                            pods.append(built)
                        continue
                add(doc.document(k))
            continue
        add(doc)
    state.nodes = dict(sorted(state.nodes.items()))
    admission = state.admission
    nodes = state.nodes
    seen.clear()
    # taken off the list as they are admitted: a pod admission changes is not held twice
    pods.reverse()
    while pods:
        pod = pods.pop()
        where = pod.source
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
                state.orphaned_pod_uids.add(pod.uid or f"kwhatif-{pod.namespace}-{pod.name}")
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
    paths: list[str],
    limits: Any = None,
    stdin: Any = None,
    long_lived: Callable[[], None] | None = None,
    *,
    allow_no_nodes: bool = False,
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
    if not state.nodes and not allow_no_nodes:  # (autoscale: node groups scaled to zero)
        where = ", ".join(paths)
        raise InputError("the cluster has no nodes (expected Node objects)", source=where)
    return state
