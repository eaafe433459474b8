"""Requests to the API server, bounded: each one ends within its timeout (connecting, the headers
and the whole body alike, so a server that accepts and never answers, or drips a byte a second,
cannot hang a run), a body above the size limit is cut off before it is held in memory, and a
429 or 5xx that carries Retry-After is retried as client-go retries it.

The transport speaks HTTP/1.1 with http.client over the TLS settings the kubeconfig gave (CA,
client certificate, server name, an HTTP proxy) and keeps its connection alive between pages.
"""

from __future__ import annotations

import base64
import http.client
import math
import os
import re
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from kwhatif import secrets
from kwhatif.errors import ClusterError, InputError
from kwhatif.load.files import format_size

# Unattended runs (CI) must end: kubectl waits forever by default, kwhatif a minute per request.
DEFAULT_REQUEST_TIMEOUT = 60.0
# client-go's rest.Request retries a 429/5xx answer that says Retry-After up to 10 times.
MAX_RETRIES = 10
_CHUNK = 64 * 1024


class Unreachable(ClusterError):
    """The request got no answer: the connection failed or timed out (then it may have been
    carried out all the same)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class TooLarge(InputError):
    """An answer above --max-input-size (exit 2, as a file above it is)."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes
    retries: int = 0  # the 429/5xx answers retried before this one


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """--request-timeout as kubectl reads it: a bare integer is seconds, anything else a Go
    duration (1s, 2m, 1m30s, 500ms); 0 means no timeout. Raises ValueError."""
    t = text.strip()
    if t.isdigit():
        return float(t)
    pos, total = 0, 0.0
    if t in ("", "0"):
        raise ValueError(text)
    for m in _DURATION.finditer(t):
        if m.start() != pos:
            raise ValueError(text)
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(t) or not math.isfinite(total):
        raise ValueError(text)
    return total


class _Connection(http.client.HTTPConnection):
    """HTTP/1.1 to the API server; TLS (with the kubeconfig's server name) once connected,
    through the proxy's CONNECT tunnel when there is one."""

    def __init__(
        self, host: str, port: int, timeout: float | None, tls: ssl.SSLContext | None, server_name: str
    ) -> None:
        super().__init__(host, port, timeout=timeout)
        self._tls = tls
        self._server_name = server_name

    def connect(self) -> None:
        super().connect()
        if self._tls is not None:
            self.sock = self._tls.wrap_socket(self.sock, server_hostname=self._server_name)


class Transport:
    """Requests to one API server, as the kubernetes client's Configuration describes it."""

    def __init__(self, cfg: Any, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.timeout = timeout
        server = str(cfg.host or "").rstrip("/")
        url = urlsplit(server)
        # every message names the server without the password a URL may carry (net/http's
        # stripPassword: user:***@host)
        self.host = strip_password(server)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ClusterError(f"kubeconfig: the cluster's server {self.host[:200]!r} is not an http(s) URL")
        self._https = url.scheme == "https"
        self._hostname = url.hostname
        try:
            port = url.port
        except ValueError:
            # net/http's dialer refuses it ("dial tcp: address 99999: invalid port")
            raise ClusterError(
                f"kubeconfig: the cluster's server {self.host[:200]!r}: invalid port (a port is 1 to 65535)"
            ) from None
        self._port = port or (443 if self._https else 80)
        self._prefix = url.path.rstrip("/")
        self._tls = self._tls_context(cfg) if self._https else None
        self._server_name = str(getattr(cfg, "tls_server_name", None) or self._hostname)
        self._proxy = urlsplit(str(cfg.proxy)) if getattr(cfg, "proxy", None) else None
        if self._proxy is not None and (self._proxy.scheme != "http" or not self._proxy.hostname):
            raise ClusterError(
                f"kubeconfig: proxy-url {strip_password(str(cfg.proxy))[:200]!r}: kwhatif speaks to http:// proxies only"
            )
        self._tunnel_headers: dict[str, str] = {}
        if self._proxy is not None and self._proxy.username:
            # net/http sends a proxy URL's user information as Proxy-Authorization on CONNECT
            who = f"{unquote(self._proxy.username)}:{unquote(self._proxy.password or '')}"
            basic = base64.b64encode(who.encode()).decode()
            self._tunnel_headers["Proxy-Authorization"] = f"Basic {basic}"
            secrets.register(basic, unquote(self._proxy.password or ""), self._proxy.password or "")
        self._headers: dict[str, str] = {"Accept": "application/json", "User-Agent": "kwhatif"}
        for setting in (cfg.auth_settings() or {}).values():
            if setting.get("in") == "header" and setting.get("value"):
                self._headers[setting["key"]] = setting["value"]
        user, password = getattr(cfg, "username", None), getattr(cfg, "password", None)
        if not user and url.username:
            # net/http sends a URL's user information as basic authentication when no
            # Authorization header is set (Client.send in net/http/client.go)
            user, password = unquote(url.username), unquote(url.password or "")
        if user and "authorization" not in {k.lower() for k in self._headers}:
            basic = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
            self._headers["Authorization"] = f"Basic {basic}"
        for name, value in self._headers.items():
            if name.lower() == "authorization":
                secrets.register(value, *value.split(" ", 1)[1:])
        secrets.register(password or "", url.password or "")
        self._conn: _Connection | None = None
        self._expired = False
        self._connected = False  # the connection stands (TLS included)
        self._answering = False  # the status line and headers came

    def _tls_context(self, cfg: Any) -> ssl.SSLContext:
        if cfg.verify_ssl is False and cfg.ssl_ca_cert:
            # client-go refuses the pair rather than skip the verification a CA asks for
            # (tlsConfigFor in k8s.io/client-go/transport/transport.go)
            raise ClusterError("kubeconfig: specifying a root certificates file with the insecure flag is not allowed")
        for path in (cfg.ssl_ca_cert, cfg.cert_file, cfg.key_file):
            if path and os.path.exists(path) and not os.path.isfile(path):
                # OpenSSL would wait on a FIFO forever
                raise ClusterError(f"kubeconfig: {path}: not a regular file (a certificate or key is read from one)")
        try:
            ctx = ssl.create_default_context(cafile=cfg.ssl_ca_cert or None)
            if cfg.verify_ssl is False:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            if cfg.cert_file:
                ctx.load_cert_chain(cfg.cert_file, cfg.key_file or None)
        except (ssl.SSLError, OSError) as e:
            # never the key's content: only what is wrong with it
            raise ClusterError(f"kubeconfig: the TLS settings cannot be used: {_reason(e)}") from None
        return ctx

    # --- one request -------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]] | None = None,
        body: bytes | None = None,
        *,
        limit: int | None = None,
        cap: int | None = None,
        what: str = "",
    ) -> Response:
        """Send one request and read its whole answer within the timeout. GETs answered 429 or
        5xx with Retry-After are retried (at most MAX_RETRIES times, never past the timeout).
        ``limit``: the largest body accepted (TooLarge above it), what is left of ``cap`` (the
        size named in the error, default ``limit``); ``what`` names the request in errors
        (default: METHOD URL)."""
        target = self._prefix + path + ("?" + urlencode(query) if query else "")
        what = what or f"{method} {self.host}{path}"
        deadline = time.monotonic() + self.timeout if self.timeout > 0 else None
        retries = 0
        while True:
            status, data, retry_after = self._once(method, target, body, deadline, limit, cap, what)
            if method != "GET" or retry_after is None or retries >= MAX_RETRIES:
                return Response(status, data, retries)
            if deadline is not None and time.monotonic() + retry_after >= deadline:
                return Response(status, data, retries)
            time.sleep(retry_after)
            retries += 1

    def _once(
        self,
        method: str,
        target: str,
        body: bytes | None,
        deadline: float | None,
        limit: int | None,
        cap: int | None,
        what: str,
    ) -> tuple[int, bytes, float | None]:
        headers = dict(self._headers)
        if body is not None:
            headers["Content-Type"] = "application/json"
        for fresh in (False, True):
            reused = self._conn is not None and not fresh
            if fresh:
                self.close()
            self._expired = False
            self._connected = False
            self._answering = False
            conn = self._connection(deadline)
            timer: threading.Timer | None = None
            if deadline is not None:
                timer = threading.Timer(max(deadline - time.monotonic(), 0.0), self._expire, (conn,))
                timer.daemon = True
                timer.start()
            try:
                if conn.sock is None:
                    conn.connect()
                self._connected = True
                try:
                    conn.request(method, target, body=body, headers=headers)
                    resp = conn.getresponse()
                    self._answering = True
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                    if reused and not self._expired:
                        continue  # the server closed the idle kept-alive connection: once more, afresh
                    raise
                data = self._read_body(resp, limit, cap, what)
                if resp.will_close:
                    self.close()
                return resp.status, data, _retry_after(resp)
            except TooLarge:
                self.close()
                raise
            except (OSError, http.client.HTTPException) as e:
                self.close()
                raise self._failure(e, what) from None
            finally:
                if timer is not None:
                    timer.cancel()
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _connection(self, deadline: float | None) -> _Connection:
        timeout = max(deadline - time.monotonic(), 0.001) if deadline is not None else None
        if self._conn is None:
            if self._proxy is not None and self._proxy.hostname:
                conn = _Connection(self._proxy.hostname, self._proxy.port or 80, timeout, self._tls, self._server_name)
                conn.set_tunnel(self._hostname, self._port, headers=self._tunnel_headers or None)
            else:
                conn = _Connection(self._hostname, self._port, timeout, self._tls, self._server_name)
            self._conn = conn
        elif self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def _read_body(self, resp: http.client.HTTPResponse, limit: int | None, cap: int | None, what: str) -> bytes:
        length = resp.getheader("Content-Length")
        expected = int(length) if length and length.strip().isdigit() else None
        if limit is not None and expected is not None and expected > limit:
            raise _too_large(what, cap or limit)
        buf = bytearray()
        while True:
            chunk = resp.read1(_CHUNK)
            if not chunk:
                break
            if self._expired:
                # on Linux a shut-down socket still yields what keeps arriving: stop here
                raise TimeoutError("timed out")
            buf += chunk
            if limit is not None and len(buf) > limit:
                raise _too_large(what, cap or limit)
        if self._expired:
            raise TimeoutError("timed out")
        if expected is not None and len(buf) < expected:
            raise http.client.IncompleteRead(bytes(buf[:0]), expected - len(buf))
        # read1 ends a body of known length without closing the response (it reads 0 bytes at
        # its end), and the connection sends no next request while its response is open: an
        # HTTP/1.1 server keeps the connection alive for the next page
        resp.close()
        return bytes(buf)

    def _expire(self, conn: _Connection) -> None:
        """The deadline passed: whatever the request is waiting for, it stops now."""
        self._expired = True
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _failure(self, e: BaseException, what: str) -> Unreachable:
        timed_out = self._expired or isinstance(e, TimeoutError)
        if timed_out and self._answering:
            return Unreachable(f"{what}: the answer did not end within {self.timeout:g}s", timed_out=True)
        if timed_out and self._connected:
            return Unreachable(f"{what}: no answer within {self.timeout:g}s", timed_out=True)
        if timed_out:
            return Unreachable(f"{what}: cannot reach the API server at {self.host}: timed out connecting")
        if isinstance(e, http.client.IncompleteRead):
            return Unreachable(f"{what}: the connection closed before the whole answer arrived")
        if self._connected and isinstance(
            e, (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError, http.client.BadStatusLine)
        ):
            return Unreachable(f"{what}: the API server closed the connection ({_reason(e)})")
        return Unreachable(f"{what}: cannot reach the API server at {self.host}: {_reason(e)}")

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except OSError:
                pass
            self._conn = None


def strip_password(url: str) -> str:
    """The URL with its password shown as *** (net/http's stripPassword in client.go, which every
    error of a Go client names the request with)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    return url.replace(parts.netloc.rsplit("@", 1)[0] + "@", f"{user}:***@", 1)


def _retry_after(resp: http.client.HTTPResponse) -> float | None:
    """client-go's checkWait: a 429 or 5xx with Retry-After in whole seconds."""
    if resp.status != 429 and resp.status < 500:
        return None
    value = (resp.getheader("Retry-After") or "").strip()
    if not value.isdigit():
        return None
    return float(int(value))


def _too_large(what: str, limit: int) -> TooLarge:
    return TooLarge(
        f"the answer is larger than --max-input-size ({format_size(limit)}); give a larger --max-input-size to read it",
        source=what,
    )


def _reason(e: BaseException) -> str:
    if isinstance(e, ssl.SSLCertVerificationError):
        detail = e.verify_message or "certificate verify failed"
        return f"TLS certificate verify failed: {detail} (check the kubeconfig's certificate-authority)"
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, socket.gaierror):
        return f"cannot resolve the host name ({e.strerror or e})"
    if isinstance(e, ssl.SSLError):
        return f"TLS: {e.reason or e}"
    if isinstance(e, OSError) and e.strerror:
        return str(e.strerror)
    text = str(e).splitlines()[0][:200] if str(e) else ""
    return text or type(e).__name__


def http_reason(code: int) -> str:
    """The reason phrase of an HTTP status code ("Service Unavailable"), "" for codes it lacks."""
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""
