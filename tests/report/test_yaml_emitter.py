"""-o yaml is written line by line by the block writer when it can be sure of PyYAML's bytes, else
through libyaml's emitter when every string is one it writes exactly as PyYAML's pure-Python
emitter does, and through PyYAML's otherwise: the bytes never depend on which."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kwhatif.report.formats import yaml as yaml_format
from kwhatif.report.formats.yaml import YamlFormatter


class _Doc:
    kind = "ScheduleReport"
    exit_code = 0

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        return self.data


def _pure(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=yaml_format._Dumper, sort_keys=False, allow_unicode=True, width=1000)


@pytest.mark.parametrize(
    "data,expected,path",
    [
        pytest.param(
            {"pod": "shop/web", "node": None, "score": 12, "ok": True, "reason": "Insufficient cpu"},
            "pod: shop/web\nnode: null\nscore: 12\nok: true\nreason: Insufficient cpu\n",
            "block",
            id="plain",
        ),
        pytest.param({"v": "yes", "n": "0o12", "e": ""}, "v: 'yes'\nn: 0o12\ne: ''\n", "block", id="quoted-scalars"),
        pytest.param({"m": "ünïcode 中 ok"}, "m: ünïcode 中 ok\n", "block", id="bmp-letters"),
        pytest.param({"m": "line one\nline two"}, "m: |-\n  line one\n  line two\n", "pure", id="multi-line-block"),
        pytest.param({"m": "tab\there"}, 'm: "tab\\there"\n', "block", id="tab"),
        pytest.param({"m": "emoji 😀"}, "m: emoji 😀\n", "block", id="astral"),
        pytest.param({"m": "sep\u2028x"}, "m: 'sep\u2028  x'\n", "pure", id="line-separator"),
        pytest.param(
            {"m": "x" * 1200 + " " + "y" * 10}, "m: " + "x" * 1200 + "\n  " + "y" * 10 + "\n", "c", id="long-folded"
        ),
    ],
)
def test_yaml_bytes_whichever_emitter(monkeypatch, data, expected, path):
    out = YamlFormatter().format(_Doc(data))
    assert out == expected == _pure(data)
    # which wrote it: each refuses what it might write differently (the block writer renders
    # single strings through PyYAML, which does not count: only dumps of the whole document do)
    used: list[str] = []
    real = yaml.dump

    def spy(obj: Any, **kw: Any) -> Any:
        if obj is data:
            used.append(kw["Dumper"].__name__)
        return real(obj, **kw)

    monkeypatch.setattr(yaml_format.yaml, "dump", spy)
    YamlFormatter().format(_Doc(data))
    assert used == {"block": [], "c": ["_CDumper"], "pure": ["_CDumper", "_Dumper"]}[path]


def _previous_path(data: Any) -> str:
    """What -o yaml wrote before the block writer: libyaml's emitter, else PyYAML's."""
    opts: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 1000}
    try:
        return str(yaml.dump(data, Dumper=yaml_format._CDumper, **opts))
    except yaml_format._NotPlain:
        return str(yaml.dump(data, Dumper=yaml_format._Dumper, **opts))


@pytest.mark.parametrize(
    "data,expected",
    [
        pytest.param({"a": {"b": {"c": 1}}}, "a:\n  b:\n    c: 1\n", id="nested-mappings"),
        pytest.param({"a": [1, "x"]}, "a:\n- 1\n- x\n", id="list-in-mapping-not-indented"),
        pytest.param({"a": [{"b": 1, "c": [2]}]}, "a:\n- b: 1\n  c:\n  - 2\n", id="mapping-in-list"),
        pytest.param({"a": [[1, 2], []]}, "a:\n- - 1\n  - 2\n- []\n", id="list-in-list"),
        pytest.param({"a": {}, "b": [], "c": [{}]}, "a: {}\nb: []\nc:\n- {}\n", id="empty-containers"),
        pytest.param({"k: v": "- x", "#": "@"}, "'k: v': '- x'\n'#': '@'\n", id="quoted-keys"),
        pytest.param({"": 1}, "'': 1\n", id="empty-key-as-libyaml-writes-it"),
    ],
)
def test_block_writer_structure(data, expected):
    assert YamlFormatter().format(_Doc(data)) == expected == _previous_path(data)


_WORDS = [
    *("", "a", "true", "null", "~", "123", "1.5", "0x1F", "yes", "No", "- x", "a: b", "#c", "x #y", "'q'", '"d"'),
    *("é", "🙂", "a b", " lead", "trail ", "%x", "@x", "`x", "!x", "&x", "*x", "{x", "[x", "x,y", "2001-01-01"),
    *("1e3", "0o17", "+1", ".inf", ".nan", "=", "<<", "?", "? x", ":", "a:", "\t", "x\ny", "\x00", "\u2028", "\x85"),
    *(
        "k" * 130,
        "y " * 600,
        "node(s) didn't match Pod's node affinity/selector",
        "0/3 nodes are available: 3 Insufficient cpu.",
    ),
]


def _random_value(rng: Any, depth: int = 0) -> Any:
    kind = rng.randrange(6 if depth < 4 else 3)
    if kind == 0:
        return rng.choice(_WORDS)
    if kind == 1:
        return rng.choice([None, True, False, 0, -5, 2**70, 7])
    if kind == 2:
        return rng.choice(_WORDS) + rng.choice(_WORDS)
    if kind in (3, 4):
        return {
            rng.choice(_WORDS) + rng.choice(("", "k")): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))
        }
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_block_writer_writes_what_the_emitters_write_on_random_documents():
    import random

    rng = random.Random(11)
    block = 0
    for _ in range(6000):
        data = {"first": _random_value(rng), "second": _random_value(rng)}
        assert YamlFormatter().format(_Doc(data)) == _previous_path(data)
        writer = yaml_format._BlockWriter()
        try:
            writer.document(data)
            block += 1
        except yaml_format._Slow:
            pass
    assert block > 3000  # most documents took the block writer's path


def _shared_document(rng: Any) -> dict[str, Any]:
    """A random document whose containers recur: the same dict or list in several places, at
    several indentations (as a report holds its shared records and a result's last attempt)."""
    pool = [_random_value(rng, 2) for _ in range(4)]
    pool = [p for p in pool if isinstance(p, (dict, list)) and p] or [{"a": 1}]

    def value(depth: int) -> Any:
        kind = rng.randrange(4 if depth < 4 else 2)
        if kind == 0:
            return rng.choice(pool)
        if kind == 1:
            return rng.choice(_WORDS)
        if kind == 2:
            return {rng.choice(_WORDS) + "k": value(depth + 1) for _ in range(rng.randrange(1, 4))}
        return [value(depth + 1) for _ in range(rng.randrange(1, 4))]

    shared = value(1)
    return {"first": shared, "nested": {"deeper": [shared, {"again": shared}]}, "pool": pool, "last": value(0)}


def test_block_writer_reindents_containers_it_meets_again():
    import random

    rng = random.Random(5)
    block = 0
    for _ in range(3000):
        data = _shared_document(rng)
        assert YamlFormatter().format(_Doc(data)) == _previous_path(data)
        try:
            yaml_format._BlockWriter().document(data)
            block += 1
        except yaml_format._Slow:
            pass
    assert block > 1000


def test_block_writer_kept_in_pieces_writes_the_same(monkeypatch):
    """A container's text longer than _JOINED is kept as pieces (a large report's): with every
    container kept so, random documents, shared containers included, come out as PyYAML writes
    them."""
    import random

    monkeypatch.setattr(yaml_format, "_JOINED", 0)
    rng = random.Random(17)
    block = 0
    for i in range(2000):
        data = _shared_document(rng) if i % 2 else {"first": _random_value(rng), "second": _random_value(rng)}
        try:
            got = yaml_format._BlockWriter().document(data)
        except yaml_format._Slow:
            continue
        block += 1
        assert got == _pure(data)
    assert block > 800


def test_block_writer_large_document_with_shared_records():
    """A report-like document well past _JOINED: the shared records' lists in every node, and the
    nodes list at two indentations (a result's and its last attempt's)."""
    passed = [{"plugin": f"Plugin{i}", "status": "Success"} for i in range(14)]
    nodes = [
        {"name": f"node-{i:05d}", "feasible": True, "filters": passed, "scores": [], "total": i} for i in range(600)
    ]
    data = {"results": [{"pod": "a/b", "nodes": nodes, "attempts": [{"attempt": 1, "nodes": nodes}]}]}
    text = yaml_format._BlockWriter().document(data)
    assert len(text) > 50 * yaml_format._JOINED
    assert text == _pure(data)


def test_block_writer_reindents_to_a_smaller_indentation():
    inner = {"a": [{"b": 1, "c": ["x", "y"]}], "d": {"e": None}}
    data = {"deep": {"deeper": {"deepest": inner}}, "top": inner, "list": [[inner]]}
    writer = yaml_format._BlockWriter()
    assert writer.document(data) == _pure(data)
    assert id(inner) in writer.blocks  # written once, then moved


_PLAIN_ALPHABET = "aAbnNoOyYtTfFeElLuUsS019_./-:# '\"@!~"


def test_plain_as_is_is_what_pyyaml_writes():
    """plain_as_is says yes only for strings PyYAML writes plain as they are: every word of the
    random documents, the words PyYAML resolves (bools, null, numbers), and random strings."""
    import random

    rng = random.Random(3)
    words = [
        *_WORDS,
        *("y", "Y", "n", "N", "yes", "Yes", "YES", "no", "NO", "on", "On", "ON", "off", "Off", "OFF"),
        *("true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "nULL", "Nan", "inf"),
        *("node-00087", "team-1", "NodeResourcesFit", "a/b", "a.b", "a_b", "a-", "x-y.z/w_1", "e1", "E5"),
    ]
    words += ["".join(rng.choice(_PLAIN_ALPHABET) for _ in range(rng.randrange(1, 7))) for _ in range(20000)]
    fast = 0
    for w in words:
        written = yaml.dump([w], Dumper=yaml_format._Dumper, sort_keys=False, allow_unicode=True, width=1000)
        if yaml_format.plain_as_is(w):
            fast += 1
            assert written == f"- {w}\n", w
        elif yaml_format._PLAIN_CANDIDATE.fullmatch(w):
            assert written != f"- {w}\n", w  # only the resolver's words are left to PyYAML
    assert fast > 1000
