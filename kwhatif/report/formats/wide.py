"""-o wide (kwhatif schedule): the table with each score's breakdown, raw>normalized x weight=weighted,
and the devices of every feasible node; the other reports have no scores, and no -o wide."""

from __future__ import annotations

from kwhatif.report.base import OutputFormat
from kwhatif.report.formats.table import TableFormatter
from kwhatif.report.schedule import NodeEntry, PodResult, ScoreEntry


class WideTableFormatter(TableFormatter):
    output_format = OutputFormat.WIDE

    def score_cell(self, s: ScoreEntry) -> str:
        return f"{s.raw}>{s.normalized}x{s.weight}={s.weighted}"

    def devices_shown(self, r: PodResult, detailed: list[NodeEntry]) -> list[NodeEntry]:
        return detailed
