"""The DRA feature set the allocator and the DynamicResources plugin follow.

Upstream's scheduler turns its feature gates into `structured.Features` (AllocatorFeatures in
plugins/dynamicresources); kwhatif passes one frozen Features value, built from the selected
release's gate defaults (kwhatif/versions.py, see `for_version`) or from explicit gates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kwhatif import versions


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

    @classmethod
    def from_gates(cls, gates: Mapping[str, bool], scores: bool = True) -> Features:
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
        )


def for_version(version: versions.SchedulerVersion) -> Features:
    """The feature set of a release: its gate defaults, and whether its DynamicResources scores."""
    return Features.from_gates(version.gates, scores=version.behaviour.dynamic_resources_score_weight is not None)


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
)
