"""The secrets of a run, kept out of everything kwhatif prints.

Credentials are registered where they are read (a kubeconfig's token, tokenFile, password and
client key, an exec plugin's credential and the values of its env, the Authorization header a
request carries); every string written to standard error, and to standard output, passes
through ``redact`` first, whatever it came from: an error of kwhatif's, the text of a server or
proxy that echoes the request's headers, a credential plugin's standard error, a traceback of
--debug. On top of what is registered, a URL's password (net/http's stripPassword shows it as
***) and a bearer token after "Bearer " are hidden wherever they appear.
"""

from __future__ import annotations

import re
import threading
from typing import Any, TextIO

REDACTED = "REDACTED"
# shorter values are not registered: hiding every "ab" of a report would garble it, and a secret
# that short is no secret
_MIN_LENGTH = 4

_lock = threading.Lock()
_values: set[str] = set()
_ordered: list[str] = []  # longest first, so that a secret containing another is hidden whole

_URL_PASSWORD = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^\s:/@]*):(?P<password>[^\s/@]+)@")
_BEARER = re.compile(r"(?i)(?P<word>\bbearer\s+)(?P<token>[A-Za-z0-9\-._~+/]{8,}=*)")


def register(*values: str) -> None:
    """Remember credentials: each one, and each line of it, is hidden from now on."""
    added = False
    with _lock:
        for value in values:
            if not isinstance(value, str):
                continue
            for part in (value, *value.strip().splitlines()):
                part = part.strip()
                if len(part) >= _MIN_LENGTH and part not in _values:
                    _values.add(part)
                    added = True
        if added:
            _ordered[:] = sorted(_values, key=len, reverse=True)


def clear() -> None:
    """Forget every credential (tests, and a run's end in-process)."""
    with _lock:
        _values.clear()
        _ordered.clear()


def registered() -> bool:
    return bool(_ordered)


def redact_known(text: str) -> str:
    """``text`` without the registered credentials (cheap when none is registered)."""
    for value in _ordered:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def redact(text: str) -> str:
    """``text`` without the registered credentials, URL passwords and bearer tokens."""
    text = redact_known(text)
    if "@" in text:
        text = _URL_PASSWORD.sub(lambda m: f"{m['scheme']}{m['user']}:***@", text)
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(lambda m: f"{m['word']}{REDACTED}", text)
    return text


class RedactingStream:
    """A text stream that writes what it is given without secrets. ``thorough``: the patterns
    too (standard error, where server and plugin text appears); else only what is registered
    (standard output, the report, at no cost while nothing is registered)."""

    def __init__(self, stream: TextIO, *, thorough: bool) -> None:
        self._stream = stream
        self._thorough = thorough

    @property
    def wrapped(self) -> TextIO:
        return self._stream

    def write(self, text: str) -> int:
        if isinstance(text, str):
            if self._thorough:
                text = redact(text)
            elif _ordered:
                text = redact_known(text)
        return self._stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def redacting(stream: TextIO, *, thorough: bool) -> TextIO:
    """``stream`` wrapped once (a stream already wrapped is returned as it is)."""
    if isinstance(stream, RedactingStream) or stream is None:
        return stream
    return RedactingStream(stream, thorough=thorough)  # type: ignore[return-value]
