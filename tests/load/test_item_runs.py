"""The items of a JSON List are decoded a run at a time (files._Batches) where the text allows it,
and one by one by the stdlib scanner everywhere else. The documents and the errors must be exactly
those of reading every item one by one: each input here is read both ways, whole and through small
windows, with runs of several sizes, and the answers compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kwhatif.errors import InputError
from kwhatif.load import files
from kwhatif.load.files import read_path


def _pod(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"web-{i}",
            "namespace": "team",
            "labels": {"app": "web", "shard": str(i % 3)},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u1"},
                {"apiVersion": "v1", "kind": "Pod", "name": "odd", "uid": "u2"},
            ],
            "annotations": {"note": "time 08:00:00, url http://x:80/a"},
        },
        "spec": {
            "nodeName": f"n{i % 4}",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
            "priority": i,
        },
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


N = 40


def _items() -> list[Any]:
    return [_pod(i) for i in range(N)]


def _styles(items: list[Any], kind: str = "PodList") -> dict[str, str]:
    doc = {"apiVersion": "v1", "kind": kind, "metadata": {}, "items": items}
    return {
        "kubectl": json.dumps(doc, indent=4),
        "two spaces": json.dumps(doc, indent=2),
        "compact": json.dumps(doc, separators=(",", ":")),
        "spaced": json.dumps(doc),
        "one per line": '{"apiVersion": "v1", "kind": "'
        + kind
        + '", "items": [\n'
        + ",\n".join(json.dumps(i) for i in items)
        + "\n]}",
    }


def _with(i: int) -> list[Any]:
    """The items with item ``i`` a placeholder, for a raw JSON text spliced in (_splice)."""
    items: list[Any] = _items()
    items[i] = _PLACEHOLDER
    return items


_PLACEHOLDER = "__raw item__"


def _splice(text: str, raw: str) -> str:
    marker = json.dumps(_PLACEHOLDER)
    assert text.count(marker) == 1
    return text.replace(marker, raw)


_BASE = json.dumps(_pod(0))[:-1]  # an item's text without its closing brace

RAW_ITEMS: dict[str, tuple[int, str]] = {
    # a key given twice, deep in one item
    "key twice": (23, _BASE + ', "x": {"a": 1, "a": 1}}'),
    # an escaped colon brings the decoded text one colon more, a key given twice one fewer: the
    # escape sends the run to the scanner, which finds the key
    "escaped colon and key twice": (17, _BASE + ', "a\\u003ab": 1, "y": 1, "y": 2}'),
    "escaped colon": (5, _BASE + ', "a\\u003Ab": "\\u003a"}'),
    # msgspec refuses a lone surrogate, the scanner reads it
    "lone surrogate": (30, _BASE + ', "s": "\\ud800x"}'),
    "nan": (31, _BASE + ', "f": NaN}'),
    "infinity": (32, _BASE + ', "f": 1e400}'),
    "big integer": (10, _BASE + ', "b": 123456789012345678901234567890, "n": -9223372036854775809}'),
    "integer of 5,000 digits": (12, _BASE + ', "b": ' + "7" * 5000 + "}"),
    "float": (11, _BASE + ', "f": 2.5e-3, "g": 1E22, "h": -0.0}'),
    "not an object": (20, "12"),
    "a nested List": (21, json.dumps({"apiVersion": "v1", "kind": "List", "items": [_pod(900), _pod(901)]})),
    "syntax error": (25, _BASE + ', "x" "y"}'),
    "raw control character": (26, _BASE + ', "x": "a\tb"}'),
    "deep": (27, _BASE + ', "d": ' + "[" * 400 + "]" * 400 + "}"),
    "closing text in a string": (9, _BASE + ', "t": "},\\n{\\"apiVersion\\": \\"v1\\", }, {\\"apiV"}'),
}


def _corpus() -> dict[str, str]:
    out = {}
    for style, text in _styles(_items()).items():
        out[style] = text
    for name, (i, raw) in RAW_ITEMS.items():
        for style, text in _styles(_with(i)).items():
            out[f"{name}, {style}"] = _splice(text, raw)
    # items without a kind until the List's kind, which comes after them
    kindless = [{k: v for k, v in _pod(i).items() if k != "kind"} for i in range(N)]
    out["kind after the items"] = '{"items": ' + json.dumps(kindless) + ', "kind": "PodList", "apiVersion": "v1"}'
    # separators that change along the List (a hand-edited file)
    parts = [json.dumps(p) for p in _items()]
    joined = "".join(p + (",\n" if i % 7 else " , ") for i, p in enumerate(parts[:-1])) + parts[-1]
    out["mixed separators"] = '{"kind": "List", "apiVersion": "v1", "items": [' + joined + "]}"
    # the concatenated Lists of `kubectl cluster-info dump`
    out["dump stream"] = "\n".join(_styles(_items())["kubectl"] for _ in range(3))
    return out


CORPUS = _corpus()


def _answer(path: str) -> object:
    try:
        return [(d.kind, d.api_version, d.source, repr(d.body)) for d in read_path(path)]
    except InputError as e:
        return ("error", str(e))


def _one_by_one(monkeypatch: pytest.MonkeyPatch, path: str) -> object:
    with monkeypatch.context() as m:
        m.setattr(files._Batches, "take", lambda self, stream, pos: None)
        return _answer(path)


class _Counted:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.items = 0
        take = files._Batches.take

        def counted(batches: files._Batches, stream: Any, pos: int) -> Any:
            got = take(batches, stream, pos)
            if got is not None:
                self.items += len(got[0])
            return got

        monkeypatch.setattr(files._Batches, "take", counted)


@pytest.mark.parametrize("name", sorted(CORPUS))
@pytest.mark.parametrize(("run_chars", "window"), [(1 << 16, 0), (2048, 0), (300, 0), (2048, 1000), (1 << 16, 97)])
def test_runs_answer_as_the_scanner_item_by_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, run_chars: int, window: int
) -> None:
    path = tmp_path / "in.json"
    path.write_text(CORPUS[name], encoding="utf-8")
    expected = _one_by_one(monkeypatch, str(path))
    monkeypatch.setattr(files._Batches, "RUN_CHARS", run_chars)
    if window:
        monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 0)
        monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", window)
    assert _answer(str(path)) == expected


@pytest.mark.parametrize("style", sorted(_styles([])))
def test_plain_lists_are_decoded_in_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, style: str) -> None:
    """All items but the first (which shows the separator) and a few at run ends come in runs."""
    path = tmp_path / "in.json"
    path.write_text(CORPUS[style], encoding="utf-8")
    monkeypatch.setattr(files._Batches, "RUN_CHARS", 4096)
    counted = _Counted(monkeypatch)
    docs = list(read_path(str(path)))
    assert [d.body["metadata"]["name"] for d in docs] == [f"web-{i}" for i in range(N)]
    assert counted.items >= N - 8


def test_a_key_given_twice_is_refused_in_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("key twice, kubectl", "escaped colon and key twice, compact"):
        path = tmp_path / "in.json"
        path.write_text(CORPUS[name], encoding="utf-8")
        answer = _answer(str(path))
        assert isinstance(answer, tuple) and answer[0] == "error", name
        assert "already defined" in answer[1]


def test_what_msgspec_refuses_and_the_scanner_reads_is_read(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    for name, key, value in (
        ("lone surrogate, kubectl", "s", "\ud800x"),
        ("big integer, compact", "b", 123456789012345678901234567890),
        ("big integer, spaced", "n", -9223372036854775809),
        ("escaped colon, kubectl", "a:b", ":"),
    ):
        path.write_text(CORPUS[name], encoding="utf-8", errors="surrogatepass")
        docs = list(read_path(str(path)))
        assert len(docs) == N
        i = RAW_ITEMS[name.split(",")[0]][0]
        assert docs[i].body[key] == value and type(docs[i].body[key]) is type(value), name


def test_corpus_holds_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    for name, needle in (
        ("nan, compact", "NaN is not a JSON value"),
        ("infinity, kubectl", "out of the range of a float64"),
        ("integer of 5,000 digits, kubectl", "out of the range of a float64"),
        ("syntax error, two spaces", "Expecting ':' delimiter"),
        ("raw control character, spaced", "Invalid control character"),
        ("not an object, compact", "is a int, not an object"),
    ):
        path.write_text(CORPUS[name], encoding="utf-8")
        answer = _answer(str(path))
        assert isinstance(answer, tuple) and answer[0] == "error" and needle in answer[1], (name, answer)
