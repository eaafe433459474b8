"""InterPodAffinity's PreFilter and PreScore aggregates for one pod template, kept up to date as
pods come and go instead of rebuilt from every pod of the cluster each cycle.

Both hold exactly what the plugin computes from scratch (plugins/inter_pod_affinity.py): the
same counts per topology pair, the same summed weights per topology value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import AffinityTerm, PodInfo, WeightedAffinityTerm
from kwhatif.framework.incremental import IntArray, NodeIndex, PendingDomains
from kwhatif.plugins.inter_pod_affinity import (
    InterPodAffinity,
    PreFilterState,
    TopologyCounts,
    pod_matches_all_affinity_terms,
)

_NO_NAMESPACE_LABELS: dict[str, str] = {}
MAX_NODE_SCORE = 100


def _selects_by_namespace_labels(terms: Sequence[AffinityTerm]) -> bool:
    """Merging these terms' namespaces reads the cluster's namespaces (a real namespace selector)."""
    return any(not t.namespace_selector.empty and not t.namespace_selector.nothing for t in terms)


def _candidate_namespaces(terms: Sequence[AffinityTerm]) -> frozenset[str] | None:
    """The namespaces whose pods merged terms can match; None for all of them."""
    out: set[str] = set()
    for t in terms:
        if t.namespace_selector.empty:
            return None  # an empty selector matches every namespace
        out |= t.namespaces
    return frozenset(out)


def has_preferred_terms(pod: Pod) -> bool:
    """The pod has preferred (anti-)affinity terms of its own (PreScore's hasConstraints)."""
    aff = pod.affinity
    return aff is not None and (
        (aff.pod_affinity is not None and len(aff.pod_affinity.preferred) > 0)
        or (aff.pod_anti_affinity is not None and len(aff.pod_anti_affinity.preferred) > 0)
    )


def namespaces_of(plugin: InterPodAffinity) -> frozenset[str]:
    return frozenset(plugin.handle.snapshot.namespaces())


class AffinityFilterModel:
    """The PreFilter state: pods matching the template's required terms, and existing pods whose
    required anti-affinity matches the template, counted per topology pair."""

    def __init__(self, plugin: InterPodAffinity, index: NodeIndex, pod: Pod) -> None:
        self.index = index
        pi = PodInfo.of(pod)
        raw_terms = pi.required_affinity_terms + pi.required_anti_affinity_terms
        self.namespace_dependent = _selects_by_namespace_labels(raw_terms)
        self.namespaces = namespaces_of(plugin) if self.namespace_dependent else frozenset()
        req_aff, req_anti = plugin.merge_namespaces(pod, pi.required_affinity_terms, pi.required_anti_affinity_terms)
        ns_labels = plugin.handle.namespace_labels(pod.namespace)
        s = PreFilterState(TopologyCounts(), TopologyCounts(), TopologyCounts(), req_aff, req_anti, pod, ns_labels)
        snapshot = plugin.handle.snapshot
        for ni in snapshot.have_pods_with_required_anti_affinity():
            for existing in ni.pods_with_required_anti_affinity:
                s.existing_anti_affinity_counts.update_with_anti_affinity_terms(
                    existing.required_anti_affinity_terms, pod, ns_labels, ni.node, 1
                )
        self.own_terms = req_aff + req_anti
        if self.own_terms:
            infos = index.infos
            # the terms read a pod's namespace and labels alone: the pods of a group of
            # NodeIndex.label_groups match alike, and a group that matches none is passed over
            for p, positions in index.label_groups(_candidate_namespaces(self.own_terms)):
                if not pod_matches_all_affinity_terms(req_aff, p) and not any(
                    t.matches(p, _NO_NAMESPACE_LABELS) for t in req_anti
                ):
                    continue
                for pos in positions:
                    node = infos[pos].node
                    s.affinity_counts.update_with_affinity_terms(req_aff, p, node, 1)
                    s.anti_affinity_counts.update_with_anti_affinity_terms(req_anti, p, _NO_NAMESPACE_LABELS, node, 1)
        self.s = s
        self.pending = PendingDomains(index)

    def apply(self, pos: int, pi: PodInfo, sign: int) -> None:
        terms = pi.required_anti_affinity_terms
        if not terms and not self.own_terms:
            return
        node = self.index.infos[pos].node
        self.s.update_with_pod(pi, node, sign)
        labels = node.labels
        for t in terms + self.own_terms:
            v = labels.get(t.topology_key)
            if v is not None:
                self.pending.pairs.add((t.topology_key, v))

    def skip(self) -> bool:
        s = self.s
        return (
            not s.existing_anti_affinity_counts and not s.required_affinity_terms and not s.required_anti_affinity_terms
        )

    def state(self) -> PreFilterState:
        return self.s.clone()

    def take_affected(self) -> set[int] | None:
        """Nodes whose Filter answer may have changed since the last call (None: every node).
        Filter reads the counts of the node's own label pairs, and whether any pod at all matches
        the required affinity (the first pod of a group that matches its own terms)."""
        return self.pending.take(not self.s.affinity_counts)


class AffinityScoreModel:
    """The PreScore state: summed weights per topology value, from the template's preferred terms
    over existing pods and from existing pods' terms over the template."""

    def __init__(self, plugin: InterPodAffinity, index: NodeIndex, pod: Pod) -> None:
        self.index = index
        self.pod = pod
        self.has_constraints = has_preferred_terms(pod)
        pi = PodInfo.of(pod)
        raw_terms = [t.term for t in pi.preferred_affinity_terms] + [t.term for t in pi.preferred_anti_affinity_terms]
        self.namespace_dependent = _selects_by_namespace_labels(raw_terms)
        self.namespaces = namespaces_of(plugin) if self.namespace_dependent else frozenset()
        aff_terms, anti_terms = plugin.merge_namespaces(
            pod, [t.term for t in pi.preferred_affinity_terms], [t.term for t in pi.preferred_anti_affinity_terms]
        )
        self.preferred_affinity = [
            WeightedAffinityTerm(m, t.weight) for m, t in zip(aff_terms, pi.preferred_affinity_terms)
        ]
        self.preferred_anti_affinity = [
            WeightedAffinityTerm(m, t.weight) for m, t in zip(anti_terms, pi.preferred_anti_affinity_terms)
        ]
        self.ns_labels = plugin.handle.namespace_labels(pod.namespace)
        self.hard_weight = plugin.args.hard_pod_affinity_weight
        # topology key -> summed weight per value of the key (NodeIndex.values_of order), plus a
        # last slot that stays 0 for nodes without the key
        self.sums: dict[str, IntArray] = {}
        self.contributions = 0  # (pod, term) pairs that matched on a node with the key
        infos = index.infos
        # what every matching (pod, term) adds, per topology key and value, summed before it is
        # counted: _incoming_terms and _existing_terms over all pods, without a call per term
        found: dict[tuple[str, str], int] = {}
        matched = 0

        def add(hits: list[tuple[str, int]], labels: Any, pods: int = 1) -> None:
            nonlocal matched
            for key, weight in hits:
                tv = labels.get(key)
                if tv is not None:
                    at = (key, tv)
                    found[at] = found.get(at, 0) + weight * pods
                    matched += pods

        if self.has_constraints:
            merged = list(aff_terms) + list(anti_terms)
            mine = [(t.term, t.weight) for t in self.preferred_affinity]
            mine += [(t.term, -t.weight) for t in self.preferred_anti_affinity]
            # a term's match reads the pod's namespace and labels alone, and replicas share their
            # labels (api.parse): each group of NodeIndex.label_groups is matched once
            for ep, positions in index.label_groups(_candidate_namespaces(merged)):
                hits = [(term.topology_key, weight) for term, weight in mine if term.matches(ep, _NO_NAMESPACE_LABELS)]
                if hits:
                    for pos in positions:
                        add(hits, infos[pos].node.labels)
        pod, ns_labels, hard = self.pod, self.ns_labels, self.hard_weight
        # replicas share their terms (PodInfo.of): what an existing pod's terms add is worked out
        # once per distinct set of terms, and added once per node for all its pods with that set
        # (Snapshot.affinity_term_groups); the nodes of a set that adds nothing are not read
        snapshot = plugin.handle.snapshot
        for req, pref, anti, on in snapshot.affinity_term_groups():
            hits = [(t.topology_key, hard) for t in req if t.matches(pod, ns_labels)] if hard > 0 else []
            hits += [(t.term.topology_key, t.weight) for t in pref if t.term.matches(pod, ns_labels)]
            hits += [(t.term.topology_key, -t.weight) for t in anti if t.term.matches(pod, ns_labels)]
            if hits:
                for name, count in on.items():
                    ni = snapshot.get(name)
                    assert ni is not None
                    add(hits, ni.node.labels, count)
        for (key, value), weight in found.items():
            self._count(key, value, weight, 0)
        self.contributions = matched

    def _term(
        self, term: AffinityTerm, weight: int, pod: Pod, ns_labels: dict[str, str], labels: Any, sign: int
    ) -> None:
        if term.matches(pod, ns_labels):
            tv = labels.get(term.topology_key)
            if tv is not None:
                self._count(term.topology_key, tv, weight * sign, sign)

    def _count(self, key: str, value: str, weight: int, sign: int) -> None:
        _, values, vindex = self.index.values_of(key)
        arr = self.sums.get(key)
        if arr is None:
            arr = self.sums[key] = np.zeros(len(values) + 1, dtype=np.int64)
        arr[vindex[value]] += weight
        self.contributions += sign

    def _incoming_terms(self, ep: Pod, labels: Any, sign: int) -> None:
        """The template's preferred terms over one existing pod."""
        if not labels:
            return
        for t in self.preferred_affinity:
            self._term(t.term, t.weight, ep, _NO_NAMESPACE_LABELS, labels, sign)
        for t in self.preferred_anti_affinity:
            self._term(t.term, -t.weight, ep, _NO_NAMESPACE_LABELS, labels, sign)

    def _existing_terms(self, existing: PodInfo, labels: Any, sign: int) -> None:
        """One existing pod's terms over the template."""
        if not labels:
            return
        pod, ns_labels = self.pod, self.ns_labels
        if self.hard_weight > 0:
            for term in existing.required_affinity_terms:
                self._term(term, self.hard_weight, pod, ns_labels, labels, sign)
        for t in existing.preferred_affinity_terms:
            self._term(t.term, t.weight, pod, ns_labels, labels, sign)
        for t in existing.preferred_anti_affinity_terms:
            self._term(t.term, -t.weight, pod, ns_labels, labels, sign)

    def apply(self, pos: int, pi: PodInfo, sign: int) -> None:
        labels = self.index.infos[pos].node.labels
        if self.has_constraints:
            self._incoming_terms(pi.pod, labels, sign)
        if pi.has_affinity:
            self._existing_terms(pi, labels, sign)

    @property
    def contributed(self) -> bool:
        return self.contributions > 0

    def scores(self, idx: IntArray) -> tuple[IntArray, IntArray]:
        """Raw and normalized scores of the nodes at positions ``idx``."""
        raw: IntArray = np.zeros(len(idx), dtype=np.int64)
        for key, arr in self.sums.items():
            per_node = self.index.values_of(key)[0]
            raw += arr[per_node[idx]]  # -1 (no such label) reads the last slot, 0
        norm: IntArray = np.zeros(len(idx), dtype=np.int64)
        if len(idx):
            lo = int(raw.min())
            diff = int(raw.max()) - lo
            if diff > 0:
                # float64, then truncation toward zero (Go's int64(f)); every value is >= 0
                norm = (float(MAX_NODE_SCORE) * ((raw - lo).astype(np.float64) / float(diff))).astype(np.int64)
        return raw, norm
