"""The shared scorer of NodeResourcesFit and NodeResourcesBalancedAllocation
(noderesources/resource_allocation.go) over the resources their args list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from kwhatif.api import quantity as q
from kwhatif.api.core import Pod
from kwhatif.api.resources import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    MEMORY,
    ContainerRequests,
    is_scalar,
    pod_requests,
)
from kwhatif.cache.node_info import NodeInfo
from kwhatif.config.types import ResourceSpec

_NON_MISSING = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000), MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
# pod_request_list's answers, by the ids of the maps they were read from (held with them)
_REQUEST_LISTS: dict[tuple[Any, ...], tuple[tuple[Any, ...], tuple[int, ...]]] = {}
_REQUEST_LISTS_LIMIT = 4096


def pod_request_list(pod: Pod, resources: Sequence[ResourceSpec], use_requested: bool) -> list[int]:
    """calculatePodResourceRequestList: the pod's request of each scored resource; without
    useRequested, containers that request no cpu/memory count the non-zero defaults."""
    # Pods of one template share their request maps (api/parse.py shares equal maps, and a pod's
    # maps never change): the list is worked out once per the maps it reads, held with it.
    held: tuple[Any, ...]
    if use_requested:
        held = (pod.request_list,)
        policies: tuple[str | None, ...] = ()
    else:
        held = (*(c.requests for c in pod.containers), *(c.requests for c in pod.init_containers), pod.overhead)
        policies = tuple(c.restart_policy for c in pod.init_containers)
    key = (use_requested, len(pod.containers), policies, tuple(r.name for r in resources), *map(id, held))
    got = _REQUEST_LISTS.get(key)
    if got is not None:
        return list(got[1])
    if use_requested:
        reqs = pod.request_list
    else:
        reqs = pod_requests(
            [c.requests for c in pod.containers],
            [ContainerRequests(c.requests, c.restart_policy == "Always") for c in pod.init_containers],
            pod.overhead,
            non_missing=_NON_MISSING,
        )
    out = []
    for r in resources:
        amount = reqs.get(r.name)
        if amount is None:
            out.append(0)
        elif r.name == CPU:
            out.append(q.milli_value(amount))
        else:
            out.append(q.value(amount))
    if len(_REQUEST_LISTS) > _REQUEST_LISTS_LIMIT:
        _REQUEST_LISTS.clear()
    _REQUEST_LISTS[key] = (held, tuple(out))
    return out


def allocatable_and_requested(
    node_info: NodeInfo, resource: str, pod_request: int, use_requested: bool
) -> tuple[int, int]:
    """calculateResourceAllocatableRequest."""
    requested = node_info.requested if use_requested else node_info.non_zero_requested
    if pod_request == 0 and is_scalar(resource):
        return 0, 0
    alloc = node_info.allocatable
    if resource == CPU:
        return alloc.milli_cpu, requested.milli_cpu + pod_request
    if resource == MEMORY:
        return alloc.memory, requested.memory + pod_request
    if resource == EPHEMERAL_STORAGE:
        return alloc.ephemeral_storage, node_info.requested.ephemeral_storage + pod_request
    if resource in alloc.scalar:
        return alloc.scalar[resource], node_info.requested.scalar.get(resource, 0) + pod_request
    return 0, 0


Scorer = Callable[[list[int], list[int]], int]


def resource_allocation_score(
    node_info: NodeInfo,
    resources: Sequence[ResourceSpec],
    pod_reqs: Sequence[int],
    use_requested: bool,
    scorer: Scorer,
) -> int:
    requested = [0] * len(resources)
    allocatable = [0] * len(resources)
    for i, r in enumerate(resources):
        alloc, req = allocatable_and_requested(node_info, r.name, pod_reqs[i], use_requested)
        if alloc == 0:
            continue
        allocatable[i] = alloc
        requested[i] = req
    return scorer(requested, allocatable)
