"""Read cluster state from a live cluster through kubeconfig (the official kubernetes client).

Lists are fetched raw (JSON, paged with limit/continue) and go through the same document
pipeline as files, so a live cluster and a dump of it give the same ClusterState.
"""

from __future__ import annotations

import json
from typing import Any

from kwhatif.errors import ClusterError
from kwhatif.load.cluster import ClusterState, build_cluster
from kwhatif.load.files import Document, _expand

# (path, required): required lists fail the run when they cannot be read.
RESOURCES: tuple[tuple[str, bool], ...] = (
    ("/api/v1/nodes", True),
    ("/api/v1/pods", True),
    ("/api/v1/namespaces", False),
    ("/api/v1/services", False),
    ("/api/v1/replicationcontrollers", False),
    ("/api/v1/persistentvolumes", False),
    ("/api/v1/persistentvolumeclaims", False),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", False),
    ("/apis/policy/v1/poddisruptionbudgets", False),
    ("/apis/storage.k8s.io/v1/storageclasses", False),
    ("/apis/storage.k8s.io/v1/csinodes", False),
    ("/apis/storage.k8s.io/v1/csidrivers", False),
    ("/apis/storage.k8s.io/v1/csistoragecapacities", False),
    ("/apis/node.k8s.io/v1/runtimeclasses", False),
    ("/apis/apps/v1/replicasets", False),
    ("/apis/apps/v1/statefulsets", False),
    ("/apis/apps/v1/deployments", False),
    ("/apis/apps/v1/daemonsets", False),
    ("/apis/batch/v1/jobs", False),
    ("/apis/batch/v1/cronjobs", False),
)
PAGE_SIZE = 500


def api_client(kubeconfig: str | None, context: str | None) -> Any:
    try:
        from kubernetes import config as kconfig
        from kubernetes.config.config_exception import ConfigException
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise ClusterError(f"the kubernetes client is not installed: {e}") from None
    try:
        return kconfig.new_client_from_config(config_file=kubeconfig, context=context)  # type: ignore[no-untyped-call]
    except ConfigException as e:
        raise ClusterError(f"kubeconfig: {e}") from None
    except FileNotFoundError as e:
        raise ClusterError(f"kubeconfig: {e.filename or kubeconfig}: no such file") from None
    except Exception as e:  # the loader raises assorted errors for malformed files
        raise ClusterError(f"kubeconfig {kubeconfig or '(default)'}: {type(e).__name__}: {e}") from None


def request(client: Any, method: str, path: str, query: list[tuple[str, str]] | None = None, body: Any = None) -> tuple[int, bytes]:
    """One API request with the client's configuration (server, TLS, credentials from the
    kubeconfig), independent of the generated API classes, which change between client versions.
    Returns the status code and the body; raises ClusterError when the server cannot be reached."""
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
        resp = client.rest_client.request(method, url, headers=headers, body=body, _request_timeout=60)
    except ApiException as e:  # older clients raise for every status outside 2xx
        data = e.body if isinstance(e.body, bytes) else str(e.body or e.reason or "").encode()
        return int(e.status or 0), data
    except Exception as e:  # urllib3 connection errors and the like
        raise ClusterError(f"cannot reach the API server at {cfg.host}: {_short(e)}") from None
    raw = getattr(resp, "data", None)
    if raw is None and hasattr(resp, "read"):
        raw = resp.read()
    return int(resp.status), bytes(raw or b"")


def _get(client: Any, path: str, params: list[tuple[str, str]]) -> tuple[int, bytes]:
    return request(client, "GET", path, params)


def _short(e: Exception) -> str:
    text = str(e)
    if "Connection refused" in text:
        return "connection refused"
    return text.splitlines()[0][:200] if text else type(e).__name__


def fetch_documents(client: Any) -> tuple[list[Document], list[str]]:
    docs: list[Document] = []
    notes: list[str] = []
    host = getattr(client.configuration, "host", "")
    from kwhatif import progress

    for path, required in RESOURCES:
        token = ""
        listed = 0
        with progress.task(f"listing {path.rsplit('/', 1)[-1]}", None, "") as task:
            while True:
                params = [("limit", str(PAGE_SIZE))]
                if token:
                    params.append(("continue", token))
                status, body = _get(client, path, params)
                if status != 200:
                    msg = _status_message(body) or f"HTTP {status}"
                    if required:
                        raise ClusterError(f"GET {host}{path}: {status} {msg}")
                    notes.append(f"could not list {path} ({status}: {msg}); continuing without it")
                    break
                try:
                    data = json.loads(body)
                except ValueError:
                    raise ClusterError(f"GET {host}{path}: the API server did not answer with JSON") from None
                docs.extend(_expand(data, f"{host}{path}", 0))
                meta = data.get("metadata") or {}
                items = data.get("items")
                listed += len(items) if isinstance(items, list) else 0
                # the server's estimate of what is left, on paged lists
                remaining = meta.get("remainingItemCount")
                task.update(listed, listed + remaining if isinstance(remaining, int) and remaining >= 0 else None)
                token = meta.get("continue") or ""
                if not token:
                    break
    return docs, notes


def _status_message(body: bytes) -> str:
    try:
        msg = json.loads(body).get("message", "")
        return str(msg)
    except (ValueError, AttributeError):
        return ""


def load_live_cluster(kubeconfig: str | None, context: str | None) -> ClusterState:
    import sys

    client = api_client(kubeconfig, context)
    docs, notes = fetch_documents(client)
    for n in notes:
        print(f"kwhatif: note: {n}", file=sys.stderr)
    state = build_cluster(docs, check_node_refs=False)
    if state.orphaned_pods:
        print(f"kwhatif: note: {state.orphaned_pods} pod(s) are bound to nodes that no longer exist; they are left out", file=sys.stderr)
    if not state.nodes:
        raise ClusterError("the cluster has no nodes")
    return state


def make_api_binder(
    kubeconfig: str | None, context: str | None, existing: set[str], manifests: dict[str, dict[str, Any]]
) -> Any:
    from kwhatif.binder import ApiBinder

    client = api_client(kubeconfig, context)

    def post(path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        return request(client, "POST", path, body=body)

    return ApiBinder(post, existing, manifests)
