"""-o json's writer: the bytes json.dumps(indent=2, ensure_ascii=False) writes, whichever encoder
writes them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from kwhatif.report.formats.json import dumps_indented


def _random_string(rng: random.Random) -> str:
    alphabet = 'ab:-_/."\\ \t\n\r\x00\x1b\x7f\x85\u2028é漢🙂'
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def _random_doc(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return _random_string(rng)
    if kind == 1:
        return rng.randrange(-(2**63), 2**63)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.randrange(-1000, 1000)
    if kind == 4:
        return rng.choice(["", "Success", "Unschedulable"])
    if kind in (5, 6):
        return {_random_string(rng): _random_doc(rng, depth + 1) for _ in range(rng.randrange(0, 5))}
    return [_random_doc(rng, depth + 1) for _ in range(rng.randrange(0, 5))]


def test_same_bytes_as_the_json_module_on_random_documents() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        doc = _random_doc(rng)
        assert dumps_indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param({"allocatable": 2**64 + 1}, id="integer beyond 64 bits"),
        pytest.param({"name": "bad\ud800surrogate"}, id="lone surrogate"),
        pytest.param({1: "non-string key"}, id="non-string key"),
        pytest.param({"nested": [{"big": -(2**70)}]}, id="nested big integer"),
    ],
)
def test_what_orjson_refuses_is_written_by_the_json_module(doc: Any) -> None:
    assert dumps_indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_empty_containers_and_key_order() -> None:
    doc = {"z": [], "a": {}, "m": [1, {"b": None, "a": True}]}
    assert dumps_indented(doc) == (
        '{\n  "z": [],\n  "a": {},\n  "m": [\n    1,\n    {\n      "b": null,\n      "a": true\n    }\n  ]\n}\n'
    )
