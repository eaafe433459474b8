"""-o json: every report's documented dict form (Report.to_dict), keys in a stable order."""

from __future__ import annotations

import json
from typing import Any

import orjson

from kwhatif.escape import json_text
from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.formats.formatter import Formatter


def dumps_indented(doc: Any) -> str:
    """``doc`` as json.dumps(doc, indent=2, ensure_ascii=False) writes it, with a newline.

    orjson writes the same bytes for what reports hold (str keys, str/int/bool/None/float leaves,
    lists, dicts in insertion order) about 25 times faster than the json module's indenting
    encoder, which is pure Python. Reports hold no floats; were one to appear with an exponent,
    orjson would write it without the '+' (1e16 for 1e+16), the same number. What orjson refuses
    (integers beyond 64 bits, strings with lone surrogates, keys that are not strings) goes
    through the json module instead."""
    try:
        # the newline written by orjson: one copy of a large report's text fewer
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


class JsonFormatter(Formatter):
    """Any report, through the Report protocol (the wider argument type has mypy check that every
    report class is one)."""

    output_format = OutputFormat.JSON

    def format(self, report: Report) -> str:
        # the exact values: json_text only writes some characters as JSON escapes
        return json_text(dumps_indented(report.to_dict()))
