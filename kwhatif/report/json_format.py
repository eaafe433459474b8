"""-o json and -o yaml: the documented schema, keys in a stable order."""

from __future__ import annotations

import json
from typing import Any

import yaml

from kwhatif.report.formatter import Formatter


def as_dict(report: Any) -> dict[str, Any]:
    to_dict = getattr(report, "to_dict", None)
    if callable(to_dict):
        d: dict[str, Any] = to_dict()
        return d
    from kwhatif.report.model import report_dict

    return report_dict(report)


class JsonFormatter(Formatter):
    def format(self, report: Any) -> str:
        return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


class YamlFormatter(Formatter):
    def format(self, report: Any) -> str:
        return yaml.dump(as_dict(report), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
