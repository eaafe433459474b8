"""A pod's ResourceClaims, as the DynamicResources plugin finds them
(plugins/dynamicresources foreachPodResourceClaim, k8s.io/dynamic-resource-allocation/resourceclaim),
and the claims the resourceclaim controller would create from ResourceClaimTemplates.

A pod that is not in the cluster yet has no status.resourceClaimStatuses: kwhatif creates the
claim its template would give (name, owner, spec), as the controller does before the pod is
scheduled. The controller's name has five random characters (the API server's generateName);
kwhatif derives them from the pod and claim names, so a run is reproducible.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from fractions import Fraction

from kwhatif.api.core import OwnerReference, Pod, PodResourceClaim
from kwhatif.dra.types import ClaimDevices, DeviceRequestAllocationResult, ResourceClaim, ResourceClaimTemplate

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
# names.SimpleNameGenerator's alphabet and length
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_RANDOM_LENGTH = 5
_MAX_BASE_LENGTH = 57  # 63 minus a hyphen and the random part

ERR_CLAIM_NOT_FOUND = "ResourceClaim not created yet"
ERR_API_UNSUPPORTED = "none of the supported fields are set"


class ClaimError(Exception):
    """A reason the pod's claims cannot be used now (upstream's error text)."""


def generate_claim_name(pod_name: str, pod_claim_name: str, namespace: str = "") -> str:
    """The resourceclaim controller's generateName (pod name, claim name, both shortened in
    proportion when too long) plus five characters standing in for the random ones."""
    base = f"{pod_name}-{pod_claim_name}-"
    if len(base) > _MAX_BASE_LENGTH:
        base = (
            pod_name[: len(pod_name) * _MAX_BASE_LENGTH // len(base)]
            + "-"
            + pod_claim_name[: len(pod_claim_name) * _MAX_BASE_LENGTH // len(base)]
        )
    digest = hashlib.sha256(f"{namespace}/{pod_name}/{pod_claim_name}".encode()).digest()
    suffix = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:_RANDOM_LENGTH])
    return base + suffix


def claim_from_template(pod: Pod, pod_claim: PodResourceClaim, template: ResourceClaimTemplate) -> ResourceClaim:
    """The ResourceClaim the resourceclaim controller creates for a pod from a template."""
    name = generate_claim_name(pod.name, pod_claim.name, pod.namespace)
    return ResourceClaim(
        namespace=pod.namespace,
        name=name,
        uid=f"kwhatif-claim-{pod.namespace}-{name}",
        spec=template.spec,
        owner_references=(OwnerReference("v1", "Pod", pod.name, pod_uid(pod), True),),
        generated=True,
        source=template.source,
    )


def pod_uid(pod: Pod) -> str:
    return pod.uid or f"kwhatif-{pod.namespace}-{pod.name}"


def claim_name(pod: Pod, pod_claim: PodResourceClaim) -> tuple[str | None, bool]:
    """resourceclaim.Name: the claim's name (None: no claim is needed) and whether the claim must
    be owned by the pod. Raises ClaimError when the generated claim is not known yet."""
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name is not None:
        if pod_claim.name in pod.resource_claim_statuses:
            return pod.resource_claim_statuses[pod_claim.name], True
        raise ClaimError(f'pod "{pod.namespace}/{pod.name}": {ERR_CLAIM_NOT_FOUND}')
    raise ClaimError(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pod_claim.name}": {ERR_API_UNSUPPORTED}')


def is_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """resourceclaim.IsForPod: same namespace and controlled by the pod."""
    if claim.namespace != pod.namespace:
        return False
    uid = pod_uid(pod)
    return any(ref.controller and ref.uid == uid for ref in claim.owner_references)


def not_for_pod_error(pod: Pod, claim: ResourceClaim) -> str:
    return f"ResourceClaim {claim.namespace}/{claim.name} was not created for pod {pod.namespace}/{pod.name} (pod is not owner)"


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    uid = pod_uid(pod)
    return any(r.uid == uid for r in claim.reserved_for)


def can_be_reserved(claim: ResourceClaim) -> bool:
    """resourceclaim.CanBeReserved: 1.34 and 1.35 put no restriction on sharing a claim."""
    return True


def allocated_devices(
    claims: Iterable[ResourceClaim], consumable_capacity: bool = False
) -> tuple[set[tuple[str, str, str]], dict[tuple[str, str, str], dict[str, Fraction]]]:
    """Devices in use (allocateddevices.go foreachAllocatedDevice): those of every allocated
    claim except results with admin access; with consumable capacity, a result with a share ID
    takes only its consumed capacity of the device, added up per device."""
    dedicated: set[tuple[str, str, str]] = set()
    shared: dict[tuple[str, str, str], dict[str, Fraction]] = {}
    for c in claims:
        if c.allocation is None:
            continue
        for r in c.allocation.results:
            if r.admin_access:
                continue
            if consumable_capacity and r.share_id is not None:
                used = shared.setdefault(r.device_id, {})
                for name, v in r.consumed_capacity.items():
                    used[name] = used.get(name, Fraction(0)) + v
                continue
            dedicated.add(r.device_id)
    return dedicated, shared


def devices_by_claim(claims: Mapping[str, ResourceClaim]) -> dict[tuple[str, str, str], str]:
    """Which claim holds each allocated device, for explanations."""
    out: dict[tuple[str, str, str], str] = {}
    for key, c in claims.items():
        if c.allocation is not None:
            for r in c.allocation.results:
                if not r.admin_access:
                    out.setdefault(r.device_id, key)
    return out


def describe_results(results: Iterable[DeviceRequestAllocationResult]) -> str:
    """'gpus: gpu-0, gpu-1 (driver gpu.example.com, pool node-a)' grouped per request."""
    by_request: dict[str, list[DeviceRequestAllocationResult]] = {}
    for r in results:
        by_request.setdefault(r.request, []).append(r)
    parts = []
    for request, rs in by_request.items():
        pools = sorted({(r.driver, r.pool) for r in rs})
        devices = ", ".join(
            r.device
            + (" (admin access)" if r.admin_access else "")
            + (
                f" (shared: {', '.join(f'{k} {v}' for k, v in sorted(r.consumed_capacity.items()))})"
                if r.share_id
                else ""
            )
            for r in rs
        )
        where = "; ".join(f"{d}/{p}" for d, p in pools)
        parts.append(f"{request} -> {devices} [{where}]")
    return ", ".join(parts)


def describe_claim(c: ClaimDevices) -> str:
    """'claim ns/name: gpus -> gpu-0 [driver/pool]' ('(allocated)' after the name when it holds them)."""
    ref = f"{c.namespace}/{c.name}" if c.namespace else c.name
    return f"claim {ref}{' (allocated)' if c.allocated else ''}: {describe_results(c.results)}"
