"""The DRA feature set the allocator and the DynamicResources plugin follow.

Upstream's scheduler turns its feature gates into `structured.Features` (AllocatorFeatures in
plugins/dynamicresources); kwhatif passes one frozen Features value, built from the selected
release's gate defaults (kwhatif/versions.py, see `for_version`) or from explicit gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kwhatif.release import versions


@dataclass(frozen=True, slots=True)
class Features:
    enabled: bool = True  # DynamicResourceAllocation
    admin_access: bool = False  # DRAAdminAccess
    prioritized_list: bool = False  # DRAPrioritizedList
    partitionable_devices: bool = False  # DRAPartitionableDevices
    device_taints: bool = False  # DRADeviceTaints
    consumable_capacity: bool = False  # DRAConsumableCapacity
    device_binding_and_status: bool = False  # DRADeviceBindingConditions && DRAResourceClaimDeviceStatus
    extended_resource: bool = False  # DRAExtendedResource
    # not a gate: the release's DynamicResources is also a Score plugin (1.35 and later)
    scores: bool = False
    # not a gate: the release's resource pool rules (Behaviour.dra_pool_rules)
    pool_rules: int = 36
    # not a gate: upstream's allocator for these features is one that tries slices and pools with
    # binding conditions after the others (its experimental one, and from 1.36 its incubating one)
    binding_conditions_last: bool = False

    @property
    def skips_unusable_pools(self) -> bool:
        """Incomplete and invalid pools offer no devices (1.35+); before, every pool does, and an
        invalid one fails the pod when the search meets it (1.32-1.34)."""
        return self.pool_rules >= 35

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool], scores: bool = True, pool_rules: int = 36) -> Features:
        binding = gates.get("DRADeviceBindingConditions", False)
        status = gates.get("DRAResourceClaimDeviceStatus", False)
        capacity = gates.get("DRAConsumableCapacity", False)
        if pool_rules >= 35:
            # structured.NewAllocator: the first allocator supporting every feature in use
            binding_last = (binding and status) or capacity
        else:
            # v1.34's experimental allocator alone supports DeviceBinding, DeviceStatus and
            # ConsumableCapacity (separate features there); earlier releases know no binding conditions
            binding_last = pool_rules >= 34 and (binding or status or capacity)
        return cls(
            enabled=gates.get("DynamicResourceAllocation", False),
            admin_access=gates.get("DRAAdminAccess", False),
            prioritized_list=gates.get("DRAPrioritizedList", False),
            partitionable_devices=gates.get("DRAPartitionableDevices", False),
            device_taints=gates.get("DRADeviceTaints", False),
            consumable_capacity=gates.get("DRAConsumableCapacity", False),
            device_binding_and_status=gates.get("DRADeviceBindingConditions", False)
            and gates.get("DRAResourceClaimDeviceStatus", False),
            extended_resource=gates.get("DRAExtendedResource", False),
            scores=scores,
            pool_rules=pool_rules,
            binding_conditions_last=binding_last,
        )


def for_version(version: versions.SchedulerVersion) -> Features:
    """The feature set of a release: its gate defaults, and whether its DynamicResources scores."""
    b = version.behaviour
    return Features.from_gates(
        version.gates, scores=b.dynamic_resources_score_weight is not None, pool_rules=b.dra_pool_rules
    )


def for_release(text: str) -> Features:
    """The feature set of a release named by its version string ("1.34", "1.36.1")."""
    return for_version(versions.get(text))


# Before 1.34 DynamicResourceAllocation is off by default: the default profile has no
# DynamicResources, and the API server drops a new pod's spec.resourceClaims.
DISABLED = Features(enabled=False)
# The defaults of the release kwhatif answers as when nothing says which.
DEFAULT = for_version(versions.default_version())
# Every allocator feature on, for tests of the gated code paths.
ALL = Features(
    enabled=True,
    scores=True,
    admin_access=True,
    prioritized_list=True,
    partitionable_devices=True,
    device_taints=True,
    consumable_capacity=True,
    device_binding_and_status=True,
    binding_conditions_last=True,
)
