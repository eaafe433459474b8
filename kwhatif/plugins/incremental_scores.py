"""Scores over vectors: the normalizations of the node-local score plugins, and the table of a
cycle's scores that builds each node's NodeScores only when it is read."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from kwhatif.api.resources import CPU, MEMORY
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import ResourceSpec
from kwhatif.framework.incremental import IntArray
from kwhatif.framework.types import NodeScores, PluginScore
from kwhatif.plugins.resource_allocation import allocatable_and_requested

MAX_NODE_SCORE = 100
# reads past this many nodes convert the whole table to Python ints at once
_BULK_AFTER = 16


def default_normalize(raw: IntArray, reverse: bool) -> IntArray:
    """helper.DefaultNormalizeScore over a vector: scale by the maximum (Go's truncating
    division), optionally reversed; all maximum-0 vectors stay as they are (or become 100s)."""
    hi = max(0, int(raw.max())) if len(raw) else 0
    if hi == 0:
        if reverse:
            out: IntArray = np.full(len(raw), MAX_NODE_SCORE, dtype=np.int64)
            return out
        return raw.copy()
    num = MAX_NODE_SCORE * raw
    q = np.abs(num) // hi
    q = np.where(num < 0, -q, q)
    return MAX_NODE_SCORE - q if reverse else q


class ScoreTable(Mapping[str, NodeScores]):
    """Every scored node of one cycle: plugin rows of raw and normalized scores over the nodes
    (in node order), and the weighted totals. A read builds that node's NodeScores."""

    __slots__ = ("names", "plugins", "weights", "raw", "norm", "totals", "_built", "_reads", "_lists")

    def __init__(
        self,
        names: list[str],
        plugins: list[str],
        weights: list[int],
        raw: npt.NDArray[np.int64],
        norm: npt.NDArray[np.int64],
        totals: npt.NDArray[np.int64],
    ) -> None:
        self.names = names  # sorted: the snapshot's node order
        self.plugins = plugins
        self.weights = weights
        self.raw = raw
        self.norm = norm
        self.totals = totals
        self._built: dict[str, NodeScores] = {}
        self._reads = 0
        self._lists: tuple[list[list[int]], list[list[int]], list[int]] | None = None

    def _pos(self, name: str) -> int:
        i = bisect_left(self.names, name)
        if i == len(self.names) or self.names[i] != name:
            raise KeyError(name)
        return i

    def __getitem__(self, name: str) -> NodeScores:
        ns = self._built.get(name)
        if ns is not None:
            return ns
        i = self._pos(name)
        self._reads += 1
        if self._lists is None and self._reads > _BULK_AFTER:
            self._lists = (self.raw.tolist(), self.norm.tolist(), self.totals.tolist())
        out = NodeScores(name)
        if self._lists is not None:
            raw, norm, totals = self._lists
            for k, plugin in enumerate(self.plugins):
                w = self.weights[k]
                n = norm[k][i]
                out.scores.append(PluginScore(plugin, raw[k][i], n, w, n * w))
            out.total = totals[i]
        else:
            for k, plugin in enumerate(self.plugins):
                w = self.weights[k]
                n = int(self.norm[k, i])
                out.scores.append(PluginScore(plugin, int(self.raw[k, i]), n, w, n * w))
            out.total = int(self.totals[i])
        self._built[name] = out
        return out

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        i = bisect_left(self.names, name)
        return i < len(self.names) and self.names[i] == name

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


# --- NodeResourcesFit and NodeResourcesBalancedAllocation over every node at once ---------------

# past this, (allocatable - requested) * MAX_NODE_SCORE might not fit an int64: scored node by node
_RESOURCE_LIMIT = 1 << 56


def resource_rows(
    infos: list[NodeInfo], resources: Sequence[ResourceSpec], pod_reqs: Sequence[int], use_requested: bool
) -> tuple[IntArray, IntArray] | None:
    """calculateResourceAllocatableRequest of each scored resource (rows) on each node (columns):
    the allocatable and the requested with the pod, as allocatable_and_requested answers. None
    when a value is negative or too large for the arithmetic below to be exactly Go's."""
    allocs: list[list[int]] = []
    reqs: list[list[int]] = []
    # each node's allocatable and requested, gathered once for cpu and memory both
    node_alloc: list[Any] | None = None
    node_req: list[Any] | None = None
    for r, pr in zip(resources, pod_reqs, strict=True):
        name = r.name
        if name == CPU or name == MEMORY:
            if node_alloc is None or node_req is None:
                node_alloc = [ni.node.allocatable for ni in infos]
                node_req = [ni.requested for ni in infos] if use_requested else [ni.non_zero_requested for ni in infos]
            if name == CPU:
                allocs.append([a.milli_cpu for a in node_alloc])
                reqs.append([q.milli_cpu + pr for q in node_req])
            else:
                allocs.append([a.memory for a in node_alloc])
                reqs.append([q.memory + pr for q in node_req])
        else:
            pairs = [allocatable_and_requested(ni, name, pr, use_requested) for ni in infos]
            allocs.append([a for a, _ in pairs])
            reqs.append([q for _, q in pairs])
    try:
        alloc = np.array(allocs, dtype=np.int64).reshape(len(allocs), len(infos))
        req = np.array(reqs, dtype=np.int64).reshape(len(reqs), len(infos))
    except OverflowError:
        return None
    if alloc.size and (
        int(alloc.min()) < 0
        or int(req.min()) < 0
        or int(alloc.max()) >= _RESOURCE_LIMIT
        or int(req.max()) >= _RESOURCE_LIMIT
    ):
        return None
    return alloc, req


def weighted_resource_scores(
    alloc: IntArray, req: IntArray, weights: Sequence[int], most_allocated: bool
) -> IntArray | None:
    """The LeastAllocated (or MostAllocated) strategy's score of each node: per resource with a
    non-zero allocatable its score times its weight, summed, divided by the summed weights
    (Go's integer division: every operand here is non-negative, so floor division is the same).
    None with a weight below 1 (not what validation lets through)."""
    if any(w < 1 for w in weights):
        return None
    nodes = alloc.shape[1]
    total: IntArray = np.zeros(nodes, dtype=np.int64)
    weight_sum: IntArray = np.zeros(nodes, dtype=np.int64)
    for i, w in enumerate(weights):
        a, q = alloc[i], req[i]
        has = a != 0
        safe = np.where(has, a, 1)
        if most_allocated:
            s = np.minimum(q, a) * MAX_NODE_SCORE // safe
        else:
            s = np.where(q > a, 0, (a - q) * MAX_NODE_SCORE // safe)
        total += np.where(has, s * w, 0)
        weight_sum += np.where(has, w, 0)
    out: IntArray = np.where(weight_sum == 0, 0, total // np.where(weight_sum == 0, 1, weight_sum))
    return out


def balanced_scores(alloc: IntArray, req: IntArray) -> IntArray | None:
    """balancedResourceScorer of each node, in float64 as upstream computes it: each resource's
    fraction (at most 1), their standard deviation, (1 - std) * 100 truncated. None unless every
    resource has a non-zero allocatable on every node (the number of fractions is then the same
    everywhere)."""
    n = alloc.shape[0]
    if n == 0 or bool((alloc == 0).any()):
        return None
    fractions = [np.minimum(req[i].astype(np.float64) / alloc[i].astype(np.float64), 1.0) for i in range(n)]
    if n == 1:
        std = np.zeros(alloc.shape[1], dtype=np.float64)
    elif n == 2:
        std = np.abs((fractions[0] - fractions[1]) / 2)
    else:
        total = fractions[0].copy()
        for f in fractions[1:]:
            total = total + f
        mean = total / float(n)
        s = np.zeros(alloc.shape[1], dtype=np.float64)
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = np.sqrt(s / float(n))
    out: IntArray = ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    return out
