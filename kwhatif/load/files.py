"""Read Kubernetes objects from files: kubectl Lists (YAML or JSON), multi-document manifests,
`kubectl cluster-info dump` output (the concatenated stream or the --output-directory tree) and
standard input.

The result is a flat sequence of Documents (one object each, Lists expanded), each knowing where
it came from. Nothing here interprets an object beyond its apiVersion and kind.
"""

from __future__ import annotations

import codecs
import datetime
import io
import json
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson
import yaml

from kwhatif.bounded import DEFAULT_READ_TIMEOUT, open_binary, read_at_most, wrap_stream
from kwhatif.config.reader import (
    ALIAS_EXPANSION_FACTOR,
    ALIAS_EXPANSION_FLOOR,
    add_go_tag_constructors,
    go_yaml_resolvers,
    json_error_message,
    os_errors,
    yaml_error_message,
    yaml_nesting_problem,
)
from kwhatif.config.reader import (
    YAML_LOADER as _YamlLoader,
)
from kwhatif.errors import InputError
from kwhatif.gocompat import format_float32_g


class _UniqueKeyLoader(_YamlLoader):  # type: ignore[misc]
    """Safe YAML that refuses a key given twice in one mapping, as kubectl's YAML-to-JSON
    conversion does. Keys a merge (<<) brings in may be overridden, as there."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        own = node.value  # flatten_mapping drops the merge entries from this list, in place
        mapping = super().construct_mapping(node, deep=deep)
        if len(mapping) != len(node.value):  # a repeated key, or a merge: look closer
            seen: dict[Any, Any] = {}
            for key_node, _ in own:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    continue  # an unhashable key is refused by the constructor
                if first is not key_node:
                    shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else key
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f'mapping key "{shown}" already defined at line {first.start_mark.line + 1}',
                        key_node.start_mark,
                    )
        if not all(type(k) is str for k in mapping):
            return self._string_keys(node, mapping)
        return mapping

    def _string_keys(self, node: Any, mapping: dict[Any, Any]) -> dict[str, Any]:
        """JSON's keys are strings: sigs.k8s.io/yaml turns a number or boolean key into one (5 is
        "5", true "true", 1.5 "1.5" as Go formats a float32; a timestamp stays the text go-yaml
        read) and refuses any other key."""
        key_nodes: dict[Any, Any] = {}
        for key_node, _ in node.value:
            try:
                key_nodes.setdefault(self.construct_object(key_node, deep=True), key_node)
            except TypeError:
                pass
        out: dict[str, Any] = {}
        for key, value in mapping.items():
            key_node = key_nodes.get(key)
            mark = (key_node or node).start_mark
            text = _go_key_string(key, key_node)
            if text is None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key is not a string, number or boolean", mark
                )
            if text in out:
                raise yaml.constructor.ConstructorError(
                    None, None, f'mapping key "{text}" already defined, as a string', mark
                )
            out[text] = value
        return out


_UniqueKeyLoader.yaml_implicit_resolvers = go_yaml_resolvers(timestamps=True)
add_go_tag_constructors(_UniqueKeyLoader)


def _go_key_string(key: Any, key_node: Any) -> str | None:
    """A YAML mapping key as sigs.k8s.io/yaml writes it in JSON; None when it cannot be one."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        text = format_float32_g(key)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
    if isinstance(key, datetime.date) and isinstance(key_node, yaml.ScalarNode):  # datetimes too
        return str(key_node.value)
    return None


MiB = 1024 * 1024
# YAML parsing is slow and memory-hungry (a 100 MiB document takes minutes and gigabytes), JSON
# is not: each format has its own ceiling, which --max-input-size raises or lowers for both.
DEFAULT_MAX_YAML_BYTES = 128 * MiB
DEFAULT_MAX_JSON_BYTES = 2048 * MiB

_LOG_START = re.compile(r"==== START logs for [^\n]*====\n?")
_LOG_END = re.compile(r"==== END logs for [^\n]*====\n?")


CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Node",
        "Namespace",
        "PriorityClass",
        "PersistentVolume",
        "StorageClass",
        "CSINode",
        "CSIDriver",
        "RuntimeClass",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        # the other cluster-scoped kinds of the v1.30 API
        "ComponentStatus",
        "VolumeAttachment",
        "VolumeAttributesClass",
        "APIService",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "CertificateSigningRequest",
        "ClusterTrustBundle",
        "IngressClass",
        "IPAddress",
        "ServiceCIDR",
        "FlowSchema",
        "PriorityLevelConfiguration",
        "StorageVersion",
        "StorageVersionMigration",
        "ResourceClass",
        "TokenReview",
        "SelfSubjectReview",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
        "SubjectAccessReview",
        "DeviceClass",
        "ResourceSlice",
        "DeviceTaintRule",
    }
)


def format_size(n: int) -> str:
    """A byte count for messages: 2 GiB, 1.5 GiB, 640 KiB."""
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            v = n / div
            return f"{v:.0f} {unit}" if v >= 10 or v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"


@dataclass(frozen=True, slots=True)
class Limits:
    max_yaml_bytes: int = DEFAULT_MAX_YAML_BYTES
    max_json_bytes: int = DEFAULT_MAX_JSON_BYTES
    # how long a pipe or FIFO may stay silent (its open, then each chunk; 0: forever): --request-timeout
    read_timeout: float = DEFAULT_READ_TIMEOUT

    @classmethod
    def uniform(cls, max_bytes: int, read_timeout: float = DEFAULT_READ_TIMEOUT) -> Limits:
        return cls(max_bytes, max_bytes, read_timeout)


@dataclass(slots=True)
class Document:
    body: dict[str, Any]
    source: str  # "path", "path:line" (YAML document start) or "path (item 3)"
    kind: str
    api_version: str

    def describe(self) -> str:
        """'Kind namespace/name' or 'Kind name', as far as the document says."""
        meta = self.body.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        ns = meta.get("namespace") if isinstance(meta, dict) else None
        if not isinstance(name, str) or not name:
            return self.kind or "object"
        if self.kind in CLUSTER_SCOPED_KINDS:
            return f"{self.kind} {name}"
        return f"{self.kind} {ns if isinstance(ns, str) and ns else 'default'}/{name}"


class ItemRun(Document):
    """A document that stands for a run of ``len()`` items of a List (see PodRuns)."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError


# Decodes the text of a run of a List's items that look like Pods into one ItemRun, or answers
# None (kwhatif.load.typed.PodRuns): the loader's fast path for pods. It is given the run's text,
# where the List is, the index in it of the run's first item, and the kind and apiVersion of an
# item that names none (the List's: "Pod" in a PodList, as _expand_item reads them).
PodRuns = Callable[[str, str, int, str, str], ItemRun | None]


def read_path(
    path: str, limits: Limits = Limits(), stdin: Any = None, pod_runs: PodRuns | None = None
) -> Iterator[Document]:
    """The documents of one path, produced lazily: a large JSON dump is read and converted item by
    item, so neither its text nor its decoded form has to fit in memory at once. Errors about the
    path itself (missing, too large, not UTF-8 at its start) are raised here, before iteration.
    ``pod_runs``: the decoder of runs of Pod items that a JSON List's items are offered to first."""
    if path == "-":
        if stdin is None and sys.stdin is None:
            raise InputError("standard input is closed", source="<stdin>")
        stream: Any = stdin if stdin is not None else wrap_stream(sys.stdin.buffer, limits.read_timeout)
        limit = max(limits.max_yaml_bytes, limits.max_json_bytes)
        if isinstance(stream.read(0), str):  # a text stream (tests): read it whole
            text = read_at_most(stream, limit + 1)
            if len(text) > limit:
                raise InputError(
                    f"input is larger than the {format_size(limit)} limit (--max-input-size)", source="<stdin>"
                )
            stream = io.BytesIO(text.encode())
        docs = _open_stream(stream, "<stdin>", limits, limit)
        # standard input cannot be read twice: keep small texts for precise_sources
        _stdin_text[:] = [docs.text] if isinstance(docs, _WholeText) and len(docs.text) <= PRECISE_MAX_BYTES else []
        return _documents(docs, limits, pod_runs)
    if os.path.isdir(path):
        return _read_dump_dir(path, limits, pod_runs)
    return _documents(_open_file(path, limits), limits, pod_runs)


def _documents(opened: _WholeText | _JsonStream, limits: Limits, pod_runs: PodRuns | None) -> Iterator[Document]:
    if isinstance(opened, _WholeText):
        return parse_text(opened.text, opened.source, limits.max_yaml_bytes, pod_runs)
    opened.pod_runs = pod_runs
    return _json_or_yaml(opened, limits.max_yaml_bytes)


def _open_file(path: str, limits: Limits) -> _WholeText | _JsonStream:
    with os_errors(path):
        size = os.path.getsize(path)
        fh = open_binary(path, limits.read_timeout)  # a windowed reading keeps it open while it reads
    try:
        with os_errors(path):
            head = fh.read(64)
            is_json = head.lstrip()[:1] in (b"{", b"[")
            limit = limits.max_json_bytes if is_json else limits.max_yaml_bytes
            if size > limit:
                fmt = "JSON" if is_json else "YAML"
                advice = "raise it with --max-input-size" + ("" if is_json else ", or save the dump with -o json")
                raise InputError(
                    f"file is {format_size(size)}, above the {format_size(limit)} limit for {fmt} input ({advice})",
                    source=path,
                )
            # A file is read again from its start; devices and pipes report no size: never read
            # more than the limit allows.
            if fh.seekable():
                fh.seek(0)
                head = b""
        opened = _open_stream(fh, path, limits, limit, head)
    except BaseException:
        fh.close()
        raise
    if isinstance(opened, _WholeText):
        fh.close()
    return opened


def _open_stream(fh: Any, source: str, limits: Limits, limit: int, head: bytes = b"") -> _WholeText | _JsonStream:
    """A binary stream as one text, or (a JSON input larger than WINDOW_MIN_BYTES) as a JSON
    stream that reads it a window at a time: only the window and the current item are held."""
    with os_errors(source):
        # read in chunks: read(n) allocates n bytes first, whatever the file holds
        data = head + read_at_most(fh, max(0, min(WINDOW_MIN_BYTES + 1, limit + 1) - len(head)))
    if len(data) > WINDOW_MIN_BYTES and data.lstrip()[:1] in (b"{", b"[") and len(data) <= limit:
        stream = _JsonStream.windowed(fh, data, source, limit)
        if stream.total >= NUMPY_COUNT_MIN_BYTES:
            use_numpy_counts()
        return stream
    with os_errors(source):
        data += read_at_most(fh, limit + 1 - len(data))
    if len(data) > limit:
        raise InputError(f"input is larger than the {format_size(limit)} limit (--max-input-size)", source=source)
    return _WholeText(_decode(data, source), source)


@dataclass
class _WholeText:
    """A text held in full (everything but large JSON inputs)."""

    text: str
    source: str


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", source=source) from None


def _read_dump_dir(root: str, limits: Limits, pod_runs: PodRuns | None) -> Iterator[Document]:
    """`kubectl cluster-info dump --output-directory`: nodes.json at the top, one folder per
    namespace with pods.json, services.json, replicasets.json, ...; logs are skipped."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".json", ".yaml", ".yml")):
                files.append(os.path.join(dirpath, name))
    if not files:
        raise InputError("directory holds no .json or .yaml files (expected a cluster-info dump)", source=root)
    for f in files:
        with os_errors(f):
            mode = os.stat(f).st_mode
        if not stat.S_ISREG(mode):
            # a pipe would block the read forever and a device never ends: a dump holds files
            kind = "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
            raise InputError(f"{kind}, not a file: a cluster-info dump directory holds regular files", source=f)
        yield from _documents(_open_file(f, limits), limits, pod_runs)


def parse_text(
    text: str, source: str, max_yaml_bytes: int = DEFAULT_MAX_YAML_BYTES, pod_runs: PodRuns | None = None
) -> Iterator[Document]:
    stripped = text.lstrip()
    if not stripped:
        raise InputError("empty input: no Kubernetes objects", source=source)
    if stripped[0] in "{[":
        stream = _JsonStream(text, source)
        stream.pod_runs = pod_runs
        return _json_or_yaml(stream, max_yaml_bytes)
    return _yaml_documents(text, source)


class _JsonSyntaxError(InputError):
    """The text is not valid JSON (it may still be YAML)."""


def _json_or_yaml(stream: _JsonStream, max_yaml_bytes: int) -> Iterator[Document]:
    """Text that starts like JSON is read as JSON (streamed); when it is not valid JSON before its
    first object is complete, it is read as YAML, where `{apiVersion: v1, ...}` is a flow mapping:
    apimachinery's YAMLOrJSONDecoder (kubectl apply, create) falls back the same way, and reports
    the JSON error when the YAML reading fails too."""
    found = 0
    try:
        for doc in stream.documents_with_progress():
            found += 1
            stream.keep = False
            yield doc
    except _JsonSyntaxError as json_error:
        if found or stream.base != 0:
            raise
        # a windowed stream holds all it read until the first object is out: read the rest
        while stream.more is not None and len(stream.text) <= max_yaml_bytes:
            stream.extend(len(stream.text))
        if len(stream.text) > max_yaml_bytes:
            raise
        text = stream.text
        try:
            docs = list(_yaml_documents(text, stream.source))
        except InputError:
            raise json_error from None
        yield from docs
    finally:
        stream.close()


def _yaml_documents(text: str, source: str) -> Iterator[Document]:
    found = False
    for index, (value, where) in enumerate(_parse_yaml(text, source)):
        if value is None:
            continue
        found = True  # an empty List counts: it is a valid answer from kubectl
        yield from _expand(value, where, index)
    if not found:
        raise InputError("empty input: no Kubernetes objects", source=source)


_WS = re.compile(r"[ \t\n\r]*")


class _DuplicateKey(Exception):
    """A JSON object names a key twice (raised from inside the C scanner, located afterwards)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # The object hook of every JSON object read: the C scanner keeps the last of two equal keys,
    # as Go's lenient decoder does, where kubectl's strict decoding and YAML refuse them.
    d = dict(pairs)
    if len(d) != len(pairs):
        raise _DuplicateKey
    return d


class _BadNumber(ValueError):
    """A number JSON does not have (NaN, Infinity) or Go cannot hold (1e400 overflows a float64)."""

    def __init__(self, text: str, message: str, *, syntax: bool) -> None:
        super().__init__(message)
        self.text = text
        self.message = message
        self.syntax = syntax


def _no_constant(name: str) -> Any:
    # the C scanner accepts NaN, Infinity and -Infinity; JSON, Go and kubectl do not
    raise _BadNumber(name, f"{name} is not a JSON value", syntax=True)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        # Go's decoder (kubectl, the API server) refuses a number beyond a float64's range
        raise _BadNumber(text, f"number {text} is out of the range of a float64", syntax=False)
    return value


def _first_duplicate_key(text: str, pos: int) -> tuple[int, int, str] | None:
    """Where the first key given twice in one object of the JSON value at ``pos`` is: (position of
    the repeat, position of the first, key); None when there is none. Iterative, so depth is no
    problem; only run once a duplicate is known to be there."""
    scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
    stack: list[dict[str, int] | None] = []  # per open container: keys seen (object) or None (array)

    def ws(i: int) -> int:
        m = _WS.match(text, i)
        assert m is not None
        return m.end()

    scalar = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined]
    i = pos
    need_key = False
    while True:
        i = ws(i)
        if need_key:  # at a key of the object on top of the stack
            seen = stack[-1]
            assert seen is not None
            key, end = scanstring(text, i + 1)
            first = seen.get(key)
            if first is not None:
                return i, first, key
            seen[key] = i
            i = ws(end) + 1  # past the colon
            i = ws(i)
            need_key = False
        c = text[i]
        if c in "{[":
            i = ws(i + 1)
            if text[i] in "}]":
                i += 1
            else:
                stack.append({} if c == "{" else None)
                need_key = c == "{"
                continue
        else:
            _, i = scalar(text, i)
        # after a value: close what ends here, step over a comma
        while True:
            if not stack:
                return None
            i = ws(i)
            c = text[i]
            i += 1
            if c == ",":
                need_key = stack[-1] is not None
                break
            stack.pop()


_COUNT_MIN_CHARS = 1 << 14
# An input this large counts characters with numpy: its import (about 60 ms of CPU, which every
# command that schedules pays later anyway) is then a small part of what counting saves.
NUMPY_COUNT_MIN_BYTES = 128 * MiB


def use_numpy_counts() -> None:
    """Count with numpy from now on (a large input is being read)."""
    import numpy  # noqa: F401


def count_byte(data: bytes | bytearray, byte: bytes) -> int:
    """``data.count(byte)`` of one byte: numpy's vector compare over long data once numpy is
    imported (see count_char)."""
    np = sys.modules.get("numpy")
    if np is None or len(data) < _COUNT_MIN_CHARS:
        return data.count(byte)
    return int(np.count_nonzero(np.frombuffer(data, np.uint8) == byte[0]))


def count_char(text: str, char: str, start: int = 0, end: int | None = None) -> int:
    """``text.count(char, start, end)`` of a one-character ASCII ``char``. str.count compares one
    character at a time; over a long text, once numpy is imported, its vector compare of the
    text's UTF-8 (where an ASCII character occurs only as itself) is four times faster, copies
    included."""
    if end is None:
        end = len(text)
    np = sys.modules.get("numpy")
    if np is None or end - start < _COUNT_MIN_CHARS:
        return text.count(char, start, end)
    data = (text[start:end] if start or end < len(text) else text).encode("utf-8", "surrogatepass")
    return int(np.count_nonzero(np.frombuffer(data, np.uint8) == ord(char)))


PROGRESS_MIN_CHARS = 16 * MiB  # smaller JSON inputs are read too fast to show progress
# JSON inputs larger than this are read a window at a time (WINDOW_CHUNK_BYTES per read), so the
# text of a large dump is never held whole (nor its bytes beside it).
WINDOW_MIN_BYTES = 8 * MiB
# A read moves the window on: for a moment the old window, the bytes read, their text and the new
# window are all held, a few reads' worth, which is most of what a load holds besides its objects
# (4 MiB reads: the 5,000-node dump's load peaks about 10 MB lower than with 8 MiB reads, and
# reads the same text in the same time).
WINDOW_CHUNK_BYTES = 4 * MiB
_VALUE_START = '{["-0123456789tfn'
_NUMBER_GOES_ON = re.compile(r"[0-9.eE+-]*")


class _JsonStream:
    """Walks the top-level JSON values itself and hands out each element of a top-level ``items``
    array as soon as the C scanner has decoded it. Concatenated values (the `cluster-info dump`
    stream) and the log sections between them are accepted.

    The text is either whole, or a window over a larger input (``more`` reads on): positions are
    offsets into the window, which moves on only when a value, a delimiter or a log section runs
    past its end. What lies before the window is gone but for its line count and where its last
    line starts, which is all an error message needs."""

    def __init__(self, text: str, source: str, total: int | None = None) -> None:
        self.text = text
        self.source = source
        self.scan = json.scanner.make_scanner(  # type: ignore[attr-defined]
            json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_constant=_no_constant, parse_float=_finite_float)
        )
        self.progress: Any = None
        self.total = len(text) if total is None else total
        # the window: ``base`` characters lie before it, holding ``lines`` newlines (None: not
        # counted, see ``recount``), the last at absolute offset ``last_nl`` (-1: none); a line
        # count up to window offset ``counted``
        self.base = 0
        self.lines: int | None = 0
        self.last_nl = -1
        self.counted = 0
        self.counted_lines: int | None = 0
        # A file that can be read again counts the lines of what the window drops only once a
        # line number is asked for (an error, a second document): ``recount(n)`` counts the
        # newlines of the input's first n characters, and where the last is, from the file.
        self.recount: Callable[[int], tuple[int, int]] | None = None
        self.eager = False  # count the lines of what is dropped as it is dropped
        self.more: Any = None  # reads the next piece of text ("" at the end), None when whole
        self.chunk = WINDOW_CHUNK_BYTES
        self.keep = True  # nothing is dropped until the first object is out (the YAML fallback)
        self.fh: Any = None
        self.start = 0
        self.pod_runs: PodRuns | None = None

    @classmethod
    def windowed(cls, fh: Any, first: bytes, source: str, limit: int) -> _JsonStream:
        decoder = codecs.getincrementaldecoder("utf-8-sig")()
        read = [0]

        def decode(data: bytes, final: bool) -> str:
            try:
                return decoder.decode(data, final)
            except UnicodeDecodeError as e:
                raise InputError(f"not UTF-8 text (byte {read[0] - len(data) + e.start})", source=source) from None

        read[0] = len(first)
        try:
            size = os.fstat(fh.fileno()).st_size
        except (OSError, AttributeError, io.UnsupportedOperation):
            size = 0
        stream = cls(decode(first, False), source, total=max(size, len(first)))
        stream.fh = fh
        try:
            origin = fh.tell() - len(first) if fh.seekable() else -1
        except (OSError, AttributeError, io.UnsupportedOperation):
            origin = -1

        def recount(n: int) -> tuple[int, int]:
            again = codecs.getincrementaldecoder("utf-8-sig")()
            lines, last, done = 0, -1, 0
            with os_errors(source):
                here = fh.tell()
                fh.seek(origin)
                try:
                    while done < n:
                        data = fh.read(WINDOW_CHUNK_BYTES)
                        text = again.decode(data, not data)[: n - done]
                        if not text and not data:
                            break
                        found = count_char(text, "\n")
                        if found:
                            lines += found
                            last = done + text.rfind("\n")
                        done += len(text)
                finally:
                    fh.seek(here)
            return lines, last

        if origin >= 0:
            stream.recount = recount

        def more(n: int) -> str:
            while True:
                with os_errors(source):
                    data = fh.read(n)
                read[0] += len(data)
                if read[0] > limit:
                    raise InputError(
                        f"input is larger than the {format_size(limit)} limit (--max-input-size)", source=source
                    )
                text = decode(data, not data)
                if text or not data:
                    return text

        stream.more = more
        return stream

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def documents_with_progress(self) -> Iterator[Document]:
        """documents(), with a progress line over the text for large inputs."""
        if self.total < PROGRESS_MIN_CHARS:
            yield from self.documents()
            return
        from kwhatif import progress

        with progress.task(f"reading {os.path.basename(self.source)}", self.total, "MB") as self.progress:
            yield from self.documents()

    # --- the window ----------------------------------------------------------------------------

    def extend(self, pos: int) -> int:
        """Read on: the window drops what lies before ``pos`` (unless it keeps all) and gains the
        next piece of the input; returns ``pos`` in the new window. At the end of the input the
        window stays as it is and ``more`` becomes None."""
        if self.more is None:
            return pos
        piece = self.more(self.chunk)
        if not piece:
            self.more = None
            return pos
        cut = 0 if self.keep else pos
        if cut == 0:
            self.chunk *= 2  # a value longer than the window: read on faster
        else:
            self.chunk = WINDOW_CHUNK_BYTES
            # the lines of what is dropped: counted now, or from the file if ever asked for
            self.lines = self.line_index(cut) if self.recount is None or self.eager else None
            nl = self.text.rfind("\n", 0, cut)
            if nl >= 0:
                self.last_nl = self.base + nl
            self.base += cut
            self.counted, self.counted_lines = 0, self.lines
        self.text = self.text[cut:] + piece
        return pos - cut

    def line_index(self, pos: int) -> int:
        """How many newlines lie before window offset ``pos`` (from the start of the input)."""
        if self.lines is None or self.counted_lines is None:
            assert self.recount is not None
            self.lines = self.recount(self.base)[0]
            self.counted, self.counted_lines = 0, self.lines
            self.eager = True  # asked once, likely again (documents of a stream): count as it goes
        if pos >= self.counted:
            self.counted_lines += count_char(self.text, "\n", self.counted, pos)
            self.counted = pos
            return self.counted_lines
        return self.lines + count_char(self.text, "\n", 0, pos)

    def line_col(self, pos: int) -> tuple[int, int]:
        nl = self.text.rfind("\n", 0, pos)
        col = pos - nl if nl >= 0 else self.base + pos - self.last_nl
        return self.line_index(pos) + 1, col

    def where(self, pos: int) -> int | tuple[int, int]:
        """What line_at needs of window offset ``pos`` later, when the window may have moved on:
        its absolute offset where the file can be read again, else its line and column now."""
        return self.base + pos if self.recount is not None else self.line_col(pos)

    def line_at(self, where: int | tuple[int, int]) -> tuple[int, int]:
        """The line and column of what ``where`` returned."""
        if isinstance(where, tuple):
            return where
        if where >= self.base:
            return self.line_col(where - self.base)
        assert self.recount is not None
        lines, last = self.recount(where)
        return lines + 1, where - last

    def fail(self, pos: int, msg: str) -> InputError:
        line, col = self.line_col(pos)
        return _JsonSyntaxError(json_error_message(line, col, msg), source=self.source)

    def skip_ws(self, pos: int) -> int:
        while True:
            m = _WS.match(self.text, pos)
            assert m is not None
            end = m.end()
            if end < len(self.text) or self.more is None:
                return end
            pos = self.extend(end)

    def whole_line(self, pos: int) -> int:
        """Extend the window until the line at ``pos`` ends in it (or the input does)."""
        while self.more is not None and self.text.find("\n", pos) < 0:
            pos = self.extend(pos)
        return pos

    def value(self, pos: int) -> tuple[Any, int]:
        if self.more is not None and len(self.text) - pos < WINDOW_CHUNK_BYTES // 8:
            # a value cut off by the window's end makes the scanner raise an error that counts
            # the lines of the whole window before it: read on first
            pos = self.extend(pos)
        while True:
            try:
                v, end = self.scan(self.text, pos)
            except StopIteration as e:
                if self.more is not None:
                    pos = self.extend(pos)
                    continue
                raise self.fail(e.value, "Expecting value") from None
            except json.JSONDecodeError as e:
                if self.more is not None:  # it may only be cut off by the window's end
                    pos = self.extend(pos)
                    continue
                raise self.fail(e.pos, e.msg) from None
            except RecursionError:
                raise _JsonSyntaxError("invalid JSON: nested too deeply", source=self.source) from None
            except _DuplicateKey:
                raise self.duplicate(pos) from None
            except _BadNumber as e:
                at = self.text.find(e.text, pos)
                err = self.fail(at if at >= 0 else pos, e.message)
                # NaN is a syntax error (the YAML fallback may still read the text); a number out
                # of range is not: Go's decoder refuses it after the syntax is read
                raise (err if e.syntax else InputError(err.message, source=self.source)) from None
            except ValueError:  # the C scanner's int() of more than 4,300 digits
                err = self.fail(pos, "a number in this value is out of the range of a float64")
                raise InputError(err.message, source=self.source) from None
            if self.more is not None and (
                end >= len(self.text) or (type(v) in (int, float) and _NUMBER_GOES_ON.fullmatch(self.text, end))
            ):  # a number may go on past the window's end
                pos = self.extend(pos)
                continue
            self.start = pos  # where the value starts in the window as it now is
            return v, end

    def duplicate(self, pos: int) -> InputError:
        """The one-line error for a key given twice in the value at ``pos``, as YAML's reads."""
        try:
            found = _first_duplicate_key(self.text, pos)
        except (ValueError, IndexError, RecursionError):
            found = None
        if found is None:  # not expected: the scanner saw one
            return InputError("invalid JSON: an object key is given twice", source=self.source)
        at, first, key = found
        return self.key_given_twice(at, self.line_col(first), key)

    def key_given_twice(self, at: int, first: tuple[int, int], key: str) -> InputError:
        # not a _JsonSyntaxError: read as YAML, the text is refused for the same key
        err = self.fail(at, f"key {json.dumps(key)} already defined at line {first[0]} column {first[1]}")
        return InputError(err.message, source=self.source)

    def expect(self, pos: int, chars: str) -> tuple[str, int]:
        pos = self.skip_ws(pos)
        if pos >= len(self.text) or self.text[pos] not in chars:
            raise self.fail(pos, "Expecting " + " or ".join(repr(c) for c in chars) + " delimiter")
        return self.text[pos], pos + 1

    # --- the documents -------------------------------------------------------------------------

    def documents(self) -> Iterator[Document]:
        pos = index = 0
        while True:
            pos = self.skip_ws(pos)
            if pos >= len(self.text):
                break
            if self.text.startswith("=", pos):
                pos = self.whole_line(pos)
                m = _LOG_START.match(self.text, pos)
                if m:
                    pos = self.skip_log(m.end())
                    continue
            line = self.line_index(pos) + 1
            where = self.source if index == 0 else f"{self.source}:{line}"
            if self.text[pos] == "{":
                pos = yield from self._object(pos, where, index)
            else:
                value, pos = self.value(pos)
                yield from _expand(value, where, index)
            index += 1
        if index == 0:
            raise InputError("empty input: no Kubernetes objects", source=self.source)

    def skip_log(self, pos: int) -> int:
        """Past the END line of the log section whose text starts at ``pos`` (the input's end when
        it has none)."""
        while True:
            end = _LOG_END.search(self.text, pos)
            if end is not None:
                return end.end()
            if self.more is None:
                return len(self.text)
            # keep the last, unfinished line: it may be the END line
            pos = max(pos, self.text.rfind("\n") + 1)
            pos = self.extend(pos)

    def _object(self, pos: int, where: str, index: int) -> Generator[Document, None, int]:
        """Decode one top-level object, streaming its ``items``; returns where it ends."""
        obj: dict[str, Any] = {}
        waiting: list[tuple[int, Any]] = []  # items without a kind, until the list's kind is known
        streamed = False
        ch, pos = self.expect(pos + 1, '"}')
        key_at: dict[str, int | tuple[int, int]] = {}
        while ch != "}":
            start = pos - 1
            key, pos = self.value(start)
            start = self.start  # the window may have moved on
            first = key_at.get(key)
            if first is not None:
                raise self.key_given_twice(start, self.line_at(first), key)
            key_at[key] = self.where(start)
            _, pos = self.expect(pos, ":")
            pos = self.skip_ws(pos)
            if key == "items" and self.text.startswith("[", pos):
                streamed = True
                ch, pos = self.expect(pos + 1, "]" + _VALUE_START)
                i = 0
                progress = self.progress
                batches = _Batches(self.pod_runs, where, obj)
                while ch != "]":
                    start = pos - 1
                    if self.more is not None and len(self.text) - start < batches.RUN_CHARS:
                        # a run cut short by the window's end finds no separator, and the next
                        # item would be read by the scanner: the window moves on first
                        start = self.extend(start)
                    batches.first = i
                    got = batches.take(self, start)
                    if got is not None:
                        items, pos = got
                    else:
                        item, pos = self.value(start)
                        items = [item]
                    if progress is not None:
                        progress.update(self.base + pos)
                    if isinstance(items, ItemRun):  # a run of pods, from pod_runs
                        yield items
                        i += len(items)
                        items = []
                    for item in items:
                        if isinstance(item, dict) and (item.get("kind") or obj.get("kind")):
                            yield from _expand_item(item, obj, where, i)
                        else:
                            waiting.append((i, item))
                        i += 1
                    end = pos
                    ch, pos = self.expect(pos, ",]")
                    if ch == ",":
                        ch, pos = self.expect(pos, _VALUE_START)
                        if got is None:
                            batches.learn(self.text, end, pos - 1)
            else:
                obj[key], pos = self.value(pos)
            ch, pos = self.expect(pos, ",}")
            if ch == ",":
                ch, pos = self.expect(pos, '"')
        if not streamed:
            yield from _expand(obj, where, index)
            return pos
        kind = obj.get("kind")
        if not isinstance(kind, str) or not kind:
            raise InputError("missing kind", source=where, field="kind")
        for i, item in waiting:
            yield from _expand_item(item, obj, where, i)
        yield from _recorded_version(obj, where)
        return pos


class _Batches:
    """Decodes a run of a List's items at once with msgspec's C decoder, about three times faster
    than the C scanner with its duplicate-key hook, where the run is plain: the stdlib scanner
    reads the rest, and words every error.

    A run ends where the text shows the items' own separator: a ``}``, the separator seen between
    two items, and the next item's first characters (quotes in JSON strings are escaped, so this
    text is structure wherever it occurs). The run, wrapped in brackets, is decoded as one array:
    when that succeeds, its elements are the items the scanner would read one by one (same text,
    same grammar); when the cut fell inside an item, the brackets do not balance and decoding
    fails. The run is taken only when it names no key twice: every key brings one ``:`` to the
    text and one to orjson's text of what was decoded, and a string's colons are the same in
    both, unless written as ``\\u003a`` (such runs go to the scanner), so a key given twice leaves
    the decoded text with fewer. msgspec reads numbers, strings and literals as the scanner does
    (exact integers, correctly rounded floats) and refuses what the loader refuses (NaN, numbers
    beyond a float64, over 4,300 digits); what else it refuses (lone surrogates), the scanner reads."""

    __slots__ = ("term", "misses", "slow_until", "pod_runs", "pod_misses", "where", "first", "kind", "api_version")

    RUN_CHARS = 1 << 16  # 20 pods of a compact List, 8 of kubectl's indented output: decoded at once
    PREFIX_CHARS = 16
    MAX_MISSES = 3  # runs of no separator (or pods pod_runs hands back) in a row before it stops for this List

    def __init__(self, pod_runs: PodRuns | None = None, where: str = "", lst: dict[str, Any] | None = None) -> None:
        self.term: str | None = None
        self.misses = 0
        self.slow_until = -1  # a run that failed: its items are read one by one up to here
        self.pod_runs = pod_runs
        self.pod_misses = 0  # runs of pods in a row that pod_runs handed back; at MAX_MISSES it stops
        self.where = where  # the List's source, and the index in it of the next item (pod_runs)
        self.first = 0
        # what an item that names no kind or apiVersion is (the List's kind and apiVersion, where
        # they come before its items)
        self.kind, self.api_version = _item_defaults(lst or {})

    def learn(self, text: str, end: int, start: int) -> None:
        """The separator from the item ending at ``end`` to the one starting at ``start``."""
        if self.term is None and self.misses < self.MAX_MISSES and text[end - 1 : end] == "}":
            self.term = "}" + text[end:start] + text[start : start + self.PREFIX_CHARS]

    def take(self, stream: _JsonStream, pos: int) -> tuple[list[Any] | ItemRun, int] | None:
        """The items from ``pos`` (an item's first character) to the end of the run, and the
        position just past the last; None: read the next item with the scanner."""
        term = self.term
        if term is None or pos < self.slow_until:
            return None
        text = stream.text
        cut = text.rfind(term, pos, pos + self.RUN_CHARS)
        if cut < 0:  # the window ends, or the separator changed: learn it again
            self.term = None
            self.misses += 1
            return None
        self.misses = 0
        run = text[pos : cut + 1]
        if self.pod_runs is not None and (self.kind == "Pod" or _looks_like_pods(run)):
            pods = self.pod_runs(run, self.where, self.first, self.kind, self.api_version)
            if pods is not None:
                self.pod_misses = 0
                return pods, cut + 1
            self.pod_misses += 1
            if self.pod_misses >= self.MAX_MISSES:
                self.pod_runs = None  # these pods are not what it decodes (fields of a newer release?)
        try:
            items = MSGSPEC_DECODE("[" + run + "]")
            if not keys_once(run, orjson.dumps(items)):
                items = None
        except DECODE_ERRORS:
            items = None
        if items is None:
            self.slow_until = cut
            return None
        return items, cut + 1


MSGSPEC_DECODE = msgspec.json.Decoder().decode
# what decoding a text with msgspec and writing the value again may raise: the text is not plain
DECODE_ERRORS = (msgspec.MsgspecError, ValueError, TypeError, RecursionError, orjson.JSONEncodeError)


def keys_once(text: str, encoded: bytes | bytearray) -> bool:
    """Whether a JSON ``text`` that msgspec decoded names no key twice (nor, decoded into Structs,
    a key their schema does not know), ``encoded`` being msgspec's or orjson's text of what it
    decoded (see _Batches): it writes no colon as an escape and holds as many colons."""
    if "\\" in text and ESCAPED_COLON.search(text) is not None:
        return False
    return count_char(text, ":") == count_byte(encoded, b":")


def _looks_like_pods(run: str) -> bool:
    """Whether a run's first item may say it is a Pod (kubectl writes the kind second; other
    writers last, or in a pod's owner references: a guess that costs one attempt)."""
    head = run[:_FIRST_ITEM_CHARS]
    return '"kind": "Pod"' in head or '"kind":"Pod"' in head


_FIRST_ITEM_CHARS = 8192


ESCAPED_COLON = re.compile(r"\\u003[aA]")


_DOC_START = re.compile(r"^---", re.M)

# `kwhatif snapshot` records the API server's gitVersion (GET /version) in its List's metadata, so
# that the file answers as the same release the live cluster does. The loader hands it on as a
# document of this kind.
SERVER_VERSION_ANNOTATION = "kwhatif.io/server-version"
SERVER_VERSION_KIND = "kwhatif.io/ServerVersion"


def _recorded_version(lst: dict[str, Any], where: str) -> Iterator[Document]:
    meta = lst.get("metadata")
    ann = meta.get("annotations") if isinstance(meta, dict) else None
    version = ann.get(SERVER_VERSION_ANNOTATION) if isinstance(ann, dict) else None
    if isinstance(version, str) and version:
        yield Document({"gitVersion": version}, where, SERVER_VERSION_KIND, "")


def _parse_yaml(text: str, source: str) -> Iterator[tuple[Any, str]]:
    problem = yaml_nesting_problem(text)
    if problem:
        raise InputError(problem, source=source)
    try:
        docs = list(yaml.load_all(text, Loader=_UniqueKeyLoader))
    except yaml.YAMLError as e:
        raise InputError(yaml_error_message(e, text), source=source) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", source=source) from None
    if "&" in text and "*" in text:
        _check_alias_expansion(docs, len(text), source)
    # Line of each document: where a "---" line opens it (the first may have none).
    starts = [text.count("\n", 0, m.start()) + 1 for m in _DOC_START.finditer(text)]
    first_content = len(text) - len(text.lstrip())
    if not starts or text.count("\n", 0, first_content) + 1 < starts[0]:
        starts.insert(0, 1)
    single = len(docs) == 1
    return iter(
        (doc, source if single else f"{source}:{starts[i] if i < len(starts) else '?'}") for i, doc in enumerate(docs)
    )


_END = object()


def _check_alias_expansion(docs: list[Any], text_len: int, source: str) -> None:
    """Reject documents whose aliases expand far beyond their text (a "billion laughs")."""
    limit = max(ALIAS_EXPANSION_FLOOR, ALIAS_EXPANSION_FACTOR * text_len)
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def too_many() -> InputError:
        return InputError(f"invalid YAML: aliases expand to more than {limit} nodes (an alias bomb?)", source=source)

    def size(root: Any) -> int:
        """Nodes of ``root`` with its aliases expanded, walked with a stack of its own: a
        document may nest as deep as go-yaml allows (10,000 levels), far past Python's recursion."""
        if not isinstance(root, (dict, list)):
            return 1
        # (collection, its children, the total so far)
        stack: list[tuple[Any, Iterator[Any], int]] = []

        def enter(obj: Any) -> None:
            if id(obj) in in_progress:
                raise InputError("invalid YAML: an alias refers to its own ancestor", source=source)
            in_progress.add(id(obj))
            stack.append((obj, iter(obj.values() if isinstance(obj, dict) else obj), 1))

        enter(root)
        while True:
            obj, children, total = stack[-1]
            child = next(children, _END)
            if child is _END:
                stack.pop()
                in_progress.discard(id(obj))
                sizes[id(obj)] = total
                if not stack:
                    return total
                parent, siblings, parent_total = stack[-1]
                parent_total += total
                if parent_total > limit:
                    raise too_many()
                stack[-1] = (parent, siblings, parent_total)
                continue
            if isinstance(child, (dict, list)):
                known = sizes.get(id(child))
                if known is None:
                    enter(child)
                    continue
                total += known
            else:
                total += 1
            if total > limit:
                raise too_many()
            stack[-1] = (obj, children, total)

    total = 0
    for doc in docs:
        total += size(doc)
        if total > limit:
            raise InputError(f"invalid YAML: aliases expand to more than {limit} nodes (an alias bomb?)", source=source)


def _expand(value: Any, where: str, index: int) -> Iterator[Document]:
    if isinstance(value, list):
        # A bare JSON/YAML array of objects.
        for i, item in enumerate(value):
            yield from _expand(item, f"{where} (item {i})", i)
        return
    if not isinstance(value, dict):
        raise InputError(
            f"document {index + 1} is a {type(value).__name__}, not a Kubernetes object (a mapping)",
            source=where,
        )
    kind = value.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError("missing kind", source=where, field="kind")
    if kind.endswith("List") and "items" in value:
        items = value.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError("items must be a list", source=where, obj=kind, field="items")
        for i, item in enumerate(items):
            yield from _expand_item(item, value, where, i)
        yield from _recorded_version(value, where)
        return
    api_version = value.get("apiVersion")
    yield Document(value, where, kind, api_version if isinstance(api_version, str) else "")


def _expand_item(item: Any, lst: dict[str, Any], where: str, i: int) -> Iterator[Document]:
    """One element of a List's items; its kind defaults to the list's ("PodList" → "Pod")."""
    list_kind = lst.get("kind") if isinstance(lst.get("kind"), str) else ""
    list_kind = list_kind or "List"
    if not isinstance(item, dict):
        raise InputError(f"is a {type(item).__name__}, not an object", source=where, obj=list_kind, field=f"items[{i}]")
    default_kind, default_api_version = _item_defaults(lst)
    kind = item.get("kind") or default_kind
    api_version = item.get("apiVersion") or default_api_version
    if not kind or not isinstance(kind, str):
        raise InputError("missing kind", source=where, obj=list_kind, field=f"items[{i}].kind")
    src = f"{where} (items[{i}])"
    if kind.endswith("List") and "items" in item:
        yield from _expand(item, src, i)
        return
    yield Document(item, src, kind, api_version if isinstance(api_version, str) else "")


def _item_defaults(lst: dict[str, Any]) -> tuple[str, str]:
    """The kind and apiVersion of a List's item that names none: the List's kind without its
    "List" ("PodList" → "Pod"; "" for a plain List) and its apiVersion ("" where not a string)."""
    list_kind = lst.get("kind")
    kind = list_kind[: -len("List")] if isinstance(list_kind, str) and list_kind.endswith("List") else ""
    api_version = lst.get("apiVersion")
    return kind, api_version if isinstance(api_version, str) else ""


# Files larger than this keep the coarser location of their documents.
PRECISE_MAX_BYTES = 8 * MiB
_stdin_text: list[str] = []

_SOURCE = re.compile(r"^(?P<file>.+?)(?::(?P<line>\d+))?(?: \(items\[(?P<item>\d+)\]\))?$")


def precise_sources(docs: list[Document]) -> None:
    """Point the documents of small YAML files at the line where each object starts ("file:12"),
    List items included, for annotations on manifests. Large files and JSON keep the coarser
    location."""
    by_file: dict[str, list[Document]] = {}
    for d in docs:
        m = _SOURCE.match(d.source)
        if m:
            by_file.setdefault(m.group("file"), []).append(d)
    for path, items in by_file.items():
        if path == "<stdin>":
            if not _stdin_text:
                continue
            text = _stdin_text[0]
        else:
            try:
                # a pipe or FIFO was read once, and cannot be again
                if not os.path.isfile(path) or os.path.getsize(path) > PRECISE_MAX_BYTES:
                    continue
                with open(path, encoding="utf-8-sig") as fh:
                    text = fh.read()
            except OSError:
                continue
        if text.lstrip()[:1] in ("{", "[") or yaml_nesting_problem(text):
            continue
        try:
            nodes = [n for n in yaml.compose_all(text, Loader=_YamlLoader) if n is not None]
        except yaml.YAMLError:
            continue
        if not nodes:
            continue
        for d in items:
            m = _SOURCE.match(d.source)
            assert m is not None
            doc_line = int(m.group("line") or 1)
            # the first document that starts at or after its "---" line
            top = next((n for n in nodes if n.start_mark.line + 1 >= doc_line), nodes[-1])
            line = top.start_mark.line + 1
            if m.group("item") is not None:
                seq = None
                if isinstance(top, yaml.MappingNode):
                    seq = next((v for k, v in top.value if getattr(k, "value", None) == "items"), None)
                i = int(m.group("item"))
                if not (isinstance(seq, yaml.SequenceNode) and i < len(seq.value)):
                    continue
                line = seq.value[i].start_mark.line + 1
            d.source = f"{path}:{line}"
