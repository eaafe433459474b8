"""Consumable capacity (DRAConsumableCapacity, beta from 1.36): devices that allow multiple
allocations are shared between claims, each taking capacity as the device's request policy
rounds it; distinctAttribute constraints. Cases transcribed from upstream's
allocator_testing.go (v0.35), run with the feature on as the "experimental" allocator does."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kwhatif.dra.allocator import AllocationError, Allocator, SliceIndex
from kwhatif.dra.features import Features
from tests.dra.builders import (
    CLAIM0,
    CLAIM1,
    CLASS_A,
    DEV1,
    DEV2,
    DEV3,
    DRIVER_A,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    REQ1,
    SLICE1,
    SUB0,
    SUB1,
    claim,
    cls,
    device,
    node,
    prioritized,
    request,
    slice_,
    sub_request,
)

ON = Features(consumable_capacity=True)
CAP0 = "capacity-0"


def multi(
    name: str, capacity: dict[str, Any] | None = None, attributes: dict[str, Any] | None = None
) -> dict[str, Any]:
    d = device(name, None, attributes, allowMultipleAllocations=True)
    if capacity:
        d["capacity"] = capacity
    return d


def ranged(value: int) -> dict[str, Any]:
    """withCapacityRequestPolicyRange: default 2, min 2, step 2, max 4."""
    return {
        CAP0: {
            "value": str(value),
            "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}},
        }
    }


def valid_values(default: int, value: int, *more: int) -> dict[str, Any]:
    return {
        CAP0: {
            "value": str(value),
            "requestPolicy": {"default": str(default), "validValues": [str(default), *map(str, more)]},
        }
    }


def wants(q: int) -> dict[str, Any]:
    return {"capacity": {"requests": {CAP0: str(q)}}}


MULTI_CLASS = cls(CLASS_A, "", f'device.driver == "{DRIVER_A}" && device.allowMultipleAllocations == true')


def run(features, claims, slices, classes=(MULTI_CLASS,), allocated_capacity=None):
    alloc = Allocator(
        features, set(), {c.name: c for c in classes}, SliceIndex(slices), allocated_capacity=allocated_capacity
    )
    return alloc.allocate(node(NODE1, REGION1), claims)


def flat(results):
    if results is None:
        return None
    return [
        [(r.request, r.device, dict(r.consumed_capacity), r.share_id is not None) for r in a.results] for a in results
    ]


@pytest.mark.parametrize(
    "claims, slices, want",
    [
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, {"capacity-1": {"value": "1"}}))],
            None,
            id="consumable-capacity-multi-allocatable-device-with-missing-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1))],
            [[(REQ0, DEV1, {}, True)], [(REQ0, DEV1, {}, True)]],
            id="consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))],
            [
                slice_(
                    SLICE1,
                    NODE1,
                    POOL1,
                    DRIVER_A,
                    multi(DEV1, {CAP0: {"value": "1"}}),
                    multi(DEV2, {CAP0: {"value": "1"}}),
                )
            ],
            [[(REQ0, DEV1, {CAP0: Fraction(1)}, True)], [(REQ0, DEV2, {CAP0: Fraction(1)}, True)]],
            id="consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, {CAP0: {"value": "2"}}))],
            None,
            id="consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block",
        ),
        pytest.param(
            [
                claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1))),
                claim(CLAIM1, request(REQ0, CLASS_A, 1, **wants(1))),
            ],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, {CAP0: {"value": "2"}}))],
            [[(REQ0, DEV1, {CAP0: Fraction(1)}, True)], [(REQ0, DEV1, {CAP0: Fraction(1)}, True)]],
            id="consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(4)))],
            [[(REQ0, DEV1, {CAP0: Fraction(2)}, True)], [(REQ0, DEV1, {CAP0: Fraction(2)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, valid_values(0, 1)))],
            [[(REQ0, DEV1, {CAP0: Fraction(0)}, True)], [(REQ0, DEV1, {CAP0: Fraction(0)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-zero-request-policy",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, valid_values(0, 1)))],
            None,
            id="consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
        ),
        pytest.param(
            [
                claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1))),
                claim(CLAIM1, request(REQ0, CLASS_A, 1, **wants(1))),
            ],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(4)))],
            [[(REQ0, DEV1, {CAP0: Fraction(2)}, True)], [(REQ0, DEV1, {CAP0: Fraction(2)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(3)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(4)))],
            [[(REQ0, DEV1, {CAP0: Fraction(4)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-range-policy-step",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(2)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, valid_values(1, 4, 2)))],
            [[(REQ0, DEV1, {CAP0: Fraction(2)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-valid-values-policy",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(2)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, valid_values(1, 3, 3)))],
            [[(REQ0, DEV1, {CAP0: Fraction(3)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
        ),
        pytest.param(
            [
                claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1))),
                claim(CLAIM1, request(REQ0, CLASS_A, 1, **wants(2))),
            ],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(2)))],
            None,
            id="consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
        ),
        pytest.param(
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(6)))],
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(10)))],
            None,
            id="consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
        ),
    ],
)
def test_consumable_capacity(claims, slices, want):
    assert flat(run(ON, claims, slices)) == want


@pytest.mark.parametrize(
    "slices, want",
    [
        pytest.param(
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(4)))],
            [[(REQ0, DEV1, {CAP0: Fraction(2)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining",
        ),
        pytest.param(
            [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1, ranged(2)), multi(DEV2, ranged(2)))],
            [[(REQ0, DEV2, {CAP0: Fraction(2)}, True)]],
            id="consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device",
        ),
    ],
)
def test_allocated_capacity_is_taken(slices, want):
    got = run(
        ON,
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(2)))],
        slices,
        allocated_capacity={(DRIVER_A, POOL1, DEV1): {CAP0: Fraction(2)}},
    )
    assert flat(got) == want


@pytest.mark.parametrize(
    "features, claims, error",
    [
        pytest.param(
            Features(device_binding_and_status=True),
            [claim(CLAIM0, request(REQ0, CLASS_A, 1, **wants(1)))],
            "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
            id="consumable-capacity-disabled-feature",
        ),
        pytest.param(
            Features(prioritized_list=True, device_binding_and_status=True),
            [
                claim(
                    CLAIM0,
                    prioritized(
                        REQ0, sub_request(SUB0, CLASS_A, 1, **wants(1)), sub_request(SUB1, CLASS_A, 1, **wants(1))
                    ),
                )
            ],
            "claim claim-0, subrequest subreq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
            id="consumable-capacity-disabled-feature-with-prioritized-list",
        ),
    ],
)
def test_capacity_requests_need_the_feature(features, claims, error):
    with pytest.raises(AllocationError) as e:
        run(features, claims, [slice_(SLICE1, NODE1, POOL1, DRIVER_A, device(DEV1))], classes=(cls(CLASS_A, DRIVER_A),))
    assert error in str(e.value)


def test_with_distinct_constraints():
    attrs = [
        {"driverVersion": {"version": "1.0.0"}, "numa": {"int": 0}, "boolAttribute": {"bool": True}},
        {"driverVersion": {"version": "1.0.1"}, "numa": {"int": 1}, "boolAttribute": {"bool": False}},
        {"driverVersion": {"version": "1.0.2"}, "numa": {"int": 2}, "boolAttribute": {"bool": True}},
        {"driverVersion": {"version": "1.0.0"}, "numa": {"int": 3}, "boolAttribute": {"bool": True}},
    ]
    c = claim(
        CLAIM0,
        request(REQ0, CLASS_A),
        request(REQ1, CLASS_A),
        request("req-2", CLASS_A),
        request("req-3", CLASS_A),
        constraints=[
            {"distinctAttribute": f"{DRIVER_A}/boolAttribute", "requests": [REQ0, REQ1]},
            {"distinctAttribute": f"{DRIVER_A}/driverVersion", "requests": [REQ0, REQ1, "req-2"]},
            {"distinctAttribute": f"{DRIVER_A}/numa", "requests": [REQ0, REQ1, "req-2", "req-3"]},
        ],
    )
    got = run(
        ON,
        [c],
        [slice_(SLICE1, NODE1, POOL1, DRIVER_A, *(multi(f"device-{i + 1}", None, a) for i, a in enumerate(attrs)))],
        classes=(cls(CLASS_A, DRIVER_A),),
    )
    assert [(r.request, r.device) for r in got[0].results] == [
        (REQ0, DEV1),
        (REQ1, DEV2),
        ("req-2", DEV3),
        ("req-3", "device-4"),
    ]


def test_distinct_constraint_attribute_not_set():
    c = claim(
        CLAIM0,
        request(REQ0, CLASS_A),
        constraints=[{"distinctAttribute": f"{DRIVER_A}/boolAttribute", "requests": [REQ0]}],
    )
    assert (
        run(ON, [c], [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1))], classes=(cls(CLASS_A, DRIVER_A),)) is None
    )


def test_without_the_feature_shared_devices_are_whole():
    """Off (1.34, 1.35): allowMultipleAllocations is ignored; the second claim finds the device taken."""
    claims = [claim(CLAIM0, request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A))]
    assert (
        run(
            Features(), claims, [slice_(SLICE1, NODE1, POOL1, DRIVER_A, multi(DEV1))], classes=(cls(CLASS_A, DRIVER_A),)
        )
        is None
    )
