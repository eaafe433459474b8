"""`kwhatif check`: will the workloads in these manifests fit on the cluster?

Manifests may hold workloads (expanded into the pods their controllers would create), bare Pods,
and the objects that come with them (PriorityClasses, Services, PersistentVolumeClaims,
LimitRanges, HorizontalPodAutoscalers, ...), which join the cluster state first. A workload that
already runs in the cluster is updated: its current pods leave before the new ones are placed,
unless ``surge`` keeps them (the worst moment of a rolling update).

Around the scheduler, what the control plane does before a pod is scheduled is emulated: the
HorizontalPodAutoscaler's replica bounds, the LimitRanger and ResourceQuota admission plugins
(a refused pod is never created), the DefaultStorageClass admission plugin, and the PV
controller's binding and provisioning of Immediate claims.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from itertools import chain as chain_pods
from typing import Any

from kwhatif.api.core import Pod
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.cache.kinds import WORKLOAD_KINDS
from kwhatif.controlplane.admission.chain import NAMESPACE_LIFECYCLE, PRIORITY, AdmissionChain, Refused
from kwhatif.controlplane.admission.resourcequota import QuotaLedger
from kwhatif.controlplane.controllers.pods import pods_from_documents, prepare_incoming
from kwhatif.controlplane.controllers.workloads import GENERATED_SUFFIX_LENGTH
from kwhatif.errors import FieldError, InputError
from kwhatif.framework.types import PodOutcome
from kwhatif.load.cluster import UnservedVersion, build_cluster, classify, is_custom_resource
from kwhatif.load.files import Document
from kwhatif.report.verdict import FAILURES, WARNINGS, Verdict
from kwhatif.scheduling.scheduler import Attempt, Scheduler
from kwhatif.whatif.unevaluated import group_of, operator_pods, runs_no_pods

__all__ = ["FAILURES", "WARNINGS", "CheckResult", "CheckedWorkload", "Verdict", "check"]


@dataclass(slots=True)
class CheckedWorkload:
    kind: str
    namespace: str
    name: str
    source: str
    desired: int | None  # None: unknown (a custom resource)
    pods: list[Pod]
    replaced: int = 0  # pods of the running version taken out first
    notes: list[str] = field(default_factory=list)
    refused: int = 0  # pods the API server refuses to create
    refusal: str | None = None  # what it answers for the first of them
    refused_by: Verdict | None = None
    verdict: Verdict | None = None  # decided without scheduling (not checked, no eligible nodes, unknown)
    # unknown: (short reason, what is missing and how to supply it) for each thing missing
    missing: list[tuple[str, str]] = field(default_factory=list)
    custom: bool = False  # a custom resource
    # notes that change or qualify the verdict (fields the API server drops, why not checked):
    # every output format shows them, not only the JSON
    verdict_notes: list[str] = field(default_factory=list)
    ordered_ready: bool = False  # a StatefulSet that creates its pods one at a time (OrderedReady)
    never_created: int = 0  # OrderedReady: pods after the first one that does not fit

    @property
    def key(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(slots=True)
class CheckResult:
    workloads: list[CheckedWorkload]
    attempts: list[Attempt]
    skipped: dict[str, int] = field(default_factory=dict)  # kinds in the manifests that run no pods
    notes: list[str] = field(default_factory=list)  # about the change as a whole


# More pods than this in one check is a mistake (or a typo in replicas), not a what-if.
MAX_PODS = 100_000

# Fields of a pod template that decide where its pods go (a template that drops one of them
# changes the pods, even when everything it still sets is as before).
_SCHEDULING_FIELDS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "topologySpreadConstraints",
    "priorityClassName",
    "runtimeClassName",
    "hostNetwork",
    "nodeName",
    "overhead",
    "volumes",
    "initContainers",
    "schedulingGates",
)

# How to give kwhatif the objects a cluster-info dump (or a partial export) lacks.
_SUPPLY = "or save the whole cluster state with `kwhatif snapshot`"


def merge_objects(
    state: ClusterState, docs: list[Document], notes: list[str], chain: AdmissionChain | None = None
) -> list[str]:
    """Objects of the manifests other than Pods and workloads join (or replace) the cluster's.
    A claim or volume that already exists keeps its bound state (apply never changes it); a new
    claim meets admission (``chain``, default: over ``state``): one LimitRanger refuses is not
    created (said in ``notes``), DefaultStorageClass gives the others the default class. Returns
    the keys of the claims the manifests create."""
    chain = chain or AdmissionChain(state)
    extra = build_cluster(docs, check_node_refs=False, names=state.names)
    if extra.nodes:
        raise InputError(
            "manifests to check may not hold Nodes; use --add-node to add nodes", obj=f"Node {next(iter(extra.nodes))}"
        )
    state.apply(extra)
    new_pvs = [name for name in extra.pvs if name not in state.pvs]
    for name in new_pvs:
        state.pvs[name] = extra.pvs[name]
    from kwhatif.controlplane.controllers.pv_controller import available_new_volumes

    available_new_volumes(state, new_pvs)
    new_claims = []
    refused = _refused_claims(chain, [d for d in docs if d.kind == "PersistentVolumeClaim"], notes)
    for key, pvc in extra.pvcs.items():
        if key in state.pvcs or key in refused:
            continue
        state.pvcs[key] = chain.default_storage_class(pvc)
        new_claims.append(key)
    return new_claims


def check(
    state: ClusterState,
    docs: list[Document],
    sched_factory: Any,
    *,
    surge: bool = False,
    profile: str | None = None,
    hpa_max: bool = False,
) -> tuple[CheckResult, Scheduler]:
    from kwhatif.controlplane.controllers import workloads as wl
    from kwhatif.controlplane.controllers.pv_controller import sync_claims

    state = state.fork()  # the manifests change a copy of the cluster, never the caller's
    workload_docs: list[Document] = []
    pod_docs: list[Document] = []
    other_docs: list[Document] = []
    custom_docs: list[Document] = []
    skipped: dict[str, int] = {}
    refused_docs: list[CheckedWorkload] = []
    for d in docs:
        try:
            kind = classify(d)
        except UnservedVersion:
            # kubectl apply: the release's API server does not serve this group/version
            refused_docs.append(_unserved(d))
            continue
        if kind is None:
            # every object that may run pods gets an entry; only kinds known to run none are counted
            if runs_no_pods(d.api_version, d.kind):
                skipped[d.kind] = skipped.get(d.kind, 0) + 1
            else:
                custom_docs.append(d)
            continue
        if kind in WORKLOAD_KINDS:
            workload_docs.append(d)
        elif kind == "Pod":
            pod_docs.append(d)
        else:
            other_docs.append(d)
    result_notes: list[str] = []
    # whether the cluster state lists its Namespaces, before the manifests' own join it
    chain = AdmissionChain(state, namespaces_listed=bool(state.namespaces))
    # read live, or saved by `kwhatif snapshot`: every list is whole, so an empty one is the truth
    whole = bool(state.server_version or state.recorded_server_version)
    priority_classes_listed = whole or bool(state.priority_classes)
    other_docs, invalid_docs = _screen_objects(other_docs)
    refused_docs += invalid_docs
    new_claims = merge_objects(state, other_docs, result_notes, chain) if other_docs else []
    manifest_state = build_cluster(workload_docs, check_node_refs=False, names=state.names)
    # the manifests' own ResourceQuotas count too
    chain.quota = QuotaLedger.of(state.resource_quotas.values(), chain_pods(state.pods, state.pending_pods))
    checked: list[CheckedWorkload] = []
    index = 0
    planned = 0
    for w in sorted(manifest_state.workloads.values(), key=lambda w: _doc_order(workload_docs, w)):
        notes: list[str] = []
        w = _autoscaled(w, state, hpa_max, notes)
        name_error = _name_error(w)
        if name_error is not None:
            checked.append(_invalid_entry(w, name_error, notes))
            index += 1
            continue
        current = state.workloads.get(w.key)
        running = wl.owned_pods(current or w, state)
        keys = {p.key for p in running}
        if running:
            unlinked = wl.matched_without_owners(current or w, state, running)
            if unlinked:
                notes.append(_unlinked_note(w, current, unlinked))
        leave_first = not surge
        stale: frozenset[str] = frozenset()
        if surge and running and w.kind in ("DaemonSet", "StatefulSet"):
            changed = current is None or not _template_unchanged(current, w)
            if changed and w.kind == "StatefulSet":
                leave_first = True
                notes.append(
                    "StatefulSet: its template changes and a StatefulSet never surges: the controller deletes "
                    "each pod before it creates its replacement, so --surge replaces them as without it"
                )
            elif changed:
                surge_n = _daemonset_max_surge(w)
                if surge_n > 0:
                    stale = frozenset(keys)
                    notes.append(
                        f"DaemonSet: its template changes and its rolling update (maxSurge {surge_n}) starts each "
                        "new pod next to the old one: both are placed"
                    )
                else:
                    leave_first = True
                    notes.append(
                        "DaemonSet: its template changes and its update (maxSurge 0, or OnDelete) deletes each old "
                        "pod before it creates the new one, so --surge replaces them as without it"
                    )
            if current is None and changed:
                notes.append(
                    f"{w.kind}: the cluster state has no {w.kind} object to compare its template with: taken as changed"
                )
        if running and leave_first:
            invalid = _invalid(w, state, index, stale)
            if invalid is not None:
                # the API server refuses the new version: the running pods stay as they are
                notes.append(f"the API server refuses the update: the {len(keys)} running pod(s) keep running")
                checked.append(_invalid_entry(w, invalid, notes))
                index += 1
                continue
            state.pods = [p for p in state.pods if p.key not in keys]
            state.pending_pods = [p for p in state.pending_pods if p.key not in keys]
            for p in running:
                chain.release(p)
        replaced = len(keys) if leave_first else 0
        _check_size(w, planned)
        try:
            exp = wl.expand_workload(w, state, index=index, stale=stale)
        except FieldError as e:
            checked.append(_invalid_entry(w, e, notes))
            index += 1
            continue
        index += 1
        cw = CheckedWorkload(w.kind, w.namespace, w.name, w.source, exp.desired, [], replaced, notes + list(exp.notes))
        cw.ordered_ready = w.kind == "StatefulSet" and _pod_management_policy(w) == "OrderedReady"
        if running:
            cw.notes.append(
                f"updates the running {w.kind}: its {len(keys)} current pod(s) keep running (--surge)"
                if not leave_first
                else f"updates the running {w.kind}: its {len(keys)} current pod(s) leave first"
            )
        state.workloads[w.key] = w
        ns_refusal = chain.namespace_lifecycle(w.namespace)
        if ns_refusal is not None:
            # the API server refuses the workload itself: no controller, no pods
            cw.refused, cw.refusal, cw.refused_by = exp.desired, ns_refusal, Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE
        elif exp.refusal is not None:
            cw.refused, cw.refusal, cw.refused_by = exp.desired, exp.refusal, _refused_by(exp.refused_by)
        elif w.kind == "DaemonSet" and exp.desired == 0:
            cw.verdict = Verdict.NO_ELIGIBLE_NODES
            cw.notes.append(
                "DaemonSet: no node matches its nodeSelector, required node affinity and tolerations: it runs no pod"
            )
        else:
            claim_refusal = _claim_template_refusal(chain, w)
            if claim_refusal is not None:
                cw.refused, cw.refusal, cw.refused_by = len(exp.pods), claim_refusal, Verdict.REFUSED_BY_LIMIT_RANGE
                exp = dataclasses.replace(exp, pods=(), pvcs=())
            cw.pods = _admit_by_quota(chain, cw, list(exp.pods), generated=w.kind != "StatefulSet")
            planned += len(cw.pods)
            if not cw.refused:
                for pvc in exp.pvcs:
                    if pvc.key not in state.pvcs:
                        state.pvcs[pvc.key] = pvc
                        new_claims.append(pvc.key)
        checked.append(cw)
    refusals: dict[str, Refused[Pod]] = {}
    admitted: dict[str, str] = {}
    invalid_pods: dict[int, FieldError] = {}
    bare, _ = pods_from_documents(
        pod_docs, state, refusals=refusals, admitted=admitted, chain=chain, invalid=invalid_pods
    )
    bare = prepare_incoming(bare, state, replace_existing=not surge)
    valid = iter(bare)
    for i, doc in enumerate(pod_docs):
        if i in invalid_pods:
            cw = _unevaluated(doc, 1, Verdict.REFUSED_BY_API)
            cw.refused, cw.refusal = 1, _field_error_text(invalid_pods[i])
            checked.append(cw)
            continue
        pod = next(valid)
        cw = CheckedWorkload("Pod", pod.namespace, pod.name, doc.source, 1, [])
        if pod.key in admitted:
            cw.notes.append(admitted[pod.key])
        if pod.key in refusals:
            refusal = refusals[pod.key]
            cw.refused, cw.refusal, cw.refused_by = 1, refusal.message, _refused_by(refusal.plugin)
        else:
            cw.pods = _admit_by_quota(chain, cw, [pod], generated=False)
            if pod.node_name and pod.node_name not in state.nodes:
                cw.notes.append(
                    f"Pod: spec.nodeName names node {pod.node_name}, which is not in the cluster (a pod exported from "
                    "a cluster keeps its node): drop spec.nodeName, or run with --ignore-node-name, to schedule it anew"
                )
        checked.append(cw)
    for d in custom_docs:
        checked.append(_not_checked(d))
    checked.extend(refused_docs)
    if not checked:
        held: dict[str, int] = {}
        for d in docs:
            held[d.kind] = held.get(d.kind, 0) + 1
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(held.items()))
        result_notes.append(
            "nothing to check: the manifests hold no workloads or pods" + (f" (they hold {kinds})" if kinds else "")
        )
    if not priority_classes_listed:
        _unknown_priority_classes(checked)
    if not whole:
        _unknown_namespaces(chain, checked)
    new_claims += _ephemeral_claims(chain, state, [p for cw in checked for p in cw.pods])
    for outcome in sync_claims(state, new_claims):
        users = [cw for cw in checked if any(_uses_claim(p, outcome.claim) for p in cw.pods)]
        text = f"PersistentVolumeClaim {outcome.claim}: {outcome.note}"
        if users:
            for cw in users:
                cw.notes.append(text)
        else:
            result_notes.append(text)
    if not whole and not state.storage_classes:
        # after the PV controller: a claim it bound to a volume needs no class
        _unknown_storage_classes(state, checked)
    for cw in checked:
        if cw.missing:
            # placing its pods would answer another question than the one asked: they are left out
            cw.verdict, cw.pods = Verdict.UNKNOWN, []
        # what the API server drops from the new pods changes what is scheduled (claims before 1.34)
        for note in dict.fromkeys(n for p in cw.pods for n in p.admission_notes):
            cw.notes.append(f"{cw.kind}'s pods: {note}")
            cw.verdict_notes.append(f"{cw.kind}'s pods: {note}")
        if cw.verdict is Verdict.NOT_CHECKED:
            cw.verdict_notes.extend(cw.notes)
    all_pods = [p for cw in checked for p in cw.pods]
    if profile:
        all_pods = [dataclasses.replace(p, scheduler_name=profile) for p in all_pods]
        for cw in checked:
            cw.pods = [dataclasses.replace(p, scheduler_name=profile) for p in cw.pods]
    sched: Scheduler = sched_factory(state)
    attempts = sched.run(all_pods, skip_unchanged=True) if all_pods else []
    ordered = [cw for cw in checked if cw.ordered_ready and len(cw.pods) > 1]
    for _ in ordered:
        # OrderedReady: the pods after the first one that stays pending are never created, so
        # they take no room from the others: place again without them
        never = _never_created(ordered, attempts)
        if not never:
            break
        all_pods = [p for p in all_pods if p.key not in never]
        sched = sched_factory(state)
        attempts = sched.run(all_pods, skip_unchanged=True)
    for cw in ordered:
        if cw.never_created:
            pending = cw.pods[-1].name
            cw.notes.append(
                f"StatefulSet: {pending} does not fit, and OrderedReady creates the next pod only once it is Running "
                f"and Ready: the {cw.never_created} pod(s) after it are never created while it is pending"
            )
    return CheckResult(checked, attempts, skipped, result_notes), sched


# --- what the cluster state lacks ------------------------------------------------------------------


def _unknown_namespaces(chain: AdmissionChain, checked: list[CheckedWorkload]) -> None:
    """A state without Namespace objects cannot tell whether a namespace that no pod of it
    runs in, and that the manifests do not create, exists (NamespaceLifecycle would refuse it)."""
    candidates = [cw for cw in checked if cw.verdict is None and not cw.refused]
    unverified = set(chain.unverified_namespaces({cw.namespace for cw in candidates}))
    for cw in candidates:
        if cw.namespace in unverified:
            cw.missing.append(
                (
                    "the cluster state has no Namespaces",
                    f"namespace {cw.namespace}: the cluster state holds no Namespace objects and no pod of it runs "
                    "there, so whether the namespace exists is unknown (the API server refuses objects of one that "
                    "does not): add them with --cluster namespaces.yaml (`kubectl get namespaces -o yaml > "
                    f"namespaces.yaml`), {_SUPPLY}",
                )
            )


def _unknown_priority_classes(checked: list[CheckedWorkload]) -> None:
    """A state without PriorityClass objects cannot tell whether a class the manifests do not
    create exists: the Priority refusal becomes unknown."""
    for cw in checked:
        if cw.refused_by is not Verdict.REFUSED_BY_PRIORITY:
            continue
        name = cw.refusal.rsplit("no PriorityClass with name ", 1)[-1].split(" ", 1)[0] if cw.refusal else ""
        cw.refused, cw.refusal, cw.refused_by = 0, None, None
        cw.missing.append(
            (
                "the cluster state has no PriorityClasses",
                f"PriorityClass {name}: the cluster state holds no PriorityClass objects and the manifests do not "
                "create it, so whether it exists (and the priority it gives) is unknown: add them with --cluster "
                f"priorityclasses.yaml (`kubectl get priorityclasses -o yaml > priorityclasses.yaml`), {_SUPPLY}",
            )
        )


def _unknown_storage_classes(state: ClusterState, checked: list[CheckedWorkload]) -> None:
    """A state without any StorageClass (a `kubectl cluster-info dump` saves none) cannot tell
    how an unbound claim that names a class, or wants the default one, is bound."""
    for cw in checked:
        if cw.verdict is not None or not cw.pods:
            continue
        needs: dict[str, list[str]] = {}
        for pod in cw.pods:
            for v in pod.volumes:
                if v.claim_name:
                    key = f"{pod.namespace}/{v.claim_name}"
                elif v.kind == "ephemeral" and v.ephemeral_claim:
                    key = f"{pod.namespace}/{pod.name}-{v.name}"
                else:
                    continue
                pvc = state.pvcs.get(key)
                if pvc is None or pvc.volume_name or pvc.phase == "Bound" or pvc.storage_class_name == "":
                    continue
                wanted = (
                    "the default StorageClass"
                    if pvc.storage_class_name is None
                    else f"StorageClass {pvc.storage_class_name}"
                )
                needs.setdefault(wanted, []).append(key)
        for wanted, keys in needs.items():
            more = f" (and {len(keys) - 1} more)" if len(keys) > 1 else ""
            cw.missing.append(
                (
                    "the cluster state has no StorageClasses",
                    f"PersistentVolumeClaim {keys[0]}{more} needs {wanted}, and the cluster state holds no StorageClass objects "
                    "(a `kubectl cluster-info dump` saves none): add them with --cluster storageclasses.yaml "
                    f"(`kubectl get storageclasses -o yaml > storageclasses.yaml`), {_SUPPLY}",
                )
            )


def _never_created(ordered: list[CheckedWorkload], attempts: list[Attempt]) -> set[str]:
    """The pods of OrderedReady StatefulSets after each one's first pod that is not placed (by
    its last attempt); they leave the workloads' pods and are counted as never created."""
    last = {a.pod.key: a.result for a in attempts}
    never: set[str] = set()
    for cw in ordered:
        first = next((i for i, p in enumerate(cw.pods) if last.get(p.key) is not PodOutcome.SCHEDULED), None)
        if first is None or first == len(cw.pods) - 1:
            continue
        later = cw.pods[first + 1 :]
        never.update(p.key for p in later)
        cw.pods = cw.pods[: first + 1]
        cw.never_created += len(later)
    return never


def _pod_management_policy(w: Workload) -> str:
    spec = w.body.get("spec")
    policy = spec.get("podManagementPolicy") if isinstance(spec, dict) else None
    return policy if isinstance(policy, str) and policy else "OrderedReady"


# --- admission and controllers -------------------------------------------------------------------


def _refused_by(plugin: str | None) -> Verdict:
    """The verdict of pods the admission plugin ``plugin`` refuses (LimitRanger's by default)."""
    if plugin == NAMESPACE_LIFECYCLE:
        return Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE
    if plugin == PRIORITY:
        return Verdict.REFUSED_BY_PRIORITY
    return Verdict.REFUSED_BY_LIMIT_RANGE


def _refused_claims(chain: AdmissionChain, docs: list[Document], notes: list[str]) -> set[str]:
    """Claims of the manifests the LimitRanger admission plugin refuses (min/max storage)."""
    refused = set()
    for d in docs:
        meta = d.body.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, dict) and meta.get("namespace") else "default"
        name = meta.get("name") if isinstance(meta, dict) else ""
        refusal = chain.claim_refusal(d.body, str(ns), str(name))
        if refusal is not None:
            refused.add(f"{ns}/{name}")
            notes.append(f"PersistentVolumeClaim {ns}/{name} is not created: {refusal}")
    return refused


def _claim_template_refusal(chain: AdmissionChain, w: Workload) -> str | None:
    """A StatefulSet creates each pod's claims first: a claim template the namespace's
    LimitRanges refuse leaves every pod uncreated (the controller retries the claim)."""
    if w.kind != "StatefulSet":
        return None
    spec = w.body.get("spec")
    templates = spec.get("volumeClaimTemplates") if isinstance(spec, dict) else None
    if not isinstance(templates, list):
        return None
    for tpl in templates:
        if not isinstance(tpl, dict):
            continue
        meta = tpl.get("metadata")
        tname = meta.get("name", "") if isinstance(meta, dict) else ""
        refusal = chain.claim_refusal(tpl, w.namespace or "default", f"{tname}-{w.name}-0")
        if refusal is not None:
            return refusal
    return None


def _admit_by_quota(chain: AdmissionChain, cw: CheckedWorkload, pods: list[Pod], *, generated: bool) -> list[Pod]:
    """The pods the ResourceQuota admission plugin lets the controller create, one after
    another; the others are counted as refused, with the first refusal's message."""
    admitted = []
    for pod in pods:
        # controllers create pods with generateName: the Forbidden error names the prefix
        outcome = chain.resource_quota(pod, pod.name[:-GENERATED_SUFFIX_LENGTH] if generated else pod.name)
        if not isinstance(outcome, Refused):
            admitted.append(pod)
            continue
        cw.refused += 1
        if cw.refusal is None:
            cw.refusal = outcome.message
            cw.refused_by = Verdict.REFUSED_BY_QUOTA
    return admitted


def _autoscaled(w: Workload, state: ClusterState, hpa_max: bool, notes: list[str]) -> Workload:
    """The replicas the HorizontalPodAutoscaler controller keeps a target at: spec.replicas
    (1 when unset) raised to minReplicas and lowered to maxReplicas at once; with ``hpa_max``,
    maxReplicas (the peak a rollout must survive). A target scaled to 0 is not autoscaled."""
    if w.kind not in ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"):
        return w
    hpa = next(
        (
            h
            for h in sorted(state.hpas.values(), key=lambda h: h.name)
            if h.namespace == (w.namespace or "default") and h.target_kind == w.kind and h.target_name == w.name
        ),
        None,
    )
    if hpa is None:
        return w
    spec = w.body.get("spec")
    raw = spec.get("replicas") if isinstance(spec, dict) else None
    replicas = raw if isinstance(raw, int) and not isinstance(raw, bool) else 1
    bounds = f"HorizontalPodAutoscaler {hpa.name} (minReplicas {hpa.min_replicas}, maxReplicas {hpa.max_replicas})"
    if replicas == 0:
        notes.append(f"{bounds}: the target has 0 replicas, so autoscaling is disabled")
        return w
    if hpa_max:
        want = hpa.max_replicas
        notes.append(f"{bounds}: checked at maxReplicas {want} (--hpa-max)")
    elif replicas < hpa.min_replicas:
        want = hpa.min_replicas
        notes.append(f"{bounds}: {replicas} replica(s) are raised to minReplicas {want} at once")
    elif replicas > hpa.max_replicas:
        want = hpa.max_replicas
        notes.append(f"{bounds}: {replicas} replicas are lowered to maxReplicas {want} at once")
    else:
        notes.append(
            f"{bounds}: {replicas} replica(s), within its bounds (it may scale up to {hpa.max_replicas}; see --hpa-max)"
        )
        return w
    body = copy.deepcopy(w.body)
    body.setdefault("spec", {})["replicas"] = want
    return dataclasses.replace(w, body=body)


def _daemonset_max_surge(w: Workload) -> int:
    """spec.updateStrategy.rollingUpdate.maxSurge (0 by default, and for OnDelete); a
    percentage counts as 1 or more when it is above zero (it is rounded up)."""
    spec = w.body.get("spec")
    strategy = spec.get("updateStrategy") if isinstance(spec, dict) else None
    if not isinstance(strategy, dict):
        return 0
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return 0
    rolling = strategy.get("rollingUpdate")
    raw = rolling.get("maxSurge") if isinstance(rolling, dict) else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return max(raw, 0)
    if isinstance(raw, str) and raw.endswith("%") and raw[:-1].isdigit():
        return 1 if int(raw[:-1]) > 0 else 0
    return 0


def _template_of(body: dict[str, Any]) -> dict[str, Any]:
    spec = body.get("spec")
    tmpl = spec.get("template") if isinstance(spec, dict) else None
    return tmpl if isinstance(tmpl, dict) else {}


def _subset(new: Any, old: Any) -> bool:
    """Every field ``new`` sets has that value in ``old`` (which the API server defaulted, and
    whose quantities it wrote in canonical form)."""
    if isinstance(new, dict):
        return isinstance(old, dict) and all(k in old and _subset(v, old[k]) for k, v in new.items())
    if isinstance(new, list):
        return isinstance(old, list) and len(new) == len(old) and all(_subset(a, b) for a, b in zip(new, old))
    if new == old:
        return True
    try:
        return parse_quantity(new) == parse_quantity(old)
    except QuantityError:
        return False


def _template_unchanged(current: Workload, new: Workload) -> bool:
    """Whether re-applying ``new`` leaves the running template as it is: what it sets is what
    runs, and it drops none of the fields that decide scheduling (nor a container's requests
    or limits). A defaulted field the manifest leaves out does not count as a change."""
    old_t, new_t = _template_of(current.body), _template_of(new.body)
    if not _subset(new_t, old_t):
        return False
    old_spec, new_spec = old_t.get("spec") or {}, new_t.get("spec") or {}
    if any(k in old_spec and k not in new_spec for k in _SCHEDULING_FIELDS):
        return False
    for old_c, new_c in zip(old_spec.get("containers") or [], new_spec.get("containers") or []):
        old_r, new_r = old_c.get("resources") or {}, new_c.get("resources") or {}
        for key in ("requests", "limits"):
            if set(old_r.get(key) or {}) - set(new_r.get(key) or {}):
                return False
    return True


def _unlinked_note(w: Workload, current: Workload | None, n: int) -> str:
    owner = {"Deployment": "ReplicaSet", "CronJob": "Job"}.get(w.kind)
    if current is None:
        missing = f"no {w.kind} {w.namespace}/{w.name}" + (f" nor its {owner}s" if owner else "")
    else:
        missing = f"no {owner}s of {w.kind} {w.namespace}/{w.name}"
    how = f"their owner {owner}'s name ({w.name}-<hash>)" if w.kind == "Deployment" else "their owner's name"
    if w.kind == "CronJob":
        how = f"their owner Job's name ({w.name}-<n>)"
    return f"the cluster state has {missing}: {n} running pod(s) were matched to it by {how} and labels"


def _ephemeral_claims(chain: AdmissionChain, state: ClusterState, pods: list[Pod]) -> list[str]:
    """The ephemeral volume controller creates each generic ephemeral volume's claim
    ("<pod>-<volume>", owned by the pod); DefaultStorageClass gives it the default class."""
    from kwhatif.api import storage

    created = []
    for pod in pods:
        for v in pod.volumes:
            if v.kind != "ephemeral" or not v.ephemeral_claim:
                continue
            name = f"{pod.name}-{v.name}"
            key = f"{pod.namespace}/{name}"
            if key in state.pvcs:
                continue
            body = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": name,
                    "namespace": pod.namespace,
                    "uid": f"kwhatif-ephemeral-{pod.namespace}-{name}",
                    "ownerReferences": [
                        {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}
                    ],
                },
                "spec": dict(v.ephemeral_spec or {}),
            }
            state.pvcs[key] = chain.default_storage_class(storage.persistent_volume_claim(body))
            created.append(key)
    return created


def _uses_claim(pod: Pod, key: str) -> bool:
    ns, _, name = key.partition("/")
    if pod.namespace != ns:
        return False
    return any(v.claim_name == name or (v.kind == "ephemeral" and f"{pod.name}-{v.name}" == name) for v in pod.volumes)


# --- validation ---------------------------------------------------------------------------------------


def _invalid(w: Workload, state: ClusterState, index: int, stale: frozenset[str]) -> FieldError | None:
    """The field error the API server answers ``w`` with, if any (its pods are not built for keeps)."""
    from kwhatif.controlplane.controllers import workloads as wl

    try:
        wl.expand_workload(w, state, index=index, stale=stale)
    except FieldError as e:
        return e
    return None


def _name_error(w: Workload) -> FieldError | None:
    """ValidateObjectMeta of a workload: its name must be a DNS subdomain (the name of every
    workload kind kwhatif expands)."""
    from kwhatif.api import fields as f
    from kwhatif.api.names import is_dns1123_subdomain

    for msg in is_dns1123_subdomain(w.name):
        return f.invalid("metadata.name", w.name, msg)
    return None


def _field_error_text(error: FieldError) -> str:
    """The field error as the API server words it: "<path>: <what is wrong>"."""
    return f"{error.field}: {error.message}" if error.field else error.message


def _invalid_entry(w: Workload, error: FieldError, notes: list[str]) -> CheckedWorkload:
    """A workload the API server refuses (a field it does not accept): it is never created, nor
    are its pods."""
    desired = _declared_replicas(w)
    cw = CheckedWorkload(w.kind, w.namespace, w.name, w.source, desired, [], notes=notes)
    cw.verdict = cw.refused_by = Verdict.REFUSED_BY_API
    cw.refused, cw.refusal = desired or 0, _field_error_text(error)
    return cw


def _declared_replicas(w: Workload) -> int | None:
    """The pods a workload asks for as its manifest says (None when it does not say, or says
    something invalid)."""
    spec = w.body.get("spec")
    if not isinstance(spec, dict):
        return None
    if w.kind in ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"):
        n = spec.get("replicas", 1)
    elif w.kind == "Job":
        n = spec.get("parallelism", 1)
    else:
        return None
    return n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_PODS else None


# --- custom resources -----------------------------------------------------------------------------


def _screen_objects(docs: list[Document]) -> tuple[list[Document], list[CheckedWorkload]]:
    """The objects other than workloads and Pods that the API server would create, and an entry
    for each one it refuses (a field it does not accept: kubectl apply creates the others)."""
    good: list[Document] = []
    refused: list[CheckedWorkload] = []
    for d in docs:
        try:
            # on a copy, with names of its own: this only asks whether the object is valid
            build_cluster([dataclasses.replace(d, body=copy.deepcopy(d.body))], check_node_refs=False)
        except FieldError as e:
            cw = _unevaluated(d, None, Verdict.REFUSED_BY_API)
            cw.refused_by, cw.refusal = Verdict.REFUSED_BY_API, _field_error_text(e)
            refused.append(cw)
        else:
            good.append(d)
    return good, refused


def _unserved(doc: Document) -> CheckedWorkload:
    """An object of a group/version the release's API server does not serve: kubectl's answer."""
    cw = _unevaluated(doc, None, Verdict.REFUSED_BY_API)
    cw.refusal = f'no matches for kind "{doc.kind}" in version "{doc.api_version}"'
    return cw


def _not_checked(doc: Document) -> CheckedWorkload:
    """An object that may run pods but that kwhatif does not expand into them."""
    count = operator_pods(doc.api_version, doc.kind, doc.body) if is_custom_resource(doc) else None
    cw = _unevaluated(doc, None if count is None else count.pods, Verdict.NOT_CHECKED)
    cw.custom = is_custom_resource(doc)
    if cw.custom:
        cw.notes.append(
            f"{doc.kind} ({group_of(doc.api_version)}) is a custom resource: the operator that watches it creates "
            "its pods, and kwhatif cannot tell which, so they are not checked"
            + (f"; {count.describe()}" if count is not None else "")
        )
    else:
        cw.notes.append(
            f"{doc.kind} ({doc.api_version}) is a kind kwhatif does not evaluate: its pods, if any, are not checked"
        )
    return cw


def _unevaluated(doc: Document, desired: int | None, verdict: Verdict) -> CheckedWorkload:
    """The entry of an object kwhatif does not expand into pods, named as its metadata names it."""
    meta = doc.body.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    return CheckedWorkload(doc.kind, str(ns), str(name), doc.source, desired, [], verdict=verdict)


# --- helpers ----------------------------------------------------------------------------------------


def _check_size(w: Workload, planned: int) -> None:
    spec: dict[str, Any] = w.body.get("spec") if isinstance(w.body.get("spec"), dict) else {}  # type: ignore[assignment]
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    job: dict[str, Any] = job_spec if isinstance(job_spec, dict) else spec
    for key in ("replicas", "parallelism"):
        n = job.get(key)
        if isinstance(n, int) and not isinstance(n, bool) and planned + n > MAX_PODS:
            raise InputError(
                f"{key} {n} would make more than {MAX_PODS} pods to place in one check",
                source=w.source,
                obj=f"{w.kind} {w.namespace}/{w.name}",
                field=f"spec.{key}" if job is spec else f"spec.jobTemplate.spec.{key}",
            )


def _doc_order(docs: list[Document], w: Workload) -> int:
    for i, d in enumerate(docs):
        if d.source == w.source:
            return i
    return len(docs)
