"""-o json: every report's documented dict form (Report.to_dict), keys in a stable order."""

from __future__ import annotations

import json

from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.formats.escape import json_text
from kwhatif.report.formats.formatter import Formatter


class JsonFormatter(Formatter):
    """Any report, through the Report protocol (the wider argument type has mypy check that every
    report class is one)."""

    output_format = OutputFormat.JSON

    def format(self, report: Report) -> str:
        # the exact values: json_text only writes some characters as JSON escapes
        return json_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False)) + "\n"
