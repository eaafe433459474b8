"""A large JSON input is read a window at a time. Whatever the window's size, the documents and
the errors are exactly those of reading the whole text at once: each input here is read whole,
then through windows as small as one character, and the answers compared."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kwhatif.errors import InputError
from kwhatif.load import files
from kwhatif.load.files import Limits, read_path


def _list(*items: dict, kind: str = "List", extra: str = "") -> str:
    return json.dumps({"apiVersion": "v1", "kind": kind, "metadata": {}, "items": list(items)}, indent=4) + extra


def _pod(name: str, **spec: object) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": dict(spec)}


LOG = "==== START logs for container main of pod ns/a ====\n{ not json ] at all\n\u00e9\n==== END logs for container main of pod ns/a ====\n"

CASES: dict[str, str] = {
    "list": _list(_pod("a", nodeName="n1"), _pod("b", priority=12345678901234567890), _pod("c\u00e9\U0001f600")),
    "items before kind": '{"items": [{"metadata": {"name": "x"}}, {"metadata": {"name": "y"}}], "kind": "PodList", "apiVersion": "v1"}',
    "nested list": _list({"apiVersion": "v1", "kind": "List", "items": [_pod("in")]}),
    "dump stream": _list(_pod("a"), kind="PodList") + "\n" + LOG + _list(_pod("b"), kind="PodList") + "\n" + LOG,
    "log without end": _list(_pod("a")) + "\n==== START logs for container x of pod ns/a ====\nsome text\nmore\n",
    "bare array": json.dumps([_pod("a"), _pod("b")]),
    "numbers at the end": '[{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "n"}, "spec": {"priority": 1234567}}]',
    "escapes": json.dumps([_pod("e", nodeName='a\\u00e9\n\t"q"', schedulerName="\u2028x")], ensure_ascii=True),
    "server version": json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"annotations": {files.SERVER_VERSION_ANNOTATION: "v1.31.8"}},
            "items": [_pod("a")],
        }
    ),
    "top-level key twice, items between": '{"kind": "List", "items": [\n{"kind": "Pod", "metadata": {"name": "a"}}\n], "kind": "List"}',
    "top-level key twice": '{\n  "kind": "List",\n  "apiVersion": "v1",\n  "kind": "PodList", "items": []}',
    "item key twice": _list(_pod("a"))[:-8]
    + ',\n        {"kind": "Pod", "metadata": {"name": "b", "name": "c"}}\n    ]\n}',
    "syntax error in an item": _list(_pod("a"), _pod("b")).replace('"b"', '"b" "x"'),
    "truncated": _list(_pod("a"), _pod("b"))[:-40],
    "trailing comma": _list(_pod("a"))[:-8] + ",\n    ]\n}",
    "garbage after": _list(_pod("a")) + "\n]",
    "item not an object": '{"kind": "List", "items": [1, 2.5e3]}',
    "list without kind": '{"items": [{"metadata": {"name": "x"}}]}',
    "yaml flow mapping": "{apiVersion: v1, kind: Pod, metadata: {name: flow}}",
    "not json nor yaml": "{apiVersion: v1, kind: [Pod, metadata: {name: flow}}",
    "deep": "[" * 100000 + "]" * 100000,
    "only a log": LOG,
    "bom": "\ufeff" + _list(_pod("bom")),
}


def _answer(read: object) -> object:
    try:
        return [(d.kind, d.api_version, d.source, d.body) for d in read]  # type: ignore[attr-defined]
    except InputError as e:
        return ("error", str(e))


def _whole(path: str) -> object:
    try:
        return _answer(read_path(path))
    except InputError as e:
        return ("error", str(e))


def _case_in_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, min_bytes: int, chunk: int
) -> tuple[Path, object]:
    """The case's file and its answer read whole; from then on, inputs are read in windows."""
    path = tmp_path / "in.json"
    path.write_bytes(CASES[name].encode("utf-8"))
    expected = _whole(str(path))
    monkeypatch.setattr(files, "WINDOW_MIN_BYTES", min_bytes)
    monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", chunk)
    return path, expected


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize(("min_bytes", "chunk"), [(0, 1), (0, 2), (2, 3), (5, 7), (16, 64), (0, 4096)])
def test_windowed_reading_answers_as_the_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, min_bytes: int, chunk: int
) -> None:
    path, expected = _case_in_windows(tmp_path, monkeypatch, name, min_bytes, chunk)
    assert _whole(str(path)) == expected
    # standard input is read the same way
    assert _answer_stdin(path.read_bytes()) == expected_stdin(expected, str(path))


def _answer_stdin(data: bytes) -> object:
    try:
        return _answer(read_path("-", Limits(), stdin=io.BytesIO(data)))
    except InputError as e:
        return ("error", str(e))


def expected_stdin(expected: object, path: str) -> object:
    if isinstance(expected, tuple):
        return (expected[0], expected[1].replace(path, "<stdin>"))
    return [(k, v, s.replace(path, "<stdin>"), b) for k, v, s, b in expected]  # type: ignore[attr-defined]


def test_the_cases_cover_answers_and_errors(tmp_path: Path) -> None:
    """The corpus holds both: inputs read fine and inputs refused, with their line and column."""
    answers = {}
    for name, text in CASES.items():
        p = tmp_path / "c.json"
        p.write_bytes(text.encode())
        answers[name] = _whole(str(p))
    p = str(tmp_path / "c.json")
    assert answers["top-level key twice, items between"] == (
        "error",
        f'{p}: invalid JSON at line 3 column 4: key "kind" already defined at line 1 column 2',
    )
    assert answers["top-level key twice"] == (
        "error",
        f'{p}: invalid JSON at line 4 column 3: key "kind" already defined at line 2 column 3',
    )
    assert answers["item key twice"][0] == "error"
    assert "already defined" in answers["item key twice"][1]
    second = len(_list(_pod("a"), kind="PodList")) + 1 + len(LOG)
    assert CASES["dump stream"][second] == "{"
    line = CASES["dump stream"].count("\n", 0, second) + 1
    assert [d[2] for d in answers["dump stream"]] == [f"{p} (items[0])", f"{p}:{line} (items[0])"]
    assert [d[3]["metadata"]["name"] for d in answers["list"]] == ["a", "b", "c\u00e9\U0001f600"]
    assert answers["yaml flow mapping"][0][3]["metadata"] == {"name": "flow"}
    assert answers["truncated"][0] == "error"


@pytest.mark.parametrize("chunk", [1, 3, 8])
def test_invalid_utf8_is_refused_with_its_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    data = _list(_pod("a"), _pod("b")).encode()
    at = data.index(b'"b"') + 1
    bad = data[:at] + b"\xff" + data[at + 1 :]
    path = tmp_path / "bad.json"
    path.write_bytes(bad)
    monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 0)
    monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", chunk)
    assert _whole(str(path)) == ("error", f"{path}: not UTF-8 text (byte {at})")


def test_a_windowed_input_above_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _list(*(_pod(f"p{i}") for i in range(50))).encode()
    monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 16)
    monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", 100)
    limits = Limits.uniform(len(data) - 1)
    with pytest.raises(InputError) as e:
        list(read_path("-", limits, stdin=io.BytesIO(data)))
    assert str(e.value).startswith("<stdin>: input is larger than the ")


def test_large_inputs_are_not_held_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window stays near its chunk size however long the input is."""
    data = _list(*(_pod(f"p{i}", nodeName="n" * 50) for i in range(2000)))
    path = tmp_path / "big.json"
    path.write_text(data)
    monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 1000)
    monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", 1000)
    largest = 0
    real = files._JsonStream.value

    def spy(self: files._JsonStream, pos: int) -> object:
        nonlocal largest
        largest = max(largest, len(self.text))
        return real(self, pos)

    monkeypatch.setattr(files._JsonStream, "value", spy)
    names = [d.body["metadata"]["name"] for d in read_path(str(path))]
    assert names == [f"p{i}" for i in range(2000)]
    assert len(data) > 300_000
    assert largest < 4000


class _Unseekable(io.BytesIO):
    """A stream that cannot be read again (a pipe): the lines of what the window drops are
    counted as it drops them, where a file's are counted again from the file when asked for."""

    def seekable(self) -> bool:
        return False


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize(("min_bytes", "chunk"), [(0, 1), (2, 3), (16, 64)])
def test_a_pipe_read_a_window_at_a_time_answers_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, min_bytes: int, chunk: int
) -> None:
    path, expected = _case_in_windows(tmp_path, monkeypatch, name, min_bytes, chunk)
    try:
        got = _answer(read_path("-", Limits(), stdin=_Unseekable(path.read_bytes())))
    except InputError as e:
        got = ("error", str(e))
    assert got == expected_stdin(expected, str(path))


def test_lines_before_the_window_are_counted_from_the_file_only_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A List read a window at a time: nothing counts the lines it drops unless an error names a
    line (then the file is read again, once)."""
    good = _list(*(_pod(f"p{i}") for i in range(300)))
    bad = good[: good.rindex('"p299"')] + '"p299", "x": 1, "x": 2' + good[good.rindex('"p299"') + len('"p299"') :]
    monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 0)
    monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", 2048)
    counts: list[int] = []
    real = files.count_char

    def counting(text: str, char: str, start: int = 0, end: int | None = None) -> int:
        if char == "\n":
            counts.append((len(text) if end is None else end) - start)
        return real(text, char, start, end)

    monkeypatch.setattr(files, "count_char", counting)
    path = tmp_path / "in.json"
    path.write_text(good)
    assert len(list(read_path(str(path)))) == 300
    assert sum(counts) < 2048  # only the window's own text, never what was dropped
    path.write_text(bad)
    with pytest.raises(InputError) as e:
        list(read_path(str(path)))
    line = bad[: bad.index('"x": 2')].count("\n") + 1
    assert f"line {line} column" in str(e.value) and 'key "x" already defined' in str(e.value)
