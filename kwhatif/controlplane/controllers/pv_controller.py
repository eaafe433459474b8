"""What the PersistentVolume controller (pkg/controller/volume/persistentvolume) and an external
provisioner do with the claims a change creates, before any pod that uses them is scheduled.

New PersistentVolumes without a claim become Available (syncVolume). An unbound claim that
names a volume (spec.volumeName) is bound to it when it exists, is free and satisfies the claim
(checkVolumeSatisfyClaim). An unbound claim of Immediate binding (its class is WaitForFirstConsumer
only when that class exists and says so) is bound to the best Available volume that matches it
(findBestMatchForClaim: the access-mode sets that contain the claim's, fewest modes first, then
the same FindMatchingVolume rules VolumeBinding uses), else provisioned by its class's
provisioner, else left Pending. WaitForFirstConsumer claims are left to VolumeBinding.

The ephemeral volume controller (pkg/controller/volume/ephemeral) creates the claim of each generic
ephemeral volume of a new pod first (ephemeral_claims).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass

from kwhatif.api import storage
from kwhatif.api.core import Pod
from kwhatif.api.storage import BIND_COMPLETED_ANNOTATION, PersistentVolume, PersistentVolumeClaim
from kwhatif.cache.cluster import ClusterState
from kwhatif.controlplane.admission.chain import AdmissionChain
from kwhatif.plugins.volume_binding import (
    ANN_BOUND_BY_CONTROLLER,
    NOT_SUPPORTED_PROVISIONER,
    VOLUME_AVAILABLE,
    WAIT_FOR_FIRST_CONSUMER,
    check_access_modes,
    claim_class,
    find_matching_volume,
    get_bind_volume_to_claim,
    is_fully_bound,
    is_volume_bound_to_claim,
)

# v1.GetAccessModesAsString orders the modes this way; the index keys volumes by that string.
_MODE_ORDER = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
# The event text of syncUnboundClaim for a claim without a class that nothing matches.
NO_VOLUME_NO_CLASS = "no persistent volumes available for this claim and no storage class is set"


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    claim: str  # "namespace/name"
    bound_to: str | None  # the PersistentVolume it is bound to
    note: str


def available_new_volumes(state: ClusterState, names: Iterable[str]) -> None:
    """syncVolume: a new volume without a claim, or reserved for a claim not yet bound to it
    (claimRef without uid), is Available."""
    for name in names:
        pv = state.pvs.get(name)
        if pv is None or pv.phase != "Pending":
            continue
        if pv.claim_ref is None or not pv.claim_ref.uid:
            state.pvs[name] = dataclasses.replace(pv, phase=VOLUME_AVAILABLE)


def _modes_key(modes: Iterable[str]) -> tuple[str, ...]:
    have = set(modes)
    return tuple(m for m in _MODE_ORDER if m in have) + tuple(sorted(have - set(_MODE_ORDER)))


def find_best_match(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume]) -> PersistentVolume | None:
    """persistentVolumeOrderedIndex.findByClaim for an Immediate claim."""
    by_modes: dict[tuple[str, ...], list[PersistentVolume]] = {}
    for pv in volumes:
        by_modes.setdefault(_modes_key(pv.access_modes), []).append(pv)
    wanted = set(claim.access_modes)
    candidates = sorted((k for k in by_modes if wanted <= set(k)), key=lambda k: (len(k), k))
    for key in candidates:
        best = find_matching_volume(claim, sorted(by_modes[key], key=lambda p: p.name), None, set(), False)
        if best is not None:
            return best
    return None


def check_volume_satisfy_claim(pv: PersistentVolume, claim: PersistentVolumeClaim) -> str | None:
    """checkVolumeSatisfyClaim: why the volume a claim names cannot be bound to it."""
    if pv.deleting:
        return f'the volume is marked for deletion "{pv.name}"'
    requested = math.ceil(claim.request or 0)
    if math.ceil(pv.capacity or 0) < requested:
        return "requested PV is too small"
    if pv.storage_class_name != claim_class(claim):
        return "storageClassName does not match"
    if pv.volume_mode != claim.volume_mode:
        return "incompatible volumeMode"
    if not check_access_modes(claim, pv):
        return "incompatible accessMode"
    return None


def _bind(state: ClusterState, pv: PersistentVolume, claim: PersistentVolumeClaim) -> None:
    """PersistentVolumeController.bind: the volume's claimRef and phase, then the claim's
    volumeName, annotations and phase."""
    new_pv, _ = get_bind_volume_to_claim(pv, claim)
    state.pvs[pv.name] = dataclasses.replace(new_pv, phase="Bound", resource_version=new_pv.resource_version or "1")
    annotations = dict(claim.annotations)
    if claim.volume_name != pv.name:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    annotations[BIND_COMPLETED_ANNOTATION] = "yes"
    state.pvcs[claim.key] = dataclasses.replace(claim, volume_name=pv.name, phase="Bound", annotations=annotations)


def _provision(state: ClusterState, claim: PersistentVolumeClaim, provisioner: str, class_name: str) -> str:
    """An external provisioner's new volume for an Immediate claim: of the claim's size, access
    modes and class, without topology (the provisioner picks where it lives)."""
    pv_name = f"pvc-{claim.uid or claim.namespace + '-' + claim.name}"
    pv = storage.persistent_volume(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": pv_name, "uid": f"kwhatif-pv-{pv_name}", "resourceVersion": "1"},
            "spec": {
                "capacity": {"storage": str(math.ceil(claim.request or 0))},
                "accessModes": list(claim.access_modes) or ["ReadWriteOnce"],
                "volumeMode": claim.volume_mode,
                "storageClassName": class_name,
                "claimRef": {"namespace": claim.namespace, "name": claim.name, "uid": claim.uid},
                "csi": {"driver": provisioner, "volumeHandle": pv_name},
            },
            "status": {"phase": "Bound"},
        }
    )
    state.pvs[pv_name] = pv
    annotations = dict(claim.annotations)
    annotations[BIND_COMPLETED_ANNOTATION] = "yes"
    annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    state.pvcs[claim.key] = dataclasses.replace(claim, volume_name=pv_name, phase="Bound", annotations=annotations)
    return pv_name


def sync_claims(state: ClusterState, keys: Iterable[str]) -> list[ClaimOutcome]:
    """syncUnboundClaim for each new claim, in order; what happened to each, for the report."""
    from kwhatif.controlplane.controllers.workloads import NO_STORAGE_CLASSES

    out: list[ClaimOutcome] = []
    for key in keys:
        claim = state.pvcs.get(key)
        if claim is None or claim.deleting or is_fully_bound(claim):
            continue
        if claim.volume_name:
            pv = state.pvs.get(claim.volume_name)
            if pv is None:
                out.append(
                    ClaimOutcome(
                        key, None, f"stays Pending: it names PersistentVolume {claim.volume_name}, which does not exist"
                    )
                )
            elif pv.claim_ref is None:
                err = check_volume_satisfy_claim(pv, claim)
                if err is not None:
                    out.append(
                        ClaimOutcome(key, None, f'stays Pending: Cannot bind to requested volume "{pv.name}": {err}')
                    )
                else:
                    _bind(state, pv, claim)
                    out.append(
                        ClaimOutcome(
                            key, pv.name, f"the PV controller binds it to PersistentVolume {pv.name}, which it names"
                        )
                    )
            elif is_volume_bound_to_claim(pv, claim):
                _bind(state, pv, claim)
                out.append(
                    ClaimOutcome(
                        key, pv.name, f"the PV controller binds it to PersistentVolume {pv.name}, which it names"
                    )
                )
            else:
                out.append(
                    ClaimOutcome(key, None, f'stays Pending: volume "{pv.name}" already bound to a different claim.')
                )
            continue
        class_name = claim_class(claim)
        sc = state.storage_classes.get(class_name) if class_name else None
        if sc is not None and sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER:
            continue  # VolumeBinding binds or provisions it when its pod is scheduled
        pv = find_best_match(claim, state.pvs.values())
        if pv is not None:
            _bind(state, pv, claim)
            out.append(
                ClaimOutcome(
                    key,
                    pv.name,
                    f"the PV controller binds it to Available PersistentVolume {pv.name} (Immediate binding)",
                )
            )
        elif not class_name:
            note = f"stays Pending: {NO_VOLUME_NO_CLASS}"
            if not state.storage_classes:
                note += f"; {NO_STORAGE_CLASSES}"
            out.append(ClaimOutcome(key, None, note))
        elif sc is None:
            note = f'stays Pending: no Available PersistentVolume matches it, and provisioning fails: storageclass.storage.k8s.io "{class_name}" not found'
            if not state.storage_classes:
                note += f"; {NO_STORAGE_CLASSES}"
            out.append(ClaimOutcome(key, None, note))
        elif sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            out.append(
                ClaimOutcome(
                    key,
                    None,
                    f"stays Pending: no Available PersistentVolume matches it, and StorageClass {class_name} has no provisioner ({NOT_SUPPORTED_PROVISIONER})",
                )
            )
        else:
            name = _provision(state, claim, sc.provisioner, class_name)
            out.append(
                ClaimOutcome(
                    key,
                    name,
                    f"provisioned by {sc.provisioner} as PersistentVolume {name} (Immediate binding; the new volume has no topology)",
                )
            )
    return out


def ephemeral_claims(chain: AdmissionChain, state: ClusterState, pods: list[Pod]) -> list[str]:
    """The ephemeral volume controller creates each generic ephemeral volume's claim
    ("<pod>-<volume>", owned by the pod); DefaultStorageClass gives it the default class."""
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
                        {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "name": pod.name,
                            # a new pod without one gets the uid its selection gives it
                            "uid": pod.uid or f"kwhatif-{pod.namespace}-{pod.name}",
                            "controller": True,
                        }
                    ],
                },
                "spec": dict(v.ephemeral_spec or {}),
            }
            state.pvcs[key] = chain.default_storage_class(storage.persistent_volume_claim(body))
            created.append(key)
    return created
