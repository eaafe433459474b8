"""-o json and -o yaml: every report's documented dict form (Report.to_dict), keys in a stable order."""

from __future__ import annotations

import json

import yaml

from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.formatter import Formatter


class JsonFormatter(Formatter):
    """Any report, through the Report protocol (the wider argument type has mypy check that every
    report class is one)."""

    output_format = OutputFormat.JSON

    def format(self, report: Report) -> str:
        return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


class YamlFormatter(Formatter):
    output_format = OutputFormat.YAML

    def format(self, report: Report) -> str:
        return yaml.dump(report.to_dict(), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
