"""resource.k8s.io objects as the scheduler reads them, in the shape of the v1 API.

Objects written in v1beta1 or v1beta2 are converted to this shape when parsed (dra/parse.py),
as the API server converts them: v1beta1's `basic` device is flattened and its request fields
move under `exactly`. Quantities are exact Fractions, as everywhere in kwhatif.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.core import NodeSelector, OwnerReference

# k8s.io/api/resource/v1 constants
GROUP = "resource.k8s.io"
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
ALLOCATION_RESULTS_MAX_SIZE = 32
FIRST_AVAILABLE_MAX_SIZE = 8  # FirstAvailableDeviceRequestMaxSize
TAINT_NO_SCHEDULE = "NoSchedule"
TAINT_NO_EXECUTE = "NoExecute"
TAINT_NONE = "None"
TOLERATION_EQUAL = "Equal"
TOLERATION_EXISTS = "Exists"


@dataclass(frozen=True, slots=True)
class DeviceAttribute:
    """Exactly one of the values is set (int, bool, string or a semantic version)."""

    int_value: int | None = None
    bool_value: bool | None = None
    string_value: str | None = None
    version_value: str | None = None


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicy:
    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] = ()
    valid_range_min: Fraction | None = None
    valid_range_max: Fraction | None = None
    valid_range_step: Fraction | None = None
    has_valid_range: bool = False


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    value: Fraction
    request_policy: CapacityRequestPolicy | None = None


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    counter_set: str
    counters: Mapping[str, Fraction]


@dataclass(frozen=True, slots=True)
class CounterSet:
    name: str
    counters: Mapping[str, Fraction]


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    key: str = ""
    operator: str = TOLERATION_EQUAL
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: DeviceTaint) -> bool:
        """resourceclaim.ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", TOLERATION_EQUAL):
            return self.value == taint.value
        return self.operator == TOLERATION_EXISTS


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    attributes: Mapping[str, DeviceAttribute] = field(default_factory=dict)
    capacity: Mapping[str, DeviceCapacity] = field(default_factory=dict)
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    taints: tuple[DeviceTaint, ...] = ()
    binding_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool | None = None
    binds_to_node: bool = False


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int
    resource_slice_count: int
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    devices: tuple[Device, ...] = ()
    per_device_node_selection: bool | None = None
    shared_counters: tuple[CounterSet, ...] = ()
    source: str = ""


@dataclass(frozen=True, slots=True)
class DeviceSelector:
    expression: str | None  # None: a selector of a type kwhatif does not know (no `cel`)


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[DeviceSelector, ...] = ()
    extended_resource_name: str | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class ExactDeviceRequest:
    device_class_name: str
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity_requests: Mapping[str, Fraction] | None = None  # None: no `capacity`


@dataclass(frozen=True, slots=True)
class DeviceSubRequest:
    name: str
    device_class_name: str
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity_requests: Mapping[str, Fraction] | None = None  # None: no `capacity`

    # the request-accessor interface the allocator shares with ExactDeviceRequest
    @property
    def admin_access(self) -> bool | None:
        return None


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceClaimConfiguration:
    requests: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceClaimConfiguration, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult:
    request: str  # "request" or "request/subrequest"
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    share_id: str | None = None
    consumed_capacity: Mapping[str, Fraction] = field(default_factory=dict)

    @property
    def device_id(self) -> tuple[str, str, str]:
        return (self.driver, self.pool, self.device)


@dataclass(frozen=True, slots=True)
class ClaimDevices:
    """The devices one claim would get on a node, or holds already (``allocated``), for reports:
    the structured form of the sentence DynamicResources writes in a filter's details."""

    namespace: str
    name: str
    allocated: bool
    results: tuple[DeviceRequestAllocationResult, ...]


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceRequestAllocationResult, ...] = ()
    node_selector: NodeSelector | None = None
    # where the allocation restricts the pod to, for reports: "node-a", or "" for anywhere
    node_name: str = ""


@dataclass(frozen=True, slots=True)
class ConsumerReference:
    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str
    spec: ResourceClaimSpec
    owner_references: tuple[OwnerReference, ...] = ()
    allocation: AllocationResult | None = None
    reserved_for: tuple[ConsumerReference, ...] = ()
    deleting: bool = False
    source: str = ""
    # created here from a ResourceClaimTemplate for a pod (not in the cluster)
    generated: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    spec: ResourceClaimSpec
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    source: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
