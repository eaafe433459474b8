"""Binders: what the Bind extension point does with a decision.

RecordingBinder (the default) records the v1 Binding it would post; ApiBinder (--apply) posts it
through the kubernetes client, and only then.
"""

from __future__ import annotations

import abc
import copy
from dataclasses import dataclass, field
from typing import Any, Callable

from kwhatif.api.core import Pod
from kwhatif.errors import KwhatifError
from kwhatif.framework.interface import SUCCESS, Code, Status


@dataclass(frozen=True, slots=True)
class Binding:
    """The v1 Binding upstream's DefaultBinder posts to pods/<name>/binding."""

    namespace: str
    name: str
    uid: str
    node: str
    applied: bool = False

    def to_manifest(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"namespace": self.namespace, "name": self.name}
        if self.uid:
            meta["uid"] = self.uid
        return {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": meta,
            "target": {"apiVersion": "v1", "kind": "Node", "name": self.node},
        }


class Binder(abc.ABC):
    @abc.abstractmethod
    def bind(self, pod: Pod, node_name: str) -> Status: ...

    @abc.abstractmethod
    def binding_for(self, pod: Pod) -> Binding | None: ...


@dataclass
class RecordingBinder(Binder):
    bindings: dict[str, Binding] = field(default_factory=dict)

    def bind(self, pod: Pod, node_name: str) -> Status:
        self.bindings[pod.key] = Binding(pod.namespace, pod.name, pod.uid, node_name)
        return SUCCESS

    def binding_for(self, pod: Pod) -> Binding | None:
        return self.bindings.get(pod.key)


class ApiBinder(Binder):
    """--apply: binds for real. A pod that already exists in the cluster, unbound, gets the v1
    Binding upstream's DefaultBinder posts; a pod that does not exist yet is created already
    bound (spec.nodeName), which is what that Binding would leave behind."""

    def __init__(
        self,
        post: Callable[[str, dict[str, Any]], tuple[int, bytes]],
        existing: set[str],
        manifests: dict[str, dict[str, Any]],
    ) -> None:
        self.post = post
        self.existing = existing
        self.manifests = manifests
        self.bindings: dict[str, Binding] = {}
        self.errors: dict[str, str] = {}

    def bind(self, pod: Pod, node_name: str) -> Status:
        binding = Binding(pod.namespace, pod.name, pod.uid, node_name)
        base = f"/api/v1/namespaces/{pod.namespace}/pods"
        try:
            if pod.key in self.existing:
                code, data = self.post(f"{base}/{pod.name}/binding", binding.to_manifest())
            else:
                body = copy.deepcopy(self.manifests.get(pod.key) or {})
                body.setdefault("apiVersion", "v1")
                body.setdefault("kind", "Pod")
                meta = body.setdefault("metadata", {})
                meta["namespace"] = pod.namespace
                meta.pop("uid", None)
                meta.pop("resourceVersion", None)
                body.setdefault("spec", {})["nodeName"] = node_name
                body.pop("status", None)
                code, data = self.post(base, body)
        except KwhatifError as e:
            code, data = 0, str(e).encode()
        if not 200 <= code < 300:
            msg = _api_error_message(code, data)
            self.errors[pod.key] = msg
            return Status(Code.ERROR, (f"binding rejected by the API server: {msg}",))
        self.bindings[pod.key] = Binding(pod.namespace, pod.name, pod.uid, node_name, applied=True)
        return SUCCESS

    def binding_for(self, pod: Pod) -> Binding | None:
        return self.bindings.get(pod.key)


def _api_error_message(code: int, data: bytes) -> str:
    import json

    try:
        doc = json.loads(data)
        detail = str(doc.get("message", "")) if isinstance(doc, dict) else ""
        reason = str(doc.get("reason", "")) if isinstance(doc, dict) else ""
    except ValueError:
        detail, reason = data.decode(errors="replace")[:200], ""
    head = f"{code} {reason}".strip() if code else "request failed"
    return f"{head}: {detail}" if detail else head
