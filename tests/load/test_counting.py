"""files.count_char and count_byte: str.count and bytes.count, with numpy's vector compare once
numpy is imported (a large input imports it), for any text: the UTF-8 of a non-ASCII character
never holds an ASCII byte."""

from __future__ import annotations

import sys

import pytest

from kwhatif.load import files

TEXTS = [
    "",
    ":",
    '{"a": "b:c"}\n' * 3000,
    ("é:ü\n☃:" * 5000) + "\U0001f600:\n",
    "\ud800:x\n" * 9000,  # a lone surrogate, as a JSON escape decodes it
]


@pytest.mark.parametrize("with_numpy", [False, True])
@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_counts_are_str_count(monkeypatch: pytest.MonkeyPatch, text: str, with_numpy: bool) -> None:
    if with_numpy:
        files.use_numpy_counts()
    else:
        monkeypatch.delitem(sys.modules, "numpy", raising=False)
    for char in (":", "\n", "x"):
        assert files.count_char(text, char) == text.count(char)
        for start, end in ((0, len(text) // 2), (len(text) // 3, len(text)), (7, 7 + (1 << 15))):
            assert files.count_char(text, char, start, end) == text.count(char, start, end)
        data = text.encode("utf-8", "surrogatepass")
        assert files.count_byte(data, char.encode()) == data.count(char.encode())
        assert files.count_byte(bytearray(data), char.encode()) == data.count(char.encode())
