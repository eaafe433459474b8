"""PodTopologySpread's PreFilter and PreScore aggregates for one pod template, kept up to date as
pods come and go instead of recounted over every pod of the cluster each cycle.

Both produce exactly what the plugin computes from scratch (plugins/pod_topology_spread.py):
the same matching-pod counts per topology domain, the same critical paths, the same scores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kwhatif.api.core import NodeInclusionPolicy, Pod
from kwhatif.framework.incremental import BoolArray, IntArray, NodeIndex, PendingDomains
from kwhatif.plugins.node_affinity import RequiredNodeAffinity
from kwhatif.plugins.pod_topology_spread import (
    LABEL_HOSTNAME,
    Constraint,
    CriticalPaths,
    PreFilterState,
    TopologyPair,
    node_labels_match_constraints,
)

# Keys with more domains than this keep their counts in an array too, so the domain with the
# fewest matching pods is found without walking them in Python.
_ARRAY_DOMAINS = 64
_MAX_INT32 = (1 << 31) - 1
MAX_NODE_SCORE = 100


def _matches(c: Constraint, pod: Pod, namespace: str) -> bool:
    """One pod as countPodsMatchSelector counts it for this constraint."""
    sel = c.selector
    return (
        not pod.deleting
        and pod.namespace == namespace
        and (c.empty_selector_counts_all or not sel.empty)
        and sel.matches(pod.labels)
    )


def _namespaces(namespace: str) -> frozenset[str]:
    return frozenset((namespace,))


def _includes_every_node(c: Constraint, required: RequiredNodeAffinity) -> bool:
    """The constraint's node inclusion policies pass on any node: nothing to honor."""
    no_affinity = required.label_selector is None and required.node_selector is None
    return (no_affinity or c.node_affinity_policy is not NodeInclusionPolicy.HONOR) and (
        c.node_taints_policy is not NodeInclusionPolicy.HONOR
    )


class SpreadFilterModel:
    """The PreFilter state of the DoNotSchedule constraints: matching pods per domain of every
    node that passes the constraints' node inclusion policies."""

    def __init__(self, index: NodeIndex, pod: Pod, constraints: tuple[Constraint, ...]) -> None:
        self.index = index
        self.constraints = constraints
        self.namespace = pod.namespace
        required = RequiredNodeAffinity.of(pod)
        node_pairs: dict[int, tuple[tuple[TopologyPair, Constraint], ...]] = {}
        match_num: dict[TopologyPair, int] = {}
        everywhere = [_includes_every_node(c, required) for c in constraints]
        for pos, ni in enumerate(index.infos):
            node = ni.node
            labels = node.labels
            if not node_labels_match_constraints(labels, constraints):
                continue
            # Constraints sharing a key share the pair: the last one counted wins, as upstream.
            pairs: dict[TopologyPair, Constraint] = {}
            for c, every in zip(constraints, everywhere):
                if every or c.matches_node_inclusion_policies(pod, node, required):
                    pairs[(c.topology_key, labels[c.topology_key])] = c
            if pairs:
                node_pairs[pos] = tuple(pairs.items())
                for pair in pairs:
                    match_num.setdefault(pair, 0)
        self.node_pairs = node_pairs
        self.match_num = match_num
        domains: dict[str, list[str]] = {}
        for key, value in match_num:
            domains.setdefault(key, []).append(value)
        self.domains_num = {key: len(values) for key, values in domains.items()}
        self.sorted_values = {key: sorted(values) for key, values in domains.items()}
        # keys with many domains: counts also in an array, in sorted value order
        self.arrays: dict[str, IntArray] = {}
        self.slots: dict[TopologyPair, tuple[IntArray, int]] = {}
        for key, values in self.sorted_values.items():
            if len(values) > _ARRAY_DOMAINS:
                arr = self.arrays[key] = np.zeros(len(values), dtype=np.int64)
                for i, v in enumerate(values):
                    self.slots[(key, v)] = (arr, i)
        self.pending = PendingDomains(index)
        self.mins: dict[str, int] = {}
        # apply() of every pod there is; the pods of a group of NodeIndex.label_groups match alike
        for p, positions in index.label_groups(_namespaces(self.namespace)):
            if any(_matches(c, p, self.namespace) for c in constraints):
                for pos in positions:
                    self.apply(pos, p, 1)
        # Filter reads a node's values of the constraints' keys and nothing else of it: nodes
        # with the same values (a zone) get the same answer, found once per group.
        groups: dict[tuple[str | None, ...], int] = {}
        group_of = np.empty(index.size, dtype=np.int64)
        self.representative: list[int] = []
        for pos, ni in enumerate(index.infos):
            labels = ni.node.labels
            node_values = tuple(labels.get(c.topology_key) for c in constraints)
            g = groups.get(node_values)
            if g is None:
                g = groups[node_values] = len(self.representative)
                self.representative.append(pos)
            group_of[pos] = g
        self.group_of: IntArray = group_of
        # (key, value) -> the groups whose nodes have that value of the key
        self.groups_with: dict[TopologyPair, list[int]] = {}
        for node_values, g in groups.items():
            for c, node_value in zip(constraints, node_values):
                if node_value is not None:
                    at = self.groups_with.setdefault((c.topology_key, node_value), [])
                    if not at or at[-1] != g:
                        at.append(g)
        self._member_lists: dict[int, list[int]] = {}
        # each group's answer when last filtered (a group missing here: not known)
        self.group_status: dict[int, Any] = {}

    def apply(self, pos: int, pod: Pod, sign: int) -> None:
        pairs = self.node_pairs.get(pos)
        if pairs is None or pod.deleting or pod.namespace != self.namespace:
            return
        for pair, c in pairs:
            if _matches(c, pod, self.namespace):
                self.match_num[pair] += sign
                slot = self.slots.get(pair)
                if slot is not None:
                    slot[0][slot[1]] += sign
                self.pending.pairs.add(pair)

    def state(self) -> PreFilterState:
        """A fresh PreFilterState equal to the one PreFilter would build now."""
        paths = {c.topology_key: CriticalPaths() for c in self.constraints}
        mins: dict[str, int] = {}
        match_num = self.match_num
        for key, values in self.sorted_values.items():
            cp = paths[key]
            arr = self.arrays.get(key)
            if arr is None:
                # what PreFilter does: every domain in sorted order
                for v in values:
                    cp.update(v, match_num[(key, v)])
            else:
                # The same answer in two array passes: slot 0 is the first domain (sorted order)
                # with the fewest pods, slot 1 the first one with the fewest among the others.
                i0 = int(np.argmin(arr))
                rest = arr.copy()
                rest[i0] = _MAX_INT32
                i1 = int(np.argmin(rest))
                cp.values = [values[i0], values[i1]]
                cp.nums = [int(arr[i0]), int(arr[i1])]
            mins[key] = cp.nums[0]
        self.mins = mins
        return PreFilterState(self.constraints, paths, self.domains_num, dict(match_num))

    def take_affected(self) -> set[int] | None:
        """Nodes whose Filter answer may have changed since the last call (None: every node).
        Filter reads the count of the node's own domains and the minimum over each key."""
        return self.pending.take(dict(self.mins))

    def take_affected_groups(self) -> set[int] | None:
        """take_affected by group: the groups whose answer may have changed (None: every group)."""
        pending = self.pending
        if pending.everything or pending.read != self.mins:
            pending.take(dict(self.mins))
            return None
        out: set[int] = set()
        groups_with = self.groups_with
        for pair in pending.pairs:
            out.update(groups_with.get(pair, ()))
        pending.pairs.clear()
        return out

    def member_list(self, g: int) -> list[int]:
        """Positions of the nodes of group ``g``, in node order."""
        out = self._member_lists.get(g)
        if out is None:
            out = self._member_lists[g] = np.flatnonzero(self.group_of == g).tolist()
        return out


class SpreadScoreModel:
    """The PreScore state of the ScheduleAnyway constraints: matching pods per domain (per node
    for hostname), over every node that passes the inclusion policies."""

    def __init__(self, index: NodeIndex, pod: Pod, constraints: tuple[Constraint, ...], require_all: bool) -> None:
        self.index = index
        self.constraints = constraints
        self.require_all = require_all
        self.namespace = pod.namespace
        n = index.size
        infos = index.infos
        required = RequiredNodeAffinity.of(pod)
        self.has_key: list[BoolArray] = [index.has_label(c.topology_key) for c in constraints]
        all_keys: BoolArray = np.ones(n, dtype=np.bool_)
        for has in self.has_key:
            all_keys &= has
        self.lacks_any: BoolArray = ~all_keys
        self.is_host = [c.topology_key == LABEL_HOSTNAME for c in constraints]
        # the first constraint of each key counts that key's domains for the weight
        seen: set[str] = set()
        self.first_of_key: list[bool] = []
        for c in constraints:
            self.first_of_key.append(c.topology_key not in seen)
            seen.add(c.topology_key)
        # per non-hostname key: each node's domain (value, or "" without the key) and counts
        self.domain: dict[str, IntArray] = {}
        self.domain_count: dict[str, int] = {}
        self.counts: dict[str, IntArray] = {}
        for c, host in zip(constraints, self.is_host):
            key = c.topology_key
            if host or key in self.domain:
                continue
            per_node, values, vindex = index.values_of(key)
            empty = vindex.get("")
            if empty is None:
                empty = len(values)
            dom = np.where(per_node >= 0, per_node, empty)
            self.domain[key] = dom
            self.domain_count[key] = len(values) + 1
            self.counts[key] = np.zeros(len(values) + 1, dtype=np.int64)
        # nodes whose pods count toward their domain, per constraint
        self.counted: list[BoolArray | None] = []
        for c, host in zip(constraints, self.is_host):
            if host:
                self.counted.append(None)
                continue
            if _includes_every_node(c, required):
                incl = np.ones(n, dtype=np.bool_)
            else:
                incl = np.fromiter(
                    (c.matches_node_inclusion_policies(pod, ni.node, required) for ni in infos), dtype=np.bool_, count=n
                )
            self.counted.append(incl & all_keys if require_all else incl)
        self.host_counts: list[IntArray | None] = [
            np.zeros(n, dtype=np.int64) if host else None for host in self.is_host
        ]
        # apply() of every pod there is, counted per constraint at once: a pod of the namespace
        # matches by its labels alone, and replicas share their labels (api.parse), so each
        # group of NodeIndex.label_groups is matched once
        at: list[list[int]] = [[] for _ in constraints]
        for p, positions in index.label_groups(_namespaces(self.namespace)):
            if p.deleting or p.namespace != self.namespace:
                continue
            for i, c in enumerate(constraints):
                if _matches(c, p, self.namespace):
                    at[i].extend(positions)
        for i, c in enumerate(constraints):
            if not at[i]:
                continue
            where: IntArray = np.array(at[i], dtype=np.int64)
            hc = self.host_counts[i]
            if hc is not None:
                np.add.at(hc, where, 1)
                continue
            counted = self.counted[i]
            assert counted is not None
            where = where[counted[where]]
            key = c.topology_key
            np.add.at(self.counts[key], self.domain[key][where], 1)

    def apply(self, pos: int, pod: Pod, sign: int) -> None:
        if pod.deleting or pod.namespace != self.namespace:
            return
        for i, c in enumerate(self.constraints):
            if not _matches(c, pod, self.namespace):
                continue
            hc = self.host_counts[i]
            if hc is not None:
                hc[pos] += sign
                continue
            counted = self.counted[i]
            assert counted is not None
            if counted[pos]:
                key = c.topology_key
                self.counts[key][self.domain[key][pos]] += sign

    def scores(self, idx: IntArray) -> tuple[IntArray, IntArray]:
        """Raw and normalized scores of the nodes at positions ``idx`` (the feasible nodes in
        node order), as PreScore, Score and NormalizeScore compute them."""
        f = len(idx)
        ignored: BoolArray | None = self.lacks_any[idx] if self.require_all else None
        n_ignored = int(ignored.sum()) if ignored is not None else 0
        kept = idx if ignored is None else idx[~ignored]
        total = np.zeros(f, dtype=np.float64)
        for i, c in enumerate(self.constraints):
            key = c.topology_key
            if self.is_host[i]:
                size = f - n_ignored
            elif self.first_of_key[i]:
                size = int(np.count_nonzero(np.bincount(self.domain[key][kept], minlength=self.domain_count[key])))
            else:
                size = 0  # a later constraint on the same key finds its domains already counted
            weight = math.log(float(size + 2))
            hc = self.host_counts[i]
            cnt = hc[idx] if hc is not None else self.counts[key][self.domain[key][idx]]
            term = cnt.astype(np.float64) * weight + float(c.max_skew - 1)
            total = total + np.where(self.has_key[i][idx], term, 0.0)
        # math.Round: half away from zero (every total is non-negative)
        floor = np.floor(total)
        raw: IntArray = (floor + (total - floor >= 0.5)).astype(np.int64)
        if ignored is not None:
            raw[ignored] = 0
        valid = ~ignored if ignored is not None else np.ones(f, dtype=np.bool_)
        norm: IntArray = np.zeros(f, dtype=np.int64)
        if valid.any():
            vals = raw[valid]
            lo = int(vals.min())
            hi = max(0, int(vals.max()))
            if hi == 0:
                norm[valid] = MAX_NODE_SCORE
            else:
                norm[valid] = MAX_NODE_SCORE * (hi + lo - vals) // hi
        return raw, norm
