"""The example outputs in README.md and on the documentation site (docs/**/*.md) are what the
installed command prints today: every ```text block that starts with `$ kwhatif ...` is run and
its output compared."""

from __future__ import annotations

import re
import shlex

import pytest

from .conftest import ROOT

EXAMPLE = re.compile(r"```text\n\$ kwhatif (?P<args>[^\n]*)\n(?P<out>.*?)```", re.S)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLES = [
    (page.relative_to(ROOT).as_posix(), m.group("args"), m.group("out"))
    for page in PAGES
    for m in EXAMPLE.finditer(page.read_text())
]


def test_the_site_and_the_readme_have_examples():
    pages = {page for page, _, _ in EXAMPLES}
    assert {"README.md", "docs/getting-started.md", "docs/commands/capacity.md"} <= pages
    # a shell transcript in a block of another language would escape the comparison
    for page in PAGES:
        for lang, first in re.findall(r"```(\w*)\n(\$ kwhatif[^\n]*)", page.read_text()):
            assert lang in ("text", "console"), f"{page}: {first} in a ```{lang} block is not run"


@pytest.mark.parametrize("page,args,out", EXAMPLES, ids=[f"{p}: {a}" for p, a, _ in EXAMPLES])
def test_example_is_current(run, page, args, out):
    r = run(*shlex.split(args))
    assert r.out == out


SETUP = re.compile(r"## Set up\n.*?```sh\npip install \. && kwhatif (?P<args>[^\n]*)\n```", re.S)


def test_readme_first_command_exits_0(run):
    m = SETUP.search((ROOT / "README.md").read_text())
    assert m is not None
    r = run(*shlex.split(m.group("args")))
    assert r.code == 0, r.out + r.err


def test_readme_is_a_landing_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    assert "](docs/html-schedule.png)" in readme
    # its links into the site lead to pages that exist
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) > 10
    for link in links:
        assert (ROOT / link).exists(), link
    # the test command CI runs is the README's
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"```sh\n(pip install '\.\[test[^\n]*)\n```", readme)
    assert command is not None and command.group(1) in ci


# the examples whose exit status the text around them states
EXIT_STATUS = {
    "schedule samples/pods/web-canary.yaml --cluster samples/cluster.yaml": 0,
    "schedule samples/pods/gpu-inference.yaml --cluster samples/cluster.yaml": 1,
    "check samples/workloads/ml-batch.yaml --cluster samples/cluster.yaml": 1,
}


@pytest.mark.parametrize("args,code", sorted(EXIT_STATUS.items()), ids=sorted(EXIT_STATUS))
def test_example_exit_status(run, args, code):
    assert args in {a for _, a, _ in EXAMPLES}, "no page shows this example any more"
    assert run(*shlex.split(args)).code == code
