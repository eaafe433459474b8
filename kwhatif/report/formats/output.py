"""The formatter of each output format."""

from __future__ import annotations

from typing import assert_never

from kwhatif.report.base import OutputFormat
from kwhatif.report.formats.formatter import Formatter, RenderOptions


def get_formatter(fmt: OutputFormat | str, options: RenderOptions | None = None) -> Formatter:
    fmt = OutputFormat(fmt)
    options = options or RenderOptions()
    # Each format's module is imported when it is asked for.
    if fmt is OutputFormat.TABLE:
        from kwhatif.report.formats.table import TableFormatter

        return TableFormatter(options)
    if fmt is OutputFormat.WIDE:
        from kwhatif.report.formats.wide import WideTableFormatter

        return WideTableFormatter(options)
    if fmt is OutputFormat.JSON:
        from kwhatif.report.formats.json import JsonFormatter

        return JsonFormatter(options)
    if fmt is OutputFormat.YAML:
        from kwhatif.report.formats.yaml import YamlFormatter

        return YamlFormatter(options)
    if fmt is OutputFormat.MARKDOWN:
        from kwhatif.report.formats.markdown import MarkdownFormatter

        return MarkdownFormatter(options)
    if fmt is OutputFormat.JUNIT:
        from kwhatif.report.formats.junit import JUnitFormatter

        return JUnitFormatter(options)
    if fmt is OutputFormat.GITHUB:
        from kwhatif.report.formats.github import GithubFormatter

        return GithubFormatter(options)
    if fmt is OutputFormat.SARIF:
        from kwhatif.report.formats.sarif import SarifFormatter

        return SarifFormatter(options)
    if fmt is OutputFormat.HTML:
        from kwhatif.report.formats.html import HtmlFormatter

        return HtmlFormatter(options)
    assert_never(fmt)
