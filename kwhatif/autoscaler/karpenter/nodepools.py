"""karpenter.sh/v1 NodePools and NodeClaims, as `kubectl get nodepools -o yaml` prints them, read
into what the provisioning scheduler and the disruption controller need (kubernetes-sigs/karpenter
v1.14.1 pkg/apis/v1/nodepool.go, nodeclaim.go and their defaults).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from kwhatif.api import fields as f
from kwhatif.api import parse
from kwhatif.api.core import Taint, decimal_integer
from kwhatif.autoscaler.karpenter.requirements import (
    NODE_INITIALIZED_LABEL,
    NODE_REGISTERED_LABEL,
    NODEPOOL_LABEL,
    Requirement,
    Requirements,
)
from kwhatif.errors import FieldError, InputError
from kwhatif.load.http import parse_duration

GROUP = "karpenter.sh"
API_VERSION = "karpenter.sh/v1"

CONSOLIDATION_WHEN_EMPTY = "WhenEmpty"
CONSOLIDATION_WHEN_EMPTY_OR_UNDERUTILIZED = "WhenEmptyOrUnderutilized"
# Balanced: WhenEmptyOrUnderutilized, but a move must score (balanced.go ScoreMove)
CONSOLIDATION_BALANCED = "Balanced"
_POLICIES = (CONSOLIDATION_WHEN_EMPTY, CONSOLIDATION_WHEN_EMPTY_OR_UNDERUTILIZED, CONSOLIDATION_BALANCED)
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
# Disruption reasons a budget may name (pkg/apis/v1/nodepool.go DisruptionReason)
REASON_UNDERUTILIZED = "Underutilized"
REASON_EMPTY = "Empty"
REASON_DRIFTED = "Drifted"
_REASONS = (REASON_UNDERUTILIZED, REASON_EMPTY, REASON_DRIFTED)


@dataclass(frozen=True, slots=True)
class Budget:
    """A disruption budget: nodes ("10%" or "5"), for some reasons (all when empty); a budget with
    a schedule is active only inside its window, which kwhatif cannot know: it is listed and
    counted as active, with a note."""

    nodes: str
    reasons: tuple[str, ...] = ()
    schedule: str = ""
    duration: str = ""

    def allowed(self, total: int) -> int:
        """Budget.GetAllowedDisruptions: a percentage rounds up, as intstr's scaled value does."""
        if self.nodes.endswith("%"):
            pct = int(self.nodes[:-1])
            return math.ceil(total * pct / 100)
        return int(self.nodes)


@dataclass(frozen=True, slots=True)
class NodePool:
    name: str
    weight: int
    labels: tuple[tuple[str, str], ...]
    requirements: tuple[Requirement, ...]  # spec.template.spec.requirements, with minValues
    taints: tuple[Taint, ...]
    startup_taints: tuple[Taint, ...]
    limits: tuple[tuple[str, Fraction], ...]
    node_class: str  # "<group>/<kind lowercased>" = name label, as NodeClassLabelKey makes it
    node_class_name: str
    consolidation_policy: str
    consolidate_after: float | None  # seconds; None: Never
    budgets: tuple[Budget, ...]
    static: bool  # spec.replicas set: a static NodePool, not provisioned for pods
    source: str = ""

    def template_requirements(self) -> Requirements:
        """NewNodeClaimTemplate's requirements: the pool's requirements, its template labels and
        the node class label, and the registered/initialized labels DaemonSets may select."""
        reqs = Requirements(self.requirements)
        labels = dict(self.labels)
        labels[NODEPOOL_LABEL] = self.name
        if self.node_class:
            labels[self.node_class] = self.node_class_name
        reqs.add(*Requirements.from_labels(labels).values())
        reqs.add(Requirement.new(NODE_REGISTERED_LABEL, "In", ("true",)))
        reqs.add(Requirement.new(NODE_INITIALIZED_LABEL, "In", ("true",)))
        return reqs


@dataclass(frozen=True, slots=True)
class NodeClaim:
    name: str
    nodepool: str
    node_name: str  # status.nodeName; "" until a node registered
    instance_type: str
    labels: tuple[tuple[str, str], ...]
    requirements: tuple[Requirement, ...]
    taints: tuple[Taint, ...]
    capacity: tuple[tuple[str, Fraction], ...]
    allocatable: tuple[tuple[str, Fraction], ...]
    deleting: bool
    source: str = ""


def _restricted(key: str) -> str | None:
    """The NodePool CRD's validations of a template label or requirement key
    (pkg/apis/crds/karpenter.sh_nodepools.yaml, v1.14.1): the message of the first it breaks."""
    if key not in ("karpenter.sh/capacity-type", NODEPOOL_LABEL) and key.split("/", 1)[0].endswith("karpenter.sh"):
        return 'label domain "karpenter.sh" is restricted'
    if key == NODEPOOL_LABEL:
        return f'label "{NODEPOOL_LABEL}" is restricted'
    if key == "kubernetes.io/hostname":
        return 'label "kubernetes.io/hostname" is restricted'
    return None


def _requirements(spec: f.Dict, path: str) -> tuple[Requirement, ...]:
    out: list[Requirement] = []
    for i, r in enumerate(f.obj_seq(spec, "requirements", path)):
        p = f"{path}.requirements[{i}]"
        key = f.string(r, "key", p)
        if not key:
            raise f.required(f"{p}.key")
        if (restricted := _restricted(key)) is not None:
            raise f.invalid(f"{p}.key", key, restricted)
        op = f.string(r, "operator", p)
        if op not in _OPERATORS:
            raise f.unsupported(f"{p}.operator", op, _OPERATORS)
        values = f.str_list(r, "values", p)
        if op in ("In",) and not values:
            raise f.required(f"{p}.values", "In needs at least one value")
        if op in ("Gt", "Lt", "Gte", "Lte"):
            if len(values) != 1 or decimal_integer(values[0]) is None:
                raise f.invalid(f"{p}.values", list(values), "needs one integer value")
        min_values = f.integer(r, "minValues", p)
        if min_values is not None and (min_values < 1 or min_values > 50):
            raise f.invalid(f"{p}.minValues", min_values, "must be between 1 and 50")
        if min_values is not None and op == "In" and len(values) < min_values:
            raise f.invalid(f"{p}.minValues", min_values, "must be at most the number of values")
        out.append(Requirement.new(key, op, values, min_values))
    return tuple(out)


def _taints(spec: f.Dict, key: str, path: str) -> tuple[Taint, ...]:
    return tuple(parse.taint(t, f"{path}.{key}[{i}]") for i, t in enumerate(f.obj_seq(spec, key, path)))


def _duration(raw: object, path: str) -> float | None:
    if raw is None:
        return 0.0
    if raw == "Never":
        return None
    if not isinstance(raw, str):
        raise f.invalid(path, raw, 'must be a duration or "Never"')
    try:
        return 0.0 if raw in ("0", "0s") else parse_duration(raw)
    except ValueError:
        raise f.invalid(path, raw, 'must be a duration or "Never"') from None


T = TypeVar("T")


def _named(kind: str, body: dict[str, Any], source: str, build: Callable[[dict[str, Any], f.Dict, str, str], T]) -> T:
    """An object of ``kind``: its metadata.name required, ``build(body, metadata, name, source)``
    the rest; a field error names the source and the object."""
    name = ""
    try:
        meta = f.mapping(body, "metadata", "")
        name = f.string(meta, "name", "metadata")
        if not name:
            raise f.required("metadata.name")
        return build(body, meta, name, source)
    except FieldError as e:
        raise e.with_context(source=source, obj=f"{kind} {name}" if name else kind) from None


def parse_nodepool(body: dict[str, Any], source: str) -> NodePool:
    return _named("NodePool", body, source, _nodepool)


def _nodepool(body: dict[str, Any], meta: f.Dict, name: str, source: str) -> NodePool:
    spec = f.mapping(body, "spec", "")
    weight = f.integer(spec, "weight", "spec", 0) or 0
    if spec.get("weight") is not None and not 1 <= weight <= 100:  # absent: 0, as upstream's lo.FromPtr
        raise f.invalid("spec.weight", weight, "must be between 1 and 100")
    replicas = f.integer(spec, "replicas", "spec")
    if replicas is not None and replicas < 0:
        raise f.invalid("spec.replicas", replicas, "must be at least 0")
    if replicas is not None and spec.get("weight") is not None:
        raise f.invalid("spec.weight", weight, "'weight' is not supported on static NodePools")
    template = f.mapping(spec, "template", "spec")
    tmeta = f.mapping(template, "metadata", "spec.template")
    tspec = f.mapping(template, "spec", "spec.template")
    labels = f.str_map(tmeta, "labels", "spec.template.metadata")
    for key in sorted(labels):
        if (restricted := _restricted(key)) is not None:
            raise f.invalid("spec.template.metadata.labels", key, restricted)
    reqs = _requirements(tspec, "spec.template.spec")
    ref = f.mapping(tspec, "nodeClassRef", "spec.template.spec")
    group = f.string(ref, "group", "spec.template.spec.nodeClassRef")
    kind = f.string(ref, "kind", "spec.template.spec.nodeClassRef")
    node_class = f"{group}/{kind.lower()}" if group and kind else ""
    limits = f.resource_list(spec, "limits", "spec")
    disruption = f.mapping(spec, "disruption", "spec")
    policy = f.string(disruption, "consolidationPolicy", "spec.disruption") or (
        CONSOLIDATION_WHEN_EMPTY_OR_UNDERUTILIZED
    )
    if policy not in _POLICIES:
        raise f.unsupported("spec.disruption.consolidationPolicy", policy, _POLICIES)
    after = _duration(disruption.get("consolidateAfter"), "spec.disruption.consolidateAfter")
    budgets: list[Budget] = []
    raw_budgets = disruption.get("budgets")
    for i, b in enumerate(f.obj_seq(disruption, "budgets", "spec.disruption")):
        p = f"spec.disruption.budgets[{i}]"
        nodes = b.get("nodes", "10%")
        nodes = str(nodes)
        ok = nodes.isdigit() or (nodes.endswith("%") and nodes[:-1].isdigit() and int(nodes[:-1]) <= 100)
        if not ok:
            raise f.invalid(f"{p}.nodes", nodes, 'must be a number or a percentage such as "10%"')
        reasons = f.str_list(b, "reasons", p)
        for r in reasons:
            if r not in _REASONS:
                raise f.unsupported(f"{p}.reasons", r, _REASONS)
        if ("schedule" in b) != ("duration" in b):
            raise f.invalid(f"{p}.schedule", b.get("schedule"), "'schedule' must be set with 'duration'")
        budgets.append(Budget(nodes, reasons, f.string(b, "schedule", p), f.string(b, "duration", p)))
    if raw_budgets is None:
        budgets = [Budget("10%")]
    return NodePool(
        name=name,
        weight=weight,
        labels=tuple(sorted(labels.items())),
        requirements=reqs,
        taints=_taints(tspec, "taints", "spec.template.spec"),
        startup_taints=_taints(tspec, "startupTaints", "spec.template.spec"),
        limits=tuple(sorted(limits.items())),
        node_class=node_class,
        node_class_name=f.string(ref, "name", "spec.template.spec.nodeClassRef"),
        consolidation_policy=policy,
        consolidate_after=after,
        budgets=tuple(budgets),
        static=replicas is not None,
        source=source,
    )


def parse_nodeclaim(body: dict[str, Any], source: str) -> NodeClaim:
    return _named("NodeClaim", body, source, _nodeclaim)


def _nodeclaim(body: dict[str, Any], meta: f.Dict, name: str, source: str) -> NodeClaim:
    labels = f.str_map(meta, "labels", "metadata")
    spec = f.mapping(body, "spec", "")
    status = f.mapping(body, "status", "")
    return NodeClaim(
        name=name,
        nodepool=labels.get(NODEPOOL_LABEL, ""),
        node_name=f.string(status, "nodeName", "status"),
        instance_type=labels.get("node.kubernetes.io/instance-type", ""),
        labels=tuple(sorted(labels.items())),
        requirements=_requirements(spec, "spec"),
        taints=_taints(spec, "taints", "spec"),
        capacity=tuple(sorted(f.resource_list(status, "capacity", "status").items())),
        allocatable=tuple(sorted(f.resource_list(status, "allocatable", "status").items())),
        deleting=meta.get("deletionTimestamp") is not None,
        source=source,
    )


def read_objects(docs: Iterable[tuple[str, dict[str, Any]]]) -> tuple[list[NodePool], list[NodeClaim]]:
    """The NodePools and NodeClaims among (source, body) pairs; other kinds are left alone.
    A NodePool given twice (the state and --node-pools) is taken from its last source."""
    pools: dict[str, NodePool] = {}
    claims: dict[str, NodeClaim] = {}
    for source, body in docs:
        kind, version = body.get("kind"), body.get("apiVersion")
        if kind not in ("NodePool", "NodeClaim"):
            continue
        if version != API_VERSION:
            raise InputError(
                f"unsupported apiVersion {version!r} for {kind} (expected {API_VERSION})",
                source=source,
                field="apiVersion",
            )
        if kind == "NodePool":
            pool = parse_nodepool(body, source)
            pools[pool.name] = pool
        else:
            claim = parse_nodeclaim(body, source)
            claims[claim.name] = claim
    return list(pools.values()), list(claims.values())


def order_by_weight(pools: Iterable[NodePool]) -> list[NodePool]:
    """nodepoolutils.OrderByWeight: heaviest first, equal weights by name descending."""
    return sorted(pools, key=lambda p: (-p.weight, _desc(p.name)))


def _desc(name: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in name) + (1,)
