"""Karpenter's fake cloud provider, transcribed (kubernetes-sigs/karpenter v1.14.1
pkg/cloudprovider/fake/instancetype.go NewInstanceType, InstanceTypes, InstanceTypesAssorted and
PriceFromResources; cloudprovider.go GetInstanceTypes' default list), and small builders for
NodePools in the shape `kubectl get nodepools -o yaml` prints."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kwhatif.api.quantity import parse_quantity
from kwhatif.autoscaler.karpenter.instancetypes import InstanceType, Offering, milli
from kwhatif.autoscaler.karpenter.nodepools import NodePool, parse_nodepool
from kwhatif.autoscaler.karpenter.requirements import (
    ARCH_LABEL,
    CAPACITY_TYPE_LABEL,
    INSTANCE_TYPE_LABEL,
    OS_LABEL,
    ZONE_LABEL,
    Requirement,
    Requirements,
)

LABEL_INSTANCE_SIZE = "size"
EXOTIC_INSTANCE_LABEL = "special"
INTEGER_INSTANCE_LABEL = "integer"
GPU_A = "fake.com/vendor-a"
GPU_B = "fake.com/vendor-b"
FAKE_WELL_KNOWN = frozenset({LABEL_INSTANCE_SIZE, EXOTIC_INSTANCE_LABEL, INTEGER_INSTANCE_LABEL})


def price_from_resources(res: dict[str, Fraction]) -> float:
    price = 0.0
    for k, v in res.items():
        if k == "cpu":
            price += 0.1 * float(v)
        elif k == "memory":
            price += 0.1 * float(v) / 1e9
        elif k in (GPU_A, GPU_B):
            price += 1.0
    return price


def _default_offerings(price: float) -> list[Offering]:
    return [
        Offering("test-zone-1", "spot", price),
        Offering("test-zone-2", "spot", price),
        Offering("test-zone-1", "on-demand", price),
        Offering("test-zone-2", "on-demand", price),
        Offering("test-zone-3", "on-demand", price),
    ]


def new_instance_type(
    name: str,
    resources: dict[str, str] | None = None,
    offerings: list[Offering] | None = None,
    arch: str = "amd64",
    oses: tuple[str, ...] = ("linux", "windows", "darwin"),
    extra: tuple[Requirement, ...] = (),
) -> InstanceType:
    res = {k: parse_quantity(v) for k, v in (resources or {}).items()}
    if not res.get("cpu"):
        res["cpu"] = Fraction(4)
    if not res.get("memory"):
        res["memory"] = parse_quantity("4Gi")
    if not res.get("pods"):
        res["pods"] = Fraction(5)
    offers = offerings if offerings else _default_offerings(price_from_resources(res))
    avail = [o for o in offers if o.available]
    reqs = Requirements(
        [
            Requirement.new(INSTANCE_TYPE_LABEL, "In", (name,)),
            Requirement.new(ARCH_LABEL, "In", (arch,)),
            Requirement.new(OS_LABEL, "In", sorted(oses)),
            Requirement.new(ZONE_LABEL, "In", [o.zone for o in avail]),
            Requirement.new(CAPACITY_TYPE_LABEL, "In", [o.capacity_type for o in avail]),
            Requirement.new(LABEL_INSTANCE_SIZE, "DoesNotExist"),
            Requirement.new(EXOTIC_INSTANCE_LABEL, "DoesNotExist"),
            Requirement.new(INTEGER_INSTANCE_LABEL, "In", (str(int(res["cpu"])),)),
        ]
    )
    for r in extra:
        reqs.add(r)
    if res["cpu"] > 4 and res["memory"] > parse_quantity("8Gi"):
        reqs.set(reqs.get(LABEL_INSTANCE_SIZE).with_values("large"))
        reqs.set(reqs.get(EXOTIC_INSTANCE_LABEL).with_values("optional"))
    else:
        reqs.set(reqs.get(LABEL_INSTANCE_SIZE).with_values("small"))
    overhead = {"cpu": parse_quantity("100m"), "memory": parse_quantity("10Mi")}
    return InstanceType(name, milli(res), milli(overhead), {}, tuple(offers), requirements=reqs)


def default_instance_types() -> list[InstanceType]:
    """fake.CloudProvider.GetInstanceTypes' default list."""
    return [
        new_instance_type("default-instance-type"),
        new_instance_type("small-instance-type", {"cpu": "2", "memory": "2Gi"}),
        new_instance_type("gpu-vendor-instance-type", {GPU_A: "2"}),
        new_instance_type("gpu-vendor-b-instance-type", {GPU_B: "2"}),
        new_instance_type(
            "arm-instance-type",
            {"cpu": "16", "memory": "128Gi"},
            arch="arm64",
            oses=("ios", "linux", "windows", "darwin"),
        ),
        new_instance_type("single-pod-instance-type", {"pods": "1"}),
    ]


def instance_types(total: int) -> list[InstanceType]:
    """fake.InstanceTypes: 1 vCPU, 2Gi and 10 pods per step."""
    return [
        new_instance_type(f"fake-it-{i}", {"cpu": str(i + 1), "memory": f"{(i + 1) * 2}Gi", "pods": str((i + 1) * 10)})
        for i in range(total)
    ]


def instance_types_assorted() -> list[InstanceType]:
    out = []
    for cpu in (1, 2, 4, 8, 16, 32, 64):
        for mem in (1, 2, 4, 8, 16, 32, 64, 128):
            for zone in ("test-zone-1", "test-zone-2", "test-zone-3"):
                for ct in ("spot", "on-demand"):
                    for os_ in ("linux", "windows"):
                        for arch in ("amd64", "arm64"):
                            res = {"cpu": str(cpu), "memory": f"{mem}Gi"}
                            price = price_from_resources({k: parse_quantity(v) for k, v in res.items()})
                            out.append(
                                new_instance_type(
                                    f"{cpu}-cpu-{mem}-mem-{arch}-{os_}-{zone}-{ct}",
                                    res,
                                    [Offering(zone, ct, price)],
                                    arch=arch,
                                    oses=(os_,),
                                )
                            )
    return out


def nodepool_body(
    name: str = "default",
    *,
    weight: int | None = None,
    labels: dict[str, str] | None = None,
    requirements: list[dict[str, Any]] | None = None,
    taints: list[dict[str, str]] | None = None,
    limits: dict[str, str] | None = None,
    disruption: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {
            "metadata": {"labels": labels or {}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.test.sh", "kind": "TestNodeClass", "name": "default"},
                "requirements": requirements or [],
                "taints": taints or [],
            },
        },
    }
    if weight is not None:
        spec["weight"] = weight
    if limits:
        spec["limits"] = limits
    if disruption is not None:
        spec["disruption"] = disruption
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def nodepool(name: str = "default", **kw: Any) -> NodePool:
    return parse_nodepool(nodepool_body(name, **kw), "test")
