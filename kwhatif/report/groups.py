"""The group level of a report: one entry per Workload pod group whose pods were scheduled.

A group's verdict is the PodGroupScheduled condition kube-scheduler wrote on it (Scheduled, or
Unschedulable / SchedulerError), or Waiting when its pods never left the queue (GangScheduling's
PreEnqueue: the PodGroup is missing, or fewer than minCount pods exist). For a group that cannot
start, ``why`` gives, per node, the filter reasons of the members that did not fit, and ``lacks``
what the closest placement (the members that fit together in the last pod-group cycle) is short of.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kwhatif.api.core import Pod
from kwhatif.api.workload import PodGroup
from kwhatif.cache.pod_groups import group_key
from kwhatif.framework.types import FilterResult, NodesFit, PodOutcome
from kwhatif.scheduling.pod_group_cycle import Condition, GroupOutcome

SCHEDULED = "Scheduled"
UNSCHEDULABLE = "Unschedulable"
WAITING = "Waiting"
ERROR = "Error"


class _Attempt(Protocol):
    pod: Pod
    result: PodOutcome
    node: str | None
    message: str
    fit: NodesFit | None


def _filters(a: _Attempt) -> dict[str, FilterResult]:
    return a.fit.filters if a.fit is not None else {}


class _Gang(Protocol):
    outcomes: list[GroupOutcome]
    conditions: dict[str, Condition]
    pod_groups: Mapping[str, PodGroup]


@dataclass(frozen=True, slots=True)
class PlacementEntry:
    """One placement (topology domain) a pod-group cycle tried."""

    name: str
    nodes: int
    feasible: bool
    placed: int  # members placed there
    score: int | None  # PodGroupPodsCount & co., when several placements were feasible
    chosen: bool
    message: str  # the group's status there ('' when feasible)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "nodes": self.nodes,
            "feasible": self.feasible,
            "placed": self.placed,
            "score": self.score,
            "chosen": self.chosen,
            "message": self.message or None,
        }


@dataclass(frozen=True, slots=True)
class GroupEntry:
    pod_group: str  # "namespace/name"
    workload: str | None  # the Workload its podGroupTemplateRef names
    template: str
    policy: str  # "gang" | "basic" | "" (no PodGroup object)
    min_count: int
    pods: int  # members in this run
    placed: int
    verdict: str
    message: str
    nodes: tuple[tuple[str, int], ...] = ()  # where the placed members went, by node
    condition: Condition | None = None
    why: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()  # node -> (reason, members)
    fit_together: int = 0  # members that fit in the last pod-group cycle's snapshot
    lacks: str = ""
    # TopologyAwareWorkloadScheduling: the placements the last pod-group cycle tried
    placements: tuple[PlacementEntry, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "workload": self.workload,
            "podGroup": self.pod_group,
            "template": self.template or None,
            "policy": self.policy or None,
            "verdict": self.verdict,
            "placed": self.placed,
            "pods": self.pods,
            "minCount": self.min_count,
            "message": self.message or None,
            "nodes": [{"node": n, "pods": c} for n, c in self.nodes],
            "condition": (
                {
                    "type": self.condition.type,
                    "status": self.condition.status,
                    "reason": self.condition.reason,
                    "message": self.condition.message,
                }
                if self.condition is not None
                else None
            ),
            "fitTogether": self.fit_together,
            "why": [{"node": n, "reasons": [{"reason": r, "pods": c} for r, c in rs]} for n, rs in self.why],
            "lacks": self.lacks or None,
        }
        if self.placements is not None:
            d["placements"] = [p.to_dict() for p in self.placements]
        return d


def group_entries(attempts: Sequence[_Attempt], gang: _Gang) -> list[GroupEntry]:
    """One entry per pod group among the attempts' pods, by group key."""
    last: dict[str, _Attempt] = {}
    for a in attempts:
        last[a.pod.key] = a
    members: dict[str, list[_Attempt]] = {}
    for a in last.values():
        key = group_key(a.pod)
        if key:
            members.setdefault(key, []).append(a)
    outcomes: dict[str, GroupOutcome] = {}
    for o in gang.outcomes:
        outcomes[o.key] = o
    return [
        _entry(key, members[key], gang.pod_groups.get(key), gang.conditions.get(key), outcomes.get(key))
        for key in sorted(members)
    ]


def _entry(
    key: str, atts: list[_Attempt], group: PodGroup | None, cond: Condition | None, last_cycle: GroupOutcome | None
) -> GroupEntry:
    placed = [a for a in atts if a.result is PodOutcome.SCHEDULED and a.node]
    nodes = Counter(a.node for a in placed if a.node)
    policy = "" if group is None else ("gang" if group.policy.gang else "basic")
    min_count = group.policy.min_count if group is not None and group.policy.gang else 0
    if cond is not None:
        verdict = SCHEDULED if cond.status == "True" else (UNSCHEDULABLE if cond.reason == "Unschedulable" else ERROR)
        message = cond.message
    elif all(a.result is PodOutcome.GATED for a in atts):
        verdict, message = WAITING, atts[0].message
    else:
        verdict = SCHEDULED if len(placed) == len(atts) else UNSCHEDULABLE
        message = ""
    why: dict[str, Counter[str]] = {}
    unfit = [a for a in atts if a.result is not PodOutcome.SCHEDULED and not _fit_alone(a)]
    for a in unfit:
        for node, fr in _filters(a).items():
            if fr.first is None:
                continue
            for r in fr.first.reasons:
                why.setdefault(node, Counter())[r] += 1
    fit = len(last_cycle.fit) if last_cycle is not None else len(placed)
    lacks = ""
    if verdict != SCHEDULED:
        lacks = _lacks(verdict, fit, min_count, len(atts), len(unfit), why, message)
    return GroupEntry(
        pod_group=key,
        workload=f"{group.namespace}/{group.workload_name}" if group is not None and group.workload_name else None,
        template=group.template_name if group is not None else "",
        policy=policy,
        min_count=min_count,
        pods=len(atts),
        placed=len(placed),
        verdict=verdict,
        message=message,
        nodes=tuple(sorted(nodes.items())),
        condition=cond,
        why=tuple((n, tuple(sorted(c.items(), key=lambda rc: (-rc[1], rc[0])))) for n, c in sorted(why.items())),
        fit_together=fit,
        lacks=lacks,
        placements=_placements(last_cycle),
    )


def _placements(last_cycle: GroupOutcome | None) -> tuple[PlacementEntry, ...] | None:
    record = last_cycle.placements if last_cycle is not None else None
    if record is None:
        return None
    return tuple(
        PlacementEntry(
            t.name,
            t.nodes,
            t.feasible,
            t.placed,
            t.score,
            t.name == record.chosen,
            "" if t.feasible else t.status.message(),
        )
        for t in record.tried
    )


def _fit_alone(a: _Attempt) -> bool:
    """A member that fit in the snapshot but was not bound because its group was not."""
    return any(fr.first is None for fr in _filters(a).values()) and not a.message.startswith("0/")


def _lacks(
    verdict: str, fit: int, min_count: int, pods: int, unfit: int, why: dict[str, Counter[str]], message: str
) -> str:
    """What the closest placement lacks; ``why``: per node, the reasons of the ``unfit`` members."""
    if verdict == WAITING:
        if min_count and pods < min_count:
            return f"{min_count - pods} more pod(s) of the group to exist: minCount is {min_count}, {pods} known"
        return message
    need = min_count if min_count else 1
    if fit >= need:
        return ""
    nodes: dict[str, set[str]] = {}
    for name, reasons in why.items():
        for r in reasons:
            nodes.setdefault(r, set()).add(name)
    top = sorted(nodes.items(), key=lambda rn: (-len(rn[1]), rn[0]))[:3]
    text = f"{need - fit} more pod(s) running at once: {fit} of minCount {need} fit together"
    if unfit:
        because = ", ".join(f"{r} on {len(ns)} node(s)" for r, ns in top)
        text += f", {unfit} fit on no node" + (f" ({because})" if because else "")
    return text


def group_dicts(groups: Iterable[GroupEntry]) -> list[dict[str, Any]]:
    return [g.to_dict() for g in groups]
