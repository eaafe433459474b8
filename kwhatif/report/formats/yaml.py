"""-o yaml: the same document as -o json (Report.to_dict), in YAML, keys in the same order."""

from __future__ import annotations

import re
from typing import Any

import yaml

from kwhatif.report.base import OutputFormat, Report
from kwhatif.report.formats.formatter import Formatter

_COMMAND_LINE = re.compile(r"^\s*::", re.MULTILINE)


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a list two fields share (a result and its last attempt) is written twice


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

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _plain_str_representer(dumper: _CDumper, data: str) -> yaml.Node:
    if not data.isprintable() or (not data.isascii() and max(data) > "\uffff"):
        raise _NotPlain
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_CDumper.add_representer(str, _plain_str_representer)


_OPTIONS: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 1000}
_WIDTH = 1000
# what YAML counts as a line break: a string holding one is written over several lines
_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")


class _Slow(Exception):
    """A value the block writer does not write itself: the whole document goes to PyYAML."""


class _BlockWriter:
    """PyYAML's block style (what yaml.dump writes with _OPTIONS) for documents of dicts with
    string keys, lists, strings, ints, booleans and None, written line by line: each distinct
    string is rendered once by PyYAML itself (as a key or a value) and reused, so a large report
    costs a string join per line instead of a representer node per value. Anything it cannot be
    sure to write exactly so (a float, a multi-line string, a key PyYAML writes in its complex
    form, a line long enough to be folded) raises _Slow."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.values: dict[str, str] = {}
        self.keys: dict[str, str] = {}

    def value(self, v: Any) -> str:
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        t = type(v)
        if t is int:
            return str(v)
        if t is not str:
            raise _Slow
        r = self.values.get(v)
        if r is None and _BREAKS.search(v):
            raise _Slow
        if r is None:
            text = yaml.dump([v], Dumper=_Dumper, **_OPTIONS)
            if not text.startswith("- ") or text.find("\n") != len(text) - 1:
                raise _Slow
            r = self.values[v] = text[2:-1]
        return r

    def key(self, k: Any) -> str:
        if type(k) is not str:
            raise _Slow
        r = self.keys.get(k)
        if r is None and _BREAKS.search(k):
            raise _Slow
        if r is None:
            text = yaml.dump({k: None}, Dumper=_Dumper, **_OPTIONS)
            if not text.endswith(": null\n") or text.find("\n") != len(text) - 1 or text.startswith("? "):
                raise _Slow
            r = self.keys[k] = text[: -len(": null\n")]
        return r

    def line(self, text: str) -> None:
        if len(text) > _WIDTH:
            raise _Slow
        self.lines.append(text)

    def mapping(self, d: dict[Any, Any], lead: str, indent: int) -> None:
        pad = " " * indent
        for k, v in d.items():
            head = lead + self.key(k)
            lead = pad
            t = type(v)
            if t is dict:
                if v:
                    self.line(head + ":")
                    self.mapping(v, " " * (indent + 2), indent + 2)
                else:
                    self.line(head + ": {}")
            elif t is list:
                if v:
                    self.line(head + ":")
                    self.sequence(v, pad, indent)  # a list in a mapping is not indented
                else:
                    self.line(head + ": []")
            else:
                self.line(head + ": " + self.value(v))

    def sequence(self, items: list[Any], lead: str, indent: int) -> None:
        pad = " " * indent
        for v in items:
            head = lead + "- "
            lead = pad
            t = type(v)
            if t is dict:
                if v:
                    self.mapping(v, head, indent + 2)
                else:
                    self.line(head + "{}")
            elif t is list:
                if v:
                    self.sequence(v, head, indent + 2)
                else:
                    self.line(head + "[]")
            else:
                self.line(head + self.value(v))


def dump_block(data: Any) -> str:
    """``data`` as yaml.dump(data, **_OPTIONS) with _Dumper writes it."""
    if type(data) is dict and data:
        writer = _BlockWriter()
        try:
            writer.mapping(data, "", 0)
            return "\n".join(writer.lines) + "\n"
        except _Slow:
            pass
    try:
        return str(yaml.dump(data, Dumper=_CDumper, **_OPTIONS))
    except _NotPlain:
        return str(yaml.dump(data, Dumper=_Dumper, **_OPTIONS))


class YamlFormatter(Formatter):
    output_format = OutputFormat.YAML

    def format(self, report: Report) -> str:
        return dump_block(report.to_dict())
