"""Read cluster state from a live cluster through kubeconfig (the official kubernetes client), and
save it as one List (`kwhatif snapshot`).

Lists are fetched raw (JSON, paged with limit/continue) and go through the same document
pipeline as files, so a live cluster and a snapshot of it give the same ClusterState.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from kwhatif.cache.cluster import AUTOSCALER_CONFIG_MAPS, ClusterState
from kwhatif.cache.kinds import BY_RESOURCE, KINDS
from kwhatif.errors import ClusterError, InputError
from kwhatif.load.cluster import build_cluster
from kwhatif.load.credentials import load_configuration
from kwhatif.load.files import DEFAULT_MAX_JSON_BYTES, SERVER_VERSION_ANNOTATION, Document, _expand
from kwhatif.load.http import DEFAULT_REQUEST_TIMEOUT, TooLarge, Transport, Unreachable, http_reason

__all__ = ["RESOURCES", "LiveOptions", "Resource", "Unreachable", "api_client", "load_live_cluster", "save_snapshot"]


@dataclass(frozen=True, slots=True)
class Resource:
    """A list kwhatif reads. A required one that cannot be read ends the run (exit 3); an
    optional one the server does not serve (404) or lets kwhatif not read (403) is left out
    with a note naming ``affects``. Any other failure (5xx, a timeout, a reset, a body that is
    not a list) ends the run, required or not: an answer is never silently degraded."""

    path: str
    required: bool
    affects: str  # the answers that depend on it
    # other group/versions serving the same list, tried in order when the path's is not served
    # (404); when none is, the cluster has no such objects and nothing is noted
    older: tuple[str, ...] = ()

    def served_elsewhere(self) -> list[str]:
        """The paths to try after a 404 on ``path``, in order."""
        name = self.path.rsplit("/", 1)[1]
        return [f"/apis/{gv}/{name}" for gv in self.older]


# One table (cache/kinds.py); the README's "Reliability" section lists it. Nodes come before
# pods: a snapshot leaves out the pods of nodes that are gone, as the live loader does.
RESOURCES: tuple[Resource, ...] = (
    *(Resource(k.path, k.required, k.affects, k.older) for k in KINDS),
    # the ConfigMaps `kwhatif autoscale` reads (cache.cluster.AUTOSCALER_CONFIG_MAPS: only those
    # two are kept, and saved by snapshots); not a kind of the table, as no other command reads one
    Resource(
        "/api/v1/namespaces/kube-system/configmaps",
        False,
        "autoscale: cluster-autoscaler's status (node group sizes) and priority expander",
    ),
    # Karpenter's NodePools and NodeClaims (karpenter.sh/v1 custom resources) for `autoscale
    # --autoscaler karpenter`; a cluster without Karpenter serves none, which loses nothing
    # (karpenter.sh/v1beta1 is the version before v1: a cluster serving neither has no Karpenter, and
    # nothing is noted)
    Resource(
        "/apis/karpenter.sh/v1/nodepools", False, "autoscale under Karpenter: its NodePools", ("karpenter.sh/v1beta1",)
    ),
    Resource(
        "/apis/karpenter.sh/v1/nodeclaims",
        False,
        "autoscale under Karpenter: in-flight NodeClaims",
        ("karpenter.sh/v1beta1",),
    ),
)
PAGE_SIZE = 500
# The most one page's body may take, whatever --max-input-size leaves of the list's budget, so
# that a body that never ends is cut off long before the whole budget is held at once. etcd
# stores no object above its request limit (1.5 MiB, etcd's --max-request-bytes; its JSON a few
# times that), so SMALL_PAGE_SIZE objects always fit: a page that does not is asked for again with
# that many, and one that still does not is not a list of objects.
MAX_PAGE_BYTES = 256 * 1024 * 1024
SMALL_PAGE_SIZE = 50
# Empty pages that still carry a continue token, in a row: kube-apiserver fills a page unless it
# runs out of objects, so a server that keeps sending empty pages with new tokens never ends.
MAX_EMPTY_PAGES = 32
# The kind of each list's items, by resource name: an item of another kind is a server's lie.
# What `kubectl get -o json` leaves out by default, and kwhatif never reads.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclass(frozen=True, slots=True)
class LiveOptions:
    """How a live cluster is read: --request-timeout (seconds per request, 0: none; it bounds an
    exec credential plugin too) and --max-input-size (the bytes a list may take, all its pages
    together)."""

    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_bytes: int = DEFAULT_MAX_JSON_BYTES


def live_options(request_timeout: float | None, max_bytes: int | None) -> LiveOptions:
    """The options of a live read; None: the default."""
    return LiveOptions(
        DEFAULT_REQUEST_TIMEOUT if request_timeout is None else request_timeout,
        max_bytes or DEFAULT_MAX_JSON_BYTES,
    )


@dataclass(slots=True)
class Client:
    """A connection to the kubeconfig's API server."""

    transport: Transport
    options: LiveOptions

    @property
    def host(self) -> str:
        return self.transport.host


def api_client(kubeconfig: str | None, context: str | None, options: LiveOptions | None = None) -> Client:
    opts = options or LiveOptions()
    cfg = load_configuration(kubeconfig, context, opts.request_timeout)
    return Client(Transport(cfg, opts.request_timeout), opts)


def request(
    client: Client,
    method: str,
    path: str,
    query: list[tuple[str, str]] | None = None,
    body: Any = None,
    *,
    limit: int | None = None,
) -> tuple[int, bytes]:
    """One API request with the kubeconfig's server, TLS and credentials, within the request
    timeout. Returns the status code and the body; raises Unreachable when no answer came and
    TooLarge when the body is above ``limit`` bytes."""
    data = json.dumps(body).encode() if body is not None else None
    resp = client.transport.request(method, path, query, data, limit=limit)
    return resp.status, resp.body


def status_of(body: bytes) -> tuple[str, str]:
    """The reason and message of a v1 Status body ("", "" when it is not one)."""
    try:
        doc = json.loads(body)
    except ValueError:
        return "", ""
    if not isinstance(doc, dict):
        return "", ""
    return str(doc.get("reason") or ""), str(doc.get("message") or "")


def _status_message(body: bytes) -> str:
    return status_of(body)[1]


def _list_error(host: str, path: str, status: int, body: bytes, retries: int) -> ClusterError:
    reason, msg = status_of(body)
    text = f"GET {host}{path}: {status} {msg or reason or http_reason(status) or 'HTTP error'}"
    if status == 401:
        text += " (the kubeconfig's credentials were refused)"
    if retries:
        text += f" (after {retries} retr{'y' if retries == 1 else 'ies'} as Retry-After asked)"
    return ClusterError(text)


@dataclass(slots=True)
class ListPage:
    path: str
    list_kind: str
    api_version: str
    items: list[Any]
    seen: int = 0  # items listed so far from this path, this page's included
    remaining: int | None = None  # the server's remainingItemCount, on paged lists


def iter_list_pages(
    client: Client, notes: list[str], progress: Callable[[str, int], None] | None = None
) -> Iterator[ListPage]:
    """Every page of every list kwhatif reads. A list that cannot be read raises, but for an
    optional one the server does not serve or lets kwhatif not read, which is noted and skipped.
    All the pages of one list together may take at most --max-input-size bytes."""
    host = client.host
    limit = client.options.max_bytes
    for res in RESOURCES:
        path = res.path
        token = ""
        tokens: set[str] = set()
        seen = 0
        used = 0
        empty = 0
        fallbacks = res.served_elsewhere()
        page_size = PAGE_SIZE
        while True:
            params = [("limit", str(page_size))]
            if token:
                params.append(("continue", token))
            page_bound = limit - used <= MAX_PAGE_BYTES
            try:
                resp = client.transport.request(
                    "GET",
                    path,
                    params,
                    limit=min(limit - used, MAX_PAGE_BYTES),
                    cap=limit if page_bound else MAX_PAGE_BYTES,
                    what=f"GET {host}{path}",
                )
            except TooLarge:
                if page_bound:
                    raise
                if page_size > SMALL_PAGE_SIZE:
                    page_size = SMALL_PAGE_SIZE
                    continue
                # the server misbehaves (exit 3), where --max-input-size is the user's own bound (exit 2)
                raise ClusterError(
                    f"GET {host}{path}: a page of {SMALL_PAGE_SIZE} objects is larger than {MAX_PAGE_BYTES >> 20} "
                    "MiB, which no list of stored objects is (etcd keeps none above 1.5 MiB): the answer never ends"
                ) from None
            page_size = PAGE_SIZE
            status, body = resp.status, resp.body
            used += len(body)
            if status == 404 and res.older and not token:
                if not fallbacks:
                    break  # no version of the group is served: the cluster has no such objects
                path = fallbacks.pop(0)
                used = 0
                continue
            if status in (403, 404) and not res.required and not token:
                what = "not served" if status == 404 else "forbidden"
                notes.append(
                    f"could not list {path} ({status}: {_status_message(body) or what}); continuing without it, "
                    f"which affects {res.affects}"
                )
                break
            if status != 200:
                raise _list_error(host, path, status, body, resp.retries)
            data = _list_body(host, path, body)
            _check_kinds(host, path, data)
            items = data["items"]
            meta = data.get("metadata") or {}
            token = (meta.get("continue") if isinstance(meta, dict) else "") or ""
            if not isinstance(token, str):
                raise ClusterError(f"GET {host}{path}: metadata.continue is not a string")
            if token in tokens:
                # checked before the page is used: it repeats a page already read
                raise ClusterError(
                    f"GET {host}{path}: the API server gave a continue token it gave before; the list would never end"
                )
            tokens.add(token)
            empty = empty + 1 if token and not items else 0
            if empty > MAX_EMPTY_PAGES:
                raise ClusterError(
                    f"GET {host}{path}: the API server sent {empty} empty pages in a row, each with a new "
                    "continue token; the list would never end"
                )
            seen += len(items)
            if progress is not None:
                progress(path.rsplit("/", 1)[-1], seen)
            remaining = meta.get("remainingItemCount") if isinstance(meta, dict) else None
            yield ListPage(
                path,
                str(data.get("kind") or ""),
                str(data.get("apiVersion") or ""),
                items,
                seen,
                remaining if isinstance(remaining, int) and remaining >= 0 else None,
            )
            if not token:
                break


def _check_kinds(host: str, path: str, data: dict[str, Any]) -> None:
    """A list of another kind, or an item of another kind in it, is refused (exit 3) rather than
    loaded as what it claims to be: /api/v1/pods answers a PodList of Pods."""
    row = BY_RESOURCE.get(path.rsplit("/", 1)[-1])
    kind = row.kind if row is not None else None
    if kind is None:
        return
    list_kind = data.get("kind")
    if list_kind not in (None, "", kind + "List"):
        raise ClusterError(
            f"GET {host}{path}: 200 but the API server answered a {_shown_kind(list_kind)}, not a {kind}List"
        )
    for i, item in enumerate(data["items"]):
        item_kind = item.get("kind") if isinstance(item, dict) else None
        if item_kind not in (None, "", kind):
            raise ClusterError(
                f"GET {host}{path}: 200 but items[{i}] of the {kind}List is a {_shown_kind(item_kind)}, not a {kind}"
            )


def _shown_kind(kind: object) -> str:
    text = kind if isinstance(kind, str) else json.dumps(kind)
    return repr(text[:64]) if not text.isidentifier() else text


def _list_body(host: str, path: str, body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ClusterError(f"GET {host}{path}: 200 but the API server did not answer with JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("items") or [], list):
        raise ClusterError(f"GET {host}{path}: 200 but the API server did not answer with a list")
    if data.get("items") is None:
        data["items"] = []  # Go's nil slice
    return data


def iter_documents(client: Client, notes: list[str]) -> Iterator[Document]:
    """The documents of every list, page by page: a page is decoded and handed on before the
    next one is asked for, so the raw lists never have to fit in memory at once."""
    host = client.host
    from kwhatif import progress

    task: progress.Task | None = None
    task_path = ""
    try:
        for page in iter_list_pages(client, notes):
            if task is None or page.path != task_path:
                if task is not None:
                    task.close()
                task_path = page.path
                task = progress.task(f"listing {page.path.rsplit('/', 1)[-1]}", None, "")
            lst = {"kind": page.list_kind, "apiVersion": page.api_version, "items": page.items}
            page.items = []
            yield from _expand(lst, f"{host}{page.path}", 0)
            # the server's estimate of what is left, on paged lists
            remaining = page.remaining
            task.update(page.seen, page.seen + remaining if remaining is not None else None)
    finally:
        if task is not None:
            task.close()


def load_live_cluster(kubeconfig: str | None, context: str | None, options: LiveOptions | None = None) -> ClusterState:
    client = api_client(kubeconfig, context, options)
    notes: list[str] = []
    try:
        try:
            state = build_cluster(iter_documents(client, notes), check_node_refs=False)
        except TooLarge:
            raise  # a limit of the user's (--max-input-size) the lists went over: exit 2
        except InputError as e:
            # an object the API server served that it could never have accepted: the server's
            # fault, not the user's input (exit 3, with the same line)
            raise ClusterError(str(e)) from None
        state.server_version = server_git_version(client)
    finally:
        client.transport.close()
    for n in notes:
        print(f"kwhatif: note: {n}", file=sys.stderr)
    if state.orphaned_pods:
        print(f"kwhatif: note: {orphan_note(state.orphaned_pods)}", file=sys.stderr)
    if not state.nodes:
        raise ClusterError("the cluster has no nodes")
    return state


def server_git_version(client: Client) -> str:
    """The API server's gitVersion (GET /version), or "" when the server does not say (404,
    403): the release the control plane runs, which kwhatif answers as unless told otherwise.
    A server that fails to answer fails the run, as a list does: the release changes answers."""
    status, body = request(client, "GET", "/version", [], limit=_VERSION_LIMIT)
    if status in (401, 403, 404):
        return ""
    if status != 200:
        raise _list_error(client.host, "/version", status, body, 0)
    try:
        data = json.loads(body)
    except ValueError:
        raise ClusterError(f"GET {client.host}/version: 200 but the API server did not answer with JSON") from None
    return str(data.get("gitVersion") or "") if isinstance(data, dict) else ""


_VERSION_LIMIT = 1 << 20


def orphan_note(n: int, live: bool = True) -> str:
    where = "that no longer exist" if live else "that are not in the cluster state"
    return f"{n} pod(s) are bound to nodes {where}; they are left out"


# --- kwhatif snapshot ------------------------------------------------------------------------------


@dataclass(slots=True)
class SnapshotStats:
    counts: dict[str, int] = field(default_factory=dict)  # kind -> objects written
    orphaned_pods: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _item_kind(page: ListPage) -> str:
    return page.list_kind[: -len("List")] if page.list_kind.endswith("List") else page.list_kind


def _clean(item: dict[str, Any], kind: str, api_version: str) -> dict[str, Any]:
    """A list item as `kubectl get -o json` prints it: kind and apiVersion first, no managedFields
    (nor kubectl's last-applied-configuration copy, which can double an object's size)."""
    out: dict[str, Any] = {"apiVersion": item.get("apiVersion") or api_version, "kind": item.get("kind") or kind}
    for k, v in item.items():
        if k in ("apiVersion", "kind"):
            continue
        if k == "metadata" and isinstance(v, dict):
            v = {mk: mv for mk, mv in v.items() if mk != "managedFields"}
            ann = v.get("annotations")
            if isinstance(ann, dict) and LAST_APPLIED in ann:
                v["annotations"] = {ak: av for ak, av in ann.items() if ak != LAST_APPLIED} or None
                if v["annotations"] is None:
                    del v["annotations"]
        out[k] = v
    return out


class _ListWriter:
    """Streams a kind: List to a file, item by item, in JSON (one item per line) or YAML."""

    def __init__(self, fh: IO[str], fmt: str, server_version: str = "") -> None:
        self.fh = fh
        self.fmt = fmt
        self.n = 0
        # kubectl's List metadata; the API server's release is recorded for kwhatif to read back
        self.metadata: dict[str, Any] = {"resourceVersion": ""}
        if server_version:
            self.metadata["annotations"] = {SERVER_VERSION_ANNOTATION: server_version}
        if fmt == "yaml":
            import yaml

            self._yaml = yaml
            self._dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        else:
            fh.write('{"apiVersion": "v1", "kind": "List", "items": [')

    def add(self, item: dict[str, Any]) -> None:
        if self.fmt == "yaml":
            if self.n == 0:
                self.fh.write("apiVersion: v1\nkind: List\nitems:\n")
            self.fh.write(
                self._yaml.dump(
                    [item], Dumper=self._dumper, default_flow_style=False, sort_keys=False, allow_unicode=True
                )
            )
        else:
            self.fh.write(
                ("\n" if self.n == 0 else ",\n") + json.dumps(item, separators=(",", ":"), ensure_ascii=False)
            )
        self.n += 1

    def close(self) -> None:
        if self.fmt == "yaml":
            if self.n == 0:
                self.fh.write("apiVersion: v1\nkind: List\nitems: []\n")
            self.fh.write(self._yaml.dump({"metadata": self.metadata}, Dumper=self._dumper, default_flow_style=False))
        else:
            meta = json.dumps(self.metadata, separators=(",", ":"))
            self.fh.write(("\n" if self.n else "") + f'], "metadata": {meta}}}\n')


def write_snapshot(
    client: Client, fh: IO[str], fmt: str, progress: Callable[[str, int], None] | None = None
) -> SnapshotStats:
    """Write everything kwhatif reads from the cluster to ``fh`` as one List. Pods bound to nodes
    that are gone are left out (the live loader leaves them out too), so that the file reads back
    into the same cluster state."""
    stats = SnapshotStats()
    writer = _ListWriter(fh, fmt, server_git_version(client))
    nodes: set[str] = set()
    for page in iter_list_pages(client, stats.notes, progress):
        kind = _item_kind(page)
        for item in page.items:
            if not isinstance(item, dict):
                raise ClusterError(f"{page.path}: the API server listed a {type(item).__name__}, not an object")
            meta = item.get("metadata") or {}
            if kind == "Node":
                nodes.add(str(meta.get("name") or ""))
            elif kind == "ConfigMap" and f"{meta.get('namespace')}/{meta.get('name')}" not in AUTOSCALER_CONFIG_MAPS:
                continue  # only those `kwhatif autoscale` reads
            elif kind == "Pod":
                node = (item.get("spec") or {}).get("nodeName")
                if node and node not in nodes:
                    stats.orphaned_pods += 1
                    continue
            writer.add(_clean(item, kind, page.api_version))
            stats.counts[kind] = stats.counts.get(kind, 0) + 1
    writer.close()
    if not nodes:
        raise ClusterError("the cluster has no nodes")
    return stats


SNAPSHOT_FORMATS = ("json", "yaml")


def snapshot_format(path: str | None, fmt: str | None = None) -> str:
    """-o if given; else the file's extension (.json; .yaml or .yml); else JSON."""
    if fmt is not None:
        if fmt not in SNAPSHOT_FORMATS:
            raise InputError(f"-o {fmt!r}: the snapshot is written as json or yaml")
        return fmt
    low = (path or "").lower()
    return "yaml" if low.endswith((".yaml", ".yml")) else "json"


def save_snapshot(
    kubeconfig: str | None,
    context: str | None,
    path: str | None,
    progress: Callable[[str, int], None] | None = None,
    options: LiveOptions | None = None,
    stdout: IO[str] | None = None,
    fmt: str | None = None,
) -> SnapshotStats:
    """kwhatif snapshot: to ``path`` or to standard output, whole or not at all. The List is
    written to a temporary file first (next to ``path``, so that os.replace swaps it in at
    once); the target is replaced, or standard output gets the List, only once every list was
    read. A failed snapshot leaves the target as it was and writes nothing to standard output."""
    fmt = snapshot_format(path, fmt)
    client = api_client(kubeconfig, context, options)
    try:
        if path is None or path == "-":
            return _snapshot_to_stream(client, fmt, progress, stdout or sys.stdout)
        return _snapshot_to_file(client, fmt, progress, path)
    finally:
        client.transport.close()


def _snapshot_to_stream(
    client: Client, fmt: str, progress: Callable[[str, int], None] | None, out: IO[str]
) -> SnapshotStats:
    import tempfile

    from kwhatif.sink import Sink

    with tempfile.TemporaryFile("w+", encoding="utf-8") as fh:
        stats = write_snapshot(client, fh, fmt, progress)
        fh.seek(0)
        sink = Sink(out)  # every byte, or an error (kwhatif/sink.py)
        while piece := fh.read(1 << 20):
            sink.write(piece)
        sink.flush()
    return stats


def _snapshot_to_file(
    client: Client, fmt: str, progress: Callable[[str, int], None] | None, path: str
) -> SnapshotStats:
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.kwhatif-{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            stats = write_snapshot(client, fh, fmt, progress)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        raise InputError(f"cannot write the snapshot: {e.strerror or e}", source=path) from None
    except BaseException:
        _remove(tmp)
        raise
    return stats


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
