"""A small stand-in for a Kubernetes API server on 127.0.0.1, speaking the real paths, list
paging (limit/continue) and status codes, for tests of --kubeconfig and --apply."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

LIST_PATHS = {
    "/api/v1/nodes": ("v1", "NodeList", "Node"),
    "/api/v1/pods": ("v1", "PodList", "Pod"),
    "/api/v1/namespaces": ("v1", "NamespaceList", "Namespace"),
    "/api/v1/services": ("v1", "ServiceList", "Service"),
    "/api/v1/replicationcontrollers": ("v1", "ReplicationControllerList", "ReplicationController"),
    "/api/v1/persistentvolumes": ("v1", "PersistentVolumeList", "PersistentVolume"),
    "/api/v1/persistentvolumeclaims": ("v1", "PersistentVolumeClaimList", "PersistentVolumeClaim"),
    "/apis/scheduling.k8s.io/v1/priorityclasses": ("scheduling.k8s.io/v1", "PriorityClassList", "PriorityClass"),
    "/apis/policy/v1/poddisruptionbudgets": ("policy/v1", "PodDisruptionBudgetList", "PodDisruptionBudget"),
    "/apis/storage.k8s.io/v1/storageclasses": ("storage.k8s.io/v1", "StorageClassList", "StorageClass"),
    "/apis/storage.k8s.io/v1/csinodes": ("storage.k8s.io/v1", "CSINodeList", "CSINode"),
    "/apis/storage.k8s.io/v1/csidrivers": ("storage.k8s.io/v1", "CSIDriverList", "CSIDriver"),
    "/apis/storage.k8s.io/v1/csistoragecapacities": ("storage.k8s.io/v1", "CSIStorageCapacityList", "CSIStorageCapacity"),
    "/apis/node.k8s.io/v1/runtimeclasses": ("node.k8s.io/v1", "RuntimeClassList", "RuntimeClass"),
    "/apis/apps/v1/replicasets": ("apps/v1", "ReplicaSetList", "ReplicaSet"),
    "/apis/apps/v1/statefulsets": ("apps/v1", "StatefulSetList", "StatefulSet"),
    "/apis/apps/v1/deployments": ("apps/v1", "DeploymentList", "Deployment"),
    "/apis/apps/v1/daemonsets": ("apps/v1", "DaemonSetList", "DaemonSet"),
    "/apis/batch/v1/jobs": ("batch/v1", "JobList", "Job"),
    "/apis/batch/v1/cronjobs": ("batch/v1", "CronJobList", "CronJob"),
}


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}


class FakeAPIServer:
    def __init__(self, objects: list[dict[str, Any]], *, page_size: int = 2, token: str = "secret-token") -> None:
        self.objects = objects
        self.page_size = page_size
        self.token = token
        self.forbidden: set[str] = set()
        self.fail_bindings: dict[str, int] = {}  # "ns/name" -> HTTP status to answer
        self.requests: list[tuple[str, str]] = []
        self.bindings: list[dict[str, Any]] = []
        self.created: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def authorized(self) -> bool:
                if self.headers.get("Authorization") != f"Bearer {server.token}":
                    self.send(401, status(401, "Unauthorized", "Unauthorized"))
                    return False
                return True

            def do_GET(self) -> None:
                url = urlparse(self.path)
                with server.lock:
                    server.requests.append(("GET", url.path))
                if not self.authorized():
                    return
                if url.path in server.forbidden:
                    self.send(403, status(403, "Forbidden", f"cannot list resource at {url.path}"))
                    return
                spec = LIST_PATHS.get(url.path)
                if spec is None:
                    self.send(404, status(404, "NotFound", "the server could not find the requested resource"))
                    return
                api_version, list_kind, kind = spec
                items = [o for o in server.objects if o.get("kind") == kind]
                q = parse_qs(url.query)
                limit = int(q.get("limit", ["0"])[0]) or len(items) or 1
                limit = min(limit, server.page_size)
                start = int(q.get("continue", ["0"])[0] or 0)
                page = items[start : start + limit]
                cont = str(start + limit) if start + limit < len(items) else ""
                # The API omits kind/apiVersion of list items.
                stripped = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in page]
                meta: dict[str, object] = {"resourceVersion": "1", "continue": cont}
                if cont:
                    meta["remainingItemCount"] = len(items) - start - limit  # as a paged list has
                self.send(200, {"kind": list_kind, "apiVersion": api_version, "metadata": meta, "items": stripped})

            def do_POST(self) -> None:
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(("POST", url.path))
                if not self.authorized():
                    return
                parts = url.path.strip("/").split("/")
                # /api/v1/namespaces/{ns}/pods/{name}/binding
                if len(parts) == 7 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" and parts[6] == "binding":
                    ns, name = parts[3], parts[5]
                    code = server.fail_bindings.get(f"{ns}/{name}")
                    if code:
                        self.send(code, status(code, "Conflict" if code == 409 else "Error", f'Operation cannot be fulfilled on pods/binding "{name}": pod {name} is already assigned to node "x"'))
                        return
                    pod = next((o for o in server.objects if o.get("kind") == "Pod" and o["metadata"]["name"] == name and o["metadata"].get("namespace", "default") == ns), None)
                    if pod is None:
                        self.send(404, status(404, "NotFound", f'pods "{name}" not found'))
                        return
                    if pod["spec"].get("nodeName"):
                        self.send(409, status(409, "Conflict", f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"'))
                        return
                    with server.lock:
                        pod["spec"]["nodeName"] = body["target"]["name"]
                        server.bindings.append(body)
                    self.send(201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201})
                    return
                # /api/v1/namespaces/{ns}/pods
                if len(parts) == 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
                    ns = parts[3]
                    name = body.get("metadata", {}).get("name")
                    if any(o.get("kind") == "Pod" and o["metadata"]["name"] == name and o["metadata"].get("namespace", "default") == ns for o in server.objects):
                        self.send(409, status(409, "AlreadyExists", f'pods "{name}" already exists'))
                        return
                    body.setdefault("kind", "Pod")
                    body.setdefault("apiVersion", "v1")
                    with server.lock:
                        server.objects.append(body)
                        server.created.append(body)
                    self.send(201, body)
                    return
                self.send(404, status(404, "NotFound", "the server could not find the requested resource"))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def kubeconfig(self, path: str, context: str = "test") -> str:
        cfg = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "tester", "user": {"token": self.token}}],
            "contexts": [{"name": context, "context": {"cluster": "fake", "user": "tester"}}],
            "current-context": context,
        }
        with open(path, "w") as fh:
            json.dump(cfg, fh)
        return path

    def __enter__(self) -> "FakeAPIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
