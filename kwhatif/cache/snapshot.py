"""The scheduler cache and its Snapshot: NodeInfo for every node, image states, pod locations.

Upstream keeps a cache and takes a Snapshot per cycle; kwhatif schedules one pod at a time over a
single Snapshot and applies assume/forget to it directly, which gives the same view: each cycle
sees every earlier placement and nothing of a forgotten one. Preemption's dry runs work on clones
of NodeInfo, never on the snapshot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from kwhatif.api.core import Node, Pod
from kwhatif.cache.node_info import AffinityTerm, ImageStateSummary, NodeInfo, PodInfo, WeightedAffinityTerm, pod_id
from kwhatif.errors import InputError

# One change of the snapshot: the node, the pod added (+1) or removed (-1), or no pod and 0 when
# the node object itself was replaced.
Change = tuple[NodeInfo, "PodInfo | None", int]


_PROGRESS_MIN_PODS = 20_000  # fewer pods are indexed too fast to show progress


def _list_order(pod: Pod) -> tuple[str, str]:
    return (pod.namespace, pod.name)


class Snapshot:
    def __init__(self, nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> None:
        self.node_infos: list[NodeInfo] = [NodeInfo(n) for n in sorted(nodes, key=lambda n: n.name)]
        self._by_name: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_infos}
        self.names: frozenset[str] = frozenset(self._by_name)
        self._where: dict[str, str] = {}
        self._used_pvcs: dict[str, int] = {}
        self._affinity_lists: tuple[list[NodeInfo], list[NodeInfo]] | None = None
        self._by_namespace: dict[str, dict[str, PodInfo]] = {}  # namespace -> pod id -> PodInfo
        # the pods with affinity by the terms InterPodAffinity's scores read of them (replicas
        # share them: PodInfo.of): the ids of the three tuples -> [the tuples, node name -> how
        # many of its pods have them]. A score works each distinct set of terms out once, and
        # reads the nodes only of the sets that match.
        self._term_groups: dict[tuple[int, int, int], TermGroup] = {}
        self.generation = 0  # bumped by every add/remove, so callers can tell nothing changed
        # Every add and remove after start_changes(), in order, for readers that keep their own
        # aggregates up to date (the incremental engine) instead of recounting.
        self.changes: list[Change] | None = None
        self._build_image_states()
        # Each node's pods in API-server LIST order (namespace, then name), whatever order the
        # files, dump or live pages gave them in: a starting kube-scheduler fills its cache from
        # the informer's LIST, and that order is the order preemption walks a node's pods, sorts
        # them (an unstable sort: equal pods keep an order that depends on it) and gives them
        # back, so it decides which of several equal pods are evicted. Pods placed later during a
        # run are appended, as upstream's cache appends them. (The fake clientset of the reference
        # runs sorts the same way; etcd compares whole "namespace/name" keys, which differs only
        # for a namespace that is a prefix of another followed by "-" or ".".)
        pods = sorted(pods, key=_list_order)
        if len(pods) < _PROGRESS_MIN_PODS:
            for pod in pods:
                self.add_pod(pod)
            return
        from kwhatif import progress

        with progress.task("indexing pods", len(pods), "pods") as task:
            for i, pod in enumerate(pods):
                self.add_pod(pod)
                if not i & 1023:
                    task.update(i)

    def _build_image_states(self) -> None:
        # cache.addNodeImageStates: one summary per image name, shared by every node holding it;
        # its size is that of the first node that reported the image.
        states: dict[str, ImageStateSummary] = {}
        for ni in self.node_infos:
            seen: dict[str, ImageStateSummary] = {}
            for image in ni.node.images:
                for name in image.names:
                    st = states.get(name)
                    if st is None:
                        st = states[name] = ImageStateSummary(image.size_bytes, 0)
                    if name not in seen:
                        st.num_nodes += 1
                        seen[name] = st
            ni.image_states = seen

    # --- reads --------------------------------------------------------------------------------

    @property
    def num_nodes(self) -> int:
        return len(self.node_infos)

    def get(self, name: str) -> NodeInfo | None:
        return self._by_name.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def pods(self) -> Iterator[PodInfo]:
        for ni in self.node_infos:
            yield from ni.pods

    def node_of(self, pod: Pod) -> str | None:
        return self._where.get(pod_id(pod))

    def _lists(self) -> tuple[list[NodeInfo], list[NodeInfo]]:
        if self._affinity_lists is None:
            self._affinity_lists = (
                [ni for ni in self.node_infos if ni.pods_with_affinity],
                [ni for ni in self.node_infos if ni.pods_with_required_anti_affinity],
            )
        return self._affinity_lists

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        return self._lists()[0]

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        return self._lists()[1]

    def affinity_term_groups(self) -> Iterable[TermGroup]:
        """The snapshot's pods with affinity, grouped by their terms: each group's required
        affinity terms, preferred affinity terms, preferred anti-affinity terms, and how many of
        each node's pods have them."""
        return self._term_groups.values()

    def is_pvc_used_by_pods(self, key: str) -> bool:
        return self._used_pvcs.get(key, 0) > 0

    def namespaces(self) -> Iterable[str]:
        """The namespaces the snapshot's pods run in."""
        return self._by_namespace.keys()

    def pods_in(self, namespace: str) -> Iterable[PodInfo]:
        """The snapshot's pods in one namespace."""
        return self._by_namespace.get(namespace, {}).values()

    def start_changes(self) -> list[Change]:
        """Record every later add and remove (NodeInfo, PodInfo, +1 or -1) and node replacement
        (NodeInfo, None, 0) in the returned list."""
        if self.changes is None:
            self.changes = []
        return self.changes

    # --- writes -------------------------------------------------------------------------------

    def add_pod(self, pod: Pod) -> PodInfo:
        ni = self._by_name.get(pod.node_name)
        if ni is None:
            raise InputError(
                f'node "{pod.node_name}" is not in the cluster', obj=f"Pod {pod.key}", field="spec.nodeName"
            )
        key = pod_id(pod)
        if key in self._where:
            raise InputError(f"pod is already on node {self._where[key]}", obj=f"Pod {pod.key}")
        pi = ni.add_pod(pod)
        self.generation += 1
        self._where[key] = ni.name
        self._track(pod, pi, 1, key)
        if self.changes is not None:
            self.changes.append((ni, pi, 1))
        return pi

    def remove_pod(self, pod: Pod) -> bool:
        key = pod_id(pod)
        node = self._where.pop(key, None)
        if node is None:
            return False
        ni = self._by_name[node]
        found = next((pi for pi in ni.pods if pod_id(pi.pod) == key), None)
        ni.remove_pod(pod)
        self.generation += 1
        if found is not None:
            self._track(found.pod, found, -1, key)
            if self.changes is not None:
                self.changes.append((ni, found, -1))
        return True

    def replace_node(self, node: Node) -> None:
        """Swap a node's object (a cordon), keeping its pods."""
        ni = self._by_name[node.name]
        ni.node = node
        self.generation += 1
        if self.changes is not None:
            self.changes.append((ni, None, 0))

    def add_node(self, node: Node) -> NodeInfo:
        """Add a node with no pods (a what-if's new node: an autoscaler's template copy), after the
        others; its images join the image states."""
        if node.name in self._by_name:
            raise InputError(f'node "{node.name}" is already in the snapshot', obj=f"Node {node.name}")
        ni = NodeInfo(node)
        self.node_infos.append(ni)
        self._by_name[node.name] = ni
        self.names = self.names | {node.name}
        self._affinity_lists = None
        self.generation += 1
        if node.images:
            self._build_image_states()
        return ni

    def remove_node(self, name: str) -> None:
        """Remove a node and its pods (the undo of add_node)."""
        ni = self._by_name.get(name)
        if ni is None:
            return
        for pi in list(ni.pods):
            self.remove_pod(pi.pod)
        # by identity, from the end (where add_node puts them): NodeInfo compares by value
        i = next(k for k in range(len(self.node_infos) - 1, -1, -1) if self.node_infos[k] is ni)
        del self.node_infos[i]
        del self._by_name[name]
        self.names = self.names - {name}
        self._affinity_lists = None
        self.generation += 1
        if ni.node.images:
            self._build_image_states()

    def assume(self, pod: Pod, node_name: str) -> Pod:
        """Place the pod on the node (cache.AssumePod); returns the pod with spec.nodeName set."""
        bound = dataclasses.replace(pod, node_name=node_name, nominated_node_name="")
        self.add_pod(bound)
        return bound

    def forget(self, pod: Pod) -> None:
        self.remove_pod(pod)

    def _track(self, pod: Pod, pi: PodInfo, sign: int, key: str) -> None:
        """The snapshot's own indexes with one pod (``key``: its pod_id) added or removed."""
        with_affinity = pi.has_affinity
        if with_affinity or pi.has_required_anti_affinity:
            self._affinity_lists = None
            if with_affinity:
                self._count_terms(pi, pod.node_name, sign)
        ns = pod.namespace
        if sign > 0:
            in_ns = self._by_namespace.get(ns)
            if in_ns is None:
                in_ns = self._by_namespace[ns] = {}
            in_ns[key] = pi
        else:
            in_ns = self._by_namespace.get(ns)
            if in_ns is not None:
                in_ns.pop(key, None)
                if not in_ns:
                    del self._by_namespace[ns]
        for v in pod.volumes:
            if v.kind == "persistentVolumeClaim":
                k = f"{pod.namespace}/{v.claim_name}"
                n = self._used_pvcs.get(k, 0) + sign
                if n > 0:
                    self._used_pvcs[k] = n
                else:
                    self._used_pvcs.pop(k, None)

    def _count_terms(self, pi: PodInfo, node: str, sign: int) -> None:
        """affinity_term_groups with one pod of ``node`` added (``sign`` 1) or removed (-1). A
        group holds its tuples, so their ids are not reused while it exists."""
        req, pref, anti = pi.required_affinity_terms, pi.preferred_affinity_terms, pi.preferred_anti_affinity_terms
        key = (id(req), id(pref), id(anti))
        group = self._term_groups.get(key)
        if group is None:
            self._term_groups[key] = (req, pref, anti, {node: 1})
            return
        on = group[3]
        n = on.get(node, 0) + sign
        if n:
            on[node] = n
        else:
            del on[node]
            if not on:
                del self._term_groups[key]


# affinity_term_groups' entries: required affinity terms, preferred affinity terms, preferred
# anti-affinity terms, node name -> how many of its pods have them
TermGroup = tuple[
    tuple[AffinityTerm, ...], tuple[WeightedAffinityTerm, ...], tuple[WeightedAffinityTerm, ...], dict[str, int]
]
