"""Build typed objects from decoded manifests, validating what the API server would reject.

Every function takes the object's dict and the field path of that dict inside the object; errors
are FieldErrors carrying the full path (spec.containers[0].resources.requests.cpu ...). The loader
adds the file and the object's kind/namespace/name.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

import orjson

from kwhatif.api import fields as f
from kwhatif.api import quantity as q
from kwhatif.api import workload
from kwhatif.api.construct import template_constructor
from kwhatif.api.core import (
    DEFAULT_SCHEDULER_NAME,
    MIRROR_POD_ANNOTATION,
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    Namespace,
    Node,
    NodeAffinity,
    NodeInclusionPolicy,
    NodeSelector,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodDisruptionBudget,
    PodResourceClaim,
    PreferredSchedulingTerm,
    PriorityClass,
    RuntimeClass,
    Service,
    Taint,
    TaintEffect,
    Toleration,
    TopologySpreadConstraint,
    Volume,
    WeightedPodAffinityTerm,
    WhenUnsatisfiable,
    new_container,
    new_container_port,
    new_pod,
)
from kwhatif.api.fields import Dict
from kwhatif.api.labels import NOTHING, Op, Requirement, Selector, parse_int64
from kwhatif.api.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value
from kwhatif.api.resources import (
    QUOTA_POD_RESOURCES,
    REQUESTS_PREFIX,
    ContainerRequests,
    ContainerStatusResources,
    PodRules,
    Resource,
    derive_requests,
    is_extended,
    is_hugepages,
    is_native,
)
from kwhatif.errors import FieldError
from kwhatif.release.versions import default_version

# What pods are derived under when no release is named: kwhatif's default release.
DEFAULT_POD_RULES = PodRules.of(default_version())


# Annotations the scheduler or kwhatif reads; the rest (often large) are dropped at parse.
_KEPT_POD_ANNOTATIONS = frozenset(
    {
        MIRROR_POD_ANNOTATION,
        "kubernetes.io/config.source",
        "cluster-autoscaler.kubernetes.io/safe-to-evict",
        "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes",
    }
)
# read by Karpenter's consolidation (autoscaler/karpenter/consolidation.py)
_KEPT_POD_ANNOTATIONS |= {"karpenter.sh/do-not-disrupt", "controller.kubernetes.io/pod-deletion-cost"}
_EFFECTS = tuple(e.value for e in TaintEffect)
# validateTaintEffect lists the supported effects in this order
_EFFECT_ORDER = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_NOT_POSITIVE = "must be greater than zero"


# --- metadata ----------------------------------------------------------------------------------


# names.SimpleNameGenerator's alphabet (no vowels, no confusable digits)
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class NameGenerator:
    """Names for objects with only metadata.generateName, as the API server gives them: the
    prefix and five characters. Deterministic here: the n-th object with a prefix in one load
    (a cluster and the manifests read with it) gets the n-th suffix, whatever was loaded before."""

    __slots__ = ("_next",)

    def __init__(self) -> None:
        self._next: dict[str, int] = {}

    def copy(self) -> NameGenerator:
        """A generator that goes on from where this one is, independently."""
        other = NameGenerator()
        other._next = dict(self._next)
        return other

    def __call__(self, d: Dict) -> None:
        meta = d.get("metadata")
        if not isinstance(meta, dict) or meta.get("name"):
            return
        prefix = meta.get("generateName")
        if not isinstance(prefix, str) or not prefix:
            return
        n = self._next.get(prefix, 0)
        self._next[prefix] = n + 1
        suffix = ""
        for _ in range(5):
            n, r = divmod(n, len(_NAME_ALPHABET))
            suffix = _NAME_ALPHABET[r] + suffix
        meta["name"] = prefix[: 63 - 5] + suffix


def name_of(d: Dict) -> str:
    meta = d.get("metadata")
    if not isinstance(meta, dict):
        raise f.required("metadata.name", "name or generateName is required")
    name = meta.get("name")
    if name is not None and not isinstance(name, str):
        # the API server's decoder refuses it before validation: ObjectMeta.name is a string
        raise f.type_error("metadata.name", name, "a string")
    if not isinstance(name, str) or not name:
        raise f.required("metadata.name", "name or generateName is required")
    return name


def subdomain_name_of(d: Dict) -> str:
    """The object's name, which must be a DNS-1123 subdomain (ValidateNodeName, ValidatePodName)."""
    name = name_of(d)
    for msg in is_dns1123_subdomain(name):
        raise f.invalid("metadata.name", name, msg)
    return name


def namespace_of(d: Dict, default: str = "default") -> str:
    meta = d.get("metadata")
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    if ns is None or ns == "":
        return default
    if not isinstance(ns, str):
        raise f.type_error("metadata.namespace", ns, "a string")
    return ns


def owner_references(meta: Dict) -> tuple[OwnerReference, ...]:
    out = []
    for i, ref in enumerate(f.obj_seq(meta, "ownerReferences", "metadata")):
        p = f"metadata.ownerReferences[{i}]"
        out.append(
            OwnerReference(
                api_version=f.string(ref, "apiVersion", p),
                kind=f.string(ref, "kind", p),
                name=f.string(ref, "name", p),
                uid=f.string(ref, "uid", p),
                controller=f.boolean(ref, "controller", p),
            )
        )
    return tuple(out)


# --- selectors ---------------------------------------------------------------------------------


def label_selector(d: Dict | None, path: str) -> Selector:
    """metav1.LabelSelectorAsSelector: None selects nothing, {} selects everything."""
    if d is None:
        return NOTHING
    if not isinstance(d, dict):
        raise f.type_error(path, d, "a label selector")
    reqs: list[Requirement] = []
    for k, v in f.str_map(d, "matchLabels", path).items():
        reqs.append(Requirement(k, Op.IN, frozenset((v,))))
    for i, expr in enumerate(f.obj_seq(d, "matchExpressions", path)):
        p = f"{path}.matchExpressions[{i}]"
        key = f.string(expr, "key", p)
        if not key:
            raise f.required(f"{p}.key")
        op = f.string(expr, "operator", p)
        values = f.str_list(expr, "values", p)
        if op in ("In", "NotIn"):
            if not values:
                raise f.required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'")
        elif op in ("Exists", "DoesNotExist"):
            if values:
                raise f.forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        else:
            raise f.invalid(f"{p}.operator", op, "not a valid selector operator")
        reqs.append(Requirement(key, Op(op), frozenset(values)))
    reqs.sort(key=lambda r: r.key)
    return Selector(tuple(reqs))


def _node_selector_requirements(
    items: list[Dict], path: str, for_fields: bool, lenient: bool = False, err_path: str = ""
) -> tuple[Selector, list[str]]:
    """The requirements as the API server validates them (errors raised with ``path``), and the
    errors the scheduler's parsing (labels.NewRequirement) finds in what the API server accepts,
    as Go field errors under ``err_path``. ``lenient`` (the scheduler's own configuration) raises
    those too, as its validation does."""
    reqs: list[Requirement] = []
    errors: list[str] = []
    for i, expr in enumerate(items):
        p = f"{path}[{i}]"
        ep = f"{err_path}[{i}]"
        key = f.string(expr, "key", p)
        op = f.string(expr, "operator", p)
        values = f.str_list(expr, "values", p)
        if for_fields:
            if key != "metadata.name" and not lenient:
                raise f.invalid(f"{p}.key", key, "not a valid field selector key")
            if op not in ("In", "NotIn"):
                raise f.unsupported(f"{p}.operator", op, ("In", "NotIn"))
            if len(values) != 1:
                raise f.required(
                    f"{p}.values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
                )
            reqs.append(Requirement(key, Op(op), frozenset(values)))
            continue
        if not key:
            raise f.invalid(f"{p}.key", key, "name part must be non-empty")
        for msg in is_qualified_name(key):
            raise f.invalid(f"{p}.key", key, msg)
        value_errors: list[tuple[str, str, str]] = []  # (path under values, value, detail)
        bound = 0
        if op in ("In", "NotIn"):
            if not values:
                raise f.required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'")
        elif op in ("Exists", "DoesNotExist"):
            if values:
                raise f.forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        elif op in ("Gt", "Lt"):
            if len(values) != 1:
                raise f.required(f"{p}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
            parsed = parse_int64(values[0])
            if parsed is None:
                value_errors.append(("[0]", values[0], "for 'Gt', 'Lt' operators, the value must be an integer"))
            else:
                bound = parsed
        else:
            raise f.invalid(f"{p}.operator", op, "not a valid selector operator")
        for k, v in enumerate(values):
            label_errors = is_valid_label_value(v)
            if label_errors:
                # validateLabelValue names the value by its index and the key
                value_errors.append((f"[{k}][{key}]", v, "; ".join(label_errors)))
        for where, v, detail in value_errors:
            if lenient:
                raise f.invalid(f"{p}.values{where}", v, detail)
            errors.append(f"{ep}.values{where}: {f.invalid('', v, detail).message}")
        reqs.append(Requirement(key, Op(op), frozenset(values), bound))
    return Selector(tuple(reqs)), errors


def node_selector_term(d: Dict, path: str, lenient: bool = False, err_path: str = "") -> NodeSelectorTerm | None:
    """None for an empty term (it matches nothing and upstream drops it). ``err_path`` is where
    the scheduler's parsing errors say the term is."""
    exprs = f.obj_seq(d, "matchExpressions", path)
    flds = f.obj_seq(d, "matchFields", path)
    if not exprs and not flds:
        return None
    expressions = fields = None
    errors: list[str] = []
    if exprs:
        expressions, errs = _node_selector_requirements(
            exprs, f"{path}.matchExpressions", False, lenient, f"{err_path}.matchExpressions".lstrip(".")
        )
        errors += errs
    if flds:
        fields, errs = _node_selector_requirements(
            flds, f"{path}.matchFields", True, lenient, f"{err_path}.matchFields".lstrip(".")
        )
        errors += errs
    return NodeSelectorTerm(expressions=expressions, fields=fields, parse_errors=tuple(errors))


def node_selector(d: Dict, path: str, lenient: bool = False) -> NodeSelector:
    terms_raw = f.obj_seq(d, "nodeSelectorTerms", path)
    if not terms_raw and not lenient:
        raise f.required(f"{path}.nodeSelectorTerms", "must have at least one node selector term")
    terms = []
    empty = False
    for i, t in enumerate(terms_raw):
        term = node_selector_term(t, f"{path}.nodeSelectorTerms[{i}]", lenient, f"nodeSelectorTerms[{i}]")
        if term is not None:
            terms.append(term)
        else:
            empty = True
    return NodeSelector(tuple(terms), empty)


def node_affinity(d: Dict, path: str, lenient: bool = False) -> NodeAffinity:
    """``lenient``: the scheduler's own parsing (NodeAffinityArgs.addedAffinity), which accepts
    any weight, no terms, and other field keys, where the pod API refuses them."""
    req = f.opt_mapping(d, "requiredDuringSchedulingIgnoredDuringExecution", path)
    preferred = []
    for i, pt in enumerate(f.obj_seq(d, "preferredDuringSchedulingIgnoredDuringExecution", path)):
        p = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = f.integer(pt, "weight", p, 0) or 0
        if (weight < 1 or weight > 100) and not lenient:
            raise f.invalid(f"{p}.weight", weight, "must be in the range 1-100")
        term = node_selector_term(f.mapping(pt, "preference", p), f"{p}.preference", lenient, f"[{i}]")
        if term is not None and weight != 0:
            preferred.append(PreferredSchedulingTerm(weight, term))
    return NodeAffinity(
        required=node_selector(req, f"{path}.requiredDuringSchedulingIgnoredDuringExecution", lenient)
        if req is not None
        else None,
        preferred=tuple(preferred),
        preferred_set=d.get("preferredDuringSchedulingIgnoredDuringExecution") is not None,
    )


def pod_affinity_term(d: Dict, path: str) -> PodAffinityTerm:
    topology_key = f.string(d, "topologyKey", path)
    if not topology_key:
        raise f.required(f"{path}.topologyKey", "can not be empty")
    ns_sel = f.opt_mapping(d, "namespaceSelector", path)
    return PodAffinityTerm(
        label_selector=label_selector(f.opt_mapping(d, "labelSelector", path), f"{path}.labelSelector"),
        namespaces=f.str_list(d, "namespaces", path),
        topology_key=topology_key,
        namespace_selector=label_selector(ns_sel, f"{path}.namespaceSelector") if ns_sel is not None else None,
        match_label_keys=f.str_list(d, "matchLabelKeys", path),
        mismatch_label_keys=f.str_list(d, "mismatchLabelKeys", path),
    )


def pod_affinity(d: Dict, path: str) -> PodAffinity:
    req = tuple(
        pod_affinity_term(t, f"{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
        for i, t in enumerate(f.obj_seq(d, "requiredDuringSchedulingIgnoredDuringExecution", path))
    )
    pref = []
    for i, wt in enumerate(f.obj_seq(d, "preferredDuringSchedulingIgnoredDuringExecution", path)):
        p = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = f.integer(wt, "weight", p, 0) or 0
        if weight < 1 or weight > 100:
            raise f.invalid(f"{p}.weight", weight, "must be in the range 1-100")
        pref.append(
            WeightedPodAffinityTerm(
                weight, pod_affinity_term(f.mapping(wt, "podAffinityTerm", p), f"{p}.podAffinityTerm")
            )
        )
    return PodAffinity(required=req, preferred=tuple(pref))


def affinity(d: Dict | None, path: str) -> Affinity | None:
    if not d:
        return None
    na = f.opt_mapping(d, "nodeAffinity", path)
    pa = f.opt_mapping(d, "podAffinity", path)
    paa = f.opt_mapping(d, "podAntiAffinity", path)
    if na is None and pa is None and paa is None:
        return None
    return Affinity(
        node_affinity=node_affinity(na, f"{path}.nodeAffinity") if na is not None else None,
        pod_affinity=pod_affinity(pa, f"{path}.podAffinity") if pa is not None else None,
        pod_anti_affinity=pod_affinity(paa, f"{path}.podAntiAffinity") if paa is not None else None,
    )


# --- taints and tolerations --------------------------------------------------------------------


def taint(d: Dict, path: str) -> Taint:
    """A node's taint: a key, and an effect given and known (validateTaintEffect). The key's and
    the value's form, and taints given twice, are left to the API server: the scheduler reads any,
    and the integer values that TaintTolerationComparisonOperators compares may be negative, which
    no label value is."""
    key = f.string(d, "key", path)
    if not key:
        raise f.required(f"{path}.key")
    effect = f.string(d, "effect", path)
    if not effect:
        raise f.required(f"{path}.effect")
    if effect not in _EFFECTS:
        raise f.unsupported(f"{path}.effect", effect, _EFFECT_ORDER)
    return Taint(key, f.string(d, "value", path), effect)


def toleration(d: Dict, path: str) -> Toleration:
    # a pod's list of tolerations is converted once per distinct value (_memoized in pod())
    key = f.string(d, "key", path)
    op = f.string(d, "operator", path)
    value = f.string(d, "value", path)
    effect = f.string(d, "effect", path)
    seconds = f.integer(d, "tolerationSeconds", path)
    # ValidateTolerations (pkg/apis/core/validation), in its order; the first problem is the answer
    for msg in is_qualified_name(key) if key else ():
        raise f.invalid(f"{path}.key", key, msg)
    if not key and op != "Exists":
        raise f.invalid(
            f"{path}.operator",
            op,
            'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        )
    if seconds is not None and effect != "NoExecute":
        raise f.invalid(f"{path}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
    if op in ("Equal", ""):
        op = "Equal"
        # upstream names the operator field for a bad value
        value_errors = is_valid_label_value(value)
        if value_errors:
            raise f.invalid(f"{path}.operator", value, ";".join(value_errors))
    elif op == "Exists":
        if value:
            raise FieldError(
                f"Invalid value: {_go_toleration(key, op, value, effect, seconds)}: "
                "value must be empty when `operator` is 'Exists'",
                field=f"{path}.operator",
            )
    elif op not in ("Gt", "Lt"):
        # Gt and Lt exist from 1.35 (TaintTolerationComparisonOperators); what a release does with
        # them is its gate's: the scheduler compares integers with it on, matches nothing with it off.
        raise f.unsupported(f"{path}.operator", op, ("Equal", "Exists"))
    if effect and effect not in _EFFECTS:
        raise f.unsupported(f"{path}.effect", effect, _EFFECT_ORDER)
    return Toleration(key, op, value, effect, seconds)


def _go_toleration(key: str, op: str, value: str, effect: str, seconds: int | None) -> str:
    """The toleration as the API server prints it in a field error (Go's %#v of the struct)."""
    shown = "(*int64)(nil)" if seconds is None else f"(*int64)({seconds})"
    return (
        f"core.Toleration{{Key:{json.dumps(key)}, Operator:{json.dumps(op)}, Value:{json.dumps(value)}, "
        f"Effect:{json.dumps(effect)}, TolerationSeconds:{shown}}}"
    )


# --- topology spread ---------------------------------------------------------------------------


def topology_spread_constraints(items: list[Dict], path: str) -> tuple[TopologySpreadConstraint, ...]:
    out: list[TopologySpreadConstraint] = []
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(items):
        p = f"{path}[{i}]"
        max_skew = f.integer(c, "maxSkew", p, 0) or 0
        if max_skew <= 0:
            raise f.invalid(f"{p}.maxSkew", max_skew, _NOT_POSITIVE)
        key = f.string(c, "topologyKey", p)
        if not key:
            raise f.required(f"{p}.topologyKey", "can not be empty")
        when = f.string(c, "whenUnsatisfiable", p)
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise f.unsupported(f"{p}.whenUnsatisfiable", when, ("DoNotSchedule", "ScheduleAnyway"))
        if (key, when) in seen:
            raise FieldError(f'Duplicate value: "{{{key}, {when}}}"', field=f"{p}.{{topologyKey, whenUnsatisfiable}}")
        seen.add((key, when))
        min_domains = f.integer(c, "minDomains", p)
        if min_domains is not None:
            if min_domains <= 0:
                raise f.invalid(f"{p}.minDomains", min_domains, _NOT_POSITIVE)
            if when != "DoNotSchedule":
                raise f.invalid(
                    f"{p}.minDomains",
                    min_domains,
                    f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}",
                )
        policies: list[NodeInclusionPolicy | None] = []
        for fld in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            v = c.get(fld)
            if v is None:
                policies.append(None)
            elif v in ("Honor", "Ignore"):
                policies.append(NodeInclusionPolicy(v))
            else:
                raise f.unsupported(f"{p}.{fld}", v, ("Honor", "Ignore"))
        sel_raw = f.opt_mapping(c, "labelSelector", p)
        sel = label_selector(sel_raw, f"{p}.labelSelector")
        match_keys = f.str_list(c, "matchLabelKeys", p)
        if match_keys and sel_raw is not None:
            # validateMatchLabelKeysInTopologySpread: a key may not also be in the selector
            sel_keys = {r.key for r in sel.requirements}
            for j, k in enumerate(match_keys):
                if k in sel_keys:
                    raise f.invalid(f"{p}.matchLabelKeys[{j}]", k, "exists in both matchLabelKeys and labelSelector")
        elif match_keys and sel_raw is None:
            raise f.required(f"{p}.labelSelector", "must be specified when matchLabelKeys is set")
        out.append(
            TopologySpreadConstraint(
                max_skew=max_skew,
                topology_key=key,
                when_unsatisfiable=WhenUnsatisfiable(when),
                label_selector=sel,
                min_domains=min_domains,
                node_affinity_policy=policies[0],
                node_taints_policy=policies[1],
                match_label_keys=match_keys,
            )
        )
    return tuple(out)


# --- containers and volumes --------------------------------------------------------------------


# pkg/apis/core/helper: standardContainerResources and standardResources (IsStandardResourceName).
_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = QUOTA_POD_RESOURCES | frozenset(
    {
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)


def validate_container_resource_name(name: str, path: str) -> None:
    """validateContainerResourceName: a qualified name; an unprefixed one must be a standard
    container resource (cpu, memory, ephemeral-storage, hugepages-*); a prefixed one is either
    native (it contains kubernetes.io/, which needs nothing more) or an extended resource."""
    errs = is_qualified_name(name)
    if errs:
        raise f.invalid(path, name, errs[0])
    if "/" not in name:
        if not (name in _STANDARD_RESOURCES or is_hugepages(name) or name.startswith("requests.hugepages-")):
            raise f.invalid(path, name, "must be a standard resource type or fully qualified")
        if not (name in _STANDARD_CONTAINER_RESOURCES or is_hugepages(name)):
            raise f.invalid(path, name, "must be a standard resource for containers")
    elif not is_native(name) and not is_extended_resource_name(name):
        raise f.invalid(path, name, "doesn't follow extended resource name standard")


def is_extended_resource_name(name: str) -> bool:
    """helper.IsExtendedResourceName, with its check that the quota name requests.<name> is a
    qualified name."""
    return is_extended(name) and not is_qualified_name(REQUESTS_PREFIX + name)


def _validate_quantity(name: str, raw: object, amount: Fraction, path: str) -> None:
    # ValidateNonnegativeQuantity shows value.String(); "must be an integer" the quantity itself,
    # which field errors print as encoding/json does (its MarshalJSON: the same text, quoted)
    if amount < 0:
        raise f.invalid(path, q.canonical(amount, q.format_of(raw)), "must be greater than or equal to 0")
    # ValidateResourceQuantityValue: extended resources are counted in whole units
    if is_extended(name) and amount.denominator != 1:
        raise f.invalid(path, q.canonical(amount, q.format_of(raw)), "must be an integer")


# Resource names validate_container_resource_name has let through, and whether each is an
# extended resource: a non-negative amount of one (whole, if extended) needs no check.
_VALID_CONTAINER_RESOURCES: dict[str, bool] = {}


def _check_container_amount(rname: str, amount: Fraction, res: Dict, field: str, rpath: str) -> None:
    """The API server's checks of the amount of ``rname`` in ``res[field]`` (requests or limits):
    its name, and the amount (non-negative; whole, if extended), unless the name passed before and
    the amount needs no check."""
    extended = _VALID_CONTAINER_RESOURCES.get(rname)
    if extended is None or amount.numerator < 0 or (extended and amount.denominator != 1):
        path = f"{rpath}.{field}[{rname}]"
        validate_container_resource_name(rname, path)
        _validate_quantity(rname, res[field][rname], amount, path)
        _VALID_CONTAINER_RESOURCES[rname] = is_extended(rname)


def _resources_and_ports(
    d: Dict, path: str, host_network: bool
) -> tuple[dict[str, Fraction], dict[str, Fraction], tuple[ContainerPort, ...]]:
    """A container's requests (defaulted from its limits), limits and ports, checked as the API
    server checks them; the containers of many specs share them (container() keeps them)."""
    res = f.mapping(d, "resources", path)
    rpath = f"{path}.resources"
    requests = f.resource_list(res, "requests", rpath)
    limits = f.resource_list(res, "limits", rpath)
    # validateResourceRequirements (pkg/apis/core/validation/validation.go, v1.36.2) runs after
    # SetDefaults_Pod copied each limit without a request into the requests, and reports every
    # error it finds, not the first one: limits, then requests.
    raw_requests = dict(res.get("requests") or {})
    for rname, amount in limits.items():
        # SetDefaults_Pod: a limit without a request makes the request equal to the limit.
        if rname not in requests:
            requests[rname] = amount
            raw_requests[rname] = res["limits"][rname]
    res = {"requests": raw_requests, "limits": res.get("limits") or {}}
    errors: list[FieldError] = []
    for rname, amount in limits.items():
        _collect(errors, _check_container_amount, rname, amount, res, "limits", rpath)
        if is_hugepages(rname):
            _collect(errors, _check_hugepage_value, rname, amount, res["limits"][rname], f"{rpath}.limits[{rname}]")
    for rname, amount in requests.items():
        _collect(errors, _check_container_amount, rname, amount, res, "requests", rpath)
        lim = limits.get(rname)
        if lim is not None:
            # value.String() of each, after the API server's defaulting
            raw = q.canonical(amount, q.format_of(res["requests"][rname]))
            raw_lim = q.canonical(lim, q.format_of(res["limits"][rname]))
            if amount != lim and not _overcommit_allowed(rname):
                errors.append(f.invalid(f"{rpath}.requests", raw, f"must be equal to {rname} limit of {raw_lim}"))
            elif amount > lim:
                errors.append(
                    f.invalid(f"{rpath}.requests", raw, f"must be less than or equal to {rname} limit of {raw_lim}")
                )
        if is_hugepages(rname):
            path_r = f"{rpath}.requests[{rname}]"
            _collect(errors, _check_hugepage_value, rname, amount, res["requests"][rname], path_r)
    names = set(requests) | set(limits)
    if any(is_hugepages(n) for n in names) and not names & {"cpu", "memory"}:
        errors.append(f.forbidden(rpath, "HugePages require cpu or memory"))
    if errors:
        first, *rest = errors
        more = tuple(pair for e in rest for pair in ((e.field or "", e.message), *e.more))
        raise FieldError(first.message, field=first.field, more=first.more + more)
    ports = []
    for i, pd in enumerate(f.obj_seq(d, "ports", path)):
        pp = f"{path}.ports[{i}]"
        cport = f.integer(pd, "containerPort", pp, 0) or 0
        if not 1 <= cport <= 65535:
            if cport == 0:
                raise f.required(f"{pp}.containerPort")
            raise f.invalid(f"{pp}.containerPort", cport, "must be between 1 and 65535, inclusive")
        hport = f.integer(pd, "hostPort", pp, 0) or 0
        if hport == 0 and host_network:
            hport = cport  # defaultHostNetworkPorts
        if hport != 0 and not 1 <= hport <= 65535:
            raise f.invalid(f"{pp}.hostPort", hport, "must be between 1 and 65535, inclusive")
        proto = f.string(pd, "protocol", pp) or "TCP"
        if proto not in _PROTOCOLS:
            raise f.unsupported(f"{pp}.protocol", proto, _PROTOCOLS)
        ports.append(new_container_port(cport, hport, proto, f.string(pd, "hostIP", pp)))
    return requests, limits, tuple(ports)


def container(d: Dict, path: str, host_network: bool, is_init: bool) -> Container:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f"{path}.name")
    image = f.string(d, "image", path)
    if not image.strip():
        raise f.required(f"{path}.image")
    key = _memo_key(("container resources and ports", host_network, d.get("resources", {}), d.get("ports", [])))
    both = _MEMO.get(key) if key is not None else None
    if both is None:
        both = _resources_and_ports(d, path, host_network)
        _remember(key, both)
    requests, limits, ports = both
    restart = f.string(d, "restartPolicy", path) or None
    if restart is not None:
        if not is_init:
            # A container's own restartPolicy (and restartPolicyRules): ContainerRestartRules,
            # 1.34 alpha, on from 1.35. The API server of an older release refuses it.
            if restart not in ("Always", "OnFailure", "Never"):
                raise f.unsupported(f"{path}.restartPolicy", restart, ("Always", "OnFailure", "Never"))
        elif restart != "Always":
            raise f.unsupported(f"{path}.restartPolicy", restart, ("Always",))
    return new_container(name, image, requests, limits, ports, restart)


def _collect(errors: list[FieldError], check: Callable[..., None], *args: Any) -> None:
    """Run one check of a validation that reports every error: its error joins ``errors``."""
    try:
        check(*args)
    except FieldError as e:
        errors.append(e)


def _check_hugepage_value(name: str, amount: Fraction, raw: object, path: str) -> None:
    """validateResourceQuantityHugePageValue of a new pod: the amount (Quantity.Value(), rounded
    up to a whole number) is a whole number of pages of the size the name says."""
    try:
        page = q.parse_quantity(name[len("hugepages-") :])
    except q.QuantityError:
        page = Fraction(0)
    shown = q.canonical(amount, q.format_of(raw))
    if page <= 0 or page.denominator != 1 or q.value(amount) % int(page) != 0:
        raise f.invalid(path, shown, f"{shown} is not positive integer multiple of {name}")


def _overcommit_allowed(name: str) -> bool:
    # helper.IsOvercommitAllowed: native resources other than hugepages may be overcommitted.
    return is_native(name) and not is_hugepages(name)


def unlimited_non_overcommitable(pod: Pod) -> FieldError | None:
    """validateResourceRequirements of a new pod (pkg/apis/core/validation/validation.go, v1.36.2):
    an extended resource or hugepages requested without a limit is refused (it is never
    overcommitted: its limit is its request). Only new pods meet it; the pods of a cluster were
    admitted when they were created, and a state may hold pods some other path created."""
    for kind, group in (("initContainers", pod.init_containers), ("containers", pod.containers)):
        for i, c in enumerate(group):
            if any(not _overcommit_allowed(n) and n not in c.limits for n in c.requests):
                return f.required(
                    f"spec.{kind}[{i}].resources.limits", "Limit must be set for non overcommitable resources"
                )
    return None


_DISK_ID_FIELDS = {
    "gcePersistentDisk": "pdName",
    "awsElasticBlockStore": "volumeID",
    "azureDisk": "diskName",
    "cinder": "volumeID",
}


def volume(d: Dict, path: str) -> Volume:
    name = f.string(d, "name", path)
    if not name:
        raise f.required(f"{path}.name")
    kinds = [k for k in d if k != "name" and d[k] is not None]
    kind = kinds[0] if kinds else "emptyDir"
    src = d.get(kind)
    src = src if isinstance(src, dict) else {}
    sp = f"{path}.{kind}"
    if kind == "persistentVolumeClaim":
        claim = f.string(src, "claimName", sp)
        if not claim:
            raise f.required(f"{sp}.claimName")
        return Volume(name, kind, claim_name=claim, read_only=f.boolean(src, "readOnly", sp))
    if kind == "ephemeral":
        tmpl = f.opt_mapping(src, "volumeClaimTemplate", sp)
        return Volume(
            name,
            kind,
            ephemeral_claim=tmpl is not None,
            ephemeral_spec=f.mapping(tmpl, "spec", f"{sp}.volumeClaimTemplate") if tmpl else None,
        )
    if kind in _DISK_ID_FIELDS:
        azure = kind == "azureDisk"
        return Volume(
            name,
            kind,
            disk_id=f.string(src, _DISK_ID_FIELDS[kind], sp),
            read_only=f.boolean(src, "readOnly", sp),
            disk_uri=f.string(src, "diskURI", sp) if azure else "",
            # SetDefaults_AzureDiskVolumeSource: no kind means a shared blob disk
            disk_kind=(f.string(src, "kind", sp) or "Shared") if azure else "",
        )
    if kind == "image":
        return Volume(name, kind, image_reference=f.string(src, "reference", sp))
    if kind == "iscsi":
        return Volume(
            name,
            kind,
            iscsi=(f.string(src, "targetPortal", sp), f.string(src, "iqn", sp), f.integer(src, "lun", sp, 0) or 0),
            read_only=f.boolean(src, "readOnly", sp),
        )
    if kind == "rbd":
        return Volume(
            name,
            kind,
            rbd=(f.str_list(src, "monitors", sp), f.string(src, "pool", sp) or "rbd", f.string(src, "image", sp)),
            read_only=f.boolean(src, "readOnly", sp),
        )
    if kind == "csi":
        return Volume(name, kind, csi_driver=f.string(src, "driver", sp), csi_handle=f.string(src, "volumeHandle", sp))
    return Volume(name, kind)


# --- Pod ---------------------------------------------------------------------------------------


def pod(
    d: Dict,
    default_namespace: str = "default",
    source: str = "",
    *,
    validate: bool = True,
    rules: PodRules = DEFAULT_POD_RULES,
) -> Pod:
    """A Pod after the API server's v1 defaulting (priority is resolved later by admission).

    ``validate``: also check what the API server checks of a new pod's labels and names. Pods
    read from a cluster were checked when they were created; a large dump skips that work.
    """
    meta = f.mapping(d, "metadata", "")
    name = subdomain_name_of(d)
    namespace = namespace_of(d, default_namespace)
    for msg in is_dns1123_label(namespace):
        raise f.invalid("metadata.namespace", namespace, msg)
    labels = f.str_map(meta, "labels", "metadata")
    spec = f.mapping(d, "spec", "")
    node_selector = f.str_map(spec, "nodeSelector", "spec")
    if validate:
        _validate_labels(labels, "metadata.labels")
        _validate_labels(node_selector, "spec.nodeSelector")
    status = f.mapping(d, "status", "")
    node_name = f.string(spec, "nodeName", "spec")
    # Everything read from the spec but its node is one value that replicas share: converted
    # once per distinct spec.
    skey = _spec_key(spec, node_name)
    entry = _MEMO.get(skey) if skey is not None else None
    if entry is None:
        entry = spec_entry(spec, bool(node_name))
        _remember(skey, entry)
    annotations = f.str_map(meta, "annotations", "metadata")
    conditions = f.obj_seq(status, "conditions", "status")
    disruption_target, disruption_reason, resize_infeasible = pod_conditions(
        (c.get("type"), c.get("status"), c.get("reason")) for c in conditions
    )
    resource_claims: tuple[Any, ...] = ()
    claim_statuses: dict[str, str | None] = {}
    if spec.get("resourceClaims") or status.get("resourceClaimStatuses"):
        resource_claims, claim_statuses = pod_resource_claims(spec, status)
    status_resources = f.opt_mapping(status, "resources", "status")
    # read in Pod's order: a pod with several bad fields reports the same first one on either path
    namespace = _intern(namespace)
    uid = f.string(meta, "uid", "metadata")
    labels = _shared_map(labels)
    kept = kept_annotations(annotations)
    owners = _memoized("ownerReferences", meta.get("ownerReferences"), lambda: owner_references(meta))
    created = f.timestamp(meta, "creationTimestamp", "metadata")
    deleting = meta.get("deletionTimestamp") is not None
    node_name = _intern(node_name)
    phase = _intern(f.string(status, "phase", "status"))
    nominated = f.string(status, "nominatedNodeName", "status")
    started = f.timestamp(status, "startTime", "status")
    claim_map = _shared_map(claim_statuses)
    statuses = _shared_map(_container_statuses(status))
    status_requests = (
        f.resource_list(status_resources, "requests", "status.resources")
        if status_resources and status_resources.get("requests") is not None
        else None
    )
    status_allocated = (
        f.resource_list(status, "allocatedResources", "status")
        if status.get("allocatedResources") is not None
        else None
    )
    own = (namespace, name, uid, labels, kept, owners, created, deleting, node_name, phase, nominated, started)
    return finish_pod(
        entry,
        rules,
        (*own, disruption_target),
        disruption_reason,
        statuses,
        resize_infeasible,
        status_requests,
        status_allocated,
        source,
        resource_claims,
        claim_map,
    )


def kept_annotations(annotations: Mapping[str, str]) -> dict[str, str]:
    """The annotations of a pod that the scheduler or kwhatif reads (shared, see _shared_map)."""
    if annotations and not _KEPT_POD_ANNOTATIONS.isdisjoint(annotations):
        kept: dict[str, str] = _shared_map({k: annotations[k] for k in annotations if k in _KEPT_POD_ANNOTATIONS})
        return kept
    return _EMPTY_MAP


def pod_conditions(conditions: Iterable[tuple[Any, Any, Any]]) -> tuple[bool, str, bool]:
    """What status.conditions (type, status and reason of each) tell the scheduler: whether the
    pod is a DisruptionTarget, and why (the first such condition decides, as
    podTerminatingByPreemption reads it), and whether a resize of it is infeasible."""
    target: tuple[Any, Any] | None = None
    resize_infeasible = False
    for ctype, cstatus, reason in conditions:
        if ctype == "DisruptionTarget":
            if target is None:
                target = (cstatus, reason)
        elif ctype == "PodResizePending" and reason == "Infeasible":
            resize_infeasible = True
    if target is None:
        return False, "", resize_infeasible
    return target[0] == "True", target[1] if isinstance(target[1], str) else "", resize_infeasible


def finish_pod(
    entry: list[Any],
    rules: PodRules,
    own: tuple[Any, ...],
    disruption_reason: str,
    statuses: dict[str, ContainerStatusResources],
    resize_infeasible: bool,
    status_requests: dict[str, Fraction] | None,
    status_allocated: dict[str, Fraction] | None,
    source: str,
    resource_claims: tuple[Any, ...],
    claim_map: dict[str, str | None],
) -> Pod:
    """The Pod of a spec's memo ``entry`` (its fields first: see spec_entry) and the pod's own
    values, read and shared as pod() reads them: ``own`` is its namespace, name, uid, labels, kept
    annotations, owner references, creation time, deleting, node, phase, nominated node, start
    time and disruption target, in Pod's order (pod_from_template's first arguments)."""
    # Where the pod's status adds nothing to what its requests derive from (most pods), its spec
    # and the release's rules decide them: the first such pod of a spec leaves the spec's fields
    # and what was derived, in the order of Pod's fields, in the spec's memo entry for the next to
    # be built from, positionally.
    plain = not statuses and not resize_infeasible and status_requests is None and status_allocated is None
    if plain:
        if len(entry) != 3 or entry[1] is not rules:
            # the first plain pod of the spec under these rules: its template (the spec's fields,
            # what they derive, and a plain pod's status values), kept in the spec's memo entry
            entry[1:] = [rules, _template(entry[0], rules)]
        return pod_from_template(entry[2], *own, source, resource_claims, claim_map, disruption_reason)
    namespace, name, uid, labels, kept, owners, created, deleting, node_name, phase, nominated, started, target = own
    kw = entry[0]
    return build_pod(
        rules,
        namespace=namespace,
        name=name,
        uid=uid,
        labels=labels,
        annotations=kept,
        owner_references=owners,
        creation_timestamp=created,
        deleting=deleting,
        node_name=node_name,
        **kw,
        phase=phase,
        nominated_node_name=nominated,
        start_time=started,
        disruption_target=target,
        disruption_reason=disruption_reason,
        source=source,
        resource_claims=resource_claims,
        resource_claim_statuses=claim_map,
        container_statuses=statuses,
        resize_infeasible=resize_infeasible,
        status_pod_requests=status_requests,
        status_pod_allocated=status_allocated,
    )


def _template(kw: dict[str, Any], rules: PodRules) -> tuple[Any, ...]:
    """The values of a plain pod of a spec but its own (pod_from_template's template): the spec's
    fields ``kw``, what they derive under ``rules``, and a plain pod's status values."""
    derived, ports = _derive(
        rules, kw["containers"], kw["init_containers"], kw["overhead"], kw["pod_requests"], {}, False, (None, None)
    )
    values = {
        "os_name": "",
        **kw,
        "requests": derived[0],
        "non0_cpu": derived[1],
        "non0_mem": derived[2],
        "request_list": derived[3],
        "host_port_list": ports,
        "container_statuses": _EMPTY_MAP,
        "resize_infeasible": False,
        "status_pod_requests": None,
        "status_pod_allocated": None,
        "admission_notes": (),
    }
    return tuple(values[n] for n in _TEMPLATE_POD_FIELDS)


# What differs between the plain replicas of a spec (pod_from_template's arguments, in Pod's
# order); the rest of a plain pod is its spec's, derived under the release's rules.
_OWN_POD_FIELDS = (
    "namespace",
    "name",
    "uid",
    "labels",
    "annotations",
    "owner_references",
    "creation_timestamp",
    "deleting",
    "node_name",
    "phase",
    "nominated_node_name",
    "start_time",
    "disruption_target",
    "source",
    "resource_claims",
    "resource_claim_statuses",
    "disruption_reason",
)
_TEMPLATE_POD_FIELDS, pod_from_template = template_constructor(Pod, _OWN_POD_FIELDS)
if tuple(fld.name for fld in dataclasses.fields(Pod) if fld.name in _OWN_POD_FIELDS) != _OWN_POD_FIELDS:
    # pod_from_template takes them positionally, in Pod's order, as its callers pass them
    raise ImportError("kwhatif.api.parse: a pod's own fields are not listed in Pod's order")


def _spec_key(spec: Dict, node_name: str) -> Any:
    """The memo key of what _spec_fields reads: the spec but its nodeName. orjson's text of the
    spec with the first `"nodeName":<its value>` cut out, and where it was cut: two specs with the
    same key differ at most in their node (a cut elsewhere than the spec's own nodeName would
    leave that one in the text, with the same value)."""
    key = _memo_key(spec, 1 << 16)
    if isinstance(key, bytes) and node_name:  # an empty nodeName stays in the text: no node
        cut = b'"nodeName":' + orjson.dumps(node_name)
        at = key.find(cut)
        return (at, key[:at] + key[at + len(cut) :]) if at >= 0 else None
    if isinstance(key, str):  # a value orjson does not write as it is: the spec without its node
        return _memo_key(("spec", bool(node_name), {k: v for k, v in spec.items() if k != "nodeName"}), 1 << 16)
    return key


def spec_entry(spec: Dict, has_node: bool) -> list[Any]:
    """A new memo entry of a spec: the fields it gives its Pods (_spec_fields), to which
    finish_pod adds the template of its plain replicas."""
    return [_spec_fields(spec, has_node)]


def _spec_fields(spec: Dict, has_node: bool) -> dict[str, Any]:
    """What a pod's spec gives its Pod, but its node (the spec-level checks included)."""
    host_network = f.boolean(spec, "hostNetwork", "spec")
    raw_containers = f.obj_seq(spec, "containers", "spec")
    if not raw_containers:
        raise f.required("spec.containers")
    raw_inits = f.obj_seq(spec, "initContainers", "spec")
    ckey = _memo_key(
        ("containers", host_network, [_read_of(c) for c in raw_containers], [_read_of(c) for c in raw_inits])
    )
    both = _MEMO.get(ckey) if ckey is not None else None
    if both is None:
        both = _containers(raw_containers, raw_inits, host_network)
        _remember(ckey, both)
    containers, init_containers = both
    overhead_raw = spec.get("overhead")
    overhead = f.resource_list(spec, "overhead", "spec") if overhead_raw is not None else None
    priority = f.integer(spec, "priority", "spec")
    if priority is not None and not -(1 << 31) <= priority < (1 << 31):
        raise f.invalid("spec.priority", priority, "must be a 32-bit integer")
    gates = []
    for i, g in enumerate(f.obj_seq(spec, "schedulingGates", "spec")):
        gname = f.string(g, "name", f"spec.schedulingGates[{i}]")
        if not gname:
            raise f.required(f"spec.schedulingGates[{i}].name")
        gates.append(gname)
    if gates and has_node:
        raise f.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
    preemption_policy = f.string(spec, "preemptionPolicy", "spec")
    if preemption_policy and preemption_policy not in ("Never", "PreemptLowerPriority"):
        raise f.unsupported("spec.preemptionPolicy", preemption_policy, ("Never", "PreemptLowerPriority"))
    pod_requests_, pod_limits = _pod_level_resources(spec)
    fields = {
        "scheduler_name": _intern(f.string(spec, "schedulerName", "spec") or DEFAULT_SCHEDULER_NAME),
        "priority": priority if priority is not None else 0,
        "priority_class_name": _intern(f.string(spec, "priorityClassName", "spec")),
        "preemption_policy": _intern(preemption_policy),
        "containers": containers,
        "init_containers": init_containers,
        "overhead": overhead,
        "node_selector": _shared_map(f.str_map(spec, "nodeSelector", "spec")),
        "affinity": _memoized(
            "affinity", spec.get("affinity"), lambda: affinity(f.opt_mapping(spec, "affinity", "spec"), "spec.affinity")
        ),
        "tolerations": _memoized(
            "tolerations",
            spec.get("tolerations"),
            lambda: tuple(
                toleration(t, f"spec.tolerations[{i}]") for i, t in enumerate(f.obj_seq(spec, "tolerations", "spec"))
            ),
        ),
        "topology_spread_constraints": _memoized(
            "topologySpreadConstraints",
            spec.get("topologySpreadConstraints"),
            lambda: topology_spread_constraints(
                f.obj_seq(spec, "topologySpreadConstraints", "spec"), "spec.topologySpreadConstraints"
            ),
        ),
        "volumes": _memoized(
            "volumes",
            spec.get("volumes"),
            lambda: _unique_volumes(
                tuple(volume(v, f"spec.volumes[{i}]") for i, v in enumerate(f.obj_seq(spec, "volumes", "spec")))
            ),
        ),
        "scheduling_gates": tuple(gates),
        "host_network": host_network,
        "runtime_class_name": _intern(f.string(spec, "runtimeClassName", "spec")),
        "priority_resolved": priority is not None,
        "pod_requests": pod_requests_,
        "pod_limits": pod_limits,
        "required_node_features": _required_node_features(spec, host_network),
        "active_deadline_seconds": f.integer(spec, "activeDeadlineSeconds", "spec"),
        "pod_group": workload.pod_group_name(spec),
    }
    # a key more would double the size of every spec's memo entry: only a spec that names its OS
    # has one (Pod's default is "")
    os_name = _os_name(spec)
    if os_name:
        fields["os_name"] = os_name
    return fields


def _os_name(spec: Dict) -> str:
    """spec.os.name, for hints only (the scheduler does not read it; the kubelet refuses a pod of
    another OS than its node's)."""
    os_ = spec.get("os")
    name = os_.get("name") if isinstance(os_, dict) else None
    return _intern(name) if isinstance(name, str) else ""


def _read_of(c: Dict) -> dict[str, Any]:
    """The fields of a container that container() reads (env, command, mounts... are not), those
    it has (an absent one is no null in the memo key: see _memo_key)."""
    return {k: c[k] for k in _CONTAINER_READS if k in c}


_CONTAINER_READS = ("name", "image", "resources", "ports", "restartPolicy")


def _containers(
    raw_containers: list[Dict], raw_inits: list[Dict], host_network: bool
) -> tuple[tuple[Container, ...], tuple[Container, ...]]:
    """spec.containers and spec.initContainers, with the checks across them (host ports, names)."""
    containers = tuple(container(c, f"spec.containers[{i}]", host_network, False) for i, c in enumerate(raw_containers))
    init_containers = tuple(
        container(c, f"spec.initContainers[{i}]", host_network, True) for i, c in enumerate(raw_inits)
    )
    seen_ports: set[tuple[int, str, str]] = set()
    for i, c in enumerate(containers):
        for j, p in enumerate(c.ports):
            if p.host_port:
                port_key = (p.host_port, p.protocol, p.host_ip)
                if port_key in seen_ports:
                    raise FieldError(
                        f'Duplicate value: "{p.host_port}/{p.protocol}"',
                        field=f"spec.containers[{i}].ports[{j}].hostPort",
                    )
                seen_ports.add(port_key)
    names = set()
    for i, c in enumerate(containers + init_containers):
        if c.name in names:
            where = (
                f"spec.containers[{i}].name"
                if i < len(containers)
                else f"spec.initContainers[{i - len(containers)}].name"
            )
            raise FieldError(f'Duplicate value: "{c.name}"', field=where)
        names.add(c.name)
    return containers, init_containers


# Replicas repeat their containers, tolerations, volumes, affinity, spreading and owners: each
# distinct value is converted once and the typed result (immutable) shared. The key is the value's
# repr, which tells apart what equality does not (1, 1.0 and True) and keeps key order; a value
# whose repr is too large or too deep is converted each time.
_MEMO_MAX_KEY_CHARS = 1 << 13
_MEMO_BUDGET_CHARS = 1 << 25  # what all keys may hold together (32 M characters)
_MEMO: dict[Any, Any] = {}
_memo_chars = [0]


def _memo_key(value: object, limit: int = _MEMO_MAX_KEY_CHARS) -> bytes | str | None:
    # orjson writes a value four times faster than repr: its text is the key, unless the value
    # holds what orjson writes as something else (NaN and infinities as null, dates as strings)
    # or refuses (integers beyond 64 bits, non-string keys, sets); repr is the key then.
    try:
        key: bytes | str = orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATETIME)
        if b"null" in key:
            key = repr(value)
    except (TypeError, orjson.JSONEncodeError):
        try:
            key = repr(value)
        except RecursionError:
            return None
    return key if len(key) <= limit else None


def _remember(key: Any, value: object) -> None:
    """Keep ``value`` under ``key`` (a memo key; None: none) while the keys' budget lasts."""
    if key is not None and key not in _MEMO and _memo_chars[0] < _MEMO_BUDGET_CHARS:
        if isinstance(key, bytes):
            key = bytes(memoryview(key))  # orjson's buffer can be far larger than its text
        _MEMO[key] = value
        text = key[-1] if isinstance(key, tuple) else key
        _memo_chars[0] += len(text) if isinstance(text, (bytes, str)) else 1


_MISS = object()

# Strings most pods repeat (namespace, node, scheduler, phase...) are kept once.
_intern = sys.intern


def _shared_map(m: Mapping[str, Any]) -> Any:
    """A copy of ``m`` that every pod with an equal map shares (labels of replicas, the empty
    maps most pods have). A pod's maps are never changed once it is built."""
    if not m:
        return _EMPTY_MAP
    if len(m) <= _SHARED_MAP_MAX_KEYS:
        # keyed by its items (str keys and values compare exactly): cheaper than a memo key
        items = tuple(m.items())
        try:
            hit = _SHARED_MAPS.get(items)
        except TypeError:  # a value that does not hash (container statuses)
            pass
        else:
            if hit is None:
                hit = dict(m)
                if len(_SHARED_MAPS) < _SHARED_MAPS_MAX:
                    _SHARED_MAPS[items] = hit
            return hit
    return _memoized("map", m, lambda: dict(m))


_SHARED_MAP_MAX_KEYS = 64
_SHARED_MAPS_MAX = 1 << 16
_SHARED_MAPS: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}


_EMPTY_MAP: dict[str, Any] = {}

# for kwhatif.load.typed, which builds pods as pod() does
intern = _intern
shared_map = _shared_map
EMPTY_MAP = _EMPTY_MAP


def _memoized(tag: str, raw: object, convert: Any) -> Any:
    """``convert()`` of ``raw``, reusing the result for an equal ``raw`` (same repr); a result of
    None is reused too (most pods have no affinity)."""
    # most pods have no affinity, spreading...: the key of an absent value is made without a text
    key = _memo_key((tag, raw)) if raw is not None else (tag, None)
    if key is not None:
        hit = _MEMO.get(key, _MISS)
        if hit is not _MISS:
            return hit
    value = convert()
    _remember(key, value)
    return value


def _required_node_features(spec: Dict, host_network: bool) -> tuple[str, ...]:
    """The features a new pod needs its node to declare (nodedeclaredfeatures' registry): a
    container or init container with a restartPolicyRules action RestartAllContainers, and host
    networking inside a user namespace (hostUsers: false)."""
    out = []
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            rules = c.get("restartPolicyRules") if isinstance(c, dict) else None
            if isinstance(rules, list) and any(
                isinstance(r, dict) and r.get("action") == "RestartAllContainers" for r in rules
            ):
                out.append("RestartAllContainersOnContainerExits")
                break
        else:
            continue
        break
    if host_network and spec.get("hostUsers") is False:
        out.append("UserNamespacesHostNetworkSupport")
    return tuple(sorted(set(out)))


def _pod_level_resources(spec: Dict) -> tuple[dict[str, Fraction] | None, dict[str, Fraction] | None]:
    """spec.resources as written (admission drops, defaults and checks it as the release does)."""
    res = f.opt_mapping(spec, "resources", "spec")
    if res is None:
        return None, None
    requests = f.resource_list(res, "requests", "spec.resources") if res.get("requests") is not None else None
    limits = f.resource_list(res, "limits", "spec.resources") if res.get("limits") is not None else None
    for kind, rl in (("requests", requests), ("limits", limits)):
        for rname in rl or ():
            validate_container_resource_name(rname, f"spec.resources.{kind}[{rname}]")
    return requests, limits


def _container_statuses(status: Dict) -> dict[str, ContainerStatusResources]:
    """What resized containers report: status.allocatedResources and status.resources.requests."""
    out: dict[str, ContainerStatusResources] = {}
    for key in ("initContainerStatuses", "containerStatuses"):
        raw = status.get(key)
        if raw is None:
            continue
        if type(raw) is list:
            for cs in raw:
                if type(cs) is not dict or "resources" in cs or "allocatedResources" in cs:
                    break
            else:
                continue  # most pods: no container reports resources (nothing below would be kept)
        for i, cs in enumerate(f.obj_seq(status, key, "status")):
            p = f"status.{key}[{i}]"
            res = f.opt_mapping(cs, "resources", p)
            allocated = (
                f.resource_list(cs, "allocatedResources", p) if cs.get("allocatedResources") is not None else None
            )
            actuated = f.resource_list(res, "requests", f"{p}.resources") if res is not None else None
            if allocated is None and actuated is None:
                continue
            out[f.string(cs, "name", p)] = ContainerStatusResources(allocated, actuated)
    return out


def spec_of(d: Dict) -> Dict:
    return f.mapping(d, "spec", "")


def _validate_labels(labels: Mapping[str, str], path: str) -> None:
    """ValidateLabels: keys are qualified names, values valid label values."""
    for k, v in labels.items():
        for msg in is_qualified_name(k):
            raise f.invalid(path, k, msg)
        for msg in is_valid_label_value(v):
            raise f.invalid(f"{path}[{k}]", v, msg)


def _unique_volumes(volumes: tuple[Volume, ...]) -> tuple[Volume, ...]:
    seen: set[str] = set()
    for i, v in enumerate(volumes):
        if v.name in seen:
            raise FieldError(f'Duplicate value: "{v.name}"', field=f"spec.volumes[{i}].name")
        seen.add(v.name)
    return volumes


_DERIVED_FIELDS = frozenset({"requests", "non0_cpu", "non0_mem", "request_list", "host_port_list"})


def build_pod(rules: PodRules = DEFAULT_POD_RULES, **kw: Any) -> Pod:
    """Construct a Pod and derive what the release's rules derive from it: its requests
    (framework.calculateResource) and its host ports (GetHostPorts)."""
    derived, ports = _derive(
        rules,
        kw["containers"],
        kw["init_containers"],
        kw["overhead"],
        kw.get("pod_requests"),
        kw.get("container_statuses") or {},
        kw.get("resize_infeasible", False),
        (kw.get("status_pod_requests"), kw.get("status_pod_allocated")),
    )
    return _new_pod(kw, derived, ports)


def _derive(
    rules: PodRules,
    containers: tuple[Container, ...],
    init_containers: tuple[Container, ...],
    overhead: dict[str, Fraction] | None,
    pod_level: dict[str, Fraction] | None,
    statuses: Mapping[str, ContainerStatusResources],
    resize_infeasible: bool,
    status_pod: tuple[dict[str, Fraction] | None, dict[str, Fraction] | None],
) -> tuple[tuple[Resource, int, int, dict[str, Fraction]], tuple[ContainerPort, ...]]:
    """A pod's requests (the Resource, the non-zero cpu and memory, the request list) and host
    ports, as the release's rules derive them."""
    if overhead is None and pod_level is None and not statuses and not resize_infeasible and status_pod == (None, None):
        # most pods: the containers decide, and replicas share their tuples (see _MEMO)
        key: Any = (rules, _request_shape(containers, init_containers))
    else:
        key = (
            rules,
            _request_shape(containers, init_containers),
            tuple(overhead.items()) if overhead is not None else None,
            tuple(pod_level.items()) if pod_level is not None else None,
            tuple((n, _items(cs.allocated), _items(cs.actuated)) for n, cs in sorted(statuses.items())),
            resize_infeasible,
            tuple(_items(x) for x in status_pod),
        )
    derived = _REQUESTS_CACHE.get(key)
    if derived is None:
        inits = [ContainerRequests(c.requests, c.restart_policy == "Always", c.name) for c in init_containers]
        app = [ContainerRequests(c.requests, False, c.name) for c in containers]
        request_list, non0_cpu, non0_mem = derive_requests(
            app,
            inits,
            overhead,
            rules,
            pod_level=pod_level,
            statuses=statuses,
            resize_infeasible=resize_infeasible,
            pod_level_status=status_pod,
        )
        derived = (Resource.from_list(request_list), non0_cpu, non0_mem, request_list)
        if len(_REQUESTS_CACHE) < 4096:
            _REQUESTS_CACHE[key] = derived
    return derived, _host_ports(containers, init_containers, rules.sidecar_host_ports)


def _new_pod(
    kw: dict[str, Any], derived: tuple[Resource, int, int, dict[str, Fraction]], ports: tuple[ContainerPort, ...]
) -> Pod:
    requests, non0_cpu, non0_mem, request_list = derived
    if not _DERIVED_FIELDS.isdisjoint(kw):
        kw = {k: v for k, v in kw.items() if k not in _DERIVED_FIELDS}
    return new_pod(
        **kw,
        requests=requests,
        non0_cpu=non0_cpu,
        non0_mem=non0_mem,
        request_list=request_list,
        host_port_list=ports,
    )


def _host_ports(
    containers: tuple[Container, ...], init_containers: tuple[Container, ...], sidecars: bool
) -> tuple[ContainerPort, ...]:
    """GetHostPorts: restartable init containers' host ports first (``sidecars``), then the app
    containers'; remembered per tuple of containers."""
    hit = _PORTS.get((id(containers), id(init_containers), sidecars))
    if hit is not None and hit[0] is containers and hit[1] is init_containers:
        return hit[2]
    ports = [p for c in containers for p in c.ports if p.host_port > 0]
    if sidecars:
        ports = [p for c in init_containers if c.restart_policy == "Always" for p in c.ports if p.host_port > 0] + ports
    out = tuple(ports)
    if len(_PORTS) < 1 << 16:
        _PORTS[(id(containers), id(init_containers), sidecars)] = (containers, init_containers, out)
    return out


_PORTS: dict[tuple[int, int, bool], tuple[tuple[Container, ...], tuple[Container, ...], tuple[ContainerPort, ...]]] = {}


def _request_shape(containers: tuple[Container, ...], init_containers: tuple[Container, ...]) -> Any:
    """What the containers' requests derive from, as a hashable value; remembered per tuple of
    containers, which replicas share (see _MEMO)."""
    hit = _SHAPES.get(id(containers))
    # the entry holds the tuples it was made for, so their ids are not reused while it exists
    if hit is not None and hit[0] is containers and hit[1] is init_containers:
        return hit[2]
    shape = (
        tuple((c.name, tuple(c.requests.items())) for c in containers),
        tuple((c.name, tuple(c.requests.items()), c.restart_policy) for c in init_containers),
    )
    if len(_SHAPES) < 1 << 16:
        _SHAPES[id(containers)] = (containers, init_containers, shape)
    return shape


_SHAPES: dict[int, tuple[tuple[Container, ...], tuple[Container, ...], Any]] = {}


def rebuild_pod(pod: Pod, rules: PodRules, **changes: Any) -> Pod:
    """The pod with ``changes`` applied and everything derived again under ``rules``."""

    kw = {fld.name: getattr(pod, fld.name) for fld in dataclasses.fields(pod) if fld.name not in _DERIVED_FIELDS}
    kw.update(changes)
    return build_pod(rules, **kw)


def _items(rl: Mapping[str, Fraction] | None) -> tuple[tuple[str, Fraction], ...] | None:
    return tuple(sorted(rl.items())) if rl is not None else None


# Replicas share their request shapes: derived requests are computed once per shape and release.
# The cached Resource and request map are shared between pods and never mutated.
_REQUESTS_CACHE: dict[Any, tuple[Resource, int, int, dict[str, Fraction]]] = {}


# --- Node --------------------------------------------------------------------------------------


def node(d: Dict, source: str = "") -> Node:
    """A Node. Its name is checked as every release's API server checks it (ValidateNodeName): the
    name is what the scheduler knows a node by, so a file no API server could have served is refused."""
    meta = f.mapping(d, "metadata", "")
    name = subdomain_name_of(d)
    labels = _node_labels(f.str_map(meta, "labels", "metadata"), name)
    spec = f.mapping(d, "spec", "")
    status = f.mapping(d, "status", "")
    # nodes of one instance type report equal lists: one dict of them is kept (never changed)
    alloc_list = _node_list(status, "allocatable")
    if not alloc_list and status.get("allocatable") is None:
        # A node without allocatable reports its capacity (kubelet sets both).
        alloc_list = _node_list(status, "capacity")
    for rname, amount in alloc_list.items():
        if amount < 0:
            raise f.invalid(f"status.allocatable[{rname}]", str(amount), "must be greater than or equal to 0")
    images = []
    for i, img in enumerate(f.obj_seq(status, "images", "status")):
        p = f"status.images[{i}]"
        images.append(_image(f.str_list(img, "names", p), f.integer(img, "sizeBytes", p, 0) or 0))
    annotations = f.str_map(meta, "annotations", "metadata")
    return Node(
        name=name,
        uid=f.string(meta, "uid", "metadata"),
        labels=labels,
        unschedulable=f.boolean(spec, "unschedulable", "spec"),
        taints=tuple(taint(t, f"spec.taints[{i}]") for i, t in enumerate(f.obj_seq(spec, "taints", "spec"))),
        allocatable=Resource.from_list(alloc_list),
        images=tuple(images),
        allocatable_list=alloc_list,
        source=source,
        kubelet_version=f.string(f.mapping(status, "nodeInfo", "status"), "kubeletVersion", "status.nodeInfo"),
        declared_features=f.str_list(status, "declaredFeatures", "status"),
        capacity_list=_node_list(status, "capacity") or alloc_list,
        ready=_intern_str(_ready_condition(status)),
        annotations=_shared_map({k: v for k, v in annotations.items() if k in _KEPT_NODE_ANNOTATIONS}),
    )


# Annotations of a node that kwhatif reads (cluster-autoscaler's scale-down opt-out,
# autoscaler/scaledown.py); the rest are dropped at parse, as a pod's are.
_KEPT_NODE_ANNOTATIONS = frozenset({"cluster-autoscaler.kubernetes.io/scale-down-disabled"})


def _intern_str(s: Any) -> Any:
    """``s`` interned when it is a plain str (a YAML key may be a number)."""
    return _intern(s) if type(s) is str else s


def _node_labels(labels: dict[str, str], name: str) -> dict[str, str]:
    """A node's labels, their keys and values kept once across nodes (every node repeats the
    well-known keys, zones, architectures, instance types); the hostname label is its name."""
    return {_intern_str(k): name if v == name else _intern_str(v) for k, v in labels.items()}


def _image(names: tuple[str, ...], size: int) -> ContainerImage:
    """status.images' entry, its names kept once across nodes (most nodes of a cluster pull the
    same images)."""
    return ContainerImage(tuple(_intern_str(n) for n in names), size)


def _node_list(status: Dict, key: str) -> dict[str, Fraction]:
    """status.allocatable or status.capacity: one dict shared by the nodes that report the same
    text (nodes of an instance type), converted once; never changed once parsed."""
    raw = status.get(key)
    # keyed by text only (True, 1 and 1.0 are equal keys in Python, not equal quantities)
    if type(raw) is not dict or not raw or not all(type(k) is str and type(v) is str for k, v in raw.items()):
        return f.resource_list(status, key, "status")
    items = tuple(raw.items())
    hit = _LISTS.get(items)
    if hit is None:
        hit = f.resource_list(status, key, "status")
        if len(_LISTS) < 1 << 12:
            _LISTS[items] = hit
    return hit


_LISTS: dict[tuple[tuple[str, str], ...], dict[str, Fraction]] = {}


def _ready_condition(status: Dict) -> str:
    """The status of a node's Ready condition ("" when it has none)."""
    for i, c in enumerate(f.obj_seq(status, "conditions", "status")):
        if f.string(c, "type", f"status.conditions[{i}]") == "Ready":
            return f.string(c, "status", f"status.conditions[{i}]")
    return ""


# --- small kinds -------------------------------------------------------------------------------


def namespace(d: Dict) -> Namespace:
    meta = f.mapping(d, "metadata", "")
    name = name_of(d)
    labels = dict(f.str_map(meta, "labels", "metadata"))
    # The API server labels every namespace with its own name (NamespaceDefaultLabelName).
    labels.setdefault("kubernetes.io/metadata.name", name)
    return Namespace(name, labels)


def priority_class(d: Dict) -> PriorityClass:
    name = name_of(d)
    value = f.integer(d, "value", "")
    if value is None:
        raise f.required("value")
    policy = f.string(d, "preemptionPolicy", "") or None
    if policy is not None and policy not in ("Never", "PreemptLowerPriority"):
        raise f.unsupported("preemptionPolicy", policy, ("Never", "PreemptLowerPriority"))
    return PriorityClass(name, value, f.boolean(d, "globalDefault", ""), policy)


def runtime_class(d: Dict) -> RuntimeClass:
    name = name_of(d)
    ov = f.mapping(d, "overhead", "")
    pod_fixed = ov.get("podFixed")
    sched = f.mapping(d, "scheduling", "")
    return RuntimeClass(
        name,
        # node.k8s.io has no defaulter for it: the amounts stay as written
        f.resource_list(ov, "podFixed", "overhead", defaulted=False) if pod_fixed is not None else None,
        node_selector=f.str_map(sched, "nodeSelector", "scheduling"),
        tolerations=tuple(
            toleration(t, f"scheduling.tolerations[{i}]")
            for i, t in enumerate(f.obj_seq(sched, "tolerations", "scheduling"))
        ),
    )


def service(d: Dict) -> Service:
    spec = f.mapping(d, "spec", "")
    return Service(namespace_of(d), name_of(d), f.str_map(spec, "selector", "spec"))


def pod_disruption_budget(d: Dict) -> PodDisruptionBudget:
    spec = f.mapping(d, "spec", "")
    st = f.opt_mapping(d, "status", "") or {}
    min_available = f.int_or_string(spec, "minAvailable", "spec")
    max_unavailable = f.int_or_string(spec, "maxUnavailable", "spec")
    if min_available is not None and max_unavailable is not None:
        raise f.invalid("spec", d.get("spec"), "minAvailable and maxUnavailable cannot be both set")
    for fld, val in (("minAvailable", min_available), ("maxUnavailable", max_unavailable)):
        if isinstance(val, int) and val < 0:
            raise f.invalid(f"spec.{fld}", val, "must be greater than or equal to 0")
        if isinstance(val, str) and not (val.endswith("%") and val[:-1].isdigit()):
            raise f.invalid(
                f"spec.{fld}", val, "a valid percent string must be a numeric string followed by an ending '%'"
            )
    disrupted = f.mapping(st, "disruptedPods", "status")
    return PodDisruptionBudget(
        namespace=namespace_of(d),
        name=name_of(d),
        selector=label_selector(f.opt_mapping(spec, "selector", "spec"), "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        disruptions_allowed=f.integer(st, "disruptionsAllowed", "status", 0) or 0,
        disrupted_pods=frozenset(str(k) for k in disrupted),
    )


def pod_resource_claims(spec: Dict, status: Dict) -> tuple[tuple[PodResourceClaim, ...], dict[str, str | None]]:
    """pod.spec.resourceClaims and status.resourceClaimStatuses (claim name per pod claim; None
    when the controller decided that no claim is needed)."""
    claims = []
    names: set[str] = set()
    for i, c in enumerate(f.obj_seq(spec, "resourceClaims", "spec")):
        p = f"spec.resourceClaims[{i}]"
        name = f.string(c, "name", p)
        if not name:
            raise f.required(f"{p}.name")
        if name in names:
            raise FieldError(f'Duplicate value: "{name}"', field=f"{p}.name")
        names.add(name)
        rc = c.get("resourceClaimName")
        tpl = c.get("resourceClaimTemplateName")
        rc_s = f.string(c, "resourceClaimName", p) if rc is not None else None
        tpl_s = f.string(c, "resourceClaimTemplateName", p) if tpl is not None else None
        if bool(rc_s) == bool(tpl_s):
            raise f.invalid(p, {"name": name}, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
        claims.append(PodResourceClaim(name, rc_s or None, tpl_s or None))
    statuses: dict[str, str | None] = {}
    for i, s in enumerate(f.obj_seq(status, "resourceClaimStatuses", "status")):
        p = f"status.resourceClaimStatuses[{i}]"
        rc = s.get("resourceClaimName")
        statuses[f.string(s, "name", p)] = f.string(s, "resourceClaimName", p) if rc is not None else None
    return tuple(claims), statuses
