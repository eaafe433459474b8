"""`kwhatif schedule`: which pods it places and how. Manifests (with the ResourceClaims and
ResourceClaimTemplates that come with them), pods of the cluster named on the command line
(``pod/NAME``, ``NAMESPACE/NAME``) and the cluster's pending pods (``--pending``), narrowed by
``-n`` and ``-l`` as kubectl narrows them, then scheduled one after another.

A pod that exists in the cluster is always the cluster's pod (its uid, status and spec are what a
binding binds); a manifest of it only names it, and a note says where the two differ.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Pod
from kwhatif.api.labels import Selector
from kwhatif.api.names import is_dns1123_label, is_dns1123_subdomain
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.types import SchedulerConfiguration
from kwhatif.controlplane.admission.chain import AdmissionChain, Refused
from kwhatif.errors import InputError
from kwhatif.load.files import Document
from kwhatif.scheduling.scheduler import Attempt, Scheduler

POD_RESOURCE = re.compile(r"^(?:pod|pods|po)/(?P<name>[^/]+)$")
NAMESPACED = re.compile(r"^(?P<ns>[^/]+)/(?P<name>[^/]+)$")
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
# Added by admission to every pod of a real cluster; a manifest rarely says them.
DEFAULT_TOLERATION_KEYS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")
SERVICE_ACCOUNT_VOLUME = "kube-api-access-"


@dataclass(frozen=True, slots=True)
class PodName:
    """A pod of the cluster named on the command line."""

    arg: str
    name: str
    namespace: str | None = None  # None: the -n/context namespace


def pod_name(arg: str) -> PodName | None:
    """``pod/NAME`` (also ``pods/``, ``po/``) or ``NAMESPACE/NAME``; None for anything else:
    an existing path (a file or directory of that name wins) or a manifest's file name."""
    if arg == "-" or os.path.exists(arg) or arg.lower().endswith(MANIFEST_SUFFIXES):
        return None  # a missing manifest is reported as a missing file
    m = POD_RESOURCE.match(arg)
    if m and not is_dns1123_subdomain(m.group("name")):
        return PodName(arg, m.group("name"))
    m = NAMESPACED.match(arg)
    if m and not is_dns1123_label(m.group("ns")) and not is_dns1123_subdomain(m.group("name")):
        return PodName(arg, m.group("name"), m.group("ns"))
    return None


def split_arguments(args: Iterable[str]) -> tuple[list[str], list[PodName]]:
    paths: list[str] = []
    names: list[PodName] = []
    for a in args:
        n = pod_name(a)
        if n is None:
            paths.append(a)
        else:
            names.append(n)
    return paths, names


@dataclass(slots=True)
class Selection:
    pods: list[Pod] = field(default_factory=list)
    existing: dict[str, str] = field(default_factory=dict)  # key -> uid, pods that are in the cluster
    notes: list[str] = field(default_factory=list)  # about the selection, for stderr
    pod_notes: dict[str, list[str]] = field(default_factory=dict)  # key -> notes for its result
    moved: dict[str, str] = field(default_factory=dict)  # key -> node, bound pods scheduled anew


def select_pods(
    state: ClusterState,
    manifest_pods: list[Pod],
    names: list[PodName],
    *,
    namespace: str,
    pending: bool = False,
    all_namespaces: bool = True,
    selector: Selector | None = None,
    scheduler_names: frozenset[str] | None = None,
    ignore_node_name: bool = False,
) -> Selection:
    """The pods to place, each once, in the order given (the scheduler's queue orders them).

    ``namespace`` is where ``pod/NAME`` is looked up; ``all_namespaces`` False narrows
    --pending to it. ``selector`` narrows --pending and the manifests. ``scheduler_names``
    picks the pending pods by spec.schedulerName. The chosen pods of the cluster leave its
    pending list (they are the ones being placed). With ``ignore_node_name``, a bound pod named
    (or given as a manifest) is taken off its node and scheduled anew; ``moved`` lists them."""
    bound = {p.key: p for p in state.pods}
    waiting = {p.key: p for p in state.pending_pods}
    sel = Selection()
    chosen: dict[str, Pod] = {}

    def take(pod: Pod) -> None:
        if pod.key not in chosen:
            chosen[pod.key] = pod
            if pod.key in waiting:
                sel.existing[pod.key] = pod.uid

    def unbind(pod: Pod) -> Pod:
        """--ignore-node-name: the bound pod leaves its node, to be scheduled anew."""
        if pod.key not in sel.moved:
            sel.moved[pod.key] = pod.node_name
            sel.pod_notes.setdefault(pod.key, []).append(
                f"--ignore-node-name: taken off node {pod.node_name}, where it is bound, and scheduled anew"
            )
        return dataclasses.replace(pod, node_name="", nominated_node_name="", phase="Pending")

    for n in names:
        ns = n.namespace or namespace
        key = f"{ns}/{n.name}"
        live = waiting.get(key)
        if live is None and ignore_node_name and key in bound:
            live = unbind(bound[key])
        if live is None:
            if key in bound:
                raise InputError(
                    f"pod {key} is already bound to node {bound[key].node_name}; kwhatif schedules pods that wait for a node",
                    source=n.arg,
                )
            raise InputError(f'pods "{n.name}" not found in namespace "{ns}"', source=n.arg)
        if live.deleting:
            raise InputError(f"pod {key} is being deleted", source=n.arg)
        take(live)

    for pod in manifest_pods:
        if selector is not None and not selector.matches(pod.labels):
            continue
        if pod.key in bound and not ignore_node_name:
            raise InputError(
                f"a pod of this name already runs on node {bound[pod.key].node_name} in the cluster",
                source=pod.source or None,
                obj=f"Pod {pod.key}",
            )
        live = unbind(bound[pod.key]) if pod.key in bound else waiting.get(pod.key)
        if live is None:
            if pod.key not in chosen:
                chosen[pod.key] = (
                    pod if pod.uid else dataclasses.replace(pod, uid=f"kwhatif-{pod.namespace}-{pod.name}")
                )
            continue
        diff = spec_differences(pod, live)
        if diff:
            sel.pod_notes.setdefault(pod.key, []).append(
                f"the manifest ({pod.source}) differs from the pod in the cluster in {', '.join(diff)}; "
                "the cluster's pod is scheduled"
            )
        take(live)

    if pending:
        others: dict[str, int] = {}
        deleting = 0
        for pod in state.pending_pods:
            if not all_namespaces and pod.namespace != namespace:
                continue
            if selector is not None and not selector.matches(pod.labels):
                continue
            if pod.phase not in ("Pending", ""):
                continue
            if scheduler_names is not None and pod.scheduler_name not in scheduler_names:
                others[pod.scheduler_name] = others.get(pod.scheduler_name, 0) + 1
                continue
            if pod.deleting:
                deleting += 1
                continue
            take(pod)
        if others:
            which = ", ".join(f"{n} {name}" for name, n in sorted(others.items()))
            sel.notes.append(
                f"pending pods of other schedulers are left to them ({which}); --scheduler-name NAME takes them"
            )
        if deleting:
            sel.notes.append(f"{deleting} pending pod(s) being deleted are left out, as kube-scheduler leaves them")

    sel.pods = list(chosen.values())
    taken = set(sel.existing)
    if taken:
        state.pending_pods = [p for p in state.pending_pods if p.key not in taken]
    if sel.moved:
        state.pods = [p for p in state.pods if p.key not in sel.moved]
    return sel


def spec_differences(manifest: Pod, live: Pod) -> list[str]:
    """Where a manifest and the cluster's pod differ in what scheduling reads. What admission
    adds to every pod of a cluster (DefaultTolerationSeconds' tolerations, the service account
    volume) does not count."""
    out = []

    def tolerations(p: Pod, other: Pod) -> tuple[Any, ...]:
        mine = {t.key for t in other.tolerations}
        return tuple(
            t
            for t in p.tolerations
            if not (t.key in DEFAULT_TOLERATION_KEYS and t.key not in mine and t.effect == "NoExecute")
        )

    def volumes(p: Pod, other: Pod) -> tuple[Any, ...]:
        mine = {v.name for v in other.volumes}
        return tuple(
            (v.name, v.kind, v.claim_name)
            for v in p.volumes
            if not (v.name.startswith(SERVICE_ACCOUNT_VOLUME) and v.kind == "projected" and v.name not in mine)
        )

    def images(p: Pod) -> tuple[str, ...]:
        return tuple(c.image for c in (*p.init_containers, *p.containers))

    checks: list[tuple[str, Any, Any]] = [
        ("metadata.labels", dict(manifest.labels), dict(live.labels)),
        ("resource requests", dict(manifest.request_list), dict(live.request_list)),
        ("container images", images(manifest), images(live)),
        ("spec.nodeSelector", dict(manifest.node_selector), dict(live.node_selector)),
        ("spec.affinity", manifest.affinity, live.affinity),
        ("spec.tolerations", tolerations(manifest, live), tolerations(live, manifest)),
        ("spec.topologySpreadConstraints", manifest.topology_spread_constraints, live.topology_spread_constraints),
        ("spec.volumes", volumes(manifest, live), volumes(live, manifest)),
        ("spec.schedulingGates", manifest.scheduling_gates, live.scheduling_gates),
        ("spec.priority", manifest.priority, live.priority),
        ("spec.runtimeClassName", manifest.runtime_class_name, live.runtime_class_name),
        ("spec.hostNetwork", manifest.host_network, live.host_network),
        ("spec.schedulerName", manifest.scheduler_name, live.scheduler_name),
        ("host ports", manifest.host_ports(), live.host_ports()),
    ]
    for path, a, b in checks:
        if a != b:
            out.append(path)
    return out


def unbound_claims(state: ClusterState) -> Callable[[Pod], list[str]]:
    """For --apply: the claims of a pod that are not bound yet. kube-scheduler's VolumeBinding
    binds or provisions them in PreBind before the pod is bound; --apply does not, so such a pod
    is not bound (it would wait for its volumes)."""

    def check(pod: Pod) -> list[str]:
        out = []
        for v in pod.volumes:
            claim = (
                v.claim_name
                if v.kind == "persistentVolumeClaim"
                else (f"{pod.name}-{v.name}" if v.ephemeral_claim else "")
            )
            if not claim:
                continue
            pvc = state.pvcs.get(f"{pod.namespace}/{claim}")
            if pvc is not None and not pvc.volume_name:
                out.append(claim)
        return out

    return check


# --- the engine ------------------------------------------------------------------------------------


# the start of the error for a manifest that holds workloads, not Pods
NOT_PODS = "kwhatif schedule takes Pods"


def manifest_pods(
    state: ClusterState,
    docs: list[Document],
    *,
    namespace: str,
    enforce_namespace: bool,
    note: Callable[[str], None],
) -> tuple[list[Pod], dict[str, dict[str, Any]]]:
    """The Pods of the manifests, admitted, and each one's document by "namespace/name" (for
    --apply). Pods without a namespace go to ``namespace``; with ``enforce_namespace`` (-n) an
    object of another one is an error. The Namespaces, PriorityClasses, LimitRanges,
    ResourceQuotas, ResourceClaims and ResourceClaimTemplates that come with the pods join the
    cluster first, as `kubectl apply -f` creates them (controlplane/controllers/apply.py); any other object is
    an error (`kwhatif check` takes those). A pod the API server refuses (its namespace, its
    PriorityClass, a LimitRange or a ResourceQuota) is an error."""
    from itertools import chain as chain_pods

    from kwhatif.cache.kinds import WORKLOAD_KINDS
    from kwhatif.controlplane.admission.resourcequota import QuotaLedger
    from kwhatif.controlplane.controllers.pods import pods_from_documents, unverified_namespaces_note
    from kwhatif.load.cluster import apply_namespace, classify
    from kwhatif.load.files import CLUSTER_SCOPED_KINDS

    companions = [d for d in docs if d.kind in COMPANION_KINDS]
    # whether the cluster state lists its Namespaces, before the manifests' own join it
    listed = bool(state.namespaces)
    if companions:
        from kwhatif.controlplane.controllers.apply import merge_objects

        namespaced = [d for d in companions if d.kind not in CLUSTER_SCOPED_KINDS]
        if enforce_namespace:
            apply_namespace(namespaced, namespace)  # kubectl -n: another namespace is an error
        for d in namespaced:
            meta = d.body.get("metadata")
            if isinstance(meta, dict) and not meta.get("namespace"):
                meta["namespace"] = namespace
        merged: list[str] = []
        new_claims = merge_objects(state, companions, merged)
        for line in merged:
            note(line)
        docs = [d for d in docs if d.kind not in COMPANION_KINDS]
    else:
        new_claims = []
    chain = AdmissionChain(
        state,
        refuse_unlimited=False,
        namespaces_listed=listed,
        quota=QuotaLedger.of(state.resource_quotas.values(), chain_pods(state.pods, state.pending_pods))
        if state.resource_quotas
        else None,
    )
    _strict_fields(state, docs, note)
    manifests: dict[str, dict[str, Any]] = {}
    pods, rest = pods_from_documents(
        docs, state, manifests=manifests, namespace=namespace, enforce_namespace=enforce_namespace, chain=chain
    )
    for pod in pods:
        # ResourceQuota, the last admission plugin, charges the pods one after another
        outcome = chain.resource_quota(pod)
        if isinstance(outcome, Refused):
            raise InputError(outcome.message, source=pod.source or None, obj=f"Pod {pod.key}")
    from kwhatif.controlplane.controllers.pv_controller import ephemeral_claims, sync_claims

    # as in `kwhatif check`: the ephemeral volume controller creates each generic ephemeral
    # volume's claim, then the PV controller binds or provisions the Immediate ones
    new_claims += ephemeral_claims(chain, state, pods)
    for synced in sync_claims(state, new_claims):
        note(f"PersistentVolumeClaim {synced.claim}: {synced.note}")
    unverified = unverified_namespaces_note(chain, {p.namespace for p in pods})
    if unverified:
        note(unverified)
    if rest:
        # name the workload the user meant to check, not the ConfigMap before it
        doc = next((d for d in rest if classify(d) in WORKLOAD_KINDS), rest[0])
        raise InputError(
            f"{NOT_PODS}; use `kwhatif check` for {doc.kind} objects",
            source=doc.source,
            obj=doc.describe(),
        )
    return pods, manifests


def _strict_fields(state: ClusterState, docs: list[Document], note: Callable[[str], None]) -> None:
    """kubectl apply's strict field validation of the manifests' Pods (api/strict.py): a field the
    API server's schema does not know is an error, as the API server answers it."""
    from kwhatif.api import strict
    from kwhatif.release.schema import newer_than_schema

    for d in docs:
        cls = strict.model_of(d.api_version, d.kind) if d.kind == "Pod" else None
        unknown = strict.unknown_fields(d.body, cls) if cls is not None else []
        if not unknown:
            continue
        message = strict.strict_decoding_error(d.api_version, d.kind, unknown)
        known = strict.client_release()
        if newer_than_schema(state.version, known):
            note(f"{d.describe()}: {message} in the API schema of 1.{known} kwhatif reads; scheduled without them")
            continue
        raise InputError(message, source=d.source, obj=d.describe())


# The objects `kwhatif schedule` creates with the pods of its manifests, before them
COMPANION_KINDS = frozenset(
    {
        "Namespace",
        "PriorityClass",
        "LimitRange",
        "ResourceQuota",
        "ResourceClaim",
        "ResourceClaimTemplate",
        # what the pods run with and mount, as `kwhatif check` creates them
        "RuntimeClass",
        "StorageClass",
        "CSIDriver",
        "PersistentVolume",
        "PersistentVolumeClaim",
    }
)


@dataclass(slots=True)
class Plan:
    """The pods to place, in order, and what the report says about them."""

    selection: Selection
    pods: list[Pod]
    profile: str  # the profile the report names
    notes: list[str] = field(default_factory=list)  # for the report


def plan(
    state: ClusterState,
    cfg: SchedulerConfiguration,
    manifest_pods: list[Pod],
    names: list[PodName],
    *,
    namespace: str,
    profile: str | None = None,
    scheduler_name: str | None = None,
    pending: bool = False,
    all_namespaces: bool = True,
    selector: Selector | None = None,
    ignore_node_name: bool = False,
) -> Plan:
    """Select the pods (see select_pods): --pending takes the pending pods of --scheduler-name, else
    of --profile, else of any profile; every pod is scheduled with --profile when given (or with the
    first profile when no profile is named --scheduler-name)."""
    notes: list[str] = []
    if scheduler_name:
        wanted = frozenset({scheduler_name})
        if profile is None and cfg.profile(scheduler_name) is None:
            profile = cfg.profiles[0].scheduler_name
            notes.append(f"no profile is named {scheduler_name}: its pods are scheduled with profile {profile}")
    elif profile:
        wanted = frozenset({profile})
    else:
        wanted = frozenset(p.scheduler_name for p in cfg.profiles)
    sel = select_pods(
        state,
        manifest_pods,
        names,
        namespace=namespace,
        pending=pending,
        all_namespaces=all_namespaces,
        selector=selector,
        scheduler_names=wanted,
        ignore_node_name=ignore_node_name,
    )
    pods = sel.pods
    if profile:
        pods = [dataclasses.replace(p, scheduler_name=profile) for p in pods]
    else:
        profile = pods[0].scheduler_name if pods else cfg.profiles[0].scheduler_name
    return Plan(sel, pods, profile, notes)


def schedule(sched: Scheduler, plan: Plan) -> list[Attempt]:
    """Schedule the plan's pods one after another; each result starts with its selection notes."""
    from kwhatif.whatif import kubelet

    # a pod bound by spec.nodeName goes to its node's kubelet, never to the scheduler
    attempts = kubelet.run(sched, plan.pods, skip_unchanged=True)
    for att in attempts:
        extra = plan.selection.pod_notes.get(att.pod.key)
        if extra:
            att.notes[:0] = extra
    return attempts
