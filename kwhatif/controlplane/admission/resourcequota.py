"""ResourceQuota objects and the ResourceQuota admission plugin's check of new pods
(k8s.io/apiserver/pkg/admission/plugin/resourcequota CheckRequest with the pod evaluator of
pkg/quota/v1/evaluator/core).

A quota's usage is what the quota controller would count now: the namespace's running pods
that match its scopes. Each new pod is then charged in turn, as the API server charges each
create: a pod that would take a quota over its hard limit is refused with upstream's message,
and does not count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api import fields as f
from kwhatif.api import quantity as q
from kwhatif.api.core import Pod
from kwhatif.api.fields import Dict
from kwhatif.api.labels import Op, Requirement
from kwhatif.api.parse import name_of, namespace_of
from kwhatif.api.resources import (
    HUGEPAGES_PREFIX,
    QUOTA_POD_RESOURCES,
    REQUESTS_PREFIX,
    ContainerRequests,
    add_lists,
    is_extended,
    is_native,
    max_lists,
    pod_requests,
)
from kwhatif.controlplane.admission.limitranger import Amount

POD_OBJECT_COUNT = "count/pods"
# podResources of the pod evaluator: the names a quota can track for pods.
POD_RESOURCES = QUOTA_POD_RESOURCES | {POD_OBJECT_COUNT}
# validationSet: a quota on these makes every container say its own amount (an old mistake
# upstream keeps for compatibility).
VALIDATION_SET = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")
SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity")


@dataclass(frozen=True, slots=True)
class ScopeSelector:
    scope: str
    operator: str  # In, NotIn, Exists, DoesNotExist
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    namespace: str
    name: str
    hard: Mapping[str, Amount]
    scopes: tuple[ScopeSelector, ...]


def resource_quota(d: Dict) -> ResourceQuota:
    spec = f.mapping(d, "spec", "")
    hard: dict[str, Amount] = {}
    raw = spec.get("hard")
    if raw is not None and not isinstance(raw, dict):
        raise f.type_error("spec.hard", raw, "a map of quantities")
    for name, value in (raw or {}).items():
        amount = Amount.parse(value, f"spec.hard[{name}]")
        if amount.value < 0:
            raise f.invalid(f"spec.hard[{name}]", str(value), "must be greater than or equal to 0")
        hard[str(name)] = amount
    scopes = []
    for i, s in enumerate(f.str_list(spec, "scopes", "spec")):
        if s not in SCOPES:
            raise f.unsupported(f"spec.scopes[{i}]", s, SCOPES)
        scopes.append(ScopeSelector(s, "Exists"))
    selector = f.mapping(spec, "scopeSelector", "spec")
    for i, expr in enumerate(f.obj_seq(selector, "matchExpressions", "spec.scopeSelector")):
        p = f"spec.scopeSelector.matchExpressions[{i}]"
        scope = f.string(expr, "scopeName", p)
        if scope not in SCOPES:
            raise f.unsupported(f"{p}.scopeName", scope, SCOPES)
        op = f.string(expr, "operator", p)
        if op not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise f.unsupported(f"{p}.operator", op, ("In", "NotIn", "Exists", "DoesNotExist"))
        scopes.append(ScopeSelector(scope, op, f.str_list(expr, "values", p)))
    return ResourceQuota(namespace_of(d), name_of(d), hard, tuple(scopes))


# --- the pod evaluator ---------------------------------------------------------------------------


def matching_resources(names: Iterable[str]) -> list[str]:
    """podEvaluator.MatchingResources."""
    out = []
    for n in names:
        if n in POD_RESOURCES or n.startswith(HUGEPAGES_PREFIX) or n.startswith(REQUESTS_PREFIX + HUGEPAGES_PREFIX):
            out.append(n)
        elif not is_native(n) and n.startswith(REQUESTS_PREFIX):
            out.append(n)  # isExtendedResourceNameForQuota
    return out


def _best_effort(pod: Pod) -> bool:
    """qos.GetPodQOS == BestEffort: no container or init container requests or limits cpu or memory."""
    for c in pod.containers + pod.init_containers:
        for rl in (c.requests, c.limits):
            if any(k in ("cpu", "memory") and v != 0 for k, v in rl.items()):
                return False
    return True


def _cross_namespace_affinity(pod: Pod) -> bool:
    aff = pod.affinity
    for pa in (aff.pod_affinity, aff.pod_anti_affinity) if aff else ():
        if pa is None:
            continue
        terms = list(pa.required) + [w.term for w in pa.preferred]
        if any(t.namespaces or t.namespace_selector is not None for t in terms):
            return True
    return False


def matches_scope(sel: ScopeSelector, pod: Pod) -> bool:
    """podMatchesScopeFunc."""
    if sel.scope == "Terminating":
        return pod.active_deadline_seconds is not None and pod.active_deadline_seconds >= 0
    if sel.scope == "NotTerminating":
        return not (pod.active_deadline_seconds is not None and pod.active_deadline_seconds >= 0)
    if sel.scope == "BestEffort":
        return _best_effort(pod)
    if sel.scope == "NotBestEffort":
        return not _best_effort(pod)
    if sel.scope == "PriorityClass":
        if sel.operator == "Exists":
            return bool(pod.priority_class_name)
        labels = {"PriorityClass": pod.priority_class_name} if pod.priority_class_name else {}
        return Requirement("PriorityClass", Op(sel.operator), frozenset(sel.values)).matches(labels)
    if sel.scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


def _pod_limits(pod: Pod) -> dict[str, Fraction]:
    """resourcehelper.PodLimits: like PodRequests over limits; overhead only where a limit is set."""
    totals: dict[str, Fraction] = {}
    for c in pod.containers:
        add_lists(totals, c.limits)
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in pod.init_containers:
        if c.restart_policy == "Always":
            add_lists(totals, c.limits)
            add_lists(sidecars, c.limits)
            effective = dict(sidecars)
        else:
            effective = dict(c.limits)
            add_lists(effective, sidecars)
        max_lists(init_max, effective)
    max_lists(totals, init_max)
    for k, v in (pod.overhead or {}).items():
        if k in totals:
            totals[k] += v
    return totals


def _compute_usage(requests: Mapping[str, Fraction], limits: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """podComputeUsageHelper."""
    out: dict[str, Fraction] = {"pods": Fraction(1)}
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            out[name] = requests[name]
            out[REQUESTS_PREFIX + name] = requests[name]
        if name in limits:
            out["limits." + name] = limits[name]
    for name, amount in requests.items():
        if name.startswith(HUGEPAGES_PREFIX):
            out[name] = amount
            out[REQUESTS_PREFIX + name] = amount
        if is_extended(name):
            out[REQUESTS_PREFIX + name] = amount
    return out


def pod_usage(pod: Pod) -> dict[str, Fraction]:
    """PodUsageFunc: the object count always, compute resources while the pod is not terminal."""
    usage = {POD_OBJECT_COUNT: Fraction(1)}
    if pod.terminal:
        return usage
    requests = pod_requests(
        (c.requests for c in pod.containers),
        (ContainerRequests(c.requests, c.restart_policy == "Always") for c in pod.init_containers),
        pod.overhead,
    )
    for k, v in _compute_usage(requests, _pod_limits(pod)).items():
        usage[k] = usage.get(k, Fraction(0)) + v
    return usage


def _missing(pod: Pod, required: set[str]) -> str | None:
    """podEvaluator.Constraints: containers that do not state an amount a quota requires."""
    wanted = required & set(VALIDATION_SET)
    missing: dict[str, set[str]] = {}
    for c in pod.containers + pod.init_containers:
        have = set(_compute_usage(c.requests, c.limits))
        for name in wanted - have:
            missing.setdefault(name, set()).add(c.name)
    if not missing:
        return None
    parts = [f"{r} for: {','.join(sorted(names))}" for r, names in sorted(missing.items())]
    return "must specify " + "; ".join(parts)


def _render(name: str, value: Fraction, fmt: str | None = None) -> str:
    if fmt is None:
        # Sums carry the format of their first term upstream; kwhatif keeps amounts, not text:
        # memory-like amounts that are whole multiples of 1024 print in binary units.
        memory_like = any(k in name for k in ("memory", "storage", HUGEPAGES_PREFIX))
        binary = memory_like and value.denominator == 1 and value >= 1024 and value % 1024 == 0
        fmt = q.BINARY_SI if binary else q.DECIMAL_SI
    return q.canonical(value, fmt)


def _pretty(values: Mapping[str, Fraction], hard: Mapping[str, Amount] | None = None) -> str:
    """prettyPrint: name=Quantity.String() by name, comma-separated."""
    parts = []
    for name in sorted(values):
        fmt = hard[name].fmt if hard is not None and name in hard else None
        parts.append(f"{name}={_render(name, values[name], fmt)}")
    return ",".join(parts)


@dataclass(slots=True)
class QuotaLedger:
    """The quotas of the cluster with their usage, charged as new pods are created."""

    quotas: list[ResourceQuota]
    used: dict[tuple[str, str], dict[str, Fraction]] = field(default_factory=dict)

    @classmethod
    def of(cls, quotas: Iterable[ResourceQuota], pods: Iterable[Pod]) -> QuotaLedger:
        ledger = cls(sorted(quotas, key=lambda rq: (rq.namespace, rq.name)))
        by_ns: dict[str, list[Pod]] = {}
        for p in pods:
            by_ns.setdefault(p.namespace, []).append(p)
        for rq in ledger.quotas:
            tracked = set(matching_resources(rq.hard))
            used = {name: Fraction(0) for name in tracked}
            for p in by_ns.get(rq.namespace, ()):
                if all(matches_scope(s, p) for s in rq.scopes):
                    for k, v in pod_usage(p).items():
                        if k in tracked:
                            used[k] += v
            ledger.used[(rq.namespace, rq.name)] = used
        return ledger

    def release(self, pod: Pod) -> None:
        """A running pod leaves (its workload's update replaces it): its usage is freed."""
        for rq in self.quotas:
            if rq.namespace != pod.namespace or not all(matches_scope(s, pod) for s in rq.scopes):
                continue
            used = self.used[(rq.namespace, rq.name)]
            for k, v in pod_usage(pod).items():
                if k in used:
                    used[k] -= v

    def admit(self, pod: Pod) -> str | None:
        """CheckRequest for the creation of ``pod``: None when admitted (its usage is then
        charged), else the reason, as the API server words it inside its Forbidden error."""
        interesting = []
        for rq in self.quotas:
            if rq.namespace != pod.namespace:
                continue
            tracked = matching_resources(rq.hard)
            if not tracked or not all(matches_scope(s, pod) for s in rq.scopes):
                continue
            err = _missing(pod, set(tracked))
            if err is not None:
                return f"failed quota: {rq.name}: {err}"
            interesting.append(rq)
        delta = {k: v for k, v in pod_usage(pod).items() if v != 0}
        if not delta or not interesting:
            return None
        updates = []
        for rq in interesting:
            used = self.used[(rq.namespace, rq.name)]
            requested = {k: v for k, v in delta.items() if k in rq.hard}
            new_usage = {k: used.get(k, Fraction(0)) + v for k, v in requested.items()}
            exceeded = sorted(k for k, v in new_usage.items() if v > rq.hard[k].value)
            if exceeded:
                return (
                    f"exceeded quota: {rq.name}, requested: {_pretty({k: requested[k] for k in exceeded})}, "
                    f"used: {_pretty({k: used.get(k, Fraction(0)) for k in exceeded})}, "
                    f"limited: {_pretty({k: rq.hard[k].value for k in exceeded}, rq.hard)}"
                )
            updates.append((used, new_usage))
        for used, new_usage in updates:
            used.update(new_usage)
        return None
