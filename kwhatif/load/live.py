"""Read cluster state from a live cluster through kubeconfig (the official kubernetes client), and
save it as one List (`kwhatif snapshot`).

Lists are fetched raw (JSON, paged with limit/continue) and go through the same document
pipeline as files, so a live cluster and a snapshot of it give the same ClusterState.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import ClusterError, InputError
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import SERVER_VERSION_ANNOTATION, Document, _expand

# (path, required): required lists fail the run when they cannot be read. Nodes come before
# pods: a snapshot leaves out the pods of nodes that are gone, as the live loader does.
RESOURCES: tuple[tuple[str, bool], ...] = (
    ("/api/v1/nodes", True),
    ("/api/v1/pods", True),
    ("/api/v1/namespaces", False),
    ("/api/v1/services", False),
    ("/api/v1/replicationcontrollers", False),
    ("/api/v1/persistentvolumes", False),
    ("/api/v1/persistentvolumeclaims", False),
    ("/api/v1/limitranges", False),
    ("/api/v1/resourcequotas", False),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", False),
    ("/apis/policy/v1/poddisruptionbudgets", False),
    ("/apis/storage.k8s.io/v1/storageclasses", False),
    ("/apis/storage.k8s.io/v1/csinodes", False),
    ("/apis/storage.k8s.io/v1/csidrivers", False),
    ("/apis/storage.k8s.io/v1/volumeattachments", False),
    ("/apis/storage.k8s.io/v1/csistoragecapacities", False),
    ("/apis/node.k8s.io/v1/runtimeclasses", False),
    ("/apis/apps/v1/replicasets", False),
    ("/apis/apps/v1/statefulsets", False),
    ("/apis/apps/v1/deployments", False),
    ("/apis/apps/v1/daemonsets", False),
    ("/apis/batch/v1/jobs", False),
    ("/apis/batch/v1/cronjobs", False),
    ("/apis/autoscaling/v2/horizontalpodautoscalers", False),
    # dynamic resource allocation (resource.k8s.io/v1 is served from 1.34)
    ("/apis/resource.k8s.io/v1/deviceclasses", False),
    ("/apis/resource.k8s.io/v1/resourceslices", False),
    ("/apis/resource.k8s.io/v1/resourceclaims", False),
    ("/apis/resource.k8s.io/v1/resourceclaimtemplates", False),
    # the Workload API of gang scheduling (scheduling.k8s.io/v1alpha2 is served from 1.36, when on)
    ("/apis/scheduling.k8s.io/v1alpha2/workloads", False),
    ("/apis/scheduling.k8s.io/v1alpha2/podgroups", False),
)
PAGE_SIZE = 500
REQUEST_TIMEOUT = 60  # seconds, per request
# What `kubectl get -o json` leaves out by default, and kwhatif never reads.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_DRA_PREFIX = "/apis/resource.k8s.io/v1/"
_DRA_FALLBACKS = ("/apis/resource.k8s.io/v1beta2/", "/apis/resource.k8s.io/v1beta1/")


class Unreachable(ClusterError):
    """The request got no answer: the connection failed or timed out (then it may have been
    carried out all the same)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


def api_client(kubeconfig: str | None, context: str | None) -> Any:
    try:
        from kubernetes import config as kconfig
        from kubernetes.config.config_exception import ConfigException
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise ClusterError(f"the kubernetes client is not installed: {e}") from None
    for path in _kubeconfig_files(kubeconfig):
        _check_kubeconfig(path)
    try:
        return kconfig.new_client_from_config(config_file=kubeconfig, context=context)  # type: ignore[no-untyped-call]
    except ConfigException as e:
        raise ClusterError(f"kubeconfig: {e}") from None
    except FileNotFoundError as e:
        raise ClusterError(f"kubeconfig: {e.filename or kubeconfig}: no such file") from None
    except Exception as e:  # the loader raises assorted errors for malformed files
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"not a valid kubeconfig ({msg})", source=kubeconfig or "kubeconfig") from None


def _kubeconfig_files(kubeconfig: str | None) -> list[str]:
    """The files the client reads: --kubeconfig, else those of $KUBECONFIG, else ~/.kube/config."""
    if kubeconfig:
        return [kubeconfig]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    return [os.path.expanduser("~/.kube/config")]


# The parts of a kubeconfig (clientcmd's v1 Config) the client walks, and their shapes.
_KUBECONFIG_LISTS = ("clusters", "contexts", "users")
_KUBECONFIG_ITEM = {"clusters": "cluster", "contexts": "context", "users": "user"}


def _check_kubeconfig(path: str) -> None:
    """A malformed kubeconfig is bad input named by its file, not a crash inside the client."""
    from kwhatif.config.reader import os_errors, yaml_error_message, yaml_nesting_problem

    if not os.path.isfile(path):
        return  # the client says what is missing
    with os_errors(path):
        with open(path, "rb") as fh:
            data = fh.read(16 * 1024 * 1024 + 1)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not a kubeconfig: not UTF-8 text (byte {e.start})", source=path) from None
    import yaml

    problem = yaml_nesting_problem(text)
    if problem:
        raise InputError(problem, source=path)
    try:
        body = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise InputError(yaml_error_message(e, text), source=path) from None
    if body is None:
        return  # an empty file: the client reports that it holds no configuration
    if not isinstance(body, dict):
        raise InputError(
            f"not a kubeconfig: the file holds a {type(body).__name__}, not a mapping (apiVersion: v1, kind: Config)",
            source=path,
        )
    for key in _KUBECONFIG_LISTS:
        items = body.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            raise InputError(f"not a kubeconfig: {key} must be a list, not a {type(items).__name__}", source=path)
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise InputError(
                    f"not a kubeconfig: {key}[{i}] must be a mapping with name and {_KUBECONFIG_ITEM[key]}",
                    source=path,
                )
            inner = item.get(_KUBECONFIG_ITEM[key])
            if inner is not None and not isinstance(inner, dict):
                raise InputError(f"not a kubeconfig: {key}[{i}].{_KUBECONFIG_ITEM[key]} must be a mapping", source=path)


def context_namespace(kubeconfig: str | None, context: str | None) -> str:
    """The namespace of the kubeconfig context (kubectl's default namespace), else "default"."""
    try:
        from kubernetes.config import kube_config

        contexts, active = kube_config.list_kube_config_contexts(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    except Exception:  # api_client reports a broken kubeconfig; here it only means "default"
        return "default"
    chosen = next((c for c in contexts or () if c.get("name") == context), None) if context else active
    ns = ((chosen or {}).get("context") or {}).get("namespace")
    return ns if isinstance(ns, str) and ns else "default"


def request(
    client: Any,
    method: str,
    path: str,
    query: list[tuple[str, str]] | None = None,
    body: Any = None,
    timeout: float = REQUEST_TIMEOUT,
) -> tuple[int, bytes]:
    """One API request with the client's configuration (server, TLS, credentials from the
    kubeconfig), independent of the generated API classes, which change between client versions.
    Returns the status code and the body; raises Unreachable when no answer came."""
    from urllib.parse import urlencode

    from kubernetes.client.exceptions import ApiException

    cfg = client.configuration
    url = cfg.host.rstrip("/") + path + ("?" + urlencode(query) if query else "")
    headers = {"Accept": "application/json"}
    for setting in (cfg.auth_settings() or {}).values():
        if setting.get("in") == "header" and setting.get("value"):
            headers[setting["key"]] = setting["value"]
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        resp = client.rest_client.request(method, url, headers=headers, body=body, _request_timeout=timeout)
        raw = getattr(resp, "data", None)
        if raw is None and hasattr(resp, "read"):
            raw = resp.read()
    except ApiException as e:
        if not e.status:  # the client's own failures (TLS) come with status 0
            raise Unreachable(f"cannot reach the API server at {cfg.host}: {_short_text(str(e.reason or e))}") from None
        # older clients raise for every status outside 2xx
        data = e.body if isinstance(e.body, bytes) else str(e.body or e.reason or "").encode()
        return int(e.status), data
    except Exception as e:  # urllib3 connection errors, timeouts and the like
        timed_out = _is_timeout(e)
        what = (
            f"no answer from the API server at {cfg.host} within {timeout:g}s"
            if timed_out
            else f"cannot reach the API server at {cfg.host}"
        )
        raise Unreachable(f"{what}: {_short(e)}", timed_out=timed_out) from None
    return int(resp.status), bytes(raw or b"")


def _is_timeout(e: BaseException) -> bool:
    """The request was sent and no answer came in time (it may have been carried out). A
    connection that could not be made is not one."""
    import urllib3.exceptions as ue

    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ue.NewConnectionError):
            return False
        if isinstance(cur, (ue.ReadTimeoutError, TimeoutError)):
            return True
        cur = getattr(cur, "reason", None) or cur.__cause__ or cur.__context__
        if not isinstance(cur, BaseException):
            return False
    return False


def _short(e: Exception) -> str:
    return _short_text(str(e)) or type(e).__name__


def _short_text(text: str) -> str:
    if "Connection refused" in text:
        return "connection refused"
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "TLS certificate verify failed (check the kubeconfig's certificate-authority)"
    return text.splitlines()[0][:200] if text else ""


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


def _list_error(host: str, path: str, status: int, body: bytes) -> ClusterError:
    reason, msg = status_of(body)
    text = f"GET {host}{path}: {status} {msg or reason or 'HTTP error'}"
    if status == 401:
        text += " (the kubeconfig's credentials were refused)"
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
    client: Any, notes: list[str], progress: Callable[[str, int], None] | None = None
) -> Iterator[ListPage]:
    """Every page of every list kwhatif reads. A required list that cannot be read raises; an
    optional one is noted and skipped."""
    host = getattr(client.configuration, "host", "")
    for path, required in RESOURCES:
        token = ""
        seen = 0
        fallbacks = list(_DRA_FALLBACKS) if path.startswith(_DRA_PREFIX) else []
        while True:
            params = [("limit", str(PAGE_SIZE))]
            if token:
                params.append(("continue", token))
            status, body = request(client, "GET", path, params)
            if status == 404 and fallbacks and not token:
                # resource.k8s.io/v1 is served from 1.34; older clusters serve a beta, or no DRA
                path = fallbacks.pop(0) + path.rsplit("/", 1)[1]
                continue
            if status == 404 and path.startswith("/apis/resource.k8s.io/") and not token:
                break  # the cluster does not serve DRA: there is nothing to read
            if status == 404 and path.startswith("/apis/scheduling.k8s.io/v1alpha2/") and not token:
                break  # the cluster does not serve the Workload API (its gates are off)
            if status != 200:
                if required:
                    raise _list_error(host, path, status, body)
                notes.append(
                    f"could not list {path} ({status}: {_status_message(body) or 'HTTP error'}); continuing without it"
                )
                break
            try:
                data = json.loads(body)
            except ValueError:
                raise ClusterError(f"GET {host}{path}: the API server did not answer with JSON") from None
            if not isinstance(data, dict):
                raise ClusterError(f"GET {host}{path}: the API server did not answer with a list")
            items = data.get("items") or []
            seen += len(items)
            if progress is not None:
                progress(path.rsplit("/", 1)[-1], seen)
            meta = data.get("metadata") or {}
            remaining = meta.get("remainingItemCount") if isinstance(meta, dict) else None
            yield ListPage(
                path,
                str(data.get("kind") or ""),
                str(data.get("apiVersion") or ""),
                items,
                seen,
                remaining if isinstance(remaining, int) and remaining >= 0 else None,
            )
            token = (meta.get("continue") if isinstance(meta, dict) else "") or ""
            if not token:
                break


def fetch_documents(client: Any) -> tuple[list[Document], list[str]]:
    docs: list[Document] = []
    notes: list[str] = []
    host = getattr(client.configuration, "host", "")
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
            docs.extend(_expand(lst, f"{host}{page.path}", 0))
            # the server's estimate of what is left, on paged lists
            remaining = page.remaining
            task.update(page.seen, page.seen + remaining if remaining is not None else None)
    finally:
        if task is not None:
            task.close()
    return docs, notes


def load_live_cluster(kubeconfig: str | None, context: str | None) -> ClusterState:
    client = api_client(kubeconfig, context)
    docs, notes = fetch_documents(client)
    for n in notes:
        print(f"kwhatif: note: {n}", file=sys.stderr)
    state = build_cluster(docs, check_node_refs=False)
    state.server_version = server_git_version(client)
    if state.orphaned_pods:
        print(f"kwhatif: note: {orphan_note(state.orphaned_pods)}", file=sys.stderr)
    if not state.nodes:
        raise ClusterError("the cluster has no nodes")
    return state


def server_git_version(client: Any) -> str:
    """The API server's gitVersion (GET /version), or "" when it cannot be read: the release the
    control plane runs, which kwhatif answers as unless told otherwise."""
    try:
        status, body = request(client, "GET", "/version", [])
    except ClusterError:
        return ""
    if status != 200:
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    return str(data.get("gitVersion") or "") if isinstance(data, dict) else ""


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
    client: Any, fh: IO[str], fmt: str, progress: Callable[[str, int], None] | None = None
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


def snapshot_format(path: str | None) -> str:
    if path is None or path == "-":
        return "json"
    low = path.lower()
    if low.endswith(".json"):
        return "json"
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    raise InputError("name the snapshot file .json, .yaml or .yml (its format follows the extension)", source=path)


def save_snapshot(
    kubeconfig: str | None, context: str | None, path: str | None, progress: Callable[[str, int], None] | None = None
) -> SnapshotStats:
    """kwhatif snapshot: to ``path`` (written whole or not at all) or to standard output."""
    fmt = snapshot_format(path)
    client = api_client(kubeconfig, context)
    if path is None or path == "-":
        return write_snapshot(client, sys.stdout, fmt, progress)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.kwhatif-{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            stats = write_snapshot(client, fh, fmt, progress)
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


def make_api_binder(
    kubeconfig: str | None,
    context: str | None,
    existing: Mapping[str, str],
    manifests: Mapping[str, dict[str, Any]],
    unbound_claims: Callable[[Any], list[str]] | None = None,
) -> Any:
    """--apply: an ApiBinder that talks to the kubeconfig's API server."""
    from kwhatif.binder import ApiBinder

    client = api_client(kubeconfig, context)

    def call(method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
        return request(client, method, path, body=body)

    return ApiBinder(
        call,
        existing,
        manifests,
        unbound_claims=unbound_claims,
        where=str(getattr(client.configuration, "host", "") or "the cluster"),
    )
