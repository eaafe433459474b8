"""allocation_dict: the devices of one claim as the report's data."""

from __future__ import annotations

from fractions import Fraction

from kwhatif.dra.claims import describe_claim
from kwhatif.dra.types import ClaimDevices, DeviceRequestAllocationResult
from kwhatif.report.schedule import FilterEntry, allocation_dict, filter_dict


def test_shared_device_admin_access_and_subrequests():
    claim = ClaimDevices(
        "ml",
        "c",
        True,
        (
            DeviceRequestAllocationResult("gpu/large", "drv", "p1", "d0"),
            DeviceRequestAllocationResult(
                "mem", "drv", "p2", "d1", share_id="abc", consumed_capacity={"memory": Fraction(1 << 30)}
            ),
            DeviceRequestAllocationResult("monitor", "drv", "p1", "d0", admin_access=True),
        ),
    )
    assert allocation_dict(claim) == {
        "claim": {"namespace": "ml", "name": "c"},
        "allocated": True,
        "requests": [
            {
                "request": "gpu/large",
                "devices": [{"driver": "drv", "pool": "p1", "device": "d0", "adminAccess": False}],
            },
            {
                "request": "mem",
                "devices": [
                    {
                        "driver": "drv",
                        "pool": "p2",
                        "device": "d1",
                        "adminAccess": False,
                        "shareID": "abc",
                        "consumedCapacity": {"memory": "1073741824"},
                    }
                ],
            },
            {"request": "monitor", "devices": [{"driver": "drv", "pool": "p1", "device": "d0", "adminAccess": True}]},
        ],
    }
    assert describe_claim(claim) == (
        "claim ml/c (allocated): gpu/large -> d0 [drv/p1], mem -> d1 (shared: memory 1073741824) [drv/p2],"
        " monitor -> d0 (admin access) [drv/p1]"
    )


def test_a_filter_without_allocations_has_no_key():
    assert filter_dict(FilterEntry("NodeName", "Success")) == {"plugin": "NodeName", "code": "Success", "reasons": []}
