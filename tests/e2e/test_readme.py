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


SETUP = re.compile(r"## Set up\n.*?```sh\npip install \. && kwhatif (?P<args>[^\n]*)\n```", re.S)


def test_readme_first_command_exits_0(run):
    m = SETUP.search((ROOT / "README.md").read_text())
    assert m is not None
    r = run(*shlex.split(m.group("args")))
    assert r.code == 0, r.out + r.err


# the examples whose exit status the README's text states
EXIT_STATUS = {
    "schedule samples/pods/web-canary.yaml --cluster samples/cluster.yaml": 0,
    "schedule samples/pods/gpu-inference.yaml --cluster samples/cluster.yaml": 1,
}


@pytest.mark.parametrize("args,code", sorted(EXIT_STATUS.items()), ids=sorted(EXIT_STATUS))
def test_readme_example_exit_status(run, args, code):
    assert args in dict(EXAMPLES), "the README no longer shows this example"
    assert run(*shlex.split(args)).code == code
