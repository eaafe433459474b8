"""-o wide (kwhatif schedule): the table with each score's breakdown, raw>normalized x weight=weighted,
and the devices of every feasible node; the other reports have no scores, and no -o wide."""

from __future__ import annotations

from collections.abc import Iterable

from kwhatif.report.base import OutputFormat
from kwhatif.report.formats.table import SHORT, TableFormatter, score_plugins
from kwhatif.report.schedule import NodeEntry, PodResult, ScheduleReport, ScoreEntry


class WideTableFormatter(TableFormatter):
    output_format = OutputFormat.WIDE

    def score_cell(self, s: ScoreEntry) -> str:
        return f"{s.raw}>{s.normalized}x{s.weight}={s.weighted}"

    def score_legend(self, report: ScheduleReport) -> str:
        """Once per report, under the node tables: how to read a score cell, and the plugin names
        the column headings shorten."""
        plugins: dict[str, None] = {}
        for r in report.results:
            for a in r.all_attempts:
                plugins.update(dict.fromkeys(score_plugins(a)))
        return self.legend(plugins)

    def legend(self, plugins: Iterable[str]) -> str:
        """The legend of tables whose score columns are ``plugins``."""
        plugins = list(plugins)
        if not plugins:
            return ""
        lines = [
            self._wrap(
                "scores: raw>normalized x weight=weighted. raw: the plugin's Score for the node; normalized: "
                "after the plugin's NormalizeScore (0-100); weight: the plugin's weight in the profile; "
                "weighted: normalized x weight. TOTAL: the sum of the weighted scores, the highest is chosen.",
                "",
                "  ",
            )
        ]
        short = [f"{SHORT[p]} = {p}" for p in plugins if SHORT.get(p, p) != p]
        if short:
            lines.append(self._wrap("plugins: " + ", ".join(short), "", "  "))
        return "\n".join(lines)

    def devices_shown(self, r: PodResult, detailed: list[NodeEntry]) -> list[NodeEntry]:
        return detailed
