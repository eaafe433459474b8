"""formats/escape.py: each medium's escaping, character by character."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest
import yaml

from kwhatif.escape import (
    escape_strings,
    github_data,
    github_property,
    guard_commands,
    html_text,
    json_text,
    markdown,
    markdown_code,
    markdown_line,
    visible,
)
from kwhatif.report.verdict import Verdict

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
NAMED = {"\x1b": "^[", "\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _expected_visible(c: str) -> str:
    if c in NAMED:
        return NAMED[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


@pytest.mark.parametrize("char", [*C0, "\x7f", *C1], ids=lambda c: f"U+{ord(c):04X}")
def test_visible_makes_every_control_character_visible(char):
    out = visible(f"a{char}b")
    assert out == f"a{_expected_visible(char)}b"
    assert out.isprintable()


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("\x1b]0;title\x07", "^[]0;title\\x07", id="osc-title"),
        pytest.param("\x1b[31mred\x1b[0m", "^[[31mred^[[0m", id="sgr-as-kubectl"),
        pytest.param("a\r\nb", "a\\r\\nb", id="crlf"),
        pytest.param("\x00", "\\x00", id="nul"),
        pytest.param("\x7f", "\\x7f", id="del"),
        pytest.param("\x9b31m", "\\x9b31m", id="c1-csi"),
        pytest.param("\u2028\u2029", "\\u2028\\u2029", id="line-separators"),
        pytest.param("\u202eevil\u2066", "\\u202eevil\\u2066", id="bidi"),
        pytest.param("\ud800", "\\ud800", id="lone-surrogate"),
        pytest.param("\ufffe\uffff", "\\ufffe\\uffff", id="non-characters"),
        pytest.param("node-1 ü 名前 \\n", "node-1 ü 名前 \\n", id="ordinary-kept"),
    ],
)
def test_visible(text, expected):
    assert visible(text) == expected


def test_visible_returns_an_ordinary_string_itself():
    s = "node-a: Insufficient cpu"
    assert visible(s) is s


@pytest.mark.parametrize(
    "text, data, prop",
    [
        pytest.param("plain", "plain", "plain", id="plain"),
        pytest.param("100%", "100%25", "100%25", id="percent"),
        pytest.param("a\nb\rc", "a%0Ab%0Dc", "a%0Ab%0Dc", id="eol"),
        pytest.param("x\n::error file=a::forged", "x%0A::error file=a::forged", None, id="forged-command"),
        pytest.param("f.yaml:3,x", "f.yaml:3,x", "f.yaml%3A3%2Cx", id="property-separators"),
        pytest.param("\x1b[2J\x00\t", "^[[2J\\x00\\t", "^[[2J\\x00\\t", id="controls-visible"),
        pytest.param("%0A", "%250A", "%250A", id="already-encoded-looking"),
    ],
)
def test_github(text, data, prop):
    assert github_data(text) == data
    if prop is not None:
        assert github_property(text) == prop
    assert "\n" not in github_data(text) and "\r" not in github_property(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("Insufficient cpu", "Insufficient cpu", id="ordinary"),
        pytest.param("[example.com/quota-check]", "[example.com/quota-check]", id="brackets-alone"),
        pytest.param("snake_case", "snake_case", id="underscore-in-word"),
        pytest.param("a|b", "a\\|b", id="pipe"),
        pytest.param("`code`", "\\`code\\`", id="backtick"),
        pytest.param("*em* _em_ ~del~", "\\*em\\* \\_em\\_ \\~del\\~", id="emphasis"),
        pytest.param("[x](http://e.vil)", "[x\\](http\\://e.vil)", id="link"),
        pytest.param("![i][ref]", "![i\\][ref]", id="image-reference"),
        pytest.param("<b>hi</b>", "\\<b\\>hi\\</b\\>", id="html"),
        pytest.param("<https://e.vil>", "\\<https\\://e.vil\\>", id="autolink"),
        pytest.param("www.e.vil", "www\\.e.vil", id="www-autolink"),
        pytest.param("me@e.vil", "me\\@e.vil", id="email-autolink"),
        pytest.param("&lt;", "\\&lt;", id="entity"),
        pytest.param("a\\b", "a\\\\b", id="backslash"),
        pytest.param("a\nb\x1b", "a\\\\nb^[", id="controls-visible-then-escaped"),
    ],
)
def test_markdown(text, expected):
    assert markdown(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("0/3 nodes are available", "0/3 nodes are available", id="ordinary"),
        pytest.param("# heading", "\\# heading", id="heading"),
        pytest.param("- item", "\\- item", id="list"),
        pytest.param("+ item", "\\+ item", id="list-plus"),
        pytest.param("===", "\\===", id="setext"),
        pytest.param("12. item", "12\\. item", id="ordered-list"),
        pytest.param("3) item", "3\\) item", id="ordered-list-paren"),
        pytest.param("[a]: http://e.vil", "\\[a]: http\\://e.vil", id="reference-definition"),
        pytest.param("::error::forged", "\\::error::forged", id="workflow-command"),
        pytest.param("> quote", "\\> quote", id="quote"),
    ],
)
def test_markdown_line(text, expected):
    assert markdown_line(text) == expected


@pytest.mark.parametrize(
    "text, table, expected",
    [
        pytest.param("node-a", True, "`node-a`", id="ordinary"),
        pytest.param("a`b", False, "``a`b``", id="backtick-inside"),
        pytest.param("``x", False, "``` ``x ```", id="leading-backticks-padded"),
        pytest.param("a|b", True, "`a\\|b`", id="pipe-in-table"),
        pytest.param("a|b", False, "`a|b`", id="pipe-outside-table"),
        pytest.param("a\nb", True, "`a\\nb`", id="newline"),
    ],
)
def test_markdown_code(text, table, expected):
    assert markdown_code(text, table=table) == expected


def test_html_text():
    assert html_text('<b a="1">&\x1b') == "&lt;b a=&quot;1&quot;&gt;&amp;^["


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("::error::x", "\\::error::x", id="at-start"),
        pytest.param("a\n  ::warning::x\n", "a\n  \\::warning::x\n", id="indented"),
        pytest.param("a\n\t::notice::x", "a\n\t\\::notice::x", id="tab-indented"),
        pytest.param("a ::error::x", "a ::error::x", id="not-at-start"),
        pytest.param("a:\n:b", "a:\n:b", id="single-colon"),
    ],
)
def test_guard_commands(text, expected):
    assert guard_commands(text) == expected


def test_guard_commands_in_xml_is_a_character_reference():
    doc = guard_commands("<a>x\n::error::y</a>", "&#58;")
    assert doc == "<a>x\n&#58;:error::y</a>"
    assert ET.fromstring(doc).text == "x\n::error::y"


@pytest.mark.parametrize(
    "value",
    ["\x85", "\u2028", "\u202e", "\ud800", "\x9b[2J", "plain"],
    ids=["c1", "ls", "bidi", "surrogate", "csi", "plain"],
)
def test_json_text_keeps_the_value(value):
    text = json_text(json.dumps({"k": value}, ensure_ascii=False))
    assert json.loads(text) == {"k": value}
    assert text.isascii() or value == "plain"
    text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class _Inner:
    name: str
    verdict: Verdict
    count: int = 0


@dataclass(frozen=True, slots=True)
class _Outer:
    title: str
    inner: tuple[_Inner, ...]
    labels: dict[str, str]
    same: _Inner | None = None


def test_escape_strings_walks_dataclasses_tuples_and_mappings():
    shared = _Inner("a\nb", Verdict.FITS, 3)
    report = _Outer("t\x1b", (shared, _Inner("ok", Verdict.FITS)), {"k\n": "v\t"}, same=shared)
    out = escape_strings(report, visible)
    assert out == _Outer(
        "t^[", (_Inner("a\\nb", Verdict.FITS, 3), _Inner("ok", Verdict.FITS)), {"k\\n": "v\\t"}, same=out.inner[0]
    )
    assert out.same is out.inner[0]  # a shared object stays shared
    assert out.inner[1] is report.inner[1]  # nothing to escape: the same object
    assert out.inner[0].verdict is Verdict.FITS
    assert report.title == "t\x1b"  # the report itself is unchanged


def test_escape_strings_returns_a_clean_report_itself():
    report = _Outer("t", (_Inner("a", Verdict.FITS),), {"k": "v"})
    assert escape_strings(report, visible) is report


def test_escape_strings_tuples_of_records_met_before():
    clean, dirty = _Inner("ok", Verdict.FITS), _Inner("a\x1bb", Verdict.FITS)
    report = [
        _Outer("t", (clean,), {}),
        _Outer("t", (clean, dirty), {}),
        _Outer("t", (dirty,), {}),
        _Outer("t", (clean,), {}),
        (clean, clean),
        (clean, dirty),
    ]
    out = escape_strings(report, visible)
    assert out[0] is report[0] and out[3] is report[3]  # tuples of records kept as they are
    assert out[1].inner == (clean, _Inner("a^[b", Verdict.FITS)) and out[1].inner[0] is clean
    assert out[2].inner[0] is out[1].inner[1]  # the escaped record, met again, is the same copy
    assert out[4] is report[4]
    assert out[5] == (clean, out[1].inner[1]) and out[5][1] is out[1].inner[1]
    assert report[1].inner[1].name == "a\x1bb"


# --- the formatters ------------------------------------------------------------------------------

FORGED = "x\n::error file=a::forged"


def _hostile_report():
    from kwhatif.framework.types import PodOutcome
    from kwhatif.report.groups import GroupEntry
    from kwhatif.report.schedule import FilterEntry, NodeEntry, PodRef, PodResult, ScheduleReport

    taint = FilterEntry("TaintToleration", "UnschedulableAndUnresolvable", (f"taint {{k: {FORGED}}}",))
    result = PodResult(
        pod=PodRef("default", "web"),
        status=PodOutcome.UNSCHEDULABLE,
        profile="default-scheduler",
        priority=0,
        node=None,
        tie=(),
        best_score=None,
        message=f"0/1 nodes are available: 1 taint {{k: {FORGED}}}.",
        pre_filter=(),
        nodes=(NodeEntry("evil\x1b]0;t\x07", False, (taint,)),),
        preemption=None,
        binding=None,
        weights={},
        # words that a wrap to the terminal's width puts at the start of a line
        hints=("tolerate the taint of the node named " + "a" * 30 + " ::error::wrapped",),
        notes=("annotation \x9b2J",),
    )
    group = GroupEntry("default/g\n::error::g", None, "", "gang", 2, 2, 0, "waiting", "cond\n::warning::msg")
    return ScheduleReport("default-scheduler", (result,), 1, notes=("::notice::note",), groups=(group,))


@pytest.mark.parametrize("fmt", ["table", "wide", "markdown", "junit"])
@pytest.mark.parametrize("width", [0, 40])
def test_formatters_write_no_control_character_and_no_command_line(fmt, width):
    from kwhatif.report.formats.formatter import RenderOptions
    from kwhatif.report.formats.output import get_formatter

    out = get_formatter(fmt, RenderOptions(width=width)).format(_hostile_report())
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", out), repr(out)
    assert not [ln for ln in out.splitlines() if ln.lstrip().startswith("::")], out
    if fmt == "junit":
        ET.fromstring(out)


def test_table_shows_the_visible_forms():
    from kwhatif.report.formats.output import get_formatter

    out = get_formatter("table").format(_hostile_report())
    assert "evil^[]0;t\\x07" in out
    assert "taint {k: x\\n::error file=a::forged}" in out
    assert "pod group default/g\\n::error::g" in out
    assert "  cond\\n::warning::msg" in out.splitlines()
    assert "note: annotation \\x9b2J" in out
    assert "\\::notice::note" not in out and "note: ::notice::note" in out  # not at a line's start


def test_table_guard_breaks_a_wrapped_command():
    from kwhatif.report.formats.formatter import RenderOptions
    from kwhatif.report.formats.output import get_formatter

    out = get_formatter("table", RenderOptions(width=40)).format(_hostile_report())
    assert "        \\::error::wrapped" in out.splitlines()


def test_table_node_filter_matches_the_printed_name():
    from kwhatif.report.formats.formatter import RenderOptions
    from kwhatif.report.formats.output import get_formatter

    out = get_formatter("table", RenderOptions(nodes=("evil\x1b]0;t\x07", "gone\n"))).format(_hostile_report())
    assert "no such node: gone\\n" in out
    assert "  evil^[]0;t\\x07" in out


def test_json_and_yaml_keep_the_values():
    from kwhatif.report.formats.output import get_formatter

    report = _hostile_report()
    doc = json.loads(get_formatter("json").format(report))
    assert doc["results"][0]["nodes"][0]["name"] == "evil\x1b]0;t\x07"
    assert doc["results"][0]["message"] == f"0/1 nodes are available: 1 taint {{k: {FORGED}}}."
    text = get_formatter("yaml").format(report)
    assert not [ln for ln in text.splitlines() if ln.lstrip().startswith("::")], text
    ydoc = yaml.safe_load(text)
    assert ydoc["results"][0]["message"] == doc["results"][0]["message"]
    assert ydoc["results"][0]["nodes"][0]["name"] == "evil\x1b]0;t\x07"


@pytest.mark.parametrize(
    "text, escaped",
    [
        pytest.param("a ##[error]x", "a #\\#[error]x", id="anywhere-in-a-line"),
        pytest.param("###[x", "##\\#[x", id="three-hashes"),
        pytest.param("## [x] #[", "## [x] #[", id="not-a-command"),
    ],
)
def test_guard_commands_legacy_form(text, escaped):
    assert guard_commands(text) == escaped
    assert "##[" not in guard_commands(text, "&#58;", "&#35;")


def test_json_text_legacy_command_is_an_escape():
    text = json_text(json.dumps(["x ##[error]y", "###["], ensure_ascii=False))
    assert "##[" not in text
    assert json.loads(text) == ["x ##[error]y", "###["]
