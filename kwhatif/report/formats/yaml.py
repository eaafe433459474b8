"""-o yaml: the same document as -o json (Report.to_dict), in YAML, keys in the same order."""

from __future__ import annotations

import re
from typing import Any

import yaml

from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.formats.formatter import Formatter

_COMMAND_LINE = re.compile(r"^\s*::", re.MULTILINE)


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    # a literal block, unless one of its lines would start with "::" (a GitHub Actions workflow
    # command when the document is shown in a job's log): then double-quoted, the same value
    style = ("|" if _COMMAND_LINE.search(data) is None else '"') if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


class _NotPlain(Exception):
    """A string libyaml's emitter might write otherwise than PyYAML's."""


class _CDumper(yaml.CSafeDumper):
    """libyaml's emitter, several times faster on large reports. It writes exactly what _Dumper
    writes for strings of printable characters of the Basic Multilingual Plane (no line breaks,
    tabs or control characters); any other string sends the whole report to _Dumper."""


def _plain_str_representer(dumper: _CDumper, data: str) -> yaml.Node:
    if not data.isprintable() or (not data.isascii() and max(data) > "\uffff"):
        raise _NotPlain
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_CDumper.add_representer(str, _plain_str_representer)


class YamlFormatter(Formatter):
    output_format = OutputFormat.YAML

    def format(self, report: Report) -> str:
        data = report.to_dict()
        options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 1000}
        try:
            return str(yaml.dump(data, Dumper=_CDumper, **options))
        except _NotPlain:
            return str(yaml.dump(data, Dumper=_Dumper, **options))
