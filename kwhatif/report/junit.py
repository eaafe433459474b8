"""-o junit: JUnit XML for CI, one test case per pod; failures carry upstream's message."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from kwhatif.report.formatter import Formatter
from kwhatif.report.model import PodResult, PodStatus, ScheduleReport


def _attempt_lines(r: PodResult) -> list[str]:
    """One line per attempt before the last (its status, FitError and preemption), then the
    head of the last one, so a CI log shows why a pod had to preempt before it fit."""
    from kwhatif.report.table import preemption_text

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
    def format(self, report: Any) -> str:
        if not isinstance(report, ScheduleReport):
            render = getattr(report, "render_junit", None)
            if callable(render):
                out: str = render(self)
                return out
            raise TypeError(f"no junit rendering for {type(report).__name__}")
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
        if r.status is PodStatus.SCHEDULED:
            from kwhatif.report.table import preemption_text

            out = ET.SubElement(case, "system-out")
            text = f"scheduled on {r.node}" + (f" (score {r.best_score})" if r.best_score is not None else "")
            if len(r.all_attempts) > 1:
                text = "\n".join(_attempt_lines(r) + [text])
            elif r.preemption:
                text += "; " + preemption_text(r)
            out.text = text
        elif r.status is PodStatus.ERROR:
            err = ET.SubElement(case, "error", {"message": r.message or "", "type": "SchedulingError"})
            err.text = _detail(r)
        else:
            kind = "SchedulingGated" if r.status is PodStatus.GATED else "Unschedulable"
            fail = ET.SubElement(case, "failure", {"message": r.message or "", "type": kind})
            fail.text = _detail(r)
