"""LimitRange objects and the LimitRanger admission plugin (plugin/pkg/admission/limitranger).

The plugin works on a new pod after the API server's defaulting (requests copied from limits):
its mutating half gives every container and init container the default limits and requests of
the namespace's Container limit range where it sets none; its validating half refuses the pod
when a container, or the pod as a whole, breaks a min, max or maxLimitRequestRatio. Claims are
checked against PersistentVolumeClaim limit ranges the same way. Messages are upstream's.

Pods are handled as manifests (dicts), before they are parsed, so quantities keep the format
they were written in: messages print them as Quantity.String() does.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api import quantity as q
from kwhatif.api.fields import Dict
from kwhatif.api.names import is_qualified_name
from kwhatif.api.parse import name_of, namespace_of, validate_container_resource_name
from kwhatif.errors import FieldError
from kwhatif.gocompat import aggregate

LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"
LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"
_STANDARD_LIMIT_TYPES = (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_PVC)
# resource.MaxMilliValue: beyond it upstream compares whole units instead of thousandths.
_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000


@dataclass(frozen=True, slots=True)
class Amount:
    """A quantity and the format it was written in (for Quantity.String())."""

    value: Fraction
    fmt: str

    def __str__(self) -> str:
        return q.canonical(self.value, self.fmt)

    @classmethod
    def parse(cls, raw: object, path: str) -> Amount:
        # a core/v1 ResourceList's amount: rounded up to thousandths when the object was decoded
        return cls(q.round_up_milli(f.quantity(raw, path)), q.format_of(raw))


AmountList = Mapping[str, Amount]


@dataclass(frozen=True, slots=True)
class LimitRangeItem:
    type: str
    max: AmountList
    min: AmountList
    default: AmountList
    default_request: AmountList
    max_limit_request_ratio: AmountList


@dataclass(frozen=True, slots=True)
class LimitRange:
    namespace: str
    name: str
    items: tuple[LimitRangeItem, ...]


def _amounts(d: Dict, key: str, path: str) -> dict[str, Amount]:
    raw = d.get(key)
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise f.type_error(f"{path}.{key}", raw, "a map of quantities")
    out = {}
    for name, value in raw.items():
        amount = Amount.parse(value, f"{path}.{key}[{name}]")
        if amount.value < 0:
            raise f.invalid(f"{path}.{key}[{name}]", str(value), "must be greater than or equal to 0")
        out[str(name)] = amount
    return out


def limit_range(d: Dict) -> LimitRange:
    """A LimitRange after SetDefaults_LimitRangeItem, checked as ValidateLimitRange checks it."""
    spec = f.mapping(d, "spec", "")
    items = []
    seen: set[str] = set()
    for i, raw in enumerate(f.obj_seq(spec, "limits", "spec")):
        path = f"spec.limits[{i}]"
        kind = f.string(raw, "type", path)
        for msg in is_qualified_name(kind):
            raise f.invalid(f"{path}.type", kind, msg)
        if "/" not in kind and kind not in _STANDARD_LIMIT_TYPES:
            raise f.invalid(f"{path}.type", kind, "must be a standard limit type or fully qualified")
        if kind in seen:
            raise FieldError(f'Duplicate value: "{kind}"', field=f"{path}.type")
        seen.add(kind)
        item = LimitRangeItem(
            kind,
            _amounts(raw, "max", path),
            _amounts(raw, "min", path),
            _amounts(raw, "default", path),
            _amounts(raw, "defaultRequest", path),
            _amounts(raw, "maxLimitRequestRatio", path),
        )
        if kind == LIMIT_TYPE_POD:
            if item.default:
                raise f.forbidden(f"{path}.default", "may not be specified when `type` is 'Pod'")
            if item.default_request:
                raise f.forbidden(f"{path}.defaultRequest", "may not be specified when `type` is 'Pod'")
        if kind == LIMIT_TYPE_CONTAINER:
            item = _defaulted(item)
        _validate_item(item, path)
        items.append(item)
    return LimitRange(namespace_of(d), name_of(d), tuple(items))


def _defaulted(item: LimitRangeItem) -> LimitRangeItem:
    """SetDefaults_LimitRangeItem: a Container item's default limit falls back to its max, its
    default request to the default limit, then to its min."""
    default = dict(item.default)
    for k, v in item.max.items():
        default.setdefault(k, v)
    request = dict(item.default_request)
    for k, v in default.items():
        request.setdefault(k, v)
    for k, v in item.min.items():
        request.setdefault(k, v)
    return LimitRangeItem(item.type, item.max, item.min, default, request, item.max_limit_request_ratio)


def _validate_item(item: LimitRangeItem, path: str) -> None:
    """ValidateLimitRange's checks of one item (the first one that fails is raised)."""
    for key, amounts in (
        ("max", item.max),
        ("min", item.min),
        ("default", item.default),
        ("defaultRequest", item.default_request),
        ("maxLimitRequestRatio", item.max_limit_request_ratio),
    ):
        for name in sorted(amounts):
            if item.type in (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER):
                validate_container_resource_name(name, f"{path}.{key}[{name}]")
            else:
                for msg in is_qualified_name(name):
                    raise f.invalid(f"{path}.{key}[{name}]", name, msg)
    if item.type == LIMIT_TYPE_PVC and "storage" not in item.min and "storage" not in item.max:
        raise f.required(
            f"{path}.limits", "either minimum or maximum storage value is required, but neither was provided"
        )
    keys = sorted(
        set(item.max)
        | set(item.min)
        | set(item.default)
        | set(item.default_request)
        | set(item.max_limit_request_ratio)
    )
    for k in keys:
        lo, hi = item.min.get(k), item.max.get(k)
        dflt, dreq = item.default.get(k), item.default_request.get(k)
        ratio = item.max_limit_request_ratio.get(k)
        if lo and hi and lo.value > hi.value:
            raise f.invalid(f"{path}.min[{k}]", str(lo), f"min value {lo} is greater than max value {hi}")
        if dreq and lo and lo.value > dreq.value:
            raise f.invalid(
                f"{path}.defaultRequest[{k}]", str(dreq), f"min value {lo} is greater than default request value {dreq}"
            )
        if dreq and hi and dreq.value > hi.value:
            raise f.invalid(
                f"{path}.defaultRequest[{k}]", str(dreq), f"default request value {dreq} is greater than max value {hi}"
            )
        if dreq and dflt and dreq.value > dflt.value:
            raise f.invalid(
                f"{path}.defaultRequest[{k}]",
                str(dreq),
                f"default request value {dreq} is greater than default limit value {dflt}",
            )
        if dflt and lo and lo.value > dflt.value:
            raise f.invalid(f"{path}.default[{k}]", str(lo), f"min value {lo} is greater than default value {dflt}")
        if dflt and hi and dflt.value > hi.value:
            raise f.invalid(f"{path}.default[{k}]", str(hi), f"default value {dflt} is greater than max value {hi}")
        if ratio and ratio.value < 1:
            raise f.invalid(f"{path}.maxLimitRequestRatio[{k}]", str(ratio), f"ratio {ratio} is less than 1")
        if ratio and lo and hi and lo.value > 0:
            limit = float(q.milli_value(hi.value)) / float(q.milli_value(lo.value))
            if float(q.milli_value(ratio.value)) / 1000 > limit:
                raise f.invalid(
                    f"{path}.maxLimitRequestRatio[{k}]",
                    str(ratio),
                    f"ratio {ratio} is greater than max/min = {limit:f}",
                )
        overcommit = ("/" not in k or "kubernetes.io/" in k) and not k.startswith("hugepages-")
        if not overcommit and dflt and dreq and dflt.value != dreq.value:
            raise f.invalid(
                f"{path}.defaultRequest[{k}]",
                str(dreq),
                f"default value {dflt} must equal to defaultRequest value {dreq} in {k}",
            )


# --- the admission plugin ------------------------------------------------------------------------


def _containers(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for key, prefix in (("containers", "container"), ("initContainers", "init container")):
        items = spec.get(key)
        if isinstance(items, list):
            out.extend((prefix, c) for c in items if isinstance(c, dict))
    return out


def _resources(c: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    res = c.get("resources")
    if not isinstance(res, dict):
        res = {}
        c["resources"] = res
    for key in ("requests", "limits"):
        if not isinstance(res.get(key), dict):
            res[key] = {}
    return res["requests"], res["limits"]


def mutate_pod(body: Dict, ranges: Iterable[LimitRange]) -> tuple[dict[str, Any], list[str]]:
    """The pod after the API server's defaulting (SetDefaults_Pod: a limit without a request
    makes the request) and LimitRanger's Admit (PodMutateLimitFunc of each limit range): a copy
    of ``body``, and what was set, as the kubernetes.io/limit-ranger annotation says it."""
    out: dict[str, Any] = copy.deepcopy(dict(body))
    spec = out.get("spec")
    if not isinstance(spec, dict):
        return out, []
    for _, c in _containers(spec):
        requests, limits = _resources(c)
        for k, v in limits.items():
            requests.setdefault(k, v)
    annotations: list[str] = []
    for lr in ranges:
        default_limits: dict[str, Amount] = {}
        default_requests: dict[str, Amount] = {}
        for item in lr.items:
            if item.type == LIMIT_TYPE_CONTAINER:
                default_requests.update(item.default_request)
                default_limits.update(item.default)
        if not default_limits and not default_requests:
            continue
        set_here: list[str] = []
        for prefix, c in _containers(spec):
            requests, limits = _resources(c)
            set_limits = sorted(k for k in default_limits if k not in limits)
            set_requests = sorted(k for k in default_requests if k not in requests)
            for k in set_limits:
                limits[k] = str(default_limits[k])
            for k in set_requests:
                requests[k] = str(default_requests[k])
            name = c.get("name", "")
            if set_requests:
                set_here.append(f"{', '.join(set_requests)} request for {prefix} {name}")
            if set_limits:
                set_here.append(f"{', '.join(set_limits)} limit for {prefix} {name}")
        if set_here:
            # each limit range that sets something replaces the annotation upstream
            annotations = set_here
    if annotations:
        meta = out.setdefault("metadata", {})
        meta.setdefault("annotations", {})
        if isinstance(meta["annotations"], dict):
            meta["annotations"][LIMIT_RANGER_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(annotations)
    return out, annotations


def _amount_list(raw: Any) -> dict[str, Amount]:
    out = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            try:
                out[str(k)] = Amount(q.round_up_milli(q.parse_quantity(v)), q.format_of(v))
            except q.QuantityError:
                continue  # validation reports it
    return out


def _observed(req: Amount | None, lim: Amount | None, enforced: Amount) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: thousandths when nothing overflows them, else units."""
    values = [req.value if req else Fraction(0), lim.value if lim else Fraction(0), enforced.value]
    if all(q.value(v) <= _MAX_MILLI_VALUE for v in values):
        r, li, e = (q.milli_value(v) for v in values)
    else:
        r, li, e = (q.value(v) for v in values)
    return r, li, e


def _min_constraint(kind: str, name: str, enforced: Amount, requests: AmountList, limits: AmountList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, e = _observed(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and li < e:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return None


def _max_constraint(kind: str, name: str, enforced: Amount, requests: AmountList, limits: AmountList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, e = _observed(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if li > e:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def _max_request_constraint(kind: str, name: str, enforced: Amount, requests: AmountList) -> str | None:
    req = requests.get(name)
    r, _, e = _observed(req, None, enforced)
    if req is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return None


def _ratio_constraint(kind: str, name: str, enforced: Amount, requests: AmountList, limits: AmountList) -> str | None:
    req, lim = requests.get(name), limits.get(name)
    r, li, _ = _observed(req, lim, enforced)
    if req is None or r == 0:
        return (
            f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
        )
    if lim is None or li == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
    observed = float(li) / float(r)
    shown = observed
    allowed = float(q.value(enforced.value))
    if q.value(enforced.value) <= _MAX_MILLI_VALUE:
        observed *= 1000
        allowed = float(q.milli_value(enforced.value))
    if observed > allowed:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:f}"
    return None


def _check(kind: str, item: LimitRangeItem, requests: AmountList, limits: AmountList) -> list[str]:
    errs = []
    for name in sorted(item.min):
        errs.append(_min_constraint(kind, name, item.min[name], requests, limits))
    for name in sorted(item.max):
        errs.append(_max_constraint(kind, name, item.max[name], requests, limits))
    for name in sorted(item.max_limit_request_ratio):
        errs.append(_ratio_constraint(kind, name, item.max_limit_request_ratio[name], requests, limits))
    return [e for e in errs if e is not None]


def _add(into: dict[str, Amount], items: AmountList) -> None:
    for k, v in items.items():
        have = into.get(k)
        into[k] = v if have is None else Amount(have.value + v.value, have.fmt)


def _max(into: dict[str, Amount], items: AmountList) -> None:
    for k, v in items.items():
        have = into.get(k)
        if have is None or v.value > have.value:
            into[k] = v


def _pod_totals(spec: Dict, key: str) -> dict[str, Amount]:
    """podRequests / podLimits of the plugin: containers summed, restartable init containers
    added and carried into later init containers, then the max with each init container."""
    total: dict[str, Amount] = {}
    for c in spec.get("containers") or []:
        if isinstance(c, dict):
            _add(total, _amount_list((c.get("resources") or {}).get(key)))
    sidecars: dict[str, Amount] = {}
    init_max: dict[str, Amount] = {}
    for c in spec.get("initContainers") or []:
        if not isinstance(c, dict):
            continue
        amounts = _amount_list((c.get("resources") or {}).get(key))
        if c.get("restartPolicy") == "Always":
            _add(total, amounts)
            _add(sidecars, amounts)
            effective: dict[str, Amount] = dict(sidecars)
        else:
            effective = dict(amounts)
            _add(effective, sidecars)
        _max(init_max, effective)
    _max(total, init_max)
    return total


def validate_pod(body: Dict, ranges: Iterable[LimitRange]) -> str | None:
    """LimitRanger's Validate (PodValidateLimitFunc): the aggregate error of the first limit
    range the pod breaks, None when it breaks none."""
    spec = body.get("spec")
    if not isinstance(spec, dict):
        return None
    for lr in ranges:
        errs: list[str] = []
        for item in lr.items:
            if item.type == LIMIT_TYPE_CONTAINER:
                for key in ("containers", "initContainers"):
                    for c in spec.get(key) or []:
                        if isinstance(c, dict):
                            res = c.get("resources") or {}
                            errs += _check(
                                item.type, item, _amount_list(res.get("requests")), _amount_list(res.get("limits"))
                            )
            elif item.type == LIMIT_TYPE_POD:
                errs += _check(item.type, item, _pod_totals(spec, "requests"), _pod_totals(spec, "limits"))
        if errs:
            return aggregate(errs)
    return None


def validate_claim(body: Dict, ranges: Iterable[LimitRange]) -> str | None:
    """PersistentVolumeClaimValidateLimitFunc: min and max storage of the claim's request."""
    spec = body.get("spec")
    res = spec.get("resources") if isinstance(spec, dict) else None
    requests = _amount_list(res.get("requests") if isinstance(res, dict) else None)
    for lr in ranges:
        errs: list[str] = []
        for item in lr.items:
            if item.type != LIMIT_TYPE_PVC:
                continue
            for name in sorted(item.min):
                errs.append(_min_constraint(item.type, name, item.min[name], requests, {}) or "")
            for name in sorted(item.max):
                errs.append(_max_request_constraint(item.type, name, item.max[name], requests) or "")
        errs = [e for e in errs if e]
        if errs:
            return aggregate(errs)
    return None


def forbidden(resource: str, name: str, err: str) -> str:
    """apierrors.NewForbidden as admission.NewForbidden builds it."""
    return f'{resource} "{name}" is forbidden: {err}' if name else f"{resource} is forbidden: {err}"
