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

``check()`` reads as the sequence of those steps, each a function below: classify the documents,
apply the companion objects, plan each update and expand and admit its pods, mark what the cluster
state cannot answer, bind volumes, settle the verdicts, place. The rules of an update (surge,
DaemonSet maxSurge, OrderedReady, the HorizontalPodAutoscaler's bounds) are the controllers', in
controlplane/controllers/rollout.py.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain as chain_pods
from typing import Any

from kwhatif.api.core import Pod
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.cache.kinds import WORKLOAD_KINDS
from kwhatif.controlplane.admission.chain import NAMESPACE_LIFECYCLE, PRIORITY, AdmissionChain, Refused
from kwhatif.controlplane.admission.resourcequota import QuotaLedger
from kwhatif.controlplane.controllers import rollout
from kwhatif.controlplane.controllers.apply import merge_objects
from kwhatif.controlplane.controllers.pods import pods_from_documents, prepare_incoming
from kwhatif.controlplane.controllers.workloads import GENERATED_SUFFIX_LENGTH, ExpandedWorkload
from kwhatif.errors import FieldError, InputError
from kwhatif.framework.types import PodOutcome
from kwhatif.load.cluster import READ_KINDS, UnservedVersion, build_cluster, classify, is_custom_resource
from kwhatif.load.files import Document
from kwhatif.release.schema import newer_than_schema
from kwhatif.release.versions import SchedulerVersion
from kwhatif.report.verdict import FAILURES, WARNINGS, Verdict
from kwhatif.scheduling.scheduler import Attempt, Scheduler
from kwhatif.whatif import kubelet
from kwhatif.whatif.unevaluated import group_of, is_cluster_scoped, operator_pods, runs_no_pods

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
    suspended: bool = False  # not checked because suspended (see --admit-suspended)

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

# How to give kwhatif the objects a cluster-info dump (or a partial export) lacks.
_SUPPLY = "or save the whole cluster state with `kwhatif snapshot`"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What `kwhatif check` is asked about the manifests besides the manifests themselves."""

    surge: bool = False  # updated workloads keep their running pods while the new ones are placed
    profile: str | None = None  # every pod is scheduled with this profile
    hpa_max: bool = False  # autoscaled workloads are checked at their HorizontalPodAutoscaler's maxReplicas
    admit_suspended: bool = False  # suspended Jobs and operators' objects are checked as if resumed


def check(
    state: ClusterState,
    docs: list[Document],
    sched_factory: Callable[[ClusterState], Scheduler],
    *,
    surge: bool = False,
    profile: str | None = None,
    hpa_max: bool = False,
    admit_suspended: bool = False,
) -> tuple[CheckResult, Scheduler]:
    """Place the pods the manifests' workloads and Pods create (see the module's doc).
    ``admit_suspended``: suspended Jobs and operators' objects are checked as if resumed (else
    they are listed as not checked). Each step below is what a part of the control plane does
    with the manifests, in the order kubectl apply and the controllers do it."""
    options = CheckOptions(surge, profile, hpa_max, admit_suspended)
    state = state.fork()  # the manifests change a copy of the cluster, never the caller's
    docs_by_use = classify_documents(docs, state.version)
    companions = apply_companions(state, docs, docs_by_use)
    workloads = plan_and_admit_workloads(state, companions.chain, docs_by_use.workloads, options)
    checked = [
        *workloads.entries,
        *admit_bare_pods(state, companions.chain, docs_by_use.pods, options.surge),
        *expand_custom_objects(state, companions.chain, docs_by_use, workloads.next_index, options.admit_suspended),
        *docs_by_use.refused,
        *companions.refused,
    ]
    notes = [*docs_by_use.notes, *companions.notes]
    if not checked:
        notes.append(_nothing_to_check(docs))
    mark_unknown_objects(companions, checked)
    notes += bind_volumes(state, companions.chain, checked, [*companions.new_claims, *workloads.new_claims])
    mark_unknown_storage_classes(state, companions, checked)
    settle_verdicts(checked)
    attempts, sched = place(state, checked, sched_factory, options.profile)
    return CheckResult(checked, attempts, dict(docs_by_use.skipped), notes), sched


# --- step 1: classify the documents ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Classified:
    """The manifests' documents by what check does with each (in the manifests' order)."""

    workloads: tuple[Document, ...]  # expanded into the pods their controllers create
    pods: tuple[Document, ...]  # bare Pods
    companions: tuple[Document, ...]  # objects that join the cluster first (the API server accepts them)
    custom: tuple[Document, ...]  # operators' objects and other kinds that may run pods
    skipped: Mapping[str, int]  # kinds known to run no pods: how many of each
    refused: tuple[CheckedWorkload, ...]  # objects the API server refuses (unserved, unknown or invalid fields)
    notes: tuple[str, ...]  # about the change as a whole
    scoped: frozenset[tuple[str, str]]  # (group, kind) of custom resources the manifests' CRDs make cluster-scoped


def classify_documents(docs: list[Document], version: SchedulerVersion) -> Classified:
    """Step 1: sort the documents (kubectl apply's first answers: a group/version the API server
    does not serve, fields strict validation refuses, objects validation refuses)."""
    workloads: list[Document] = []
    pods: list[Document] = []
    companions: list[Document] = []
    custom: list[Document] = []
    skipped: dict[str, int] = {}
    refused: list[CheckedWorkload] = []
    notes: list[str] = []
    for d in docs:
        try:
            kind = classify(d)
        except UnservedVersion:
            # kubectl apply: the release's API server does not serve this group/version
            refused.append(_unserved(d))
            continue
        if kind is None:
            # every object that may run pods gets an entry; only kinds known to run none are counted
            if runs_no_pods(d.api_version, d.kind):
                skipped[d.kind] = skipped.get(d.kind, 0) + 1
            else:
                custom.append(d)
            continue
        unknown = _strict_refusal(d, version, notes)
        if unknown is not None:
            refused.append(unknown)
        elif kind in WORKLOAD_KINDS:
            workloads.append(d)
        elif kind == "Pod":
            pods.append(d)
        else:
            companions.append(d)
    companions, invalid = _screen_objects(companions)
    return Classified(
        tuple(workloads),
        tuple(pods),
        tuple(companions),
        tuple(custom),
        skipped,
        (*refused, *invalid),
        tuple(notes),
        crd_cluster_scoped(docs),
    )


# --- step 2: apply the companion objects ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Companions:
    """The cluster state's answers once the manifests' other objects joined it."""

    chain: AdmissionChain  # the API server's admission over the state, the manifests' quotas counted
    whole: bool  # read live or saved by `kwhatif snapshot`: every list is whole, an empty one the truth
    priority_classes_listed: bool  # whether a PriorityClass the state lacks is known not to exist
    new_claims: tuple[str, ...]  # claims the manifests create
    refused: tuple[CheckedWorkload, ...]  # objects NamespaceLifecycle refuses
    notes: tuple[str, ...]  # claims LimitRanger refuses


def apply_companions(state: ClusterState, docs: list[Document], classified: Classified) -> Companions:
    """Step 2: Namespaces, ResourceQuotas, LimitRanges, PriorityClasses, StorageClasses, claims,
    volumes and the other objects of the manifests join the cluster state, as `kubectl apply`
    creates them before the controllers create any pod."""
    # whether the cluster state lists its Namespaces, before the manifests' own join it
    chain = AdmissionChain(state, namespaces_listed=bool(state.namespaces))
    whole = bool(state.server_version or state.recorded_server_version)
    created = _manifest_namespaces(docs)
    kept, refused = _namespace_refused(chain, list(classified.companions), created, classified.scoped)
    notes: list[str] = []
    new_claims = merge_objects(state, kept, notes, chain) if kept else []
    # the manifests' own ResourceQuotas count too
    chain.quota = QuotaLedger.of(state.resource_quotas.values(), chain_pods(state.pods, state.pending_pods))
    return Companions(
        chain, whole, whole or bool(state.priority_classes), tuple(new_claims), tuple(refused), tuple(notes)
    )


# --- steps 3 and 4: plan the updates, expand and admit the pods --------------------------------------


@dataclass(frozen=True, slots=True)
class WorkloadEntries:
    entries: tuple[CheckedWorkload, ...]
    new_claims: tuple[str, ...]  # claims the controllers create (a StatefulSet's volumeClaimTemplates)
    next_index: int  # the creation order of the next object that creates pods


@dataclass(frozen=True, slots=True)
class Update:
    """How a workload of the manifests changes what the cluster runs."""

    running: tuple[Pod, ...]  # its pods that run now (none: a new workload)
    keys: frozenset[str]
    rollout: rollout.Rollout


def plan_and_admit_workloads(
    state: ClusterState, chain: AdmissionChain, docs: tuple[Document, ...], options: CheckOptions
) -> WorkloadEntries:
    """Steps 3 and 4, workload by workload in the manifests' order: the update each one makes
    (its running pods leave first, or stay), then the pods its controller creates, admitted."""
    manifest_state = build_cluster(list(docs), check_node_refs=False, names=state.names)
    ordered = sorted(manifest_state.workloads.values(), key=lambda w: _doc_order(docs, w))
    entries: list[CheckedWorkload] = []
    claims: list[str] = []
    planned = 0
    for index, w in enumerate(ordered):
        cw, new_claims = _update_workload(w, state, chain, index, planned, options)
        planned += len(cw.pods)
        entries.append(cw)
        claims += new_claims
    return WorkloadEntries(tuple(entries), tuple(claims), len(ordered))


def _update_workload(
    w: Workload, state: ClusterState, chain: AdmissionChain, index: int, planned: int, options: CheckOptions
) -> tuple[CheckedWorkload, list[str]]:
    """One workload's entry and the claims its controller creates."""
    notes: list[str] = []
    w = rollout.autoscaled(w, state.hpas.values(), options.hpa_max, notes)
    name_error = _name_error(w)
    if name_error is not None:
        return _invalid_entry(w, name_error, notes), []
    update = plan_update(w, state, options.surge, notes)
    if update.running and update.rollout.leave_first:
        invalid = _invalid(w, state, index, update.rollout.stale)
        if invalid is not None:
            # the API server refuses the new version: the running pods stay as they are
            notes.append(f"the API server refuses the update: the {len(update.keys)} running pod(s) keep running")
            return _invalid_entry(w, invalid, notes), []
        state.pods = [p for p in state.pods if p.key not in update.keys]
        state.pending_pods = [p for p in state.pending_pods if p.key not in update.keys]
        for p in update.running:
            chain.release(p)
    return expand_and_admit(w, update, state, chain, index, planned, options.admit_suspended, notes)


def plan_update(w: Workload, state: ClusterState, surge: bool, notes: list[str]) -> Update:
    """Step 3: the workload the cluster runs under the manifest's name (if any), its pods, and
    which of them make room before the new ones come (controlplane/controllers/rollout.py)."""
    from kwhatif.controlplane.controllers import workloads as wl

    current = state.workloads.get(w.key)
    running = wl.owned_pods(current or w, state)
    keys = frozenset(p.key for p in running)
    if running:
        unlinked = wl.matched_without_owners(current or w, state, running)
        if unlinked:
            notes.append(_unlinked_note(w, current, unlinked))
    plan = rollout.plan_rollout(w, current, keys, surge=surge)
    notes.extend(plan.notes)
    return Update(tuple(running), keys, plan)


def expand_and_admit(
    w: Workload,
    update: Update,
    state: ClusterState,
    chain: AdmissionChain,
    index: int,
    planned: int,
    admit_suspended: bool,
    notes: list[str],
) -> tuple[CheckedWorkload, list[str]]:
    """Step 4: the pods the workload's controller creates (``index``: its place in the creation
    order; ``planned``: pods already planned), or why it creates none."""
    from kwhatif.controlplane.controllers import workloads as wl

    replaced = len(update.keys) if update.rollout.leave_first else 0
    stale = update.rollout.stale
    check_size(w, planned)
    try:
        exp = wl.expand_workload(w, state, index=index, stale=stale, admit_suspended=admit_suspended)
        suspension = None if admit_suspended else _suspension(w)
        if suspension is not None:
            # how many pods it runs once resumed (Kueue resumes the Jobs it admits)
            would = wl.expand_workload(w, state, index=index, stale=stale, admit_suspended=True)
    except FieldError as e:
        return _invalid_entry(w, e, notes), []
    if suspension is not None:
        return _suspended_entry(w.kind, w.namespace, w.name, w.source, would.desired, suspension, notes), []
    cw = CheckedWorkload(w.kind, w.namespace, w.name, w.source, exp.desired, [], replaced, notes + list(exp.notes))
    cw.ordered_ready = rollout.ordered_ready(w)
    if update.running:
        cw.notes.append(
            f"updates the running {w.kind}: its {len(update.keys)} current pod(s) keep running (--surge)"
            if not update.rollout.leave_first
            else f"updates the running {w.kind}: its {len(update.keys)} current pod(s) leave first"
        )
    state.workloads[w.key] = w
    return cw, _admit(w, cw, exp, state, chain)


def _admit(
    w: Workload, cw: CheckedWorkload, exp: ExpandedWorkload, state: ClusterState, chain: AdmissionChain
) -> list[str]:
    """The admission of the workload and of the pods (and claims) its controller creates: the
    pods admitted go to ``cw.pods``; returns the claims created."""
    ns_refusal = chain.namespace_lifecycle(w.namespace)
    if ns_refusal is not None:
        # the API server refuses the workload itself (plugin/pkg/admission/namespace/lifecycle):
        # no controller, no pods, whether it asks for any or not
        cw.refused, cw.refusal, cw.refused_by = exp.desired, ns_refusal, Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE
        cw.verdict = Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE
        return []
    if exp.refusal is not None:
        cw.refused, cw.refusal, cw.refused_by = exp.desired, exp.refusal, _refused_by(exp.refused_by)
        return []
    if w.kind == "DaemonSet" and exp.desired == 0:
        cw.verdict = Verdict.NO_ELIGIBLE_NODES
        cw.notes.append(
            "DaemonSet: no node matches its nodeSelector, required node affinity and tolerations: it runs no pod"
        )
        return []
    claim_refusal = _claim_template_refusal(chain, w)
    if claim_refusal is not None:
        cw.refused, cw.refusal, cw.refused_by = len(exp.pods), claim_refusal, Verdict.REFUSED_BY_LIMIT_RANGE
        exp = dataclasses.replace(exp, pods=(), pvcs=())
    cw.pods = _admit_by_quota(chain, cw, list(exp.pods), generated=w.kind != "StatefulSet")
    if cw.refused:
        return []
    created = []
    for pvc in exp.pvcs:
        if pvc.key not in state.pvcs:
            state.pvcs[pvc.key] = pvc
            created.append(pvc.key)
    return created


def admit_bare_pods(
    state: ClusterState, chain: AdmissionChain, docs: tuple[Document, ...], surge: bool
) -> list[CheckedWorkload]:
    """Step 4 for the manifests' Pods: each one validated and admitted; a Pod that replaces a
    running one of its name takes its place (unless ``surge``)."""
    refusals: dict[str, Refused[Pod]] = {}
    admitted: dict[str, str] = {}
    invalid_pods: dict[int, FieldError] = {}
    bare, _ = pods_from_documents(
        list(docs), state, refusals=refusals, admitted=admitted, chain=chain, invalid=invalid_pods
    )
    valid = iter(prepare_incoming(bare, state, replace_existing=not surge))
    entries: list[CheckedWorkload] = []
    for i, doc in enumerate(docs):
        if i in invalid_pods:
            cw = _unevaluated(doc, 1, Verdict.REFUSED_BY_API)
            cw.refused, cw.refusal = 1, _field_error_text(invalid_pods[i])
            entries.append(cw)
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
        entries.append(cw)
    return entries


def expand_custom_objects(
    state: ClusterState, chain: AdmissionChain, classified: Classified, index: int, admit_suspended: bool
) -> list[CheckedWorkload]:
    """Step 4 for operators' objects (expanded when kwhatif knows the pods their manifest
    declares) and the other kinds that may run pods (not checked); ``index``: the creation order
    of the first."""
    docs, entries = _namespace_refused(chain, list(classified.custom), frozenset(), classified.scoped)
    for d in docs:
        entry, made = _operator_entry(d, state, chain, index, admit_suspended)
        entries.append(entry if entry is not None else _not_checked(d, classified.scoped))
        # each workload the operator creates makes its pods a day after the one before
        index += max(made, 1)
    return entries


def _nothing_to_check(docs: list[Document]) -> str:
    held: dict[str, int] = {}
    for d in docs:
        held[d.kind] = held.get(d.kind, 0) + 1
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(held.items()))
    return "nothing to check: the manifests hold no workloads or pods" + (f" (they hold {kinds})" if kinds else "")


# --- steps 5 to 7: mark unknowns, bind volumes (between the two marks), settle the verdicts -------


def mark_unknown_objects(companions: Companions, checked: list[CheckedWorkload]) -> None:
    """Step 5: what a partial cluster state cannot answer (a PriorityClass or Namespace it may
    lack) turns the refusal or placement that depends on it into an unknown."""
    if not companions.priority_classes_listed:
        _unknown_priority_classes(checked)
    if not companions.whole:
        _unknown_namespaces(companions.chain, checked)


def bind_volumes(
    state: ClusterState, chain: AdmissionChain, checked: list[CheckedWorkload], new_claims: list[str]
) -> list[str]:
    """Step 6: the ephemeral volume controller creates the pods' ephemeral claims, then the PV
    controller binds or provisions the new Immediate claims; what it did is noted on the
    entries whose pods use the claim, else returned as a note about the change."""
    from kwhatif.controlplane.controllers.pv_controller import ephemeral_claims, sync_claims

    claims = new_claims + ephemeral_claims(chain, state, [p for cw in checked for p in cw.pods])
    notes: list[str] = []
    for outcome in sync_claims(state, claims):
        users = [cw for cw in checked if any(_uses_claim(p, outcome.claim) for p in cw.pods)]
        text = f"PersistentVolumeClaim {outcome.claim}: {outcome.note}"
        if users:
            for cw in users:
                cw.notes.append(text)
        else:
            notes.append(text)
    return notes


def mark_unknown_storage_classes(state: ClusterState, companions: Companions, checked: list[CheckedWorkload]) -> None:
    """Step 5, after the PV controller (a claim it bound to a volume needs no class): a partial
    state without StorageClasses cannot tell how an unbound claim is bound."""
    if not companions.whole and not state.storage_classes:
        _unknown_storage_classes(state, checked)


def settle_verdicts(checked: list[CheckedWorkload]) -> None:
    """Step 7: an entry with something unknown places no pods; what the API server drops from the
    new pods, and why an object is not checked, qualify the verdict."""
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


# --- step 8: place ---------------------------------------------------------------------------------


def place(
    state: ClusterState,
    checked: list[CheckedWorkload],
    sched_factory: Callable[[ClusterState], Scheduler],
    profile: str | None,
) -> tuple[list[Attempt], Scheduler]:
    """Step 8: the scheduler places the entries' pods (a pod bound by spec.nodeName goes to its
    node's kubelet); an OrderedReady StatefulSet's pods after its first pending one are never
    created, so they are placed again without them."""
    all_pods = [p for cw in checked for p in cw.pods]
    if profile:
        all_pods = [dataclasses.replace(p, scheduler_name=profile) for p in all_pods]
        for cw in checked:
            cw.pods = [dataclasses.replace(p, scheduler_name=profile) for p in cw.pods]
    sched = sched_factory(state)
    # pods bound by spec.nodeName go to their node's kubelet, the others to the scheduler
    attempts = kubelet.run(sched, all_pods, skip_unchanged=True) if all_pods else []
    for cw in checked:
        nodes = sorted({p.node_name for p in cw.pods if kubelet.is_bound(p, sched)})
        if nodes:
            cw.notes.append(
                f"{cw.kind}: its pods name node {', '.join(nodes)} in spec.nodeName: the scheduler never sees them, "
                "the node's kubelet admits or rejects them (resources, node affinity, host ports and NoExecute "
                "taints; cordoning and NoSchedule taints do not matter)"
            )
    ordered = [cw for cw in checked if cw.ordered_ready and len(cw.pods) > 1]
    for _ in ordered:
        # OrderedReady: the pods after the first one that stays pending are never created, so
        # they take no room from the others: place again without them
        never = _never_created(ordered, attempts)
        if not never:
            break
        all_pods = [p for p in all_pods if p.key not in never]
        sched = sched_factory(state)
        attempts = kubelet.run(sched, all_pods, skip_unchanged=True)
    for cw in ordered:
        if cw.never_created:
            pending = cw.pods[-1].name
            cw.notes.append(
                f"StatefulSet: {pending} does not fit, and OrderedReady creates the next pod only once it is Running "
                f"and Ready: the {cw.never_created} pod(s) after it are never created while it is pending"
            )
    return attempts, sched


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
        created = rollout.created_in_order(last.get(p.key) is PodOutcome.SCHEDULED for p in cw.pods)
        later = cw.pods[created:]
        never.update(p.key for p in later)
        cw.pods = cw.pods[:created]
        cw.never_created += len(later)
    return never


# --- admission and controllers -------------------------------------------------------------------


def _refused_by(plugin: str | None) -> Verdict:
    """The verdict of pods the admission plugin ``plugin`` refuses (LimitRanger's by default)."""
    if plugin == NAMESPACE_LIFECYCLE:
        return Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE
    if plugin == PRIORITY:
        return Verdict.REFUSED_BY_PRIORITY
    return Verdict.REFUSED_BY_LIMIT_RANGE


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
    return error.detail


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


def _manifest_namespaces(docs: list[Document]) -> frozenset[str]:
    """The Namespaces the manifests create (they exist when the other objects are created)."""
    out = set()
    for d in docs:
        meta = d.body.get("metadata")
        if d.kind == "Namespace" and d.api_version == "v1" and isinstance(meta, dict):
            out.add(str(meta.get("name") or ""))
    return frozenset(out)


def _namespace_refused(
    chain: AdmissionChain, docs: list[Document], created: frozenset[str], scoped: frozenset[tuple[str, str]]
) -> tuple[list[Document], list[CheckedWorkload]]:
    """The namespaced objects NamespaceLifecycle admits, and an entry for each one it refuses
    (plugin/pkg/admission/namespace/lifecycle: any object created in a namespace that does not
    exist, whatever it runs). A custom resource counts as namespaced when it names a namespace
    and its kind is not one known to be cluster-scoped."""
    kept: list[Document] = []
    refused: list[CheckedWorkload] = []
    for d in docs:
        meta = d.body.get("metadata")
        named = meta.get("namespace") if isinstance(meta, dict) else None
        if is_custom_resource(d):
            by_crd = (group_of(d.api_version), d.kind) in scoped
            namespaced = bool(named) and not by_crd and not is_cluster_scoped(d.api_version, d.kind)
        else:
            spec = READ_KINDS.get(d.kind)
            namespaced = spec is not None and spec[1]
        ns = str(named) if isinstance(named, str) and named else "default"
        answer = chain.namespace_lifecycle(ns) if namespaced and ns not in created else None
        if answer is None:
            kept.append(d)
            continue
        cw = _unevaluated(d, None, Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE, scoped)
        cw.refused_by, cw.refusal = Verdict.REFUSED_BY_NAMESPACE_LIFECYCLE, answer
        cw.custom = is_custom_resource(d)
        refused.append(cw)
    return kept, refused


def _strict_refusal(doc: Document, version: SchedulerVersion, notes: list[str]) -> CheckedWorkload | None:
    """kubectl apply's strict field validation: the entry of an object the API server refuses for
    fields its schema does not know (api/strict.py). When the selected release is newer than the
    schema kwhatif reads, an unknown field may be one that release added: a note, not a refusal."""
    from kwhatif.api import strict

    cls = strict.model_of(doc.api_version, doc.kind)
    if cls is None:
        return None
    unknown = strict.unknown_fields(doc.body, cls)
    if not unknown:
        return None
    message = strict.strict_decoding_error(doc.api_version, doc.kind, unknown)
    known = strict.client_release()
    if newer_than_schema(version, known):
        notes.append(
            f"{doc.describe()}: {message} in the API schema of 1.{known} kwhatif reads; {version.release} may know "
            "these fields, so the object is checked without them"
        )
        return None
    cw = _unevaluated(doc, 1 if doc.kind == "Pod" else None, Verdict.REFUSED_BY_API)
    cw.refused_by, cw.refusal = Verdict.REFUSED_BY_API, message
    cw.refused = 1 if doc.kind == "Pod" else 0
    return cw


def _unserved(doc: Document) -> CheckedWorkload:
    """An object of a group/version the release's API server does not serve: kubectl's answer."""
    cw = _unevaluated(doc, None, Verdict.REFUSED_BY_API)
    cw.refusal = f'no matches for kind "{doc.kind}" in version "{doc.api_version}"'
    return cw


def _suspension(w: Workload) -> str | None:
    """The field that suspends a Job or CronJob, when it is set (its controller then creates no
    pods, or no Jobs, until it is resumed)."""
    spec = w.body.get("spec")
    if not isinstance(spec, dict) or w.kind not in ("Job", "CronJob"):
        return None
    if spec.get("suspend") is True:
        return "spec.suspend"
    template = spec.get("jobTemplate") if w.kind == "CronJob" else None
    job_spec = template.get("spec") if isinstance(template, dict) else None
    if isinstance(job_spec, dict) and job_spec.get("suspend") is True:
        return "spec.jobTemplate.spec.suspend"
    return None


def _suspended_entry(
    kind: str, namespace: str, name: str, source: str, desired: int, suspension: str, notes: list[str]
) -> CheckedWorkload:
    """A suspended object: it runs no pods until it is resumed, so none are checked."""
    cw = CheckedWorkload(kind, namespace, name, source, desired, [], notes=list(notes))
    cw.verdict, cw.suspended = Verdict.NOT_CHECKED, True
    cw.notes.append(
        f"{kind}: suspended ({suspension} true): it creates none of its {desired} pod(s) until it is resumed (Kueue "
        "resumes what it admits), so they are not checked; --admit-suspended checks them as if it were resumed"
    )
    return cw


def _operator_entry(
    doc: Document, state: ClusterState, chain: AdmissionChain, index: int, admit_suspended: bool
) -> tuple[CheckedWorkload | None, int]:
    """The pods of an operator's object whose manifest declares them (controlplane/controllers/
    operators.py), placed like a workload's, and how many workloads its operator creates; None
    for a kind kwhatif does not expand."""
    from kwhatif.controlplane.controllers import operators
    from kwhatif.controlplane.controllers import workloads as wl

    if not operators.known(doc.api_version, doc.kind):
        return None, 0
    cw = _unevaluated(doc, 0, Verdict.FITS)
    cw.verdict, cw.custom = None, True
    ns = cw.namespace or "default"
    try:
        plan = operators.expansion(doc.api_version, doc.kind, ns, cw.name, doc.body, doc.source)
        assert plan is not None
        planned = 0
        for part in plan.parts:
            planned += _planned_pods(part.workload)
            if planned > MAX_PODS:
                raise InputError(
                    f"{doc.kind} {ns}/{cw.name} would make more than {MAX_PODS} pods to place in one check",
                    source=doc.source,
                    obj=f"{doc.kind} {ns}/{cw.name}",
                )
        parts = []
        for i, part in enumerate(plan.parts):
            try:
                parts.append((part, wl.expand_workload(part.workload, state, index=index + i, admit_suspended=True)))
            except FieldError as e:
                raise operators.remap(e, part.template) from None
    except FieldError as e:
        cw.verdict = cw.refused_by = Verdict.REFUSED_BY_API
        cw.refusal, cw.desired = _field_error_text(e), None
        return cw, 0
    cw.desired = sum(exp.desired for _, exp in parts)
    if plan.suspended is not None and not admit_suspended:
        return _suspended_entry(doc.kind, cw.namespace, cw.name, doc.source, cw.desired, plan.suspended, []), 0
    cw.notes.append(plan.describe)
    if plan.suspended is not None:
        cw.notes.append(f"{doc.kind}: suspended; checked as if it were resumed (--admit-suspended)")
    for part, exp in parts:
        if exp.refusal is not None:
            cw.refused += exp.desired
            if cw.refusal is None:
                cw.refusal, cw.refused_by = exp.refusal, _refused_by(exp.refused_by)
            continue
        cw.notes.extend(n for n in exp.notes if not n.startswith(f"{part.workload.kind}:"))
        cw.pods += _admit_by_quota(chain, cw, list(exp.pods), generated=part.workload.kind == "Job")
    cw.notes = list(dict.fromkeys(cw.notes))
    return cw, len(parts)


def _planned_pods(w: Workload) -> int:
    """At most how many pods a stand-in workload of an operator makes (before it is expanded)."""
    spec = w.body.get("spec")
    n = spec.get("replicas" if w.kind == "StatefulSet" else "parallelism", 1) if isinstance(spec, dict) else 1
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 1


def _not_checked(doc: Document, scoped: frozenset[tuple[str, str]] = frozenset()) -> CheckedWorkload:
    """An object that may run pods but that kwhatif does not expand into them."""
    count = operator_pods(doc.api_version, doc.kind, doc.body) if is_custom_resource(doc) else None
    cw = _unevaluated(doc, None if count is None else count.pods, Verdict.NOT_CHECKED, scoped)
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


def crd_cluster_scoped(docs: list[Document]) -> frozenset[tuple[str, str]]:
    """(group, kind) of the custom resources whose CustomResourceDefinition in the manifests says
    `scope: Cluster`."""
    out = set()
    for d in docs:
        spec = d.body.get("spec") if d.kind == "CustomResourceDefinition" else None
        if not isinstance(spec, dict) or spec.get("scope") != "Cluster":
            continue
        names = spec.get("names")
        if isinstance(names, dict):
            out.add((str(spec.get("group") or ""), str(names.get("kind") or "")))
    return frozenset(out)


def _unevaluated(
    doc: Document, desired: int | None, verdict: Verdict, scoped: frozenset[tuple[str, str]] = frozenset()
) -> CheckedWorkload:
    """The entry of an object kwhatif does not expand into pods, named as its metadata names it
    (a cluster-scoped one by its name alone)."""
    meta = doc.body.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    if is_cluster_scoped(doc.api_version, doc.kind) or (group_of(doc.api_version), doc.kind) in scoped:
        ns = ""
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    return CheckedWorkload(doc.kind, str(ns), str(name), doc.source, desired, [], verdict=verdict)


# --- helpers ----------------------------------------------------------------------------------------


def check_size(w: Workload, planned: int, run: str = "check") -> None:
    """Refuse a workload whose replicas would take the pods of one run past MAX_PODS."""
    spec: dict[str, Any] = w.body.get("spec") if isinstance(w.body.get("spec"), dict) else {}  # type: ignore[assignment]
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    job: dict[str, Any] = job_spec if isinstance(job_spec, dict) else spec
    for key in ("replicas", "parallelism"):
        n = job.get(key)
        if isinstance(n, int) and not isinstance(n, bool) and planned + n > MAX_PODS:
            raise InputError(
                f"{key} {n} would make more than {MAX_PODS} pods to place in one {run}",
                source=w.source,
                obj=f"{w.kind} {w.namespace}/{w.name}",
                field=f"spec.{key}" if job is spec else f"spec.jobTemplate.spec.{key}",
            )


def _doc_order(docs: Sequence[Document], w: Workload) -> int:
    for i, d in enumerate(docs):
        if d.source == w.source:
            return i
    return len(docs)
