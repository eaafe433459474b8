"""1.38's structured allocator rules (DRA allocator rules 38): a device that no longer allows
multiple allocations is kept from dedicated use while a persisted share of it is live (#140798);
capacity names compare as fully-qualified names (#142202)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kwhatif.dra.allocator import Allocator, SliceIndex
from kwhatif.dra.features import Features
from kwhatif.release.versions import get
from tests.dra.builders import (
    CLAIM0,
    CLASS_A,
    DEV1,
    DEV2,
    DRIVER_A,
    NODE1,
    POOL1,
    REGION1,
    REQ0,
    SLICE1,
    claim,
    cls,
    device,
    node,
    request,
    slice_,
)

SHARE = {(DRIVER_A, POOL1, DEV1): {"capacity-0": Fraction(2)}}


def _run(pool_rules: int, *devices: dict, allocated_capacity: dict | None = SHARE) -> list[str] | None:
    alloc = Allocator(
        Features(consumable_capacity=True, pool_rules=pool_rules),
        set(),
        {CLASS_A: cls(CLASS_A, DRIVER_A)},
        SliceIndex([slice_(SLICE1, NODE1, POOL1, DRIVER_A, *devices)]),
        allocated_capacity=allocated_capacity,
    )
    got = alloc.allocate(node(NODE1, REGION1), [claim(CLAIM0, request(REQ0, CLASS_A))])
    return None if got is None else [r.device for a in got for r in a.results]


@pytest.mark.parametrize(("rules", "want"), [(37, [DEV1]), (38, None)])
def test_a_live_share_blocks_a_dedicated_allocation_from_1_38(rules: int, want: list[str] | None) -> None:
    """DEV1 (allowMultipleAllocations now unset) holds a share: 1.37 allocates it, 1.38 finds no device."""
    assert _run(rules, device(DEV1)) == want


def test_another_device_is_taken_instead() -> None:
    assert _run(38, device(DEV1), device(DEV2)) == [DEV2]


def test_a_device_without_a_share_is_allocated() -> None:
    assert _run(38, device(DEV1), allocated_capacity={}) == [DEV1]


def test_a_device_that_still_allows_multiple_allocations_is_shared() -> None:
    """The check is for dedicated use only: a request on a multi-allocatable device takes a share."""
    assert _run(38, device(DEV1, allowMultipleAllocations=True)) == [DEV1]


def test_the_release_switch() -> None:
    assert get("1.38").behaviour.dra_pool_rules == 38 and get("1.37").behaviour.dra_pool_rules == 36
    assert 140798 in {pr for c in get("1.38").changes for pr in c.prs}
    assert 140798 not in {pr for c in get("1.37").changes for pr in c.prs}


# --- 1.38 (#142202): capacity requested by its fully-qualified name ---------------------------------

CAP = "capacity-0"


def _cap_run(pool_rules: int, wanted: str, published: str, used: dict | None = None) -> list | None:
    d = device(DEV1, allowMultipleAllocations=True)
    d["capacity"] = {published: {"value": "4"}}
    alloc = Allocator(
        Features(consumable_capacity=True, pool_rules=pool_rules),
        set(),
        {CLASS_A: cls(CLASS_A, DRIVER_A)},
        SliceIndex([slice_(SLICE1, NODE1, POOL1, DRIVER_A, d)]),
        allocated_capacity={(DRIVER_A, POOL1, DEV1): used} if used else None,
    )
    got = alloc.allocate(
        node(NODE1, REGION1), [claim(CLAIM0, request(REQ0, CLASS_A, capacity={"requests": {wanted: "3"}}))]
    )
    return None if got is None else [(r.device, dict(r.consumed_capacity)) for a in got for r in a.results]


@pytest.mark.parametrize(
    ("rules", "wanted", "published", "want"),
    [
        pytest.param(37, CAP, CAP, [(DEV1, {CAP: Fraction(3)})], id="1.37-same-name"),
        pytest.param(37, f"{DRIVER_A}/{CAP}", CAP, None, id="1.37-qualified-request-fails"),
        pytest.param(37, CAP, f"{DRIVER_A}/{CAP}", None, id="1.37-qualified-publication-fails"),
        pytest.param(38, f"{DRIVER_A}/{CAP}", CAP, [(DEV1, {CAP: Fraction(3)})], id="1.38-qualified-request"),
        pytest.param(
            38, CAP, f"{DRIVER_A}/{CAP}", [(DEV1, {f"{DRIVER_A}/{CAP}": Fraction(3)})], id="1.38-qualified-publication"
        ),
        pytest.param(38, f"other.example.com/{CAP}", CAP, None, id="1.38-another-domain"),
    ],
)
def test_capacity_names_compare_fully_qualified_from_1_38(
    rules: int, wanted: str, published: str, want: list | None
) -> None:
    assert _cap_run(rules, wanted, published) == want


def test_capacity_in_use_is_counted_whichever_way_it_was_recorded() -> None:
    """An allocation recorded the capacity unqualified, the driver now publishes it qualified: 2 of
    4 are in use, so a request of 3 does not fit from 1.38 (1.37 does not see the use)."""
    used = {CAP: Fraction(2)}
    assert _cap_run(38, CAP, f"{DRIVER_A}/{CAP}", used) is None
    assert _cap_run(37, f"{DRIVER_A}/{CAP}", f"{DRIVER_A}/{CAP}", used) == [(DEV1, {f"{DRIVER_A}/{CAP}": Fraction(3)})]
