"""Pods of a JSON List decoded straight into what the loader reads of them.

A run of a List's items that are all v1 Pods (files._Batches cuts the runs) is decoded by msgspec
into the Structs below: every field of a Pod as kubectl writes it has its place, typed where the
loader reads it; the spec and each managed-fields entry's fieldsV1 stay raw text. A replica's
spec is the text of an earlier replica's but for its node, so a spec is decoded and converted
once per distinct text (the node cut out of it), not once per pod.

The answers are exactly those of decoding every item into dicts (files._Batches's generic path):

- A key given twice must still be refused, and Structs keep the last of two equal keys as
  dicts do. Every key brings one ``:`` to the run's text and one to msgspec's text of the decoded
  Structs (where an absent field stays absent: every field defaults to UNSET), and a string's
  colons are the same in both (runs holding ``\\u003a`` are not taken), so a key given twice, or a
  key the schema does not know (skipped by the decoder), leaves the encoded text with fewer. The
  raw parts are written back as they were read, so each distinct raw text is checked the same
  way on its own, once (decoded into dicts and written by orjson).
- A run that fails any test (a key twice, an unknown key, a value of another type than the
  schema's, an item of another kind, a raw text the generic decoder refuses) is decoded into
  dicts as before, which words every error as before.
- What the fast conversion does not handle (a missing name, resized containers, resource
  claims, a field the API server would refuse) it hands back: the item's dict is decoded then
  from the run's text, and parse.pod reads it as it reads every other pod.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import orjson
from msgspec import UNSET, Raw, Struct, UnsetType

from kwhatif.api import fields as f
from kwhatif.api import parse
from kwhatif.api.core import OwnerReference, Pod
from kwhatif.api.names import is_dns1123_label, valid_dns1123_subdomain
from kwhatif.api.resources import PodRules
from kwhatif.errors import FieldError
from kwhatif.load.files import DECODE_ERRORS, MSGSPEC_DECODE, Document, ItemRun, keys_once

# --- the schema: core/v1 Pod as kubectl writes it (k8s.io/api core/v1 types.go, ObjectMeta of
# apimachinery meta/v1), every field UNSET unless given. A field outside it sends the run back
# to the generic decoder: the schema only decides what is fast.

_Opt = UnsetType


class _ManagedFields(Struct, gc=False):
    manager: Any = UNSET
    operation: Any = UNSET
    apiVersion: Any = UNSET
    time: Any = UNSET
    fieldsType: Any = UNSET
    fieldsV1: Raw | _Opt = UNSET
    subresource: Any = UNSET


class _OwnerReference(Struct, gc=False):
    apiVersion: str | None | _Opt = UNSET
    kind: str | None | _Opt = UNSET
    name: str | None | _Opt = UNSET
    uid: str | None | _Opt = UNSET
    controller: bool | None | _Opt = UNSET
    blockOwnerDeletion: Any = UNSET


class _Meta(Struct, gc=False):
    name: str | None | _Opt = UNSET
    generateName: Any = UNSET
    namespace: str | None | _Opt = UNSET
    selfLink: Any = UNSET
    uid: str | None | _Opt = UNSET
    resourceVersion: Any = UNSET
    generation: Any = UNSET
    creationTimestamp: str | None | _Opt = UNSET
    deletionTimestamp: Any = UNSET
    deletionGracePeriodSeconds: Any = UNSET
    labels: dict[str, str] | None | _Opt = UNSET
    annotations: dict[str, str] | None | _Opt = UNSET
    ownerReferences: list[_OwnerReference] | None | _Opt = UNSET
    finalizers: Any = UNSET
    managedFields: list[_ManagedFields] | None | _Opt = UNSET
    clusterName: Any = UNSET  # gone since 1.25; older dumps still write it


class _Condition(Struct, gc=False):
    type: Any = UNSET
    observedGeneration: Any = UNSET
    status: Any = UNSET
    lastProbeTime: Any = UNSET
    lastTransitionTime: Any = UNSET
    reason: Any = UNSET
    message: Any = UNSET


class _Waiting(Struct, gc=False):
    reason: Any = UNSET
    message: Any = UNSET


class _Running(Struct, gc=False):
    startedAt: Any = UNSET


class _Terminated(Struct, gc=False):
    exitCode: Any = UNSET
    signal: Any = UNSET
    reason: Any = UNSET
    message: Any = UNSET
    startedAt: Any = UNSET
    finishedAt: Any = UNSET
    containerID: Any = UNSET


class _State(Struct, gc=False):
    waiting: _Waiting | None | _Opt = UNSET
    running: _Running | None | _Opt = UNSET
    terminated: _Terminated | None | _Opt = UNSET


class _VolumeMount(Struct, gc=False):
    name: Any = UNSET
    mountPath: Any = UNSET
    readOnly: Any = UNSET
    recursiveReadOnly: Any = UNSET
    volumeStatus: Any = UNSET


class _ContainerStatus(Struct, gc=False):
    name: Any = UNSET
    state: _State | None | _Opt = UNSET
    lastState: _State | None | _Opt = UNSET
    ready: Any = UNSET
    restartCount: Any = UNSET
    image: Any = UNSET
    imageID: Any = UNSET
    containerID: Any = UNSET
    started: Any = UNSET
    allocatedResources: Any = UNSET
    resources: Any = UNSET
    volumeMounts: list[_VolumeMount] | None | _Opt = UNSET
    user: Any = UNSET
    allocatedResourcesStatus: Any = UNSET
    stopSignal: Any = UNSET


class _IP(Struct, gc=False):
    ip: Any = UNSET


class _Status(Struct, gc=False):
    observedGeneration: Any = UNSET
    phase: str | None | _Opt = UNSET
    conditions: list[_Condition] | None | _Opt = UNSET
    message: Any = UNSET
    reason: Any = UNSET
    nominatedNodeName: str | None | _Opt = UNSET
    hostIP: Any = UNSET
    hostIPs: list[_IP] | None | _Opt = UNSET
    podIP: Any = UNSET
    podIPs: list[_IP] | None | _Opt = UNSET
    startTime: str | None | _Opt = UNSET
    initContainerStatuses: list[_ContainerStatus] | None | _Opt = UNSET
    containerStatuses: list[_ContainerStatus] | None | _Opt = UNSET
    qosClass: Any = UNSET
    ephemeralContainerStatuses: list[_ContainerStatus] | None | _Opt = UNSET
    resize: Any = UNSET
    resourceClaimStatuses: Any = UNSET
    extendedResourceClaimStatus: Any = UNSET
    allocatedResources: Any = UNSET
    resources: Any = UNSET
    nodeAllocatableResourceClaimStatuses: Any = UNSET
    volumeHealth: Any = UNSET


class _Pod(Struct, gc=False):
    apiVersion: str | _Opt = UNSET
    kind: str | _Opt = UNSET
    metadata: _Meta | None | _Opt = UNSET
    spec: Raw | _Opt = UNSET
    status: _Status | None | _Opt = UNSET


class _NodeOfSpec(Struct, gc=False):
    nodeName: str | None | _Opt = UNSET


_DECODE_RUN = msgspec.json.Decoder(list[_Pod]).decode
_DECODE_NODE = msgspec.json.Decoder(_NodeOfSpec).decode
_ENCODE_INTO = msgspec.json.Encoder().encode_into
_ENCODED = bytearray()  # what _ENCODE_INTO writes, reused run after run


class _Bad(Exception):
    """The run cannot be taken here: it goes to the generic decoder."""


def _checked(text: bytes) -> Any:
    """The value of a raw part, decoded as the generic path decodes it, when it names no key twice
    (see the module's doc); raises _Bad otherwise."""
    try:
        value = MSGSPEC_DECODE(text)
        plain = keys_once(text.decode(), orjson.dumps(value))
    except DECODE_ERRORS:
        raise _Bad from None
    if not plain:
        raise _Bad
    return value


# --- what distinct raw texts decode to, kept while the keys' budget lasts ------------------------

_BUDGET_BYTES = 1 << 26  # what the keys of the three tables may hold together (64 MiB)
_kept_bytes = [0]


class _Spec:
    """A distinct spec text (its node cut out): the spec decoded, until it is converted into a
    memo entry (parse.spec_entry; None: it cannot be, and its pods take the generic path)."""

    __slots__ = ("spec", "has_node", "entry", "generic")

    def __init__(self, spec: Any, has_node: bool) -> None:
        self.spec = spec
        self.has_node = has_node
        self.entry: list[Any] | None = None
        # resource claims are read with the pod's status (parse.pod_resource_claims): such pods,
        # and a spec that is not an object, go the generic way
        self.generic = not isinstance(spec, dict) or bool(spec.get("resourceClaims"))


_SPECS: dict[Any, _Spec] = {}  # by text (see _spec_of)
_OWNERS: dict[tuple[Any, ...], tuple[OwnerReference, ...]] = {}
_FIELDS_CHECKED: set[bytes] = set()


def _keep(table: Any, key: Any, size: int, value: Any = None) -> None:
    if _kept_bytes[0] < _BUDGET_BYTES:
        _kept_bytes[0] += size
        if isinstance(table, set):
            table.add(key)
        else:
            table[key] = value


# `"nodeName": "<a string without escapes or control characters>"`
_NODE_NAME = re.compile(rb'"nodeName"[ \t\n\r]*:[ \t\n\r]*"([^"\\\x00-\x1f]*)"')
# an escape that writes one of the letters of "nodeName" (Go's encoder escapes <, > and &, never
# a letter: kubectl's specs have none)
_LETTER_ESCAPE = re.compile(rb"\\u00(?:6[14-9a-fA-F]|4[eE])")


def _spec_of(raw: Raw) -> tuple[_Spec, str]:
    """The spec of a pod and its node.

    Replicas are keyed by their text without its `"nodeName": "<node>"` (and where that was cut),
    under which a spec is kept only when the cut is certainly its own nodeName: it names a node,
    its text writes no letter of "nodeName" as an escape (so the key is written as it is) and
    holds `"nodeName"` once. The text of a pod with the same key is then that text with another
    node written in the same place (a string without escapes or control characters: valid where
    the first was), so that is its own nodeName too, and the rest of its spec is the first one's.
    Any other spec is keyed by its whole text and its node, decoded."""
    text = bytes(raw)
    m = _NODE_NAME.search(text)
    if m is not None and m.end(1) > m.start(1):
        at, end = m.span()
        spec = _SPECS.get((at, text[:at] + text[end:]))
        if spec is not None:
            return spec, m.group(1).decode()
    try:
        node = _DECODE_NODE(text).nodeName
    except DECODE_ERRORS:
        raise _Bad from None
    node = node if isinstance(node, str) else ""
    key: Any = (node, text)
    spec = _SPECS.get(key)
    if spec is None:
        spec = _Spec(_checked(text), bool(node))
        if (
            node  # a pod with no node is no replica of one with a node (spec_entry reads has_node)
            and m is not None
            and node == m.group(1).decode()
            and text.count(b'"nodeName"') == 1
            and not (b"\\" in text and _LETTER_ESCAPE.search(text))
        ):
            at, end = m.span()
            key = (at, text[:at] + text[end:])  # its own nodeName, cut (see above)
        _keep(_SPECS, key, len(text), spec)
    return spec, node


def _check_fields(entries: list[_ManagedFields] | None | UnsetType) -> None:
    if not entries:
        return
    for e in entries:
        raw = e.fieldsV1
        if raw is not UNSET:
            text = bytes(raw)
            if text not in _FIELDS_CHECKED:
                _checked(text)
                _keep(_FIELDS_CHECKED, text, len(text))


# --- a run ----------------------------------------------------------------------------------


class _Run:
    """The text of a run of items, decoded into dicts only when one of its pods needs it."""

    __slots__ = ("text", "items")

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[Any] | None = None

    def item(self, i: int) -> dict[str, Any]:
        if self.items is None:
            self.items = MSGSPEC_DECODE("[" + self.text + "]")
        item: dict[str, Any] = self.items[i]
        return item


# Document's own slot: a LazyPod's body is a property over it
_BODY: Any = vars(Document)["body"]


class LazyPod(Document):
    """A Pod item of a run that the fast conversion handed back: its ``body``, the item's dict as
    the generic path decodes it, is made from the run's text when something asks for it."""

    __slots__ = ("run", "index")
    kind = "Pod"
    api_version = "v1"

    def __init__(self, source: str, run: _Run, index: int) -> None:
        self.source = source
        self.run = run
        self.index = index

    @property
    def body(self) -> dict[str, Any]:
        try:
            body: dict[str, Any] = _BODY.__get__(self, LazyPod)
        except AttributeError:
            body = self.run.item(self.index)
            _BODY.__set__(self, body)
        return body

    @body.setter
    def body(self, value: dict[str, Any]) -> None:
        _BODY.__set__(self, value)


class TypedRun(ItemRun):
    """The pods of a run, in order: each the Pod built under ``rules``, or None where the fast
    conversion handed it back (``document(k)`` is then its document, read as any other). It
    has no body of its own."""

    __slots__ = ("pods", "sources", "rules", "run")
    kind = "Pod"
    api_version = "v1"

    def __init__(self, pods: list[Pod | None], sources: list[str], rules: PodRules, run: _Run) -> None:
        self.source = sources[0] if sources else ""
        self.pods = pods
        self.sources = sources
        self.rules = rules
        self.run = run

    def __len__(self) -> int:
        return len(self.pods)

    def document(self, k: int) -> Document:
        return LazyPod(self.sources[k], self.run, k)


class PodRuns:
    """files.PodRuns for the pods of one release's rules (parse.pod's ``rules``)."""

    __slots__ = ("rules",)

    def __init__(self, rules: PodRules) -> None:
        self.rules = rules

    def __call__(self, run: str, where: str, first: int, kind: str, api_version: str) -> TypedRun | None:
        """The pods of a run (the text between a List's brackets; its first item is item
        ``first`` of the List at ``where``, and an item that names no kind or apiVersion is a
        ``kind`` of ``api_version``), when its items are all v1 Pods the schema holds and the run
        passes every test of the module's doc; None: decode it generically."""
        try:
            items = _DECODE_RUN("[" + run + "]")
            _ENCODE_INTO(items, _ENCODED)
            if not keys_once(run, _ENCODED):
                return None
            rules = self.rules
            pods: list[Pod | None] = []
            sources: list[str] = []
            for i, item in enumerate(items):
                meta = item.metadata
                raw_spec = item.spec
                if (
                    (item.kind or kind) != "Pod"
                    or (item.apiVersion or api_version) != "v1"
                    or type(raw_spec) is not Raw
                    or type(meta) is not _Meta
                ):
                    return None
                if meta.managedFields:
                    _check_fields(meta.managedFields)
                spec, node = _spec_of(raw_spec)
                source = f"{where} (items[{first + i}])"
                sources.append(source)
                pods.append(_convert(item, meta, spec, node, source, rules))
            return TypedRun(pods, sources, rules, _Run(run))
        except (_Bad, *DECODE_ERRORS):
            return None


# --- conversion -------------------------------------------------------------------------------

_VALID_NAMESPACES: set[str] = set()
_EMPTY_STATUS = _Status()
_TIMES = f.TIMES
_FROM_TEMPLATE = parse.pod_from_template
_intern = parse.intern
_shared_map = parse.shared_map
_kept = parse.kept_annotations
_EMPTY_MAP: dict[str, Any] = parse.EMPTY_MAP
_UNUSUAL_CONDITIONS = ("DisruptionTarget", "PodResizePending")


def _seconds(value: str | None | UnsetType, path: str) -> float:
    """f.time_value of a metav1.Time (UNSET: absent)."""
    if type(value) is str:
        seconds = _TIMES.get(value)
        if seconds is not None:
            return seconds
    return f.time_value(None if value is UNSET else value, path)


def _owners(refs: list[_OwnerReference]) -> tuple[OwnerReference, ...]:
    """parse.owner_references of the pod's references, one tuple for all pods with equal ones."""
    if len(refs) == 1:  # most pods: one controller
        r = refs[0]
        key: tuple[Any, ...] = (r.apiVersion, r.kind, r.name, r.uid, r.controller)
    else:
        key = tuple([(r.apiVersion, r.kind, r.name, r.uid, r.controller) for r in refs])
    owners = _OWNERS.get(key)
    if owners is None:
        owners = tuple(
            OwnerReference(
                api_version=r.apiVersion if type(r.apiVersion) is str else "",
                kind=r.kind if type(r.kind) is str else "",
                name=r.name if type(r.name) is str else "",
                uid=r.uid if type(r.uid) is str else "",
                controller=r.controller is True,
            )
            for r in refs
        )
        _keep(_OWNERS, key, 64 * len(refs), owners)
    return owners


def _convert(item: _Pod, meta: _Meta, spec: _Spec, node: str, source: str, rules: PodRules) -> Pod | None:
    """The Pod parse.pod builds of the item's dict (validate=False), or None: read the dict."""
    if spec.generic:
        return None
    name = meta.name
    if type(name) is not str or not name or not valid_dns1123_subdomain(name):
        return None  # generateName, a null name: the generic path names it, or refuses it
    namespace = meta.namespace
    if type(namespace) is not str or not namespace:
        namespace = "default"
    elif namespace not in _VALID_NAMESPACES:
        if is_dns1123_label(namespace):
            return None
        _VALID_NAMESPACES.add(namespace)
    status = item.status
    if type(status) is not _Status:
        status = _EMPTY_STATUS
    if (
        status.resourceClaimStatuses
        or (status.resources is not UNSET and status.resources is not None)
        or (status.allocatedResources is not UNSET and status.allocatedResources is not None)
    ):
        return None  # resource claims, resources the pod reports: the generic path
    for statuses in (status.containerStatuses, status.initContainerStatuses):
        if statuses:
            for cs in statuses:
                if cs.resources is not UNSET or cs.allocatedResources is not UNSET:
                    return None  # a resized container
    target, reason = False, ""
    conditions = status.conditions
    if conditions:
        for c in conditions:
            if c.type in _UNUSUAL_CONDITIONS:
                target, reason, infeasible = parse.pod_conditions((c.type, c.status, c.reason) for c in conditions)
                if infeasible:
                    return None
                break
    refs = meta.ownerReferences
    labels = meta.labels
    annotations = meta.annotations
    uid = meta.uid
    phase = status.phase
    nominated = status.nominatedNodeName
    deletion = meta.deletionTimestamp
    try:
        created = _seconds(meta.creationTimestamp, "metadata.creationTimestamp")
        started = _seconds(status.startTime, "status.startTime")
        own = (
            _intern(namespace),
            name,
            uid if type(uid) is str else "",
            _shared_map(labels) if labels else _EMPTY_MAP,
            _kept(annotations) if annotations else _EMPTY_MAP,
            _owners(refs) if refs else (),
            created,
            deletion is not None and deletion is not UNSET,
            _intern(node),
            _intern(phase) if type(phase) is str else "",
            nominated if type(nominated) is str else "",
            started,
            target,
        )
        entry = spec.entry
        if entry is not None and len(entry) == 3 and entry[1] is rules:
            # a plain replica of a spec built before: parse.finish_pod's template
            return _FROM_TEMPLATE(entry[2], *own, source, (), _EMPTY_MAP, reason)
        if entry is None:
            entry = spec.entry = parse.spec_entry(spec.spec, spec.has_node)
            spec.spec = None
        return parse.finish_pod(entry, rules, own, reason, _EMPTY_MAP, False, None, None, source, (), _EMPTY_MAP)
    except FieldError:
        spec.generic = spec.entry is None  # a spec the API server refuses: its pods read as dicts
        return None
