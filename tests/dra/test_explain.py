"""Why the allocator found nothing on a node, in words: each stage a request cannot pass."""

from __future__ import annotations

import pytest

from kwhatif.dra.allocator import Allocator, SliceIndex
from kwhatif.dra.explain import diagnose
from kwhatif.dra.features import Features
from tests.dra.builders import (
    CLAIM0,
    CLASS_A,
    COUNTER_SET1,
    DEV1,
    DEV2,
    DRIVER_A,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    REQ1,
    SLICE1,
    SLICE2,
    claim,
    cls,
    counters,
    device,
    node,
    prioritized,
    request,
    slice_,
    sub_request,
)


def lines(features, claims, classes, slices, allocated=(), holders=None):
    alloc = Allocator(features, set(allocated), {c.name: c for c in classes}, SliceIndex(slices))
    assert alloc.allocate(node(NODE1, REGION1), claims) is None  # the case really does not fit
    return diagnose(alloc, node(NODE1, REGION1), claims, holders or {}).lines


TWO = slice_(
    SLICE1,
    NODE1,
    POOL1,
    DRIVER_A,
    device(DEV1, {"memory": "1Gi"}, {"numa": {"int": 0}}),
    device(DEV2, {"memory": "2Gi"}, {"numa": {"int": 1}}),
)


@pytest.mark.parametrize(
    "kwargs, want",
    [
        pytest.param(
            dict(claims=[claim(CLAIM0, request(REQ0, CLASS_A))], classes=[cls(CLASS_A, DRIVER_A)], slices=[]),
            ["claim claim-0, request req-0: the node has no devices of any DRA driver"],
            id="no-devices",
        ),
        pytest.param(
            dict(claims=[claim(CLAIM0, request(REQ0, CLASS_A))], classes=[cls(CLASS_A, "other-driver")], slices=[TWO]),
            ["claim claim-0, request req-0: none of the node's 2 device(s) is in device class class-a"],
            id="class",
        ),
        pytest.param(
            dict(
                claims=[
                    claim(
                        CLAIM0,
                        request(
                            REQ0, CLASS_A, 1, f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("4Gi")) >= 0'
                        ),
                    )
                ],
                classes=[cls(CLASS_A, DRIVER_A)],
                slices=[TWO],
            ),
            [
                "claim claim-0, request req-0: none of the node's 2 device(s) of class class-a matches the request's selectors"
            ],
            id="selectors",
        ),
        pytest.param(
            dict(
                claims=[claim(CLAIM0, request(REQ0, CLASS_A, 2))],
                classes=[cls(CLASS_A, DRIVER_A)],
                slices=[TWO],
                allocated=[(DRIVER_A, POOL1, DEV1)],
                holders={(DRIVER_A, POOL1, DEV1): "team/other"},
            ),
            ["claim claim-0, request req-0: needs 2 device(s); 2 match, 1 already allocated to team/other (1)"],
            id="in-use",
        ),
        pytest.param(
            dict(claims=[claim(CLAIM0, request(REQ0, CLASS_A, 3))], classes=[cls(CLASS_A, DRIVER_A)], slices=[TWO]),
            ["claim claim-0, request req-0: needs 3 device(s); only 2 device(s) match"],
            id="too-few",
        ),
        pytest.param(
            dict(
                claims=[
                    claim(
                        CLAIM0,
                        request(REQ0, CLASS_A),
                        request(REQ1, CLASS_A),
                        constraints=[{"matchAttribute": f"{DRIVER_A}/numa"}],
                    )
                ],
                classes=[cls(CLASS_A, DRIVER_A)],
                slices=[TWO],
            ),
            [
                "each request could be met alone, but no set of devices satisfies the matchAttribute constraint(s) on driver-a/numa of claim(s) claim-0"
            ],
            id="constraint",
        ),
        pytest.param(
            dict(
                claims=[
                    claim(CLAIM0, prioritized(REQ0, sub_request("big", CLASS_A, 4), sub_request("small", CLASS_A, 3)))
                ],
                classes=[cls(CLASS_A, DRIVER_A)],
                slices=[TWO],
                features=Features(prioritized_list=True),
            ),
            [
                "claim claim-0, request req-0: none of its 2 alternatives (firstAvailable) can be met: needs 4 device(s); only 2 device(s) match (req-0/big); "
                "needs 3 device(s); only 2 device(s) match (req-0/small)"
            ],
            id="prioritized-list",
        ),
        pytest.param(
            dict(
                claims=[claim(CLAIM0, request(REQ0, CLASS_A))],
                classes=[cls(CLASS_A, DRIVER_A)],
                features=Features(partitionable_devices=True),
                slices=[
                    slice_(
                        SLICE1,
                        NODE1,
                        (POOL1, 2),
                        DRIVER_A,
                        device(
                            DEV1, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="4Gi")}]
                        ),
                        device(
                            DEV2, consumesCounters=[{"counterSet": COUNTER_SET1, "counters": counters(memory="8Gi")}]
                        ),
                    ),
                    slice_(
                        SLICE2,
                        NODE1,
                        (POOL1, 2),
                        DRIVER_A,
                        sharedCounters=[{"name": COUNTER_SET1, "counters": counters(memory="8Gi")}],
                    ),
                ],
                allocated=[(DRIVER_A, POOL1, DEV2)],
                holders={(DRIVER_A, POOL1, DEV2): "ml/mig"},
            ),
            [
                "claim claim-0, request req-0: needs 1 device(s); 2 match, 1 already allocated to ml/mig (1), 1 tainted or out of shared counters"
            ],
            id="counters",
        ),
    ],
)
def test_diagnose(kwargs, want):
    kwargs.setdefault("features", Features())
    assert lines(kwargs.pop("features"), **kwargs) == want
