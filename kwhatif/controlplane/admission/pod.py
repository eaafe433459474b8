"""What the API server's admission plugins set on a new pod before the scheduler sees it.

Priority (spec.priority and spec.preemptionPolicy from the PriorityClass or the global default)
and RuntimeClass (spec.overhead from the class's podFixed overhead). A new pod also gets what the
API server of the selected release does to the fields the scheduler reads: fields it does not
have, or whose feature gate is off, are dropped (with a note naming the field); pod-level requests
are defaulted; pod (anti-)affinity and spread matchLabelKeys are merged into their selectors
(pkg/registry/core/pod/strategy.go, pkg/apis/core/v1/defaults.go).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from fractions import Fraction

from kwhatif.api.core import (
    Affinity,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PriorityClass,
    RuntimeClass,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kwhatif.api.labels import Op, Requirement, Selector
from kwhatif.api.parse import DEFAULT_POD_RULES, rebuild_pod, unlimited_non_overcommitable
from kwhatif.api.resources import (
    ContainerRequests,
    PodRules,
    is_hugepages,
    is_pod_level_resource,
    pod_requests,
)
from kwhatif.errors import FieldError
from kwhatif.release.versions import SchedulerVersion, default_version


class PriorityClassNotFound(FieldError):
    """The Priority admission plugin's refusal of a new pod naming a PriorityClass that does not
    exist (plugin/pkg/admission/priority): a Forbidden answer, not a field error."""


# Built-in classes every cluster has (pkg/apis/scheduling).
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass("system-node-critical", 2000001000, False, None),
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2000000000, False, None),
}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
# Pod fields the release's rules derive requests and host ports from.
_DERIVED_FROM = frozenset({"overhead", "pod_requests", "containers", "init_containers"})


@dataclasses.dataclass(frozen=True, slots=True)
class Admission:
    priority_classes: Mapping[str, PriorityClass]
    runtime_classes: Mapping[str, RuntimeClass]
    version: SchedulerVersion = dataclasses.field(default_factory=default_version)
    rules: PodRules = DEFAULT_POD_RULES

    def global_default(self) -> PriorityClass | None:
        # Several global defaults can exist after a race; upstream takes the lowest value.
        best: PriorityClass | None = None
        for pc in self.priority_classes.values():
            if pc.global_default and (best is None or pc.value < best.value):
                best = pc
        return best

    def admit(self, pod: Pod, strict: bool, refuse_unlimited: bool = True) -> Pod:
        """Resolve priority and overhead. ``strict`` (new pods): a missing PriorityClass or
        RuntimeClass is an error, as the API server rejects such a pod; existing pods keep what
        they have."""
        if strict:
            unlimited = unlimited_non_overcommitable(pod)
            if unlimited is not None:
                if refuse_unlimited:
                    raise unlimited
                note = (
                    f"the API server refuses this pod ({unlimited.field}: {unlimited.message}); "
                    "kwhatif answers as the scheduler would for it"
                )
                pod = dataclasses.replace(pod, admission_notes=(*pod.admission_notes, note))
        changes: dict[str, object] = {}
        if not pod.priority_resolved:
            pc: PriorityClass | None
            if pod.priority_class_name:
                pc = self.priority_classes.get(pod.priority_class_name) or SYSTEM_PRIORITY_CLASSES.get(
                    pod.priority_class_name
                )
                if pc is None and strict:
                    raise PriorityClassNotFound(
                        f"no PriorityClass with name {pod.priority_class_name} was found",
                        field="spec.priorityClassName",
                    )
            else:
                pc = self.global_default()
                if pc is not None:
                    changes["priority_class_name"] = pc.name
            changes["priority"] = pc.value if pc else 0
            changes["priority_resolved"] = True
            if not pod.preemption_policy:
                changes["preemption_policy"] = (pc.preemption_policy if pc else None) or DEFAULT_PREEMPTION_POLICY
        elif not pod.preemption_policy:
            pc = self.priority_classes.get(pod.priority_class_name) if pod.priority_class_name else None
            changes["preemption_policy"] = (pc.preemption_policy if pc else None) or DEFAULT_PREEMPTION_POLICY
        rc = self.runtime_classes.get(pod.runtime_class_name) if pod.runtime_class_name else None
        if pod.runtime_class_name and rc is None and strict:
            raise FieldError(f'RuntimeClass "{pod.runtime_class_name}" not found', field="spec.runtimeClassName")
        if rc is not None and (rc.node_selector or rc.tolerations):
            # The RuntimeClass admission plugin merges the class's scheduling into the pod.
            selector = dict(pod.node_selector)
            for key, value in rc.node_selector.items():
                have = selector.get(key)
                if have is not None and have != value:
                    if strict:
                        raise FieldError(
                            f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                            f"pod.spec.nodeSelector[{key}] = {have}",
                            field="spec.nodeSelector",
                        )
                    continue
                selector[key] = value
            changes["node_selector"] = selector
            changes["tolerations"] = pod.tolerations + tuple(t for t in rc.tolerations if t not in pod.tolerations)
        if rc is not None and pod.overhead is None and rc.overhead is not None:
            changes["overhead"] = dict(rc.overhead)
        if strict:
            changes.update(self._api_server_fields(pod))
        if not changes:
            return pod
        if _DERIVED_FROM.isdisjoint(changes):
            return dataclasses.replace(pod, **changes)  # type: ignore[arg-type]
        # Requests depend on the overhead and on pod-level requests: derive them again.
        return rebuild_pod(pod, self.rules, **changes)

    def _api_server_fields(self, pod: Pod) -> dict[str, object]:
        """What the release's API server does to the fields of a new pod that the scheduler reads."""
        v = self.version
        changes: dict[str, object] = {}
        notes = list(pod.admission_notes)
        if pod.pod_requests is not None or pod.pod_limits is not None:
            if not v.has_gate("PodLevelResources"):
                notes.append(
                    f"spec.resources: Kubernetes {v.release} has no pod-level resources; its API server drops the field"
                )
                changes.update(pod_requests=None, pod_limits=None)
            elif not v.gate("PodLevelResources"):
                notes.append(
                    f"spec.resources: the PodLevelResources feature gate is {_off(v, 'PodLevelResources')}; "
                    "its API server drops the field"
                )
                changes.update(pod_requests=None, pod_limits=None)
            else:
                defaulted = _default_pod_requests(pod)
                if defaulted != pod.pod_requests:
                    changes["pod_requests"] = defaulted
        if (pod.resource_claims or pod.resource_claim_statuses) and not v.gate("DynamicResourceAllocation"):
            # dropDisabledDynamicResourceAllocationFields (pkg/api/pod/util.go): a new pod loses its
            # claims, its containers' resources.claims and status.resourceClaimStatuses.
            notes.append(
                f"spec.resourceClaims: the DynamicResourceAllocation feature gate is {_off(v, 'DynamicResourceAllocation')}; "
                "its API server drops the field (the pod is scheduled without its ResourceClaims)"
            )
            changes.update(resource_claims=(), resource_claim_statuses={})
        aff = pod.affinity
        if aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None):
            if _has_label_keys(aff):
                if not v.gate("MatchLabelKeysInPodAffinity"):
                    notes.append(
                        "spec.affinity: matchLabelKeys/mismatchLabelKeys of pod (anti-)affinity terms need the "
                        f"MatchLabelKeysInPodAffinity feature gate, {_off(v, 'MatchLabelKeysInPodAffinity')}; "
                        "its API server drops them"
                    )
                    changes["affinity"] = _map_terms(aff, _drop_label_keys)
                else:
                    changes["affinity"] = _map_terms(aff, lambda t: _merge_label_keys(t, pod.labels))
        spread = pod.topology_spread_constraints
        if any(c.match_label_keys for c in spread) and not v.gate("MatchLabelKeysInPodTopologySpread"):
            # dropDisabledMatchLabelKeysFieldInTopologySpread: a new pod loses matchLabelKeys.
            notes.append(
                "spec.topologySpreadConstraints: matchLabelKeys needs the MatchLabelKeysInPodTopologySpread "
                f"feature gate, {_off(v, 'MatchLabelKeysInPodTopologySpread')}; its API server drops it"
            )
            changes["topology_spread_constraints"] = tuple(dataclasses.replace(c, match_label_keys=()) for c in spread)
        elif spread and v.gate("MatchLabelKeysInPodTopologySpreadSelectorMerge"):
            merged = tuple(_merge_spread_keys(c, pod.labels) for c in pod.topology_spread_constraints)
            if merged != pod.topology_spread_constraints:
                changes["topology_spread_constraints"] = merged
        if not v.gate("ContainerRestartRules"):
            for i, c in enumerate(pod.containers):
                if c.restart_policy is not None:
                    # validateContainerRestartPolicy without ContainerRestartRules (before 1.35, or off)
                    raise FieldError(
                        "Forbidden: may not be set for non-init containers", field=f"spec.containers[{i}].restartPolicy"
                    )
        if not v.gate("TaintTolerationComparisonOperators"):
            for i, t in enumerate(pod.tolerations):
                if t.operator in ("Gt", "Lt"):
                    notes.append(
                        f"spec.tolerations[{i}].operator: {t.operator} needs the TaintTolerationComparisonOperators "
                        f"feature gate, {_off(v, 'TaintTolerationComparisonOperators')}; the toleration matches no taint"
                    )
        if notes != list(pod.admission_notes):
            changes["admission_notes"] = tuple(notes)
        return changes


def _off(v: SchedulerVersion, gate: str) -> str:
    """How a gate that is off came to be: the release's default, or --feature-gates."""
    if not v.has_gate(gate):
        return f"absent from {v.release}"
    return (
        f"off by default in {v.release}" if v.gate_is_default(gate) else f"turned off by --feature-gates in {v.release}"
    )


# --- pod-level resources ------------------------------------------------------------------------


def _default_pod_requests(pod: Pod) -> dict[str, Fraction] | None:
    """defaultPodRequests: with pod-level limits, a pod-level request missing for a supported,
    overcommittable resource takes the containers' aggregate, else the pod-level limit."""
    requests = dict(pod.pod_requests) if pod.pod_requests is not None else None
    if not pod.pod_limits:
        return requests
    reqs: dict[str, Fraction] = dict(requests or {})
    aggregate = pod_requests(
        [ContainerRequests(c.requests, False, c.name) for c in pod.containers],
        [ContainerRequests(c.requests, c.restart_policy == "Always", c.name) for c in pod.init_containers],
        None,
    )
    for key, amount in aggregate.items():
        if key not in reqs and is_pod_level_resource(key) and not is_hugepages(key):
            reqs[key] = amount
    for key, limit in pod.pod_limits.items():
        if key not in reqs and is_pod_level_resource(key):
            reqs[key] = limit
    return reqs if reqs else requests


# --- matchLabelKeys -----------------------------------------------------------------------------


def _has_label_keys(aff: Affinity) -> bool:
    for pa in (aff.pod_affinity, aff.pod_anti_affinity):
        if pa is None:
            continue
        for t in list(pa.required) + [w.term for w in pa.preferred]:
            if t.match_label_keys or t.mismatch_label_keys:
                return True
    return False


def _map_terms(aff: Affinity, fn: Callable[[PodAffinityTerm], PodAffinityTerm]) -> Affinity:
    def one(pa: PodAffinity | None) -> PodAffinity | None:
        if pa is None:
            return None
        return PodAffinity(
            tuple(fn(t) for t in pa.required),
            tuple(WeightedPodAffinityTerm(w.weight, fn(w.term)) for w in pa.preferred),
        )

    return Affinity(aff.node_affinity, one(aff.pod_affinity), one(aff.pod_anti_affinity))


def _drop_label_keys(t: PodAffinityTerm) -> PodAffinityTerm:
    return dataclasses.replace(t, match_label_keys=(), mismatch_label_keys=())


def _with_keys(sel: Selector, keys: tuple[str, ...], op: Op, labels: Mapping[str, str]) -> Selector:
    """applyLabelKeysToLabelSelector: ``key op (value)`` for each key the pod has a label for."""
    extra = tuple(Requirement(k, op, frozenset((labels[k],))) for k in keys if k in labels)
    return dataclasses.replace(sel, requirements=sel.requirements + extra) if extra else sel


def _merge_label_keys(t: PodAffinityTerm, labels: Mapping[str, str]) -> PodAffinityTerm:
    """applyMatchLabelKeysAndMismatchLabelKeys; a term without a selector selects nothing and is left."""
    if (not t.match_label_keys and not t.mismatch_label_keys) or t.label_selector.nothing:
        return t
    sel = _with_keys(t.label_selector, t.match_label_keys, Op.IN, labels)
    sel = _with_keys(sel, t.mismatch_label_keys, Op.NOT_IN, labels)
    return dataclasses.replace(t, label_selector=sel)


def _merge_spread_keys(c: TopologySpreadConstraint, labels: Mapping[str, str]) -> TopologySpreadConstraint:
    """The API server's merge of a spread constraint's matchLabelKeys into its selector (1.34+)."""
    if not c.match_label_keys or c.label_selector.nothing:
        return c
    return dataclasses.replace(c, label_selector=_with_keys(c.label_selector, c.match_label_keys, Op.IN, labels))
