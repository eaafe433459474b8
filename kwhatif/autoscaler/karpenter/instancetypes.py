"""Instance types and their offerings, as Karpenter's cloud provider hands them to the scheduler
(kubernetes-sigs/karpenter v1.14.1 pkg/cloudprovider/types.go): capacity, overhead, the
requirements a type satisfies (its labels plus the zones and capacity types of its available
offerings) and the offerings (zone, capacity type, price, availability).

They come from a kwhatif/v1 InstanceTypes file, or from the cluster's own nodes (one type per
node.kubernetes.io/instance-type value, its allocatable as capacity, an offering per zone and
capacity type its nodes are in, and a nominal price from its resources, as Karpenter's fake cloud
provider prices them: the file is the way to give real prices).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api.core import Node
from kwhatif.api.quantity import BINARY_SI, DECIMAL_SI, canonical
from kwhatif.autoscaler.karpenter.requirements import (
    CAPACITY_TYPE_LABEL,
    CAPACITY_TYPE_ON_DEMAND,
    CAPACITY_TYPE_RESERVED,
    CAPACITY_TYPE_SPOT,
    INSTANCE_TYPE_LABEL,
    NODEPOOL_LABEL,
    WELL_KNOWN_LABELS,
    ZONE_LABEL,
    Requirement,
    Requirements,
)
from kwhatif.errors import FieldError, InputError

KIND = "InstanceTypes"
API_VERSION = "kwhatif/v1"

# Amounts in thousandths of a unit (millicores for cpu, millibytes for memory): exact for every
# quantity a manifest writes to the milli, and integer arithmetic where Karpenter compares
# Quantities (resources.Fits, Cmp) in its inner loops.
ResourceList = dict[str, int]


def milli(rl: Mapping[str, Fraction]) -> ResourceList:
    """A ResourceList of quantities in thousandths, rounded up (Quantity.MilliValue)."""
    return {k: math.ceil(v * 1000) for k, v in rl.items()}


# Resources shown in binary units (the way Go keeps a quantity's format).
_BINARY = ("memory", "ephemeral-storage")


def fmt_quantity(name: str, value: int) -> str:
    """A thousandths amount as Quantity.String() writes it."""
    binary = name in _BINARY or name.startswith("hugepages-")
    return canonical(Fraction(value, 1000), BINARY_SI if binary else DECIMAL_SI)


def resources_text(rl: Mapping[str, int]) -> str:
    """resources.String: pretty.Concise of a ResourceList (JSON, keys sorted), "{}" when empty."""
    if not rl:
        return "{}"
    return "{" + ",".join(f'"{k}":"{fmt_quantity(k, rl[k])}"' for k in sorted(rl)) + "}"


def merge(*lists: Mapping[str, int]) -> ResourceList:
    """resources.Merge: the sum of the lists."""
    out: ResourceList = {}
    for rl in lists:
        for k, v in rl.items():
            out[k] = out.get(k, 0) + v
    return out


def subtract(a: Mapping[str, int], b: Mapping[str, int]) -> ResourceList:
    """resources.Subtract: a - b over a's keys."""
    return {k: v - b.get(k, 0) for k, v in a.items()}


def fits(candidate: Mapping[str, int], total: Mapping[str, int]) -> bool:
    """resources.Fits: no total is negative and every candidate amount is within its total."""
    for v in total.values():
        if v < 0:
            return False
    get = total.get
    for k, v in candidate.items():
        if v > get(k, 0):
            return False
    return True


def max_resources(lists: Iterable[Mapping[str, int]]) -> ResourceList:
    out: ResourceList = {}
    for rl in lists:
        for k, v in rl.items():
            if k not in out or v > out[k]:
                out[k] = v
    return out


def min_resources(a: Mapping[str, int], b: Mapping[str, int]) -> ResourceList:
    """resources.MinResources: per key of either, the smaller (a missing key counts as 0)."""
    return {k: min(a.get(k, 0), b.get(k, 0)) for k in sorted({*a, *b})}


@dataclass(frozen=True, slots=True)
class Offering:
    zone: str
    capacity_type: str
    price: float
    available: bool = True
    requirements: Requirements = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "requirements",
            Requirements.from_labels({CAPACITY_TYPE_LABEL: self.capacity_type, ZONE_LABEL: self.zone}),
        )


@dataclass(frozen=True, slots=True)
class InstanceType:
    name: str
    capacity: Mapping[str, int]  # thousandths (milli)
    overhead: Mapping[str, int]
    labels: Mapping[str, str]
    offerings: tuple[Offering, ...]
    # cloudprovider.InstanceType.Requirements; built from the labels and offerings when not given
    requirements: Requirements = field(default_factory=Requirements, compare=False, repr=False)
    allocatable: ResourceList = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not len(self.requirements):
            reqs = Requirements(Requirement.new(k, "In", (v,)) for k, v in self.labels.items())
            reqs.set(Requirement.new(INSTANCE_TYPE_LABEL, "In", (self.name,)))
            avail = [o for o in self.offerings if o.available]
            reqs.set(Requirement.new(ZONE_LABEL, "In", sorted({o.zone for o in avail})))
            reqs.set(Requirement.new(CAPACITY_TYPE_LABEL, "In", sorted({o.capacity_type for o in avail})))
            object.__setattr__(self, "requirements", reqs)
        alloc = subtract(self.capacity, self.overhead)
        # computeAllocatable: hugepages come out of memory
        for name, amount in self.capacity.items():
            if name.startswith("hugepages-") and "memory" in alloc:
                alloc["memory"] = max(0, alloc["memory"] - amount)
        # resources.Fits refuses everything on a negative allocatable: clamp it to -1 so every
        # request, and the pod itself, is above it
        if any(v < 0 for v in alloc.values()):
            alloc = {k: min(v, -1) for k, v in alloc.items()} | {"pods": -1}
        object.__setattr__(self, "allocatable", alloc)

    def available_offerings(self) -> list[Offering]:
        return [o for o in self.offerings if o.available]

    def cheapest_price(self, reqs: Requirements, allow: frozenset[str]) -> float:
        """The price OrderByPrice sorts by: the cheapest available offering the requirements allow."""
        best = float("inf")
        for o in self.offerings:
            if o.available and o.price < best and reqs.is_compatible(o.requirements, allow):
                best = o.price
        return best

    def worst_launch_price(self, reqs: Requirements, allow: frozenset[str]) -> float:
        """Offerings.WorstLaunchPrice over the available offerings: the dearest compatible one of
        the capacity type Karpenter launches with (reserved, then spot, then on-demand)."""
        compat = [o for o in self.available_offerings() if reqs.is_compatible(o.requirements, allow)]
        for ct in (CAPACITY_TYPE_RESERVED, CAPACITY_TYPE_SPOT, CAPACITY_TYPE_ON_DEMAND):
            prices = [o.price for o in compat if o.capacity_type == ct]
            if prices:
                return max(prices)
        return float("inf")


def order_by_price(its: Sequence[InstanceType], reqs: Requirements, allow: frozenset[str]) -> list[InstanceType]:
    """InstanceTypes.OrderByPrice (ties by name: Go's sort leaves them in no fixed order)."""
    return sorted(its, key=lambda it: (it.cheapest_price(reqs, allow), it.name))


def satisfies_min_values(its: Sequence[InstanceType], reqs: Requirements) -> tuple[int, dict[str, int], str | None]:
    """InstanceTypes.SatisfiesMinValues: how many types (in order) meet every minValues, the keys
    still short and their counts, and Karpenter's error when some are."""
    if not reqs.has_min_values():
        return 0, {}, None
    short: dict[str, int] = {}
    seen: dict[str, set[str]] = {}
    for i, it in enumerate(its):
        for req in reqs.values():
            if req.min_values is not None:
                seen.setdefault(req.key, set()).update(it.requirements.get(req.key).values)
        for key, vals in seen.items():
            need = reqs.get(key).min_values or 0
            if len(vals) < need:
                short[key] = len(vals)
            else:
                short.pop(key, None)
        if not short:
            return i + 1, {}, None
    if short:
        labels = "[" + " ".join(sorted(short)) + "]"
        return len(its), short, f"minValues requirement is not met for label(s) (label(s)={labels})"
    return len(its), {}, None


# --- the InstanceTypes file -----------------------------------------------------------------------


def _resources(d: f.Dict, key: str, path: str) -> dict[str, Fraction]:
    return dict(f.resource_list(d, key, path))


_CAPACITY_TYPES = (CAPACITY_TYPE_ON_DEMAND, CAPACITY_TYPE_SPOT, CAPACITY_TYPE_RESERVED)


def parse_instance_types(doc: dict[str, Any], source: str) -> list[InstanceType]:
    """A kwhatif/v1 InstanceTypes document; errors name the file, the type and the field."""
    if doc.get("apiVersion") != API_VERSION or doc.get("kind") != KIND:
        raise InputError(
            f"expected apiVersion {API_VERSION} and kind {KIND}, got {doc.get('apiVersion')!r} {doc.get('kind')!r}",
            source=source,
        )
    out: list[InstanceType] = []
    names: set[str] = set()
    try:
        items = f.obj_seq(doc, "instanceTypes", "")
    except FieldError as e:
        raise e.with_context(source=source) from None
    for i, item in enumerate(items):
        path = f"instanceTypes[{i}]"
        name = ""
        try:
            name = f.string(item, "name", path)
            if not name:
                raise f.required(f"{path}.name")
            if name in names:
                raise f.invalid(f"{path}.name", name, "duplicate instance type")
            names.add(name)
            capacity = milli(_resources(item, "capacity", path))
            for r in ("cpu", "memory"):
                if r not in capacity:
                    raise f.required(f"{path}.capacity.{r}")
            overhead = milli(_resources(item, "overhead", path))
            for key, amounts in (("capacity", capacity), ("overhead", overhead)):
                for r, v in amounts.items():
                    if v < 0:
                        raise f.invalid(f"{path}.{key}.{r}", item[key][r], "must be greater than or equal to 0")
            labels = f.str_map(item, "labels", path)
            offerings: list[Offering] = []
            for j, o in enumerate(f.obj_seq(item, "offerings", path)):
                op = f"{path}.offerings[{j}]"
                zone = f.string(o, "zone", op)
                if not zone:
                    raise f.required(f"{op}.zone")
                ct = f.string(o, "capacityType", op) or CAPACITY_TYPE_ON_DEMAND
                if ct not in _CAPACITY_TYPES:  # karpenter.sh/capacity-type's well-known values
                    raise f.unsupported(f"{op}.capacityType", ct, _CAPACITY_TYPES)
                price_raw = o.get("price", 0)
                if (
                    isinstance(price_raw, bool)
                    or not isinstance(price_raw, (int, float))
                    or not 0 <= price_raw < math.inf  # NaN and infinity too
                ):
                    raise f.invalid(f"{op}.price", price_raw, "must be a number of at least 0")
                offerings.append(Offering(zone, ct, float(price_raw), f.boolean(o, "available", op, True)))
            if not offerings:
                raise f.required(f"{path}.offerings", "an instance type needs at least one offering")
        except FieldError as e:
            raise e.with_context(source=source, obj=f"instance type {name}" if name else None) from None
        out.append(InstanceType(name, capacity, overhead, labels, tuple(offerings)))
    return out


# --- the cluster's own nodes as a catalog ---------------------------------------------------------

# Labels that describe the machine, not the node: kept on a catalog type built from nodes.
_PROVIDER_PREFIXES = ("karpenter.k8s.aws/", "karpenter.azure.com/", "cloud.google.com/machine-family")
_CAPACITY_TYPE_ALIASES = {
    "eks.amazonaws.com/capacityType": {"ON_DEMAND": CAPACITY_TYPE_ON_DEMAND, "SPOT": CAPACITY_TYPE_SPOT},
    "kubernetes.azure.com/scalesetpriority": {"spot": CAPACITY_TYPE_SPOT, "regular": CAPACITY_TYPE_ON_DEMAND},
    "cloud.google.com/gke-spot": {"true": CAPACITY_TYPE_SPOT},
}


def node_capacity_type(labels: Mapping[str, str]) -> str:
    ct = labels.get(CAPACITY_TYPE_LABEL)
    if ct:
        return ct
    for key, table in _CAPACITY_TYPE_ALIASES.items():
        v = labels.get(key)
        if v is not None and v in table:
            return table[v]
    return CAPACITY_TYPE_ON_DEMAND


def nominal_price(capacity: Mapping[str, int]) -> float:
    """fake.PriceFromResources: 0.1 per CPU and per GB of memory, 1.0 per GPU-like resource."""
    price = 0.0
    for k, v in capacity.items():
        if k == "cpu":
            price += 0.1 * v / 1000
        elif k == "memory":
            price += 0.1 * v / 1000 / 1e9
        elif k.endswith("/gpu"):
            price += 1.0
    return round(price, 6)


def catalog_from_nodes(nodes: Iterable[Node]) -> list[InstanceType]:
    """One instance type per node.kubernetes.io/instance-type value of the nodes: the largest
    allocatable seen as its capacity (no overhead), the labels its nodes share among the
    well-known and provider ones, an available offering per zone and capacity type seen."""
    by_type: dict[str, list[Node]] = {}
    for n in nodes:
        t = n.labels.get(INSTANCE_TYPE_LABEL) or n.labels.get("beta.kubernetes.io/instance-type")
        if t:
            by_type.setdefault(t, []).append(n)
    out: list[InstanceType] = []
    for name in sorted(by_type):
        group = by_type[name]
        capacity = max_resources(milli(n.allocatable_list) for n in group)
        shared: dict[str, str] | None = None
        for n in group:
            mine = {
                k: v
                for k, v in n.labels.items()
                if (k in WELL_KNOWN_LABELS or k.startswith(_PROVIDER_PREFIXES))
                and k not in (ZONE_LABEL, CAPACITY_TYPE_LABEL, NODEPOOL_LABEL, INSTANCE_TYPE_LABEL)
                and not k.startswith("topology.")
            }
            shared = mine if shared is None else {k: v for k, v in shared.items() if mine.get(k) == v}
        price = nominal_price(capacity)
        offers = sorted({(n.labels.get(ZONE_LABEL, ""), node_capacity_type(n.labels)) for n in group})
        offerings = tuple(Offering(z, ct, price) for z, ct in offers if z)
        if not offerings:
            continue
        out.append(InstanceType(name, capacity, {}, shared or {}, offerings))
    return out


def label_keys(its: Iterable[InstanceType]) -> frozenset[str]:
    """The label keys the catalog's types define: the cloud provider registers them as
    well-known (as the AWS provider adds karpenter.k8s.aws/*), so a NodePool need not."""
    keys: set[str] = set()
    for it in its:
        keys.update(it.requirements)
    return frozenset(keys)
