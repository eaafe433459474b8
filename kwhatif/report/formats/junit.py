"""-o junit: JUnit XML for CI, one test case per pod (check: per workload; capacity: one; drain: per
evicted pod); failures carry upstream's message."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from kwhatif.escape import escape_strings, guard_commands, visible
from kwhatif.report.base import OutputFormat
from kwhatif.report.capacity import CapacityReport
from kwhatif.report.check import CheckReport
from kwhatif.report.drain import DrainReport
from kwhatif.report.formats.formatter import AnyReport, Formatter
from kwhatif.report.schedule import PodResult, ScheduleReport


def _attempt_lines(r: PodResult) -> list[str]:
    """One line per attempt before the last (its status, FitError and preemption), then the
    head of the last one, so a CI log shows why a pod had to preempt before it fit."""
    from kwhatif.report.formats.table import preemption_text

    attempts = r.all_attempts
    lines = []
    for a in attempts[:-1]:
        line = f"attempt {a.attempt} of {len(attempts)}: {a.status.value}"
        if a.message:
            line += f": {a.message}"
        if a.preemption:
            line += f" preemption: {preemption_text(a)}"
        lines.append(line)
    last = attempts[-1]
    line = f"attempt {last.attempt} of {len(attempts)}: {last.status.value}"
    if last.nominated_node:
        fits = "fits" if last.fast_path else "no longer fits"
        line += f" (nominated node {last.nominated_node} tried first: the pod {fits} there)"
    lines.append(line)
    return lines


def _detail(r: PodResult) -> str:
    lines = _attempt_lines(r) if len(r.all_attempts) > 1 else []
    lines.append(r.message or "")
    for n in r.nodes:
        f = n.upstream_failure
        if f is not None:
            detail = f" ({'; '.join(f.details)})" if f.details else ""
            lines.append(f"{n.name}: {f.plugin}: {'; '.join(f.reasons)}{detail}")
    lines += [f"hint: {h}" for h in r.hints]
    return "\n".join(lines)


def junit_document(suite: ET.Element) -> str:
    """A JUnit XML document of one test suite."""
    root = ET.Element("testsuites", {"name": "kwhatif", "tests": suite.get("tests", "0")})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


class JUnitFormatter(Formatter):
    output_format = OutputFormat.JUNIT

    def prepare(self, report: AnyReport) -> AnyReport:
        """Every string from the inputs with its control characters visible: XML 1.0 cannot hold
        most of them (ElementTree would write them raw, and no parser reads the document back), and
        one reason stays one line of the CI log. ElementTree escapes & < > and quotes."""
        return escape_strings(report, visible)

    def finish(self, text: str) -> str:
        # a line of text content that would start with "::": its first colon as a character reference
        return guard_commands(text, "&#58;", "&#35;")

    def schedule(self, report: ScheduleReport) -> str:
        results = report.final_results()
        s = report.summary
        suite = ET.Element(
            "testsuite",
            {
                "name": f"kwhatif.{report.profile}",
                "tests": str(len(results)),
                "failures": str(s.unschedulable + s.gated),
                "errors": str(s.errors),
                "skipped": "0",
            },
        )
        for r in results:
            self.case(suite, r)
        return junit_document(suite)

    @staticmethod
    def case(suite: ET.Element, r: PodResult, classname: str | None = None) -> None:
        case = ET.SubElement(suite, "testcase", {"classname": classname or r.pod.namespace, "name": r.pod.name})
        if r.fits:
            from kwhatif.report.formats.table import preemption_text

            out = ET.SubElement(case, "system-out")
            text = f"scheduled on {r.node}" + (f" (score {r.best_score})" if r.best_score is not None else "")
            if len(r.all_attempts) > 1:
                text = "\n".join(_attempt_lines(r) + [text])
            elif r.preemption:
                text += "; " + preemption_text(r)
            out.text = text
        elif r.errored:
            err = ET.SubElement(case, "error", {"message": r.message or "", "type": "SchedulingError"})
            err.text = _detail(r)
        else:
            kind = "SchedulingGated" if r.gated else "Unschedulable"
            fail = ET.SubElement(case, "failure", {"message": r.message or "", "type": kind})
            fail.text = _detail(r)

    # --- check, capacity, drain ------------------------------------------------------------------

    def check(self, report: CheckReport) -> str:
        failing = [w for w in report.workloads if w.failed or (report.strict and w.warning)]
        skipped = [w for w in report.workloads if w.warning and not report.strict]
        suite = ET.Element(
            "testsuite",
            {
                "name": f"kwhatif.check.{report.schedule.profile}",
                "tests": str(len(report.workloads)),
                "failures": str(len(failing)),
                "errors": "0",
                "skipped": str(len(skipped)),
            },
        )
        for w in report.workloads:
            case = ET.SubElement(
                suite,
                "testcase",
                {"classname": f"{w.kind}.{w.namespace}", "name": w.name, "file": w.file_and_line()[0]},
            )
            if w.fits:
                out = ET.SubElement(case, "system-out")
                out.text = "\n".join((f"{w.placed}/{w.desired} pods placed", *w.verdict_notes))
            elif w in skipped:
                skip = ET.SubElement(case, "skipped", {"message": w.headline})
                skip.text = "\n".join(dict.fromkeys(t for t in (w.message, *w.verdict_notes) if t)) or None
            else:
                kind = "Refused" if w.refused_by_admission else ("Unschedulable" if w.failed else "Warning")
                f = ET.SubElement(
                    case,
                    "failure",
                    {"message": f"{w.headline.split(': ', 1)[1]}: {w.dominant_reason or w.verdict}", "type": kind},
                )
                f.text = "\n".join(dict.fromkeys(t for t in (w.message, *w.verdict_notes) if t)) or "\n".join(w.notes)
        return junit_document(suite)

    def capacity(self, report: CapacityReport) -> str:
        failed = report.minimum is not None and report.fits < report.minimum
        suite = ET.Element(
            "testsuite", {"name": "kwhatif.capacity", "tests": "1", "failures": "1" if failed else "0", "errors": "0"}
        )
        case = ET.SubElement(suite, "testcase", {"classname": report.namespace, "name": f"{report.name} capacity"})
        if failed:
            f = ET.SubElement(
                case, "failure", {"message": f"{report.fits} fit, minimum {report.minimum}", "type": "Capacity"}
            )
            f.text = report.first_failure
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{report.fits} fit"
        return junit_document(suite)

    def drain(self, report: DrainReport) -> str:
        cases = [e for e in report.entries if e.action in ("evict", "blocked", "refused")]
        failures = [e for e in cases if e.pdb_blocked or e.refusal or (e.node is None and not e.lost)]
        suite = ET.Element(
            "testsuite",
            {"name": "kwhatif.drain", "tests": str(len(cases)), "failures": str(len(failures)), "errors": "0"},
        )
        for e in cases:
            case = ET.SubElement(suite, "testcase", {"classname": e.namespace, "name": e.name})
            if e.refusal:
                ET.SubElement(case, "failure", {"message": f"cannot delete {e.refusal}", "type": "DrainRefused"})
            elif e.pdb_blocked:
                ET.SubElement(
                    case,
                    "failure",
                    {"message": f"eviction refused by PodDisruptionBudget {e.pdb_blocked}", "type": "PDB"},
                )
            elif e.node is None and not e.lost:
                ET.SubElement(case, "failure", {"message": e.message or "", "type": "Unschedulable"})
        return junit_document(suite)
