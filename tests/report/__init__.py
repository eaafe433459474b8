"""Report tests. snapshots/ holds each scenario's report in each output format."""

from __future__ import annotations

from pathlib import Path

from kwhatif.report.base import OutputFormat

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

_EXTENSIONS = {
    OutputFormat.JSON: "json",
    OutputFormat.YAML: "yaml",
    OutputFormat.JUNIT: "xml",
    OutputFormat.MARKDOWN: "md",
    OutputFormat.HTML: "html",
    OutputFormat.SARIF: "json",
}


def snapshot_file(scenario: str, fmt: OutputFormat) -> str:
    """``misfit.wide.txt``, ``check.junit.xml``: the snapshot of one scenario in one format."""
    return f"{scenario}.{fmt}.{_EXTENSIONS.get(fmt, 'txt')}"
