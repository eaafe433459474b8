"""Parse resource.k8s.io v1, v1beta2 and v1beta1 objects into dra/types.py.

v1beta2 has v1's shape. v1beta1 differs in two places, which are converted as the API server's
conversion does (pkg/apis/resource/v1beta1/conversion.go): a Device keeps its attributes,
capacity, counters, node selection and taints under `basic`, and a DeviceRequest has the
fields of v1's `exactly` at its top level (a request with a deviceClassName becomes `exactly`).
Defaults are v1's: allocationMode ExactCount, count 1, toleration operator Equal.
Errors are FieldErrors with the path inside the object, in the version's own field names.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api.fields import Dict
from kwhatif.api.names import DNS1123_LABEL_ERR, is_dns1123_label
from kwhatif.api.parse import name_of, namespace_of, node_selector, owner_references
from kwhatif.dra.types import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    TOLERATION_EQUAL,
    TOLERATION_EXISTS,
    AllocationResult,
    CapacityRequestPolicy,
    ConsumerReference,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCapacity,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kwhatif.errors import FieldError

API_VERSIONS = frozenset({"resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1"})
KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")

_ALLOCATION_MODES = (ALLOCATION_MODE_ALL, ALLOCATION_MODE_EXACT_COUNT)
_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")
_TOLERATION_OPERATORS = (TOLERATION_EQUAL, TOLERATION_EXISTS)


def _is_v1beta1(api_version: str) -> bool:
    return api_version.endswith("/v1beta1")


def _quantity_map(d: Dict, key: str, path: str) -> dict[str, Fraction]:
    return f.resource_list(d, key, path)


def _counters(d: Dict, key: str, path: str) -> dict[str, Fraction]:
    """map[string]Counter, each {value: quantity}."""
    raw = f.mapping(d, key, path)
    out: dict[str, Fraction] = {}
    for name, c in raw.items():
        p = f"{f.join(path, key)}[{name}]"
        if not isinstance(c, dict):
            raise f.type_error(p, c, "an object")
        if c.get("value") is None:
            raise f.required(f"{p}.value")
        out[str(name)] = f.quantity(c.get("value"), f"{p}.value")
    return out


def _attribute(d: Any, path: str) -> DeviceAttribute:
    if not isinstance(d, dict):
        raise f.type_error(path, d, "an object")
    set_ = [k for k in ("int", "bool", "string", "version") if d.get(k) is not None]
    if len(set_) != 1:
        raise f.invalid(path, d, "exactly one value must be specified")
    return DeviceAttribute(
        int_value=f.integer(d, "int", path),
        bool_value=d.get("bool") if "bool" in set_ and _check_bool(d, path) else None,
        string_value=f.string(d, "string", path) if "string" in set_ else None,
        version_value=f.string(d, "version", path) if "version" in set_ else None,
    )


def _check_bool(d: Dict, path: str) -> bool:
    f.boolean(d, "bool", path)
    return True


def _capacity(d: Any, path: str) -> DeviceCapacity:
    if not isinstance(d, dict):
        raise f.type_error(path, d, "an object")
    if d.get("value") is None:
        raise f.required(f"{path}.value")
    policy = None
    rp = f.opt_mapping(d, "requestPolicy", path)
    if rp is not None:
        pp = f"{path}.requestPolicy"
        vr = f.opt_mapping(rp, "validRange", pp)
        vrp = f"{pp}.validRange"
        policy = CapacityRequestPolicy(
            default=f.quantity(rp["default"], f"{pp}.default") if rp.get("default") is not None else None,
            valid_values=tuple(
                f.quantity(v, f"{pp}.validValues[{i}]") for i, v in enumerate(f.seq(rp, "validValues", pp))
            ),
            valid_range_min=f.quantity(vr["min"], f"{vrp}.min") if vr and vr.get("min") is not None else None,
            valid_range_max=f.quantity(vr["max"], f"{vrp}.max") if vr and vr.get("max") is not None else None,
            valid_range_step=f.quantity(vr["step"], f"{vrp}.step") if vr and vr.get("step") is not None else None,
            has_valid_range=vr is not None,
        )
    return DeviceCapacity(f.quantity(d.get("value"), f"{path}.value"), policy)


def _taint(d: Dict, path: str) -> DeviceTaint:
    key = f.string(d, "key", path)
    if not key:
        raise f.required(f"{path}.key")
    effect = f.string(d, "effect", path)
    if effect not in _TAINT_EFFECTS:
        if not effect:
            raise f.required(f"{path}.effect")
        raise f.unsupported(f"{path}.effect", effect, _TAINT_EFFECTS)
    return DeviceTaint(key, f.string(d, "value", path), effect)


def _toleration(d: Dict, path: str) -> DeviceToleration:
    op = f.string(d, "operator", path) or TOLERATION_EQUAL
    if op not in _TOLERATION_OPERATORS:
        raise f.unsupported(f"{path}.operator", op, _TOLERATION_OPERATORS)
    effect = f.string(d, "effect", path)
    if effect and effect not in ("NoExecute", "NoSchedule"):
        raise f.unsupported(f"{path}.effect", effect, ("NoExecute", "NoSchedule"))
    return DeviceToleration(f.string(d, "key", path), op, f.string(d, "value", path), effect)


def _opt_node_selector(d: Dict, key: str, path: str) -> Any:
    raw = f.opt_mapping(d, key, path)
    return node_selector(raw, f.join(path, key)) if raw is not None else None


def _opt_node_name(d: Dict, path: str) -> str | None:
    name = d.get("nodeName")
    if name is None or name == "":
        return None
    return f.string(d, "nodeName", path)


def device(d: Dict, path: str, api_version: str) -> Device:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f"{path}.name")
    body: Dict = d
    body_path = path
    if _is_v1beta1(api_version):
        body = f.mapping(d, "basic", path)
        body_path = f"{path}.basic"
    attrs = f.mapping(body, "attributes", body_path)
    caps = f.mapping(body, "capacity", body_path)
    ap = f"{body_path}.attributes"
    cp = f"{body_path}.capacity"
    return Device(
        name=name,
        attributes={str(k): _attribute(v, f"{ap}[{k}]") for k, v in attrs.items()},
        capacity={str(k): _capacity(v, f"{cp}[{k}]") for k, v in caps.items()},
        consumes_counters=tuple(
            DeviceCounterConsumption(
                f.string(c, "counterSet", f"{body_path}.consumesCounters[{i}]"),
                _counters(c, "counters", f"{body_path}.consumesCounters[{i}]"),
            )
            for i, c in enumerate(f.obj_seq(body, "consumesCounters", body_path))
        ),
        node_name=_opt_node_name(body, body_path),
        node_selector=_opt_node_selector(body, "nodeSelector", body_path),
        all_nodes=f.boolean(body, "allNodes", body_path),
        taints=tuple(_taint(t, f"{body_path}.taints[{i}]") for i, t in enumerate(f.obj_seq(body, "taints", body_path))),
        binding_conditions=f.str_list(body, "bindingConditions", body_path),
        binds_to_node=f.boolean(body, "bindsToNode", body_path),
        allow_multiple_allocations=(
            f.boolean(body, "allowMultipleAllocations", body_path)
            if body.get("allowMultipleAllocations") is not None
            else None
        ),
    )


def resource_slice(d: Dict, api_version: str, source: str = "") -> ResourceSlice:
    spec = f.mapping(d, "spec", "")
    driver = f.string(spec, "driver", "spec")
    if not driver:
        raise f.required("spec.driver")
    pool = f.mapping(spec, "pool", "spec")
    pool_name = f.string(pool, "name", "spec.pool")
    if not pool_name:
        raise f.required("spec.pool.name")
    generation = f.integer(pool, "generation", "spec.pool", 0) or 0
    count = f.integer(pool, "resourceSliceCount", "spec.pool", 0) or 0
    if count <= 0:
        raise f.invalid("spec.pool.resourceSliceCount", count, "must be greater than zero")
    node_name = _opt_node_name(spec, "spec")
    sel = _opt_node_selector(spec, "nodeSelector", "spec")
    all_nodes = f.boolean(spec, "allNodes", "spec")
    per_device = spec.get("perDeviceNodeSelection")
    per_device_b = f.boolean(spec, "perDeviceNodeSelection", "spec") if per_device is not None else None
    shared = tuple(
        CounterSet(
            f.string(c, "name", f"spec.sharedCounters[{i}]"), _counters(c, "counters", f"spec.sharedCounters[{i}]")
        )
        for i, c in enumerate(f.obj_seq(spec, "sharedCounters", "spec"))
    )
    chosen = [
        n
        for n, v in (
            ("nodeName", node_name),
            ("nodeSelector", sel),
            ("allNodes", all_nodes or None),
            ("perDeviceNodeSelection", per_device_b or None),
        )
        if v
    ]
    if len(chosen) > 1:
        raise f.invalid(
            "spec",
            chosen,
            "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
        )
    devices = tuple(
        device(x, f"spec.devices[{i}]", api_version) for i, x in enumerate(f.obj_seq(spec, "devices", "spec"))
    )
    seen: set[str] = set()
    for i, dev in enumerate(devices):
        if dev.name in seen:
            raise FieldError(f'Duplicate value: "{dev.name}"', field=f"spec.devices[{i}].name")
        seen.add(dev.name)
    return ResourceSlice(
        name=name_of(d),
        driver=driver,
        pool=pool_name,
        generation=generation,
        resource_slice_count=count,
        node_name=node_name,
        node_selector=sel,
        all_nodes=all_nodes,
        devices=devices,
        per_device_node_selection=per_device_b,
        shared_counters=shared,
        source=source,
    )


def _selectors(d: Dict, path: str) -> tuple[DeviceSelector, ...]:
    out = []
    for i, s in enumerate(f.obj_seq(d, "selectors", path)):
        p = f"{path}.selectors[{i}]"
        cel = f.opt_mapping(s, "cel", p)
        if cel is None:
            out.append(DeviceSelector(None))
            continue
        expr = f.string(cel, "expression", f"{p}.cel")
        if not expr:
            raise f.required(f"{p}.cel.expression")
        from kwhatif.dra.cel import validate_expression  # loads the CEL engine: only when needed

        problem = validate_expression(expr)
        if problem is not None:
            raise f.invalid(f"{p}.cel.expression", expr, problem.split("\n", 1)[0])
        out.append(DeviceSelector(expr))
    return tuple(out)


def device_class(d: Dict, api_version: str = "resource.k8s.io/v1", source: str = "") -> DeviceClass:
    spec = f.mapping(d, "spec", "")
    ext = spec.get("extendedResourceName")
    return DeviceClass(
        name=name_of(d),
        selectors=_selectors(spec, "spec"),
        extended_resource_name=f.string(spec, "extendedResourceName", "spec") if ext is not None else None,
        source=source,
    )


def _count_and_mode(d: Dict, path: str) -> tuple[str, int]:
    mode = f.string(d, "allocationMode", path) or ALLOCATION_MODE_EXACT_COUNT
    if mode not in _ALLOCATION_MODES:
        raise f.unsupported(f"{path}.allocationMode", mode, _ALLOCATION_MODES)
    count = f.integer(d, "count", path)
    if mode == ALLOCATION_MODE_EXACT_COUNT:
        if count is None:
            count = 1
        if count <= 0:
            raise f.invalid(f"{path}.count", count, "must be greater than zero")
    elif count is not None and count != 0:
        raise f.invalid(f"{path}.count", count, f"must not be specified when allocationMode is '{mode}'")
    return mode, count or 0


def _capacity_requests(d: Dict, path: str) -> dict[str, Fraction] | None:
    cap = f.opt_mapping(d, "capacity", path)
    if cap is None:
        return None
    return _quantity_map(cap, "requests", f"{path}.capacity")


def _tolerations(d: Dict, path: str) -> tuple[DeviceToleration, ...]:
    return tuple(_toleration(t, f"{path}.tolerations[{i}]") for i, t in enumerate(f.obj_seq(d, "tolerations", path)))


def _exact(d: Dict, path: str) -> ExactDeviceRequest:
    cls = f.string(d, "deviceClassName", path)
    if not cls:
        raise f.required(f"{path}.deviceClassName")
    mode, count = _count_and_mode(d, path)
    admin = d.get("adminAccess")
    return ExactDeviceRequest(
        device_class_name=cls,
        selectors=_selectors(d, path),
        allocation_mode=mode,
        count=count,
        admin_access=f.boolean(d, "adminAccess", path) if admin is not None else None,
        tolerations=_tolerations(d, path),
        capacity_requests=_capacity_requests(d, path),
    )


def _check_request_name(name: str, path: str) -> None:
    """DeviceRequest.name and DeviceSubRequest.name are DNS labels."""
    if is_dns1123_label(name):
        raise f.invalid(f"{path}.name", name, DNS1123_LABEL_ERR)


def _sub_request(d: Dict, path: str) -> DeviceSubRequest:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f"{path}.name")
    _check_request_name(name, path)
    cls = f.string(d, "deviceClassName", path)
    if not cls:
        raise f.required(f"{path}.deviceClassName")
    mode, count = _count_and_mode(d, path)
    return DeviceSubRequest(
        name=name,
        device_class_name=cls,
        selectors=_selectors(d, path),
        allocation_mode=mode,
        count=count,
        tolerations=_tolerations(d, path),
        capacity_requests=_capacity_requests(d, path),
    )


def _request(d: Dict, path: str, api_version: str) -> DeviceRequest:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f"{path}.name")
    _check_request_name(name, path)
    subs_raw = f.obj_seq(d, "firstAvailable", path)
    subs = tuple(_sub_request(s, f"{path}.firstAvailable[{i}]") for i, s in enumerate(subs_raw))
    if len(subs) > 8:
        raise FieldError(f"Too many: {len(subs)}: must have at most 8 items", field=f"{path}.firstAvailable")
    seen: set[str] = set()
    for i, s in enumerate(subs):
        if s.name in seen:
            raise FieldError(f'Duplicate value: "{s.name}"', field=f"{path}.firstAvailable[{i}].name")
        seen.add(s.name)
    if _is_v1beta1(api_version):
        if d.get("deviceClassName"):
            if subs:
                raise f.invalid(path, name, "exactly one of `deviceClassName` or `firstAvailable` must be specified")
            return DeviceRequest(name, exactly=_exact(d, path))
        if not subs:
            raise f.required(
                f"{path}.deviceClassName", "exactly one of `deviceClassName` or `firstAvailable` must be specified"
            )
        return DeviceRequest(name, first_available=subs)
    exactly_raw = f.opt_mapping(d, "exactly", path)
    if (exactly_raw is None) == (not subs):
        raise f.invalid(path, name, "exactly one of `exactly` or `firstAvailable` is required")
    if exactly_raw is not None:
        return DeviceRequest(name, exactly=_exact(exactly_raw, f"{path}.exactly"))
    return DeviceRequest(name, first_available=subs)


def claim_spec(d: Dict, path: str, api_version: str) -> ResourceClaimSpec:
    devices = f.mapping(d, "devices", path)
    dp = f.join(path, "devices")
    requests = tuple(
        _request(r, f"{dp}.requests[{i}]", api_version) for i, r in enumerate(f.obj_seq(devices, "requests", dp))
    )
    names: set[str] = set()
    for i, r in enumerate(requests):
        if r.name in names:
            raise FieldError(f'Duplicate value: "{r.name}"', field=f"{dp}.requests[{i}].name")
        names.add(r.name)
    constraints = []
    for i, c in enumerate(f.obj_seq(devices, "constraints", dp)):
        p = f"{dp}.constraints[{i}]"
        reqs = f.str_list(c, "requests", p)
        for j, ref in enumerate(reqs):
            if ref.split("/", 1)[0] not in names:
                raise f.invalid(
                    f"{p}.requests[{j}]",
                    ref,
                    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                )
        match = c.get("matchAttribute")
        distinct = c.get("distinctAttribute")
        constraints.append(
            DeviceConstraint(
                requests=reqs,
                match_attribute=f.string(c, "matchAttribute", p) if match is not None else None,
                distinct_attribute=f.string(c, "distinctAttribute", p) if distinct is not None else None,
            )
        )
    config = tuple(
        DeviceClaimConfiguration(f.str_list(c, "requests", f"{dp}.config[{i}]"))
        for i, c in enumerate(f.obj_seq(devices, "config", dp))
    )
    return ResourceClaimSpec(requests, tuple(constraints), config)


def _allocation(d: Dict, path: str, api_version: str) -> AllocationResult:
    devices = f.mapping(d, "devices", path)
    dp = f"{path}.devices"
    results = []
    for i, r in enumerate(f.obj_seq(devices, "results", dp)):
        p = f"{dp}.results[{i}]"
        admin = r.get("adminAccess")
        share = r.get("shareID")
        results.append(
            DeviceRequestAllocationResult(
                request=f.string(r, "request", p),
                driver=f.string(r, "driver", p),
                pool=f.string(r, "pool", p),
                device=f.string(r, "device", p),
                admin_access=f.boolean(r, "adminAccess", p) if admin is not None else None,
                share_id=f.string(r, "shareID", p) if share is not None else None,
                consumed_capacity=_quantity_map(r, "consumedCapacity", p),
            )
        )
    sel = _opt_node_selector(d, "nodeSelector", path)
    return AllocationResult(tuple(results), sel, _single_node(sel))


def _single_node(sel: Any) -> str:
    """The node an allocation is pinned to when its selector is `metadata.name In [node]`."""
    if sel is None or len(sel.terms) != 1:
        return ""
    term = sel.terms[0]
    if term.expressions is not None or term.fields is None or len(term.fields.requirements) != 1:
        return ""
    req = term.fields.requirements[0]
    if req.key == "metadata.name" and req.op.value == "In" and len(req.values) == 1:
        return str(next(iter(req.values)))
    return ""


def resource_claim(d: Dict, api_version: str, default_namespace: str = "default", source: str = "") -> ResourceClaim:
    meta = f.mapping(d, "metadata", "")
    status = f.mapping(d, "status", "")
    alloc_raw = f.opt_mapping(status, "allocation", "status")
    reserved = tuple(
        ConsumerReference(
            resource=f.string(r, "resource", f"status.reservedFor[{i}]"),
            name=f.string(r, "name", f"status.reservedFor[{i}]"),
            uid=f.string(r, "uid", f"status.reservedFor[{i}]"),
            api_group=f.string(r, "apiGroup", f"status.reservedFor[{i}]"),
        )
        for i, r in enumerate(f.obj_seq(status, "reservedFor", "status"))
    )
    return ResourceClaim(
        namespace=namespace_of(d, default_namespace),
        name=name_of(d),
        uid=f.string(meta, "uid", "metadata"),
        spec=claim_spec(f.mapping(d, "spec", ""), "spec", api_version),
        owner_references=owner_references(meta),
        allocation=_allocation(alloc_raw, "status.allocation", api_version) if alloc_raw is not None else None,
        reserved_for=reserved,
        deleting=meta.get("deletionTimestamp") is not None,
        source=source,
    )


def resource_claim_template(
    d: Dict, api_version: str, default_namespace: str = "default", source: str = ""
) -> ResourceClaimTemplate:
    spec = f.mapping(d, "spec", "")
    meta = f.mapping(spec, "metadata", "spec")
    return ResourceClaimTemplate(
        namespace=namespace_of(d, default_namespace),
        name=name_of(d),
        spec=claim_spec(f.mapping(spec, "spec", "spec"), "spec.spec", api_version),
        labels=f.str_map(meta, "labels", "spec.metadata"),
        annotations=f.str_map(meta, "annotations", "spec.metadata"),
        source=source,
    )
