"""The DRA feature set the allocator and the DynamicResources plugin follow.

Upstream's scheduler turns its feature gates into `structured.Features` (AllocatorFeatures in
plugins/dynamicresources); kwhatif passes one frozen Features value, built from the selected
release's gate defaults (see `for_release`) or from explicit gates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


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
    def from_gates(cls, gates: Mapping[str, bool], scores: bool = True) -> "Features":
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


# Default gates per minor release (pkg/features/kube_features.go of each release).
_DEFAULT_GATES: dict[str, dict[str, bool]] = {
    "1.34": {
        "DynamicResourceAllocation": True,
        "DRAAdminAccess": True,
        "DRAPrioritizedList": True,
        "DRAResourceClaimDeviceStatus": True,
    },
    "1.35": {
        "DynamicResourceAllocation": True,
        "DRAAdminAccess": True,
        "DRAPrioritizedList": True,
        "DRAResourceClaimDeviceStatus": True,
    },
    # 1.36: partitionable devices, device taints, consumable capacity, binding conditions and
    # extended resources become beta (on)
    "1.36": {
        "DynamicResourceAllocation": True,
        "DRAAdminAccess": True,
        "DRAPrioritizedList": True,
        "DRAResourceClaimDeviceStatus": True,
        "DRAPartitionableDevices": True,
        "DRADeviceTaints": True,
        "DRAConsumableCapacity": True,
        "DRADeviceBindingConditions": True,
        "DRAExtendedResource": True,
    },
}
_DEFAULT_GATES["1.37"] = dict(_DEFAULT_GATES["1.36"])
# Before 1.34 DynamicResourceAllocation is off by default: a pod with claims is not schedulable
# by the default profile (the plugin is not in it).
DISABLED = Features(enabled=False)
# 1.35's defaults: kwhatif's default release.
DEFAULT = Features.from_gates(_DEFAULT_GATES["1.35"])
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


def for_release(minor: str) -> Features:
    """The default feature set of a release "1.NN"; DRA is off before 1.34, and releases after
    the last known one use its defaults."""
    latest = max(_DEFAULT_GATES, key=lambda v: int(v.split(".")[1]))
    gates = _DEFAULT_GATES.get(minor)
    if gates is not None:
        return Features.from_gates(gates, scores=minor != "1.34")
    try:
        n = int(minor.split(".", 1)[1])
    except (IndexError, ValueError):
        return DEFAULT
    return DISABLED if n < 34 else Features.from_gates(_DEFAULT_GATES[latest])
