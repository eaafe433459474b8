"""The structured allocator, table-tested with cases transcribed from upstream's
k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go
(v0.35): same names, inputs and expected allocations or errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from kwhatif.api.core import Node
from kwhatif.dra.allocator import AllocationError, Allocator, NodeAllocationError, SliceIndex
from kwhatif.dra.features import Features
from kwhatif.dra.types import DeviceClass, ResourceClaim, ResourceSlice
from tests.dra.builders import (
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    COUNTER_SET1,
    DEV1,
    DEV2,
    DEV3,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    REGION1,
    REGION2,
    REQ0,
    REQ1,
    SLICE1,
    SLICE2,
    SUB0,
    SUB1,
    all_request,
    claim,
    claim_with_request,
    cls,
    counters,
    device,
    node,
    one_device,
    prioritized,
    request,
    slice_,
    sub_request,
)

Result = tuple[str, str, str, str] | tuple[str, str, str, str, bool]

INT_ATTR = f"{DRIVER_A}/numa"
VERSION_ATTR = f"{DRIVER_A}/driverVersion"
STRING_ATTR = f"{DRIVER_A}/stringAttribute"
BOOL_ATTR = f"{DRIVER_A}/boolAttribute"
TAINT_NO_SCHEDULE = {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
TAINT_NO_EXECUTE = {"key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TOLERATION_NO_EXECUTE = {"operator": "Equal", "key": "taint-key", "value": "taint-value-2", "effect": "NoExecute"}
TOLERATION_NO_SCHEDULE = {"operator": "Exists", "key": "taint-key", "effect": "NoSchedule"}


def mem(q: str) -> str:
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0'


@dataclass
class Case:
    claims: Sequence[ResourceClaim] = ()
    classes: Sequence[DeviceClass] = ()
    slices: Sequence[ResourceSlice] = ()
    node: Node | None = None
    features: Features = Features()
    allocated: Sequence[tuple[str, str, str]] = ()
    # one list of (request, driver, pool, device[, adminAccess]) per claim; None: no solution
    results: list[list[Result]] | None = None
    node_name: str = NODE1  # where every allocation is pinned (localNodeSelector)
    error: str = ""
    node_error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def local(*rs: Result) -> list[Result]:
    return list(rs)


def two_devs(*attrs: dict[str, Any]) -> ResourceSlice:
    return slice_(SLICE1, NODE1, POOL1, DRIVER_A, *(device(f"device-{i + 1}", None, a) for i, a in enumerate(attrs)))


CASES = [
    pytest.param(Case(), id="empty"),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="simple",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_B), one_device(SLICE2, NODE2, POOL2, DRIVER_A)],
            node=node(NODE2, REGION2),
            results=[local((REQ0, DRIVER_A, POOL2, DEV1))],
            node_name=NODE2,
        ),
        id="other-node",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi")), request(REQ1, CLASS_A, 1, mem("2Gi")))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "1Gi"}), device(DEV2, {"memory": "2Gi"}))
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ1, DRIVER_A, POOL1, DEV2))],
        ),
        id="small-and-large",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi")), request(REQ1, CLASS_A, 1, mem("2Gi")))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV2, {"memory": "2Gi"}), device(DEV1, {"memory": "1Gi"}))
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ1, DRIVER_A, POOL1, DEV2))],
        ),
        id="small-and-large-backtrack-requests",
    ),
    pytest.param(
        Case(
            claims=[
                claim(CLAIM0, request(REQ0, CLASS_A, 1, mem("1Gi"))),
                claim(CLAIM1, request(REQ1, CLASS_A, 1, mem("2Gi"))),
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV2, {"memory": "2Gi"}), device(DEV1, {"memory": "1Gi"}))
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1)), local((REQ1, DRIVER_A, POOL1, DEV2))],
        ),
        id="small-and-large-backtrack-claims",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE2, NODE1, POOL2, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ0, DRIVER_A, POOL2, DEV1))],
        ),
        id="devices-split-across-different-slices",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_("slice-1-obsolete", NODE1, (POOL1, 2), DRIVER_A, device(DEV1)),
                slice_("slice-1-obsolete", NODE1, (POOL1, 2), DRIVER_A, device(DEV2), generation=2),
            ],
            node=node(NODE1, REGION1),
            results=None,
        ),
        id="obsolete-slice",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, (POOL1, 2), DRIVER_A, device(DEV1)),
                slice_("slice-1-2", NODE1, (POOL1, 2), DRIVER_A, device(DEV1)),
            ],
            node=node(NODE1, REGION1),
            node_error="invalid resource pools were encountered",
        ),
        id="duplicate-slice",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            node=node(NODE1, REGION1),
        ),
        id="no-slices",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_request(CLAIM0, REQ1, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
        ),
        id="not-enough-suitable-devices",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="could not retrieve device class class-a",
        ),
        id="no-classes",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, "unknown-class")],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="could not retrieve device class unknown-class",
        ),
        id="unknown-class",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="all-devices-single",
    ),
    pytest.param(
        Case(
            features=Features(partitionable_devices=True),
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    device(DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                ),
                slice_(
                    SLICE2,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    sharedCounters=[{"name": COUNTER_SET1, "counters": counters(memory="8Gi")}],
                ),
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="all-devices-with-consumed-counters",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE1, NODE1, POOL2, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ0, DRIVER_A, POOL2, DEV1))],
        ),
        id="all-devices-many",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, (POOL1, 2), DRIVER_A)],
            node=node(NODE1, REGION1),
            error="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
        ),
        id="all-devices-of-the-incomplete-pool",
    ),
    pytest.param(
        # 1.38 (#141898, ErrFailedAllocationOnNode): the same text fails only this node
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, (POOL1, 2), DRIVER_A)],
            node=node(NODE1, REGION1),
            features=Features(pool_rules=38),
            node_error="claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
        ),
        id="all-devices-of-the-incomplete-pool-fails-the-node-1.38",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_B, 1))],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1)), local((REQ0, DRIVER_B, POOL2, DEV1))],
        ),
        id="all-devices-plus-another",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2))],
            allocated=[(DRIVER_A, POOL1, DEV1)],
            node=node(NODE1, REGION1),
        ),
        id="all-devices-some-allocated",
    ),
    pytest.param(
        Case(
            features=Features(admin_access=True),
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A, adminAccess=True))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1), device(DEV2))],
            allocated=[(DRIVER_A, POOL1, DEV1)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1, True), (REQ0, DRIVER_A, POOL1, DEV2, True))],
        ),
        id="all-devices-some-allocated-admin-access",
    ),
    pytest.param(
        Case(
            features=Features(admin_access=True),
            claims=[
                claim(CLAIM0, request(REQ0, CLASS_A, 1)),
                claim(CLAIM1, request(REQ0, CLASS_A, 1, adminAccess=True)),
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1)), local((REQ0, DRIVER_A, POOL1, DEV1, True))],
        ),
        id="separate-claims-share-device-admin-access",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "region", "operator": "In", "values": [REGION1]}]}
                        ]
                    },
                    POOL1,
                    DRIVER_A,
                    device(DEV1),
                )
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
            node_name="",
            extra={"selector_region": REGION1},
        ),
        id="network-attached-device",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "region", "operator": "In", "values": [REGION1]}]}
                        ]
                    },
                    POOL1,
                    DRIVER_A,
                    device(DEV1),
                )
            ],
            node=node(NODE2, REGION2),
        ),
        id="unsuccessful-allocation-network-attached-device",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            allocated=[(DRIVER_A, POOL1, DEV1), (DRIVER_A, POOL1, DEV2)],
            node=node(NODE1, REGION1),
        ),
        id="already-allocated-devices",
    ),
    pytest.param(
        Case(
            features=Features(admin_access=False),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A, adminAccess=True)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="claim claim-0, request req-0: admin access is requested, but the feature is disabled",
        ),
        id="admin-access-disabled",
    ),
    pytest.param(
        Case(
            features=Features(admin_access=True),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A, adminAccess=True)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            allocated=[(DRIVER_A, POOL1, DEV1), (DRIVER_A, POOL1, DEV2)],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1, True))],
        ),
        id="admin-access-enabled",
    ),
    pytest.param(
        Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request(REQ1, CLASS_A, 1),
                    constraints=[{"matchAttribute": a} for a in (INT_ATTR, VERSION_ATTR, STRING_ATTR, BOOL_ATTR)],
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                two_devs(
                    *[
                        {
                            "driverVersion": {"version": "1.0.0"},
                            "numa": {"int": 1},
                            "stringAttribute": {"string": "stringAttributeValue"},
                            "boolAttribute": {"bool": True},
                        }
                    ]
                    * 2
                )
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ1, DRIVER_A, POOL1, DEV2))],
        ),
        id="with-constraint",
    ),
    pytest.param(
        Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    constraints=[{"matchAttribute": f"{DRIVER_A}/NonExistentAttribute"}],
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
        ),
        id="with-constraint-non-existent-attribute",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": INT_ATTR}])],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[two_devs({"numa": {"int": 1}}, {"numa": {"int": 2}})],
            node=node(NODE1, REGION1),
        ),
        id="with-constraint-not-matching-int-attribute",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A), constraints=[{"matchAttribute": INT_ATTR}])],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[two_devs({"numa": {"int": 1}}, {"numa": {"int": 2}})],
            node=node(NODE1, REGION1),
            error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied",
        ),
        id="with-constraint-not-matching-int-attribute-all-devices",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": VERSION_ATTR}])],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[two_devs({"driverVersion": {"version": "1.0.0"}}, {"driverVersion": {"version": "2.0.0"}})],
            node=node(NODE1, REGION1),
        ),
        id="with-constraint-not-matching-version-attribute",
    ),
    pytest.param(
        Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request(REQ1, CLASS_A, 1),
                    constraints=[{"requests": [REQ0], "matchAttribute": VERSION_ATTR}],
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[two_devs({"driverVersion": {"version": "1.0.0"}}, {"driverVersion": {"version": "2.0.0"}})],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ1, DRIVER_A, POOL1, DEV2))],
        ),
        id="with-constraint-for-request",
    ),
    pytest.param(
        Case(
            claims=[
                claim(
                    CLAIM0,
                    request(REQ0, CLASS_A, 1),
                    request(REQ1, CLASS_A, 1),
                    constraints=[{"requests": [REQ0], "matchAttribute": VERSION_ATTR}, {"matchAttribute": STRING_ATTR}],
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[
                two_devs(
                    {"driverVersion": {"version": "1.0.0"}, "stringAttribute": {"string": "a"}},
                    {"driverVersion": {"version": "2.0.0"}, "stringAttribute": {"string": "b"}},
                    {"driverVersion": {"version": "3.0.0"}, "stringAttribute": {"string": "b"}},
                )
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV2), (REQ1, DRIVER_A, POOL1, DEV3))],
        ),
        id="with-constraint-for-request-retry",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1, "noSuchVar"))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="undeclared reference",
        ),
        id="invalid-CEL-one-device",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, "", "noSuchVar")],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="undeclared reference",
        ),
        id="invalid-CEL-one-device-class",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, all_request(REQ0, CLASS_A, selectors=[{"cel": {"expression": "noSuchVar"}}]))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="undeclared reference",
        ),
        id="invalid-CEL-all-devices",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 500))],
            classes=[cls(CLASS_A, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="exceeds the claim limit",
        ),
        id="too-many-devices-single-request",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 32))],
            classes=[cls(CLASS_A, DRIVER_A)],
            node=node(NODE1, REGION1),
        ),
        id="many-devices-okay",
    ),
    pytest.param(
        Case(
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 32), request(REQ1, CLASS_A, 1))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[slice_(SLICE1, NODE1, POOL1, DRIVER_A, *(device(f"device-{i}") for i in range(33)))],
            node=node(NODE1, REGION1),
            error="exceeds the claim limit",
        ),
        id="too-many-devices-total",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=True),
            claims=[claim(CLAIM0, prioritized(REQ0, sub_request(SUB0, CLASS_B, 1), sub_request(SUB1, CLASS_A, 1)))],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local(("req-0/subreq-1", DRIVER_A, POOL1, DEV1))],
        ),
        id="prioritized-list-first-unavailable",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=True),
            claims=[claim(CLAIM0, prioritized(REQ0, sub_request(SUB0, CLASS_B, 2), sub_request(SUB1, CLASS_A, 2)))],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A), one_device(SLICE2, NODE1, POOL2, DRIVER_B)],
            node=node(NODE1, REGION1),
        ),
        id="prioritized-list-non-available",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=False),
            claims=[claim(CLAIM0, prioritized(REQ0, sub_request(SUB0, CLASS_A, 1)))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            error="claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled",
        ),
        id="prioritized-list-disabled",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    request(REQ1, CLASS_A, 1, mem("8Gi")),
                    prioritized(
                        REQ0, sub_request(SUB0, CLASS_A, 1, mem("8Gi")), sub_request(SUB1, CLASS_A, 1, mem("4Gi"))
                    ),
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"})),
                slice_(SLICE2, NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "4Gi"})),
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ1, DRIVER_A, POOL1, DEV1), ("req-0/subreq-1", DRIVER_A, POOL2, DEV2))],
        ),
        id="prioritized-list-multi-request",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=True),
            claims=[
                claim(
                    CLAIM0,
                    prioritized(
                        REQ0, sub_request(SUB0, CLASS_A, 1, mem("8Gi")), sub_request(SUB1, CLASS_A, 1, mem("4Gi"))
                    ),
                    request(REQ1, CLASS_A, 1, mem("8Gi")),
                )
            ],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, {"memory": "8Gi"})),
                slice_(SLICE2, NODE1, POOL2, DRIVER_A, device(DEV2, {"memory": "4Gi"})),
            ],
            node=node(NODE1, REGION1),
            results=[local(("req-0/subreq-1", DRIVER_A, POOL2, DEV2), (REQ1, DRIVER_A, POOL1, DEV1))],
        ),
        id="prioritized-list-with-backtracking",
    ),
    pytest.param(
        Case(
            features=Features(prioritized_list=True),
            claims=[claim(CLAIM0, prioritized(REQ0, sub_request(SUB0, CLASS_B, 500), sub_request(SUB1, CLASS_A, 1)))],
            classes=[cls(CLASS_A, DRIVER_A), cls(CLASS_B, DRIVER_B)],
            slices=[one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
            node=node(NODE1, REGION1),
            results=[local(("req-0/subreq-1", DRIVER_A, POOL1, DEV1))],
        ),
        id="prioritized-list-too-many-in-first-subrequest",
    ),
    pytest.param(
        Case(
            features=Features(partitionable_devices=True),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    device(DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                ),
                slice_(
                    SLICE2,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    sharedCounters=[{"name": COUNTER_SET1, "counters": counters(memory="8Gi")}],
                ),
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="partitionable-devices-single-device",
    ),
    pytest.param(
        Case(
            features=Features(partitionable_devices=True),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    device(DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                    device(DEV2, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="16Gi")}]),
                ),
                slice_(
                    SLICE2,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    sharedCounters=[{"name": COUNTER_SET1, "counters": counters(memory="18Gi")}],
                ),
            ],
            allocated=[(DRIVER_A, POOL1, DEV2)],
            node=node(NODE1, REGION1),
        ),
        id="partitionable-devices-no-capacity-available",
    ),
    pytest.param(
        Case(
            features=Features(partitionable_devices=True),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    device(DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                    device(DEV2, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="6Gi")}]),
                    device(DEV3, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                ),
                slice_(
                    SLICE2,
                    NODE1,
                    (POOL1, 2),
                    DRIVER_A,
                    sharedCounters=[{"name": COUNTER_SET1, "counters": counters(memory="8Gi")}],
                ),
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1), (REQ0, DRIVER_A, POOL1, DEV3))],
        ),
        id="partitionable-devices-multiple-devices",
    ),
    pytest.param(
        Case(
            features=Features(partitionable_devices=False),
            claims=[claim(CLAIM0, request(REQ0, CLASS_A, 1))],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]),
                ),
            ],
            node=node(NODE1, REGION1),
        ),
        id="partitionable-devices-disabled-device-consumes-counters",
    ),
    pytest.param(
        Case(
            features=Features(device_taints=True),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEV1, taints=[TAINT_NO_SCHEDULE]),
                    device(DEV2, taints=[TAINT_NO_EXECUTE]),
                )
            ],
            node=node(NODE1, REGION1),
        ),
        id="tainted-two-devices",
    ),
    pytest.param(
        Case(
            features=Features(device_taints=True),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A, tolerations=[TOLERATION_NO_EXECUTE])],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEV1, taints=[TAINT_NO_SCHEDULE]),
                    device(DEV2, taints=[TAINT_NO_EXECUTE]),
                )
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV2))],
        ),
        id="tainted-two-devices-tolerated",
    ),
    pytest.param(
        Case(
            features=Features(device_taints=True),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[
                slice_(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    device(DEV1, taints=[{"key": "taint-key", "value": "taint-value", "effect": "None"}]),
                )
            ],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="tainted-no-effect",
    ),
    pytest.param(
        Case(
            features=Features(device_taints=False),
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, taints=[TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE]))],
            node=node(NODE1, REGION1),
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="tainted-disabled",
    ),
    pytest.param(
        Case(
            claims=[claim_with_request(CLAIM0, REQ0, CLASS_A)],
            classes=[cls(CLASS_A, DRIVER_A)],
            slices=[slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, bindingConditions=["IsPrepared"]))],
            node=node(NODE1, REGION1),
        ),
        id="binding-conditions-without-feature-gate",
    ),
]


@pytest.mark.parametrize("case", CASES)
def test_allocate(case: Case) -> None:
    alloc = Allocator(case.features, set(case.allocated), {c.name: c for c in case.classes}, SliceIndex(case.slices))
    target = case.node or node(NODE1, REGION1)
    if case.error:
        with pytest.raises(AllocationError, match=None) as err:
            alloc.allocate(target, case.claims)
        assert case.error in str(err.value)
        return
    if case.node_error:
        with pytest.raises(NodeAllocationError) as nerr:
            alloc.allocate(target, case.claims)
        assert case.node_error in str(nerr.value)
        return
    got = alloc.allocate(target, case.claims)
    if case.results is None:
        assert got is None or not case.claims and got == []
        return
    assert got is not None
    flat = [
        [(r.request, r.driver, r.pool, r.device) + ((True,) if r.admin_access else ()) for r in a.results] for a in got
    ]
    assert flat == case.results
    for a in got:
        assert a.node_name == case.node_name
        if not case.node_name:
            assert a.node_selector is not None
            assert a.node_selector.matches({"region": REGION1}, "any")
            assert not a.node_selector.matches({"region": REGION2}, "any")


# --- resource pool rules by release (Behaviour.dra_pool_rules) --------------------------------
# upstream's "duplicate-slice" case (allocator_testing.go): two slices of one pool publish the same
# device. v1.31.8 knows no invalid pools; v1.32.5-v1.34.7 fail the pod ("pool %s is invalid: %s"
# from allocateOne); from v1.35.7 the pool is skipped and only the node fails.

DUPLICATE = [
    slice_(SLICE1, NODE1, (POOL1, 2), DRIVER_A, device(DEV1)),
    slice_("slice-1-2", NODE1, (POOL1, 2), DRIVER_A, device(DEV1)),
]
INVALID = "pool pool-1 is invalid: duplicate device name device-1"


def _rules(n: int, **extra: Any) -> Features:
    return Features(pool_rules=n, **extra)


def _one_claim(features: Features, slices: Sequence[ResourceSlice], **kw: Any) -> Case:
    """claim-0 asks for one device of class-a (driver-a) under these rules, unless ``claims`` says more."""
    kw.setdefault("claims", [claim_with_request(CLAIM0, REQ0, CLASS_A)])
    return Case(features=features, classes=[cls(CLASS_A, DRIVER_A)], slices=slices, **kw)


POOL_RULE_CASES = [
    *(
        pytest.param(
            _one_claim(
                _rules(n),
                DUPLICATE,
                results=[local((REQ0, DRIVER_A, POOL1, DEV1))] if n == 31 else None,
                error=INVALID if 32 <= n <= 34 else "",
                node_error="invalid resource pools were encountered" if n >= 35 else "",
            ),
            id=f"duplicate-slice-{n}",
        )
        for n in (31, 32, 33, 34, 35, 36)
    ),
    *(
        pytest.param(
            # until 1.34 an incomplete pool still offers its devices to a counted request
            _one_claim(
                _rules(n),
                [one_device(SLICE1, NODE1, (POOL1, 2), DRIVER_A)],
                results=[local((REQ0, DRIVER_A, POOL1, DEV1))] if n <= 34 else None,
            ),
            id=f"incomplete-pool-exact-count-{n}",
        )
        for n in (31, 34, 35, 36)
    ),
    *(
        pytest.param(
            # the valid pool comes first and satisfies the claim: the invalid one is never reached
            _one_claim(
                _rules(n),
                [
                    one_device(SLICE1, NODE1, "pool-0", DRIVER_A),
                    *DUPLICATE,
                ],
                results=[local((REQ0, DRIVER_A, "pool-0", DEV1))],
            ),
            id=f"invalid-pool-not-reached-{n}",
        )
        for n in (32, 33, 34, 35)
    ),
    *(
        pytest.param(
            # a second device is needed; the invalid pool's devices are all in use. v1.32.5 fails
            # only on a device it would take, v1.33.3 on reaching the pool
            _one_claim(
                _rules(n),
                [one_device(SLICE1, NODE1, "pool-0", DRIVER_A), *DUPLICATE],
                claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
                allocated=[(DRIVER_A, POOL1, DEV1)],
                error=INVALID if n in (33, 34) else "",
                node_error="invalid resource pools were encountered" if n >= 35 else "",
            ),
            id=f"invalid-pool-devices-in-use-{n}",
        )
        for n in (32, 33, 34, 35)
    ),
    *(
        pytest.param(
            # slices are tried in name order, whatever order the cluster listed them in (1.36's
            # sortSlicesByName; a random order before, of which this is one)
            _one_claim(
                _rules(n),
                [
                    slice_("slice-b", NODE1, (POOL1, 2), DRIVER_A, device("dev-b")),
                    slice_("slice-a", NODE1, (POOL1, 2), DRIVER_A, device("dev-a")),
                ],
                results=[local((REQ0, DRIVER_A, POOL1, "dev-a"))],
            ),
            id=f"slices-in-name-order-{n}",
        )
        for n in (34, 35, 36)
    ),
    pytest.param(
        # a pool with binding conditions is tried after the others (experimental and 1.36's
        # incubating allocators)
        _one_claim(
            _rules(36, device_binding_and_status=True, binding_conditions_last=True),
            [
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, bindingConditions=["IsPrepared"])),
                one_device(SLICE2, NODE1, POOL2, DRIVER_A),
            ],
            results=[local((REQ0, DRIVER_A, POOL2, DEV1))],
        ),
        id="binding-pool-last",
    ),
    pytest.param(
        _one_claim(
            _rules(36, device_binding_and_status=True),
            [
                slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1, bindingConditions=["IsPrepared"])),
                one_device(SLICE2, NODE1, POOL2, DRIVER_A),
            ],
            results=[local((REQ0, DRIVER_A, POOL1, DEV1))],
        ),
        id="binding-pool-in-name-order-when-not-last",
    ),
    *(
        pytest.param(
            # within a pool, 1.34's and 1.35's experimental allocator puts slices with binding
            # conditions last; 1.36 orders them by name only
            _one_claim(
                _rules(n, device_binding_and_status=True, binding_conditions_last=True),
                [
                    slice_(SLICE1, NODE1, (POOL1, 2), DRIVER_A, device(DEV1, bindingConditions=["IsPrepared"])),
                    slice_(SLICE2, NODE1, (POOL1, 2), DRIVER_A, device(DEV2)),
                ],
                results=[local((REQ0, DRIVER_A, POOL1, DEV2 if n < 36 else DEV1))],
            ),
            id=f"binding-slice-order-{n}",
        )
        for n in (34, 35, 36)
    ),
]


@pytest.mark.parametrize("case", POOL_RULE_CASES)
def test_pool_rules(case: Case) -> None:
    test_allocate(case)


@pytest.mark.parametrize(
    "release,rules,outcome",
    [
        pytest.param("1.31.8", 31, "allocated", id="1.31-no-invalid-pools"),
        pytest.param("1.32.5", 32, "pod fails", id="1.32-fails-the-pod"),
        pytest.param("1.34.7", 34, "pod fails", id="1.34-fails-the-pod"),
        pytest.param("1.35.7", 35, "node fails", id="1.35-fails-the-node"),
        pytest.param("1.36.2", 36, "node fails", id="1.36-fails-the-node"),
    ],
)
def test_duplicate_slice_by_release(release: str, rules: int, outcome: str) -> None:
    """The same input under each release's pool rules (Behaviour.dra_pool_rules), with every DRA
    feature of that release's defaults."""
    from dataclasses import replace

    from kwhatif.dra.features import for_release

    features = replace(for_release(release), enabled=True)
    assert features.pool_rules == rules
    alloc = Allocator(features, set(), {CLASS_A: cls(CLASS_A, DRIVER_A)}, SliceIndex(DUPLICATE))
    claims = [claim_with_request(CLAIM0, REQ0, CLASS_A)]
    if outcome == "pod fails":
        with pytest.raises(AllocationError, match=INVALID):
            alloc.allocate(node(NODE1, REGION1), claims)
    elif outcome == "node fails":
        with pytest.raises(NodeAllocationError, match="invalid resource pools were encountered"):
            alloc.allocate(node(NODE1, REGION1), claims)
    else:
        got = alloc.allocate(node(NODE1, REGION1), claims)
        assert got is not None and [(r.pool, r.device) for r in got[0].results] == [(POOL1, DEV1)]
