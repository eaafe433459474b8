"""Writing a document whole: every byte written, or an error.

One ``write()`` system call writes at most 2,147,479,552 bytes on Linux, and a pipe, a socket or
a file system may take fewer than asked at any size: a writer that does not look at what each
call took loses the tail of a large document and reports success. A Sink hands its stream
pieces of at most CHUNK characters, writes each piece's bytes until all of them are taken, and
turns a stream that takes nothing into an OSError (the command then fails with one line, exit 2,
as for a full disk; a reader that went away is a BrokenPipeError, exit 141).
"""

from __future__ import annotations

import errno
import io
from typing import IO, Any

# characters per piece: at most 4 MiB of UTF-8, far below what one write() can take
CHUNK = 1 << 20


class Sink:
    """Text written to ``stream``, whole. A text stream with a binary buffer (standard output, a
    file opened in text mode) is written through that buffer, piece by piece, each piece's bytes
    until the buffer has taken them all; a binary stream directly; any other text stream piece by
    piece, checking what each write says it took."""

    __slots__ = ("_binary", "_encoding", "_errors", "_text", "written")

    def __init__(self, stream: IO[Any]) -> None:
        self._text = stream
        self._binary: Any = None
        self._encoding = "utf-8"
        self._errors = "strict"
        buffer = getattr(stream, "buffer", None)
        if isinstance(stream, io.BufferedIOBase | io.RawIOBase):
            self._binary = stream
        elif buffer is not None and callable(getattr(buffer, "write", None)):
            self._binary = buffer
            self._encoding = getattr(stream, "encoding", None) or "utf-8"
            self._errors = getattr(stream, "errors", None) or "strict"
        self.written = 0  # bytes (characters for a text stream without a buffer) written so far

    def write(self, text: str) -> None:
        if not text:
            return
        if self._binary is None:
            for start in range(0, len(text), CHUNK):
                self._write_text(text[start : start + CHUNK])
            return
        if self._binary is not self._text:
            self._text.flush()  # what the text layer holds goes first
        for start in range(0, len(text), CHUNK):
            self.write_bytes(text[start : start + CHUNK].encode(self._encoding, self._errors))

    def write_bytes(self, data: bytes) -> None:
        """``data`` written through the binary layer (raises for a text stream without one)."""
        if self._binary is None:
            raise TypeError("a text stream without a binary buffer takes text")
        view = memoryview(data)
        while view:
            n = self._binary.write(view)
            if not n:  # None (it would block) or 0: nothing was taken, and nothing will be
                raise OSError(errno.EIO, "the output took none of the bytes written to it")
            view = view[n:]
            self.written += n

    def _write_text(self, piece: str) -> None:
        while piece:
            n = self._text.write(piece)
            if n is None:  # a stream that does not say: it took everything or raised
                n = len(piece)
            if n <= 0:
                raise OSError(errno.EIO, "the output took none of the text written to it")
            piece = piece[n:]
            self.written += n

    def flush(self) -> None:
        self._text.flush()  # a text layer flushes its buffer too
