"""DrainReport: for each pod on the drained nodes, what drain does and where its replacement lands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kwhatif.errors import ExitCode
from kwhatif.release.versions import ChosenVersion
from kwhatif.report.base import ReportKind, from_record
from kwhatif.report.capacity import NodeUsage, usage_dict
from kwhatif.report.schedule import API_VERSION, PodResult, attempt_dict, pod_outcome, pod_result, version_fields


@dataclass(frozen=True, slots=True)
class DrainEntry:
    namespace: str
    name: str
    from_node: str
    action: str
    controller: tuple[str, str] | None
    lost: bool
    empty_dir: bool
    pdb_blocked: str | None
    node: str | None
    message: str | None
    result: PodResult | None
    refusal: str | None = None  # action "refused": kubectl drain's error for it


@dataclass(frozen=True, slots=True)
class DrainReport:
    nodes: tuple[str, ...]
    profile: str
    entries: tuple[DrainEntry, ...]
    scheduler_version: ChosenVersion | None = None
    notes: tuple[str, ...] = ()
    usage: tuple[NodeUsage, ...] = ()  # every node: allocatable, requested before and after the drain
    refusals: tuple[tuple[str, str], ...] = ()  # (node, kubectl drain's error) for the nodes drain refuses

    @property
    def evicted(self) -> list[DrainEntry]:
        return [e for e in self.entries if e.action == "evict"]

    @property
    def blocked(self) -> list[DrainEntry]:
        """Pods whose eviction a PodDisruptionBudget refuses: kubectl drain keeps retrying them
        and does not finish."""
        return [e for e in self.entries if e.action == "blocked"]

    @property
    def kind(self) -> ReportKind:
        return ReportKind.DRAIN

    @property
    def exit_code(self) -> ExitCode:
        ok = all(e.node is not None for e in self.evicted if not e.lost) and not self.blocked and not self.refusals
        return ExitCode.OK if ok else ExitCode.UNSCHEDULABLE

    def summary(self) -> dict[str, int]:
        ev = self.evicted
        return {
            "pods": len(self.entries),
            "evicted": len(ev),
            "placed": sum(1 for e in ev if e.node is not None and not e.lost),
            "notPlaced": sum(1 for e in ev if e.node is None and not e.lost),
            "lost": sum(1 for e in ev if e.lost),
            "pdbBlocked": len(self.blocked),
            "skipped": sum(1 for e in self.entries if e.action.startswith("skip-")),
            "refused": sum(1 for e in self.entries if e.action == "refused"),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind.value,
            "profile": self.profile,
            **version_fields(self.scheduler_version),
            "nodes": list(self.nodes),
            # kubectl drain's errors: a node listed here is cordoned and nothing on it is evicted
            "refusals": [{"node": n, "message": m} for n, m in self.refusals],
            "pods": [
                {
                    "namespace": e.namespace,
                    "name": e.name,
                    "fromNode": e.from_node,
                    "action": e.action,
                    "controller": {"kind": e.controller[0], "name": e.controller[1]} if e.controller else None,
                    "lost": e.lost,
                    "emptyDir": e.empty_dir,
                    "pdbBlocked": e.pdb_blocked,
                    "refusal": e.refusal,
                    "node": e.node,
                    "message": e.message,
                    # the replacement's scheduling attempts, as in a ScheduleReport's results
                    "attempts": [attempt_dict(a) for a in e.result.all_attempts] if e.result else [],
                }
                for e in self.entries
            ],
            "summary": self.summary(),
            "notes": list(self.notes),
            # per node: allocatable and requested before and after the drain (units as a CapacityReport's)
            "usage": [usage_dict(u) for u in self.usage],
        }


def drain_report(
    result: Any, profile: str, scheduler_version: ChosenVersion | None = None, notes: tuple[str, ...] = ()
) -> DrainReport:
    entries = []
    for d in result.pods:
        attempts = d.attempts or ([d.attempt] if d.attempt is not None else [])
        res = pod_outcome([pod_result(a) for a in attempts]) if attempts else None
        message = res.message if res is not None and res.node is None else None
        # action, controller, lost, empty_dir, pdb_blocked and node are the drained pod's
        entries.append(
            from_record(
                DrainEntry,
                d,
                namespace=d.pod.namespace,
                name=d.pod.name,
                from_node=d.pod.node_name,
                message=message,
                result=res,
            )
        )
    return DrainReport(
        tuple(result.nodes),
        profile,
        tuple(entries),
        scheduler_version=scheduler_version,
        notes=notes,
        usage=tuple(result.usage),
        refusals=tuple((r.node, r.message) for r in result.refusals),
    )
