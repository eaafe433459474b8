"""A progress line on standard error for long work: reading a large dump, listing a large live
cluster, placing many pods. It shows done/total, the rate and the time left, redrawn in place.

Only the command line turns it on (``configure``), and only when standard error is a terminal
and --quiet is not given; everywhere else ``task`` hands out a line that prints nothing. Work
that ends within a second never shows a line.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from kwhatif.escape import visible

_stream: TextIO | None = None
_shown: Task | None = None  # the task whose line is on the screen
DELAY = 1.0  # seconds before the first line: short work stays silent
INTERVAL = 0.2  # seconds between redraws


def configure(stream: TextIO | None) -> None:
    """Draw progress lines on this stream (None: never)."""
    global _stream
    _stream = stream


def enable_for_terminal(quiet: bool) -> None:
    """The command line's choice: standard error, when it is a terminal and not --quiet."""
    err = sys.stderr
    configure(err if not quiet and err is not None and err.isatty() else None)


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def _amount(n: float, unit: str) -> str:
    if unit == "MB":
        return f"{n / 1e6:.0f}"
    return f"{int(n)}"


class Task:
    """One piece of long work; ``update`` is cheap enough to call once per item."""

    __slots__ = ("label", "total", "unit", "done", "_stream", "_start", "_next", "_shown")

    def __init__(self, label: str, total: int | None, unit: str, stream: TextIO | None) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0
        self._stream = stream
        self._start = time.monotonic()
        self._next = self._start + DELAY
        self._shown = False

    def update(self, done: int, total: int | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total
        if self._stream is None:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + INTERVAL
        self._draw(now)

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def _draw(self, now: float) -> None:
        assert self._stream is not None
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        unit = f" {self.unit}" if self.unit else ""
        text = f"kwhatif: {visible(self.label)} {_amount(self.done, self.unit)}"  # a file's name, visible
        if self.total:
            text += f"/{_amount(self.total, self.unit)}{unit}"
            left = (self.total - self.done) / rate if rate > 0 else None
        else:
            text += unit
            left = None
        text += f" ({_amount(rate, self.unit)}{unit}/s"
        if left is not None:
            text += f", {_duration(left)} left"
        text += ")"
        try:
            self._stream.write("\r" + text + "\x1b[K")
            self._stream.flush()
        except (OSError, ValueError):
            self._stream = None
            return
        global _shown
        _shown = self
        self._shown = True

    def close(self) -> None:
        """Clear the line (the next output starts on a clean line)."""
        global _shown
        if _shown is self:
            _shown = None
        if self._shown and self._stream is not None:
            try:
                self._stream.write("\r\x1b[K")
                self._stream.flush()
            except (OSError, ValueError):
                pass
        self._shown = False
        self._stream = None

    def __enter__(self) -> Task:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def clear() -> None:
    """Clear whatever line is on the screen (before an error message)."""
    if _shown is not None:
        _shown.close()


def task(label: str, total: int | None = None, unit: str = "") -> Task:
    """A progress line for one piece of work (silent unless the command line turned lines on)."""
    return Task(label, total, unit, _stream)
