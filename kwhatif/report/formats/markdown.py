"""-o markdown: a compact summary for pull-request comments."""

from __future__ import annotations

from kwhatif.escape import escape_strings, guard_commands, html_text, markdown, markdown_code, markdown_line, visible
from kwhatif.report.base import OutputFormat
from kwhatif.report.capacity import CapacityReport
from kwhatif.report.check import CheckReport
from kwhatif.report.drain import DrainReport
from kwhatif.report.formats.formatter import AnyReport, Formatter
from kwhatif.report.schedule import PodResult, ScheduleReport, version_suffix
from kwhatif.report.verdict import Verdict


def _icon(r: PodResult) -> str:
    if r.fits:
        return "✅ fits"
    if r.gated:
        return "⏸️ gated"
    if r.errored:
        return "⚠️ error"
    return "❌ does not fit"


MAX_EXPLAINED = 5  # nodes whose kwhatif explanation (details) is listed per pod


def _cell(text: str) -> str:
    """Text from the inputs in a paragraph or a table cell."""
    return markdown(text)


def _code(text: str) -> str:
    """A name from the inputs as code, in a table cell or not (a pipe is escaped either way)."""
    return markdown_code(text, table=True)


class MarkdownFormatter(Formatter):
    output_format = OutputFormat.MARKDOWN

    def prepare(self, report: AnyReport) -> AnyReport:
        """Control characters visible everywhere; the metacharacters are escaped where each string
        is written (_cell, _code, html_text), as text, code and HTML escape differently."""
        return escape_strings(report, visible)

    def finish(self, text: str) -> str:
        return guard_commands(text)

    def schedule(self, report: ScheduleReport) -> str:
        s = report.summary
        lines = [
            f"### kwhatif: {s.scheduled}/{s.pods} pods fit",
            "",
            f"Profile {_code(report.profile)}, {report.num_nodes} nodes{_cell(version_suffix(report.scheduler_version))}.",
            "",
        ]
        lines += self.table(report.final_results())
        for r in report.final_results():
            if len(r.all_attempts) > 1:
                lines += self.attempts(r)
            elif not r.fits:
                lines += self.details(r)
        return "\n".join(lines).rstrip() + "\n"

    def attempts(self, r: PodResult) -> list[str]:
        """A pod tried more than once: each attempt, numbered, as the cluster's events show them."""
        final = r.all_attempts[-1]
        lines = [
            f"<details><summary><code>{html_text(str(r.pod))}</code>: {len(r.all_attempts)} attempts</summary>",
            "",
        ]
        for a in r.all_attempts:
            lines.append(f"{a.attempt}. {self.attempt_line(a)}")
        lines.append("")
        if not final.fits:
            lines += self.reasons(final)
            lines.append("")
        lines += ["</details>", ""]
        return lines

    @staticmethod
    def attempt_line(a: PodResult) -> str:
        if a.fits:
            text = f"{_icon(a)} on {_code(a.node or '')}"
            if a.fast_path:
                text += ", its nominated node, tried first"
        else:
            text = f"{_icon(a)}: {_cell(a.message or '')}"
            if a.nominated_node and not a.fast_path:
                text += f" (nominated node {_code(a.nominated_node)} no longer fits)"
        if a.preemption:
            victims = ", ".join(_code(f"{v.namespace}/{v.name}") for v in a.preemption.victims)
            text += f" — preemption: nominated {_code(a.preemption.nominated_node)}, evicting {victims}"
        return text

    def table(self, results: list[PodResult]) -> list[str]:
        lines = ["| Pod | Result | Node | Why not |", "|---|---|---|---|"]
        for r in results:
            node = (
                f"{_code(r.node)} ({r.best_score})"
                if r.node and r.best_score is not None
                else (_code(r.node) if r.node else "")
            )
            if r.tie:
                node += f" — tie with {len(r.tie) - 1} other(s)"
            why = _cell(r.message or "") if not r.fits else ""
            lines.append(f"| {_code(str(r.pod))} | {_icon(r)} | {node} | {why} |")
        lines.append("")
        return lines

    def details(self, r: PodResult) -> list[str]:
        lines = [f"<details><summary><code>{html_text(str(r.pod))}</code>: why not</summary>", ""]
        lines += self.reasons(r)
        if r.preemption:
            victims = ", ".join(_code(f"{v.namespace}/{v.name}") for v in r.preemption.victims)
            lines.append(f"- preemption: nominated {_code(r.preemption.nominated_node)}, evicting {victims}")
        lines += ["", "</details>", ""]
        return lines

    @staticmethod
    def reasons(r: PodResult) -> list[str]:
        """The reasons upstream gives, with the count of nodes giving each, and the hints."""
        failing: dict[str, int] = {}
        for n in r.nodes:
            f = n.upstream_failure
            if f is not None:
                for reason in f.reasons:
                    key = f"{f.plugin}: {reason}"
                    failing[key] = failing.get(key, 0) + 1
        lines = [
            f"- {count} node(s): {_cell(key)}" for key, count in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        explained = [(n.name, f) for n in r.nodes for f in n.failures if f.details]
        for name, f in explained[:MAX_EXPLAINED]:
            lines.append(f"  - {_code(name)} {_cell(f.plugin)}: {_cell('; '.join(f.details))}")
        if len(explained) > MAX_EXPLAINED:
            lines.append(f"  - ... and {len(explained) - MAX_EXPLAINED} more node(s)")
        lines += [f"- hint: {_cell(h)}" for h in r.hints]
        return lines

    # --- check, capacity, drain ------------------------------------------------------------------

    def check(self, report: CheckReport) -> str:
        lines = [
            f"### kwhatif check: {_cell(report.summary_line())}",
            "",
            f"Profile {_code(report.schedule.profile)}, {report.schedule.num_nodes} nodes"
            f"{_cell(version_suffix(report.schedule.scheduler_version))}.",
            "",
        ]
        if report.workloads:
            lines += ["| Workload | Desired | Placed | Not placed | Why not |", "|---|---|---|---|---|"]
        for w in report.workloads:
            icon = "✅" if w.fits else ("⚠️" if w.warning and not report.strict else "❌")
            why = _cell(w.dominant_reason or ("" if w.fits else str(w.verdict)))
            if w.evicts:
                why = (why + "; " if why else "") + "evicts " + ", ".join(_code(p) for p in w.evicts)
            lines.append(
                f"| {icon} {_cell(w.kind)} {_code(f'{w.namespace}/{w.name}')} | {_cell(w.desired_text)}"
                f" | {w.placed if w.checked else '-'} | {w.not_placed if w.checked else '-'} | {why} |"
            )
        lines.append("")
        for w in report.workloads:
            if (w.failed or w.verdict is Verdict.UNKNOWN) and w.message:
                lines += [
                    f"<details><summary>{html_text(w.kind)} <code>{html_text(f'{w.namespace}/{w.name}')}</code></summary>",
                    "",
                    markdown_line(w.message),
                    "",
                    "</details>",
                    "",
                ]
        verdict_notes = [
            f"- {_cell(w.kind)} {_code(f'{w.namespace}/{w.name}')}: {_cell(n)}"
            for w in report.workloads
            for n in w.verdict_notes
        ]
        if verdict_notes:
            lines += verdict_notes + [""]
        for n in report.notes:
            lines += [f"_{_cell(n)}_", ""]
        return "\n".join(lines).rstrip() + "\n"

    def capacity(self, report: CapacityReport) -> str:
        lines = [f"### kwhatif capacity: {report.fits} more {_code(f'{report.namespace}/{report.name}')} fit", ""]
        if report.per_node:
            lines += ["| Node | Copies |", "|---|---|"]
            lines += [
                f"| {_code(n)} | {c} |" for n, c in sorted(report.per_node.items(), key=lambda kv: (-kv[1], kv[0]))
            ]
            lines.append("")
        if report.first_failure:
            lines += [f"Next copy: {_cell(report.first_failure)}", ""]
        if report.minimum is not None:
            lines.append(("✅" if report.fits >= report.minimum else "❌") + f" minimum {report.minimum}")
        return "\n".join(lines).rstrip() + "\n"

    def drain(self, report: DrainReport) -> str:
        s = report.summary()
        lines = [
            f"### kwhatif drain {', '.join(_code(n) for n in report.nodes)}",
            "",
            f"{s['placed']} replacements placed, {s['notPlaced']} do not fit, {s['pdbBlocked']} blocked by PDBs.",
            "",
            "| Pod | Action | Lands on | Why not |",
            "|---|---|---|---|",
        ]
        for e in report.entries:
            why = (
                f"PDB {_code(e.pdb_blocked)}"
                if e.pdb_blocked
                else _cell(f"cannot delete {e.refusal}" if e.refusal else e.message or "")
            )
            lands = _code(e.node) if e.node else ""
            lines.append(f"| {_code(f'{e.namespace}/{e.name}')} | {_cell(e.action)} | {lands} | {why} |")
        if report.refusals:
            lines += ["", *(f"- drain refuses node {_code(n)}: {_cell(m)}" for n, m in report.refusals)]
        return "\n".join(lines) + "\n"
