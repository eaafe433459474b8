"""-o markdown: a compact summary for pull-request comments."""

from __future__ import annotations

from typing import Any

from kwhatif.report.formatter import Formatter
from kwhatif.report.model import PodResult, PodStatus, ScheduleReport

_ICON = {
    PodStatus.SCHEDULED: "✅ fits",
    PodStatus.UNSCHEDULABLE: "❌ does not fit",
    PodStatus.ERROR: "⚠️ error",
    PodStatus.GATED: "⏸️ gated",
}


MAX_EXPLAINED = 5  # nodes whose kwhatif explanation (details) is listed per pod


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class MarkdownFormatter(Formatter):
    def format(self, report: Any) -> str:
        if not isinstance(report, ScheduleReport):
            render = getattr(report, "render_markdown", None)
            if callable(render):
                out: str = render(self)
                return out
            raise TypeError(f"no markdown rendering for {type(report).__name__}")
        s = report.summary
        lines = [
            f"### kwhatif: {s.scheduled}/{s.pods} pods fit",
            "",
            f"Profile `{report.profile}`, {report.num_nodes} nodes.",
            "",
        ]
        lines += self.table(report.final_results())
        for r in report.final_results():
            if r.status is not PodStatus.SCHEDULED:
                lines += self.details(r)
            elif r.preemption:
                from kwhatif.report.table import preemption_text

                lines += [f"- `{r.pod}` {_cell(preemption_text(r))}", ""]
        return "\n".join(lines).rstrip() + "\n"

    def table(self, results: list[PodResult]) -> list[str]:
        lines = ["| Pod | Result | Node | Why not |", "|---|---|---|---|"]
        for r in results:
            node = f"`{r.node}` ({r.best_score})" if r.node and r.best_score is not None else (f"`{r.node}`" if r.node else "")
            if r.tie:
                node += f" — tie with {len(r.tie) - 1} other(s)"
            why = _cell(r.message or "") if r.status is not PodStatus.SCHEDULED else ""
            lines.append(f"| `{r.pod}` | {_ICON[r.status]} | {node} | {why} |")
        lines.append("")
        return lines

    def details(self, r: PodResult) -> list[str]:
        failing: dict[str, int] = {}
        for n in r.nodes:
            f = n.upstream_failure
            if f is not None:
                for reason in f.reasons:
                    key = f"{f.plugin}: {reason}"
                    failing[key] = failing.get(key, 0) + 1
        lines = [f"<details><summary><code>{r.pod}</code>: why not</summary>", ""]
        for key, count in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"- {count} node(s): {_cell(key)}")
        explained = [(n.name, f) for n in r.nodes for f in n.failures if f.details]
        for name, f in explained[:MAX_EXPLAINED]:
            lines.append(f"  - `{name}` {f.plugin}: {_cell('; '.join(f.details))}")
        if len(explained) > MAX_EXPLAINED:
            lines.append(f"  - ... and {len(explained) - MAX_EXPLAINED} more node(s)")
        if r.preemption:
            victims = ", ".join(f"`{v.namespace}/{v.name}`" for v in r.preemption.victims)
            lines.append(f"- preemption: nominated `{r.preemption.nominated_node}`, evicting {victims}")
        for h in r.hints:
            lines.append(f"- hint: {_cell(h)}")
        lines += ["", "</details>", ""]
        return lines
