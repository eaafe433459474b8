"""Controller objects as the pods their controllers would create, for `kwhatif check`.

Each kind follows its upstream controller (pkg/controller/...): the pod comes from the template the
way controller.GetPodFromTemplate builds it (labels, annotations, a generated name, a controller
owner reference), after the API server's defaulting and validation of the controller object, and is
admitted like any new pod (priority, preemption policy, RuntimeClass overhead).

Only what a fresh controller would do is modelled: no status is read (a Job starts from zero
completions, a Deployment rolls out its current template). Names, uids, hashes and creation times
are deterministic stand-ins for what the API server and controllers generate at random.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api import parse, storage
from kwhatif.api.core import (
    Affinity,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    TaintEffect,
    Volume,
)
from kwhatif.api.fields import Dict
from kwhatif.api.labels import NOTHING, Op, Requirement, Selector, selector_from_set
from kwhatif.api.storage import PersistentVolumeClaim
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.controlplane.admission import chain as admission_chain
from kwhatif.errors import FieldError, InputError
from kwhatif.gocompat import fnv32a

# Labels and annotations the controllers and the API server set (k8s.io/api apps/v1, batch/v1,
# storage/v1 well-known names).
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"
DAEMONSET_TEMPLATE_GENERATION_LABEL = "pod-template-generation"
DAEMONSET_TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL = "job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
JOB_COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"

# Validation details of the controller objects (pkg/apis/apps/validation, pkg/apis/batch/validation,
# pkg/apis/core/validation).
ERR_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
ERR_SELECTOR_NOT_GENERATED = "`selector` not auto-generated"
ERR_NEGATIVE = "must be greater than or equal to 0"
# ReplicaSet validation reuses the Deployment wording upstream.
_EMPTY_SELECTOR_WORD = {
    "Deployment": "deployment",
    "ReplicaSet": "deployment",
    "StatefulSet": "statefulset",
    "DaemonSet": "daemonset",
}

# util.AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util): every daemon pod tolerates
# these, so node problems neither block nor evict it.
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
DAEMON_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")
_DAEMON_TAINT_EFFECTS = frozenset({TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value})

# The pods a what-if creates are created after every pod of the snapshot (so they queue behind
# pending pods of the same priority, as they would enter the queue later). Workload k's pods start a
# day after workload k-1's, one millisecond apart: queue order is input order, then creation order.
CREATION_TIME = datetime(2100, 1, 1, tzinfo=UTC)
_WORKLOAD_SPACING = timedelta(days=1)
_POD_SPACING = timedelta(milliseconds=1)

# names.SimpleNameGenerator: generateName is cut to 58 characters, then 5 random characters of
# utilrand's alphabet are appended. k8s.io/apimachinery/pkg/util/rand also encodes hashes with it.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
_MAX_GENERATE_NAME_LENGTH = 58
_SUFFIX_LENGTH = 5
GENERATED_SUFFIX_LENGTH = _SUFFIX_LENGTH

_ORDINAL_NAME = re.compile(r"^(.*)-([0-9]+)$")

# A `kubectl cluster-info dump` saves no StorageClasses: the default class is then unknown.
NO_STORAGE_CLASSES = (
    "the cluster state holds no StorageClass objects at all (a `kubectl cluster-info dump` saves none), so the "
    "default class is unknown: save them with `kubectl get storageclasses -o yaml > storageclasses.yaml` "
    "and add --cluster storageclasses.yaml"
)


@dataclass(frozen=True, slots=True)
class ExpandedWorkload:
    kind: str
    namespace: str
    name: str
    uid: str
    source: str
    desired: int  # replicas the controller wants (DaemonSet: eligible nodes)
    pods: tuple[Pod, ...]  # admitted pods, in creation order
    pvcs: tuple[PersistentVolumeClaim, ...]  # StatefulSet claims to create, not yet bound
    notes: tuple[str, ...]
    # the API server refuses the pods (LimitRanger, or validation after its defaults): the
    # message the controller gets back; ``pods`` is then empty
    refusal: str | None = None
    refused_by: str | None = None  # the admission plugin that refuses them


def expand_workload(
    w: Workload,
    state: ClusterState,
    *,
    index: int = 0,
    stale: frozenset[str] = frozenset(),
    admit_suspended: bool = False,
) -> ExpandedWorkload:
    """The pods ``w``'s controller creates on ``state``. ``index`` is the workload's position in
    the input: its pods are created after those of the workloads before it. ``stale``: keys of
    running pods of the workload that run an older template (a DaemonSet still creates a new pod
    on their nodes). ``admit_suspended``: a suspended Job (or CronJob) runs its pods as if it
    were resumed (as Kueue resumes the Jobs it admits)."""
    ns = w.namespace or "default"
    ctx = _Ctx(w, state, ns, w.uid or _generated_uid(w.kind, ns, w.name), index, stale, [], [], admit_suspended)
    expand = _EXPANDERS.get(w.kind)
    if expand is None:
        raise InputError(f"kind {w.kind} has no pods to expand", source=w.source, obj=ctx.obj)
    try:
        return expand(ctx)
    except FieldError as e:
        raise e.with_context(source=w.source, obj=ctx.obj) from None


def owned_pods(w: Workload, state: ClusterState) -> list[Pod]:
    """The cluster's pods (bound and pending) that belong to ``w`` now.

    A pod belongs to a controller whose uid (or, when either uid is unknown, kind and name) its
    controller owner reference names. Like upstream's PodControllerRefManager, a ReplicaSet,
    ReplicationController, StatefulSet, DaemonSet or Job also adopts orphan pods its selector
    matches. A Deployment's pods are those of the ReplicaSets it owns; a pod of a ReplicaSet the
    dump lacks counts when the ReplicaSet is named ``<deployment>-<hash>`` and the pod's labels
    match the Deployment's selector. A CronJob's pods are those of the Jobs it owns (or, for Jobs
    the dump lacks, of Jobs named ``<cronjob>-<n>``).
    """
    ns = w.namespace or "default"
    pods = [p for p in chain(state.pods, state.pending_pods) if p.namespace == ns]
    if w.kind == "Deployment":
        selector = _selector_of(w)
        # a ReplicaSet of the Deployment is named <deployment>-<pod-template-hash>
        child = re.compile(re.escape(w.name) + r"-[a-z0-9]+")
        return _children_pods(
            w,
            state,
            pods,
            "ReplicaSet",
            lambda ref, p: child.fullmatch(ref.name) is not None and selector.matches(p.labels),
        )
    if w.kind == "CronJob":
        run = re.compile(re.escape(w.name) + r"-[0-9]+")
        return _children_pods(w, state, pods, "Job", lambda ref, p: run.fullmatch(ref.name) is not None)
    selector = _selector_of(w)
    out = []
    for p in pods:
        ref = p.controller_ref
        if ref is not None:
            if _controls(ref, w.kind, w.name, w.uid):
                out.append(p)
        elif not p.deleting and selector.matches(p.labels) and _may_adopt(w, p):
            out.append(p)
    return out


def matched_without_owners(w: Workload, state: ClusterState, pods: list[Pod]) -> int:
    """How many of ``pods`` (``w``'s, from owned_pods) were matched by their owner's name and
    their labels alone, because the cluster state lacks the object that owns them (a pods-only
    dump, or one without ReplicaSets or Jobs)."""
    ns = w.namespace or "default"
    if (w.kind, ns, w.name) not in state.workloads:
        return len(pods)
    child = {"Deployment": "ReplicaSet", "CronJob": "Job"}.get(w.kind)
    if child is None:
        return 0
    known = {name for (kind, cns, name) in state.workloads if kind == child and cns == ns}
    return sum(1 for p in pods if p.controller_ref is not None and p.controller_ref.name not in known)


# --- shared machinery --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ctx:
    w: Workload
    state: ClusterState
    namespace: str
    uid: str  # the workload's uid, generated when the manifest has none
    index: int
    stale: frozenset[str]  # running pods of an older template
    refusals: list[tuple[str, str]]  # the plugin and what the API server answers the controller's pod creations
    admitted: list[str]  # what admission plugins changed in its pods
    admit_suspended: bool = False  # a suspended Job runs as if resumed

    @property
    def obj(self) -> str:
        return f"{self.w.kind} {self.namespace}/{self.w.name}"

    def created(self, i: int) -> datetime:
        return CREATION_TIME + self.index * _WORKLOAD_SPACING + i * _POD_SPACING

    def taken_names(self) -> set[str]:
        return {p.name for p in chain(self.state.pods, self.state.pending_pods) if p.namespace == self.namespace}


def _generated_uid(kind: str, namespace: str, name: str) -> str:
    return f"kwhatif-{kind.lower()}-{namespace}-{name}"


def _safe_encode(s: str) -> str:
    """rand.SafeEncodeString: each character mapped into the alphabet (no vowels, no look-alikes)."""
    return "".join(_ALPHANUMS[ord(c) % len(_ALPHANUMS)] for c in s)


def template_hash(template: Dict, collision_count: int | None = None) -> str:
    """A stand-in for controller.ComputeHash: FNV-32a over the template, encoded like upstream.

    Upstream hashes the Go struct as printed by spew, which cannot be reproduced here; this hashes
    the template's canonical JSON, so the value has upstream's shape but not its digits."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":"), default=str).encode()
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little")
    return _safe_encode(str(fnv32a(data)))


def _generated_names(prefix: str, count: int, taken: set[str]) -> list[str]:
    """``count`` names as generateName ``<prefix>-`` would give, deterministic and unused in the
    namespace (upstream retries a create whose random name is taken)."""
    base = f"{prefix}-"[:_MAX_GENERATE_NAME_LENGTH]
    out = []
    for i in range(count):
        attempt = 0
        while True:
            h = fnv32a(f"{base}/{i}/{attempt}".encode())
            chars = []
            for _ in range(_SUFFIX_LENGTH):
                h, r = divmod(h, len(_ALPHANUMS))
                chars.append(_ALPHANUMS[r])
            name = base + "".join(chars)
            if name not in taken:
                break
            attempt += 1
        taken.add(name)
        out.append(name)
    return out


def _owner(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _rfc3339(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _template_pod(
    ctx: _Ctx,
    path: str,
    meta: Dict,
    spec: Dict,
    labels: Mapping[str, str],
    owner: dict[str, Any],
    name: str,
    generate_name: str | None = None,
) -> Pod:
    """The first pod of a template, built as GetPodFromTemplate does, parsed and admitted; errors
    name the field inside the controller object (``path`` is the template's path)."""
    try:
        manifest = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": ctx.namespace,
                "uid": f"{_generated_uid(ctx.w.kind, ctx.namespace, ctx.w.name)}-0",
                "labels": dict(labels),
                "annotations": dict(f.str_map(meta, "annotations", "metadata")),
                "ownerReferences": [owner],
                "creationTimestamp": _rfc3339(ctx.created(0)),
            },
            "spec": dict(spec),
        }
        admission = ctx.state.admission
        pod = parse.pod(manifest, ctx.namespace, ctx.w.source, rules=admission.rules)
    except FieldError as e:
        raise e.under(path) from None
    # The pod the controller creates meets the API server's admission (its namespace was
    # admitted with the workload): what LimitRanger sets can make the pod invalid, and what it
    # checks can refuse it; the controller retries, and the first refusal is its answer.
    outcome = admission_chain.AdmissionChain(ctx.state).admit_pod(
        manifest,
        pod,
        lambda body: parse.pod(body, ctx.namespace, ctx.w.source, rules=admission.rules),
        lifecycle=False,
        shown_name=generate_name if generate_name is not None else name,
        field=path,
    )
    if outcome.notes and not ctx.admitted:
        ctx.admitted.append(outcome.notes[0])
    if isinstance(outcome, admission_chain.Refused):
        ctx.refusals.append((outcome.plugin, outcome.message))
    return outcome.obj


def _stamp(ctx: _Ctx, base: Pod, i: int, name: str, *, ordinal: int | None = None, **changes: Any) -> Pod:
    """Copy ``base`` as the controller's i-th new pod: its own name, uid (numbered by ``ordinal``
    when the pod has one) and creation time."""
    return dataclasses.replace(
        base,
        name=name,
        uid=f"{_generated_uid(ctx.w.kind, ctx.namespace, ctx.w.name)}-{i if ordinal is None else ordinal}",
        creation_timestamp=ctx.created(i).timestamp(),
        **changes,
    )


_INT32_MAX = (1 << 31) - 1
ERR_INT32 = "must fit in a 32-bit integer"


def _replicas(spec: Dict) -> int:
    n = f.integer(spec, "replicas", "spec", 1)
    assert n is not None
    if n < 0:
        raise f.invalid("spec.replicas", n, ERR_NEGATIVE)
    if n > _INT32_MAX:
        raise f.invalid("spec.replicas", n, ERR_INT32)
    return n


def _template(spec: Dict, path: str) -> tuple[Dict, Dict, Dict, dict[str, str]]:
    """(template, its metadata, its spec, a copy of its labels)."""
    tmpl = f.mapping(spec, "template", path)
    meta = f.mapping(tmpl, "metadata", f"{path}.template")
    tspec = f.mapping(tmpl, "spec", f"{path}.template")
    labels = dict(f.str_map(meta, "labels", f"{path}.template.metadata"))
    return tmpl, meta, tspec, labels


def _apps_selector(kind: str, spec: Dict) -> Selector:
    raw = f.opt_mapping(spec, "selector", "spec")
    if raw is None:
        raise f.required("spec.selector")
    if not raw.get("matchLabels") and not raw.get("matchExpressions"):
        raise f.invalid("spec.selector", raw, f"empty selector is invalid for {_EMPTY_SELECTOR_WORD[kind]}")
    return parse.label_selector(raw, "spec.selector")


def _check_selects_template(selector: Selector, labels: Mapping[str, str], path: str) -> None:
    if not selector.empty and not selector.matches(labels):
        raise f.invalid(f"{path}.template.metadata.labels", dict(labels), ERR_SELECTOR_MISMATCH)


def _require_restart_always(tspec: Dict, path: str) -> None:
    # SetDefaults_PodSpec defaults restartPolicy to Always; these controllers accept nothing else.
    policy = f.string(tspec, "restartPolicy", f"{path}.template.spec") or "Always"
    if policy != "Always":
        raise f.unsupported(f"{path}.template.spec.restartPolicy", policy, ("Always",))


def _controls(ref: OwnerReference | None, kind: str, name: str, uid: str) -> bool:
    if ref is None or ref.kind != kind:
        return False
    if ref.uid and uid:
        return ref.uid == uid
    return ref.name == name


def _controller_ref(w: Workload) -> OwnerReference | None:
    meta = w.body.get("metadata")
    if not isinstance(meta, dict):
        return None
    try:
        refs = parse.owner_references(meta)
    except FieldError:
        return None
    return next((r for r in refs if r.controller), None)


def _owned_workloads(w: Workload, state: ClusterState, kind: str) -> list[Workload]:
    """Workloads of ``kind`` in ``w``'s namespace whose controller is ``w``, oldest first (then by
    name, for the order upstream's controllers sort candidates in)."""
    ns = w.namespace or "default"
    out = [
        c
        for c in state.workloads.values()
        if c.kind == kind and c.namespace == ns and _controls(_controller_ref(c), w.kind, w.name, w.uid)
    ]
    out.sort(key=lambda c: (_creation_time(c.body), c.name))
    return out


def _creation_time(body: Dict) -> float:
    meta = body.get("metadata")
    try:
        return f.timestamp(meta, "creationTimestamp", "metadata") if isinstance(meta, dict) else 0.0
    except FieldError:
        return 0.0


# --- Deployment, ReplicaSet, ReplicationController ---------------------------------------------


def _expand_replicated(ctx: _Ctx) -> ExpandedWorkload:
    w = ctx.w
    spec = f.mapping(w.body, "spec", "")
    tmpl, meta, tspec, labels = _template(spec, "spec")
    if w.kind == "ReplicationController":
        # SetDefaults_ReplicationController: no selector means the template's labels.
        selector_map = f.str_map(spec, "selector", "spec") or labels
        if not selector_map:
            raise f.required("spec.selector")
        replicas = _replicas(spec)
        selector = selector_from_set(selector_map)
    else:
        replicas = _replicas(spec)
        selector = _apps_selector(w.kind, spec)
    _check_selects_template(selector, labels, "spec")
    notes: list[str] = []
    if w.kind == "Deployment":
        rs_name, rs_uid, pod_hash, reused = _deployment_replicaset(ctx, tmpl)
        labels[POD_TEMPLATE_HASH_LABEL] = pod_hash
        owner = _owner("apps/v1", "ReplicaSet", rs_name, rs_uid)
        prefix = rs_name
        if reused:
            notes.append(f"Deployment: its template is that of ReplicaSet {rs_name}, which the controller scales up")
        else:
            notes.append(
                f"Deployment: creates ReplicaSet {rs_name} (pod-template-hash {pod_hash} stands in for upstream's hash)"
            )
        if f.boolean(spec, "paused", "spec"):
            notes.append("Deployment: paused; these are the pods it creates once resumed")
    elif w.kind == "ReplicaSet":
        owner = _owner("apps/v1", "ReplicaSet", w.name, ctx.uid)
        prefix = w.name
    else:
        owner = _owner("v1", "ReplicationController", w.name, ctx.uid)
        prefix = w.name
    names = _generated_names(prefix, max(replicas, 1), ctx.taken_names())
    base = _template_pod(ctx, "spec.template", meta, tspec, labels, owner, names[0], f"{prefix}-")
    _require_restart_always(tspec, "spec")
    pods = tuple(_stamp(ctx, base, i, names[i]) for i in range(replicas))
    return _result(ctx, replicas, pods, (), notes)


def _deployment_replicaset(ctx: _Ctx, tmpl: Dict) -> tuple[str, str, str, bool]:
    """(name, uid, pod-template-hash, reused) of the ReplicaSet the Deployment scales up: the
    oldest one it owns whose template equals its own but for the hash label
    (deploymentutil.FindNewReplicaSet / EqualIgnoreHash), else a new ``<deployment>-<hash>``."""
    w = ctx.w
    wanted = _without_hash_label(tmpl)
    for rs in _owned_workloads(w, ctx.state, "ReplicaSet"):
        rs_spec = rs.body.get("spec")
        rs_tmpl = rs_spec.get("template") if isinstance(rs_spec, dict) else None
        if not isinstance(rs_tmpl, dict) or _without_hash_label(rs_tmpl) != wanted:
            continue
        meta = rs_tmpl.get("metadata")
        labels = meta.get("labels") if isinstance(meta, dict) else None
        pod_hash = labels.get(POD_TEMPLATE_HASH_LABEL) if isinstance(labels, dict) else None
        if not isinstance(pod_hash, str) or not pod_hash:
            pod_hash = rs.name[len(w.name) + 1 :] if rs.name.startswith(f"{w.name}-") else rs.name
        return rs.name, rs.uid or _generated_uid("ReplicaSet", ctx.namespace, rs.name), pod_hash, True
    status = f.mapping(w.body, "status", "")
    pod_hash = template_hash(tmpl, f.integer(status, "collisionCount", "status"))
    name = f"{w.name}-{pod_hash}"
    return name, _generated_uid("ReplicaSet", ctx.namespace, name), pod_hash, False


def _without_hash_label(tmpl: Dict) -> dict[str, Any]:
    out = dict(tmpl)
    meta = dict(out.get("metadata") or {})
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if k != POD_TEMPLATE_HASH_LABEL}
    if labels:
        meta["labels"] = labels
    else:
        meta.pop("labels", None)
    if meta:
        out["metadata"] = meta
    else:
        out.pop("metadata", None)
    return out


# --- StatefulSet -------------------------------------------------------------------------------


def _expand_statefulset(ctx: _Ctx) -> ExpandedWorkload:
    w = ctx.w
    spec = f.mapping(w.body, "spec", "")
    policy = f.string(spec, "podManagementPolicy", "spec") or "OrderedReady"
    if policy not in ("OrderedReady", "Parallel"):
        raise f.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'")
    replicas = _replicas(spec)
    selector = _apps_selector(w.kind, spec)
    tmpl, meta, tspec, labels = _template(spec, "spec")
    _check_selects_template(selector, labels, "spec")
    ordinals = f.mapping(spec, "ordinals", "spec")
    start = f.integer(ordinals, "start", "spec.ordinals", 0) or 0
    if start < 0:
        raise f.invalid("spec.ordinals.start", start, ERR_NEGATIVE)
    claim_templates = _claim_templates(spec)
    status = f.mapping(w.body, "status", "")
    # The revision name <set>-<hash> labels every pod (setPodRevision).
    labels[CONTROLLER_REVISION_HASH_LABEL] = (
        f"{w.name}-{template_hash(tmpl, f.integer(status, 'collisionCount', 'status'))}"
    )
    owner = _owner("apps/v1", "StatefulSet", w.name, ctx.uid)
    base = _template_pod(ctx, "spec.template", meta, tspec, labels, owner, f"{w.name}-{start}")
    _require_restart_always(tspec, "spec")
    claim_names = {name for name, _, _ in claim_templates}
    other_volumes = tuple(v for v in base.volumes if v.name not in claim_names)
    chain = admission_chain.AdmissionChain(ctx.state)
    match_labels = f.str_map(f.mapping(spec, "selector", "spec"), "matchLabels", "spec.selector")
    pods: list[Pod] = []
    pvcs: list[PersistentVolumeClaim] = []
    notes: list[str] = []
    classless: dict[str, None] = {}  # claim templates left without a class, in order
    # The controller creates only the ordinals that have no pod.
    running = {p.name for p in owned_pods(w, ctx.state)}
    for ordinal in range(start, start + replicas):
        name = f"{w.name}-{ordinal}"
        if name in running:
            continue
        pod_labels = {**base.labels, STATEFULSET_POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)}
        # updateStorage: a volume per claim template first (upstream ranges over a map; sorted
        # here), then the template's other volumes.
        volumes: list[Volume] = []
        for tname, j, tpl in claim_templates:
            claim = f"{tname}-{w.name}-{ordinal}"
            volumes.append(Volume(tname, "persistentVolumeClaim", claim_name=claim))
            if f"{ctx.namespace}/{claim}" in ctx.state.pvcs:
                notes.append(f"StatefulSet: PersistentVolumeClaim {claim} exists and is reused")
            else:
                pvc = _new_claim(ctx, claim, j, tpl, match_labels, chain)
                if pvc.storage_class_name is None:
                    classless.setdefault(tname)
                pvcs.append(pvc)
        pods.append(
            _stamp(
                ctx, base, len(pods), name, ordinal=ordinal, labels=pod_labels, volumes=tuple(volumes) + other_volumes
            )
        )
    if len(pods) < replicas:
        notes.append(f"StatefulSet: {replicas - len(pods)} of its pods already run")
    for tname in classless:
        if ctx.state.storage_classes:
            notes.append(
                f"StatefulSet: volumeClaimTemplate {tname} names no StorageClass and the cluster has none marked default"
            )
        else:
            notes.append(f"StatefulSet: volumeClaimTemplate {tname} names no StorageClass; {NO_STORAGE_CLASSES}")
    if policy == "OrderedReady" and replicas > 1:
        notes.append(
            "StatefulSet: OrderedReady creates each pod once the one before it is Running and Ready; "
            "they are placed here in ordinal order"
        )
    return _result(ctx, replicas, tuple(pods), tuple(pvcs), notes)


def _claim_templates(spec: Dict) -> list[tuple[str, int, Dict]]:
    """(name, index, template) of each volumeClaimTemplate, by name."""
    out = []
    for j, tpl in enumerate(f.obj_seq(spec, "volumeClaimTemplates", "spec")):
        p = f"spec.volumeClaimTemplates[{j}]"
        name = f.string(f.mapping(tpl, "metadata", p), "name", f"{p}.metadata")
        if not name:
            raise f.required(f"{p}.metadata.name")
        out.append((name, j, tpl))
    out.sort(key=lambda t: t[0])
    return out


def _new_claim(
    ctx: _Ctx, claim: str, j: int, tpl: Dict, match_labels: Mapping[str, str], chain: admission_chain.AdmissionChain
) -> PersistentVolumeClaim:
    """getPersistentVolumeClaims: the template named for the ordinal, labelled with the selector's
    matchLabels; then the DefaultStorageClass admission plugin fills in an unset class."""
    path = f"spec.volumeClaimTemplates[{j}]"
    meta = f.mapping(tpl, "metadata", path)
    labels = {**f.str_map(meta, "labels", f"{path}.metadata"), **match_labels}
    body = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": claim,
            "namespace": ctx.namespace,
            "uid": _generated_uid("PersistentVolumeClaim", ctx.namespace, claim),
            "labels": labels,
            "annotations": dict(f.str_map(meta, "annotations", f"{path}.metadata")),
        },
        "spec": dict(f.mapping(tpl, "spec", path)),
    }
    try:
        pvc = storage.persistent_volume_claim(body)
    except FieldError as e:
        raise e.under(path) from None
    return chain.default_storage_class(pvc)  # the API server's DefaultStorageClass admission


# --- DaemonSet ---------------------------------------------------------------------------------


def _expand_daemonset(ctx: _Ctx) -> ExpandedWorkload:
    w = ctx.w
    spec = f.mapping(w.body, "spec", "")
    selector = _apps_selector(w.kind, spec)
    tmpl, meta, tspec, labels = _template(spec, "spec")
    _check_selects_template(selector, labels, "spec")
    status = f.mapping(w.body, "status", "")
    # CreatePodTemplate: the revision hash (and the legacy template generation) label every pod.
    labels[CONTROLLER_REVISION_HASH_LABEL] = template_hash(tmpl, f.integer(status, "collisionCount", "status"))
    generation = f.str_map(f.mapping(w.body, "metadata", ""), "annotations", "metadata").get(
        DAEMONSET_TEMPLATE_GENERATION_ANNOTATION
    )
    if generation is not None and generation.lstrip("-").isdigit():
        labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] = str(int(generation))
    daemon_spec = dict(tspec)
    daemon_spec["tolerations"] = _with_daemon_tolerations(
        f.obj_seq(tspec, "tolerations", "spec.template.spec"), f.boolean(tspec, "hostNetwork", "spec.template.spec")
    )
    owner = _owner("apps/v1", "DaemonSet", w.name, ctx.uid)
    taken = ctx.taken_names()
    first = _generated_names(w.name, 1, set(taken))[0]
    base = _template_pod(ctx, "spec.template", meta, daemon_spec, labels, owner, first, f"{w.name}-")
    _require_restart_always(tspec, "spec")
    # Upstream ranges over the node lister; nodes are taken in name order here. A node with a pod
    # of the DaemonSet (bound or pinned to it) needs no new one.
    nodes = list(ctx.state.nodes.values())
    eligible = [n.name for n in nodes if _should_run(base, n)]
    running = {_daemon_pod_node(p) for p in owned_pods(w, ctx.state) if p.key not in ctx.stale}
    need = [n for n in eligible if n not in running]
    names = _generated_names(w.name, len(need), taken)
    pods = tuple(
        _stamp(ctx, base, i, names[i], affinity=_pin_to_node(base.affinity, node)) for i, node in enumerate(need)
    )
    notes = [f"DaemonSet: runs on {len(eligible)} of {len(nodes)} nodes"]
    if len(need) < len(eligible):
        notes.append(f"DaemonSet: {len(eligible) - len(need)} of them already run its pod")
    return _result(ctx, len(eligible), pods, (), notes)


def _with_daemon_tolerations(tolerations: list[Dict], host_network: bool) -> list[Dict]:
    out = list(tolerations)
    wanted = DAEMON_TOLERATIONS + ((DAEMON_HOST_NETWORK_TOLERATION,) if host_network else ())
    for key, effect in wanted:
        out = _add_or_update_toleration(out, {"key": key, "operator": "Exists", "effect": effect})
    return out


def _add_or_update_toleration(tolerations: list[Dict], toleration: dict[str, Any]) -> list[Dict]:
    """v1helper.AddOrUpdateTolerationInPodSpec: a toleration with the same key, operator, value and
    effect is replaced (losing its tolerationSeconds), else the new one is appended."""

    def same(t: Dict) -> bool:
        return all(str(t.get(k) or "") == str(toleration.get(k) or "") for k in ("key", "operator", "value", "effect"))

    out: list[Dict] = []
    replaced = False
    for t in tolerations:
        if same(t):
            out.append(toleration)
            replaced = True
        else:
            out.append(t)
    if not replaced:
        out.append(toleration)
    return out


def _should_run(pod: Pod, node: Node) -> bool:
    """NodeShouldRunDaemonPod's shouldRun: the template's nodeName, nodeSelector and required node
    affinity match the node, and every NoSchedule/NoExecute taint is tolerated."""
    if pod.node_name and pod.node_name != node.name:
        return False
    if pod.node_selector and not selector_from_set(pod.node_selector).matches(node.labels):
        return False
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is not None and na.required is not None and not na.required.matches(node.labels, node.name):
        return False
    for taint in node.taints:
        if taint.effect in _DAEMON_TAINT_EFFECTS and not any(t.tolerates(taint) for t in pod.tolerations):
            return False
    return True


def _pin_to_node(affinity: Affinity | None, node: str) -> Affinity:
    """util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes the one
    term ``metadata.name In [node]``; every earlier required term is dropped, preferred kept."""
    term = NodeSelectorTerm(None, Selector((Requirement("metadata.name", Op.IN, frozenset((node,))),)))
    required = NodeSelector((term,))
    if affinity is None:
        return Affinity(node_affinity=NodeAffinity(required=required))
    if affinity.node_affinity is None:
        return dataclasses.replace(affinity, node_affinity=NodeAffinity(required=required))
    return dataclasses.replace(affinity, node_affinity=dataclasses.replace(affinity.node_affinity, required=required))


def _daemon_pod_node(pod: Pod) -> str:
    """util.GetTargetNodeName: the node a daemon pod is bound or pinned to."""
    if pod.node_name:
        return pod.node_name
    na = pod.affinity.node_affinity if pod.affinity else None
    if na is None or na.required is None:
        return ""
    for term in na.required.terms:
        for r in term.fields.requirements if term.fields else ():
            if r.key == "metadata.name" and r.op is Op.IN and len(r.values) == 1:
                return next(iter(r.values))
    return ""


# --- Job, CronJob ------------------------------------------------------------------------------


def _expand_job(ctx: _Ctx) -> ExpandedWorkload:
    w = ctx.w
    spec = f.mapping(w.body, "spec", "")
    desired, pods, notes = _job_pods(ctx, spec, "spec", w.name, ctx.uid)
    return _result(ctx, desired, pods, (), notes)


def _expand_cronjob(ctx: _Ctx) -> ExpandedWorkload:
    """One run of the CronJob: the Job getJobFromTemplate2 builds, named after the scheduled time in
    minutes (the fixed creation time stands in for the next schedule)."""
    w = ctx.w
    spec = f.mapping(w.body, "spec", "")
    job_template = f.mapping(spec, "jobTemplate", "spec")
    job_spec = f.mapping(job_template, "spec", "spec.jobTemplate")
    job_name = f"{w.name}-{int(ctx.created(0).timestamp()) // 60}"
    job_uid = _generated_uid("Job", ctx.namespace, job_name)
    desired, pods, notes = _job_pods(ctx, job_spec, "spec.jobTemplate.spec", job_name, job_uid)
    if f.boolean(spec, "suspend", "spec") and not ctx.admit_suspended:
        return _result(ctx, 0, (), (), ["CronJob: suspended; it creates no Job until it is resumed"])
    return _result(ctx, desired, pods, (), [f"CronJob: one run of its job template, as Job {job_name}", *notes])


def _job_pods(ctx: _Ctx, spec: Dict, path: str, job_name: str, job_uid: str) -> tuple[int, tuple[Pod, ...], list[str]]:
    """(pods wanted, the pods, notes) for the Job ``job_name`` with ``spec`` at ``path``."""
    _, meta, tspec, labels = _template(spec, path)
    manual = f.boolean(spec, "manualSelector", path)
    raw_selector = f.opt_mapping(spec, "selector", path)
    if manual:
        if raw_selector is None:
            raise f.required(f"{path}.selector")
        selector = parse.label_selector(raw_selector, f"{path}.selector")
    else:
        selector = _generated_job_selector(labels, raw_selector, path, job_name, job_uid)
    parallelism = f.integer(spec, "parallelism", path)
    completions = f.integer(spec, "completions", path)
    for fld, value in (("parallelism", parallelism), ("completions", completions)):
        if value is not None and value < 0:
            raise f.invalid(f"{path}.{fld}", value, ERR_NEGATIVE)
        if value is not None and value > _INT32_MAX:
            raise f.invalid(f"{path}.{fld}", value, ERR_INT32)
    mode = f.string(spec, "completionMode", path) or "NonIndexed"
    if mode not in ("NonIndexed", "Indexed"):
        raise f.unsupported(f"{path}.completionMode", mode, ("NonIndexed", "Indexed"))
    if mode == "Indexed" and completions is None:
        raise f.required(f"{path}.completions", "when completion mode is Indexed")
    owner = _owner("batch/v1", "Job", job_name, job_uid)
    taken = ctx.taken_names()
    first = _generated_names(f"{job_name}-0" if mode == "Indexed" else job_name, 1, set(taken))[0]
    base = _template_pod(
        ctx, f"{path}.template", meta, tspec, labels, owner, first, f"{job_name}-{'0-' if mode == 'Indexed' else ''}"
    )
    restart = f.string(tspec, "restartPolicy", f"{path}.template.spec")
    if restart in ("", "Always"):
        raise f.required(f"{path}.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"')
    if restart not in ("OnFailure", "Never"):
        raise f.unsupported(f"{path}.template.spec.restartPolicy", restart, ("OnFailure", "Never"))
    _check_selects_template(selector, labels, path)

    # SetDefaults_Job: neither set means one pod to completion; parallelism defaults to 1.
    if completions is None and parallelism is None:
        completions = parallelism = 1
    elif parallelism is None:
        parallelism = 1
    # manageJob on a fresh Job: no completion count runs `parallelism` pods, a count caps them.
    want = parallelism if completions is None else min(parallelism, completions)
    notes: list[str] = []
    if f.boolean(spec, "suspend", path):
        if not ctx.admit_suspended:
            return 0, (), ["Job: suspended; it creates no pods until it is resumed"]
        notes.append("Job: suspended; checked as if it were resumed (--admit-suspended)")
    if parallelism == 0:
        notes.append("Job: parallelism 0; it runs no pods")
    elif completions is None:
        notes.append(f"Job: parallelism {parallelism} without completions: pods run until one succeeds")
    elif completions > parallelism:
        notes.append(f"Job: parallelism {parallelism} of completions {completions} run at once")
    if mode == "Indexed":
        # Indexed pods are named <job>-<index>-<suffix> and carry their completion index.
        pods = []
        for i in range(want):
            name = _generated_names(f"{job_name}-{i}", 1, taken)[0]
            pods.append(_stamp(ctx, base, i, name, labels={**base.labels, JOB_COMPLETION_INDEX_LABEL: str(i)}))
        return want, tuple(pods), notes
    names = _generated_names(job_name, want, taken)
    return want, tuple(_stamp(ctx, base, i, names[i]) for i in range(want)), notes


def _generated_job_selector(
    labels: dict[str, str], raw: Dict | None, path: str, job_name: str, job_uid: str
) -> Selector:
    """The Job strategy's generateSelector and validateGeneratedSelector: the template gains the
    job-name and controller-uid labels (legacy and prefixed) unless set, the selector gains
    controller-uid, and both must then be the generated ones."""
    expected = {
        LEGACY_CONTROLLER_UID_LABEL: job_uid,
        LEGACY_JOB_NAME_LABEL: job_name,
        CONTROLLER_UID_LABEL: job_uid,
        JOB_NAME_LABEL: job_name,
    }
    for key, value in expected.items():
        labels.setdefault(key, value)
    selector_raw: dict[str, Any] = dict(raw or {})
    match_labels = dict(f.str_map(selector_raw, "matchLabels", f"{path}.selector"))
    match_labels.setdefault(CONTROLLER_UID_LABEL, job_uid)
    selector_raw["matchLabels"] = match_labels
    for key, value in expected.items():
        if labels[key] != value:
            raise f.invalid(f"{path}.template.metadata.labels[{key}]", dict(labels), f"must be '{value}'")
    selector = parse.label_selector(selector_raw, f"{path}.selector")
    if not selector.matches(expected):
        raise f.invalid(f"{path}.selector", selector_raw, ERR_SELECTOR_NOT_GENERATED)
    return selector


# --- ownership ---------------------------------------------------------------------------------


def _children_pods(
    w: Workload,
    state: ClusterState,
    pods: list[Pod],
    child_kind: str,
    unknown_child_matches: Callable[[OwnerReference, Pod], bool],
) -> list[Pod]:
    """Pods controlled by a ``child_kind`` object that ``w`` controls, or by one the dump lacks
    when ``unknown_child_matches``."""
    ns = w.namespace or "default"
    children = _owned_workloads(w, state, child_kind)
    known = {name for (kind, cns, name) in state.workloads if kind == child_kind and cns == ns}
    out = []
    for p in pods:
        ref = p.controller_ref
        if ref is None or ref.kind != child_kind:
            continue
        if any(_controls(ref, child_kind, c.name, c.uid) for c in children) or (
            ref.name not in known and unknown_child_matches(ref, p)
        ):
            out.append(p)
    return out


def _selector_of(w: Workload) -> Selector:
    """The selector ``w`` claims pods with, as stored; NOTHING when absent, empty or invalid (an
    empty selector is refused by validation, not taken to select every pod)."""
    spec = w.body.get("spec")
    if not isinstance(spec, dict):
        return NOTHING
    raw = spec.get("selector")
    if w.kind == "ReplicationController":
        if not raw:
            tmpl = spec.get("template")
            meta = tmpl.get("metadata") if isinstance(tmpl, dict) else None
            raw = meta.get("labels") if isinstance(meta, dict) else None
        if not isinstance(raw, dict) or not raw or not all(isinstance(v, str) for v in raw.values()):
            return NOTHING
        return selector_from_set(raw)
    if w.kind == "Job" and raw is None and w.uid:
        return selector_from_set({CONTROLLER_UID_LABEL: w.uid})
    if not isinstance(raw, dict) or not (raw.get("matchLabels") or raw.get("matchExpressions")):
        return NOTHING
    try:
        return parse.label_selector(raw, "spec.selector")
    except FieldError:
        return NOTHING


def _may_adopt(w: Workload, pod: Pod) -> bool:
    # A StatefulSet claims only pods named <set>-<ordinal> (isMemberOf).
    if w.kind != "StatefulSet":
        return True
    m = _ORDINAL_NAME.match(pod.name)
    return m is not None and m.group(1) == w.name


def _result(
    ctx: _Ctx,
    desired: int,
    pods: tuple[Pod, ...],
    pvcs: tuple[PersistentVolumeClaim, ...],
    notes: Iterable[str],
) -> ExpandedWorkload:
    w = ctx.w
    notes = list(ctx.admitted) + list(notes)
    if ctx.refusals:
        return ExpandedWorkload(
            w.kind,
            ctx.namespace,
            w.name,
            ctx.uid,
            w.source,
            desired,
            (),
            (),
            tuple(notes),
            ctx.refusals[0][1],
            ctx.refusals[0][0],
        )
    return ExpandedWorkload(w.kind, ctx.namespace, w.name, ctx.uid, w.source, desired, pods, pvcs, tuple(notes))


_EXPANDERS: dict[str, Callable[[_Ctx], ExpandedWorkload]] = {
    "Deployment": _expand_replicated,
    "ReplicaSet": _expand_replicated,
    "ReplicationController": _expand_replicated,
    "StatefulSet": _expand_statefulset,
    "DaemonSet": _expand_daemonset,
    "Job": _expand_job,
    "CronJob": _expand_cronjob,
}


def daemon_pods_on(state: ClusterState, nodes: Iterable[str]) -> tuple[list[Pod], list[str]]:
    """The pods the cluster's DaemonSets run on ``nodes`` (nodes that just joined): one per
    DaemonSet whose pod should run there (NodeShouldRunDaemonPod, as _expand_daemonset decides it),
    bound to it, as the DaemonSet controller creates them for a new node and the scheduler binds
    them (they tolerate its taints and are pinned to it). Also the DaemonSets that could not be
    expanded ("kind/namespace/name: why"), which add nothing."""
    wanted = set(nodes)
    pods: list[Pod] = []
    skipped: list[str] = []
    daemonsets = sorted(
        (w for w in state.workloads.values() if w.kind == "DaemonSet"), key=lambda w: (w.namespace, w.name)
    )
    for w in daemonsets:
        try:
            expanded = expand_workload(w, state)
        except InputError as e:
            skipped.append(f"DaemonSet {w.namespace or 'default'}/{w.name}: {e.message}")
            continue
        for pod in expanded.pods:
            node = _daemon_pod_node(pod)
            if node in wanted:
                pods.append(dataclasses.replace(pod, node_name=node, phase="Running"))
    return pods, skipped
