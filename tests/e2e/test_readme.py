"""The example outputs in README.md are what the installed command prints today."""

from __future__ import annotations

import re
import shlex

import pytest

from .conftest import ROOT

EXAMPLE = re.compile(r"```text\n\$ kwhatif (?P<args>[^\n]*)\n(?P<out>.*?)```", re.S)
EXAMPLES = [(m.group("args"), m.group("out")) for m in EXAMPLE.finditer((ROOT / "README.md").read_text())]


@pytest.mark.parametrize("args,out", EXAMPLES, ids=[a for a, _ in EXAMPLES])
def test_readme_example_is_current(run, args, out):
    r = run(*shlex.split(args))
    assert r.out == out
