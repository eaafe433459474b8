"""framework.NodeInfo and framework.PodInfo: per-node aggregates the plugins read.

Adding and removing a pod updates every aggregate exactly (requested and non-zero requested
resources, host ports, the pods with (anti-)affinity, PVC reference counts), so an assumed pod is
seen by the next cycle and a forgotten one leaves no trace.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Node, Pod, PodAffinityTerm
from kwhatif.api.labels import Selector
from kwhatif.api.resources import Resource

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


def pod_id(pod: Pod) -> str:
    """What identifies a pod in the cache: its UID, or namespace/name when it has none."""
    return pod.uid or pod.key


def shape(pod: Pod) -> Pod:
    """What decides a pod's placement, without what tells replicas apart: replicas of one
    template have the same shape (the scheduler reuses a failure's answer for them, the
    per-template cache keys its templates by it)."""
    return dataclasses.replace(pod, name="", uid="", creation_timestamp=0.0, source="")


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """framework.AffinityTerm: a pod (anti-)affinity term with its namespaces resolved."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector  # NOTHING when the term has none

    def matches(self, pod: Pod, ns_labels: dict[str, str] | None) -> bool:
        # A missing namespace has no labels: an empty selector still matches it, as in Go.
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def affinity_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    from kwhatif.api.labels import NOTHING

    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((pod.namespace,))
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(
        namespaces=namespaces,
        selector=term.label_selector,
        topology_key=term.topology_key,
        namespace_selector=term.namespace_selector if term.namespace_selector is not None else NOTHING,
    )


_TERMS: dict[tuple[int, str], tuple[Any, tuple[Any, Any, Any, Any]]] = {}


@dataclass(slots=True)
class PodInfo:
    pod: Pod
    required_affinity_terms: tuple[AffinityTerm, ...] = ()
    required_anti_affinity_terms: tuple[AffinityTerm, ...] = ()
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        aff = pod.affinity
        if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
            return cls(pod)
        # replicas share their Affinity (api.parse): their terms (immutable) are made once per
        # Affinity and namespace, the entry holding the Affinity so that its id is not reused
        key = (id(aff), pod.namespace)
        hit = _TERMS.get(key)
        if hit is None or hit[0] is not aff:
            pa, paa = aff.pod_affinity, aff.pod_anti_affinity
            terms = (
                tuple(affinity_term(pod, t) for t in pa.required) if pa else (),
                tuple(affinity_term(pod, t) for t in paa.required) if paa else (),
                tuple(WeightedAffinityTerm(affinity_term(pod, w.term), w.weight) for w in pa.preferred) if pa else (),
                tuple(WeightedAffinityTerm(affinity_term(pod, w.term), w.weight) for w in paa.preferred) if paa else (),
            )
            hit = (aff, terms)
            if len(_TERMS) < 1 << 16:
                _TERMS[key] = hit
        return cls(pod, *hit[1])

    @property
    def has_affinity(self) -> bool:
        aff = self.pod.affinity
        return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.required_anti_affinity_terms)


@dataclass(slots=True)
class ImageStateSummary:
    size: int
    num_nodes: int


class HostPortInfo:
    """framework.HostPortInfo: used host ports by IP, then (protocol, port)."""

    __slots__ = ("ports",)

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        s = self.ports.get(ip)
        if s is not None:
            s.discard((protocol, port))
            if not s:
                del self.ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in s for s in self.ports.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            s = self.ports.get(key)
            if s is not None and pp in s:
                return True
        return False

    def __len__(self) -> int:
        return sum(len(s) for s in self.ports.values())

    def clone(self) -> HostPortInfo:
        c = HostPortInfo()
        c.ports = {k: set(v) for k, v in self.ports.items()}
        return c


@dataclass(slots=True)
class NodeInfo:
    node: Node
    pods: list[PodInfo] = field(default_factory=list)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)
    # the node's name, read on every plugin call: a plain attribute, not a property
    name: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.name = self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod_info(self, pi: PodInfo) -> None:
        self.pods.append(pi)
        if pi.has_affinity:
            self.pods_with_affinity.append(pi)
        if pi.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pi.pod, 1)

    def add_pod(self, pod: Pod) -> PodInfo:
        pi = PodInfo.of(pod)
        self.add_pod_info(pi)
        return pi

    def remove_pod(self, pod: Pod) -> bool:
        """NodeInfo.RemovePod: the last pod takes the removed one's place (order matters to
        preemption, which walks the pods in this order)."""
        key = pod_id(pod)
        removed = _remove_from(self.pods, key)
        if removed is None:
            return False
        _remove_from(self.pods_with_affinity, key)
        _remove_from(self.pods_with_required_anti_affinity, key)
        self._update(removed.pod, -1)
        return True

    def _update(self, pod: Pod, sign: int) -> None:
        r = pod.requests
        req = self.requested
        req.milli_cpu += sign * r.milli_cpu
        req.memory += sign * r.memory
        req.ephemeral_storage += sign * r.ephemeral_storage
        for k, v in r.scalar.items():
            req.scalar[k] = req.scalar.get(k, 0) + sign * v
        self.non_zero_requested.milli_cpu += sign * pod.non0_cpu
        self.non_zero_requested.memory += sign * pod.non0_mem
        for p in pod.host_port_list:  # GetHostPorts of the release (sidecars' ports from 1.34)
            if sign > 0:
                self.used_ports.add(p.host_ip, p.protocol, p.host_port)
            else:
                self.used_ports.remove(p.host_ip, p.protocol, p.host_port)
        for vol in pod.volumes:
            # updatePVCRefCounts counts persistentVolumeClaim volumes only (not ephemeral ones).
            if vol.kind == "persistentVolumeClaim":
                key = f"{pod.namespace}/{vol.claim_name}"
                n = self.pvc_ref_counts.get(key, 0) + sign
                if n > 0:
                    self.pvc_ref_counts[key] = n
                else:
                    self.pvc_ref_counts.pop(key, None)

    def clone(self) -> NodeInfo:
        return NodeInfo(
            node=self.node,
            pods=list(self.pods),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            used_ports=self.used_ports.clone(),
            requested=self.requested.clone(),
            non_zero_requested=self.non_zero_requested.clone(),
            image_states=self.image_states,
            pvc_ref_counts=dict(self.pvc_ref_counts),
        )


def _remove_from(pods: list[PodInfo], key: str) -> PodInfo | None:
    for i, pi in enumerate(pods):
        if pod_id(pi.pod) == key:
            pods[i] = pods[-1]
            pods.pop()
            return pi
    return None
