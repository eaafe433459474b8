"""`kwhatif mcp` without the mcp extra: one line saying how to install it, exit 2; and its
options' bounds checked before anything is served."""

from __future__ import annotations

import io
import sys

import pytest

from kwhatif.cli import main
from kwhatif.cli.env import Environment


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with pytest.raises(SystemExit) as e:
        main(argv, env=Environment(io.StringIO(), err))
    return int(e.value.code or 0), err.getvalue()


def test_without_the_sdk_the_command_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp... raises ImportError
    code, err = run(["mcp"])
    assert (code, err) == (2, "kwhatif: error: kwhatif mcp needs the MCP SDK: pip install 'kwhatif[mcp]'\n")


@pytest.mark.parametrize(
    "args,message",
    [
        (["--timeout", "0"], "Invalid value for '--timeout': 0.0 is not in the range x>0."),
        (["--root", "/no/such/dir"], "Invalid value for '--root': Directory '/no/such/dir' does not exist."),
        (
            ["--max-output-size", "lots"],
            "Invalid value for '--max-output-size': 'lots' is not a size such as 500M or 2G",
        ),
    ],
    ids=["timeout", "root", "output-size"],
)
def test_bad_options_are_usage_errors(args, message):
    code, err = run(["mcp", *args])
    assert code == 2
    assert message in err
