"""Shared setup of the autoscaler tests: a cluster, a simulator over it, template nodes and pods
built as cluster-autoscaler's test utilities build them (utils/test/test_utils.go)."""

from __future__ import annotations

import dataclasses
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import Node, Pod
from kwhatif.autoscaler.simulator import Simulator
from kwhatif.autoscaler.template import Template
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.config.options import Options
from kwhatif.scheduling.scheduler import Scheduler

from builders import PINNED, make_pod

MIB = 2**20


def ca_node(name: str, milli_cpu: int, mem_mib: int, pods: int = 110, zone: str = "", **extra: str) -> Node:
    """makeNode/BuildTestNode: capacity = allocatable, cpu in millicores, memory in MiB."""
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    res = {"cpu": f"{milli_cpu}m", "memory": str(mem_mib * MIB), "pods": str(pods), **extra}
    return parse.node(
        {"metadata": {"name": name, "labels": labels}, "spec": {}, "status": {"capacity": res, "allocatable": res}}
    )


def ca_pod(
    name: str,
    milli_cpu: int,
    mem_bytes: int,
    *,
    spread: tuple[int, str, int] | None = None,
    host_port: int = 0,
    **labels: str,
) -> dict[str, Any]:
    """BuildTestPod: requests cpu (millicores) and memory (bytes); WithMaxSkew, WithHostPort."""
    b = make_pod().name(name).namespace("universe").labels(**labels)
    b = b.req(cpu=f"{milli_cpu}m", memory=str(mem_bytes))
    if host_port:
        b = b.host_port(host_port)
    if spread is not None:
        skew, key, min_domains = spread
        b = b.spread(skew, key, selector={"matchLabels": {"app": "estimatee"}}, minDomains=min_domains)
    return b.dict()


def copies(d: dict[str, Any], n: int) -> list[Pod]:
    """makePodEquivalenceGroup: ``n`` copies of the pod (named apart: kwhatif's snapshot keeps a
    pod once)."""
    base = make_pod_obj(d)
    return [dataclasses.replace(base, name=f"{base.name}-{i}", uid=f"{base.name}-{i}") for i in range(n)]


def make_pod_obj(d: dict[str, Any]) -> Pod:
    from builders import PodBuilder

    b = PodBuilder()
    b.d = d
    return b.obj()


def simulator(nodes: list[Node], pods: tuple[Pod, ...] = ()) -> Simulator:
    state = ClusterState(nodes={n.name: n for n in nodes}, pods=list(pods), version=PINNED)
    config = default_configuration(PINNED)
    sched = Scheduler(state, config, options=Options(preemption=False, incremental=False, filter_excluded=False))
    return Simulator(sched)


def template(node: Node, pods: tuple[Pod, ...] = (), group: str = "ng") -> Template:
    return Template(group, node, pods, "template")
