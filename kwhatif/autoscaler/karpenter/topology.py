"""Topology spread and pod (anti-)affinity across existing nodes and planned NodeClaims, as
Karpenter's provisioning scheduler tracks them (kubernetes-sigs/karpenter v1.14.1
pkg/controllers/provisioning/scheduling/topology.go, topologygroup.go, topologynodefilter.go,
topologydomaingroup.go): a group per distinct constraint counts the matching pods per domain,
and a pod added to a node or claim narrows its requirements to the domains the group allows.

Karpenter draws among equally good domains through map order; kwhatif takes the first by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kwhatif.api.core import PodAffinityTerm, Taint, Toleration, TopologySpreadConstraint
from kwhatif.api.labels import Op, Selector
from kwhatif.api.labels import Requirement as LabelRequirement
from kwhatif.autoscaler.karpenter.podview import PodView
from kwhatif.autoscaler.karpenter.requirements import (
    HOSTNAME_LABEL,
    Requirement,
    Requirements,
    exists,
    tolerates,
)

SPREAD = "topology spread"
AFFINITY = "pod affinity"
ANTI_AFFINITY = "pod anti-affinity"
_MAX_INT32 = (1 << 31) - 1


@dataclass(frozen=True, slots=True)
class NodeFilter:
    """TopologyNodeFilter: which nodes count for a spread constraint (nodeAffinityPolicy and
    nodeTaintsPolicy); the empty filter (affinity terms) counts every node."""

    requirements: tuple[Requirements, ...] = ()
    honor_taints: bool = False
    honor_affinity: bool = False
    tolerations: tuple[Toleration, ...] = ()

    def matches(self, taints: Iterable[Taint], reqs: Requirements, allow: frozenset[str] = frozenset()) -> bool:
        if self.honor_affinity and self.requirements:
            if not any(reqs.is_compatible(r, allow) for r in self.requirements):
                return False
        return not (self.honor_taints and tolerates(taints, self.tolerations) is not None)


def _filter_for(view: PodView, tsc: TopologySpreadConstraint) -> NodeFilter:
    from kwhatif.autoscaler.karpenter.requirements import term_requirements

    selector = Requirements.from_labels(view.node_selector)
    if not view.required_terms:
        reqs: tuple[Requirements, ...] = (selector,)
    else:
        out = []
        for term in view.required_terms:
            r = selector.copy()
            r.add(*term_requirements(term))
            out.append(r)
        reqs = tuple(out)
    honor_taints = str(tsc.node_taints_policy or "Ignore") == "Honor"
    honor_affinity = str(tsc.node_affinity_policy or "Honor") == "Honor"
    return NodeFilter(reqs, honor_taints, honor_affinity, tuple(view.tolerations))


@dataclass(slots=True)
class TopologyGroup:
    kind: str
    key: str
    max_skew: int
    min_domains: int | None
    namespaces: frozenset[str]
    selector: Selector
    node_filter: NodeFilter
    domains: dict[str, int] = field(default_factory=dict)
    empty: set[str] = field(default_factory=set)
    owners: set[str] = field(default_factory=set)

    def ident(self) -> tuple[object, ...]:
        return (self.kind, self.key, self.max_skew, self.min_domains, self.namespaces, self.selector, self.node_filter)

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        return namespace in self.namespaces and self.selector.matches(labels)

    def counts(self, view: PodView, taints: Iterable[Taint], reqs: Requirements, allow: frozenset[str]) -> bool:
        return self.selects(view.pod.namespace, view.pod.labels) and self.node_filter.matches(taints, reqs, allow)

    def register(self, *domains: str) -> None:
        for d in domains:
            if d not in self.domains:
                self.domains[d] = 0
                self.empty.add(d)

    def record(self, *domains: str) -> None:
        for d in domains:
            self.domains[d] = self.domains.get(d, 0) + 1
            self.empty.discard(d)

    def get(self, view: PodView, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        if self.kind == SPREAD:
            return self._spread(view, pod_domains, node_domains)
        if self.kind == AFFINITY:
            return self._affinity(view, pod_domains, node_domains)
        return self._anti_affinity(pod_domains, node_domains)

    def _min_count(self, pod_domains: Requirement) -> int:
        if self.key == HOSTNAME_LABEL:
            return 0
        low = _MAX_INT32
        supported = 0
        for d, c in self.domains.items():
            if pod_domains.has(d):
                supported += 1
                low = min(low, c)
        if self.min_domains is not None and supported < self.min_domains:
            low = 0
        return low

    def _spread(self, view: PodView, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        low = self._min_count(pod_domains)
        self_selecting = self.selects(view.pod.namespace, view.pod.labels)
        node_values = node_domains.sorted_values()
        if self.key == HOSTNAME_LABEL and not node_domains.complement and len(node_values) == 1:
            host = node_values[0]
            count = self.domains.get(host, 0) + (1 if self_selecting else 0)
            if count <= self.max_skew:
                return Requirement.new(self.key, "In", (host,))
            return Requirement.new(self.key, "DoesNotExist")
        best, best_count = "", _MAX_INT32
        candidates = (
            [d for d in node_values if d in self.domains]
            if node_domains.operator == "In"
            else sorted(d for d in self.domains if node_domains.has(d))
        )
        for d in sorted(candidates):
            count = self.domains[d] + (1 if self_selecting else 0)
            if count - low <= self.max_skew and count < best_count:
                best, best_count = d, count
        if not best:
            return Requirement.new(self.key, "DoesNotExist")
        return Requirement.new(self.key, "In", (best,))

    def _any_compatible(self, pod_domains: Requirement) -> bool:
        return any(pod_domains.has(d) and c > 0 for d, c in self.domains.items())

    def _affinity(self, view: PodView, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        options: set[str] = set()
        self_selecting = self.selects(view.pod.namespace, view.pod.labels)
        bootstrap = self_selecting and (len(self.domains) == len(self.empty) or not self._any_compatible(pod_domains))
        node_values = node_domains.sorted_values()
        if self.key == HOSTNAME_LABEL and not node_domains.complement and len(node_values) == 1:
            host = node_values[0]
            if pod_domains.has(host) and (self.domains.get(host, 0) > 0 or bootstrap):
                options.add(host)
            return (
                Requirement.new(self.key, "In", sorted(options))
                if options
                else Requirement.new(self.key, "DoesNotExist")
            )
        if node_domains.operator == "In":
            options = {d for d in node_values if pod_domains.has(d) and self.domains.get(d, 0) > 0}
        else:
            options = {d for d, c in self.domains.items() if pod_domains.has(d) and c > 0 and node_domains.has(d)}
        if not options and bootstrap:
            inter = pod_domains.intersection(node_domains)
            for d in sorted(self.domains):
                if inter.has(d):
                    options.add(d)
                    break
            for d in sorted(self.domains):
                if pod_domains.has(d):
                    options.add(d)
                    break
        return (
            Requirement.new(self.key, "In", sorted(options)) if options else Requirement.new(self.key, "DoesNotExist")
        )

    def _anti_affinity(self, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        node_values = node_domains.sorted_values()
        if self.key == HOSTNAME_LABEL and not node_domains.complement and len(node_values) == 1:
            host = node_values[0]
            if self.domains.get(host, 0) == 0:
                return Requirement.new(self.key, "In", (host,))
            return Requirement.new(self.key, "DoesNotExist")
        options = sorted(d for d in self.empty if node_domains.has(d) and pod_domains.has(d))
        return Requirement.new(self.key, "In", options) if options else Requirement.new(self.key, "DoesNotExist")

    def counts_text(self) -> str:
        """pretty.Map(domains, 25): the counts as Karpenter prints them in its error."""
        items = sorted(self.domains.items())
        shown = ", ".join(f"{k}: {v}" for k, v in items[:25])
        more = f" and {len(items) - 25} others" if len(items) > 25 else ""
        return "{" + shown + "}" + more


def _with_match_label_keys(tsc: TopologySpreadConstraint, labels: Mapping[str, str]) -> Selector:
    sel = tsc.label_selector
    extra = tuple(LabelRequirement(k, Op.IN, frozenset({labels[k]})) for k in tsc.match_label_keys if k in labels)
    if not extra or sel.nothing:
        return sel
    return Selector(sel.requirements + extra)


@dataclass(slots=True)
class ExistingPod:
    namespace: str
    labels: Mapping[str, str]
    node_labels: Mapping[str, str]
    node_name: str
    node_taints: tuple[Taint, ...]
    anti_affinity: tuple[PodAffinityTerm, ...]  # required terms (inverse anti-affinity)
    uid: str


class Topology:
    """Topology: the groups owned by the pods being scheduled, and the inverse anti-affinity
    groups of pods (existing and pending) whose required anti-affinity repels others."""

    def __init__(
        self,
        domain_groups: Mapping[str, Mapping[str, tuple[tuple[Taint, ...], ...]]],
        nodes: Iterable[tuple[str, Mapping[str, str], tuple[Taint, ...]]],
        existing_pods: list[ExistingPod],
        namespace_labels: Mapping[str, Mapping[str, str]],
        respect_preferences: bool,
        allow: frozenset[str],
    ) -> None:
        self.domain_groups = domain_groups
        self.nodes = list(nodes)
        self.existing = existing_pods
        self.namespace_labels = namespace_labels
        self.respect = respect_preferences
        self.allow = allow
        self.groups: dict[tuple[object, ...], TopologyGroup] = {}
        self.inverse: dict[tuple[object, ...], TopologyGroup] = {}
        for p in existing_pods:
            if p.anti_affinity:
                self._inverse_anti_affinity(p.uid, p.namespace, p.anti_affinity, p.node_labels)

    # -- building groups --------------------------------------------------------------------------

    def _namespaces(self, namespace: str, term: PodAffinityTerm) -> frozenset[str]:
        if not term.namespaces and term.namespace_selector is None:
            return frozenset({namespace})
        selected = set(term.namespaces)
        if term.namespace_selector is not None:
            selected.update(n for n, labels in self.namespace_labels.items() if term.namespace_selector.matches(labels))
        return frozenset(selected)

    def _new_group(
        self,
        kind: str,
        key: str,
        namespaces: frozenset[str],
        selector: Selector,
        max_skew: int,
        min_domains: int | None,
        node_filter: NodeFilter,
        view: PodView | None,
    ) -> TopologyGroup:
        tg = TopologyGroup(kind, key, max_skew, min_domains, namespaces, selector, node_filter)
        for domain, taint_groups in sorted(self.domain_groups.get(key, {}).items()):
            if not node_filter.honor_taints or view is None:
                tg.register(domain)
                continue
            if any(tolerates(ts, view.tolerations) is None for ts in taint_groups):
                tg.register(domain)
        return tg

    def _inverse_anti_affinity(
        self, uid: str, namespace: str, terms: Iterable[PodAffinityTerm], node_labels: Mapping[str, str] | None
    ) -> None:
        for term in terms:
            tg = self._new_group(
                ANTI_AFFINITY,
                term.topology_key,
                self._namespaces(namespace, term),
                term.label_selector,
                _MAX_INT32,
                None,
                NodeFilter(),
                None,
            )
            tg = self.inverse.setdefault(tg.ident(), tg)
            if node_labels is not None and tg.key in node_labels:
                tg.record(node_labels[tg.key])
            tg.owners.add(uid)

    def update(self, view: PodView) -> None:
        """Topology.Update: (re)build the groups a pod owns from its current constraints."""
        uid = view.uid
        for tg in self.groups.values():
            tg.owners.discard(uid)
        anti_required = list(view.anti_required)
        if anti_required:
            # updateInverseAntiAffinity reads the required terms only
            self._inverse_anti_affinity(uid, view.pod.namespace, anti_required, None)
        new: list[TopologyGroup] = []
        for tsc in view.tscs:
            if not self.respect and str(tsc.when_unsatisfiable) != "DoNotSchedule":
                continue
            new.append(
                self._new_group(
                    SPREAD,
                    tsc.topology_key,
                    frozenset({view.pod.namespace}),
                    _with_match_label_keys(tsc, view.pod.labels),
                    tsc.max_skew,
                    tsc.min_domains,
                    _filter_for(view, tsc),
                    view,
                )
            )
        terms: list[tuple[str, PodAffinityTerm]] = [(AFFINITY, t) for t in view.affinity_required]
        if self.respect:
            terms += [(AFFINITY, t) for _, t in view.affinity_preferred]
        terms += [(ANTI_AFFINITY, t) for t in anti_required]
        if self.respect:
            terms += [(ANTI_AFFINITY, t) for _, t in view.anti_preferred]
        for kind, term in terms:
            new.append(
                self._new_group(
                    kind,
                    term.topology_key,
                    self._namespaces(view.pod.namespace, term),
                    term.label_selector,
                    _MAX_INT32,
                    None,
                    NodeFilter(),
                    view,
                )
            )
        for tg in new:
            have = self.groups.get(tg.ident())
            if have is None:
                self._count(tg)
                self.groups[tg.ident()] = tg
                have = tg
            have.owners.add(uid)

    def _count(self, tg: TopologyGroup) -> None:
        for _, labels, taints in self.nodes:
            if tg.key in labels and tg.node_filter.matches(taints, Requirements.from_labels(labels), frozenset()):
                tg.register(labels[tg.key])
        for p in self.existing:
            if not tg.selects(p.namespace, p.labels):
                continue
            domain = p.node_labels.get(tg.key)
            if domain is None and tg.key == HOSTNAME_LABEL:
                domain = p.node_name
            if domain is None:
                continue
            if tg.node_filter.honor_affinity or tg.node_filter.honor_taints:
                if not tg.node_filter.matches(p.node_taints, Requirements.from_labels(p.node_labels), frozenset()):
                    continue
            tg.record(domain)

    # -- scheduling -------------------------------------------------------------------------------

    def affects(self, view: PodView) -> bool:
        """Whether any group constrains the pod: one it owns, or an inverse anti-affinity group
        that selects it."""
        if any(view.uid in tg.owners for tg in self.groups.values()):
            return True
        return any(tg.selects(view.pod.namespace, view.pod.labels) for tg in self.inverse.values())

    def register(self, key: str, domain: str) -> None:
        for tg in self.groups.values():
            if tg.key == key:
                tg.register(domain)
        for tg in self.inverse.values():
            if tg.key == key:
                tg.register(domain)

    def _matching(
        self, view: PodView, taints: Iterable[Taint], reqs: Requirements, allow: frozenset[str]
    ) -> list[TopologyGroup]:
        out = [tg for tg in self.groups.values() if view.uid in tg.owners]
        taints = tuple(taints)
        out += [tg for tg in self.inverse.values() if tg.counts(view, taints, reqs, allow)]
        return out

    def add_requirements(
        self,
        view: PodView,
        taints: Iterable[Taint],
        pod_reqs: Requirements,
        node_reqs: Requirements,
        allow: frozenset[str] = frozenset(),
    ) -> tuple[Requirements | None, str | None]:
        """Topology.AddRequirements: the node's requirements narrowed to the domains every
        matching group allows, or Karpenter's unsatisfiable-topology error."""
        reqs = node_reqs.copy()
        for tg in self._matching(view, taints, node_reqs, allow):
            pod_domains = pod_reqs.get(tg.key) if pod_reqs.has(tg.key) else exists(tg.key)
            node_domains = node_reqs.get(tg.key) if node_reqs.has(tg.key) else exists(tg.key)
            domains = tg.get(view, pod_domains, node_domains)
            if len(domains) == 0:
                return None, (
                    f"unsatisfiable topology constraint for {tg.kind}, key={tg.key} (counts = {tg.counts_text()}, "
                    f"podDomains = {pod_domains}, nodeDomains = {node_domains}"
                )
            reqs.add(domains)
        return reqs, None

    def record(
        self, view: PodView, taints: Iterable[Taint], reqs: Requirements, allow: frozenset[str] = frozenset()
    ) -> None:
        taints = tuple(taints)
        for tg in self.groups.values():
            if tg.counts(view, taints, reqs, allow):
                domains = reqs.get(tg.key)
                if tg.kind == ANTI_AFFINITY:
                    tg.record(*domains.sorted_values())
                elif not domains.complement and len(domains) == 1:
                    tg.record(domains.sorted_values()[0])
        for tg in self.inverse.values():
            if view.uid in tg.owners:
                tg.record(*reqs.get(tg.key).sorted_values())


def domain_groups(
    pools: Iterable[tuple[Requirements, tuple[Taint, ...]]],
    instance_types: Iterable[Iterable[Requirements]],
) -> dict[str, dict[str, tuple[tuple[Taint, ...], ...]]]:
    """buildDomainGroups: every domain a NodePool could create, per topology key, with the taints
    of the pools that create it (a pool without taints makes the domain open to every pod).
    ``pools`` pairs each pool's requirements (with its template labels) with its taints, and
    ``instance_types`` gives, in the same order, the requirements of the pool's types."""
    groups: dict[str, dict[str, list[tuple[Taint, ...]]]] = {}

    def insert(key: str, domain: str, taints: tuple[Taint, ...]) -> None:
        per = groups.setdefault(key, {})
        have = per.get(domain)
        if have is None or not taints:
            per[domain] = [taints]
        elif have[0]:
            have.append(taints)

    for (pool_reqs, taints), its in zip(pools, instance_types, strict=True):
        for it_reqs in its:
            reqs = pool_reqs.copy()
            reqs.add_all(it_reqs)
            for key in reqs:
                for domain in reqs.get(key).sorted_values():
                    insert(key, domain, taints)
        for key in pool_reqs:
            r = pool_reqs.get(key)
            if r.operator == "In":
                for domain in r.sorted_values():
                    insert(key, domain, taints)
    return {k: {d: tuple(v) for d, v in per.items()} for k, per in groups.items()}
