"""Why the allocator found no devices on a node, in words (kwhatif's own; upstream only says
"cannot allocate all claims").

For each request (or subrequest) of the claims to allocate, the node's devices are counted
through the allocator's own stages: reachable and usable pools, the class's selectors, the
request's selectors, devices not in use, taints, counters. The first stage a request cannot
pass is the explanation; when every request could be met alone, the claims' constraints or
their competition for the same devices are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.core import Node
from kwhatif.dra.allocator import (
    AllocationError,
    Allocator,
    Pool,
    _taint_prevents,
    capacity_fits,
    claim_ref,
    gather_pools,
    node_matches,
)
from kwhatif.dra.types import (
    ALLOCATION_MODE_ALL,
    Device,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaim,
)

_UNUSABLE = "tainted or out of shared counters"


def _counters_fit(alloc: Allocator, pool: Pool, device: Device) -> bool:
    """Whether the pool's counters still cover the device alone."""
    avail = alloc.available_counters(pool)
    for c in device.consumes_counters:
        counters = avail.get(c.counter_set, {})
        if any(counters.get(name, Fraction(0)) < v for name, v in c.counters.items()):
            return False
    return True


@dataclass(slots=True)
class RequestCount:
    """How far one request got on one node."""

    claim: str
    request: str  # "req" or "req/sub"
    device_class: str
    needed: int  # 0: All
    devices: int = 0  # in usable pools reachable from the node
    in_class: int = 0
    matching: int = 0
    free: int = 0
    usable: int = 0  # free and not blocked by taints or disabled counters
    holders: dict[str, int] = field(default_factory=dict)  # claim -> devices it holds among matching
    no_capacity: int = 0  # shared devices without the capacity the request needs left

    @property
    def ok(self) -> bool:
        return self.usable > 0 if self.needed == 0 else self.usable >= self.needed

    def text(self) -> str:
        head = f"claim {self.claim}, request {self.request}"
        need = "all matching devices" if self.needed == 0 else f"{self.needed} device(s)"
        if self.devices == 0:
            return f"{head}: the node has no devices of any DRA driver"
        if self.in_class == 0:
            return f"{head}: none of the node's {self.devices} device(s) is in device class {self.device_class}"
        if self.matching == 0:
            return f"{head}: none of the node's {self.in_class} device(s) of class {self.device_class} matches the request's selectors"
        if self.free < self.matching and (self.usable < self.needed or self.needed == 0):
            parts = []
            taken = self.matching - self.free - self.no_capacity
            if taken:
                held = ", ".join(f"{c} ({n})" for c, n in sorted(self.holders.items())) or "other claims"
                parts.append(f"{taken} already allocated to {held}")
            if self.no_capacity:
                parts.append(f"{self.no_capacity} without the capacity it asks for left")
            detail = f"{self.matching} match, " + ", ".join(parts)
            if self.usable < self.free:
                detail += f", {self.free - self.usable} {_UNUSABLE}"
            return f"{head}: needs {need}; {detail}"
        if self.usable < self.free:
            return f"{head}: needs {need}; {self.free} free matching device(s), {self.free - self.usable} of them {_UNUSABLE}"
        return f"{head}: needs {need}; only {self.matching} device(s) match"


@dataclass(slots=True)
class Diagnosis:
    requests: list[RequestCount]
    lines: list[str]


def diagnose(
    alloc: Allocator, node: Node, claims: Sequence[ResourceClaim], holders: dict[tuple[str, str, str], str]
) -> Diagnosis:
    features = alloc.features
    pools = gather_pools(alloc.slices, node, features)
    lines: list[str] = []
    for p in pools if features.skips_unusable_pools else ():
        if p.incomplete:
            lines.append(f"resource pool {p.pool_id} is incomplete (not all of its ResourceSlices are there)")
        elif p.invalid:
            lines.append(f"resource pool {p.pool_id} is invalid: {p.invalid_reason}")
    counts: list[RequestCount] = []
    for claim in claims:
        for req in claim.spec.requests:
            specs: list[tuple[str, ExactDeviceRequest | DeviceSubRequest]] = []
            if req.exactly is not None:
                specs.append((req.name, req.exactly))
            else:
                specs.extend((f"{req.name}/{s.name}", s) for s in req.first_available)
            for name, spec in specs:
                cls = alloc.classes.get(spec.device_class_name)
                rc = RequestCount(
                    claim_ref(claim),
                    name,
                    spec.device_class_name,
                    0 if spec.allocation_mode == ALLOCATION_MODE_ALL else spec.count,
                )
                counts.append(rc)
                for pool in pools:
                    if features.skips_unusable_pools and (pool.incomplete or pool.invalid):
                        continue
                    for s in pool.slices:
                        for d in s.devices:
                            rc.devices += 1
                            try:
                                if cls is None or not alloc.selector_matches(
                                    cls.selectors, s.driver, d, f"class {cls.name}"
                                ):
                                    continue
                                rc.in_class += 1
                                if not alloc.selector_matches(spec.selectors, s.driver, d, f"claim {claim_ref(claim)}"):
                                    continue
                            except AllocationError:
                                continue
                            if s.per_device_node_selection and not node_matches(
                                node, d.node_name, d.all_nodes, d.node_selector
                            ):
                                continue
                            if not features.device_binding_and_status and d.binding_conditions:
                                continue
                            rc.matching += 1
                            did = (s.driver, s.pool, d.name)
                            if did in alloc.allocated and not spec.admin_access:
                                holder = holders.get(did, "another claim")
                                rc.holders[holder] = rc.holders.get(holder, 0) + 1
                                continue
                            if features.consumable_capacity and not capacity_fits(
                                spec.capacity_requests,
                                d,
                                alloc.allocated_capacity.get(did, {}),
                                driver=s.driver if features.pool_rules >= 38 else None,
                            ):
                                rc.no_capacity += 1
                                continue
                            rc.free += 1
                            if features.device_taints and _taint_prevents(d, spec.tolerations):
                                continue
                            if d.consumes_counters and (
                                not features.partitionable_devices or not _counters_fit(alloc, pool, d)
                            ):
                                continue
                            rc.usable += 1
    by_request: dict[tuple[str, str], list[RequestCount]] = {}
    for rc in counts:
        by_request.setdefault((rc.claim, rc.request.split("/", 1)[0]), []).append(rc)
    unmet = False
    for (claim_name, request), alternatives in by_request.items():
        if all(not rc.ok for rc in alternatives):
            unmet = True
            if len(alternatives) == 1:
                lines.append(alternatives[0].text())
            else:
                lines.append(
                    f"claim {claim_name}, request {request}: none of its {len(alternatives)} alternatives (firstAvailable) can be met: "
                    + "; ".join(rc.text().split(": ", 1)[1] + f" ({rc.request})" for rc in alternatives)
                )
    if not unmet:
        constrained = [c for c in claims if c.spec.constraints]
        if constrained:
            attrs = sorted({a for c in constrained for a in (x.match_attribute for x in c.spec.constraints) if a})
            lines.append(
                f"each request could be met alone, but no set of devices satisfies the matchAttribute constraint(s) on "
                f"{', '.join(attrs)} of claim(s) {', '.join(claim_ref(c) for c in constrained)}"
            )
        elif features.partitionable_devices and any(p.counter_sets for p in pools):
            lines.append(
                "each request could be met alone, but the devices together would exceed the pool's shared counters"
            )
        else:
            lines.append(
                "each request could be met alone, but together the requests need more devices than the node has free"
            )
    return Diagnosis(counts, lines)
