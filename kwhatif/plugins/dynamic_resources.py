"""DynamicResources (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, 1.34
and later): a pod's ResourceClaims must exist and their device classes too (PreFilter); claims
that are allocated already restrict the pod to their allocation's nodes, and the others must be
allocatable on the node by the structured allocator (Filter); from 1.35 nodes score by the
prioritized-list alternatives they allow (Score, default weight 2); Reserve assumes the
allocations in the plugin's claim cache, so later pods of the same run see those devices taken;
Unreserve reverts them; PostFilter says which claim upstream would deallocate. Nothing is written
to the cluster.

The plugin and its feature set follow the selected release (kwhatif/versions.py): from 1.34
(DynamicResourceAllocation on) it is in the default profile, just before DefaultPreemption, and
it shows in every answer: its PreFilter skips a pod that has no ResourceClaims, its PostFilter
then rejects with "no new claims to deallocate" (which the FitError message carries before
DefaultPreemption's "preemption: ..."), and from 1.35 it scores such a pod 0. When a PreFilter
plugin ahead of it rejects the pod, its PreFilter never runs, so its PostFilter cannot read its
state and fails with "not found". With the gate off (1.30 … 1.33) a profile may still enable it:
it skips PreFilter and its PostFilter says "plugin disabled".

The claim logic (objects, CEL, allocator, explanations) lives in kwhatif/dra/. Claims that a
pod's ResourceClaimTemplates would give are created here as the resourceclaim controller would
create them (see dra/claims.py). Extended resources backed by DRA (DRAExtendedResource) and
binding conditions are not modelled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kwhatif.api.core import NodeSelector, Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import DynamicResourcesArgs
from kwhatif.dra import cel
from kwhatif.dra import claims as dra_claims
from kwhatif.dra import features as dra_features
from kwhatif.dra.allocator import AllocationError, Allocator, NodeAllocationError, SliceIndex, claim_ref
from kwhatif.dra.explain import Diagnosis, diagnose
from kwhatif.dra.types import (
    FIRST_AVAILABLE_MAX_SIZE,
    AllocationResult,
    ClaimDevices,
    ConsumerReference,
    Device,
    ResourceClaim,
)
from kwhatif.framework.interface import (
    ERR_NOT_FOUND,
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PostFilterPlugin,
    PostFilterResult,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.helper import default_normalize_score

if TYPE_CHECKING:
    from kwhatif.framework.handle import ClusterListers, Handle

NAME = "DynamicResources"
STATE_KEY: StateKey[_State] = StateKey(NAME)

# dynamicresources.go
ERR_REASON_IN_USE = "resourceclaim in use"
ERR_REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
ERR_STATE_NOT_FOUND = ERR_NOT_FOUND  # when PreFilter did not run
MSG_PLUGIN_DISABLED = "plugin disabled"
MSG_NO_CLAIMS = "no new claims to deallocate"
MSG_DEALLOCATED = "deallocation of ResourceClaim completed"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"


def _unschedulable(reason: str, *details: str) -> Status:
    """statusUnschedulable: UnschedulableAndUnresolvable."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,), "", tuple(details))


@dataclass(slots=True)
class _State:
    """stateData."""

    claims: list[ResourceClaim] = field(default_factory=list)
    available_on: list[NodeSelector | None] = field(default_factory=list)
    to_allocate: list[int] = field(default_factory=list)  # indexes into claims
    allocator: Allocator | None = None
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    unavailable: set[int] = field(default_factory=set)
    diagnoses: dict[str, Diagnosis] = field(default_factory=dict)

    def clone(self) -> _State:
        return self  # PreFilter extensions never change it; upstream shares it too


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin, ReservePlugin):
    NAME = NAME

    def __init__(self, handle: Handle, features: dra_features.Features) -> None:
        self.handle = handle
        self.features = features
        self.enabled = features.enabled
        # the run's claim cache: claims with the allocations and reservations Reserve assumed
        self.assumed: dict[str, ResourceClaim] = {}
        self._reserved: dict[str, list[tuple[str, ResourceClaim | None]]] = {}
        # claims created from templates, per pod and pod claim name
        self.generated: dict[tuple[str, str], ResourceClaim] = {}
        self._slices: SliceIndex | None = None
        self._inputs: dict[int, tuple[Device, cel.DeviceInput]] = {}
        self._results: dict[tuple[str, int, str], bool] = {}  # selector answers per device
        # the last diagnosis per pod, for hints
        self.last_state: dict[str, _State] = {}
        self._present: tuple[int, frozenset[str]] | None = None
        self._current = ""  # the uid of the pod in the scheduling cycle (it exists)

    # --- the cluster's DRA objects, as this run sees them ---------------------------------------

    @property
    def cluster(self) -> ClusterListers:
        return self.handle.cluster

    def slices(self) -> SliceIndex:
        if self._slices is None:
            self._slices = SliceIndex(self.cluster.resource_slices)
        return self._slices

    def claim(self, key: str) -> ResourceClaim | None:
        c = self.assumed.get(key) or self.cluster.resource_claims.get(key)
        return self._released(c) if c is not None else None

    def all_claims(self) -> dict[str, ResourceClaim]:
        out = dict(self.cluster.resource_claims)
        out.update(self.assumed)
        return {k: self._released(c) for k, c in out.items()}

    def _present_pods(self) -> frozenset[str]:
        """The uids of the pods that exist now: bound ones in the snapshot (which evictions,
        preemption and updated workloads change during a run), pending ones, and those bound to
        a node the cluster no longer has."""
        gen = self.handle.snapshot.generation
        if self._present is None or self._present[0] != gen:
            uids = {dra_claims.pod_uid(pi.pod) for pi in self.handle.snapshot.pods()}
            uids.update(dra_claims.pod_uid(p) for p in self.cluster.pending_pods)
            # pods bound to a node that is gone still exist: what is reserved for them stays so,
            # and a claim allocated on that node is not available anywhere else
            uids.update(self.cluster.orphaned_pod_uids)
            self._present = (gen, frozenset(uids))
        return self._present[1]

    def _released(self, claim: ResourceClaim) -> ResourceClaim:
        """A claim whose consumers are all gone is deallocated by the resourceclaim controller
        (a claim made from a template is deleted with its pod): its devices are free again."""
        if claim.allocation is None or not claim.reserved_for:
            return claim
        present = self._present_pods()
        if any(r.uid in present or r.uid == self._current for r in claim.reserved_for):
            return claim
        return dataclasses.replace(claim, allocation=None, reserved_for=())

    def _missing_claim(self, namespace: str, name: str) -> str:
        """How the release words a claim it cannot find: the claim lister's NotFound (1.30), the
        claims' assume cache's NotFoundError from 1.31 (assumecache.NotFoundError, TypeName
        "ResourceClaim", key "namespace/name"; pkg/scheduler/util/assumecache/assume_cache.go)."""
        if self.handle.version.behaviour.dra_claim_lookup_in_assume_cache:
            return f'could not find ResourceClaim "{namespace}/{name}"'
        return f'resourceclaim.resource.k8s.io "{name}" not found'

    def pod_claims(self, pod: Pod) -> list[ResourceClaim]:
        """foreachPodResourceClaim: the pod's claims in spec order; raises ClaimError with
        upstream's reason (and kwhatif's details)."""
        out: list[ResourceClaim] = []
        for pc in pod.resource_claims:
            if pc.resource_claim_template_name is not None and pc.name not in pod.resource_claim_statuses:
                claim = self._claim_from_template(pod, pc)
                out.append(self.claim(claim.key) or claim)
                continue
            name, must_check_owner = dra_claims.claim_name(pod, pc)
            if name is None:
                continue
            key = f"{pod.namespace}/{name}"
            claim_or_none = self.claim(key) or self._generated_by_key(key)
            if claim_or_none is None:
                raise _ClaimProblem(self._missing_claim(pod.namespace, name), *self._elsewhere(pod, name))
            claim = claim_or_none
            if claim.deleting:
                raise _ClaimProblem(f'resourceclaim "{claim.name}" is being deleted')
            if must_check_owner and not dra_claims.is_for_pod(pod, claim):
                raise _ClaimProblem(dra_claims.not_for_pod_error(pod, claim))
            out.append(claim)
        return out

    def _claim_from_template(self, pod: Pod, pc: Any) -> ResourceClaim:
        key = (pod.key, pc.name)
        claim = self.generated.get(key)
        if claim is not None:
            return claim
        tpl = self.cluster.resource_claim_templates.get(f"{pod.namespace}/{pc.resource_claim_template_name}")
        if tpl is None:
            tname = pc.resource_claim_template_name
            details = [
                f'the resourceclaim controller cannot create the pod\'s claim "{pc.name}": '
                f'resource claim template "{tname}": resourceclaimtemplate.resource.k8s.io "{tname}" not found'
            ]
            details += [
                d.replace("ResourceClaim", "ResourceClaimTemplate")
                for d in self._elsewhere(pod, pc.resource_claim_template_name or "", templates=True)
            ]
            raise _ClaimProblem(f'pod "{pod.namespace}/{pod.name}": {dra_claims.ERR_CLAIM_NOT_FOUND}', *details)
        claim = dra_claims.claim_from_template(pod, pc, tpl)
        self.generated[key] = claim
        return claim

    def _generated_by_key(self, key: str) -> ResourceClaim | None:
        for c in self.generated.values():
            if c.key == key:
                return c
        return None

    def _elsewhere(self, pod: Pod, name: str, templates: bool = False) -> list[str]:
        objects = self.cluster.resource_claim_templates if templates else self.cluster.resource_claims
        spaces = sorted(
            k.split("/", 1)[0] for k in objects if k.split("/", 1)[1] == name and not k.startswith(f"{pod.namespace}/")
        )
        if not spaces:
            return []
        return [
            f"a ResourceClaim named {name!r} exists in namespace {', '.join(spaces)}; "
            f"a pod can only use those of its own namespace ({pod.namespace})"
        ]

    # --- PreEnqueue ------------------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status:
        """A pod whose claims are not all there is not attempted (it waits for a claim event)."""
        if not self.enabled:
            return SUCCESS
        try:
            self.pod_claims(pod)
        except _ClaimProblem as e:
            return _unschedulable(e.reason, *e.details)
        return SUCCESS

    # --- PreFilter -------------------------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        if not self.enabled:
            return None, SKIP
        s = _State()
        state.write(STATE_KEY, s)
        self.last_state.pop(pod.key, None)
        self._current = dra_claims.pod_uid(pod)
        try:
            claims = self.pod_claims(pod)
        except _ClaimProblem as e:
            return None, _unschedulable(e.reason, *e.details)
        if not claims:
            return None, SKIP
        s.available_on = [None] * len(claims)
        for i, claim in enumerate(claims):
            if claim.allocation is not None:
                if not dra_claims.can_be_reserved(claim) and not dra_claims.is_reserved_for_pod(pod, claim):
                    return None, _unschedulable(ERR_REASON_IN_USE)
                s.available_on[i] = claim.allocation.node_selector
                continue
            s.to_allocate.append(i)
            for req in claim.spec.requests:
                if req.exactly is not None:
                    st = self._validate_class(req.exactly.device_class_name, req.name)
                    if st is not None:
                        return None, st
                elif req.first_available:
                    if not self.features.prioritized_list:
                        return None, _unschedulable(
                            f"resource claim {claim_ref(claim)}, request {req.name}: has subrequests, but the DRAPrioritizedList feature is disabled"
                        )
                    for sub in req.first_available:
                        st = self._validate_class(sub.device_class_name, f"{req.name}/{sub.name}")
                        if st is not None:
                            return None, st
                else:
                    return None, _unschedulable(
                        f"resource claim {claim_ref(claim)}, request {req.name}: unknown request type"
                    )
        if s.to_allocate:
            dedicated, shared = dra_claims.allocated_devices(
                self.all_claims().values(), self.features.consumable_capacity
            )
            s.allocator = Allocator(
                self.features,
                dedicated,
                self.cluster.device_classes,
                self.slices(),
                inputs=self._inputs,
                results=self._results,
                allocated_capacity=shared,
            )
        s.claims = claims
        self.last_state[pod.key] = s
        return None, SUCCESS

    def _validate_class(self, class_name: str, request_name: str) -> Status | None:
        if not class_name:
            return Status.error(f"request {request_name}: unsupported request type")
        if class_name not in self.cluster.device_classes:
            known = sorted(self.cluster.device_classes)
            detail = (
                f"device classes in the cluster: {', '.join(known)}" if known else "the cluster has no DeviceClasses"
            )
            return _unschedulable(f"request {request_name}: device class {class_name} does not exist", detail)
        return None

    # --- Filter ----------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not self.enabled:
            return SUCCESS
        try:
            s = state.read(STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        node = node_info.node
        unavailable = [
            i for i, sel in enumerate(s.available_on) if sel is not None and not sel.matches(node.labels, node.name)
        ]
        allocations: list[AllocationResult] = []
        if s.allocator is not None:
            to_allocate = [s.claims[i] for i in s.to_allocate]
            try:
                result = s.allocator.allocate(node, to_allocate)
            except NodeAllocationError as e:
                return _unschedulable(str(e))
            except AllocationError as e:
                return Status.error(str(e))
            if result is None or len(result) != len(to_allocate):
                diag = diagnose(s.allocator, node, to_allocate, dra_claims.devices_by_claim(self.all_claims()))
                s.diagnoses[node.name] = diag
                return _unschedulable(ERR_REASON_CANNOT_ALLOCATE, *diag.lines)
            allocations = result
        if unavailable:
            s.unavailable.update(unavailable)
            details = []
            for i in unavailable:
                allocation = s.claims[i].allocation
                only = f" (only {allocation.node_name})" if allocation and allocation.node_name else ""
                details.append(
                    f"claim {claim_ref(s.claims[i])} is allocated to devices that this node cannot reach{only}"
                )
            return _unschedulable(ERR_REASON_NOT_AVAILABLE, *details)
        if s.allocator is not None:
            s.node_allocations[node.name] = allocations
        devices = self._devices(s, node.name)
        return Status(Code.SUCCESS, (), "", tuple(dra_claims.describe_claim(d) for d in devices), devices)

    def _devices(self, s: _State, node_name: str) -> tuple[ClaimDevices, ...]:
        """The devices each claim gets (or has) on the node, for reports."""
        out = []
        allocations = s.node_allocations.get(node_name, [])
        for j, i in enumerate(s.to_allocate):
            if j < len(allocations):
                claim = s.claims[i]
                out.append(ClaimDevices(claim.namespace, claim.name, False, allocations[j].results))
        for claim in s.claims:
            if claim.allocation is not None:
                out.append(ClaimDevices(claim.namespace, claim.name, True, claim.allocation.results))
        return tuple(out)

    # --- PostFilter ------------------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        if not self.enabled:
            return None, Status.of(Code.UNSCHEDULABLE, MSG_PLUGIN_DISABLED)
        if not pod.resource_claims and self.handle.version.behaviour.dynamic_resources_post_filter_no_claims_fast_path:
            # 1.33 answers a pod without claims before reading the PreFilter state: no reason
            return None, Status(Code.UNSCHEDULABLE)
        try:
            s = state.read(STATE_KEY)
        except StateNotFoundError:
            return None, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status.of(Code.UNSCHEDULABLE, MSG_NO_CLAIMS)
        uid = dra_claims.pod_uid(pod)
        for i in sorted(s.unavailable):  # upstream picks one at random
            claim = s.claims[i]
            if not claim.reserved_for or (len(claim.reserved_for) == 1 and claim.reserved_for[0].uid == uid):
                return None, Status(
                    Code.UNSCHEDULABLE,
                    (MSG_DEALLOCATED,),
                    "",
                    (
                        f"upstream would deallocate ResourceClaim {claim_ref(claim)} so that the pod can be retried; kwhatif changes nothing",
                    ),
                )
        return None, Status.of(Code.UNSCHEDULABLE, MSG_STILL_NOT_SCHEDULABLE)

    # --- Reserve / Unreserve ---------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        if not self.enabled:
            return SUCCESS
        try:
            s = state.read(STATE_KEY)
        except StateNotFoundError:
            return Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        ref = ConsumerReference("pods", pod.name, dra_claims.pod_uid(pod))
        undo: list[tuple[str, ResourceClaim | None]] = []
        if s.to_allocate:
            allocations = s.node_allocations.get(node_name)
            if not allocations:
                return Status.error("claim allocation not found for node")
            if len(allocations) != len(s.to_allocate):
                return Status.error(
                    f"internal error, have {len(allocations)} allocations, {len(s.to_allocate)} claims to allocate, want {len(s.to_allocate)} claims"
                )
            for j, i in enumerate(s.to_allocate):
                claim = s.claims[i]
                undo.append((claim.key, self.assumed.get(claim.key)))
                self.assumed[claim.key] = dataclasses.replace(
                    claim, allocation=allocations[j], reserved_for=claim.reserved_for + (ref,)
                )
        for i, claim in enumerate(s.claims):
            if i in s.to_allocate or dra_claims.is_reserved_for_pod(pod, claim):
                continue
            # Upstream reserves in PreBind; assuming it here lets later pods of the run see it.
            undo.append((claim.key, self.assumed.get(claim.key)))
            self.assumed[claim.key] = dataclasses.replace(claim, reserved_for=claim.reserved_for + (ref,))
        self._reserved[pod.key] = undo
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for key, previous in reversed(self._reserved.pop(pod.key, [])):
            if previous is None:
                self.assumed.pop(key, None)
            else:
                self.assumed[key] = previous

    # --- hints -----------------------------------------------------------------------------------

    def explain_hints(self, pod: Pod) -> list[str]:
        """What no node offers: requests no node has a matching device for, or enough free ones."""
        s = self.last_state.get(pod.key)
        if s is None or not s.diagnoses:
            return []
        best: dict[
            tuple[str, str], tuple[int, int, int, str]
        ] = {}  # (claim, request) -> matching, usable, needed, class
        for diag in s.diagnoses.values():
            for rc in diag.requests:
                k = (rc.claim, rc.request)
                prev = best.get(k)
                cur = (rc.matching, rc.usable, rc.needed, rc.device_class)
                if prev is None or (cur[1], cur[0]) > (prev[1], prev[0]):
                    best[k] = cur
        out = []
        for (claim, request), (matching, usable, needed, cls) in sorted(best.items()):
            if matching == 0:
                out.append(
                    f"no node has a device of class {cls} that matches claim {claim}, request {request} "
                    "(check the class's and the request's selectors against the ResourceSlices)"
                )
            elif needed and usable < needed:
                out.append(
                    f"claim {claim}, request {request} needs {needed} device(s) of class {cls} on one node; "
                    f"at most {usable} are free on any node"
                )
        return out


class DynamicResourcesScoring(DynamicResources, ScorePlugin):
    """1.35: Score prefers nodes where claims get earlier prioritized-list alternatives."""

    def scores_zero_everywhere(self, state: CycleState) -> bool:
        """Whether Score gives this cycle's pod 0 on every node, before and after NormalizeScore:
        the plugin is off, or its PreFilter found that the pod has no resource claims. False
        when PreFilter left no state (Score then fails)."""
        if not self.enabled:
            return True
        try:
            return not state.read(STATE_KEY).claims
        except StateNotFoundError:
            return False

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        if not self.enabled:
            return 0, SUCCESS
        try:
            s = state.read(STATE_KEY)
        except StateNotFoundError:
            return 0, Status.error(ERR_STATE_NOT_FOUND)
        if not s.claims or not self.features.prioritized_list:
            return 0, SUCCESS
        allocations = s.node_allocations.get(node_info.name)
        if allocations is None:
            return 0, SUCCESS
        score = 0
        j = 0
        for claim in s.claims:
            if claim.allocation is not None:
                allocation = claim.allocation
            else:
                if j >= len(allocations):
                    return 0, Status.error(
                        f"number of allocations {len(allocations)} is smaller than number of claims needing allocation"
                    )
                allocation = allocations[j]
                j += 1
            chosen = {r.request for r in allocation.results if r.request.count("/") == 1}
            for req in claim.spec.requests:
                if req.exactly is not None:
                    continue
                for i, sub in enumerate(req.first_available):
                    if f"{req.name}/{sub.name}" in chosen:
                        score += FIRST_AVAILABLE_MAX_SIZE - i
        return score, SUCCESS

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        if self.enabled:
            default_normalize_score(100, False, scores)
        return SUCCESS


class _ClaimProblem(Exception):
    def __init__(self, reason: str, *details: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details


def features_of(handle: Handle) -> dra_features.Features:
    """The run's DRA feature set: the selected release's (handle.version)."""
    return dra_features.for_version(handle.version)


def new(
    args: DynamicResourcesArgs | None, handle: Handle, features: dra_features.Features | None = None
) -> DynamicResources:
    # DynamicResourcesArgs (filterTimeout, bindingTimeout) have no effect on a dry run. The args
    # are None in releases without the args kind (before 1.34). ``features`` overrides the
    # release's feature set (tests of gated code paths).
    if features is None:
        features = features_of(handle)
    cls = DynamicResourcesScoring if features.scores else DynamicResources
    return cls(handle, features)
