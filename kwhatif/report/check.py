"""CheckReport: per workload, how many pods were wanted, placed and not placed, and why not."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kwhatif.errors import ExitCode
from kwhatif.report.model import (
    API_VERSION,
    PodResult,
    PodStatus,
    ScheduleReport,
    report_dict,
    result_dict,
    version_fields,
    version_suffix,
)

_SOURCE_LINE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?: \(items\[(?P<item>\d+)\]\))?$")


@dataclass(frozen=True, slots=True)
class WorkloadEntry:
    kind: str
    namespace: str
    name: str
    source: str
    desired: int
    placed: int
    not_placed: int
    dominant_reason: str | None
    message: str | None  # the FitError message of its first pod that did not fit
    replaced: int
    notes: tuple[str, ...]
    results: tuple[PodResult, ...]

    @property
    def evicts(self) -> list[str]:
        """Running pods its pods would preempt, on any of their attempts."""
        return [f"{v.namespace}/{v.name}" for r in self.results for v in r.victims]

    @property
    def fits(self) -> bool:
        return self.not_placed == 0

    def file_and_line(self) -> tuple[str, int]:
        m = _SOURCE_LINE.match(self.source)
        if m:
            return m.group("file"), int(m.group("line"))
        return self.source.split(" (")[0], 1


@dataclass(frozen=True, slots=True)
class CheckReport:
    schedule: ScheduleReport
    workloads: tuple[WorkloadEntry, ...]
    kind: str = "CheckReport"

    @property
    def return_code(self) -> ExitCode:
        return ExitCode.OK if all(w.fits for w in self.workloads) else ExitCode.UNSCHEDULABLE

    def to_dict(self) -> dict[str, Any]:
        sched = report_dict(self.schedule)
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind,
            "profile": self.schedule.profile,
            **version_fields(self.schedule.scheduler_version),
            "workloads": [
                {
                    "kind": w.kind,
                    "namespace": w.namespace,
                    "name": w.name,
                    "source": w.source,
                    "desired": w.desired,
                    "placed": w.placed,
                    "notPlaced": w.not_placed,
                    "dominantReason": w.dominant_reason,
                    "message": w.message,
                    "replaced": w.replaced,
                    "evicts": w.evicts,
                    "notes": list(w.notes),
                }
                for w in self.workloads
            ],
            "results": [result_dict(r) for r in self.schedule.results],
            "summary": {
                "workloads": len(self.workloads),
                "fit": sum(1 for w in self.workloads if w.fits),
                "doNotFit": sum(1 for w in self.workloads if not w.fits),
                "pods": sched["summary"]["pods"],
                "placed": sched["summary"]["scheduled"],
                "notPlaced": sched["summary"]["pods"] - sched["summary"]["scheduled"],
                "preempted": sched["summary"]["preempted"],
            },
            "notes": list(self.schedule.notes),
        }

    def render_table(self, fmt: Any) -> str:
        from tabulate import tabulate

        rows = []
        for w in self.workloads:
            verdict = "fits" if w.fits else "DOES NOT FIT"
            rows.append([f"{w.kind}", f"{w.namespace}/{w.name}", str(w.desired), str(w.placed), str(w.not_placed), verdict, w.dominant_reason or ""])
        table = tabulate(rows, headers=["KIND", "WORKLOAD", "DESIRED", "PLACED", "NOT PLACED", "VERDICT", "DOMINANT REASON"], tablefmt="plain", disable_numparse=True)
        out = [table]
        for w in self.workloads:
            if not w.fits and w.message:
                block = [f"{w.kind} {w.namespace}/{w.name} ({w.source}): {w.not_placed} of {w.desired} pods do not fit", f"  {w.message}"]
                first = next((r for r in w.results if r.status is not PodStatus.SCHEDULED), None)
                if first is not None:
                    block.extend(f"  hint: {h}" for h in first.hints)
                out.append("\n".join(block))
        notes = [
            f"preemption: {w.kind} {w.namespace}/{w.name} evicts {', '.join(w.evicts)}" for w in self.workloads if w.evicts
        ]
        notes += [f"note: {w.kind} {w.namespace}/{w.name}: {n}" for w in self.workloads for n in w.notes]
        notes += [f"note: {n}" for n in self.schedule.notes]
        if notes:
            out.append("\n".join(notes))
        fits = sum(1 for w in self.workloads if w.fits)
        out.append(
            f"{fits}/{len(self.workloads)} workloads fit (profile {self.schedule.profile}, {self.schedule.num_nodes} nodes"
            f"{version_suffix(self.schedule.scheduler_version)})"
        )
        return "\n\n".join(out) + "\n"

    def render_markdown(self, fmt: Any) -> str:
        fits = sum(1 for w in self.workloads if w.fits)
        lines = [f"### kwhatif check: {fits}/{len(self.workloads)} workloads fit", "",
                 f"Profile `{self.schedule.profile}`, {self.schedule.num_nodes} nodes"
                 f"{version_suffix(self.schedule.scheduler_version)}.", "",
                 "| Workload | Desired | Placed | Not placed | Why not |", "|---|---|---|---|---|"]
        for w in self.workloads:
            icon = "✅" if w.fits else "❌"
            why = (w.dominant_reason or "").replace("|", "\\|")
            if w.evicts:
                why = (why + "; " if why else "") + "evicts " + ", ".join(f"`{p}`" for p in w.evicts)
            lines.append(f"| {icon} {w.kind} `{w.namespace}/{w.name}` | {w.desired} | {w.placed} | {w.not_placed} | {why} |")
        lines.append("")
        for w in self.workloads:
            if not w.fits and w.message:
                lines += [f"<details><summary>{w.kind} <code>{w.namespace}/{w.name}</code></summary>", "", w.message.replace("|", "\\|"), "", "</details>", ""]
        return "\n".join(lines).rstrip() + "\n"

    def render_junit(self, fmt: Any) -> str:
        import xml.etree.ElementTree as ET

        from kwhatif.report.junit import junit_document

        suite = ET.Element("testsuite", {
            "name": f"kwhatif.check.{self.schedule.profile}", "tests": str(len(self.workloads)),
            "failures": str(sum(1 for w in self.workloads if not w.fits)), "errors": "0",
        })
        for w in self.workloads:
            case = ET.SubElement(suite, "testcase", {"classname": f"{w.kind}.{w.namespace}", "name": w.name, "file": w.file_and_line()[0]})
            if w.fits:
                out = ET.SubElement(case, "system-out")
                out.text = f"{w.placed}/{w.desired} pods placed"
            else:
                f = ET.SubElement(case, "failure", {"message": f"{w.not_placed} of {w.desired} pods do not fit: {w.dominant_reason or ''}", "type": "Unschedulable"})
                f.text = w.message or ""
        return junit_document(suite)

    def render_github(self, fmt: Any) -> str:
        """GitHub Actions workflow commands: an error annotation on the manifest line of every
        workload that does not fit, and a notice summing up."""
        lines = []
        for w in self.workloads:
            if w.fits:
                continue
            file, line = w.file_and_line()
            title = f"{w.kind} {w.namespace}/{w.name}: {w.not_placed} of {w.desired} pods do not fit"
            msg = w.message or w.dominant_reason or "does not fit"
            lines.append(f"::error file={_esc_prop(file)},line={line},title={_esc_prop(title)}::{_esc_data(msg)}")
        fits = sum(1 for w in self.workloads if w.fits)
        lines.append(f"::notice title=kwhatif check::{fits}/{len(self.workloads)} workloads fit on {self.schedule.num_nodes} nodes")
        return "\n".join(lines) + "\n"


def _esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _esc_prop(s: str) -> str:
    return _esc_data(s).replace(":", "%3A").replace(",", "%2C")


def dominant_reason(results: list[PodResult]) -> str | None:
    """The reason that turned away most nodes across the workload's pods that did not fit."""
    counts: Counter[str] = Counter()
    for r in results:
        if r.status is PodStatus.SCHEDULED:
            continue
        if r.status is PodStatus.GATED:
            counts[r.message or "gated"] += 1
            continue
        for n in r.nodes:
            f = n.upstream_failure
            if f is not None and not n.excluded:
                counts.update(f.reasons)
        if not r.nodes:
            counts.update(r.reason_counts)
        for f in r.pre_filter:
            counts.update(f.reasons)
    if not counts:
        return None
    best = max(counts.values())
    return sorted(k for k, v in counts.items() if v == best)[0]


def check_report(result: Any, schedule: ScheduleReport) -> CheckReport:
    by_pod = {str(r.pod): r for r in schedule.results}
    entries = []
    for w in result.workloads:
        results = tuple(by_pod[f"{p.namespace}/{p.name}"] for p in w.pods if f"{p.namespace}/{p.name}" in by_pod)
        placed = sum(1 for r in results if r.status is PodStatus.SCHEDULED)
        first_bad = next((r for r in results if r.status is not PodStatus.SCHEDULED), None)
        entries.append(
            WorkloadEntry(
                kind=w.kind,
                namespace=w.namespace,
                name=w.name,
                source=w.source,
                desired=w.desired,
                # pods a DaemonSet already runs (kept with --surge) count as placed
                placed=placed + max(0, w.desired - len(w.pods)),
                not_placed=len(w.pods) - placed,
                dominant_reason=dominant_reason(list(results)),
                message=first_bad.message if first_bad else None,
                replaced=w.replaced,
                notes=tuple(w.notes),
                results=results,
            )
        )
    return CheckReport(schedule, tuple(entries))
