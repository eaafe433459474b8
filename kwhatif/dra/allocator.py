"""The structured allocator (k8s.io/dynamic-resource-allocation/structured).

Given a node, the cluster's ResourceSlices and DeviceClasses, the devices already allocated
and the pod's unallocated claims, find devices for every request of every claim, or say that
there is no solution on that node. Like upstream, it is an exhaustive depth-first search that
stops at the first full solution: claims in order, requests in order, for each required device
the candidates in pool, slice and device order, checking "in use", the class's and the
request's CEL selectors, per-device node selection, shared counters, device taints and the
claim's matchAttribute constraints as it goes; a prioritized list (firstAvailable) tries its
subrequests in order. Upstream's pools come from a Go map (random order); kwhatif orders them
by driver and pool name, so its choice among equally good devices is deterministic.

The code paths follow the feature set (dra.features.Features), as upstream's stable, incubating
and experimental allocators do: with consumable capacity (DRAConsumableCapacity) a device that
allows multiple allocations is shared, each allocation taking the capacity its request asks for
as the device's request policy rounds it, and distinctAttribute constraints apply.

Errors: `AllocationError` is upstream's fatal error (a broken selector or class: the pod's
scheduling attempt fails with an Error status); `NodeAllocationError` is
ErrFailedAllocationOnNode (only this node is unsuitable).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

from kwhatif.api.core import Node, NodeSelector, NodeSelectorTerm
from kwhatif.api.labels import Op, Requirement, Selector
from kwhatif.dra import cel
from kwhatif.dra.features import Features
from kwhatif.dra.types import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    ALLOCATION_RESULTS_MAX_SIZE,
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    AllocationResult,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCapacity,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceSlice,
)

DeviceID = tuple[str, str, str]  # driver, pool, device


class AllocationError(Exception):
    """A problem with a claim or class that stops scheduling of the pod (a Filter Error)."""


class NodeAllocationError(Exception):
    """ErrFailedAllocationOnNode: allocation fails on this node for a reason worth reporting."""


def claim_ref(claim: ResourceClaim) -> str:
    """klog.KObj(claim)."""
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


def node_matches(node: Node | None, node_name: str | None, all_nodes: bool, selector: NodeSelector | None) -> bool:
    """NodeMatches of the pools files."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node is not None and selector.matches(node.labels, node.name)
    return False


# --- pools ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class Pool:
    driver: str
    pool: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[ResourceSlice] = field(default_factory=list)  # device slices for the node
    slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.pool}"

    def invalid_error(self) -> AllocationError:
        """What the search raises on an invalid pool until 1.35."""
        return AllocationError(f"pool {self.pool} is invalid: {self.invalid_reason}")


class SliceIndex:
    """The cluster's ResourceSlices, indexed so gathering a node's pools does not scan every
    slice of every node."""

    def __init__(self, slices: Iterable[ResourceSlice]) -> None:
        self.all = list(slices)
        self.by_node: dict[str, list[ResourceSlice]] = {}
        self.other: list[ResourceSlice] = []  # node selectors, all nodes, counters, per device
        self.by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in self.all:
            self.by_pool.setdefault((s.driver, s.pool), []).append(s)
            if s.node_name and not s.shared_counters:
                self.by_node.setdefault(s.node_name, []).append(s)
            else:
                self.other.append(s)

    def for_node(self, node: Node) -> list[ResourceSlice]:
        return self.by_node.get(node.name, []) + self.other


def _has_binding_conditions(s: ResourceSlice) -> bool:
    return any(d.binding_conditions for d in s.devices)


def gather_pools(index: SliceIndex, node: Node, features: Features) -> list[Pool]:
    """GatherPools: the pools with devices reachable from the node, with their completeness, in
    the order the search tries them.

    Upstream's pools come from a Go map and its slices from the informer's lister, both in random
    order (until 1.36 sorts them by name); kwhatif takes pools in driver and pool name order and a
    pool's slices in name order, keeping the order upstream imposes: with ``binding_conditions_last``
    pools with binding conditions go after the others, and in 1.34 and 1.35 so do such slices
    within a pool."""
    pools: dict[tuple[str, str], list[ResourceSlice]] = {}
    slices_last = features.binding_conditions_last and features.pool_rules < 36

    def add(s: ResourceSlice) -> None:
        key = (s.driver, s.pool)
        existing = pools.get(key)
        if existing is None:
            pools[key] = [s]
        elif s.generation < existing[0].generation:
            return
        elif s.generation > existing[0].generation:
            pools[key] = [s]
        else:
            existing.append(s)

    for s in index.for_node(node):
        if not features.partitionable_devices and (s.per_device_node_selection is not None or s.shared_counters):
            continue
        if s.shared_counters:
            add(s)
        elif s.node_name or s.all_nodes or s.node_selector is not None:
            if node_matches(node, s.node_name, s.all_nodes, s.node_selector):
                add(s)
        elif s.per_device_node_selection:
            if any(node_matches(node, d.node_name, d.all_nodes, d.node_selector) for d in s.devices):
                add(s)
        # else: some future kind of node selection; ignored
    result: list[Pool] = []
    with_binding: list[Pool] = []
    for (driver, pool_name), slices in sorted(pools.items()):
        slices.sort(key=lambda sl: (slices_last and _has_binding_conditions(sl), sl.name))
        count = slices[0].resource_slice_count
        if not features.skips_unusable_pools:
            # until 1.34: complete when the node's slices are all there; every pool is searched
            pool = _build_pool(driver, pool_name, slices, features, None)
            pool.incomplete = len(slices) != count
        elif len(slices) == count:
            pool = _build_pool(driver, pool_name, slices, features, None)
        else:
            obsolete, all_slices = _check_slices_in_pool(index, driver, pool_name, slices[0].generation)
            if obsolete:
                continue
            if len(all_slices) != count:
                result.append(Pool(driver, pool_name, incomplete=True))
                continue
            pool = _build_pool(driver, pool_name, slices, features, all_slices)
        if features.binding_conditions_last and any(_has_binding_conditions(sl) for sl in pool.slices):
            with_binding.append(pool)
        else:
            result.append(pool)
    return result + with_binding


def _check_slices_in_pool(
    index: SliceIndex, driver: str, pool: str, generation: int
) -> tuple[bool, list[ResourceSlice]]:
    out = []
    for s in index.by_pool.get((driver, pool), []):
        if s.generation == generation:
            out.append(s)
        elif s.generation > generation:
            return True, []
    return False, out


def _build_pool(
    driver: str, pool_name: str, slices: list[ResourceSlice], features: Features, all_slices: list[ResourceSlice] | None
) -> Pool:
    if features.partitionable_devices:
        device_slices = [s for s in slices if not s.shared_counters]
        counter_slices = [s for s in slices if s.shared_counters]
    else:
        device_slices, counter_slices = slices, []
    seen: set[str] = set()
    for s in device_slices if features.pool_rules >= 32 else ():
        for d in s.devices:
            if d.name in seen:
                pool = Pool(driver, pool_name, invalid=True, invalid_reason=f"duplicate device name {d.name}")
                if not features.skips_unusable_pools:
                    pool.slices = device_slices  # searched until 1.35, which fails on meeting it
                return pool
            seen.add(d.name)
    if not features.partitionable_devices:
        return Pool(driver, pool_name, slices=device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return Pool(driver, pool_name, invalid=True, invalid_reason=f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs
    reason = _validate_counter_consumption(counter_sets, slices)
    if reason:
        return Pool(driver, pool_name, invalid=True, invalid_reason=reason)
    if all_slices is None or len(slices) == len(all_slices):
        return Pool(driver, pool_name, slices=device_slices, counter_sets=counter_sets)
    names = {s.name for s in slices}
    not_targeting = [s for s in all_slices if s.name not in names]
    reason = _validate_counter_consumption(counter_sets, not_targeting)
    if reason:
        return Pool(driver, pool_name, invalid=True, invalid_reason=reason)
    return Pool(
        driver, pool_name, slices=device_slices, slices_not_targeting_node=not_targeting, counter_sets=counter_sets
    )


def _validate_counter_consumption(counter_sets: Mapping[str, CounterSet], slices: Iterable[ResourceSlice]) -> str:
    for s in slices:
        for d in s.devices:
            for c in d.consumes_counters:
                cs = counter_sets.get(c.counter_set)
                if cs is None:
                    return f"counter set {c.counter_set} not found"
                for name in c.counters:
                    if name not in cs.counters:
                        return f"counter {name} not found in counter set {cs.name}"
    return ""


# --- requests ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Request:
    """upstream's requestAccessor: a request with `exactly`, or one subrequest."""

    name: str
    spec: ExactDeviceRequest | DeviceSubRequest
    parent: str = ""  # the request's name when this is a subrequest

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name

    @property
    def admin_access(self) -> bool:
        return bool(self.spec.admin_access)

    @property
    def tolerations(self) -> tuple[DeviceToleration, ...]:
        return self.spec.tolerations


@dataclass(slots=True)
class _Candidate:
    id: DeviceID
    device: Device
    slice: ResourceSlice
    pool: Pool


@dataclass(slots=True)
class _RequestData:
    request: _Request
    cls: DeviceClass | None
    num_devices: int = 0
    all_devices: list[_Candidate] = field(default_factory=list)
    selected_sub_request: int = 0


@dataclass(slots=True)
class _Result:
    request: _Request
    id: DeviceID
    slice: ResourceSlice
    device: Device
    share_id: str | None = None
    consumed: Mapping[str, Fraction] | None = None


class _MatchAttribute:
    """matchAttributeConstraint: every device of the named requests has the same value."""

    def __init__(self, requests: Sequence[str], attribute: str) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.value: DeviceAttribute | None = None
        self.num = 0

    def _applies(self, request: _Request) -> bool:
        if not self.requests:
            return True
        if not request.parent:
            return request.name in self.requests
        return request.parent in self.requests or request.full_name in self.requests

    def add(self, request: _Request, device: Device, device_id: DeviceID) -> bool:
        if not self._applies(request):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num == 0:
            self.value = attr
            self.num = 1
            return True
        assert self.value is not None
        for field_ in ("string_value", "int_value", "bool_value", "version_value"):
            mine = getattr(attr, field_)
            if mine is not None:
                if getattr(self.value, field_) != mine:
                    return False
                self.num += 1
                return True
        return False

    def remove(self, request: _Request) -> None:
        if self._applies(request):
            self.num -= 1


class _DistinctAttribute(_MatchAttribute):
    """distinctAttributeConstraint: the named requests' devices all differ in the attribute
    (with consumable capacity, so that shares of one device are not picked twice)."""

    def __init__(self, requests: Sequence[str], attribute: str) -> None:
        super().__init__(requests, attribute)
        self.values: dict[str, DeviceAttribute] = {}

    def add(self, request: _Request, device: Device, device_id: DeviceID) -> bool:
        if not self._applies(request):
            return True
        attr = lookup_attribute(device, device_id, self.attribute)
        if attr is None:
            return False
        if self.num == 0:
            self.values[request.parent or request.name] = attr
            self.num = 1
            return True
        for other in self.values.values():
            for field_ in ("string_value", "int_value", "bool_value", "version_value"):
                mine = getattr(attr, field_)
                if mine is not None:
                    if getattr(other, field_) is not None and getattr(other, field_) == mine:
                        return False
                    break
            else:
                return False  # a value of an unknown type
        self.values[request.parent or request.name] = attr
        self.num += 1
        return True

    def remove(self, request: _Request) -> None:
        if self._applies(request):
            self.values.pop(request.parent or request.name, None)
            self.num -= 1


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id[0]:
        return None
    return device.attributes.get(ident)


class _MaxSizeExceeded(Exception):
    pass


# --- the allocator -----------------------------------------------------------------------------


class Allocator:
    """NewAllocator: one per pod scheduling attempt (the cluster's state is fixed for it)."""

    def __init__(
        self,
        features: Features,
        allocated: frozenset[DeviceID] | set[DeviceID],
        classes: Mapping[str, DeviceClass],
        slices: SliceIndex,
        compiler: cel.Compiler | None = None,
        inputs: dict[int, tuple[Device, cel.DeviceInput]] | None = None,
        results: dict[tuple[str, int, str], bool] | None = None,
        allocated_capacity: Mapping[DeviceID, Mapping[str, Fraction]] | None = None,
    ) -> None:
        self.features = features
        self.allocated = allocated
        self.classes = classes
        self.slices = slices
        self.compiler = compiler or cel.compiler(features.consumable_capacity)
        # CEL activations per device, shared across allocators by the caller
        self.inputs: dict[int, tuple[Device, cel.DeviceInput]] = inputs if inputs is not None else {}
        # (expression, device, driver) -> whether it matches; a device's answer never changes, so
        # the caller may share this across allocators (the devices must outlive it: see inputs)
        self.results: dict[tuple[str, int, str], bool] = results if results is not None else {}
        # consumable capacity: what shared allocations of each device consume already
        self.allocated_capacity: Mapping[DeviceID, Mapping[str, Fraction]] = allocated_capacity or {}
        self._shares = 0
        self._available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.allocate_one_calls = 0

    def allocate(self, node: Node, claims: Sequence[ResourceClaim]) -> list[AllocationResult] | None:
        """One allocation result per claim, or None when the claims do not fit on the node.
        Raises AllocationError (fatal) or NodeAllocationError (this node only)."""
        return _Run(self, node, claims).run()

    def device_input(self, driver: str, device: Device) -> cel.DeviceInput:
        hit = self.inputs.get(id(device))
        if hit is not None and hit[0] is device:
            return hit[1]
        inp = cel.device_input(
            driver,
            device.attributes,
            device.capacity,
            device.allow_multiple_allocations,
            self.features.consumable_capacity,
        )
        self.inputs[id(device)] = (device, inp)
        return inp

    def selector_matches(self, selectors: Sequence[DeviceSelector], driver: str, device: Device, owner: str) -> bool:
        """selectorsMatch; owner is "class NAME" or "claim NS/NAME" for error messages."""
        for i, sel in enumerate(selectors):
            assert sel.expression is not None  # checked when the request data was built
            key = (sel.expression, id(device), driver)
            known = self.results.get(key)
            if known is not None:
                if not known:
                    return False
                continue
            prog = self.compiler.compile(sel.expression)
            if prog.error is not None:
                raise AllocationError(f"{owner}: selector #{i}: CEL compile error: {prog.error}")
            try:
                inp = self.device_input(driver, device)
                ok = self.compiler.matches(prog, driver, inp)
            except cel.CelError as e:
                raise AllocationError(f"{owner}: selector #{i}: CEL runtime error: {e}") from None
            self.results[key] = ok
            if not ok:
                return False
        return True

    def new_share_id(self) -> str:
        """GenerateShareID is a random UID upstream; kwhatif counts."""
        self._shares += 1
        return f"kwhatif-share-{self._shares:05d}"

    def available_counters(self, pool: Pool) -> dict[str, dict[str, Fraction]]:
        """The pool's counters minus what devices allocated before this pod consume."""
        cached = self._available_counters.get(pool.pool)
        if cached is not None:
            return cached
        avail = {name: dict(cs.counters) for name, cs in pool.counter_sets.items()}
        for s in pool.slices + pool.slices_not_targeting_node:
            for d in s.devices:
                if (s.driver, s.pool, d.name) not in self.allocated:
                    continue
                for c in d.consumes_counters:
                    counters = avail.get(c.counter_set)
                    if counters is None:
                        continue
                    for name, v in c.counters.items():
                        if name in counters:
                            counters[name] -= v
        self._available_counters[pool.pool] = avail
        return avail


class _Run:
    """upstream's `allocator`: the state of one Allocate call."""

    def __init__(self, a: Allocator, node: Node, claims: Sequence[ResourceClaim]) -> None:
        self.a = a
        self.features = a.features
        self.node = node
        self.claims = list(claims)
        self.pools: list[Pool] = []
        self.matches: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.constraints: list[list[_MatchAttribute]] = []
        self.consumed: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.request_data: dict[tuple[int, int, int], _RequestData] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.result: list[list[_Result]] = [[] for _ in claims]
        # upstream's "experimental" allocator runs when these features are on
        self.experimental = self.features.consumable_capacity or self.features.device_binding_and_status
        # consumable capacity being allocated in this attempt, per device
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}

    # -- setup --------------------------------------------------------------------------------

    def run(self) -> list[AllocationResult] | None:
        self.pools = gather_pools(self.a.slices, self.node, self.features)
        for ci, claim in enumerate(self.claims):
            min_devices = 0
            for ri, req in enumerate(claim.spec.requests):
                if self.experimental and not self.features.consumable_capacity:
                    if req.exactly is not None and req.exactly.capacity_requests is not None:
                        raise AllocationError(
                            f"claim {claim_ref(claim)}, request {req.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled"
                        )
                    for sub in req.first_available:
                        if sub.capacity_requests is not None:
                            raise AllocationError(
                                f"claim {claim_ref(claim)}, subrequest {sub.name}: has capacity requests, but the DRAConsumableCapacity feature is disabled"
                            )
                if req.first_available:
                    if not self.features.prioritized_list:
                        raise AllocationError(
                            f"claim {claim_ref(claim)}, request {req.name}: has subrequests, but the DRAPrioritizedList feature is disabled"
                        )
                    least = math.inf
                    for si, sub in enumerate(req.first_available):
                        data = self._validate(ci, _Request(sub.name, sub, req.name), (ci, ri, si))
                        self.request_data[(ci, ri, si)] = data
                        least = min(least, data.num_devices)
                    min_devices += int(least)
                else:
                    assert req.exactly is not None
                    data = self._validate(ci, _Request(req.name, req.exactly), (ci, ri, 0))
                    self.request_data[(ci, ri, 0)] = data
                    min_devices += data.num_devices
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {claim_ref(claim)}: number of requested devices {min_devices} exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            constraints = []
            for i, c in enumerate(claim.spec.constraints):
                if c.match_attribute is not None:
                    constraints.append(_MatchAttribute(c.requests, c.match_attribute))
                elif c.distinct_attribute is not None and self.experimental:
                    constraints.append(_DistinctAttribute(c.requests, c.distinct_attribute))
                else:
                    # upstream's stable and incubating allocators know only matchAttribute
                    raise AllocationError(
                        f"claim {claim_ref(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    )
            self.constraints.append(constraints)
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            for pool in self.pools if self.features.skips_unusable_pools else ():
                if pool.invalid:
                    raise NodeAllocationError("invalid resource pools were encountered")
            return None
        return [self._allocation_result(ci) for ci in range(len(self.claims))]

    def _validate(self, ci: int, request: _Request, key: tuple[int, int, int]) -> _RequestData:
        claim = self.claims[ci]
        spec = request.spec
        for i, sel in enumerate(spec.selectors):
            if sel.expression is None:
                raise AllocationError(
                    f"claim {claim_ref(claim)}, request {request.name}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )
        if not self.features.admin_access and spec.admin_access is not None:
            raise AllocationError(
                f"claim {claim_ref(claim)}, request {request.name}: admin access is requested, but the feature is disabled"
            )
        if not spec.device_class_name:
            raise AllocationError(
                f"claim {claim_ref(claim)}, request {request.name}: missing device class name (unsupported request type?)"
            )
        cls = self.a.classes.get(spec.device_class_name)
        if cls is None:
            raise AllocationError(
                f'claim {claim_ref(claim)}, request {request.name}: could not retrieve device class {spec.device_class_name}: deviceclass.resource.k8s.io "{spec.device_class_name}" not found'
            )
        data = _RequestData(request, cls)
        if spec.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = spec.count
        elif spec.allocation_mode == ALLOCATION_MODE_ALL:
            # Until 1.37 these fail the pod (an Error status ends the filter pass); from 1.38
            # (#141898, ErrFailedAllocationOnNode) they fail only this node, with the same text.
            failure = NodeAllocationError if self.features.pool_rules >= 38 else AllocationError
            for pool in self.pools:
                if pool.incomplete:
                    raise failure(
                        f"claim {claim_ref(claim)}, request {request.name}: asks for all devices, but resource pool {pool.pool_id} is currently being updated"
                    )
                if pool.invalid:
                    raise failure(
                        f"claim {claim_ref(claim)}, request {request.name}: asks for all devices, but resource pool {pool.pool_id} is currently invalid"
                    )
                for s in pool.slices:
                    for d in s.devices:
                        if self._selectable(key, data, s, d):
                            did = (s.driver, s.pool, d.name)
                            if self.features.consumable_capacity and not self._capacity_fits(request, did, d):
                                continue
                            data.all_devices.append(_Candidate(did, d, s, pool))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(
                f"claim {claim_ref(claim)}, request {request.name}: unsupported count mode {spec.allocation_mode}"
            )
        return data

    # -- search -------------------------------------------------------------------------------

    def _allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        self.a.allocate_one_calls += 1
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.spec.requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        data = self.request_data[(ci, ri, si)]
        if not in_sub and data.request.parent:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.request_data:
                try:
                    ok = self._allocate_one(ci, ri, sub, di, True)
                except _MaxSizeExceeded:
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    self.request_data[(ci, ri, 0)].selected_sub_request = sub
                    return True
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceeded
            return False
        request = data.request
        all_mode = request.spec.allocation_mode == ALLOCATION_MODE_ALL
        if all_mode and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.result[ci]) + data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded
        if all_mode:
            cand = data.all_devices[di]
            undo = self._allocate_device(ci, ri, si, cand, must=True)
            if undo is None:
                return False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, in_sub)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        rules = self.features.pool_rules
        for pool in self.pools:
            if self.features.skips_unusable_pools:
                if pool.incomplete or pool.invalid:
                    continue
            elif pool.invalid and rules >= 33:
                raise pool.invalid_error()  # it is not safe to allocate from an invalid pool
            for s in pool.slices:
                for d in s.devices:
                    did = (pool.driver, pool.pool, d.name)
                    if request.admin_access:
                        if ci in self.allocating.get(did, ()):
                            continue
                    elif self._in_use(did):
                        continue
                    if not self._selectable((ci, ri, si), data, s, d):
                        continue
                    if pool.invalid and rules == 32:
                        raise pool.invalid_error()
                    if self.features.consumable_capacity and not self._capacity_fits(request, did, d):
                        continue
                    undo = self._allocate_device(ci, ri, si, _Candidate(did, d, s, pool), must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, in_sub)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _in_use(self, did: DeviceID) -> bool:
        return did in self.a.allocated or bool(self.allocating.get(did))

    def _shared_now(self, did: DeviceID) -> bool:
        """A persisted share of the device is live (a claim's result with a share ID, counted with
        consumable capacity). Within one allocation a device either allows multiple allocations or
        not, so no share of a device taken for dedicated use is in flight."""
        return self.features.consumable_capacity and did in self.a.allocated_capacity

    def _selectable(self, key: tuple[int, int, int], data: _RequestData, s: ResourceSlice, d: Device) -> bool:
        if not self.features.device_binding_and_status and d.binding_conditions:
            return False
        did = (s.driver, s.pool, d.name)
        mkey = (did, *key)
        known = self.matches.get(mkey)
        if known is not None:
            return known
        ok = True
        if data.cls is not None:
            ok = self.a.selector_matches(data.cls.selectors, s.driver, d, f"class {data.cls.name}")
        if ok:
            ok = self.a.selector_matches(
                data.request.spec.selectors, s.driver, d, f"claim {claim_ref(self.claims[key[0]])}"
            )
        if ok and s.per_device_node_selection:
            ok = node_matches(self.node, d.node_name, d.all_nodes, d.node_selector)
        self.matches[mkey] = ok
        return ok

    def _allocate_device(self, ci: int, ri: int, si: int, cand: _Candidate, must: bool) -> Callable[[], None] | None:
        claim = self.claims[ci]
        request = self.request_data[(ci, ri, si)].request
        shared = self.features.consumable_capacity and bool(cand.device.allow_multiple_allocations)
        if request.admin_access:
            if not shared and ci in self.allocating.get(cand.id, ()):
                return None
        elif self._in_use(cand.id):
            return None
        elif not shared and self.features.pool_rules >= 38 and self._shared_now(cand.id):
            # 1.38 (#140798): a device that no longer allows multiple allocations is not handed
            # out for dedicated use while a share of it is live
            return None
        counters = cand.device.consumes_counters
        if counters and not self.features.partitionable_devices:
            return None
        # a shared device whose capacity is in use already took its counters
        skip_counters = shared and (cand.id in self.a.allocated_capacity or cand.id in self.allocating_capacity)
        if counters and not skip_counters and not self._take_counters(cand):
            return None
        # Upstream keeps the counters it took when a taint or a constraint then refuses the
        # device (they stay consumed for the rest of this Allocate call); so does kwhatif.
        if self.features.device_taints and _taint_prevents(cand.device, request.tolerations):
            return None
        added: list[_MatchAttribute] = []
        for c in self.constraints[ci]:
            if not c.add(request, cand.device, cand.id):
                if must:
                    raise AllocationError(
                        f"claim {claim_ref(claim)}, request {request.name}: cannot add device {'/'.join(cand.id)} because a claim constraint would not be satisfied"
                    )
                for prev in added:
                    prev.remove(request)
                return None
            added.append(c)
        if not shared:
            self.allocating.setdefault(cand.id, set()).add(ci)
        share_id: str | None = None
        consumed: dict[str, Fraction] | None = None
        if self.features.consumable_capacity:
            if not self._capacity_fits(request, cand.id, cand.device):
                return None
            if shared:
                consumed = consumed_capacity(
                    request.spec.capacity_requests,
                    cand.device.capacity,
                    driver=cand.id[0] if self.features.pool_rules >= 38 else None,
                )
                share_id = self.a.new_share_id()
                using = self.allocating_capacity.setdefault(cand.id, {})
                for name, v in consumed.items():
                    using[name] = using.get(name, Fraction(0)) + v
        before = len(self.result[ci])
        self.result[ci].append(_Result(request, cand.id, cand.slice, cand.device, share_id, consumed or None))

        def undo() -> None:
            for c in self.constraints[ci]:
                c.remove(request)
            if shared:
                if consumed:
                    using = self.allocating_capacity.get(cand.id, {})
                    for name, v in consumed.items():
                        using[name] = using.get(name, Fraction(0)) - v
            else:
                self.allocating[cand.id].discard(ci)
                if counters:
                    self._release_counters(cand)
            del self.result[ci][before:]

        return undo

    def _capacity_fits(self, request: _Request, did: DeviceID, device: Device) -> bool:
        """CmpRequestOverCapacity: the request's capacity (as the device's policy rounds it)
        fits in what the device has left; False too when it asks for a capacity the device
        does not have."""
        return capacity_fits(
            request.spec.capacity_requests,
            device,
            self.a.allocated_capacity.get(did, {}),
            self.allocating_capacity.get(did, {}),
            driver=did[0] if self.features.pool_rules >= 38 else None,
        )

    def _take_counters(self, cand: _Candidate) -> bool:
        avail = self.a.available_counters(cand.pool)
        consumed = self.consumed.setdefault(cand.pool.pool, {})
        for c in cand.device.consumes_counters:
            sets = consumed.setdefault(c.counter_set, {})
            for name, v in c.counters.items():
                sets[name] = sets.get(name, Fraction(0)) + v
        for set_name, counters in avail.items():
            used = consumed.get(set_name, {})
            for name, value in counters.items():
                if value < used.get(name, Fraction(0)):
                    self._release_counters(cand)
                    return False
        return True

    def _release_counters(self, cand: _Candidate) -> None:
        consumed = self.consumed.get(cand.pool.pool, {})
        for c in cand.device.consumes_counters:
            sets = consumed.get(c.counter_set, {})
            for name, v in c.counters.items():
                sets[name] = sets.get(name, Fraction(0)) - v

    # -- results ------------------------------------------------------------------------------

    def _allocation_result(self, ci: int) -> AllocationResult:
        results = tuple(
            DeviceRequestAllocationResult(
                request=r.request.full_name,
                driver=r.id[0],
                pool=r.id[1],
                device=r.id[2],
                admin_access=True if r.request.admin_access else None,
                share_id=r.share_id,
                consumed_capacity=dict(r.consumed or {}),
            )
            for r in self.result[ci]
        )
        selector, node_name = _node_selector(self.result[ci], self.node.name)
        return AllocationResult(results, selector, node_name)


def _value(q: Fraction) -> int:
    """Quantity.Value(): rounded up to an integer."""
    return math.ceil(q)


def _consumed(requested: Fraction | None, cap: DeviceCapacity) -> Fraction:
    """calculateConsumedCapacity: the request rounded up as the device's policy says; the
    policy's default (else the whole capacity) when nothing is requested."""
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.has_valid_range and policy.valid_range_min is not None:
        low = policy.valid_range_min
        if requested < low:
            return low
        if policy.valid_range_step is None:
            return requested
        step, base = _value(policy.valid_range_step), _value(low)
        added = _value(requested) - base
        n = added // step + (1 if added % step else 0)
        return Fraction(base + step * n)
    if policy.valid_values:
        for v in policy.valid_values:
            if requested <= v:
                return v
    return requested


def _violates_policy(value: Fraction, cap: DeviceCapacity) -> bool:
    policy = cap.request_policy
    if policy is None:
        return False
    if policy.default is not None and value == policy.default:
        return False
    if policy.has_valid_range:
        if policy.valid_range_max is not None and value > policy.valid_range_max:
            return True
        if policy.valid_range_step is not None and policy.valid_range_min is not None:
            return (_value(value) - _value(policy.valid_range_min)) % _value(policy.valid_range_step) != 0
        return False
    if policy.valid_values:
        return value not in policy.valid_values
    return False


def capacity_fits(
    wanted: Mapping[str, Fraction] | None,
    device: Device,
    used: Mapping[str, Fraction],
    using: Mapping[str, Fraction] | None = None,
    driver: str | None = None,
) -> bool:
    """CmpRequestOverCapacity: the requested capacity, rounded by the device's policy, fits next
    to what allocations use (`used`) and this attempt takes (`using`); False for a request of a
    capacity the device does not have. With ``driver`` (1.38, #142202), names compare as
    fully-qualified names: ``bandwidth`` published by driver.example.com is
    ``driver.example.com/bandwidth``, requested either way."""
    caps: Mapping[str, DeviceCapacity] = device.capacity
    if driver is not None:
        caps = qualified(caps, driver)
        wanted = qualified(wanted, driver) if wanted else wanted
        used = summed(used, driver)
        using = summed(using, driver) if using else using
    if wanted and any(name not in caps for name in wanted):
        return False
    for name, cap in caps.items():
        value = _consumed(wanted.get(name) if wanted else None, cap)
        if _violates_policy(value, cap):
            return False
        total = value + used.get(name, Fraction(0)) + (using or {}).get(name, Fraction(0))
        if total > cap.value:
            return False
    return True


def consumed_capacity(
    requests: Mapping[str, Fraction] | None, capacity: Mapping[str, DeviceCapacity], driver: str | None = None
) -> dict[str, Fraction]:
    """GetConsumedCapacityFromRequest: what a shared allocation takes of each capacity, by the
    names the device publishes (with ``driver``, a request names them either way: #142202)."""
    if driver is None:
        return {name: _consumed((requests or {}).get(name), cap) for name, cap in capacity.items()}
    wanted = qualified(requests or {}, driver)
    return {name: _consumed(wanted.get(qualify(name, driver)), cap) for name, cap in capacity.items()}


_V = TypeVar("_V")


def qualify(name: str, driver: str) -> str:
    """A capacity name as a fully-qualified name: without a domain, in the driver's."""
    return name if "/" in name else f"{driver}/{name}"


def qualified(names: Mapping[str, _V], driver: str) -> dict[str, _V]:
    """``names`` keyed by fully-qualified names; where a name is there both ways, the
    fully-qualified one wins (#142202, as constraints' attribute look-ups resolve it)."""
    out = {name: v for name, v in names.items() if "/" in name}
    for name, v in names.items():
        if "/" not in name:
            out.setdefault(qualify(name, driver), v)
    return out


def summed(amounts: Mapping[str, Fraction], driver: str) -> dict[str, Fraction]:
    """Amounts in use keyed by fully-qualified names, added up where allocations recorded one
    capacity both ways (a driver that changed how it publishes it)."""
    out: dict[str, Fraction] = {}
    for name, v in amounts.items():
        key = qualify(name, driver)
        out[key] = out.get(key, Fraction(0)) + v
    return out


def _taint_prevents(device: Device, tolerations: Sequence[DeviceToleration]) -> bool:
    for taint in device.taints:
        if taint.effect in (TAINT_NO_EXECUTE, TAINT_NO_SCHEDULE):
            if not any(t.tolerates(taint) for t in tolerations):
                return True
    return False


def _node_selector(results: Sequence[_Result], target: str) -> tuple[NodeSelector | None, str]:
    """createNodeSelector: where the allocated devices are available."""
    fields: list[Requirement] = []
    exprs: list[Requirement] = []
    for r in results:
        if r.slice.per_device_node_selection:
            node_name, sel = r.device.node_name, r.device.node_selector
        else:
            node_name, sel = r.slice.node_name, r.slice.node_selector
        if node_name or r.device.binds_to_node:
            # the experimental allocator pins to the node it allocates for (the same node for a
            # node-local slice; the one chosen for a device that binds to a node)
            req = Requirement("metadata.name", Op.IN, frozenset((target,)))
            return NodeSelector((NodeSelectorTerm(None, Selector((req,))),)), target
        if sel is not None and len(sel.terms) == 1:
            term = sel.terms[0]
            for src, dst in ((term.fields, fields), (term.expressions, exprs)):
                for req in src.requirements if src is not None else ():
                    if req not in dst:
                        dst.append(req)
        elif sel is not None and len(sel.terms) > 1:
            raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(sel.terms)} terms")
    if not fields and not exprs:
        return None, ""
    term = NodeSelectorTerm(Selector(tuple(exprs)) if exprs else None, Selector(tuple(fields)) if fields else None)
    return NodeSelector((term,)), ""
