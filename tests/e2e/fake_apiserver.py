"""A small stand-in for a Kubernetes API server on 127.0.0.1, for tests of --kubeconfig, --apply
and `kwhatif snapshot`.

It speaks HTTPS with a certificate made for the test (the kubeconfig carries its
certificate-authority-data), checks a bearer token, serves the real list paths with paging
(limit and an opaque continue token), GET of one pod, pod creation, and the pods/binding
subresource with the API server's rules (pkg/registry/core/pod/storage/storage.go): a uid
precondition, a pod that is already assigned or being deleted is refused with 409, a missing
pod is 404. Errors are v1 Status bodies as the API server writes them.

It can be told to misbehave on a path (``fault``): hang (never answer), drip the answer a byte a
second, send a body that never ends, reset the connection mid-body, answer an error status
(with Retry-After) a number of times, answer garbage, or page with a continue token that
repeats.
"""

from __future__ import annotations

import base64
import copy
import datetime
import json
import os
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time
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
    "/api/v1/limitranges": ("v1", "LimitRangeList", "LimitRange"),
    "/api/v1/resourcequotas": ("v1", "ResourceQuotaList", "ResourceQuota"),
    "/api/v1/namespaces/kube-system/configmaps": ("v1", "ConfigMapList", "ConfigMap"),
    "/apis/scheduling.k8s.io/v1/priorityclasses": ("scheduling.k8s.io/v1", "PriorityClassList", "PriorityClass"),
    "/apis/policy/v1/poddisruptionbudgets": ("policy/v1", "PodDisruptionBudgetList", "PodDisruptionBudget"),
    "/apis/storage.k8s.io/v1/storageclasses": ("storage.k8s.io/v1", "StorageClassList", "StorageClass"),
    "/apis/storage.k8s.io/v1/csinodes": ("storage.k8s.io/v1", "CSINodeList", "CSINode"),
    "/apis/storage.k8s.io/v1/csidrivers": ("storage.k8s.io/v1", "CSIDriverList", "CSIDriver"),
    "/apis/storage.k8s.io/v1/csistoragecapacities": (
        "storage.k8s.io/v1",
        "CSIStorageCapacityList",
        "CSIStorageCapacity",
    ),
    "/apis/storage.k8s.io/v1/volumeattachments": ("storage.k8s.io/v1", "VolumeAttachmentList", "VolumeAttachment"),
    "/apis/node.k8s.io/v1/runtimeclasses": ("node.k8s.io/v1", "RuntimeClassList", "RuntimeClass"),
    "/apis/apps/v1/replicasets": ("apps/v1", "ReplicaSetList", "ReplicaSet"),
    "/apis/apps/v1/statefulsets": ("apps/v1", "StatefulSetList", "StatefulSet"),
    "/apis/apps/v1/deployments": ("apps/v1", "DeploymentList", "Deployment"),
    "/apis/apps/v1/daemonsets": ("apps/v1", "DaemonSetList", "DaemonSet"),
    "/apis/batch/v1/jobs": ("batch/v1", "JobList", "Job"),
    "/apis/batch/v1/cronjobs": ("batch/v1", "CronJobList", "CronJob"),
    "/apis/autoscaling/v2/horizontalpodautoscalers": (
        "autoscaling/v2",
        "HorizontalPodAutoscalerList",
        "HorizontalPodAutoscaler",
    ),
    "/apis/resource.k8s.io/v1/deviceclasses": ("resource.k8s.io/v1", "DeviceClassList", "DeviceClass"),
    "/apis/resource.k8s.io/v1/resourceslices": ("resource.k8s.io/v1", "ResourceSliceList", "ResourceSlice"),
    "/apis/resource.k8s.io/v1/resourceclaims": ("resource.k8s.io/v1", "ResourceClaimList", "ResourceClaim"),
    "/apis/resource.k8s.io/v1/resourceclaimtemplates": (
        "resource.k8s.io/v1",
        "ResourceClaimTemplateList",
        "ResourceClaimTemplate",
    ),
    # what a 1.32/1.33 cluster serves (objects in the v1beta1 shape)
    "/apis/resource.k8s.io/v1beta1/deviceclasses": ("resource.k8s.io/v1beta1", "DeviceClassList", "DeviceClass"),
    "/apis/resource.k8s.io/v1beta1/resourceslices": ("resource.k8s.io/v1beta1", "ResourceSliceList", "ResourceSlice"),
    "/apis/resource.k8s.io/v1beta1/resourceclaims": ("resource.k8s.io/v1beta1", "ResourceClaimList", "ResourceClaim"),
    "/apis/resource.k8s.io/v1beta1/resourceclaimtemplates": (
        "resource.k8s.io/v1beta1",
        "ResourceClaimTemplateList",
        "ResourceClaimTemplate",
    ),
}


def status(code: int, reason: str, message: str, *, kind: str = "", name: str = "") -> dict[str, Any]:
    """A v1 Status as apimachinery's errors.New* build them."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if kind or name:
        body["details"] = {"name": name, "kind": kind}
    return body


def conflict(resource: str, name: str, err: str) -> dict[str, Any]:
    """errors.NewConflict."""
    return status(
        409, "Conflict", f'Operation cannot be fulfilled on {resource} "{name}": {err}', kind=resource, name=name
    )


def not_found(name: str) -> dict[str, Any]:
    """errors.NewNotFound for pods."""
    return status(404, "NotFound", f'pods "{name}" not found', kind="pods", name=name)


# --- a certificate for 127.0.0.1, made once per test run ---------------------------------------

_CERT: tuple[str, str, bytes] | None = None  # cert file, key file, cert PEM
_CERT_LOCK = threading.Lock()


def _make_cert_with_cryptography(cert_path: str, key_path: str) -> bool:
    try:
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        return False
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kwhatif-test-apiserver")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    with open(key_path, "wb") as fh:
        fh.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    with open(cert_path, "wb") as fh:
        fh.write(cert.public_bytes(serialization.Encoding.PEM))
    return True


def _make_cert_with_openssl(cert_path: str, key_path: str) -> None:
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            key_path,
            "-out",
            cert_path,
            "-days",
            "1",
            "-subj",
            "/CN=kwhatif-test-apiserver",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
        ],
        check=True,
        capture_output=True,
    )


def make_certificate() -> tuple[str, str, bytes]:
    global _CERT
    with _CERT_LOCK:
        if _CERT is None:
            d = tempfile.mkdtemp(prefix="kwhatif-tls-")
            cert_path, key_path = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
            if not _make_cert_with_cryptography(cert_path, key_path):
                _make_cert_with_openssl(cert_path, key_path)
            with open(cert_path, "rb") as fh:
                _CERT = (cert_path, key_path, fh.read())
        return _CERT


FAULTS = (
    "echo-headers",
    "hang",
    "drip",
    "endless",
    "reset",
    "status",
    "garbage",
    "continue-loop",  # the same continue token on every page
    "continue-forever",  # empty pages, each with a new continue token
    "item-kind",  # the list's first item says it is a Node
    "list-kind",  # the list says it is a NodeList
)
# faults that still answer the list, altered
_LIST_FAULTS = ("continue-loop", "continue-forever", "item-kind", "list-kind")


class Fault:
    """How the server misbehaves on one path; ``times``: on that many requests (None: all)."""

    def __init__(self, kind: str, *, code: int = 500, retry_after: str | None = None, times: int | None = None) -> None:
        assert kind in FAULTS, kind
        self.kind = kind
        self.code = code
        self.retry_after = retry_after
        self.times = times


def make_other_ca() -> bytes:
    """The certificate of another CA than the server's (a kubeconfig that trusts the wrong one)."""
    d = tempfile.mkdtemp(prefix="kwhatif-tls-other-")
    cert_path, key_path = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
    if not _make_cert_with_cryptography(cert_path, key_path):
        _make_cert_with_openssl(cert_path, key_path)
    with open(cert_path, "rb") as fh:
        return fh.read()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-answer is what the fault tests do


def _continue_token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"v": "meta.k8s.io/v1", "start": offset}).encode()).decode()


def _offset(token: str) -> int | None:
    try:
        return int(json.loads(base64.urlsafe_b64decode(token.encode()))["start"])
    except (ValueError, KeyError, TypeError):
        return None


class FakeAPIServer:
    def __init__(
        self,
        objects: list[dict[str, Any]],
        *,
        page_size: int = 2,
        token: str = "secret-token",
        protocol: str = "HTTP/1.1",
    ) -> None:
        self.objects = copy.deepcopy(objects)
        # kube-apiserver (Go's net/http) speaks HTTP/1.1: it keeps the connection alive and gives
        # a small answer's Content-Length; "HTTP/1.0" closes the connection after each answer
        self.protocol = protocol
        self.page_size = page_size
        self.token = token
        self.forbidden: set[str] = set()  # paths answered with 403
        # "ns/name" -> (code, reason, message) answered to a binding or a creation of that pod
        self.not_served: set[str] = set()  # paths answered 404, as for an API version not served
        self.fail_bindings: dict[str, tuple[int, str, str]] = {}
        self.fail_creates: dict[str, tuple[int, str, str]] = {}
        self.delay: dict[tuple[str, str], float] = {}  # (method, path) -> seconds before answering
        # "ns/name" -> callable(server), run once when that pod is read: the cluster changes in
        # between kwhatif's list and its binding
        self.on_get_pod: dict[str, Any] = {}
        self.requests: list[tuple[str, str]] = []
        self.clients: set[tuple[str, int]] = set()  # the client addresses (one per connection)
        self.bindings: list[dict[str, Any]] = []  # accepted Binding bodies
        self.created: list[dict[str, Any]] = []
        self.git_version: str | None = None  # GET /version answers it when set, else 404
        self.faults: dict[str, Fault] = {}  # path -> how it misbehaves
        self.sent: dict[str, int] = {}  # path -> body bytes sent by "endless" and "drip"
        self.stopping = threading.Event()
        self.latency = 0.0  # seconds added to every list page (a distant API server)
        self.lock = threading.Lock()
        self._rv = 100
        self._names = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = protocol

            def log_message(self, *args: Any) -> None:
                pass

            def send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def start(self, method: str) -> str | None:
                url = urlparse(self.path)
                with server.lock:
                    server.requests.append((method, url.path))
                    server.clients.add(self.client_address)
                wait = server.delay.get((method, url.path))
                if wait:
                    time.sleep(wait)
                if self.headers.get("Authorization") != f"Bearer {server.token}":
                    self.send(401, status(401, "Unauthorized", "Unauthorized"))
                    return None
                fault = server.take_fault(url.path)
                # a kept-alive connection's handler serves many requests: each starts afresh
                self.list_fault = ""
                if fault is not None and fault.kind not in _LIST_FAULTS:
                    self.misbehave(fault, url.path)
                    return None
                if fault is not None:
                    self.list_fault = fault.kind
                if url.path in server.forbidden:
                    parts = url.path.strip("/").split("/")
                    resource = parts[-1]
                    group = parts[1] if parts[0] == "apis" else ""
                    qualified = f"{resource}.{group}" if group else resource
                    verb = "list" if method == "GET" else "create"
                    self.send(
                        403,
                        status(
                            403,
                            "Forbidden",
                            f'{qualified} is forbidden: User "system:serviceaccount:ci:kwhatif" '
                            f'cannot {verb} resource "{resource}" in API group "{group}" at the cluster scope',
                            kind=resource,
                        ),
                    )
                    return None
                return url.path

            list_fault = ""

            def misbehave(self, fault: Fault, path: str) -> None:
                body = json.dumps(
                    {"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}
                ).encode()
                if fault.kind == "echo-headers":
                    # a proxy or server whose error page repeats the request, headers and all
                    echoed = "".join(f"{k}: {v}\n" for k, v in self.headers.items())
                    data = json.dumps(status(fault.code, "InternalError", f"bad request:\n{echoed}")).encode()
                    self.send_response(fault.code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                elif fault.kind == "hang":
                    server.stopping.wait()
                    self.close_connection = True
                elif fault.kind == "status":
                    data = json.dumps(
                        status(fault.code, "InternalError" if fault.code >= 500 else "TooManyRequests", "injected")
                    ).encode()
                    self.send_response(fault.code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if fault.retry_after is not None:
                        self.send_header("Retry-After", fault.retry_after)
                    self.end_headers()
                    self.wfile.write(data)
                elif fault.kind == "garbage":
                    data = b"<html><body>502 Bad Gateway</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                elif fault.kind == "drip":
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    for i in range(len(body)):
                        self.wfile.write(body[i : i + 1])
                        self.wfile.flush()
                        server.sent[path] = server.sent.get(path, 0) + 1
                        if server.stopping.wait(1.0):
                            break
                elif fault.kind == "endless":
                    # close-delimited (HTTP/1.0): no Content-Length, items that never end
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(b'{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[')
                    item = json.dumps({"metadata": {"name": "n" * 200}}).encode() + b","
                    chunk = item * (65536 // len(item))
                    while not server.stopping.is_set():
                        self.wfile.write(chunk)
                        server.sent[path] = server.sent.get(path, 0) + len(chunk)
                elif fault.kind == "reset":
                    big = json.dumps(
                        {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [{"x": "y" * 100000}]}
                    ).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(big)))
                    self.end_headers()
                    self.wfile.write(big[: len(big) // 2])
                    self.wfile.flush()
                    # SO_LINGER 0: close sends RST, as a proxy or a crashed server does
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True

            def do_GET(self) -> None:
                path = self.start("GET")
                if path is None:
                    return
                url = urlparse(self.path)
                if path == "/version" and server.git_version is not None:
                    self.send(
                        200, {"major": "1", "minor": "", "gitVersion": server.git_version, "platform": "linux/amd64"}
                    )
                    return
                parts = path.strip("/").split("/")
                if len(parts) == 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
                    hook = server.on_get_pod.pop(f"{parts[3]}/{parts[5]}", None)
                    if hook is not None:
                        hook(server)
                    pod = server.pod(parts[3], parts[5])
                    if pod is None:
                        self.send(404, not_found(parts[5]))
                        return
                    self.send(
                        200,
                        {
                            "kind": "Pod",
                            "apiVersion": "v1",
                            **{k: v for k, v in pod.items() if k not in ("kind", "apiVersion")},
                        },
                    )
                    return
                spec = LIST_PATHS.get(path)
                if spec is None or path in server.not_served:
                    self.send(404, status(404, "NotFound", "the server could not find the requested resource"))
                    return
                api_version, list_kind, kind = spec
                if server.latency:
                    time.sleep(server.latency)
                with server.lock:
                    items = [o for o in server.objects if o.get("kind") == kind]
                q = parse_qs(url.query)
                limit = int(q.get("limit", ["0"])[0]) or len(items) or 1
                limit = min(limit, server.page_size)
                token = q.get("continue", [""])[0]
                start = 0
                if token:
                    offset = _offset(token)
                    if offset is None:
                        self.send(400, status(400, "BadRequest", "continue key is not valid: illegal base64 data"))
                        return
                    start = offset
                page = [copy.deepcopy(o) for o in items[start : start + limit]]
                cont = _continue_token(start + limit) if start + limit < len(items) else ""
                if self.list_fault == "continue-loop":
                    page, cont = page[:limit], _continue_token(0)  # the same token, over and over
                elif self.list_fault == "continue-forever":
                    page, cont = [], _continue_token(start + 1)
                # The API omits kind/apiVersion of list items.
                stripped = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in page]
                if self.list_fault == "item-kind" and stripped:
                    stripped[0]["kind"] = "Node"
                elif self.list_fault == "list-kind":
                    list_kind = "NodeList"
                meta: dict[str, Any] = {"resourceVersion": str(server._rv)}
                if cont:
                    meta["continue"] = cont
                    meta["remainingItemCount"] = len(items) - start - limit  # as a paged list has
                self.send(200, {"kind": list_kind, "apiVersion": api_version, "metadata": meta, "items": stripped})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length) or b"{}"
                path = self.start("POST")
                if path is None:
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self.send(400, status(400, "BadRequest", "the body of the request was in an unknown format"))
                    return
                parts = path.strip("/").split("/")
                if (
                    len(parts) == 7
                    and parts[:3] == ["api", "v1", "namespaces"]
                    and parts[4] == "pods"
                    and parts[6] == "binding"
                ):
                    code, answer = server.bind(parts[3], parts[5], body)
                    self.send(code, answer)
                    return
                if len(parts) == 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
                    code, answer = server.create(parts[3], body)
                    self.send(code, answer)
                    return
                self.send(404, status(404, "NotFound", "the server could not find the requested resource"))

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        cert, key, self.ca_pem = make_certificate()
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # --- the cluster's rules ---------------------------------------------------------------------

    def pod(self, ns: str, name: str) -> dict[str, Any] | None:
        with self.lock:
            for o in self.objects:
                if (
                    o.get("kind") == "Pod"
                    and o["metadata"]["name"] == name
                    and o["metadata"].get("namespace", "default") == ns
                ):
                    return o
        return None

    def bind(self, ns: str, name: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """BindingREST.Create and setPodHostAndAnnotations."""
        if (body.get("metadata") or {}).get("name") != name:
            return 400, status(400, "BadRequest", "name in URL does not match name in Binding object")
        target = body.get("target") or {}
        if not target.get("name"):
            return 422, status(
                422,
                "Invalid",
                'Binding.core "' + name + '" is invalid: target.name: Required value',
                kind="Binding",
                name=name,
            )
        injected = self.fail_bindings.get(f"{ns}/{name}")
        if injected:
            code, reason, message = injected
            return code, status(code, reason, message, kind="pods", name=name)
        pod = self.pod(ns, name)
        if pod is None:
            return 404, not_found(name)
        with self.lock:
            meta = pod["metadata"]
            uid = (body.get("metadata") or {}).get("uid")
            if uid and uid != meta.get("uid"):
                err = (
                    f"StorageError: invalid object, Code: 4, Key: /registry/pods/{ns}/{name}, ResourceVersion: 0, "
                    f"AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: {meta.get('uid', '')}"
                )
                return 409, conflict("pods", name, err)
            if meta.get("deletionTimestamp"):
                return 409, conflict("pods/binding", name, f"pod {name} is being deleted, cannot be assigned to a host")
            spec = pod.setdefault("spec", {})
            if spec.get("nodeName"):
                return 409, conflict(
                    "pods/binding", name, f'pod {name} is already assigned to node "{spec["nodeName"]}"'
                )
            if spec.get("schedulingGates"):
                return 409, conflict("pods/binding", name, f"pod {name} has non-empty .spec.schedulingGates")
            spec["nodeName"] = target["name"]
            self._rv += 1
            meta["resourceVersion"] = str(self._rv)
            self.bindings.append(body)
        return 201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

    def create(self, ns: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        meta = body.setdefault("metadata", {})
        if meta.get("namespace", ns) != ns:
            return 400, status(
                400,
                "BadRequest",
                "the namespace of the provided object does not match the namespace sent on the request",
            )
        name = meta.get("name")
        if not name and meta.get("generateName"):
            with self.lock:
                self._names += 1
                name = f"{meta['generateName']}x{self._names:04d}"
            meta["name"] = name
        injected = self.fail_creates.get(f"{ns}/{name}")
        if injected:
            code, reason, message = injected
            return code, status(code, reason, message, kind="pods", name=name)
        if self.pod(ns, name) is not None:
            return 409, status(409, "AlreadyExists", f'pods "{name}" already exists', kind="pods", name=name)
        with self.lock:
            self._rv += 1
            meta.update({"namespace": ns, "uid": f"created-{name}", "resourceVersion": str(self._rv)})
            body.setdefault("kind", "Pod")
            body.setdefault("apiVersion", "v1")
            body.setdefault("status", {"phase": "Pending"})
            self.objects.append(body)
            self.created.append(copy.deepcopy(body))
        return 201, body

    def remove(self, ns: str, name: str) -> None:
        with self.lock:
            self.objects = [
                o
                for o in self.objects
                if not (
                    o.get("kind") == "Pod"
                    and o["metadata"]["name"] == name
                    and o["metadata"].get("namespace", "default") == ns
                )
            ]

    def fault(self, path: str, kind: str, **kw: Any) -> None:
        self.faults[path] = Fault(kind, **kw)

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            fault = self.faults.get(path)
            if fault is None:
                return None
            if fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    del self.faults[path]
            return fault

    def gets(self, path: str) -> int:
        return sum(1 for m, p in self.requests if m == "GET" and p == path)

    def posts(self, suffix: str = "") -> list[str]:
        return [p for m, p in self.requests if m == "POST" and p.endswith(suffix)]

    # --- plumbing --------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"https://{host}:{port}"

    def kubeconfig(
        self,
        path: str,
        context: str = "test",
        *,
        token: str | None = None,
        namespace: str | None = None,
        user: dict[str, Any] | None = None,
        ca_pem: bytes | None = None,
    ) -> str:
        ctx: dict[str, Any] = {"cluster": "fake", "user": "tester"}
        if namespace:
            ctx["namespace"] = namespace
        cfg = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "fake",
                    "cluster": {
                        "server": self.url,
                        "certificate-authority-data": base64.b64encode(ca_pem or self.ca_pem).decode(),
                    },
                }
            ],
            "users": [{"name": "tester", "user": user if user is not None else {"token": token or self.token}}],
            "contexts": [{"name": context, "context": ctx}],
            "current-context": context,
        }
        with open(path, "w") as fh:
            json.dump(cfg, fh)
        return path

    def __enter__(self) -> FakeAPIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
