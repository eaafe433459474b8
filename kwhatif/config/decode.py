"""Strict decoding of a KubeSchedulerConfiguration document against the release's v1 types, with
the texts of Go's JSON decoder (cmd/kube-scheduler/app/options/configfile.go, the versioning codec
and DecodeNestedObjects).

A type error stops at once; unknown and duplicate fields are collected and reported only after
the plugin args were decoded, as the versioning codec does. The args of plugins with an args kind
(``<Name>Args``) are decoded the same way into TypedArgs; other args stay raw data (a
runtime.Unknown). The result is plain data: null means absent, as for Go's pointers and slices.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kwhatif.config.errors import field_error, join, render
from kwhatif.config.reader import ALIAS_EXPANSION_FACTOR, ALIAS_EXPANSION_FLOOR, JsonFloat, StrictDocument, json_object
from kwhatif.config.types import (
    API_VERSION,
    BALANCED_ALLOCATION,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    GROUP,
    INTER_POD_AFFINITY,
    KIND,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    PLUGIN_SET_FIELDS,
    POD_TOPOLOGY_SPREAD,
    VOLUME_BINDING,
)
from kwhatif.errors import ConfigError
from kwhatif.gocompat import go_quote, parse_go_duration
from kwhatif.release.versions import SchedulerVersion

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


@dataclass(frozen=True, slots=True)
class _Scalar:
    go: str


@dataclass(frozen=True, slots=True)
class _List:
    item: _Type

    @property
    def go(self) -> str:
        return f"[]{self.item.go}"


@dataclass(frozen=True, slots=True)
class _Map:
    value: _Type

    @property
    def go(self) -> str:
        return f"map[string]{self.value.go}"


@dataclass(frozen=True, slots=True)
class _Struct:
    go: str
    fields: Mapping[str, _Type]


_Type = _Scalar | _List | _Map | _Struct

_INT32_T = _Scalar("int32")
_INT64_T = _Scalar("int64")
_FLOAT32_T = _Scalar("float32")
_BOOL_T = _Scalar("bool")
_STRING_T = _Scalar("string")
_DURATION_T = _Scalar("v1.Duration")
_BYTES_T = _Scalar("[]uint8")
_RAW_T = _Scalar("runtime.RawExtension")
_TYPE_META = {"apiVersion": _STRING_T, "kind": _STRING_T}

_PLUGIN_T = _Struct("v1.Plugin", {"name": _STRING_T, "weight": _INT32_T})
_PLUGIN_SET_T = _Struct("v1.PluginSet", {"enabled": _List(_PLUGIN_T), "disabled": _List(_PLUGIN_T)})
_PLUGINS_T = _Struct("v1.Plugins", {f: _PLUGIN_SET_T for f in PLUGIN_SET_FIELDS})
_PLUGIN_CONFIG_T = _Struct("v1.PluginConfig", {"name": _STRING_T, "args": _RAW_T})
_PROFILE_T = _Struct(
    "v1.KubeSchedulerProfile",
    {
        "schedulerName": _STRING_T,
        "percentageOfNodesToScore": _INT32_T,
        "plugins": _PLUGINS_T,
        "pluginConfig": _List(_PLUGIN_CONFIG_T),
    },
)
_LEADER_ELECTION_T = _Struct(
    "v1alpha1.LeaderElectionConfiguration",
    {
        "leaderElect": _BOOL_T,
        "leaseDuration": _DURATION_T,
        "renewDeadline": _DURATION_T,
        "retryPeriod": _DURATION_T,
        "resourceLock": _STRING_T,
        "resourceName": _STRING_T,
        "resourceNamespace": _STRING_T,
    },
)
_CLIENT_CONNECTION_T = _Struct(
    "v1alpha1.ClientConnectionConfiguration",
    {
        "kubeconfig": _STRING_T,
        "acceptContentTypes": _STRING_T,
        "contentType": _STRING_T,
        "qps": _FLOAT32_T,
        "burst": _INT32_T,
    },
)
_EXTENDER_T = _Struct(
    "v1.Extender",
    {
        "urlPrefix": _STRING_T,
        "filterVerb": _STRING_T,
        "preemptVerb": _STRING_T,
        "prioritizeVerb": _STRING_T,
        "weight": _INT64_T,
        "bindVerb": _STRING_T,
        "enableHTTPS": _BOOL_T,
        "tlsConfig": _Struct(
            "v1.ExtenderTLSConfig",
            {
                "insecure": _BOOL_T,
                "serverName": _STRING_T,
                "certFile": _STRING_T,
                "keyFile": _STRING_T,
                "caFile": _STRING_T,
                "certData": _BYTES_T,
                "keyData": _BYTES_T,
                "caData": _BYTES_T,
            },
        ),
        "httpTimeout": _DURATION_T,
        "nodeCacheCapable": _BOOL_T,
        "managedResources": _List(
            _Struct("v1.ExtenderManagedResource", {"name": _STRING_T, "ignoredByScheduler": _BOOL_T})
        ),
        "ignorable": _BOOL_T,
    },
)
_CONFIG_T = _Struct(
    "v1.KubeSchedulerConfiguration",
    {
        **_TYPE_META,
        "parallelism": _INT32_T,
        "leaderElection": _LEADER_ELECTION_T,
        "clientConnection": _CLIENT_CONNECTION_T,
        "enableProfiling": _BOOL_T,
        "enableContentionProfiling": _BOOL_T,
        "percentageOfNodesToScore": _INT32_T,
        "podInitialBackoffSeconds": _INT64_T,
        "podMaxBackoffSeconds": _INT64_T,
        "profiles": _List(_PROFILE_T),
        "extenders": _List(_EXTENDER_T),
        "delayCacheUntilActive": _BOOL_T,
    },
)

# v1.Plugins gained placementGenerate and placementScore in 1.36 (Behaviour.placement_plugins).
_PLACEMENT_POINTS = ("placementGenerate", "placementScore")
_PLUGINS_BEFORE_PLACEMENT_T = _Struct(
    "v1.Plugins", {f: _PLUGIN_SET_T for f in PLUGIN_SET_FIELDS if f not in _PLACEMENT_POINTS}
)
_CONFIG_BEFORE_PLACEMENT_T = _Struct(
    _CONFIG_T.go,
    {
        **_CONFIG_T.fields,
        "profiles": _List(_Struct(_PROFILE_T.go, {**_PROFILE_T.fields, "plugins": _PLUGINS_BEFORE_PLACEMENT_T})),
    },
)


def _config_type(version: SchedulerVersion) -> _Struct:
    return _CONFIG_T if version.behaviour.placement_plugins else _CONFIG_BEFORE_PLACEMENT_T


# core/v1 types embedded in plugin args.
_SELECTOR_REQUIREMENT_T = _Struct(
    "v1.NodeSelectorRequirement", {"key": _STRING_T, "operator": _STRING_T, "values": _List(_STRING_T)}
)
_NODE_SELECTOR_TERM_T = _Struct(
    "v1.NodeSelectorTerm",
    {"matchExpressions": _List(_SELECTOR_REQUIREMENT_T), "matchFields": _List(_SELECTOR_REQUIREMENT_T)},
)
_NODE_AFFINITY_T = _Struct(
    "v1.NodeAffinity",
    {
        "requiredDuringSchedulingIgnoredDuringExecution": _Struct(
            "v1.NodeSelector", {"nodeSelectorTerms": _List(_NODE_SELECTOR_TERM_T)}
        ),
        "preferredDuringSchedulingIgnoredDuringExecution": _List(
            _Struct("v1.PreferredSchedulingTerm", {"weight": _INT32_T, "preference": _NODE_SELECTOR_TERM_T})
        ),
    },
)
_LABEL_SELECTOR_T = _Struct(
    "v1.LabelSelector",
    {
        "matchLabels": _Map(_STRING_T),
        "matchExpressions": _List(
            _Struct(
                "v1.LabelSelectorRequirement",
                {"key": _STRING_T, "operator": _STRING_T, "values": _List(_STRING_T)},
            )
        ),
    },
)
_TOPOLOGY_SPREAD_CONSTRAINT_T = _Struct(
    "v1.TopologySpreadConstraint",
    {
        "maxSkew": _INT32_T,
        "topologyKey": _STRING_T,
        "whenUnsatisfiable": _STRING_T,
        "labelSelector": _LABEL_SELECTOR_T,
        "minDomains": _INT32_T,
        "nodeAffinityPolicy": _STRING_T,
        "nodeTaintsPolicy": _STRING_T,
        "matchLabelKeys": _List(_STRING_T),
    },
)
_RESOURCE_SPEC_T = _Struct("v1.ResourceSpec", {"name": _STRING_T, "weight": _INT64_T})
_SHAPE_POINT_T = _Struct("v1.UtilizationShapePoint", {"utilization": _INT32_T, "score": _INT32_T})

_ARGS_TYPES: dict[str, _Struct] = {
    DEFAULT_PREEMPTION: _Struct(
        "v1.DefaultPreemptionArgs",
        {**_TYPE_META, "minCandidateNodesPercentage": _INT32_T, "minCandidateNodesAbsolute": _INT32_T},
    ),
    INTER_POD_AFFINITY: _Struct(
        "v1.InterPodAffinityArgs",
        {**_TYPE_META, "hardPodAffinityWeight": _INT32_T, "ignorePreferredTermsOfExistingPods": _BOOL_T},
    ),
    NODE_AFFINITY: _Struct("v1.NodeAffinityArgs", {**_TYPE_META, "addedAffinity": _NODE_AFFINITY_T}),
    BALANCED_ALLOCATION: _Struct(
        "v1.NodeResourcesBalancedAllocationArgs", {**_TYPE_META, "resources": _List(_RESOURCE_SPEC_T)}
    ),
    NODE_RESOURCES_FIT: _Struct(
        "v1.NodeResourcesFitArgs",
        {
            **_TYPE_META,
            "ignoredResources": _List(_STRING_T),
            "ignoredResourceGroups": _List(_STRING_T),
            "scoringStrategy": _Struct(
                "v1.ScoringStrategy",
                {
                    "type": _STRING_T,
                    "resources": _List(_RESOURCE_SPEC_T),
                    "requestedToCapacityRatio": _Struct(
                        "v1.RequestedToCapacityRatioParam", {"shape": _List(_SHAPE_POINT_T)}
                    ),
                },
            ),
        },
    ),
    POD_TOPOLOGY_SPREAD: _Struct(
        "v1.PodTopologySpreadArgs",
        {
            **_TYPE_META,
            "defaultConstraints": _List(_TOPOLOGY_SPREAD_CONSTRAINT_T),
            "defaultingType": _STRING_T,
        },
    ),
    VOLUME_BINDING: _Struct(
        "v1.VolumeBindingArgs", {**_TYPE_META, "bindTimeoutSeconds": _INT64_T, "shape": _List(_SHAPE_POINT_T)}
    ),
}
# DynamicResourcesArgs joined the v1 scheme in 1.34, its bindingTimeout in 1.35.
_DYNAMIC_RESOURCES_T = _Struct("v1.DynamicResourcesArgs", {**_TYPE_META, "filterTimeout": _DURATION_T})
_DYNAMIC_RESOURCES_BINDING_T = _Struct(
    "v1.DynamicResourcesArgs", {**_TYPE_META, "filterTimeout": _DURATION_T, "bindingTimeout": _DURATION_T}
)


def args_types(version: SchedulerVersion) -> dict[str, _Struct]:
    """The args kinds of the release's v1 scheme, by plugin name."""
    types = dict(_ARGS_TYPES)
    b = version.behaviour
    if b.dynamic_resources_args:
        types[DYNAMIC_RESOURCES] = (
            _DYNAMIC_RESOURCES_BINDING_T if b.dynamic_resources_binding_timeout else _DYNAMIC_RESOURCES_T
        )
    return types


def _v1_kinds(version: SchedulerVersion) -> frozenset[str]:
    """Every kind the release's v1 scheme knows: a document or args of another kind is "not registered"."""
    return frozenset({KIND} | {f"{name}Args" for name in args_types(version)})


def _json_kind(v: Any) -> str:
    """How Go's JSON decoder names a value it cannot store."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _json_key(k: Any) -> str:
    # sigs.k8s.io/yaml turns non-string YAML keys into their JSON text.
    if isinstance(k, str):
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if k is None:
        return "null"
    return str(k)


class _Decoder:
    """Strict decoding of plain YAML/JSON data against a _Type into plain data (null means absent,
    as it does for Go's pointers and slices). Type errors raise; unknown and duplicate fields are
    collected in ``strict``."""

    def __init__(self, budget: int) -> None:
        self.strict: list[ConfigError] = []
        self._budget = budget

    def _tick(self) -> None:
        # Aliases share one Python object per anchor, so a "billion laughs" document costs nothing
        # to load and only explodes when walked: count the values walked instead.
        self._budget -= 1
        if self._budget < 0:
            raise ConfigError("invalid YAML: aliases expand to too many values (an alias bomb?)")

    def _type_error(self, v: Any, go: str, path: str) -> ConfigError:
        what = _json_kind(v)
        if isinstance(v, float) and what == "number":
            what = f"number {v.text if isinstance(v, JsonFloat) else render(v)}"
        return field_error(path, f"cannot unmarshal {what} into Go value of type {go}")

    def decode(self, v: Any, t: _Type, path: str) -> Any:
        self._tick()
        if isinstance(t, _Struct):
            return self._struct(v, t, path)
        if isinstance(t, _List):
            if not isinstance(v, list):
                raise self._type_error(v, t.go, path)
            return [self._element(x, t.item, f"{path}[{i}]") for i, x in enumerate(v)]
        if isinstance(t, _Map):
            if not isinstance(v, dict):
                raise self._type_error(v, t.go, path)
            self._note_duplicates(v, path)
            return {_json_key(k): self._element(x, t.value, join(path, _json_key(k))) for k, x in v.items()}
        return self._scalar(v, t, path)

    def _element(self, v: Any, t: _Type, path: str) -> Any:
        if v is None:  # a null list item or map value is the type's zero value
            if t is _DURATION_T:
                raise field_error(path, 'time: invalid duration ""')
            return _zero(t)
        return self.decode(v, t, path)

    def _note_duplicates(self, v: Any, path: str) -> None:
        for k in getattr(v, "duplicates", ()):
            self.strict.append(field_error(path, f"duplicate field {go_quote(k)}"))

    def _struct(self, v: Any, t: _Struct, path: str) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise self._type_error(v, t.go, path)
        self._note_duplicates(v, path)
        out: dict[str, Any] = {}
        for k, x in v.items():
            key = _json_key(k)
            ft = t.fields.get(key)
            if ft is None:
                # Go's strict decoder matches field names case-sensitively and reports the rest.
                self.strict.append(field_error(path, f"unknown field {go_quote(key)}"))
                continue
            if x is None:
                if ft is _DURATION_T:
                    raise field_error(join(path, key), 'time: invalid duration ""')
                continue
            out[key] = self.decode(x, ft, join(path, key))
        return out

    def _scalar(self, v: Any, t: _Scalar, path: str) -> Any:
        if t is _RAW_T:
            return self.raw(v, path)
        if t is _INT32_T or t is _INT64_T:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self._type_error(v, t.go, path)
            if isinstance(v, float):
                # A YAML 2.0 reaches Go's JSON decoder as 2, a JSON 2.0 does not.
                if isinstance(v, JsonFloat) or not math.isfinite(v) or not v.is_integer():
                    raise self._type_error(v, t.go, path)
                v = int(v)
            lo, hi = _INT32 if t is _INT32_T else _INT64
            if not lo <= v <= hi:
                raise field_error(path, f"cannot unmarshal number {v} into Go value of type {t.go}")
            return v
        if t is _FLOAT32_T:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise self._type_error(v, t.go, path)
            return float(v)
        if t is _BOOL_T:
            if not isinstance(v, bool):
                raise self._type_error(v, t.go, path)
            return v
        if not isinstance(v, str):
            raise self._type_error(v, "string", path)
        if t is _DURATION_T:
            try:
                return parse_go_duration(v)
            except ValueError as e:
                raise field_error(path, str(e)) from None
        if t is _BYTES_T:
            try:
                base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise field_error(path, "illegal base64 data") from None
        return v

    def raw(self, v: Any, path: str) -> Any:
        """Arbitrary JSON data (a RawExtension), with keys as strings."""
        self._tick()
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise field_error(path, f"json: unsupported value: {v}")
            return v
        if isinstance(v, list):
            return [self.raw(x, f"{path}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            out = json_object([(_json_key(k), self.raw(x, join(path, _json_key(k)))) for k, x in v.items()])
            # Typed args are decoded from this copy later and must still see the JSON duplicates.
            out.duplicates = list(getattr(v, "duplicates", ()))
            return out
        raise field_error(path, f"unsupported YAML value of type {type(v).__name__} (only plain YAML is accepted)")


def _zero(t: _Type) -> Any:
    if isinstance(t, _Struct):
        return {}
    if isinstance(t, (_List, _Map)):
        return None
    return {"int32": 0, "int64": 0, "float32": 0.0, "bool": False}.get(t.go, "")


def _split_api_version(api_version: str) -> tuple[str, str]:
    """schema.ParseGroupVersion."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ConfigError(f"unexpected GroupVersion string: {api_version}")


def _type_meta(body: Mapping[str, Any], path: str) -> tuple[str, str]:
    out = []
    for key in ("apiVersion", "kind"):
        v = body.get(key)
        if v is not None and not isinstance(v, str):
            raise field_error(
                join(path, key),
                f"couldn't get version/kind: cannot unmarshal {_json_kind(v)} into Go value of type string",
            )
        out.append(v or "")
    return out[0], out[1]


def decode_document(doc: StrictDocument, version: SchedulerVersion) -> dict[str, Any]:
    body = doc.body
    if body is None:
        raise ConfigError(f"Object 'Kind' is missing: the file holds no {KIND}")
    if not isinstance(body, dict):
        raise ConfigError(f"couldn't get version/kind: the document is {_article(_json_kind(body))}, not an object")
    # the bound the loader puts on alias expansion of cluster files (see _Decoder._tick)
    decoder = _Decoder(max(ALIAS_EXPANSION_FLOOR, ALIAS_EXPANSION_FACTOR * doc.size))
    api_version, kind = _type_meta(body, "")
    if not kind:
        raise ConfigError("Object 'Kind' is missing", field="kind")
    if not api_version:
        raise ConfigError("Object 'apiVersion' is missing", field="apiVersion")
    group, api_group_version = _split_api_version(api_version)
    if (group, api_group_version) != (GROUP, "v1") or kind not in _v1_kinds(version):
        hint = (
            f" (kube-scheduler v1.{version.minor} reads {API_VERSION})"
            if group == GROUP and api_group_version != "v1"
            else ""
        )
        raise ConfigError(f'no kind "{kind}" is registered for version "{api_version}"{hint}')
    if kind != KIND:
        raise ConfigError(f"couldn't decode as {KIND}, got {api_version}, Kind={kind}")
    # YAMLToJSONStrict runs before the JSON decoder, so its duplicate keys come first.
    decoder.strict.extend(ConfigError(f"invalid YAML: {d}") for d in doc.yaml_duplicates)
    cfg: dict[str, Any] = decoder.decode(body, _config_type(version), "")
    # DecodeNestedObjects: typed args, in profile and pluginConfig order.
    for i, prof in enumerate(cfg.get("profiles") or ()):
        for j, pc in enumerate(prof.get("pluginConfig") or ()):
            pc["args"] = _decode_args(
                decoder, pc.get("name", ""), pc.get("args"), f"profiles[{i}].pluginConfig[{j}].args", version
            )
    if decoder.strict:
        raise decoder.strict[0]
    return cfg


@dataclass(slots=True)
class TypedArgs:
    """Args of a plugin with an args kind, decoded; ``data`` lacks apiVersion and kind."""

    data: dict[str, Any]


def _decode_args(decoder: _Decoder, name: str, raw: Any, path: str, release: SchedulerVersion) -> Any:
    t = args_types(release).get(name)
    if t is None:
        return raw  # runtime.Unknown: out-of-tree plugins and in-tree plugins without args
    kind = f"{name}Args"
    if raw is None:
        raw = {}  # no args: an empty object of the kind, defaulted below
    if not isinstance(raw, dict):
        raise field_error(
            path, f"couldn't get version/kind: cannot unmarshal {_json_kind(raw)} into Go value of type {t.go}"
        )
    api_version, got = _type_meta(raw, path)
    got = got or kind
    group, version = _split_api_version(api_version)
    if not group and not version:
        group, version = GROUP, "v1"
    elif not version and group == GROUP:
        version = "v1"
    if (group, version) != (GROUP, "v1") or got not in _v1_kinds(release):
        gv = f"{group}/{version}" if group else version
        raise field_error(path, f'decoding args for plugin {name}: no kind "{got}" is registered for version "{gv}"')
    data = decoder.decode(raw, t, path)
    if got != kind:
        raise field_error(path, f"args for plugin {name} were not of type {kind}.{GROUP}, got {got}.{GROUP}")
    data.pop("apiVersion", None)
    data.pop("kind", None)
    return TypedArgs(data)
