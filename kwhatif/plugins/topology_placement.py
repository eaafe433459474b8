"""TopologyPlacementGenerator (pkg/scheduler/framework/plugins/topologyaware/topology_placement.go,
v1.36.2): the placements a pod group's cycle tries. A PodGroup with
``spec.schedulingConstraints.topology`` (the API allows one entry; its key is read) gets one
placement per value of that node label among the parent placement's nodes; nodes without the label
are in none. Once members of the group are scheduled (bound or assumed), only their domain is
generated, and members on different domains, on a node gone from the snapshot or on a node without
the label are an error. A PodGroup without constraints gets the parent placement (every node).

Upstream collects the domains in a Go map, so the order the cycle tries them in is random; kwhatif
generates them in domain-name order (the cycle's "first placement" is then the smallest name).
The conflict message names the two domains in the order the group's scheduled pods are visited,
also a map order upstream; kwhatif visits them by pod key."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kwhatif.api.core import Node
from kwhatif.api.workload import PodGroup
from kwhatif.cache.pod_groups import PodGroupStates
from kwhatif.framework.interface import SUCCESS, Code, Placement, PlacementGeneratePlugin, Status
from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.handle import Handle

NAME = "TopologyPlacementGenerator"


def topology_key(group: PodGroup) -> str | None:
    """getTopologyKey: the first topology constraint's key; None without constraints."""
    return group.topology_keys[0] if group.topology_keys else None


def scheduled_domain(key: str, scheduled: Mapping[str, str], node: Callable[[str], Node | None]) -> tuple[str, str]:
    """getScheduledPodsTopologyDomain over ``scheduled`` (pod key -> node name): the domain, or
    ('', error message)."""
    domain = ""
    for pod_key in sorted(scheduled):
        n = node(scheduled[pod_key])
        if n is None:
            return "", (f'getting node for pod {pod_key}: nodeinfo not found for node name "{scheduled[pod_key]}"')
        d = n.labels.get(key)
        if d is None:
            return "", f"no topology domain found for pod {pod_key}"
        if domain != "" and domain != d:
            return "", f"more than 1 domain found for pod group: {domain}, {d}"
        domain = d
    return domain, ""


def generate(
    group: PodGroup,
    parent: Placement,
    scheduled: Mapping[str, str],
    node: Callable[[str], Node | None],
) -> tuple[list[Placement], Status]:
    """GeneratePlacements for ``group`` given its scheduled members (pod key -> node name) and the
    node lookup of the snapshot."""
    key = topology_key(group)
    if key is None:
        return [parent], SUCCESS
    required: str | None = None
    if scheduled:
        d, err = scheduled_domain(key, scheduled, node)
        if err:
            return [], Status(Code.ERROR, (f"cannot determine domain for already scheduled pods: {err}",))
        required = d
    by_domain: dict[str, list[str]] = {}
    for name in parent.nodes:
        n = node(name)
        if n is None:
            continue
        value = n.labels.get(key)
        if value is not None and (required is None or required == value):
            by_domain.setdefault(value, []).append(name)
    return [Placement(v, tuple(by_domain[v])) for v in sorted(by_domain)], SUCCESS


class TopologyPlacement(PlacementGeneratePlugin):
    NAME = NAME

    def __init__(self, handle: Handle, groups: Mapping[str, PodGroup], states: PodGroupStates) -> None:
        self.handle = handle
        self.groups = groups
        self.states = states

    def generate_placements(self, namespace: str, group: str, parent: Placement) -> tuple[list[Placement], Status]:
        pg = self.groups.get(f"{namespace}/{group}")
        if pg is None:
            return [], Status(Code.ERROR, (f'podgroup.scheduling.k8s.io "{group}" not found',))
        snap = self.handle.snapshot
        scheduled: dict[str, str] = {}
        state = self.states.get(namespace, group)
        if state is not None and topology_key(pg) is not None:
            wanted = state.assigned | state.assumed
            if wanted:
                # (a pod bound to a node that is not there is left out of the cluster altogether)
                for pi in snap.pods_in(namespace):
                    if pi.pod.key in wanted:
                        scheduled[pi.pod.key] = pi.pod.node_name

        def node(name: str) -> Node | None:
            ni = snap.get(name)
            return ni.node if ni is not None else None

        return generate(pg, parent, scheduled, node)


def new(args: None, handle: Handle) -> TopologyPlacement:
    cluster = handle.cluster
    return TopologyPlacement(handle, cluster.pod_groups, cluster.pod_group_states)


INFO = PluginInfo(NAME)
