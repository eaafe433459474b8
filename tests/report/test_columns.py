"""The node table's direct layout writes what tabulate's plain format writes, byte for byte, and
hands tabulate every table whose cells it is not certain of."""

from __future__ import annotations

import random

import pytest
from tabulate import tabulate

from kwhatif.report.formats import columns
from kwhatif.report.formats.columns import plain_table


def _tabulate(rows: list[list[str]], headers: list[str]) -> str:
    return str(tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True))


_CELLS = [
    *("", "-", "0", "12", "300", "1e3", "0x1F", "True", "False", "None", "nan", "-5", "+1", "1,000", "3.50"),
    *("node-00087", "best", "fits", "a b", " lead", "trail ", "x" * 40, "ünï", "中文", "😀", "\x1b[31mred\x1b[0m"),
    *("tab\there", "line\nbreak", "cr\r", "^[", "\\n", "|", "{}", "{0}", "%s", "  ", "\x1f"),
]


def _random_table(rng: random.Random, alphabet: list[str]) -> tuple[list[list[str]], list[str]]:
    cols = rng.randrange(1, 7)
    headers = [rng.choice(["NODE", "VERDICT", "TOTAL", "Fit", "", "A", "LONG HEADING"]) for _ in range(cols)]
    rows = [[rng.choice(alphabet) + rng.choice(alphabet) for _ in range(cols)] for _ in range(rng.randrange(1, 6))]
    return rows, headers


def test_direct_layout_is_tabulates_on_random_tables():
    rng = random.Random(7)
    plain = [c for c in _CELLS if columns._direct([[c]], ["H"])]
    assert len(plain) > 15
    direct = 0
    for i in range(6000):
        rows, headers = _random_table(rng, plain if i % 2 else _CELLS)
        direct += columns._direct(rows, headers)
        assert plain_table(rows, headers) == _tabulate(rows, headers), (rows, headers)
    assert direct > 2500


@pytest.mark.parametrize(
    "cell",
    [" lead", "trail ", "ünï", "中文", "😀", "\x1b[31mred\x1b[0m", "tab\there", "line\nbreak", "\x1f", "\x7f"],
)
def test_cells_it_is_not_certain_of_go_to_tabulate(cell):
    assert not columns._direct([["node-1", cell]], ["NODE", "WHY"])
    assert plain_table([["node-1", cell]], ["NODE", "WHY"]) == _tabulate([["node-1", cell]], ["NODE", "WHY"])


def test_ragged_rows_go_to_tabulate():
    rows = [["a", "b"], ["c"]]
    assert not columns._direct(rows, ["X", "Y"])
    assert plain_table(rows, ["X", "Y"]) == _tabulate(rows, ["X", "Y"])


def test_node_table_layout():
    rows = [["node-00087", "best", "300", "666"], ["n-2", "fits", "7", "12"]]
    assert plain_table(rows, ["NODE", "VERDICT", "Taint", "TOTAL"]) == (
        "NODE        VERDICT    Taint    TOTAL\nnode-00087  best       300      666\nn-2         fits       7        12"
    )
