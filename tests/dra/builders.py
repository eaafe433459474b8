"""Small builders of resource.k8s.io v1 objects for the allocator and plugin tests, named after
upstream's allocator_testing.go helpers. They produce manifests (dicts) that go through the
parser, as a cluster file would."""

from __future__ import annotations

import dataclasses
from typing import Any

from kwhatif.api import parse as api_parse
from kwhatif.api.core import Node
from kwhatif.dra import parse
from kwhatif.dra.types import DeviceClass, ResourceClaim, ResourceSlice

V1 = "resource.k8s.io/v1"
NODE1, NODE2 = "node-1", "node-2"
REGION1, REGION2 = "region-1", "region-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2 = "pool-1", "pool-2"
REQ0, REQ1 = "req-0", "req-1"
SUB0, SUB1 = "subreq-0", "subreq-1"  # upstream: subReq-N, which API validation refuses
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2 = "slice-1", "slice-2"
DEV1, DEV2, DEV3 = "device-1", "device-2", "device-3"
COUNTER_SET1 = "counter-set-1"


def node(name: str, region: str) -> Node:
    return api_parse.node(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"region": region, "planet": "earth"}},
        }
    )


def cls(name: str, driver: str, *selectors: str) -> DeviceClass:
    exprs = [f'device.driver == "{driver}"', *selectors] if driver else list(selectors)
    return parse.device_class(
        {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": e}} for e in exprs]}}
    )


def device(
    name: str, capacity: dict[str, str] | None = None, attributes: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name}
    if capacity:
        d["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    if attributes:
        d["attributes"] = attributes
    d.update(extra)
    return d


def counters(**values: str) -> dict[str, Any]:
    return {k: {"value": v} for k, v in values.items()}


def slice_(
    name: str,
    node_selection: Any,
    pool: str | tuple[str, int],
    driver: str,
    *devices: dict[str, Any],
    generation: int = 1,
    **extra: Any,
) -> ResourceSlice:
    pool_name, count = (pool, 1) if isinstance(pool, str) else pool
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool_name, "generation": generation, "resourceSliceCount": count},
    }
    if node_selection == "all":
        spec["allNodes"] = True
    elif node_selection == "perDevice":
        spec["perDeviceNodeSelection"] = True
    elif isinstance(node_selection, dict):
        spec["nodeSelector"] = node_selection
    else:
        spec["nodeName"] = node_selection
    if devices:
        spec["devices"] = list(devices)
    spec.update(extra)
    return parse.resource_slice({"metadata": {"name": name}, "spec": spec}, V1)


def one_device(name: str, node_selection: Any, pool: str | tuple[str, int], driver: str) -> ResourceSlice:
    return slice_(name, node_selection, pool, driver, device(DEV1))


def request(name: str, class_name: str, count: int = 1, *selectors: str, **extra: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    exactly.update(extra)
    return {"name": name, "exactly": exactly}


def all_request(name: str, class_name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "All", **extra}}


def sub_request(name: str, class_name: str, count: int = 1, *selectors: str, **extra: Any) -> dict[str, Any]:
    sub: dict[str, Any] = {"name": name, "deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
    if selectors:
        sub["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    sub.update(extra)
    return sub


def prioritized(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def claim(
    name: str,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    namespace: str = "",
    **meta: Any,
) -> ResourceClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    body: dict[str, Any] = {
        "metadata": {"name": name, "namespace": namespace or "x", "uid": f"uid-{name}", **meta},
        "spec": {"devices": devices},
    }
    c = parse.resource_claim(body, V1)
    # upstream's allocator tests use claims without a namespace
    return c if namespace else dataclasses.replace(c, namespace="")


def claim_with_request(name: str, req: str, class_name: str, namespace: str = "", **extra: Any) -> ResourceClaim:
    return claim(name, request(req, class_name, 1, **extra), namespace=namespace)
