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
# Strings PyYAML's emitter may write plain as they are, whatever their context in block style: a
# letter first (no indicator, no document marker, none of the int, float, timestamp, merge or value
# resolvers starts so), then letters, digits and ``_ . / -`` only (no space, no indicator). Whether
# the plain form would read back as a str (not a bool or null: "yes", "null") is the resolver's
# answer, asked for these only.
_PLAIN_CANDIDATE = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*")
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER: Any = yaml.resolver.Resolver()
_RESOLVER.yaml_implicit_resolvers = _Dumper.yaml_implicit_resolvers  # what _Dumper's serializer asks


class _Slow(Exception):
    """A value the block writer does not write itself: the whole document goes to PyYAML."""


def plain_as_is(s: str) -> bool:
    """Whether PyYAML writes ``s`` in block style as the plain scalar ``s`` itself, decided without
    emitting it (see _PLAIN_CANDIDATE); False means only that it is not sure."""
    return (
        _PLAIN_CANDIDATE.fullmatch(s) is not None and _RESOLVER.resolve(yaml.ScalarNode, s, (True, False)) == _STR_TAG
    )


class _BlockWriter:
    """PyYAML's block style (what yaml.dump writes with _OPTIONS) for documents of dicts with
    string keys, lists, strings, ints, booleans and None. Each distinct string is rendered once
    (by PyYAML itself, as a key or a value, unless plain_as_is) and reused, and each container is
    rendered once: a dict or list the document holds in several places (a report's shared
    records, a result's nodes and its last attempt's) is written again by reindenting its text.
    Anything it cannot be sure to write exactly so (a float, a multi-line string, a key PyYAML
    writes in its complex form, a line long enough to be folded) raises _Slow.

    A container's text is its lines joined, the first without its lead (the indentation, or the
    "- " of the items it is first in, as long as the indentation), the others indented; with it,
    the length of its longest line as written at that indentation. The text is kept as a list of
    pieces, joined into one string only while it is small: a large report's text is copied once,
    when the document is joined, not once more at every level that holds it."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.keys: dict[str, str] = {}
        # id of a container of the document -> (indentation, pieces of its text, longest line,
        # length of the text)
        self.blocks: dict[int, tuple[int, list[str], int, int]] = {}

    def document(self, data: dict[Any, Any]) -> str:
        pieces = list(self.mapping(data, 0)[0])
        pieces.append("\n")
        return "".join(pieces)

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
        if r is None:
            if _BREAKS.search(v):
                raise _Slow
            if plain_as_is(v):
                r = self.values[v] = v
            else:
                text = str(yaml.dump([v], Dumper=_Dumper, **_OPTIONS))
                if not text.startswith("- ") or text.find("\n") != len(text) - 1:
                    raise _Slow
                r = self.values[v] = text[2:-1]
        return r

    def key(self, k: Any) -> str:
        if type(k) is not str:
            raise _Slow
        r = self.keys.get(k)
        if r is not None:
            return r
        if _BREAKS.search(k):
            raise _Slow
        text = str(yaml.dump({k: None}, Dumper=_Dumper, **_OPTIONS))
        if not text.endswith(": null\n") or text.find("\n") != len(text) - 1 or text.startswith("? "):
            raise _Slow
        r = self.keys[k] = text[: -len(": null\n")]
        return r

    def _moved(self, block: tuple[int, list[str], int, int], indent: int) -> tuple[list[str], int, int]:
        """A container's text written at one indentation, at another: every line after the first
        starts with the first's indentation, and no string holds a line break."""
        was, pieces, longest, _ = block
        text = "".join(pieces)
        if indent > was:
            text = text.replace("\n", "\n" + " " * (indent - was))
        else:
            text = text.replace("\n" + " " * was, "\n" + " " * indent)
        longest += indent - was
        if longest > _WIDTH:
            raise _Slow
        return [text], longest, len(text)

    def _done(self, c: Any, indent: int, pieces: list[str], longest: int, size: int) -> tuple[list[str], int, int]:
        if longest > _WIDTH:
            raise _Slow
        if size <= _JOINED and len(pieces) > 1:
            pieces = ["".join(pieces)]
        self.blocks[id(c)] = (indent, pieces, longest, size)
        return pieces, longest, size

    def mapping(self, d: dict[Any, Any], indent: int) -> tuple[list[str], int, int]:
        block = self.blocks.get(id(d))
        if block is not None:
            if block[0] == indent:
                return block[1], block[2], block[3]
            return self._moved(block, indent)
        key, keys, values = self.key, self.keys, self.values
        pad = "\n" + " " * indent
        pad2 = pad + "  "
        pieces: list[str] = []
        add, extend = pieces.append, pieces.extend
        longest = 0
        size = -len(pad)  # no line break before the first line
        for k, v in d.items():
            if size >= 0:
                add(pad)
            size += len(pad)
            # inline: the keys and strings met before (most of a large report's)
            head = keys.get(k) if type(k) is str else None
            if head is None:
                head = key(k)
            t = type(v)
            if t is dict:
                if v:
                    inner_pieces, inner, inner_size = self.mapping(v, indent + 2)
                    line = head + ":"
                    add(line)
                    add(pad2)
                    extend(inner_pieces)
                    size += len(line) + len(pad2) + inner_size
                    if inner > longest:
                        longest = inner
                else:
                    line = head + ": {}"
                    add(line)
                    size += len(line)
            elif t is list:
                if v:
                    # a list in a mapping is not indented
                    inner_pieces, inner, inner_size = self.sequence(v, indent)
                    line = head + ":"
                    add(line)
                    add(pad)
                    extend(inner_pieces)
                    size += len(line) + len(pad) + inner_size
                    if inner > longest:
                        longest = inner
                else:
                    line = head + ": []"
                    add(line)
                    size += len(line)
            else:
                r = values.get(v) if t is str else None
                line = head + ": " + (r if r is not None else self.value(v))
                add(line)
                size += len(line)
            if len(line) + indent > longest:
                longest = len(line) + indent
        return self._done(d, indent, pieces, longest, max(size, 0))

    def sequence(self, items: list[Any], indent: int) -> tuple[list[str], int, int]:
        block = self.blocks.get(id(items))
        if block is not None:
            if block[0] == indent:
                return block[1], block[2], block[3]
            return self._moved(block, indent)
        pad = "\n" + " " * indent
        pieces: list[str] = []
        add, extend = pieces.append, pieces.extend
        longest = 0
        size = -len(pad)
        values = self.values
        for v in items:
            if size >= 0:
                add(pad)
            size += len(pad)
            t = type(v)
            if t is dict:
                if v:
                    inner_pieces, inner, inner_size = self.mapping(v, indent + 2)
                    add("- ")
                    extend(inner_pieces)
                    size += 2 + inner_size
                    if inner > longest:
                        longest = inner
                    continue
                line = "- {}"
            elif t is list:
                if v:
                    inner_pieces, inner, inner_size = self.sequence(v, indent + 2)
                    add("- ")
                    extend(inner_pieces)
                    size += 2 + inner_size
                    if inner > longest:
                        longest = inner
                    continue
                line = "- []"
            else:
                r = values.get(v) if t is str else None
                line = "- " + (r if r is not None else self.value(v))
            add(line)
            size += len(line)
            if len(line) + indent > longest:
                longest = len(line) + indent
        return self._done(items, indent, pieces, longest, max(size, 0))


# a container's text up to this length is kept as one string (_BlockWriter)
_JOINED = 1 << 13


class Strings:
    """What the block writer learns of strings and keys (how PyYAML writes each), kept across the
    documents of one report written in parts (report/stream.py); bounded."""

    __slots__ = ("keys", "values")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.keys: dict[str, str] = {}


def dump_block(data: Any, strings: Strings | None = None) -> str:
    """``data`` as yaml.dump(data, **_OPTIONS) with _Dumper writes it; ``strings``: what earlier
    documents learnt of their strings."""
    if type(data) is dict and data:
        try:
            writer = _BlockWriter()
            if strings is not None:
                if len(strings.values) + len(strings.keys) > 100_000:
                    strings.values.clear()
                    strings.keys.clear()
                writer.values, writer.keys = strings.values, strings.keys
            return writer.document(data)
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
