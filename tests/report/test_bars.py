"""Utilisation bars in the capacity and drain tables: the cells (amounts, percents, bar cells),
and the tables as each terminal draws them (snapshots: a pipe, terminals of two widths, colour
forced, NO_COLOR, an encoding that is not UTF-8), the terminal decided by cli/env.py's Environment."""

from __future__ import annotations

import io

import pytest

from kwhatif.cli.env import Environment
from kwhatif.cli.run import render_options
from kwhatif.report.base import OutputFormat
from kwhatif.report.capacity import NodeUsage
from kwhatif.report.formats import bars
from kwhatif.report.formats.formatter import AnyReport
from kwhatif.report.formats.output import get_formatter
from tests.report import SNAPSHOTS
from tests.report.test_reports import capacity_of, drain_cluster, drain_of

MI = 1024 * 1024


def plain(text: str, color: str) -> str:
    return text


def tagged(text: str, color: str) -> str:
    return f"<{color}>{text}</{color}>"


@pytest.mark.parametrize(
    "resource, value, text",
    [
        pytest.param("cpu", 1350, "1350m", id="cpu-millicores"),
        pytest.param("memory", 1536 * MI, "1536Mi", id="memory-mi"),
        pytest.param("memory", MI - 1, "0Mi", id="memory-under-one-mi"),
        pytest.param("pods", 12, "12", id="pods-count"),
    ],
)
def test_amount(resource, value, text):
    assert bars.amount(resource, value) == text


@pytest.mark.parametrize(
    "requested, allocatable, pct",
    [
        pytest.param(1350, 2000, 67, id="rounds-down"),
        pytest.param(1999, 2000, 99, id="never-rounds-up-to-full"),
        pytest.param(3300, 2000, 165, id="overcommitted"),
        pytest.param(5, 0, 0, id="nothing-allocatable"),
    ],
)
def test_percent(requested, allocatable, pct):
    assert bars.percent(requested, allocatable) == pct


@pytest.mark.parametrize(
    "before, after, alloc, glyphs, text",
    [
        pytest.param(0, 0, 100, bars.ASCII, "..........", id="empty"),
        pytest.param(50, 50, 100, bars.ASCII, "#####.....", id="unchanged-half"),
        pytest.param(20, 70, 100, bars.ASCII, "##<yellow>+++++</yellow>...", id="added"),
        pytest.param(70, 20, 100, bars.ASCII, "##<green>-----</green>...", id="freed"),
        pytest.param(1, 1, 1000, bars.ASCII, "#.........", id="small-request-shows-a-cell"),
        pytest.param(0, 3000, 2000, bars.ASCII, "<yellow>++++++++++</yellow>", id="over-allocatable-is-full"),
        pytest.param(20, 70, 100, bars.UNICODE, "██<yellow>▓▓▓▓▓</yellow>···", id="unicode"),
        pytest.param(10, 10, 0, bars.ASCII, "..........", id="nothing-allocatable"),
    ],
)
def test_bar(before, after, alloc, glyphs, text):
    assert bars.bar(before, after, alloc, 10, glyphs, tagged) == text


USAGE = NodeUsage(
    "n1",
    {},
    {"cpu": 2000, "memory": 4096 * MI, "pods": 110},
    {"cpu": 500, "memory": 1024 * MI, "pods": 3},
    {"cpu": 1900, "memory": 1024 * MI, "pods": 5},
)


@pytest.mark.parametrize(
    "resource, full, text",
    [
        pytest.param("cpu", True, "###+++++++ 500m->1900m/2000m 25%-><red>95%</red>", id="cpu-changed-full"),
        pytest.param("cpu", False, "###+++++++ 25%-><red>95%</red>", id="cpu-changed-compact"),
        pytest.param("memory", True, "###....... 1024Mi/4096Mi <green>25%</green>", id="memory-unchanged-full"),
        pytest.param("memory", False, "###....... <green>25%</green>", id="memory-unchanged-compact"),
        pytest.param("pods", True, "#......... 3->5/110 2%-><green>4%</green>", id="pods"),
    ],
)
def test_cell(resource, full, text):
    painted = text.replace("+++++++", "<yellow>+++++++</yellow>")
    assert bars.cell(USAGE, resource, full, 10, bars.ASCII, tagged) == painted


def test_cell_levels():
    """The after percent is green below 70%, yellow to 90%, red from 90%."""
    for cpu, level in [(1399, "green"), (1400, "yellow"), (1799, "yellow"), (1800, "red")]:
        u = NodeUsage("n", {}, {"cpu": 2000}, {"cpu": cpu}, {"cpu": cpu})
        assert bars.cell(u, "cpu", False, 4, bars.ASCII, tagged).endswith(f"</{level}>")


@pytest.mark.parametrize(
    "width, bar_len, amounts, longest",
    [
        pytest.param(0, 10, True, 115, id="no-terminal-full"),
        pytest.param(115, 10, True, 115, id="full-fits-exactly"),
        pytest.param(114, 10, False, 74, id="amounts-dropped"),
        pytest.param(73, 6, False, 62, id="shorter-bars"),
        pytest.param(61, 4, False, 56, id="shortest-bars"),
        pytest.param(40, 4, False, 56, id="narrower-than-the-narrowest"),
    ],
)
def test_usage_table_narrows_to_the_width(width, bar_len, amounts, longest):
    text = bars.usage_table([(["n1", "3"], USAGE)], ["NODE", "COPIES"], width, bars.ASCII, plain)
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) == longest
    assert len(lines[1].split()[2]) == bar_len
    assert ("500m->1900m/2000m" in text) is amounts


def test_usage_table_width_ignores_colour_codes():
    """Colour codes take no columns: a coloured table narrows exactly as a plain one."""
    rows = [(["n1", "3"], USAGE)]
    for width in (0, 80, 60):
        colored = bars.usage_table(rows, ["NODE", "COPIES"], width, bars.ASCII, lambda t, c: f"\x1b[31m{t}\x1b[0m")
        uncolored = bars.usage_table(rows, ["NODE", "COPIES"], width, bars.ASCII, plain)
        assert [bars.visible_len(ln) for ln in colored.splitlines()] == [len(ln) for ln in uncolored.splitlines()]


# --- the tables as each terminal draws them ------------------------------------------------------------

TERMINALS = {
    # not a terminal: no colour, ASCII, lines whole
    "pipe": (dict(stdout_isatty=False), "auto"),
    # a UTF-8 terminal of 160 columns: colour, block characters, amounts shown
    "tty160": (dict(stdout_isatty=True, terminal_width=160), "auto"),
    # 80 columns: the amounts dropped, bars shorter
    "tty80": (dict(stdout_isatty=True, terminal_width=80), "auto"),
    # NO_COLOR: block characters, no colour
    "tty160-no-color": (dict(stdout_isatty=True, terminal_width=160, no_color=True), "auto"),
    # --color never on a terminal
    "tty80-color-never": (dict(stdout_isatty=True, terminal_width=80), "never"),
    # --color always into a pipe: colour, ASCII
    "pipe-color-always": (dict(stdout_isatty=False), "always"),
    # a terminal that does not write UTF-8: ASCII
    "tty80-latin1": (dict(stdout_isatty=True, terminal_width=80, stdout_encoding="latin-1"), "auto"),
}


def draw(report: AnyReport, terminal: str) -> str:
    fields, color = TERMINALS[terminal]
    env = Environment(io.StringIO(), io.StringIO(), **fields)  # type: ignore[arg-type]
    text = get_formatter(OutputFormat.TABLE, render_options(env, color)).format(report)
    return text.replace("\x1b", "\\x1b")  # escape codes readable in the snapshot


REPORTS = {
    "capacity": lambda: capacity_of(6),
    "drain": lambda: drain_of(drain_cluster("2500m"), "worker-1"),
}


@pytest.mark.parametrize("terminal", list(TERMINALS))
@pytest.mark.parametrize("kind", list(REPORTS))
def test_bars_snapshot(snapshot, kind, terminal):
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(draw(REPORTS[kind](), terminal), f"{kind}-bars-{terminal}.table.txt")


def _bar_lines(text: str) -> list[str]:
    """The lines of the node table with the bars (from its heading to the legend)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith("NODE") and "CPU" in ln)
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("bars:"))
    return lines[start:end]


@pytest.mark.parametrize("kind", list(REPORTS))
@pytest.mark.parametrize(
    "terminal", ["pipe", "tty160", "tty80", "tty160-no-color", "pipe-color-always", "tty80-latin1"]
)
def test_bars_follow_the_terminal(kind, terminal):
    fields, _ = TERMINALS[terminal]
    text = draw(REPORTS[kind](), terminal)
    colored = "\\x1b[" in text
    assert colored is (terminal in ("tty160", "tty80", "pipe-color-always", "tty80-latin1"))
    block = "█" in text or "·" in text
    assert block is (terminal in ("tty160", "tty80", "tty160-no-color"))
    assert ("." in "".join(_bar_lines(text))) is not block
    width = fields.get("terminal_width") if fields["stdout_isatty"] else None
    if width:
        raw = text.replace("\\x1b", "\x1b")
        assert max(bars.visible_len(ln) for ln in _bar_lines(raw)) <= width
    amounts = "/2000m" in text
    assert amounts is (width is None or width >= 160)


def test_large_cluster_lists_the_nodes_the_what_if_changes():
    """Past the grouping threshold a capacity table lists the nodes that take copies and a drain
    table the drained nodes and those that take replacements; the others are counted."""
    cap = capacity_of(6)
    drn = drain_of(drain_cluster("2500m"), "worker-1")
    from kwhatif.report.formats.formatter import RenderOptions

    fmt = get_formatter(OutputFormat.TABLE, RenderOptions(group_threshold=2))
    text = fmt.format(cap)
    assert [ln.split()[0] for ln in _bar_lines(text)[1:]] == ["worker-1", "worker-2"]
    assert "  1 more node(s) take no copy (-o json lists every node)" in text.splitlines()
    text = fmt.format(drn)
    assert [ln.split()[:2] for ln in _bar_lines(text)[1:]] == [["worker-1", "drained"], ["worker-2", "+1"]]
    assert "  1 more node(s) unchanged (-o json lists every node)" in text.splitlines()


def test_drain_usage_in_json():
    doc = drain_of(drain_cluster("2500m"), "worker-1").to_dict()
    by_name = {u["name"]: u for u in doc["usage"]}
    assert sorted(by_name) == ["gpu-1", "worker-1", "worker-2"]
    # web-1 (500m) lands on worker-2; worker-1 keeps its DaemonSet, static and PDB-protected pods
    assert by_name["worker-2"]["requestedBefore"]["cpu"] == 0
    assert by_name["worker-2"]["requestedAfter"]["cpu"] == 500
    assert by_name["worker-1"]["requestedBefore"]["cpu"] == 3300
    assert by_name["worker-1"]["requestedAfter"]["cpu"] == 200
    assert by_name["worker-1"]["allocatable"] == {"cpu": 2000, "memory": 4 * 1024 * MI, "pods": 110}
