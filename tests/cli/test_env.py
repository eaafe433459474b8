"""The terminal is passed in: colour, width and the streams come from the Environment main() gets."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kwhatif.cli import main
from kwhatif.cli.env import Environment
from kwhatif.cli.run import render_options

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.mark.parametrize(
    "tty,no_color,choice,want",
    [
        (True, False, "auto", True),
        (True, True, "auto", False),
        (False, False, "auto", False),
        (False, False, "always", True),
        (True, False, "never", False),
        (True, True, "always", True),
    ],
    ids=["tty", "tty-NO_COLOR", "pipe", "always", "never", "always-beats-NO_COLOR"],
)
def test_colour_decision(tty: bool, no_color: bool, choice: str, want: bool) -> None:
    env = Environment(io.StringIO(), io.StringIO(), stdout_isatty=tty, no_color=no_color)
    assert env.use_color(choice) is want


def test_tables_wrap_at_the_terminal_width_and_not_in_a_pipe() -> None:
    tty = Environment(io.StringIO(), io.StringIO(), stdout_isatty=True, terminal_width=132)
    pipe = Environment(io.StringIO(), io.StringIO(), stdout_isatty=False, terminal_width=132)
    assert (render_options(tty, "auto").width, render_options(tty, "auto").color) == (132, True)
    assert (render_options(pipe, "auto").width, render_options(pipe, "auto").color) == (0, False)


def _run(env: Environment, *args: str) -> int:
    with pytest.raises(SystemExit) as ei:
        main(list(args), env=env)
    return int(ei.value.code or 0)


def test_the_report_and_the_errors_go_to_the_environment_streams(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(out, err)
    code = _run(env, "capacity", str(SAMPLES / "pods/web-canary.yaml"), "--cluster", str(SAMPLES / "cluster.yaml"))
    assert code == 0
    assert "\x1b[" not in out.getvalue() and "web-canary" in out.getvalue()
    code = _run(env, "drain", "--ignore-daemonsets", "no-such-node", "--cluster", str(SAMPLES / "cluster.yaml"))
    assert code == 2
    assert err.getvalue().splitlines()[-1] == "kwhatif: error: NODE: no node named 'no-such-node' in the cluster"
    assert capsys.readouterr() == ("", "")


def test_colour_always_colours_the_table() -> None:
    out = io.StringIO()
    code = _run(
        Environment(out, io.StringIO()),
        "schedule",
        str(SAMPLES / "pods/gpu-inference.yaml"),
        "--cluster",
        str(SAMPLES / "cluster.yaml"),
        "--color",
        "always",
    )
    assert code == 1 and "\x1b[31mDOES NOT FIT\x1b[0m" in out.getvalue()


@pytest.mark.parametrize(
    "tty, encoding, want",
    [
        (True, "utf-8", True),
        (True, "UTF8", True),
        (True, "latin-1", False),
        (True, "ascii", False),
        (False, "utf-8", False),
    ],
    ids=["tty-utf-8", "tty-utf8-alias", "tty-latin-1", "tty-ascii", "pipe-utf-8"],
)
def test_block_characters_on_a_utf8_terminal_only(tty: bool, encoding: str, want: bool) -> None:
    env = Environment(io.StringIO(), io.StringIO(), stdout_isatty=tty, stdout_encoding=encoding)
    assert env.unicode is want
    assert render_options(env, "auto").unicode is want
