"""A pending pod as Karpenter's scheduler holds it: the constraints it reads (node selector,
node affinity, tolerations, spread constraints, pod affinity and anti-affinity) in a mutable form
that preference relaxation peels off one at a time, and the requirements it derives from them
(kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/preferences.go and
pkg/scheduling/requirements.go newPodRequirements). The loaded Pod itself is never changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.api.core import NodeSelectorTerm, Pod, PodAffinityTerm, Toleration, TopologySpreadConstraint
from kwhatif.autoscaler.karpenter.requirements import Requirements, term_requirements

PREFER_NO_SCHEDULE_TOLERATION = Toleration(key="", operator="Exists", value="", effect="PreferNoSchedule")


def _heaviest_first(items: list[tuple[int, object]]) -> None:
    items.sort(key=lambda x: -x[0])  # sort.SliceStable by weight, descending


@dataclass(slots=True)
class PodView:
    pod: Pod
    uid: str
    node_selector: dict[str, str]
    required_terms: list[NodeSelectorTerm]
    preferred_terms: list[tuple[int, NodeSelectorTerm]]
    tolerations: list[Toleration]
    tscs: list[TopologySpreadConstraint]
    affinity_required: list[PodAffinityTerm]
    affinity_preferred: list[tuple[int, PodAffinityTerm]]
    anti_required: list[PodAffinityTerm]
    anti_preferred: list[tuple[int, PodAffinityTerm]]
    relaxed: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, pod: Pod) -> PodView:
        aff = pod.affinity
        na = aff.node_affinity if aff else None
        pa = aff.pod_affinity if aff else None
        paa = aff.pod_anti_affinity if aff else None
        view = cls(
            pod=pod,
            uid=pod.uid or f"{pod.namespace}/{pod.name}",
            node_selector=dict(pod.node_selector),
            required_terms=list(na.required.terms) if na and na.required else [],
            preferred_terms=[(p.weight, p.term) for p in na.preferred] if na else [],
            tolerations=list(pod.tolerations),
            tscs=list(pod.topology_spread_constraints),
            affinity_required=list(pa.required) if pa else [],
            affinity_preferred=[(w.weight, w.term) for w in pa.preferred] if pa else [],
            anti_required=list(paa.required) if paa else [],
            anti_preferred=[(w.weight, w.term) for w in paa.preferred] if paa else [],
        )
        return view

    def requirements(self, strict: bool) -> Requirements:
        """NewPodRequirements (the heaviest preferred node affinity term as a requirement too)
        or, ``strict``, NewStrictPodRequirements; the first required term (ORed terms are
        dropped one by one by relaxation)."""
        reqs = Requirements.from_labels(self.node_selector)
        if not strict and self.preferred_terms:
            heaviest = max(self.preferred_terms, key=lambda x: x[0])
            reqs.add(*Requirements(term_requirements(heaviest[1])).values())
        if self.required_terms:
            reqs.add(*Requirements(term_requirements(self.required_terms[0])).values())
        return reqs

    # -- preferences.go: each relaxation removes one soft constraint, in Karpenter's order -------

    def relax(self, tolerate_prefer_no_schedule: bool) -> bool:
        steps = [
            self._remove_required_node_affinity_term,
            self._remove_preferred_pod_affinity_term,
            self._remove_preferred_pod_anti_affinity_term,
            self._remove_preferred_node_affinity_term,
            self._remove_topology_spread_schedule_anyway,
        ]
        if tolerate_prefer_no_schedule:
            steps.append(self._tolerate_prefer_no_schedule)
        for step in steps:
            reason = step()
            if reason is not None:
                self.relaxed.append(reason)
                return True
        return False

    def _remove_required_node_affinity_term(self) -> str | None:
        if len(self.required_terms) > 1:
            self.required_terms.pop(0)
            return "removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
        return None

    def _remove_preferred_pod_affinity_term(self) -> str | None:
        if self.affinity_preferred:
            self.affinity_preferred.sort(key=lambda x: -x[0])
            self.affinity_preferred.pop(0)
            return "removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
        return None

    def _remove_preferred_pod_anti_affinity_term(self) -> str | None:
        if self.anti_preferred:
            self.anti_preferred.sort(key=lambda x: -x[0])
            self.anti_preferred.pop(0)
            return "removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
        return None

    def _remove_preferred_node_affinity_term(self) -> str | None:
        if self.preferred_terms:
            self.preferred_terms.sort(key=lambda x: -x[0])
            self.preferred_terms.pop(0)
            return "removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
        return None

    def _remove_topology_spread_schedule_anyway(self) -> str | None:
        for i, tsc in enumerate(self.tscs):
            if str(tsc.when_unsatisfiable) == "ScheduleAnyway":
                # swapped with the last one and the list shortened, as Karpenter does
                self.tscs[i] = self.tscs[-1]
                self.tscs.pop()
                return f"removing: spec.topologySpreadConstraints ScheduleAnyway on {tsc.topology_key}"
        return None

    def _tolerate_prefer_no_schedule(self) -> str | None:
        for t in self.tolerations:
            if _matches(t, PREFER_NO_SCHEDULE_TOLERATION):
                return None
        self.tolerations.append(PREFER_NO_SCHEDULE_TOLERATION)
        return "adding: toleration for PreferNoSchedule taints"


def _matches(a: Toleration, b: Toleration) -> bool:
    """v1.Toleration.MatchToleration: the same key, operator, value and effect."""
    return a.key == b.key and a.operator == b.operator and a.value == b.value and a.effect == b.effect
