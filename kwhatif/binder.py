"""Binders: what the Bind extension point does with a decision.

RecordingBinder (the default) records the v1 Binding it would post; ApiBinder (--apply) posts it
through the kubernetes client, and only then.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Pod
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
    """Posts Bindings for pods that already exist in the cluster (pending pods)."""

    def __init__(self, core_api: Any) -> None:
        self.api = core_api
        self.bindings: dict[str, Binding] = {}
        self.errors: dict[str, str] = {}

    def bind(self, pod: Pod, node_name: str) -> Status:
        binding = Binding(pod.namespace, pod.name, pod.uid, node_name)
        try:
            self.api.create_namespaced_pod_binding(
                name=pod.name, namespace=pod.namespace, body=binding.to_manifest(), _preload_content=False
            )
        except Exception as e:  # the client raises ApiException and urllib3 errors alike
            msg = _api_error_message(e)
            self.errors[pod.key] = msg
            return Status(Code.ERROR, (f"binding rejected: {msg}",))
        self.bindings[pod.key] = Binding(pod.namespace, pod.name, pod.uid, node_name, applied=True)
        return SUCCESS

    def binding_for(self, pod: Pod) -> Binding | None:
        return self.bindings.get(pod.key)


def _api_error_message(e: Exception) -> str:
    status = getattr(e, "status", None)
    reason = getattr(e, "reason", None)
    body = getattr(e, "body", None)
    if status is not None:
        detail = ""
        if body:
            try:
                import json

                detail = json.loads(body).get("message", "")
            except (ValueError, AttributeError):
                detail = str(body)[:200]
        return f"{status} {reason or ''}".strip() + (f": {detail}" if detail else "")
    return str(e) or type(e).__name__
