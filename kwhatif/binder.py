"""Binders: what the Bind extension point does with a decision.

RecordingBinder (the default) records the v1 Binding it would post; ApiBinder (--apply) posts it,
as upstream's DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder) does: a v1 Binding
named after the pod, carrying its uid, targeting the node. The API server binds only that pod
(uid precondition), only if it is still unassigned, and refuses otherwise (409).
"""

from __future__ import annotations

import abc
import copy
import enum
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kwhatif.api.core import Pod
from kwhatif.errors import ClusterError
from kwhatif.framework import interface
from kwhatif.framework.interface import SUCCESS, Status
from kwhatif.load.http import http_reason

if TYPE_CHECKING:
    from kwhatif.load.live import LiveOptions


class Outcome(enum.StrEnum):
    RECORDED = "recorded"  # dry run: the Binding that would be posted
    BOUND = "bound"  # the API server accepted the Binding
    CREATED = "created"  # the pod did not exist: it was created with spec.nodeName set
    SKIPPED = "skipped"  # not posted: the pod was bound, deleted or re-created meanwhile
    FAILED = "failed"  # refused by the API server, or no answer


@dataclass(frozen=True, slots=True)
class Binding:
    """The v1 Binding upstream's DefaultBinder posts to pods/<name>/binding, and what came of it."""

    namespace: str
    name: str
    uid: str
    node: str
    outcome: Outcome = Outcome.RECORDED
    code: int = 0  # HTTP status of the API server's answer; 0 when there was none
    reason: str = ""  # its Status reason (Conflict, NotFound, Forbidden, ...), or why there was none
    message: str = ""  # its Status message, or why kwhatif did not post
    created_as: str = ""  # the name the API server gave a pod created from generateName
    create: bool = False  # the pod did not exist: it is created bound instead

    @property
    def applied(self) -> bool:
        return self.outcome in (Outcome.BOUND, Outcome.CREATED)

    def to_manifest(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"namespace": self.namespace, "name": self.name}
        if self.uid:
            meta["uid"] = self.uid
        return {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": meta,
            "target": {"kind": "Node", "name": self.node},
        }

    def describe(self) -> str:
        """One line for people: what happened to this pod in the cluster."""
        api = " ".join(x for x in (str(self.code) if self.code else "", self.reason) if x)
        extra = f"; {self.message}" if self.message else ""
        if self.outcome is Outcome.RECORDED:
            return f"would post a v1 Binding to node {self.node}"
        if self.outcome is Outcome.BOUND:
            return f"bound to {self.node} ({api or 'accepted'}){extra}"
        if self.outcome is Outcome.CREATED:
            renamed = self.created_as and self.created_as != self.name
            name = f" as {self.namespace}/{self.created_as}" if renamed else ""
            return f"created{name}, already bound to {self.node} (spec.nodeName; {api or 'accepted'}){extra}"
        if self.outcome is Outcome.SKIPPED:
            return f"skipped: {self.message}"
        verb = "creating the pod bound to" if self.create else "binding to"
        return f"{verb} {self.node} failed: " + (f"{api}: {self.message}" if api else self.message)


class Binder(interface.Binder):
    """The framework's Binder, which also says what became of each pod's binding."""

    @abc.abstractmethod
    def binding_for(self, pod: Pod) -> Binding | None: ...

    def settled(self, pod: Pod) -> bool:
        """True once the cluster has answered for this pod: it is not attempted again."""
        return False


@dataclass
class RecordingBinder(Binder):
    bindings: dict[str, Binding] = field(default_factory=dict)

    def bind(self, pod: Pod, node_name: str) -> Status:
        self.bindings[pod.key] = Binding(pod.namespace, pod.name, pod.uid, node_name)
        return SUCCESS

    def binding_for(self, pod: Pod) -> Binding | None:
        return self.bindings.get(pod.key)


# An API request: (method, path, JSON body or None) -> (HTTP status, body). Raises ClusterError
# (load.live.Unreachable, with ``timed_out``) when no answer came.
Call = Callable[[str, str, "dict[str, Any] | None"], tuple[int, bytes]]


class ApiBinder(Binder):
    """--apply: binds for real, once per pod.

    A pod that exists in the cluster (``live``: key -> the uid kwhatif read) is re-read just
    before binding; if it was bound, deleted or re-created meanwhile it is skipped, else it gets
    DefaultBinder's v1 Binding with that uid. A pod that does not exist yet is created already
    bound (spec.nodeName), which is what that Binding would leave behind, and no other scheduler
    can race for it. A refused binding is reported with the API server's status and never posted
    again."""

    def __init__(
        self,
        call: Call,
        live: Mapping[str, str],
        manifests: Mapping[str, dict[str, Any]],
        *,
        unbound_claims: Callable[[Pod], list[str]] | None = None,
        where: str = "the cluster",
    ) -> None:
        self.call = call
        self.live = live
        self.manifests = manifests
        self.unbound_claims = unbound_claims
        self.where = where
        self.records: dict[str, Binding] = {}

    def summary(self) -> str:
        """'--apply: 2 bound, 1 created, 1 skipped, 1 failed'"""
        counts = {o: 0 for o in (Outcome.BOUND, Outcome.CREATED, Outcome.SKIPPED, Outcome.FAILED)}
        for b in self.records.values():
            counts[b.outcome] = counts.get(b.outcome, 0) + 1
        return "--apply: " + ", ".join(f"{n} {o.value}" for o, n in counts.items())

    def settled(self, pod: Pod) -> bool:
        return pod.key in self.records

    def binding_for(self, pod: Pod) -> Binding | None:
        return self.records.get(pod.key)

    def bind(self, pod: Pod, node_name: str) -> Status:
        rec = self.records.get(pod.key)
        if rec is None:
            rec = self._bind(pod, node_name)
            self.records[pod.key] = rec
        if rec.outcome is Outcome.FAILED:
            return Status.error(rec.describe())
        return SUCCESS

    def _bind(self, pod: Pod, node: str) -> Binding:
        uid = self.live.get(pod.key)
        base = Binding(pod.namespace, pod.name, uid or "", node, create=uid is None)
        claims = self.unbound_claims(pod) if self.unbound_claims else []
        if claims:
            return replace(
                base,
                outcome=Outcome.FAILED,
                message=f"PersistentVolumeClaim(s) {', '.join(claims)} are not bound yet: kube-scheduler's VolumeBinding "
                "PreBind would bind them first, which --apply does not do (the pod would wait for its volumes)",
            )
        if uid is None:
            return self._create(pod, base)
        return self._bind_live(pod, base)

    # --- a pod of the cluster ---------------------------------------------------------------------

    def _pod_path(self, pod: Pod) -> str:
        return f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}"

    def _bind_live(self, pod: Pod, base: Binding) -> Binding:
        try:
            code, body = self.call("GET", self._pod_path(pod), None)
        except ClusterError as e:
            return _no_answer(base, e, "re-reading the pod before binding")
        if code == 404:
            return replace(
                base,
                outcome=Outcome.SKIPPED,
                code=404,
                reason="NotFound",
                message="the pod was deleted after kwhatif read the cluster",
            )
        if code == 200:
            why = _why_not_bindable(_json(body), base)
            if why:
                return replace(base, outcome=Outcome.SKIPPED, message=why)
        # Any other answer to the re-read: post anyway, the API server enforces the same rules.
        try:
            code, body = self.call("POST", f"{self._pod_path(pod)}/binding", base.to_manifest())
        except ClusterError as e:
            if getattr(e, "timed_out", False):
                confirmed = self._confirm(pod, base)
                if confirmed is not None:
                    return confirmed
            return _no_answer(base, e, "posting the Binding", maybe_applied=getattr(e, "timed_out", False))
        if 200 <= code < 300:
            return replace(base, outcome=Outcome.BOUND, code=code, reason=http_reason(code))
        return _refused(base, code, body)

    def _confirm(self, pod: Pod, base: Binding) -> Binding | None:
        """After a timeout: the request may have been carried out. Re-read once to tell."""
        try:
            code, body = self.call("GET", self._pod_path(pod), None)
        except ClusterError:
            return None
        if code != 200:
            return None
        doc = _json(body)
        meta = doc.get("metadata") or {}
        if (doc.get("spec") or {}).get("nodeName") == base.node and (base.create or meta.get("uid") == base.uid):
            outcome = Outcome.CREATED if base.create else Outcome.BOUND
            return replace(
                base,
                outcome=outcome,
                uid=str(meta.get("uid") or base.uid),
                message="the request timed out; re-reading the pod shows it on that node",
            )
        return None

    # --- a new pod ---------------------------------------------------------------------------------

    def _create(self, pod: Pod, base: Binding) -> Binding:
        body = copy.deepcopy(dict(self.manifests.get(pod.key) or {}))
        body["apiVersion"] = "v1"
        body["kind"] = "Pod"
        meta = body.setdefault("metadata", {})
        meta["namespace"] = pod.namespace
        for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp"):
            meta.pop(k, None)
        spec = body.setdefault("spec", {})
        spec["nodeName"] = base.node
        body.pop("status", None)
        try:
            code, data = self.call("POST", f"/api/v1/namespaces/{pod.namespace}/pods", body)
        except ClusterError as e:
            if getattr(e, "timed_out", False) and meta.get("name"):
                confirmed = self._confirm(pod, base)
                if confirmed is not None:
                    return confirmed
            return _no_answer(base, e, "creating the pod", maybe_applied=getattr(e, "timed_out", False))
        if 200 <= code < 300:
            created = _json(data).get("metadata") or {}
            return replace(
                base,
                outcome=Outcome.CREATED,
                code=code,
                reason=http_reason(code),
                uid=str(created.get("uid") or ""),
                created_as=str(created.get("name") or pod.name),
            )
        return _refused(base, code, data)


def _why_not_bindable(doc: Mapping[str, Any], base: Binding) -> str:
    """Why a re-read pod must not be bound now ("" when it may)."""
    meta = doc.get("metadata") or {}
    uid = str(meta.get("uid") or "")
    if base.uid and uid and uid != base.uid:
        return (
            f"the pod was deleted and re-created after kwhatif read the cluster (uid {base.uid} is now {uid}); "
            "the new pod was not scheduled by this run"
        )
    node = (doc.get("spec") or {}).get("nodeName")
    if node:
        return f"the pod is already bound to node {node} (bound by someone else after kwhatif read the cluster)"
    if meta.get("deletionTimestamp"):
        return "the pod is being deleted"
    phase = (doc.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        return f"the pod has finished (phase {phase})"
    return ""


def _no_answer(base: Binding, e: ClusterError, doing: str, *, maybe_applied: bool = False) -> Binding:
    timed_out = bool(getattr(e, "timed_out", False))
    msg = f"{doing}: {e}"
    if maybe_applied:
        msg += " (it may have been carried out all the same)"
    return replace(base, outcome=Outcome.FAILED, reason="Timeout" if timed_out else "", message=msg)


def _refused(base: Binding, code: int, body: bytes) -> Binding:
    doc = _json(body)
    reason = str(doc.get("reason") or "") or http_reason(code)
    message = str(doc.get("message") or "") or body.decode("utf-8", errors="replace").strip()[:300]
    return replace(base, outcome=Outcome.FAILED, code=code, reason=reason, message=message)


def _json(body: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(body)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def make_api_binder(
    kubeconfig: str | None,
    context: str | None,
    existing: Mapping[str, str],
    manifests: Mapping[str, dict[str, Any]],
    unbound_claims: Callable[[Any], list[str]] | None = None,
    options: LiveOptions | None = None,
) -> ApiBinder:
    """--apply: an ApiBinder that talks to the kubeconfig's API server."""
    from kwhatif.load.live import api_client, request  # the live client only where --apply is given

    client = api_client(kubeconfig, context, options)

    def call(method: str, path: str, body: dict[str, Any] | None) -> tuple[int, bytes]:
        return request(client, method, path, body=body)

    return ApiBinder(
        call,
        existing,
        manifests,
        unbound_claims=unbound_claims,
        where=client.host or "the cluster",
    )
