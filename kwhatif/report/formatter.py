"""The formatter interface and the registry of output formats."""

from __future__ import annotations

import abc
import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RenderOptions:
    width: int = 0  # terminal columns to wrap to; 0: do not wrap (not a terminal)
    color: bool = False
    explain_all: bool = False  # list every infeasible node instead of grouping them
    nodes: tuple[str, ...] = ()  # only these nodes
    wide: bool = False
    group_threshold: int = 20  # more infeasible nodes than this are grouped by reason


class Formatter(abc.ABC):
    def __init__(self, options: RenderOptions = RenderOptions()) -> None:
        self.options = options

    @abc.abstractmethod
    def format(self, report: Any) -> str: ...


FORMATS = {
    "table": "kwhatif.report.table:TableFormatter",
    "wide": "kwhatif.report.table:WideTableFormatter",
    "json": "kwhatif.report.json_format:JsonFormatter",
    "yaml": "kwhatif.report.json_format:YamlFormatter",
    "markdown": "kwhatif.report.markdown:MarkdownFormatter",
    "junit": "kwhatif.report.junit:JUnitFormatter",
    "github": "kwhatif.report.table:GithubFormatter",
}


def get_formatter(name: str, options: RenderOptions = RenderOptions()) -> Formatter:
    target = FORMATS[name]
    module, _, cls = target.partition(":")
    formatter_cls = getattr(importlib.import_module(module), cls)
    formatter: Formatter = formatter_cls(options)
    return formatter
