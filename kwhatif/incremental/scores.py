"""Scores over vectors: the normalizations of the node-local score plugins, and the table of a
cycle's scores that builds each node's NodeScores only when it is read."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping

import numpy as np
import numpy.typing as npt

from kwhatif.framework.types import NodeScores, PluginScore
from kwhatif.incremental.nodes import IntArray

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
