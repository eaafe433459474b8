"""Reads bounded in time as well as in size.

A regular file ends, so its size is what bounds it. A pipe, a FIFO, a character device or a
socket may never end, or never start: a FIFO's open() waits for a writer, its read() for data,
/dev/zero never ends. Every such read here waits at most a read timeout for each step (the open,
then each chunk: an idle timeout, as a network read timeout is, so that a slow producer that
keeps writing is read to its end) and stops at its size limit.
"""

from __future__ import annotations

import io
import os
import select
import stat
import subprocess
import sys
import threading
import time
from typing import IO, Any

# --request-timeout's default: a live request and a silent pipe wait as long
DEFAULT_READ_TIMEOUT = 60.0


class ReadTimeout(OSError):
    """Nothing came (a writer to open a FIFO, the next chunk of a pipe) within the read timeout."""

    def __init__(self, timeout: float, opening: bool) -> None:
        what = "no writer opened it" if opening else "nothing more came"
        super().__init__(f"{what} within {timeout:g}s (see --request-timeout)")
        self.strerror = str(self)


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # open() reports what is wrong with it


def open_binary(path: str, timeout: float = DEFAULT_READ_TIMEOUT) -> IO[bytes]:
    """``path`` opened for reading in binary; a path that is not a regular file waits at most
    ``timeout`` seconds (0: forever) to open and for each chunk. Raises OSError."""
    if timeout <= 0 or _is_regular(path):
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    result: list[Any] = []

    def opener() -> None:
        try:
            result.append(os.open(path, os.O_RDONLY))
        except OSError as e:
            result.append(e)

    t = threading.Thread(target=opener, name="kwhatif-open", daemon=True)
    t.start()
    t.join(timeout)
    if not result:
        # the thread stays blocked in open() until a writer comes or the process ends; a writer
        # that comes later gets the descriptor closed by the thread's end (never, here): harmless
        raise ReadTimeout(timeout, opening=True)
    got = result[0]
    if isinstance(got, OSError):
        raise got
    return io.BufferedReader(_IdleTimeoutReader(got, timeout), buffer_size=64 * 1024)


def wrap_stream(stream: IO[bytes], timeout: float = DEFAULT_READ_TIMEOUT) -> IO[bytes]:
    """A binary stream (standard input) read with the idle timeout when it is a pipe, FIFO or
    socket; as it is otherwise (a file, a terminal: a person typing, a test's buffer)."""
    if timeout <= 0:
        return stream
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return stream
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)) or os.isatty(fd):
        return stream
    return io.BufferedReader(_IdleTimeoutReader(os.dup(fd), timeout), buffer_size=64 * 1024)


def read_bounded(path: str, max_bytes: int, timeout: float = DEFAULT_READ_TIMEOUT) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``path`` (a caller that gets more knows it is too
    large), within the read timeout. Raises OSError (ReadTimeout among them)."""
    with open_binary(path, timeout) as fh:
        data: bytes = read_at_most(fh, max_bytes + 1)
    return data


def read_at_most(fh: Any, n: int) -> Any:
    """Up to ``n`` bytes (characters of a text stream), a chunk at a time: read(n) allocates n
    bytes before it reads (a limit of 64G must not ask for 64G), and a pipe's read() returns
    what has come so far, so read until n or the end."""
    chunks: list[Any] = []
    got = 0
    while got < n:
        chunk = fh.read(min(n - got, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if chunks and isinstance(chunks[0], str):
        return "".join(chunks)
    return b"".join(chunks)


class _IdleTimeoutReader(io.RawIOBase):
    """A descriptor whose every read waits at most ``timeout`` seconds for data."""

    def __init__(self, fd: int, timeout: float) -> None:
        super().__init__()
        self._fd = fd
        self._timeout = timeout

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer: Any) -> int:
        ready, _, _ = select.select([self._fd], [], [], self._timeout)
        if not ready:
            raise ReadTimeout(self._timeout, opening=False)
        data = os.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()


class OutputTooLarge(Exception):
    """A command wrote more than its output limit on its standard output (it was stopped)."""


# what a command's standard error may show in all; the rest is read and dropped, so that the
# command never blocks on a full pipe
MAX_SHOWN_STDERR = 1 << 20


def run_bounded(
    argv: list[str],
    *,
    max_stdout: int,
    timeout: float,
    stdin: Any = subprocess.DEVNULL,
    env: dict[str, str] | None = None,
    held: list[str] | None = None,
) -> tuple[int, bytes]:
    """Run a command and return its exit status and standard output, which is read as it comes
    and stops the command (OutputTooLarge) past ``max_stdout`` bytes; ``timeout`` (seconds, 0:
    none) bounds the whole run (subprocess.TimeoutExpired). Its standard error is shown as it
    comes (through sys.stderr, which keeps secrets out), up to MAX_SHOWN_STDERR bytes; or, with
    ``held``, kept there for the caller to show once it knows what to hide (the credential the
    command answers)."""
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    forwarder = threading.Thread(target=_forward, args=(proc.stderr.fileno(), held), name="kwhatif-stderr", daemon=True)
    forwarder.start()
    deadline = time.monotonic() + timeout if timeout > 0 else None
    out = bytearray()
    fd = proc.stdout.fileno()
    try:
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise subprocess.TimeoutExpired(argv, timeout)
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue
            chunk = os.read(fd, 64 * 1024)
            if not chunk:
                break
            out += chunk
            if len(out) > max_stdout:
                raise OutputTooLarge(f"more than {max_stdout} bytes")
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        code = proc.wait(wait)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        proc.stdout.close()
        forwarder.join(5.0 if held is not None else 1.0)
    return code, bytes(out)


def _forward(fd: int, held: list[str] | None) -> None:
    shown = 0
    while True:
        try:
            chunk = os.read(fd, 64 * 1024)
        except OSError:
            return
        if not chunk:
            return
        if shown < MAX_SHOWN_STDERR:
            text = chunk[: MAX_SHOWN_STDERR - shown].decode("utf-8", "replace")
            shown += len(chunk)
            if held is not None:
                held.append(text)
                continue
            try:
                sys.stderr.write(text)
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
