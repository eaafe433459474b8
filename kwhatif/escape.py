"""Strings from the inputs (names, labels, taints, messages, reasons, file names) escaped for the
medium they are printed in, so that no input can move the cursor, retitle a terminal, start a new
line in a table, make Markdown links or HTML, break an XML document or issue a GitHub Actions
workflow command. -o json and -o yaml keep the exact values (json_text only writes some
characters as JSON escapes).

The visible forms (``visible``): kubectl's printers turn ESC into ``^[`` and CR into ``\\r``
(k8s.io/cli-runtime printers.EscapeTerminal); kwhatif does the same and makes every other control
character visible too: LF ``\\n``, TAB ``\\t``, the other C0 characters, DEL and the C1 characters
``\\xNN``; the Unicode line and paragraph separators, the bidirectional controls, lone surrogates
and the non-characters U+FFFE/U+FFFF ``\\uNNNN``. A backslash is left as it is (as kubectl leaves
it), so the forms read well but are not reversible.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import html
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

# DEL, C1, the line and paragraph separators, the bidirectional controls, lone surrogates, U+FFFE/F
_NOT_C0 = "\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
_CONTROL = re.compile(f"[\x00-\x1f{_NOT_C0}]")
# the same but LF and CR, left for the GitHub toolkit's percent-encoding
_CONTROL_NOT_EOL = re.compile(f"[\x00-\x09\x0b\x0c\x0e-\x1f{_NOT_C0}]")
_NAMED = {"\x1b": "^[", "\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _visible_char(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def visible(s: str) -> str:
    """Every control character of ``s`` in its visible form: one line, nothing a terminal acts on.
    For -o table and -o wide cells, standard error, and the text of -o junit (whose XML 1.0 has no
    way to write most C0 characters at all)."""
    if not _CONTROL.search(s):
        return s
    return _CONTROL.sub(_visible_char, s)


_JSON_CHARS = re.compile(f"[{_NOT_C0}]")


def json_text(text: str) -> str:
    """A JSON text (json.dumps with ensure_ascii=False, which escapes C0 itself) with the other
    control characters, separators, bidirectional controls and lone surrogates written as \\uNNNN
    escapes: the same values when parsed, nothing a terminal acts on when printed, and always
    encodable as UTF-8. They can only occur inside strings, as JSON's own syntax is ASCII. The
    second ``#`` of ``##[`` too, which a GitHub Actions log would read as a legacy command."""
    # two scans, each at C speed (one pattern with both would test the lookbehind at every place)
    if not text.isascii() or "\x7f" in text:
        text = _JSON_CHARS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if "##[" in text:
        text = text.replace("##[", "#\\u0023[")
    return text


# --- GitHub Actions workflow commands ---------------------------------------------------------


def github_data(s: str) -> str:
    """The message of a workflow command, as @actions/core's toolkit encodes it (``%``, CR and LF
    percent-encoded; the runner decodes them, a message may span lines), the other control
    characters visible."""
    if _CONTROL_NOT_EOL.search(s):
        s = _CONTROL_NOT_EOL.sub(_visible_char, s)
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(s: str) -> str:
    """A property value of a workflow command (``file=``, ``title=``): the message's encoding and
    ``:`` and ``,``, which end a property."""
    return github_data(s).replace(":", "%3A").replace(",", "%2C")


# --- Markdown -----------------------------------------------------------------------------------

# Inline metacharacters: code spans, emphasis, strikethrough, autolinks and HTML, table cells,
# entities, and what makes a link or an image of brackets ("](", "]["); a bracket alone, and "_"
# inside a word, make nothing and are left as they are. A backslash escapes any ASCII punctuation.
_MD_INLINE = re.compile(r"[\\`*~<>|&]|\](?=[(\[])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# GitHub's extended autolinks (www., scheme://, e-mail addresses) need no brackets
_MD_AUTOLINK = re.compile(r"(?i)(?<=www)\.|:(?=//)|@")
# What makes a line a heading, a list item or a thematic break when it starts it, and the start of
# a workflow command
_MD_LINE_START = re.compile(r"^(\s*)([#+=\-\[]|:(?=:))")
_MD_LIST_NUMBER = re.compile(r"^(\s*\d+)([.)])")


def markdown(s: str) -> str:
    """Text in a Markdown paragraph or table cell: visible controls, metacharacters backslash-
    escaped, so it renders as the same text and can make no link, HTML, emphasis or new cell."""
    s = visible(s)
    s = _MD_INLINE.sub(r"\\\g<0>", s)
    return _MD_AUTOLINK.sub(r"\\\g<0>", s)


def markdown_line(s: str) -> str:
    """Text that starts a line of Markdown: as ``markdown``, and what would make the line a
    heading, list item, thematic break or link reference definition (or a workflow command)
    escaped too."""
    s = markdown(s)
    if _MD_LIST_NUMBER.match(s):
        return _MD_LIST_NUMBER.sub(r"\1\\\2", s, count=1)
    return _MD_LINE_START.sub(r"\1\\\2", s, count=1)


def markdown_code(s: str, table: bool = False) -> str:
    """A code span: its content is literal in Markdown, so only the fence can be broken out of: the
    fence is one backtick longer than the longest run inside. In a table cell ``|`` is escaped
    (GitHub splits cells before it parses code spans)."""
    s = visible(s)
    if table:
        s = s.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith(("`", " ")) or s.endswith(("`", " ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def html_text(s: str) -> str:
    """Text inside raw HTML of a Markdown document (a <summary>): entities, visible controls."""
    return html.escape(visible(s), quote=True)


# --- a whole line that a CI log would run ----------------------------------------------------

_COMMAND_LINE = re.compile(r"^(\s*)::", re.MULTILINE)


def guard_commands(text: str, escaped: str = "\\:", hash_escaped: str = "\\#") -> str:
    """The backstop: no line of a document that is not -o github may begin (after its
    indentation, which the Actions runner trims) with ``::``, the start of a workflow command,
    nor hold ``##[`` anywhere, which the runner's legacy parser reads as a command wherever it
    is in a line. The first colon of such a line becomes ``escaped``, the second ``#`` of ``##[``
    ``hash_escaped`` (a backslash before them in a table or Markdown, a character reference in
    XML)."""
    if "::" in text:
        text = _COMMAND_LINE.sub(lambda m: m.group(1) + escaped + ":", text)
    if "##[" in text:
        text = text.replace("##[", "#" + hash_escaped + "[")
    return text


# --- a report, every string escaped ------------------------------------------------------------


_ATOM, _DATACLASS, _SEQUENCE, _NAMEDTUPLE, _MAPPING, _SET = range(6)
_PLAIN = frozenset((int, bool, float, type(None)))  # nothing to escape, nothing to look into


def _kind_of(t: type) -> tuple[int, tuple[str, ...]]:
    """How escape_strings treats values of type ``t`` (and, for a dataclass, its field names)."""
    if issubclass(t, (bool, int, float, enum.Enum, str, bytes)) or t is type(None):
        return _ATOM, ()  # enum members and str subclasses are kwhatif's own words
    if dataclasses.is_dataclass(t):
        return _DATACLASS, tuple(f.name for f in dataclasses.fields(t))
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return _NAMEDTUPLE, ()
    if issubclass(t, (tuple, list)):
        return _SEQUENCE, ()
    if issubclass(t, Mapping):
        return _MAPPING, ()
    if issubclass(t, (set, frozenset)):
        return _SET, ()
    return _ATOM, ()


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of a dataclass's fields, in one call."""
    if not names:
        return lambda v: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda v: (one(v),)
    return operator.attrgetter(*names)


@dataclasses.dataclass(slots=True)
class EscapeCache:
    """What escape_strings learns about strings and types, kept for its next calls with the same
    ``escape`` (a report written one result at a time meets the same names and reasons again)."""

    escape: Callable[[str], str]
    # each distinct string's escaped form, None when escaping leaves it as it is (so that an equal
    # string met as another object is kept as that object, and what holds it is not copied)
    escaped: dict[str, str | None] = dataclasses.field(default_factory=dict)
    kinds: dict[type, tuple[int, tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = dataclasses.field(
        default_factory=dict
    )
    # keep: the objects a call walked and kept as they are stay known to the next calls (results
    # that share records, pod after pod, walk each record once); they are held here, so that
    # their ids stay theirs, up to ``keep_limit`` of them (then forgotten at once). Only for
    # objects nobody changes once built (a report's).
    keep: bool = False
    keep_limit: int = 200_000
    kept: set[int] = dataclasses.field(default_factory=set)
    held: list[Any] = dataclasses.field(default_factory=list)


def escape_strings(obj: T, escape: Callable[[str], str], cache: EscapeCache | None = None) -> T:
    """A copy of ``obj`` (a report: dataclasses, tuples, lists, mappings) with ``escape`` applied to
    every string in it, keys of mappings included; enum members (kwhatif's own words) are kept.
    Objects with nothing to escape are returned as they are, so the cost is one walk; each
    distinct string is escaped once, and each type is classified once (across calls that share
    a ``cache`` of the same ``escape``)."""
    if cache is None:
        cache = EscapeCache(escape)
    elif cache.escape is not escape:
        raise ValueError("an EscapeCache serves one escape function")
    memo: dict[int, Any] = {}
    escaped = cache.escaped
    kinds = cache.kinds
    # the ids of the objects walked and kept as they are (the input's own, alive while it is
    # walked, or held by the cache): a sequence of nothing else is kept as it is without a look
    # at each item
    kept: set[int]
    held: list[Any]
    if cache.keep:
        if len(cache.kept) > cache.keep_limit:
            cache.kept.clear()
            cache.held.clear()
        kept, held = cache.kept, cache.held
    else:
        kept, held = set(), []
    all_kept = kept.issuperset
    hold = held.append

    def text(s: str) -> str:
        r = escape(s)
        escaped[s] = None if r == s else r
        return r if r != s else s

    def walk(v: Any) -> Any:
        t = type(v)
        if t is str:
            r = escaped.get(v, v)
            return text(v) if r is v else v if r is None else r
        kind = kinds.get(t)
        if kind is None:
            what, names = _kind_of(t)
            kind = kinds[t] = (what, names, _getter(names))
        what, names, fields = kind
        if what == _ATOM:
            return v
        key = id(v)
        if key in memo:
            return memo[key]
        if key in kept:
            return v
        out: Any = v
        if what == _DATACLASS:
            changed = None
            for name, old in zip(names, fields(v), strict=True):
                if type(old) is str:  # inline: most fields are strings or atoms
                    new = escaped.get(old, old)
                    if new is None:
                        continue
                    if new is old:
                        new = text(old)
                elif old is None or type(old) in _PLAIN:
                    continue
                elif type(old) is tuple and (id(old) in kept or all_kept(map(id, old))):
                    # inline: a tuple met before (records' tuples are shared), or of records met
                    # before, kept as it is
                    if id(old) not in kept:
                        kept.add(id(old))
                        hold(old)
                    continue
                else:
                    new = walk(old)
                if new is not old:
                    if changed is None:
                        changed = {}
                    changed[name] = new
            if changed:
                out = copy.copy(v)
                for name, new in changed.items():
                    object.__setattr__(out, name, new)
        elif what == _SEQUENCE or what == _NAMEDTUPLE:
            if all_kept(map(id, v)):  # at C speed: records met before, each kept as it is
                memo[key] = v
                kept.add(key)
                hold(v)
                return v
            # inline: the items of a report's tuples are mostly records met before (shared ones)
            items = []
            differ = False
            for x in v:
                tx = type(x)
                if tx in _PLAIN:
                    y = x
                elif tx is str:
                    y = escaped.get(x, x)
                    if y is None:
                        y = x
                    elif y is x:
                        y = text(x)
                elif id(x) in kept:
                    y = x
                else:
                    y = memo.get(id(x), memo)
                    if y is memo:
                        y = walk(x)
                if y is not x:
                    differ = True
                items.append(y)
            if differ:
                if what == _NAMEDTUPLE:
                    out = t(*items)
                elif isinstance(v, list):
                    out = items
                else:
                    out = tuple(items)
        elif what == _MAPPING:
            # inline: a report's mappings are mostly of strings to strings or numbers
            pairs = []
            differ = False
            for k, x in v.items():
                if type(k) is str:
                    k2 = escaped.get(k, k)
                    if k2 is None:
                        k2 = k
                    elif k2 is k:
                        k2 = text(k)
                else:
                    k2 = walk(k)
                tx = type(x)
                if tx in _PLAIN:
                    x2 = x
                elif tx is str:
                    x2 = escaped.get(x, x)
                    if x2 is None:
                        x2 = x
                    elif x2 is x:
                        x2 = text(x)
                else:
                    x2 = walk(x)
                if k2 is not k or x2 is not x:
                    differ = True
                pairs.append((k2, x2))
            if differ:
                out = dict(pairs)
        else:
            members = {walk(x) for x in v}
            if members != v:
                out = t(members)
        memo[key] = out
        if out is v:
            kept.add(key)
            hold(v)
        return out

    result: T = walk(obj)
    # walk is a closure that refers to itself: a cycle the collector frees later (or never while
    # it is paused, as it is while a streamed report is written), with all it refers to. Emptying
    # its cell breaks the cycle now.
    walk = _returned
    return result


def _returned(v: Any) -> Any:
    """What escape_strings's walk is once the call has returned (nothing calls it then)."""
    raise AssertionError("escape_strings has returned")
