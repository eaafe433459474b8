"""DrainReport: for each pod on the drained nodes, what drain does and where its replacement lands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kwhatif.errors import ExitCode
from kwhatif.report.model import API_VERSION, PodResult, attempt_dict, pod_outcome, pod_result, version_fields
from kwhatif.versions import ChosenVersion


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


@dataclass(frozen=True, slots=True)
class DrainReport:
    nodes: tuple[str, ...]
    profile: str
    entries: tuple[DrainEntry, ...]
    kind: str = "DrainReport"
    scheduler_version: ChosenVersion | None = None
    notes: tuple[str, ...] = ()

    @property
    def evicted(self) -> list[DrainEntry]:
        return [e for e in self.entries if e.action == "evict"]

    @property
    def return_code(self) -> ExitCode:
        ok = all(e.node is not None and not e.pdb_blocked for e in self.evicted if not e.lost)
        ok = ok and not any(e.pdb_blocked for e in self.entries)
        return ExitCode.OK if ok else ExitCode.UNSCHEDULABLE

    def summary(self) -> dict[str, int]:
        ev = self.evicted
        return {
            "pods": len(self.entries),
            "evicted": sum(1 for e in ev if not e.pdb_blocked),
            "placed": sum(1 for e in ev if e.node is not None and not e.lost),
            "notPlaced": sum(1 for e in ev if e.node is None and not e.pdb_blocked and not e.lost),
            "lost": sum(1 for e in ev if e.lost),
            "pdbBlocked": sum(1 for e in ev if e.pdb_blocked),
            "skipped": sum(1 for e in self.entries if e.action != "evict"),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind,
            "profile": self.profile,
            **version_fields(self.scheduler_version),
            "nodes": list(self.nodes),
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
                    "node": e.node,
                    "message": e.message,
                    # the replacement's scheduling attempts, as in a ScheduleReport's results
                    "attempts": [attempt_dict(a) for a in e.result.all_attempts] if e.result else [],
                }
                for e in self.entries
            ],
            "summary": self.summary(),
            "notes": list(self.notes),
        }

    def render_table(self, fmt: Any) -> str:
        from tabulate import tabulate

        rows = []
        for e in self.entries:
            owner = f"{e.controller[0]}/{e.controller[1]}" if e.controller else "-"
            if e.action != "evict":
                outcome = {"skip-daemonset": "stays (DaemonSet pod)", "skip-mirror": "stays (static pod)"}[e.action]
            elif e.pdb_blocked:
                outcome = f"eviction refused by PodDisruptionBudget {e.pdb_blocked}"
            elif e.lost:
                outcome = "deleted: a bare pod, nothing recreates it (kubectl drain needs --force)"
            elif e.node:
                outcome = f"-> {e.node}"
                if e.result is not None and e.result.victims:
                    victims = ", ".join(f"{v.namespace}/{v.name}" for v in e.result.victims)
                    outcome += f" (attempt {e.result.attempt}, after preempting {victims})"
            else:
                outcome = "DOES NOT FIT: " + (e.message or "")
            flags = "emptyDir data lost" if e.empty_dir and e.action == "evict" and not e.pdb_blocked else ""
            rows.append([f"{e.namespace}/{e.name}", e.from_node, owner, outcome, flags])
        s = self.summary()
        head = f"drain {', '.join(self.nodes)}: {s['evicted']} pods evicted, {s['placed']} replacements placed, " \
               f"{s['notPlaced']} do not fit, {s['pdbBlocked']} blocked by PodDisruptionBudgets, {s['skipped']} stay"
        if self.scheduler_version is not None:
            head += f" ({self.scheduler_version.describe()})"
        body = tabulate(rows, headers=["POD", "FROM", "CONTROLLER", "OUTCOME", ""], tablefmt="plain", disable_numparse=True)
        out = head + "\n\n" + "\n".join("  " + ln for ln in body.splitlines()) + "\n"
        if self.notes:
            out += "\n" + "\n".join(f"note: {n}" for n in self.notes) + "\n"
        return out

    def render_markdown(self, fmt: Any) -> str:
        s = self.summary()
        lines = [f"### kwhatif drain {', '.join(f'`{n}`' for n in self.nodes)}", "",
                 f"{s['placed']} replacements placed, {s['notPlaced']} do not fit, {s['pdbBlocked']} blocked by PDBs.", "",
                 "| Pod | Action | Lands on | Why not |", "|---|---|---|---|"]
        for e in self.entries:
            why = f"PDB `{e.pdb_blocked}`" if e.pdb_blocked else (e.message or "")
            lines.append(f"| `{e.namespace}/{e.name}` | {e.action} | {f'`{e.node}`' if e.node else ''} | {why} |")
        return "\n".join(lines) + "\n"

    def render_junit(self, fmt: Any) -> str:
        import xml.etree.ElementTree as ET

        from kwhatif.report.junit import junit_document

        failures = [e for e in self.evicted if e.pdb_blocked or (e.node is None and not e.lost)]
        suite = ET.Element("testsuite", {"name": "kwhatif.drain", "tests": str(len(self.evicted)), "failures": str(len(failures)), "errors": "0"})
        for e in self.evicted:
            case = ET.SubElement(suite, "testcase", {"classname": e.namespace, "name": e.name})
            if e.pdb_blocked:
                ET.SubElement(case, "failure", {"message": f"eviction refused by PodDisruptionBudget {e.pdb_blocked}", "type": "PDB"})
            elif e.node is None and not e.lost:
                ET.SubElement(case, "failure", {"message": e.message or "", "type": "Unschedulable"})
        return junit_document(suite)


def drain_report(
    result: Any, profile: str, scheduler_version: ChosenVersion | None = None, notes: tuple[str, ...] = ()
) -> DrainReport:
    entries = []
    for d in result.pods:
        attempts = d.attempts or ([d.attempt] if d.attempt is not None else [])
        res = pod_outcome([pod_result(a) for a in attempts]) if attempts else None
        message = res.message if res is not None and res.node is None else None
        entries.append(
            DrainEntry(
                namespace=d.pod.namespace,
                name=d.pod.name,
                from_node=d.pod.node_name,
                action=d.action,
                controller=d.controller,
                lost=d.lost,
                empty_dir=d.empty_dir,
                pdb_blocked=d.pdb_blocked,
                node=d.node,
                message=message,
                result=res,
            )
        )
    return DrainReport(tuple(result.nodes), profile, tuple(entries), scheduler_version=scheduler_version, notes=notes)
