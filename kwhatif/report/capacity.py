"""CapacityReport: how many copies of a pod fit, where they go, and what stops the next one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kwhatif.errors import ExitCode
from kwhatif.report.model import API_VERSION, PodResult, PodStatus, version_fields, version_suffix
from kwhatif.versions import ChosenVersion


@dataclass(frozen=True, slots=True)
class CapacityReport:
    namespace: str
    name: str
    profile: str
    num_nodes: int
    fits: int
    per_node: dict[str, int]
    first_failure: str
    reasons: dict[str, int]
    stopped_by: str
    ties: int
    minimum: int | None
    failure: PodResult | None
    notes: tuple[str, ...] = ()
    kind: str = "CapacityReport"
    scheduler_version: ChosenVersion | None = None

    @property
    def return_code(self) -> ExitCode:
        if self.minimum is not None and self.fits < self.minimum:
            return ExitCode.UNSCHEDULABLE
        return ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": self.kind,
            "profile": self.profile,
            **version_fields(self.scheduler_version),
            "pod": {"namespace": self.namespace, "name": self.name},
            "fits": self.fits,
            "perNode": dict(self.per_node),
            "firstFailure": self.first_failure,
            "reasons": dict(self.reasons),
            "stoppedBy": self.stopped_by,
            "tiedPlacements": self.ties,
            "minimum": self.minimum,
            "notes": list(self.notes),
        }

    def render_table(self, fmt: Any) -> str:
        from tabulate import tabulate

        lines = [f"{self.fits} more cop{'y' if self.fits == 1 else 'ies'} of {self.namespace}/{self.name} fit "
                 f"(profile {self.profile}, {self.num_nodes} nodes{version_suffix(self.scheduler_version)})"]
        if self.per_node:
            rows = [[n, str(c)] for n, c in sorted(self.per_node.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines.append("\n".join("  " + ln for ln in tabulate(rows, headers=["NODE", "COPIES"], tablefmt="plain").splitlines()))
        if self.first_failure:
            lines.append(f"the next copy does not fit:\n  {self.first_failure}")
        if self.reasons:
            rows = [[str(n), r] for r, n in sorted(self.reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines.append("\n".join("  " + ln for ln in tabulate(rows, headers=["NODES", "REASON"], tablefmt="plain").splitlines()))
        if self.failure is not None and self.failure.hints:
            lines.append("\n".join(f"  hint: {h}" for h in self.failure.hints))
        if self.ties:
            lines.append(
                f"note: {self.ties} copies went to one of several equally scored nodes; upstream picks at random, "
                "kwhatif takes the first by name (the count of copies does not depend on it in most clusters)"
            )
        for n in self.notes:
            lines.append(f"note: {n}")
        if self.minimum is not None:
            ok = "meets" if self.fits >= self.minimum else "does NOT meet"
            lines.append(f"{ok} the minimum of {self.minimum}")
        return "\n\n".join(lines) + "\n"

    def render_markdown(self, fmt: Any) -> str:
        lines = [f"### kwhatif capacity: {self.fits} more `{self.namespace}/{self.name}` fit", ""]
        if self.per_node:
            lines += ["| Node | Copies |", "|---|---|"]
            lines += [f"| `{n}` | {c} |" for n, c in sorted(self.per_node.items(), key=lambda kv: (-kv[1], kv[0]))]
            lines.append("")
        if self.first_failure:
            lines += [f"Next copy: {self.first_failure}", ""]
        if self.minimum is not None:
            lines.append(("✅" if self.fits >= self.minimum else "❌") + f" minimum {self.minimum}")
        return "\n".join(lines).rstrip() + "\n"

    def render_junit(self, fmt: Any) -> str:
        import xml.etree.ElementTree as ET

        from kwhatif.report.junit import junit_document

        failed = self.minimum is not None and self.fits < self.minimum
        suite = ET.Element("testsuite", {"name": "kwhatif.capacity", "tests": "1", "failures": "1" if failed else "0", "errors": "0"})
        case = ET.SubElement(suite, "testcase", {"classname": self.namespace, "name": f"{self.name} capacity"})
        if failed:
            f = ET.SubElement(case, "failure", {"message": f"{self.fits} fit, minimum {self.minimum}", "type": "Capacity"})
            f.text = self.first_failure
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{self.fits} fit"
        return junit_document(suite)


def capacity_report(
    res: Any,
    profile: str,
    num_nodes: int,
    minimum: int | None,
    scheduler_version: ChosenVersion | None = None,
    notes: tuple[str, ...] = (),
) -> CapacityReport:
    from kwhatif.report.model import pod_result

    failure = pod_result(res.failed_attempt) if res.failed_attempt is not None else None
    if failure is not None and failure.status is PodStatus.SCHEDULED:
        failure = None
    return CapacityReport(
        namespace=res.template.namespace,
        name=res.template.name,
        profile=profile,
        num_nodes=num_nodes,
        fits=res.fits,
        per_node=res.per_node,
        first_failure=res.first_failure,
        reasons=res.reasons,
        stopped_by=res.stopped_by,
        ties=res.ties,
        minimum=minimum,
        failure=failure,
        notes=tuple(res.notes) + notes,
        scheduler_version=scheduler_version,
    )
