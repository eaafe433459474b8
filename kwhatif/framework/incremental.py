"""What the engine looks up about the snapshot besides NodeInfo: node positions, nodes by label
value, and the pods of some namespaces with their node's position."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo
from kwhatif.cache.snapshot import Change, Snapshot

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class PendingDomains:
    """The topology domains (key, value) whose counts moved since a model's Filter answers were
    last taken, and what else those answers read (a minimum per key, whether any pod matches):
    the nodes whose answer may have changed."""

    __slots__ = ("index", "pairs", "everything", "read")

    def __init__(self, index: NodeIndex) -> None:
        self.index = index
        self.pairs: set[tuple[str, str]] = set()
        self.everything = True  # nothing filtered with the model yet
        self.read: object = None  # what the answers read besides the domains' own counts, when taken

    def take(self, read: object) -> set[int] | None:
        """The nodes of the moved domains (None: every node, when ``read`` differs from the last
        call's), and start collecting again."""
        if self.everything or read != self.read:
            out: set[int] | None = None
        else:
            out = set()
            nodes_with = self.index.nodes_with
            for key, value in self.pairs:
                out.update(nodes_with(key, value))
        self.pairs.clear()
        self.everything = False
        self.read = read
        return out


class NodeIndex:
    """Nodes by position (the snapshot's node order) and the lookups built on it."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.infos: list[NodeInfo] = snapshot.node_infos
        self.names: list[str] = [ni.name for ni in self.infos]
        self.position: dict[str, int] = {n: i for i, n in enumerate(self.names)}
        # the same as object arrays, to pick many by position at C speed
        self.names_np = np.array(self.names, dtype=object)
        self.infos_np = np.empty(len(self.infos), dtype=object)
        self.infos_np[:] = self.infos
        self.size = len(self.infos)
        self.changes: list[Change] = snapshot.start_changes()
        self.cursor = len(self.changes)
        self.node_version = 0  # bumped when a node object is replaced
        # label key -> (per-node index into values, -1 without the key; values; value -> index)
        self._values: dict[str, tuple[IntArray, list[str], dict[str, int]]] = {}
        self._nodes_with: dict[str, dict[str, list[int]]] = {}
        # label_groups' answers, while the snapshot has as many changes as then
        self._label_groups: dict[frozenset[str] | None, list[tuple[Pod, list[int]]]] = {}
        self._pods_stamp = -1

    def sync(self) -> None:
        """Catch up with the snapshot's changes."""
        changes = self.changes
        end = len(changes)
        if self.cursor == end:
            return
        for i in range(self.cursor, end):
            if changes[i][1] is None:
                # A replaced node may carry other labels: forget everything derived from labels.
                self.node_version += 1
                self._values.clear()
                self._nodes_with.clear()
        self.cursor = end

    # --- labels ---------------------------------------------------------------------------------

    def values_of(self, key: str) -> tuple[IntArray, list[str], dict[str, int]]:
        """Per node, the index of its value of the label among ``values`` (-1 without it)."""
        found = self._values.get(key)
        if found is None:
            of_node = [ni.node.labels.get(key) for ni in self.infos]
            values: list[str] = [v for v in dict.fromkeys(of_node) if v is not None]  # in order of first use
            index: dict[str, int] = {v: j for j, v in enumerate(values)}
            per_node: IntArray = np.array([-1 if v is None else index[v] for v in of_node], dtype=np.int64).reshape(
                self.size
            )
            found = self._values[key] = (per_node, values, index)
        return found

    def nodes_with(self, key: str, value: str) -> list[int]:
        """Positions of the nodes whose label ``key`` has ``value``."""
        by_value = self._nodes_with.get(key)
        if by_value is None:
            by_value = {}
            for pos, ni in enumerate(self.infos):
                v = ni.node.labels.get(key)
                if v is not None:
                    by_value.setdefault(v, []).append(pos)
            self._nodes_with[key] = by_value
        return by_value.get(value, [])

    def has_label(self, key: str) -> BoolArray:
        per_node = self.values_of(key)[0]
        out: BoolArray = per_node >= 0
        return out

    # --- pods -----------------------------------------------------------------------------------

    def label_groups(self, namespaces: frozenset[str] | None) -> list[tuple[Pod, list[int]]]:
        """The snapshot's pods in these namespaces (all pods for None), grouped by what a selector
        or an affinity term reads of a pod: its labels map (replicas share theirs: api.parse),
        its namespace and whether it is being deleted. Per group, one of its pods and the node
        position of each (a node as many times as it has pods of the group). Kept until the
        snapshot next changes: the models of one cycle read the same pods."""
        stamp = len(self.changes)
        if stamp != self._pods_stamp:
            self._label_groups.clear()
            self._pods_stamp = stamp
        found = self._label_groups.get(namespaces)
        if found is not None:
            return found
        # the groups hold a pod each, so the ids of their labels are not reused while they exist;
        # the two sources are walked by two loops of the same body (a shared generator of
        # (pod, position) pairs costs 2% of a first cycle's instructions)
        groups: dict[tuple[int, str, bool], tuple[Pod, list[int]]] = {}
        get = groups.get
        if namespaces is None:
            for pos, ni in enumerate(self.infos):
                for pi in ni.pods:
                    p = pi.pod
                    key = (id(p.labels), p.namespace, p.deleting)
                    g = get(key)
                    if g is None:
                        groups[key] = (p, [pos])
                    else:
                        g[1].append(pos)
        else:
            position = self.position
            for ns in sorted(namespaces):
                for pi in self.snapshot.pods_in(ns):
                    p = pi.pod
                    key = (id(p.labels), ns, p.deleting)
                    g = get(key)
                    if g is None:
                        groups[key] = (p, [position[p.node_name]])
                    else:
                        g[1].append(position[p.node_name])
        out = self._label_groups[namespaces] = list(groups.values())
        return out
