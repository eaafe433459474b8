"""The formatter interface: one formatter per output format, dispatching on the report's type
(report/output.py maps each OutputFormat to its formatter)."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, assert_never

from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.capacity import CapacityReport
from kwhatif.report.check import CheckReport
from kwhatif.report.drain import DrainReport
from kwhatif.report.schedule import ScheduleReport

if TYPE_CHECKING:  # the autoscalers' reports are imported where one is written (their runs only)
    from kwhatif.report.autoscale import AutoscaleReport
    from kwhatif.report.karpenter import KarpenterReport

AnyReport: TypeAlias = "ScheduleReport | CheckReport | CapacityReport | DrainReport | AutoscaleReport | KarpenterReport"


@dataclass(frozen=True, slots=True)
class RenderOptions:
    width: int = 0  # terminal columns to wrap to; 0: do not wrap (not a terminal)
    color: bool = False
    unicode: bool = False  # block characters for bars (a UTF-8 terminal); else ASCII
    explain_all: bool = False  # list every infeasible node instead of grouping them
    nodes: tuple[str, ...] = ()  # only these nodes
    group_threshold: int = 20  # more infeasible nodes than this are grouped by reason


class Formatter(abc.ABC):
    """Writes any report in one format: ``format`` refuses a kind of report the format is not for
    (ReportKind.formats says which) and hands the others to their method; a format that has no
    rendering for a kind leaves that method as is."""

    output_format: OutputFormat

    def __init__(self, options: RenderOptions = RenderOptions()) -> None:
        self.options = options

    def format(self, report: AnyReport) -> str:
        if self.output_format not in report.kind.formats:
            raise self._unsupported(report)
        report = self.prepare(report)
        if isinstance(report, ScheduleReport):
            return self.finish(self.schedule(report))
        if isinstance(report, CheckReport):
            return self.finish(self.check(report))
        if isinstance(report, CapacityReport):
            return self.finish(self.capacity(report))
        if isinstance(report, DrainReport):
            return self.finish(self.drain(report))
        from kwhatif.report.autoscale import AutoscaleReport
        from kwhatif.report.karpenter import KarpenterReport

        if isinstance(report, AutoscaleReport):
            return self.finish(self.autoscale(report))
        if isinstance(report, KarpenterReport):
            return self.finish(self.karpenter(report))
        assert_never(report)

    def prepare(self, report: AnyReport) -> AnyReport:
        """The report as this format prints it: a format for people escapes the strings from the
        inputs here, once (formats/escape.py), so no field can be missed; JSON and YAML keep them."""
        return report

    def finish(self, text: str) -> str:
        """The document as written; a format that a CI log may show makes sure here that no line of
        it can be read as a GitHub Actions workflow command."""
        return text

    def schedule(self, report: ScheduleReport) -> str:
        raise self._unsupported(report)

    def check(self, report: CheckReport) -> str:
        raise self._unsupported(report)

    def capacity(self, report: CapacityReport) -> str:
        raise self._unsupported(report)

    def drain(self, report: DrainReport) -> str:
        raise self._unsupported(report)

    def autoscale(self, report: AutoscaleReport) -> str:
        """table, wide and markdown: formats/autoscale.py (one module for every format of it)."""
        from kwhatif.report.formats import autoscale

        if self.output_format is OutputFormat.MARKDOWN:
            return autoscale.markdown(report)
        if self.output_format in (OutputFormat.TABLE, OutputFormat.WIDE):
            return autoscale.table(report, every=self.output_format is OutputFormat.WIDE)
        raise self._unsupported(report)

    def karpenter(self, report: KarpenterReport) -> str:
        """The AutoscaleReport under Karpenter: table, wide and markdown (report/karpenter.py)."""
        from kwhatif.report import karpenter

        if self.output_format is OutputFormat.MARKDOWN:
            return karpenter.markdown(report)
        if self.output_format in (OutputFormat.TABLE, OutputFormat.WIDE):
            return karpenter.table(report)
        raise self._unsupported(report)

    def _unsupported(self, report: Report) -> TypeError:
        return TypeError(f"no {self.output_format} rendering for {report.kind}")
