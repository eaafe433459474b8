"""Per-node utilisation bars for the capacity and drain tables: cpu, memory and pods, each as
requested/allocatable the way kube-capacity prints them (cpu in millicores, memory in Mi), before
and after the what-if, with a bar that shows what was there, what the what-if adds and what it frees.

On a UTF-8 terminal the bars are block characters; anywhere else plain ASCII. The cells shrink
(amounts dropped, shorter bars) until the table fits the terminal width.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kwhatif.report.capacity import NodeUsage
from kwhatif.report.formats.columns import tabulate

# The resources a bar is drawn for, with their column heading.
RESOURCES = (("cpu", "CPU"), ("memory", "MEMORY"), ("pods", "PODS"))
_MI = 1024 * 1024
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

Painter = Callable[[str, str], str]  # (text, colour name) -> the text, coloured or not


@dataclass(frozen=True, slots=True)
class Glyphs:
    kept: str  # requested before and after
    added: str  # requested after only (the what-if's copies or replacements)
    freed: str  # requested before only (evicted by the what-if)
    free: str  # allocatable, not requested
    arrow: str


UNICODE = Glyphs("█", "▓", "░", "·", "→")
ASCII = Glyphs("#", "+", "-", ".", "->")

# (full: the amounts shown, bar length): tried in order until the table fits the terminal
_LAYOUTS = ((True, 10), (False, 10), (False, 6), (False, 4))


def amount(resource: str, value: int) -> str:
    """kube-capacity's units: cpu in millicores, memory in Mi, pods as a count."""
    if resource == "cpu":
        return f"{value}m"
    if resource == "memory":
        return f"{value // _MI}Mi"
    return str(value)


def percent(requested: int, allocatable: int) -> int:
    """Whole percent, rounded down as kube-capacity does."""
    return requested * 100 // allocatable if allocatable > 0 else 0


def bar(before: int, after: int, allocatable: int, length: int, glyphs: Glyphs, paint: Painter) -> str:
    """``length`` cells: kept, then added or freed, then free room; cells are rounded to the nearest
    and a request that is not zero shows at least one cell."""

    def cells(v: int) -> int:
        if allocatable <= 0 or v <= 0:
            return 0
        return min(length, max(1, (v * length * 2 + allocatable) // (allocatable * 2)))

    b, a = cells(before), cells(after)
    kept = min(a, b)
    out = glyphs.kept * kept
    if a > b:
        out += paint(glyphs.added * (a - b), "yellow")
    elif b > a:
        out += paint(glyphs.freed * (b - a), "green")
    return out + glyphs.free * (length - max(a, b))


def cell(u: NodeUsage, resource: str, full: bool, length: int, glyphs: Glyphs, paint: Painter) -> str:
    alloc = u.allocatable.get(resource, 0)
    before, after = u.before.get(resource, 0), u.after.get(resource, 0)
    pb, pa = percent(before, alloc), percent(after, alloc)
    level = "red" if pa >= 90 else "yellow" if pa >= 70 else "green"
    if before == after:
        pct = paint(f"{pa}%", level)
        text = f"{amount(resource, after)}/{amount(resource, alloc)} {pct}" if full else pct
    else:
        pct = f"{pb}%{glyphs.arrow}" + paint(f"{pa}%", level)
        text = (
            f"{amount(resource, before)}{glyphs.arrow}{amount(resource, after)}/{amount(resource, alloc)} {pct}"
            if full
            else pct
        )
    return f"{bar(before, after, alloc, length, glyphs, paint)} {text}"


def usage_table(
    rows: Sequence[tuple[list[str], NodeUsage]],
    headers: list[str],
    width: int,
    glyphs: Glyphs,
    paint: Painter,
    indent: str = "  ",
    align: Sequence[str] = (),
) -> str:
    """The rows (leading cells, aligned as ``align`` says, and the node's usage) with a bar column per
    resource; the first layout
    that fits ``width`` columns (0: any width) is taken, the narrowest one if none does."""
    text = ""
    for full, length in _LAYOUTS:
        body = [lead + [cell(u, r, full, length, glyphs, paint) for r, _ in RESOURCES] for lead, u in rows]
        text = tabulate(
            body,
            headers=headers + [h for _, h in RESOURCES],
            tablefmt="plain",
            disable_numparse=True,
            colalign=[*align, *["left"] * (len(headers) - len(align) + len(RESOURCES))],
        )
        text = "\n".join(indent + ln for ln in text.splitlines())
        if not width or max(visible_len(ln) for ln in text.splitlines()) <= width:
            break
    return text


def visible_len(line: str) -> int:
    """Columns a line takes on a terminal: without its colour codes."""
    return len(_ANSI.sub("", line))


def legend(glyphs: Glyphs, after: str) -> str:
    """What the bar characters and the amounts mean (``after``: what the what-if did)."""
    return (
        f"bars: {glyphs.kept} requested, {glyphs.added} added by {after}, {glyphs.freed} freed by {after}, "
        f"{glyphs.free} allocatable and free; requested/allocatable before{glyphs.arrow}after "
        "(cpu in millicores, memory in Mi)"
    )
