"""tabulate's "plain" table of strings (tabulate(rows, headers, tablefmt="plain",
disable_numparse=True)), laid out directly when every cell is one the layout is certain for.

For cells of printable ASCII with no space at either end (no ANSI code, no line break, no wide
character; nothing tabulate would strip), tabulate's plain format is: each column as wide as its
widest cell or its heading plus two, every cell and heading padded on the right to that width,
the cells of a line joined by two spaces and the line's trailing spaces dropped. A table of any
other cell goes to tabulate itself, as does one with a row shorter or longer than the headings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_SEP = "\x1f"  # not printable: no cell that takes the direct layout holds it


def tabulate(*args: Any, **kwargs: Any) -> str:
    """tabulate.tabulate, imported at its first call: a table that takes the direct layout never
    imports it, nor the importlib.metadata it imports (13 ms warm, 57 ms cold, by -X importtime)."""
    from tabulate import tabulate as tabulate_

    return str(tabulate_(*args, **kwargs))


def _direct(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> bool:
    """Whether the direct layout writes what tabulate writes for these cells."""
    n = len(headers)
    cells = [*headers]
    for row in rows:
        if len(row) != n:
            return False
        cells.extend(row)
    if any(type(c) is not str for c in cells):
        return False
    text = _SEP + _SEP.join(cells) + _SEP
    return (
        text.isascii()
        and text.replace(_SEP, "").isprintable()
        and text.count(_SEP) == len(cells) + 1
        and " " + _SEP not in text
        and _SEP + " " not in text
    )


def plain_table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    """``rows`` under ``headers`` as tabulate's plain format writes them (numbers not parsed)."""
    if not rows or not headers or not _direct(rows, headers):
        return str(tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True))
    widths = [len(h) + 2 for h in headers]
    for i in range(len(headers)):
        widest = max(len(row[i]) for row in rows)
        if widest > widths[i]:
            widths[i] = widest
    line = "  ".join(f"{{:<{w}}}" for w in widths).format
    return "\n".join([line(*headers).rstrip(), *(line(*row).rstrip() for row in rows)])
