"""The installed command on a pseudo-terminal (the pty module) and into a pipe: colour and block
characters on a UTF-8 terminal only, NO_COLOR honoured, ASCII on a terminal of another encoding,
and the bars narrowed to the terminal's width."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios

import pytest

from .conftest import ROOT, SAMPLES, kwhatif_command

CAPACITY = ("capacity", str(SAMPLES / "pods/web-canary.yaml"), "--cluster", str(SAMPLES / "cluster.yaml"))
DRAIN = ("drain", "--ignore-daemonsets", "general-a-1", "--cluster", str(SAMPLES / "cluster.yaml"))


def on_a_terminal(args: tuple[str, ...], columns: int, **env: str) -> tuple[int, str]:
    """Run the command with standard output on a pseudo-terminal of ``columns`` columns; what it
    wrote there (the terminal's CR LF line ends made LF)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "PYTHONIOENCODING")}
    e.update({"LC_ALL": "C.UTF-8", **env})
    p = subprocess.Popen(
        [kwhatif_command(), *args], stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=e, cwd=ROOT
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = p.wait(timeout=120)
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def bar_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("NODE") and "CPU" in ln)
    end = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("bars:"))
    return lines[start:end]


def visible(line: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", line)


@pytest.mark.parametrize("args, code", [(CAPACITY, 0), (DRAIN, 0)], ids=["capacity", "drain"])
def test_a_terminal_gets_colour_and_block_bars(args, code):
    rc, out = on_a_terminal(args, 120)
    assert rc == code
    rows = bar_lines(out)
    assert "\x1b[32m" in "".join(rows)  # percents coloured by level
    assert any("█" in r for r in rows) and all("#" not in r for r in rows)
    assert max(len(visible(r)) for r in rows) <= 120


@pytest.mark.parametrize("args", [CAPACITY, DRAIN], ids=["capacity", "drain"])
def test_the_bars_follow_the_terminal_width(args):
    _, wide = on_a_terminal(args, 200)
    _, narrow = on_a_terminal(args, 80)
    assert "m/7900m" in "".join(bar_lines(wide))  # requested/allocatable amounts, as kube-capacity
    assert "m/7900m" not in "".join(bar_lines(narrow))
    assert max(len(visible(r)) for r in bar_lines(narrow)) <= 80


def test_no_color_on_a_terminal_keeps_the_bars_and_drops_the_colour():
    _, out = on_a_terminal(CAPACITY, 120, NO_COLOR="1")
    assert "\x1b[" not in out
    assert "▓" in out


def test_color_never_on_a_terminal():
    _, out = on_a_terminal(CAPACITY + ("--color", "never"), 120)
    assert "\x1b[" not in out and "▓" in out


def test_a_terminal_that_is_not_utf8_gets_ascii_bars():
    _, out = on_a_terminal(CAPACITY, 120, PYTHONIOENCODING="latin-1")
    assert "\x1b[33m+" in out
    assert not any(ch in out for ch in "█▓░·→")


@pytest.mark.parametrize("args", [CAPACITY, DRAIN], ids=["capacity", "drain"])
def test_a_pipe_gets_no_colour_and_ascii_bars(run, args):
    r = run(*args)
    assert r.code == 0
    assert "\x1b" not in r.out
    assert not any(ch in r.out for ch in "█▓░·→")
    rows = bar_lines(r.out)
    assert any("+" in row for row in rows) and "m/7900m" in "".join(rows)


def test_color_always_into_a_pipe(run):
    r = run(*CAPACITY, "--color", "always")
    assert "\x1b[33m+" in r.out and "█" not in r.out
