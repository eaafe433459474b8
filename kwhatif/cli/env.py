"""The terminal a command runs in, passed in (as httpie passes its Environment) so that tests can
set it: the streams, which of them are terminals, the colour decision and the terminal width."""

from __future__ import annotations

import codecs
import os
import shutil
import sys
from dataclasses import dataclass
from typing import TextIO

import click

from kwhatif.escape import visible


@dataclass(frozen=True, slots=True)
class Environment:
    stdout: TextIO
    stderr: TextIO
    stdin_isatty: bool = False
    stdout_isatty: bool = False
    stderr_isatty: bool = False
    no_color: bool = False  # NO_COLOR is set (https://no-color.org)
    terminal_width: int = 100  # columns of the terminal on standard output
    stdout_encoding: str = "utf-8"  # the encoding standard output writes in
    prog: str = "kwhatif"  # the name chatter starts with ("kubectl whatif" as a kubectl plugin)

    @classmethod
    def from_process(cls) -> Environment:
        """The streams of the process as they are now (a test's captured ones included)."""
        stdout_tty = sys.stdout.isatty()
        return cls(
            stdout=sys.stdout,
            stderr=sys.stderr,
            stdin_isatty=sys.stdin.isatty(),
            stdout_isatty=stdout_tty,
            stderr_isatty=sys.stderr.isatty(),
            no_color=bool(os.environ.get("NO_COLOR")),
            terminal_width=shutil.get_terminal_size((100, 24)).columns if stdout_tty else 100,
            stdout_encoding=getattr(sys.stdout, "encoding", None) or "ascii",
        )

    def use_color(self, choice: str) -> bool:
        """--color: always, never, or auto (on a terminal, unless NO_COLOR is set)."""
        if choice == "always":
            return True
        if choice == "never":
            return False
        return self.stdout_isatty and not self.no_color

    @property
    def width(self) -> int:
        """The width tables wrap at: the terminal's, 0 (no wrapping) when standard output is not one."""
        return self.terminal_width if self.stdout_isatty else 0

    @property
    def unicode(self) -> bool:
        """Block characters for bars: on a terminal that writes UTF-8; plain ASCII anywhere else."""
        return self.stdout_isatty and codecs.lookup(self.stdout_encoding).name == "utf-8"

    def say(self, line: str) -> None:
        """One line of chatter on standard error, after the program's name ("kwhatif: "): one line,
        whatever the names it quotes hold (their control characters made visible, as in a table)."""
        click.echo(f"{self.prog}: {visible(line)}", file=self.stderr)

    def note(self, line: str) -> None:
        self.say(f"note: {line}")


def current() -> Environment:
    """The Environment main() put on the click context, else the process's."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return obj if isinstance(obj, Environment) else Environment.from_process()
