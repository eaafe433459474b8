"""CheckReport: per workload, how many pods were wanted, placed and not placed, and why not."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kwhatif.check import FAILURES, WARNINGS, Verdict
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
    desired: int | None  # None: unknown (a custom resource kwhatif cannot expand)
    placed: int
    not_placed: int  # refused ones included
    dominant_reason: str | None
    message: str | None  # the FitError message of its first pod that did not fit, or the refusal
    replaced: int
    notes: tuple[str, ...]
    results: tuple[PodResult, ...]
    verdict: Verdict = Verdict.FITS
    refused: int = 0  # pods the API server refuses to create (LimitRange, quota)

    @property
    def evicts(self) -> list[str]:
        """Running pods its pods would preempt, on any of their attempts."""
        return [f"{v.namespace}/{v.name}" for r in self.results for v in r.victims]

    @property
    def fits(self) -> bool:
        return self.verdict is Verdict.FITS

    @property
    def failed(self) -> bool:
        return self.verdict in FAILURES

    @property
    def warning(self) -> bool:
        return self.verdict in WARNINGS

    @property
    def headline(self) -> str:
        """One line on what went wrong, for annotations and test cases."""
        if self.verdict is Verdict.NOT_CHECKED:
            return f"{self.kind} {self.namespace}/{self.name}: not checked (a custom resource)"
        if self.verdict is Verdict.NO_ELIGIBLE_NODES:
            return f"{self.kind} {self.namespace}/{self.name}: no eligible nodes"
        if self.refused and self.refused == self.not_placed:
            return f"{self.kind} {self.namespace}/{self.name}: {self.refused} of {self._desired} pods {self.verdict}"
        return f"{self.kind} {self.namespace}/{self.name}: {self.not_placed} of {self._desired} pods do not fit"

    @property
    def _desired(self) -> str:
        return "?" if self.desired is None else str(self.desired)

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
    notes: tuple[str, ...] = ()
    strict: bool = False  # warnings (not checked, no eligible nodes) fail the gate

    @property
    def return_code(self) -> ExitCode:
        """The exit policy, in one place: 1 when a workload does not fit or is refused, or
        (--strict) when one could not be checked or has no eligible node."""
        if any(w.failed or (self.strict and w.warning) for w in self.workloads):
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def summary_line(self) -> str:
        if not self.workloads:
            return "no workloads to check"
        checked = [w for w in self.workloads if not w.warning]
        line = f"{sum(1 for w in checked if w.fits)}/{len(checked)} workloads fit"
        no_nodes = sum(1 for w in self.workloads if w.verdict is Verdict.NO_ELIGIBLE_NODES)
        not_checked = sum(1 for w in self.workloads if w.verdict is Verdict.NOT_CHECKED)
        if no_nodes:
            line += f", {no_nodes} with no eligible nodes"
        if not_checked:
            line += f", {not_checked} not checked"
        if self.strict and (no_nodes or not_checked):
            line += " (--strict: they fail)"
        return line

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
                    "refused": w.refused,
                    "verdict": str(w.verdict),
                    "evicts": w.evicts,
                    "notes": list(w.notes),
                }
                for w in self.workloads
            ],
            "results": [result_dict(r) for r in self.schedule.results],
            "notes": list(dict.fromkeys((*self.notes, *self.schedule.notes))),
            "strict": self.strict,
            "summary": {
                "workloads": len(self.workloads),
                "fit": sum(1 for w in self.workloads if w.fits),
                "doNotFit": sum(1 for w in self.workloads if w.failed),
                "warnings": sum(1 for w in self.workloads if w.warning),
                "pods": sched["summary"]["pods"],
                "placed": sched["summary"]["scheduled"],
                "notPlaced": sched["summary"]["pods"] - sched["summary"]["scheduled"],
                "refused": sum(w.refused for w in self.workloads),
                "preempted": sched["summary"]["preempted"],
            },
        }

    def render_table(self, fmt: Any) -> str:
        from tabulate import tabulate

        out = []
        if self.workloads:
            rows = []
            for w in self.workloads:
                unknown = w.verdict is Verdict.NOT_CHECKED
                rows.append([
                    w.kind, f"{w.namespace}/{w.name}", w._desired, "-" if unknown else str(w.placed),
                    "-" if unknown else str(w.not_placed), str(w.verdict), w.dominant_reason or "",
                ])
            out.append(tabulate(
                rows, headers=["KIND", "WORKLOAD", "DESIRED", "PLACED", "NOT PLACED", "VERDICT", "DOMINANT REASON"],
                tablefmt="plain", disable_numparse=True,
            ))
        for w in self.workloads:
            if w.failed and w.message:
                block = [f"{w.kind} {w.namespace}/{w.name} ({w.source}): {w.headline.split(': ', 1)[1]}", f"  {w.message}"]
                first = next((r for r in w.results if r.status is not PodStatus.SCHEDULED), None)
                if first is not None:
                    block.extend(f"  hint: {h}" for h in first.hints)
                out.append("\n".join(block))
        notes = [
            f"preemption: {w.kind} {w.namespace}/{w.name} evicts {', '.join(w.evicts)}" for w in self.workloads if w.evicts
        ]
        notes += [f"note: {w.kind} {w.namespace}/{w.name}: {n}" for w in self.workloads for n in w.notes]
        notes += [f"note: {n}" for n in dict.fromkeys((*self.notes, *self.schedule.notes))]
        if notes:
            out.append("\n".join(notes))
        out.append(
            f"{self.summary_line()} (profile {self.schedule.profile}, {self.schedule.num_nodes} nodes"
            f"{version_suffix(self.schedule.scheduler_version)})"
        )
        return "\n\n".join(out) + "\n"

    def render_markdown(self, fmt: Any) -> str:
        lines = [f"### kwhatif check: {self.summary_line()}", "",
                 f"Profile `{self.schedule.profile}`, {self.schedule.num_nodes} nodes"
                 f"{version_suffix(self.schedule.scheduler_version)}.", ""]
        if self.workloads:
            lines += ["| Workload | Desired | Placed | Not placed | Why not |", "|---|---|---|---|---|"]
        for w in self.workloads:
            icon = "✅" if w.fits else ("⚠️" if w.warning and not self.strict else "❌")
            why = (w.dominant_reason or ("" if w.fits else str(w.verdict))).replace("|", "\\|")
            if w.evicts:
                why = (why + "; " if why else "") + "evicts " + ", ".join(f"`{p}`" for p in w.evicts)
            lines.append(f"| {icon} {w.kind} `{w.namespace}/{w.name}` | {w._desired} | {w.placed} | {w.not_placed} | {why} |")
        lines.append("")
        for w in self.workloads:
            if w.failed and w.message:
                lines += [f"<details><summary>{w.kind} <code>{w.namespace}/{w.name}</code></summary>", "", w.message.replace("|", "\\|"), "", "</details>", ""]
        for n in self.notes:
            lines += [f"_{n}_", ""]
        return "\n".join(lines).rstrip() + "\n"

    def render_junit(self, fmt: Any) -> str:
        import xml.etree.ElementTree as ET

        from kwhatif.report.junit import junit_document

        failing = [w for w in self.workloads if w.failed or (self.strict and w.warning)]
        skipped = [w for w in self.workloads if w.warning and not self.strict]
        suite = ET.Element("testsuite", {
            "name": f"kwhatif.check.{self.schedule.profile}", "tests": str(len(self.workloads)),
            "failures": str(len(failing)), "errors": "0", "skipped": str(len(skipped)),
        })
        for w in self.workloads:
            case = ET.SubElement(suite, "testcase", {"classname": f"{w.kind}.{w.namespace}", "name": w.name, "file": w.file_and_line()[0]})
            if w.fits:
                out = ET.SubElement(case, "system-out")
                out.text = f"{w.placed}/{w.desired} pods placed"
            elif w in skipped:
                ET.SubElement(case, "skipped", {"message": w.headline})
            else:
                kind = "Refused" if w.verdict in (Verdict.REFUSED_BY_QUOTA, Verdict.REFUSED_BY_LIMIT_RANGE) else (
                    "Unschedulable" if w.failed else "Warning"
                )
                f = ET.SubElement(case, "failure", {"message": f"{w.headline.split(': ', 1)[1]}: {w.dominant_reason or w.verdict}", "type": kind})
                f.text = w.message or "\n".join(w.notes)
        return junit_document(suite)

    def render_github(self, fmt: Any) -> str:
        """GitHub Actions workflow commands: an error annotation on the manifest line of every
        workload that does not fit or is refused, a warning on those kwhatif could not check or
        that have no eligible node (an error with --strict), and a notice summing up."""
        lines = []
        for w in self.workloads:
            if w.fits:
                continue
            file, line = w.file_and_line()
            level = "error" if w.failed or self.strict else "warning"
            msg = w.message or w.dominant_reason or (w.notes[-1] if w.notes else str(w.verdict))
            lines.append(f"::{level} file={_esc_prop(file)},line={line},title={_esc_prop(w.headline)}::{_esc_data(msg)}")
        lines.append(f"::notice title=kwhatif check::{self.summary_line()} on {self.schedule.num_nodes} nodes")
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


def check_report(result: Any, schedule: ScheduleReport, *, strict: bool = False) -> CheckReport:
    by_pod = {str(r.pod): r for r in schedule.results}
    entries = []
    for w in result.workloads:
        results = tuple(by_pod[f"{p.namespace}/{p.name}"] for p in w.pods if f"{p.namespace}/{p.name}" in by_pod)
        placed = sum(1 for r in results if r.status is PodStatus.SCHEDULED)
        first_bad = next((r for r in results if r.status is not PodStatus.SCHEDULED), None)
        # pods a DaemonSet already runs (kept with --surge) count as placed
        already = max(0, (w.desired or 0) - len(w.pods) - w.refused) if w.verdict is None else 0
        not_placed = len(w.pods) - placed + w.refused
        if w.verdict is not None:
            verdict = w.verdict
        elif w.refused and w.refused_by is not None:
            verdict = w.refused_by
        elif not_placed:
            verdict = Verdict.DOES_NOT_FIT
        else:
            verdict = Verdict.FITS
        reason = dominant_reason(list(results))
        message = first_bad.message if first_bad else None
        if w.refusal is not None and (reason is None or verdict is w.refused_by):
            reason = w.refusal.split(" is forbidden: ", 1)[-1].split(" is invalid: ", 1)[-1]
            message = w.refusal
        entries.append(
            WorkloadEntry(
                kind=w.kind,
                namespace=w.namespace,
                name=w.name,
                source=w.source,
                desired=w.desired,
                placed=placed + already,
                not_placed=not_placed,
                dominant_reason=reason,
                message=message,
                replaced=w.replaced,
                notes=tuple(w.notes),
                results=results,
                verdict=verdict,
                refused=w.refused,
            )
        )
    return CheckReport(schedule, tuple(entries), notes=tuple(result.notes), strict=strict)
