"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding: volume_binding.go, binder.go,
assume_cache.go): bound claims must have PVs whose node affinity admits the node; unbound
WaitForFirstConsumer claims need a matching static PV or a provisioner that can serve the node
(allowed topologies, CSIStorageCapacity). Reserve assumes the chosen bindings in the plugin's
assume cache so that later pods of the same run see them; Unreserve reverts them; PreBind records
them. Nothing is written to the cluster.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from kwhatif.api import storage
from kwhatif.api.core import Node, Pod, Volume
from kwhatif.api.storage import (
    BIND_COMPLETED_ANNOTATION,
    SELECTED_NODE_ANNOTATION,
    ClaimRef,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorTerm,
)
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import VolumeBindingArgs
from kwhatif.framework.interface import (
    ERR_NOT_FOUND,
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    StateKey,
    StateNotFoundError,
    Status,
)
from kwhatif.plugins.info import Hints, PluginInfo
from kwhatif.plugins.node_volume_limits import claim_name_of, ephemeral_owner_error

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "VolumeBinding"
STATE_KEY: StateKey[_StateData] = StateKey(NAME)

# binder.go
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
# The node-affinity reason of 1.30 … 1.32; the release's own is
# versions.Behaviour.volume_binding_node_conflict_reason ("node(s) didn't match PersistentVolume's
# node affinity" from 1.33).
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
# volume_binding.go
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

# component-helpers/storage/volume
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
LABEL_HOSTNAME = "kubernetes.io/hostname"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
VOLUME_AVAILABLE = "Available"
CLAIM_LOST = "Lost"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"


class BinderError(Exception):
    """Something the binder cannot work with: an Error status, not a scheduling reason."""


# --- helpers on storage objects (component-helpers/storage/volume) ------------------------------


def claim_class(pvc: PersistentVolumeClaim) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    return pvc.storage_class_name or ""


def is_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    """A claim counts as bound only once the PV controller marked the binding complete."""
    return bool(pvc.volume_name) and BIND_COMPLETED_ANNOTATION in pvc.annotations


def check_node_affinity(pv: PersistentVolume, labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: the PV's required node affinity against the node's labels only
    (matchFields are not evaluated, as upstream builds a node without a name)."""
    if pv.node_affinity is None:
        return True
    return pv.node_affinity.matches(labels, "")


def is_volume_bound_to_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    ref = pv.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
        return False
    return not ref.uid or ref.uid == claim.uid


def check_access_modes(claim: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    return set(claim.access_modes) <= set(pv.access_modes)


def _qty(q: Fraction | None) -> Fraction:
    return q if q is not None else Fraction(0)


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: list[PersistentVolume],
    node: Node | None,
    excluded: set[str],
    delay_binding: bool,
) -> PersistentVolume | None:
    """FindMatchingVolume: the PV pre-bound to the claim, else the smallest Available PV that
    satisfies it. ``volumes`` are already those of the claim's class."""
    requested = _qty(claim.request)
    requested_class = claim_class(claim)
    smallest: PersistentVolume | None = None
    for pv in volumes:
        if pv.name in excluded:
            continue
        if pv.claim_ref is not None and not is_volume_bound_to_claim(pv, claim):
            continue
        size = _qty(pv.capacity)
        if size < requested:
            continue
        if claim.volume_mode != pv.volume_mode:
            continue
        if pv.deleting:
            continue
        affinity_ok = node is None or check_node_affinity(pv, node.labels)
        if is_volume_bound_to_claim(pv, claim):
            # pre-bound through claimRef: this PV or nothing, whatever its phase or labels
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if pv.phase != VOLUME_AVAILABLE:
            continue
        if claim.selector is not None and not claim.selector.matches(pv.labels):
            continue
        if pv.storage_class_name != requested_class:
            continue
        if not affinity_ok:
            continue
        if node is not None and not check_access_modes(claim, pv):
            continue
        if smallest is None or _qty(smallest.capacity) > size:
            smallest = pv
    return smallest


def match_topology_selector_terms(terms: tuple[TopologySelectorTerm, ...], labels: Mapping[str, str]) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms admit every node; an empty term admits none."""
    if not terms:
        return True
    for term in terms:
        if not term.expressions:
            continue
        if all(values and labels.get(key) in values for key, values in term.expressions):
            return True
    return False


def local_pv_node_names(pv: PersistentVolume) -> list[str]:
    """volumeutil.GetLocalPersistentVolumeNodeNames: nodes named by `kubernetes.io/hostname In`
    expressions, intersected within a term and united across terms."""
    if pv.node_affinity is None:
        return []
    result: set[str] = set()
    for term in pv.node_affinity.terms:
        nodes: set[str] | None = None
        for r in term.expressions.requirements if term.expressions else ():
            if r.key == LABEL_HOSTNAME and r.op == "In":
                nodes = set(r.values) if nodes is None else nodes & r.values
        result |= nodes or set()
    return sorted(result)


def get_bind_volume_to_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> tuple[PersistentVolume, bool]:
    """GetBindVolumeToClaim: the PV with its claimRef pointing at the claim."""
    dirty = False
    set_bound_by_controller = not is_volume_bound_to_claim(pv, claim)
    new = pv
    ref = pv.claim_ref
    if ref is None or (ref.name, ref.namespace, ref.uid) != (claim.name, claim.namespace, claim.uid):
        new = dataclasses.replace(new, claim_ref=ClaimRef(claim.namespace, claim.name, claim.uid))
        dirty = True
    if set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in new.annotations:
        new = dataclasses.replace(new, annotations={**new.annotations, ANN_BOUND_BY_CONTROLLER: "yes"})
        dirty = True
    return new, dirty


# isCSIMigrationOnForPlugin: the in-tree plugins whose migration is on by default in v1.30.
_MIGRATION_ON = frozenset(
    {storage.AWS_EBS_PLUGIN, storage.GCE_PD_PLUGIN, storage.AZURE_DISK_PLUGIN, storage.CINDER_PLUGIN}
)


def is_plugin_migrated_on_node(plugin: str, csi_node: CSINode | None) -> bool:
    """isPluginMigratedToCSIOnNode: the CSINode lists the plugin in its migrated-plugins annotation."""
    if csi_node is None:
        return False
    value = csi_node.annotations.get(storage.MIGRATED_PLUGINS_ANNOTATION, "")
    return bool(value) and plugin in value.split(",")


def try_translate_pv(pv: PersistentVolume, csi_node: CSINode | None) -> PersistentVolume:
    """tryTranslatePVToCSI: an in-tree PV migrated on this node is checked as its CSI form."""
    plugin = storage.in_tree_plugin_of_pv(pv)
    if plugin is None or plugin not in _MIGRATION_ON or not is_plugin_migrated_on_node(plugin, csi_node):
        return pv
    try:
        return storage.translate_pv(pv)
    except storage.TranslationError as e:
        raise BinderError(f"could not translate pv: {e}") from None


# --- the assume cache ---------------------------------------------------------------------------


class AssumeCache:
    """The binder's PV and PVC caches: the cluster's objects, overlaid by what Reserve assumed.

    It lives on the plugin, so the bindings assumed for one pod are seen by every later cycle of
    the same run until Unreserve reverts them, as upstream's in-memory assume caches do.
    """

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.assumed_pvs: dict[str, PersistentVolume] = {}
        self.assumed_pvcs: dict[str, PersistentVolumeClaim] = {}

    def pv(self, name: str) -> PersistentVolume | None:
        pv = self.assumed_pvs.get(name)
        return pv if pv is not None else self.handle.cluster.pvs.get(name)

    def pvc(self, key: str) -> PersistentVolumeClaim | None:
        pvc = self.assumed_pvcs.get(key)
        return pvc if pvc is not None else self.handle.cluster.pvcs.get(key)

    def pvs_of_class(self, class_name: str) -> list[PersistentVolume]:
        """ListPVs. Upstream lists an index in map order, which decides between equally small
        PVs; kwhatif lists them by name."""
        out = []
        for name in sorted(self.handle.cluster.pvs):
            pv = self.pv(name)
            if pv is not None and pv.storage_class_name == class_name:
                out.append(pv)
        return out

    def assume_pv(self, pv: PersistentVolume) -> None:
        self.assumed_pvs[pv.name] = pv

    def assume_pvc(self, pvc: PersistentVolumeClaim) -> None:
        self.assumed_pvcs[pvc.key] = pvc

    def restore_pv(self, name: str) -> None:
        self.assumed_pvs.pop(name, None)

    def restore_pvc(self, key: str) -> None:
        self.assumed_pvcs.pop(key, None)


# --- per-cycle state ----------------------------------------------------------------------------


@dataclass(slots=True)
class BindingInfo:
    pvc: PersistentVolumeClaim
    pv: PersistentVolume


@dataclass(slots=True)
class PodVolumes:
    static_bindings: list[BindingInfo] = field(default_factory=list)
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


@dataclass(slots=True)
class PodVolumeClaims:
    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    # the PVs of each class of an unbound WaitForFirstConsumer claim, listed once in PreFilter
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)


@dataclass(slots=True)
class _StateData:
    claims: PodVolumeClaims | None = None
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False
    all_bound: bool = False

    def clone(self) -> _StateData:
        # Shared between clones, as upstream's pointer is: Filter results outlive nominated-pod runs.
        return self


# --- the plugin ---------------------------------------------------------------------------------


class VolumeBinding(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, PreBindPlugin):
    NAME = NAME

    def __init__(self, handle: Handle, bind_timeout_seconds: int) -> None:
        self.handle = handle
        behaviour = handle.version.behaviour
        self.node_conflict_reason: str = behaviour.volume_binding_node_conflict_reason
        # Until 1.30.6/1.31.2, PreFilter narrowed the nodes to bound local PVs' hostname affinity.
        self.narrows_nodes: bool = behaviour.volume_binding_prefilter_result
        self.bind_timeout_seconds = bind_timeout_seconds
        self.cache = AssumeCache(handle)
        # what PreBind would have sent to the API server, by pod key
        self.prebound: dict[str, PodVolumes] = {}

    # --- PreFilter ------------------------------------------------------------------------------

    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str]:
        """podHasPVCs, against the claims as the API server has them: (has claims, error)."""
        has_pvc = False
        pvcs = self.handle.cluster.pvcs
        for vol in pod.volumes:
            claim = claim_name_of(pod, vol)
            if claim is None:
                continue
            name, ephemeral = claim
            has_pvc = True
            pvc = pvcs.get(f"{pod.namespace}/{name}")
            if pvc is None:
                if ephemeral:
                    # expected right after the pod is created, before the ephemeral volume controller ran
                    return True, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                return True, f'persistentvolumeclaim "{name}" not found'
            if pvc.phase == CLAIM_LOST:
                return True, (
                    f'persistentvolumeclaim "{pvc.name}" bound to non-existent persistentvolume "{pvc.volume_name}"'
                )
            if pvc.deleting:
                return True, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err is not None:
                    return True, err
        return has_pvc, ""

    def _is_volume_bound(self, pod: Pod, vol: Volume) -> tuple[bool, PersistentVolumeClaim | None]:
        """isVolumeBound, against the assume cache; (True, None) for a volume without a claim."""
        claim = claim_name_of(pod, vol)
        if claim is None:
            return True, None
        name, ephemeral = claim
        key = f"{pod.namespace}/{name}"
        pvc = self.cache.pvc(key)
        if pvc is None:
            raise BinderError(f'error getting PVC "{key}": could not find v1.PersistentVolumeClaim "{key}"')
        if ephemeral:
            err = ephemeral_owner_error(pod, pvc)
            if err is not None:
                raise BinderError(err)
        return is_fully_bound(pvc), pvc

    def _is_delay_binding_mode(self, pvc: PersistentVolumeClaim) -> bool:
        class_name = claim_class(pvc)
        if not class_name:
            return False
        sc = self.handle.cluster.storage_classes.get(class_name)
        # a missing class counts as Immediate binding
        return sc is not None and sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        claims = PodVolumeClaims()
        for vol in pod.volumes:
            bound, pvc = self._is_volume_bound(pod, vol)
            if pvc is None:
                continue
            if bound:
                claims.bound.append(pvc)
            elif self._is_delay_binding_mode(pvc) and not pvc.volume_name:
                claims.unbound_delay_binding.append(pvc)
            else:
                # Immediate claims are bound by the PV controller before scheduling; so are
                # claims pre-bound through spec.volumeName that are not fully bound yet.
                claims.unbound_immediate.append(pvc)
        for pvc in claims.unbound_delay_binding:
            cls = claim_class(pvc)
            claims.unbound_volumes_delay_binding[cls] = self.cache.pvs_of_class(cls)
        return claims

    def get_eligible_nodes(self, bound: list[PersistentVolumeClaim]) -> frozenset[str] | None:
        """GetEligibleNodes: the nodes local PVs of bound claims pin the pod to (None: any)."""
        eligible: set[str] | None = None
        missing = False
        for pvc in bound:
            pv = self.cache.pv(pvc.volume_name)
            if pv is None:
                missing = True
                continue
            names = local_pv_node_names(pv)
            if names:
                eligible = set(names) if eligible is None else eligible & set(names)
        if missing or eligible is None:
            return None
        return frozenset(eligible)

    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        has_pvc, err = self._pod_has_pvcs(pod)
        if err:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        if not has_pvc:
            state.write(STATE_KEY, _StateData())
            return None, SKIP
        try:
            claims = self.get_pod_volume_claims(pod)
        except BinderError as e:
            return None, Status.error(str(e))
        if claims.unbound_immediate:
            return None, Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNBOUND_IMMEDIATE)
        eligible = self.get_eligible_nodes(claims.bound) if self.narrows_nodes else None
        state.write(
            STATE_KEY,
            _StateData(
                claims=PodVolumeClaims(
                    bound=claims.bound,
                    unbound_delay_binding=claims.unbound_delay_binding,
                    unbound_volumes_delay_binding=claims.unbound_volumes_delay_binding,
                )
            ),
        )
        return (PreFilterResult(eligible) if eligible is not None else None), SUCCESS

    # --- Filter ---------------------------------------------------------------------------------

    def _state(self, state: CycleState) -> _StateData | None:
        try:
            return state.read(STATE_KEY)
        except StateNotFoundError:
            return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = self._state(state)
        if s is None or s.claims is None:
            return Status.error(ERR_NOT_FOUND)  # getStateData returns the bare error
        node = node_info.node
        try:
            pod_volumes, reasons = self.find_pod_volumes(pod, s.claims, node)
        except BinderError as e:
            return Status.error(str(e))
        if reasons:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        s.pod_volumes_by_node[node.name] = pod_volumes
        s.has_static_bindings = s.has_static_bindings or bool(pod_volumes.static_bindings)
        return SUCCESS

    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: the bindings and provisionings that make the node work, or the
        reasons it cannot, in upstream's order."""
        pod_volumes = PodVolumes()
        bound_ok = unbound_ok = enough_storage = pvs_found = True

        def reasons() -> list[str]:
            out = []
            if not bound_ok:
                out.append(self.node_conflict_reason)
            if not unbound_ok:
                out.append(ERR_REASON_BIND_CONFLICT)
            if not enough_storage:
                out.append(ERR_REASON_NOT_ENOUGH_SPACE)
            if not pvs_found:
                out.append(ERR_REASON_PV_NOT_EXIST)
            return out

        if claims.bound:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound, node)
        if claims.unbound_delay_binding:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            for claim in claims.unbound_delay_binding:
                selected = claim.annotations.get(SELECTED_NODE_ANNOTATION)
                if selected is not None:
                    if selected != node.name:
                        # already being provisioned for another node
                        unbound_ok = False
                        return pod_volumes, reasons()
                    to_provision.append(claim)
                else:
                    to_match.append(claim)
            if to_match:
                unbound_ok, pod_volumes.static_bindings, unmatched = self._find_matching_volumes(
                    to_match, claims.unbound_volumes_delay_binding, node
                )
                to_provision.extend(unmatched)
            if to_provision:
                unbound_ok, enough_storage, pod_volumes.dynamic_provisions = self._check_volume_provisions(
                    to_provision, node
                )
        return pod_volumes, reasons()

    def _check_bound_claims(self, claims: list[PersistentVolumeClaim], node: Node) -> tuple[bool, bool]:
        """checkBoundClaims: (node affinity satisfied, every PV found)."""
        csi_node = self.handle.cluster.csi_nodes.get(node.name)
        for pvc in claims:
            pv = self.cache.pv(pvc.volume_name)
            if pv is None:
                return True, False
            pv = try_translate_pv(pv, csi_node)
            if not check_node_affinity(pv, node.labels):
                return False, True
        return True, True

    def _find_matching_volumes(
        self,
        claims: list[PersistentVolumeClaim],
        pvs_by_class: dict[str, list[PersistentVolume]],
        node: Node,
    ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """findMatchingVolumes: smallest claims first, each PV for one claim at most."""
        chosen: set[str] = set()
        bindings: list[BindingInfo] = []
        unmatched: list[PersistentVolumeClaim] = []
        found = True
        for pvc in sorted(claims, key=lambda c: _qty(c.request)):
            pv = find_matching_volume(pvc, pvs_by_class.get(claim_class(pvc), []), node, chosen, True)
            if pv is None:
                unmatched.append(pvc)
                found = False
                continue
            chosen.add(pv.name)
            bindings.append(BindingInfo(pvc, pv))
        return found, bindings, unmatched

    def _check_volume_provisions(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool, list[PersistentVolumeClaim]]:
        """checkVolumeProvisions: (provisioning possible, storage sufficient, claims to provision)."""
        provisions: list[PersistentVolumeClaim] = []
        for claim in claims:
            class_name = claim_class(claim)
            if not class_name:
                raise BinderError(f'no class for claim "{claim.key}"')
            sc = self.handle.cluster.storage_classes.get(class_name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{class_name}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(sc.allowed_topologies, node.labels):
                return False, True, []
            if not self._has_enough_capacity(sc.provisioner, claim, sc, node):
                return True, False, []
            provisions.append(claim)
        return True, True, provisions

    def _has_enough_capacity(
        self, provisioner: str, claim: PersistentVolumeClaim, sc: StorageClass, node: Node
    ) -> bool:
        """hasEnoughCapacity: only for CSI drivers that opted into storage capacity tracking."""
        if claim.request is None:
            return True
        cluster = self.handle.cluster
        driver = cluster.csi_drivers.get(provisioner)
        if driver is None or not driver.storage_capacity:
            return True
        size = math.ceil(claim.request)
        for cap in cluster.csi_capacities:
            if (
                cap.storage_class_name == sc.name
                and _capacity_sufficient(cap, size)
                and cap.node_topology.matches(node.labels)
            ):
                return True
        return False

    # --- PreScore and Score ---------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        # Scoring needs the VolumeCapacityPriority feature gate, off by default.
        return SKIP

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, SUCCESS

    # --- Reserve, Unreserve, PreBind ------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = self._state(state)
        if s is None:
            return Status.error(ERR_NOT_FOUND)  # getStateData returns the bare error
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            s.all_bound = True  # the pod has no claims
            return SUCCESS
        s.all_bound = self.assume_pod_volumes(pod, node_name, pod_volumes)
        return SUCCESS

    def _are_pod_volumes_bound(self, pod: Pod) -> bool:
        for vol in pod.volumes:
            try:
                bound, _ = self._is_volume_bound(pod, vol)
            except BinderError:
                return False
            if not bound:
                return False
        return True

    def assume_pod_volumes(self, pod: Pod, node_name: str, pod_volumes: PodVolumes) -> bool:
        """AssumePodVolumes: PVs pre-bound to their claims and claims annotated with the selected
        node, in the assume cache. True when every claim already was bound."""
        if self._are_pod_volumes_bound(pod):
            return True
        bindings = []
        for b in pod_volumes.static_bindings:
            pv, dirty = get_bind_volume_to_claim(b.pv, b.pvc)
            if dirty:
                self.cache.assume_pv(pv)
            bindings.append(BindingInfo(b.pvc, pv))
        provisions = []
        for claim in pod_volumes.dynamic_provisions:
            annotations = {**claim.annotations, SELECTED_NODE_ANNOTATION: node_name}
            annotated = dataclasses.replace(claim, annotations=annotations)
            self.cache.assume_pvc(annotated)
            provisions.append(annotated)
        pod_volumes.static_bindings = bindings
        pod_volumes.dynamic_provisions = provisions
        return False

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = self._state(state)
        if s is None:
            return
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return
        for b in pod_volumes.static_bindings:
            self.cache.restore_pv(b.pv.name)
        for claim in pod_volumes.dynamic_provisions:
            self.cache.restore_pvc(claim.key)
        self.prebound.pop(pod.key, None)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = self._state(state)
        if s is None:
            return Status.error(ERR_NOT_FOUND)  # getStateData returns the bare error
        if s.all_bound:
            return SUCCESS
        pod_volumes = s.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return Status.error(f'no pod volumes found for node "{node_name}"')
        # Upstream updates the PVs and claims here and waits for the PV controller to finish the
        # binding; a what-if records what it would update.
        self.prebound[pod.key] = pod_volumes
        return SUCCESS


def _capacity_sufficient(cap: CSIStorageCapacity, size: int) -> bool:
    # maximumVolumeSize, when given, is the more precise limit
    limit = cap.maximum_volume_size if cap.maximum_volume_size is not None else cap.capacity
    return limit is not None and math.ceil(limit) >= size


def new(args: VolumeBindingArgs, handle: Handle) -> VolumeBinding:
    # With StorageCapacityScoring on (1.37) upstream scores nodes by free capacity (args.shape);
    # kwhatif does not model that score yet (README, Scheduler versions).
    return VolumeBinding(handle, args.bind_timeout_seconds)


INFO = PluginInfo(
    NAME,
    column="Volume",
    sarif_help="The pods' volumes cannot be bound or provisioned on the nodes: check the claims, their StorageClass and the volumes' node affinity.",
    hints=Hints(
        9,
        fixed={
            ERR_REASON_BIND_CONFLICT: (
                "fail only because no Available PersistentVolume there matches the pod's unbound claims"
            ),
            ERR_REASON_NODE_CONFLICT: (
                "fail only the node affinity of the PersistentVolumes the pod's claims are bound to"
            ),
            ERR_REASON_NOT_ENOUGH_SPACE: (
                "fail only because their storage capacity (CSIStorageCapacity) is too small for the pod's claims"
            ),
            ERR_REASON_PV_NOT_EXIST: (
                "fail only because a claim of the pod is bound to a PersistentVolume that does not exist"
            ),
        },
    ),
)
