"""Mutations of the seed inputs, each a pure function of a random.Random: the same seed gives the
same inputs, so a failing case is replayed from the seed the test prints."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import yaml

from tests.fuzz.corpus import INTERESTING

# explicit YAML tags, the ones go-yaml resolves and others
TAGS = (
    "!!float",
    "!!int",
    "!!bool",
    "!!null",
    "!!timestamp",
    "!!binary",
    "!!str",
    "!!set",
    "!!omap",
    "!!seq",
    "!!map",
    "!!python/tuple",
    "!custom",
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in ``doc`` (mapping keys and list indexes)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return doc


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def deep(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = {"a": value} if i % 2 else [value]
    return value


def mutate_doc(rng: random.Random, doc: Any) -> Any:
    """One structural change: a value replaced (by an interesting value, another value of the
    document, a deep nesting), a key dropped, renamed or added, a list emptied or repeated."""
    doc = copy.deepcopy(doc)
    paths = _paths(doc)
    path = rng.choice(paths)
    op = rng.randrange(8)
    if op <= 2:
        return _set(doc, path, copy.deepcopy(rng.choice(INTERESTING)))
    if op == 3:
        return _set(doc, path, copy.deepcopy(_get(doc, rng.choice(paths))))
    if op == 4:
        return _set(doc, path, deep(rng.choice((50, 99, 101, 150))))
    target = _get(doc, path)
    if op == 5 and isinstance(target, dict) and target:
        del target[rng.choice(list(target))]
    elif op == 6 and isinstance(target, dict):
        target[rng.choice(("unknownField", "spec", "metadata", "resources", "x-" + str(rng.randrange(99))))] = (
            rng.choice(INTERESTING)
        )
    elif isinstance(target, list):
        if target and rng.random() < 0.5:
            target.extend(copy.deepcopy(target) * rng.randrange(1, 4))
        else:
            target.clear()
    else:
        return _set(doc, path, copy.deepcopy(rng.choice(INTERESTING)))
    return doc


def to_text(rng: random.Random, doc: Any) -> str:
    """The document as YAML or JSON (either is what a user might write)."""
    if rng.random() < 0.25:
        return json.dumps(doc, default=str)
    try:
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=rng.random() < 0.5)
    except yaml.YAMLError:
        return json.dumps(doc, default=str)


def mutate_text(rng: random.Random, text: str) -> str:
    """One textual change: an explicit tag before a value, a line dropped, duplicated or cut, a
    byte flipped, a duplicate key, an anchor and aliases, documents joined, the text truncated."""
    lines = text.splitlines()
    if not lines:
        return text
    op = rng.randrange(9)
    i = rng.randrange(len(lines))
    line = lines[i]
    if op <= 2 and ": " in line:
        key, _, value = line.partition(": ")
        if rng.random() < 0.2:
            # nesting no document structure could be built with: deeper than Python recurses
            n = rng.choice((150, 1000, 5000, 20000))
            lines[i] = f"{key}: {'[' * n}1{']' * n}"
        else:
            lines[i] = f"{key}: {rng.choice(TAGS)} {value or 'x'}"
    elif op == 3:
        del lines[i]
    elif op == 4:
        lines.insert(i, line)
    elif op == 5:
        lines[i] = line[: rng.randrange(len(line) + 1)]
    elif op == 6 and line:
        j = rng.randrange(len(line))
        lines[i] = (
            line[:j]
            + rng.choice(("\t", "\x00", "\x7f", "{", "[", "'", '"', "&a", "*a", "\u2028", "é", "#"))
            + line[j + 1 :]
        )
    elif op == 7:
        lines.insert(i, rng.choice(("---", "...", "%YAML 1.1", "? complex", "<<: *x", "- - - -", "!!binary |")))
    else:
        return text[: rng.randrange(len(text) + 1)]
    return "\n".join(lines) + "\n"
