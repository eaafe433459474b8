"""How many more copies of a pod fit: cluster-capacity's question, answered by scheduling copies
one after another (each sees the earlier ones) until the first copy does not fit.

A copy that could only land by preempting other pods does not fit: capacity counts free room.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field

from kwhatif import progress
from kwhatif.api.core import Pod
from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.node_info import NodeInfo
from kwhatif.framework.types import PodOutcome
from kwhatif.load.files import Document
from kwhatif.report.capacity import NodeUsage
from kwhatif.scheduling.scheduler import Attempt, Scheduler

DEFAULT_MAX_COPIES = 1000


@dataclass(slots=True)
class CapacityResult:
    template: Pod
    fits: int
    per_node: dict[str, int]
    first_failure: str  # FitError message of the first copy that did not fit ("" if none failed)
    reasons: dict[str, int]  # reason -> nodes, of the first failure (as in the FitError histogram)
    stopped_by: str  # "unschedulable" | "preemption" | "limit" | "gated" | "error"
    failed_attempt: Attempt | None = None
    ties: int = 0  # copies placed among several equally good nodes
    notes: list[str] = field(default_factory=list)
    usage: tuple[NodeUsage, ...] = ()  # every node, by name: what is requested before and after the copies


def requested(ni: NodeInfo) -> dict[str, int]:
    req = ni.requested
    out = {"cpu": req.milli_cpu, "memory": req.memory, "pods": len(ni.pods)}
    alloc = ni.allocatable
    if alloc.ephemeral_storage:
        out["ephemeral-storage"] = req.ephemeral_storage
    out.update((k, req.scalar.get(k, 0)) for k in sorted(alloc.scalar))
    return out


def _allocatable(ni: NodeInfo) -> dict[str, int]:
    alloc = ni.allocatable
    out = {"cpu": alloc.milli_cpu, "memory": alloc.memory, "pods": alloc.allowed_pod_number}
    if alloc.ephemeral_storage:
        out["ephemeral-storage"] = alloc.ephemeral_storage
    out.update((k, alloc.scalar[k]) for k in sorted(alloc.scalar))
    return out


def node_usage(
    sched: Scheduler, before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]
) -> tuple[NodeUsage, ...]:
    """Every node of ``before``, by name: its allocatable and its requests before and after (a node
    missing from ``after`` did not change)."""
    return tuple(
        NodeUsage(
            ni.name,
            dict(sorted(ni.node.labels.items())),
            _allocatable(ni),
            before[ni.name],
            after.get(ni.name, before[ni.name]),
        )
        for ni in sorted(sched.snapshot.node_infos, key=lambda ni: ni.name)
        if ni.name in before
    )


def copy_of(template: Pod, i: int) -> Pod:
    name = f"{template.name}-{i:03d}" if i < 1000 else f"{template.name}-{i}"
    return dataclasses.replace(template, name=name, uid=f"kwhatif-capacity-{template.namespace}-{name}", node_name="")


def measure(sched: Scheduler, template: Pod, max_copies: int = DEFAULT_MAX_COPIES) -> CapacityResult:
    per_node: Counter[str] = Counter()
    ties = 0
    # "after" is read once a copy is placed: a later copy that preempts changes the snapshot
    before = {ni.name: requested(ni) for ni in sched.snapshot.node_infos}
    after: dict[str, dict[str, int]] = {}
    task = progress.task("placing copies", max_copies, "copies")
    for i in range(max_copies):
        task.update(i)
        att = sched.schedule_one(copy_of(template, i))
        if att.result is PodOutcome.SCHEDULED and att.node:
            per_node[att.node] += 1
            placed_on = sched.snapshot.get(att.node)
            if placed_on is not None:
                after[att.node] = requested(placed_on)
            if att.prioritized is not None and len(att.prioritized.best) > 1:
                ties += 1
            continue
        task.close()
        reasons: Counter[str] = Counter()
        fit = att.fit
        if fit is not None:
            for name, fr in fit.filters.items():
                if name in fit.excluded or fr.first is None:
                    continue
                for r in fr.first.reasons:
                    reasons[r] += 1
        if fit is not None and fit.at_pre_filter:
            for r in fit.pre_filter.status.reasons:
                reasons[r] = sched.snapshot.num_nodes
        stopped = {PodOutcome.GATED: "gated", PodOutcome.ERROR: "error"}.get(att.result, "unschedulable")
        if att.nominated_node:
            stopped = "preemption"
        res = CapacityResult(
            template,
            i,
            dict(sorted(per_node.items())),
            att.message,
            dict(sorted(reasons.items())),
            stopped,
            att,
            ties,
            usage=node_usage(sched, before, after),
        )
        if att.nominated_node:
            victims = ", ".join(v.key for v in att.victims)
            res.notes.append(f"the next copy would only fit on {att.nominated_node} by preempting {victims}")
        return res
    task.close()
    return CapacityResult(
        template,
        max_copies,
        dict(sorted(per_node.items())),
        "",
        {},
        "limit",
        None,
        ties,
        [f"stopped after {max_copies} copies (--max); more may fit"],
        node_usage(sched, before, after),
    )


def template_of(
    state: ClusterState, docs: list[Document], path: str, *, profile: str | None = None
) -> tuple[Pod, str | None]:
    """The pod to copy (see load.pods.capacity_template), with --profile as its scheduler, and a
    note saying where it came from."""
    from kwhatif.controlplane.controllers.pods import capacity_template

    template, origin = capacity_template(docs, state, path)
    if profile:
        template = dataclasses.replace(template, scheduler_name=profile)
    return template, origin
