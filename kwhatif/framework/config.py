"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) decoded, defaulted and validated the
way the selected kube-scheduler release does it (cmd/kube-scheduler/app/options/configfile.go, then
ValidateKubeSchedulerConfiguration). What differs between releases (args kinds, default plugins,
refused plugin names, message wording) is read from the release's profile (kwhatif/versions.py).

Upstream's order is kept, because it decides which error a broken file reports:

1. the document: JSON when its first non-space character is ``{`` (the JSON serializer claims the
   data), YAML otherwise;
2. strict decoding against the v1 types. A type error stops at once; unknown and duplicate fields
   are collected and reported only after the plugin args were decoded, as the versioning codec does;
3. the args of plugins that have an args kind (``<Name>Args``) are decoded the same way. Other args
   stay raw data (a runtime.Unknown), which no plugin without an args kind reads;
4. defaults (pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go): plugin sets merged
   with the default multiPoint list, args defaulted field by field, full default args added for
   enabled plugins that have no pluginConfig entry;
5. validation (validation/validation.go, validation_pluginargs.go). Where upstream aggregates
   several errors, the first one in its order is reported.

Plugin constructors re-check their own args, and the framework (runtime.py) rejects unknown plugins,
duplicate registrations and a missing queue sort or bind plugin, as upstream does later.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import yaml

from kwhatif.api.resources import is_extended
from kwhatif.api.names import is_qualified_name, is_valid_label_value
from kwhatif.load.files import ALIAS_EXPANSION_FACTOR, ALIAS_EXPANSION_FLOOR, os_errors
from kwhatif.errors import ConfigError
from kwhatif.framework import profile as _profile
from kwhatif.gocompat import format_go_duration, go_quote as _go_quote, parse_go_duration
from kwhatif.versions import SchedulerVersion, default_version
from kwhatif.framework.profile import (
    DEFAULT_SCHEDULER_NAME,
    PLUGIN_SET_FIELDS,
    PluginRef,
    PluginSet,
    Profile,
    SchedulerConfiguration,
)

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"

# Config files are small; this only keeps a wrong path (a disk image, a log) from being parsed.
MAX_CONFIG_BYTES = 16 * 1024 * 1024

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)

# Args kinds of the v1 scheme (pkg/scheduler/apis/config/register.go), by plugin name.
DEFAULT_PREEMPTION = "DefaultPreemption"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
VOLUME_BINDING = "VolumeBinding"
DYNAMIC_RESOURCES = "DynamicResources"


# --- errors in upstream's field.Error wording ----------------------------------------------------


def _error(path: str, body: str) -> ConfigError:
    return ConfigError(body, field=path or None)


def _go_str_slice(values: Sequence[str] | None) -> str:
    """A []string as fmt's %#v prints it."""
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_go_quote(v) for v in values) + "}"


def _render(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _invalid(path: str, value: object, detail: str, rendered: str | None = None) -> ConfigError:
    return _error(path, f"Invalid value: {rendered if rendered is not None else _render(value)}: {detail}")


def _required(path: str, detail: str = "") -> ConfigError:
    return _error(path, "Required value" + (f": {detail}" if detail else ""))


def _duplicate(path: str, rendered: str) -> ConfigError:
    return _error(path, f"Duplicate value: {rendered}")


def _forbidden(path: str, detail: str) -> ConfigError:
    return _error(path, f"Forbidden: {detail}")


def _not_supported(path: str, value: str, supported: Iterable[str]) -> ConfigError:
    values = ", ".join(_go_quote(s) for s in supported)
    return _error(path, f"Unsupported value: {_go_quote(value)}: supported values: {values}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# --- the document --------------------------------------------------------------------------------


class _JsonFloat(float):
    """A JSON number written with a fraction or exponent: Go never decodes it into an integer."""

    text: str

    def __new__(cls, text: str) -> "_JsonFloat":
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


class _JsonObject(dict[str, Any]):
    """A JSON object that remembers the keys given twice (the strict decoder rejects them)."""

    duplicates: list[str]


def _json_object(pairs: list[tuple[str, Any]]) -> _JsonObject:
    obj = _JsonObject()
    obj.duplicates = []
    for k, v in pairs:
        if k in obj:
            obj.duplicates.append(k)
        obj[k] = v
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON value {name}")


try:  # libyaml parses an order of magnitude faster; the constructor below stays in Python
    _BaseLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _BaseLoader = yaml.SafeLoader


class _StrictLoader(_BaseLoader):  # type: ignore[misc]
    """Safe YAML that records keys set twice in a mapping (YAMLToJSONStrict reports them) and keeps
    timestamps as strings (sigs.k8s.io/yaml converts them to JSON strings)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[str] = []

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    hashable = key not in seen
                except TypeError:
                    continue  # reported as an unsupported key by the constructor
                if not hashable:
                    self.duplicates.append(
                        f"line {key_node.start_mark.line + 1}: key {_go_quote(str(key))} already set in map"
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(slots=True)
class _Document:
    body: Any
    yaml_duplicates: list[str]
    size: int


def _parse_document(text: str) -> _Document:
    if text.startswith("\ufeff"):
        # Go does not skip a byte order mark, so such a file is never taken for JSON.
        text = text[1:]
        is_json = False
    else:
        is_json = text.lstrip()[:1] == "{"
    if is_json:
        try:
            body = json.loads(
                text, object_pairs_hook=_json_object, parse_float=_JsonFloat, parse_constant=_reject_constant
            )
        except json.JSONDecodeError as e:
            raise ConfigError(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
        except ValueError as e:
            raise ConfigError(f"invalid JSON: {e}") from None
        except RecursionError:
            raise ConfigError("invalid JSON: nested too deeply") from None
        return _Document(body, [], len(text))
    loader = _StrictLoader(text)
    docs: list[Any] = []
    try:
        while loader.check_data():
            docs.append(loader.get_data())
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = e.problem or e.context or "malformed"
        if isinstance(e, yaml.constructor.ConstructorError) and "tag" in (e.problem or ""):
            problem = f"{problem} (only plain YAML is accepted)"
        raise ConfigError(f"invalid YAML{where}: {problem}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"invalid YAML: {e}") from None
    except RecursionError:
        raise ConfigError("invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    docs = [d for d in docs if d is not None]
    if len(docs) > 1:
        # Upstream silently reads only the first document; a second one is almost certainly a
        # mistake (two configurations concatenated), so it is an error here.
        raise ConfigError(f"the file holds {len(docs)} YAML documents; a {KIND} file holds one")
    return _Document(docs[0] if docs else None, loader.duplicates, len(text))


# --- the v1 types, as strict decoding sees them --------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Scalar:
    go: str


@dataclass(frozen=True, slots=True)
class _List:
    item: "_Type"

    @property
    def go(self) -> str:
        return f"[]{self.item.go}"


@dataclass(frozen=True, slots=True)
class _Map:
    value: "_Type"

    @property
    def go(self) -> str:
        return f"map[string]{self.value.go}"


@dataclass(frozen=True, slots=True)
class _Struct:
    go: str
    fields: Mapping[str, "_Type"]


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


def _args_types(version: SchedulerVersion) -> dict[str, _Struct]:
    """The args kinds of the release's v1 scheme, by plugin name."""
    types = dict(_ARGS_TYPES)
    b = version.behaviour
    if b.dynamic_resources_args:
        types[DYNAMIC_RESOURCES] = _DYNAMIC_RESOURCES_BINDING_T if b.dynamic_resources_binding_timeout else _DYNAMIC_RESOURCES_T
    return types


def _v1_kinds(version: SchedulerVersion) -> frozenset[str]:
    """Every kind the release's v1 scheme knows: a document or args of another kind is "not registered"."""
    return frozenset({KIND} | {f"{name}Args" for name in _args_types(version)})


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
            what = f"number {v.text if isinstance(v, _JsonFloat) else _render(v)}"
        return _error(path, f"cannot unmarshal {what} into Go value of type {go}")

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
            return {_json_key(k): self._element(x, t.value, _join(path, _json_key(k))) for k, x in v.items()}
        return self._scalar(v, t, path)

    def _element(self, v: Any, t: _Type, path: str) -> Any:
        if v is None:  # a null list item or map value is the type's zero value
            if t is _DURATION_T:
                raise _error(path, 'time: invalid duration ""')
            return _zero(t)
        return self.decode(v, t, path)

    def _note_duplicates(self, v: Any, path: str) -> None:
        for k in getattr(v, "duplicates", ()):
            self.strict.append(_error(path, f"duplicate field {_go_quote(k)}"))

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
                self.strict.append(_error(path, f"unknown field {_go_quote(key)}"))
                continue
            if x is None:
                if ft is _DURATION_T:
                    raise _error(_join(path, key), 'time: invalid duration ""')
                continue
            out[key] = self.decode(x, ft, _join(path, key))
        return out

    def _scalar(self, v: Any, t: _Scalar, path: str) -> Any:
        if t is _RAW_T:
            return self.raw(v, path)
        if t is _INT32_T or t is _INT64_T:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self._type_error(v, t.go, path)
            if isinstance(v, float):
                # A YAML 2.0 reaches Go's JSON decoder as 2, a JSON 2.0 does not.
                if isinstance(v, _JsonFloat) or not math.isfinite(v) or not v.is_integer():
                    raise self._type_error(v, t.go, path)
                v = int(v)
            lo, hi = _INT32 if t is _INT32_T else _INT64
            if not lo <= v <= hi:
                raise _error(path, f"cannot unmarshal number {v} into Go value of type {t.go}")
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
                raise _error(path, str(e)) from None
        if t is _BYTES_T:
            try:
                base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise _error(path, "illegal base64 data") from None
        return v

    def raw(self, v: Any, path: str) -> Any:
        """Arbitrary JSON data (a RawExtension), with keys as strings."""
        self._tick()
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise _error(path, f"json: unsupported value: {v}")
            return v
        if isinstance(v, list):
            return [self.raw(x, f"{path}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            out = _json_object([(_json_key(k), self.raw(x, _join(path, _json_key(k)))) for k, x in v.items()])
            # Typed args are decoded from this copy later and must still see the JSON duplicates.
            out.duplicates = list(getattr(v, "duplicates", ()))
            return out
        raise _error(path, f"unsupported YAML value of type {type(v).__name__} (only plain YAML is accepted)")


def _zero(t: _Type) -> Any:
    if isinstance(t, _Struct):
        return {}
    if isinstance(t, (_List, _Map)):
        return None
    return {"int32": 0, "int64": 0, "float32": 0.0, "bool": False}.get(t.go, "")


# --- decoding ------------------------------------------------------------------------------------


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
            raise _error(
                _join(path, key),
                f"couldn't get version/kind: cannot unmarshal {_json_kind(v)} into Go value of type string",
            )
        out.append(v or "")
    return out[0], out[1]


def _decode_document(doc: _Document, version: SchedulerVersion) -> dict[str, Any]:
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
        hint = f" (kube-scheduler v1.{version.minor} reads {API_VERSION})" if group == GROUP and api_group_version != "v1" else ""
        raise ConfigError(f'no kind "{kind}" is registered for version "{api_version}"{hint}')
    if kind != KIND:
        raise ConfigError(f"couldn't decode as {KIND}, got {api_version}, Kind={kind}")
    # YAMLToJSONStrict runs before the JSON decoder, so its duplicate keys come first.
    decoder.strict.extend(ConfigError(f"invalid YAML: {d}") for d in doc.yaml_duplicates)
    cfg: dict[str, Any] = decoder.decode(body, _CONFIG_T, "")
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
class _TypedArgs:
    """Args of a plugin with an args kind, decoded; ``data`` lacks apiVersion and kind."""

    data: dict[str, Any]


def _decode_args(decoder: _Decoder, name: str, raw: Any, path: str, release: SchedulerVersion) -> Any:
    t = _args_types(release).get(name)
    if t is None:
        return raw  # runtime.Unknown: out-of-tree plugins and in-tree plugins without args
    kind = f"{name}Args"
    if raw is None:
        raw = {}  # no args: an empty object of the kind, defaulted below
    if not isinstance(raw, dict):
        raise _error(path, f"couldn't get version/kind: cannot unmarshal {_json_kind(raw)} into Go value of type {t.go}")
    api_version, got = _type_meta(raw, path)
    got = got or kind
    group, version = _split_api_version(api_version)
    if not group and not version:
        group, version = GROUP, "v1"
    elif not version and group == GROUP:
        version = "v1"
    if (group, version) != (GROUP, "v1") or got not in _v1_kinds(release):
        gv = f"{group}/{version}" if group else version
        raise _error(path, f'decoding args for plugin {name}: no kind "{got}" is registered for version "{gv}"')
    data = decoder.decode(raw, t, path)
    if got != kind:
        raise _error(path, f"args for plugin {name} were not of type {kind}.{GROUP}, got {got}.{GROUP}")
    data.pop("apiVersion", None)
    data.pop("kind", None)
    return _TypedArgs(data)


# --- defaults ------------------------------------------------------------------------------------


def _resource_specs(given: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if not given:
        return [dict(r) for r in _profile.DEFAULT_RESOURCE_SPEC]
    # A weight left out (or 0) becomes 1; any other value is kept for validation to judge.
    return [{"name": r.get("name", ""), "weight": r.get("weight") or 1} for r in given]


def _shape(given: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"utilization": p.get("utilization", 0), "score": p.get("score", 0)} for p in given]


def _default_fit(a: dict[str, Any]) -> dict[str, Any]:
    ss = a.get("scoringStrategy")
    if ss is None:
        strategy: dict[str, Any] = {"type": "LeastAllocated", "resources": _resource_specs(None)}
    else:
        # A strategy without a type keeps "" (the constructor then rejects it, as upstream's does).
        strategy = {"type": ss.get("type", ""), "resources": _resource_specs(ss.get("resources"))}
        rtcr = ss.get("requestedToCapacityRatio")
        if rtcr is not None:
            strategy["requestedToCapacityRatio"] = {"shape": _shape(rtcr.get("shape") or [])}
    return {
        "ignoredResources": list(a.get("ignoredResources") or []),
        "ignoredResourceGroups": list(a.get("ignoredResourceGroups") or []),
        "scoringStrategy": strategy,
    }


def _default_volume_binding(a: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"bindTimeoutSeconds": a.get("bindTimeoutSeconds", 600)}
    if "shape" in a:  # VolumeCapacityPriority is off: no default shape, a given one is rejected
        out["shape"] = _shape(a["shape"])
    return out


def _default_node_affinity(a: dict[str, Any]) -> dict[str, Any]:
    return {"addedAffinity": a["addedAffinity"]} if "addedAffinity" in a else {}


# SetDefaults_<Kind>Args over the decoded fields; the result holds every field of the kind.
_ARGS_DEFAULTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    DEFAULT_PREEMPTION: lambda a: {
        "minCandidateNodesPercentage": a.get("minCandidateNodesPercentage", 10),
        "minCandidateNodesAbsolute": a.get("minCandidateNodesAbsolute", 100),
    },
    INTER_POD_AFFINITY: lambda a: {
        "hardPodAffinityWeight": a.get("hardPodAffinityWeight", 1),
        "ignorePreferredTermsOfExistingPods": a.get("ignorePreferredTermsOfExistingPods", False),
    },
    NODE_AFFINITY: _default_node_affinity,
    BALANCED_ALLOCATION: lambda a: {"resources": _resource_specs(a.get("resources"))},
    NODE_RESOURCES_FIT: _default_fit,
    POD_TOPOLOGY_SPREAD: lambda a: {
        "defaultingType": a.get("defaultingType") or "System",
        "defaultConstraints": list(a.get("defaultConstraints") or []),
    },
    VOLUME_BINDING: _default_volume_binding,
}


def default_plugin_args(
    name: str, given: Mapping[str, Any] | None = None, version: SchedulerVersion | None = None
) -> dict[str, Any] | None:
    """The v1-defaulted args of plugin ``name`` in the release from the (decoded) fields given;
    None when the plugin has no args kind."""
    version = version or default_version()
    if name == DYNAMIC_RESOURCES:
        if not version.behaviour.dynamic_resources_args:
            return None
        return _profile.dynamic_resources_default_args(version, dict(given or {}))
    if name == VOLUME_BINDING and version.gate("StorageCapacityScoring"):
        # SetDefaults_VolumeBindingArgs: with the gate on, a missing shape prefers emptier nodes.
        out = _default_volume_binding(dict(given or {}))
        out.setdefault("shape", [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}])
        return out
    fn = _ARGS_DEFAULTS.get(name)
    return fn(dict(given or {})) if fn is not None else None


def _has_args_kind(name: str, version: SchedulerVersion) -> bool:
    return name in _args_types(version)


def _plugin_set(d: Mapping[str, Any] | None) -> PluginSet:
    if not d:
        return PluginSet()
    enabled = tuple(PluginRef(p.get("name", ""), p.get("weight")) for p in d.get("enabled") or ())
    disabled = tuple(p.get("name", "") for p in d.get("disabled") or ())
    return PluginSet(enabled, disabled)


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: a custom entry for a default plugin replaces it in place (weight included),
    disabled names (or "*") drop default entries, the other custom entries are appended."""
    disabled = custom.disabled + default.disabled
    off = set(disabled)
    # The last custom entry of a name wins, as in upstream's map; an earlier duplicate is appended
    # below and the framework then rejects the double registration.
    custom_index = {ref.name: i for i, ref in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in off:
        for ref in default.enabled:
            if ref.name in off:
                continue
            i = custom_index.get(ref.name)
            if i is not None:
                ref = custom.enabled[i]
                replaced.add(i)
            enabled.append(ref)
    enabled.extend(ref for i, ref in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(tuple(enabled), disabled)


def merge_plugins(custom: Mapping[str, Any] | None, version: SchedulerVersion | None = None) -> dict[str, PluginSet]:
    """mergePlugins over the release's getDefaultPlugins(), whose only set is multiPoint."""
    defaults = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    defaults["multiPoint"] = PluginSet(_profile.default_multi_point(version or default_version()))
    if custom is None:
        return defaults
    return {f: merge_plugin_set(defaults[f], _plugin_set(custom.get(f))) for f in PLUGIN_SET_FIELDS}


@dataclass(slots=True)
class _ProfileDraft:
    name: str | None  # None: not given
    percentage: int | None
    plugins: dict[str, PluginSet]
    # (name, args, typed) in upstream's order: the given entries, then defaults for enabled
    # plugins. Typed args are defaulted dicts, other args raw data (None when absent).
    config: list[tuple[str, Any, bool]]


def _default_profile(prof: Mapping[str, Any], version: SchedulerVersion) -> _ProfileDraft:
    plugins = merge_plugins(prof.get("plugins"), version)
    config: list[tuple[str, Any, bool]] = []
    existing: set[str] = set()
    for pc in prof.get("pluginConfig") or ():
        name = pc.get("name", "")
        existing.add(name)
        args = pc.get("args")
        if isinstance(args, _TypedArgs):
            config.append((name, default_plugin_args(name, args.data, version), True))
        else:
            config.append((name, args, False))
    enabled_names = sorted({ref.name for ps in plugins.values() for ref in ps.enabled})
    for name in enabled_names:
        if name not in existing and _has_args_kind(name, version):
            config.append((name, default_plugin_args(name, None, version), True))
    return _ProfileDraft(prof.get("schedulerName"), prof.get("percentageOfNodesToScore"), plugins, config)


# --- validation ----------------------------------------------------------------------------------


def _validate_leader_election(le: Mapping[str, Any], errs: list[ConfigError]) -> None:
    # RecommendedDefaultLeaderElectionConfiguration and the scheduler's own defaults, then
    # ValidateLeaderElectionConfiguration.
    lease = le.get("leaseDuration") or 15_000_000_000
    renew = le.get("renewDeadline") or 10_000_000_000
    retry = le.get("retryPeriod") or 2_000_000_000
    lock = le.get("resourceLock") or "leases"
    if not le.get("leaderElect", True):
        return
    path = "leaderElection"
    if lease <= 0:
        errs.append(_invalid(f"{path}.leaseDuration", None, "must be greater than zero", format_go_duration(lease)))
    if renew <= 0:
        errs.append(_invalid(f"{path}.renewDeadline", None, "must be greater than zero", format_go_duration(renew)))
    if retry <= 0:
        errs.append(_invalid(f"{path}.retryPeriod", None, "must be greater than zero", format_go_duration(retry)))
    if lease <= renew:
        errs.append(
            _invalid(
                f"{path}.leaseDuration", None, "LeaseDuration must be greater than RenewDeadline", format_go_duration(renew)
            )
        )
    if lock != "leases":
        errs.append(_invalid(f"{path}.resourceLock", lock, 'resourceLock value must be "leases"'))


def _validate_percentage(path: str, value: int | None, errs: list[ConfigError]) -> None:
    if value is not None and not 0 <= value <= 100:
        errs.append(_invalid(path, value, "not in valid range [0-100]"))


def _validate_label_name(path: str, name: str, errs: list[ConfigError]) -> None:
    errs.extend(_invalid(path, name, msg) for msg in is_qualified_name(name))


def _validate_default_preemption(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    pct, absolute = a["minCandidateNodesPercentage"], a["minCandidateNodesAbsolute"]
    pct_path, abs_path = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
    if not 0 <= pct <= 100:
        errs.append(_invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(_invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(_invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(_invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))


def _validate_inter_pod_affinity(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    w = a["hardPodAffinityWeight"]
    if not 0 <= w <= 100:
        errs.append(_invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]"))


_NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _validate_requirements(path: str, exprs: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    """nodeSelectorRequirementsAsSelector with labels.NewRequirement's checks."""
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values")
        if op not in _NODE_SELECTOR_OPERATORS:
            errs.append(_not_supported(f"{p}.operator", op, _NODE_SELECTOR_OPERATORS))
            continue
        key_errs = is_qualified_name(key)
        if key_errs:
            errs.append(_invalid(f"{p}.key", key, "; ".join(key_errs)))
        vals = values or []
        if op in ("In", "NotIn") and not vals:
            errs.append(_invalid(f"{p}.values", None, "for 'in', 'notin' operators, values set can't be empty", _go_str_slice(values)))
        elif op in ("Exists", "DoesNotExist") and vals:
            errs.append(_invalid(f"{p}.values", None, "values set must be empty for exists and does not exist", _go_str_slice(values)))
        elif op in ("Gt", "Lt"):
            if len(vals) != 1:
                errs.append(_invalid(f"{p}.values", None, "for 'Gt', 'Lt' operators, exactly one value is required", _go_str_slice(values)))
            for j, v in enumerate(vals):
                if not re.fullmatch(r"[+-]?[0-9]+", v) or not _INT64[0] <= int(v) <= _INT64[1]:
                    errs.append(_invalid(f"{p}.values[{j}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
        for j, v in enumerate(vals):
            value_errs = is_valid_label_value(v)
            if value_errs:
                errs.append(_invalid(f"{p}.values[{j}][{key}]", v, "; ".join(value_errs)))


def _validate_field_requirements(path: str, exprs: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    """nodeSelectorRequirementsAsFieldSelector: the key is not checked here."""
    for i, expr in enumerate(exprs):
        p = f"{path}[{i}]"
        op, values = expr.get("operator", ""), expr.get("values")
        if op in ("In", "NotIn"):
            if len(values or []) != 1:
                errs.append(_invalid(f"{p}.values", None, "must have one element", _go_str_slice(values)))
        else:
            errs.append(_not_supported(f"{p}.operator", op, ("In", "NotIn")))


def _validate_term(path: str, term: Mapping[str, Any], errs: list[ConfigError]) -> None:
    if term.get("matchExpressions"):
        _validate_requirements(f"{path}.matchExpressions", term["matchExpressions"], errs)
    if term.get("matchFields"):
        _validate_field_requirements(f"{path}.matchFields", term["matchFields"], errs)


def _is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def _validate_node_affinity(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    # nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms: only what the parser rejects
    # (no weight range, no "at least one term"), empty terms skipped.
    added = a.get("addedAffinity")
    if added is None:
        return
    required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        p = f"{path}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(required.get("nodeSelectorTerms") or ()):
            if not _is_empty_term(term):
                _validate_term(f"{p}[{i}]", term, errs)
    p = f"{path}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(added.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
        term = pref.get("preference") or {}
        if pref.get("weight", 0) == 0 or _is_empty_term(term):
            continue
        _validate_term(f"{p}[{i}]", term, errs)


def _validate_balanced_allocation(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    seen: set[str] = set()
    for i, r in enumerate(a["resources"]):
        p = f"{path}.resources[{i}]"
        if r["name"] in seen:
            errs.append(_duplicate(f"{p}.name", _go_quote(r["name"])))
        seen.add(r["name"])
        if r["weight"] != 1:
            errs.append(_invalid(f"{p}.weight", r["weight"], "must be 1"))


def _validate_pod_topology_spread(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    defaulting, constraints = a["defaultingType"], a["defaultConstraints"]
    if defaulting not in ("System", "List"):
        errs.append(_not_supported(f"{path}.defaultingType", defaulting, ("System", "List")))
    elif defaulting == "System" and constraints:
        errs.append(_invalid(f"{path}.defaultingType", defaulting, "when .defaultConstraints are not empty"))
    seen: list[tuple[str, str]] = []
    for i, c in enumerate(constraints):
        p = f"{path}.defaultConstraints[{i}]"
        skew = c.get("maxSkew", 0)
        if skew <= 0:
            errs.append(_invalid(f"{p}.maxSkew", skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey", "")
        if not key:
            errs.append(_required(f"{p}.topologyKey", "can not be empty"))
        else:
            _validate_label_name(f"{p}.topologyKey", key, errs)
        when = c.get("whenUnsatisfiable", "")
        if not when:
            errs.append(_required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(_not_supported(f"{p}.whenUnsatisfiable", when, ("DoNotSchedule", "ScheduleAnyway")))
        if "labelSelector" in c:
            errs.append(_forbidden(f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod"))
        if (key, when) in seen:
            errs.append(_duplicate(f"{path}.defaultConstraints[{i}]", _go_quote(f"{{{key}, {when}}}")))
        seen.append((key, when))


def _go_shape(points: list[dict[str, Any]]) -> str:
    items = ", ".join(
        f"config.UtilizationShapePoint{{Utilization:{p['utilization']}, Score:{p['score']}}}" for p in points
    )
    return "[]config.UtilizationShapePoint{" + items + "}"


def _validate_volume_binding(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    if a["bindTimeoutSeconds"] < 0:
        errs.append(
            _invalid(
                f"{path}.bindTimeoutSeconds",
                a["bindTimeoutSeconds"],
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if "shape" in a and not version.gate("StorageCapacityScoring"):
        errs.append(
            _invalid(
                f"{path}.shape",
                None,
                f"unexpected field `shape`, remove it or turn on the feature gate {_capacity_scoring_gate(version)}",
                _go_shape(a["shape"]),
            )
        )


def _capacity_scoring_gate(version: SchedulerVersion) -> str:
    """The gate that allows VolumeBindingArgs.shape: VolumeCapacityPriority, renamed in 1.33."""
    return "VolumeCapacityPriority" if version.has_gate("VolumeCapacityPriority") else "StorageCapacityScoring"


def _validate_dynamic_resources(path: str, a: Mapping[str, Any], errs: list[ConfigError], version: SchedulerVersion) -> None:
    """ValidateDynamicResourcesArgs (1.34+): each timeout is checked while its gate is on, and
    refused while it is off."""
    timeout = a.get("filterTimeout")
    if version.gate("DRASchedulerFilterTimeout"):
        if timeout is not None and timeout < 0:
            errs.append(_invalid(f"{path}.filterTimeout", None, "must be zero or positive", format_go_duration(timeout)))
    elif timeout is not None:
        errs.append(_forbidden(f"{path}.filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled"))
    if not version.behaviour.dynamic_resources_binding_timeout:
        return
    binding = a.get("bindingTimeout")
    if version.gate("DRADeviceBindingConditions") and version.gate("DRAResourceClaimDeviceStatus"):
        if binding is not None and binding < 1_000_000_000:
            errs.append(_invalid(f"{path}.bindingTimeout", None, "must be at least 1 second", format_go_duration(binding)))
    elif binding is not None:
        errs.append(
            _forbidden(
                f"{path}.bindingTimeout",
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
            )
        )


# validatePluginConfig's table. NodeResourcesFit is keyed "NodeResourcesFitArgs" upstream, so its
# args are never checked here, only by the plugin constructor.
_ARGS_VALIDATORS: dict[str, Callable[[str, Mapping[str, Any], list[ConfigError], SchedulerVersion], None]] = {
    DYNAMIC_RESOURCES: _validate_dynamic_resources,
    DEFAULT_PREEMPTION: _validate_default_preemption,
    INTER_POD_AFFINITY: _validate_inter_pod_affinity,
    NODE_AFFINITY: _validate_node_affinity,
    BALANCED_ALLOCATION: _validate_balanced_allocation,
    POD_TOPOLOGY_SPREAD: _validate_pod_topology_spread,
    VOLUME_BINDING: _validate_volume_binding,
}


def _go_plugin_set(ps: PluginSet) -> str:
    """A config.PluginSet as fmt's %#v prints it (weights 0 where none was given)."""

    def plugins(refs: Iterable[tuple[str, int]]) -> str:
        items = [f"config.Plugin{{Name:{_go_quote(n)}, Weight:{w}}}" for n, w in refs]
        return "[]config.Plugin{" + ", ".join(items) + "}" if items else "[]config.Plugin(nil)"

    return (
        f"config.PluginSet{{Enabled:{plugins((r.name, r.weight or 0) for r in ps.enabled)}, "
        f"Disabled:{plugins((n, 0) for n in ps.disabled)}}}"
    )


def _queue_sort_key(ps: PluginSet) -> tuple[tuple[tuple[str, int], ...], tuple[str, ...]]:
    # Compared as upstream's internal PluginSet: a missing weight is 0, disabled entries carry no weight.
    return tuple((r.name, r.weight or 0) for r in ps.enabled), ps.disabled


def _validate_common_queue_sort(drafts: list[_ProfileDraft], errs: list[ConfigError], version: SchedulerVersion) -> None:
    canon = drafts[0].plugins["queueSort"]
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(_invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled), "only one queue sort plugin can be enabled"))
    args: Any = None
    for n, a, _ in drafts[0].config:
        if name and n == name:
            args = a
    for i, d in enumerate(drafts[1:], start=1):
        curr = d.plugins["queueSort"]
        if _queue_sort_key(curr) != _queue_sort_key(canon):
            errs.append(
                _invalid(
                    f"profiles[{i}].plugins.queueSort", None, version.behaviour.queue_sort_mismatch_detail, _go_plugin_set(curr)
                )
            )
        for n, a, _ in d.config:
            if n == name and a != args:
                errs.append(_invalid(f"profiles[{i}].pluginConfig.args", a, "queueSort must be the same for all profiles"))


def _validate_extenders(extenders: list[dict[str, Any]], errs: list[ConfigError]) -> None:
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        p = f"extenders[{i}]"
        if ext.get("prioritizeVerb") and ext.get("weight", 0) <= 0:
            errs.append(_invalid(f"{p}.weight", ext.get("weight", 0), "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or ()):
            rp = f"{p}.managedResources[{j}].name"
            name = res.get("name", "")
            name_errs = [_invalid(rp, name, m) for m in is_qualified_name(name)]
            if not name_errs and (not is_extended(name) or is_qualified_name("requests." + name)):
                name_errs.append(_invalid(rp, name, "is an invalid extended resource name"))
            errs.extend(name_errs)
            if name in managed:
                errs.append(_invalid(rp, name, "duplicate extender managed resource name"))
            managed.add(name)
    if binders > 1:
        errs.append(_invalid("extenders", f"found {binders} extenders implementing bind", "only one extender can implement bind"))


def _invalid_plugin(path: str, name: str) -> ConfigError:
    """isPluginInvalid: a plugin the v1 API removed (the in-tree volume-limit plugins, from 1.31)."""
    return _invalid(path, name, f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")')


def _validate_invalid_plugins(path: str, d: _ProfileDraft, errs: list[ConfigError], version: SchedulerVersion) -> None:
    """validatePluginSetForInvalidPlugins over every extension point's enabled plugins, multiPoint
    excepted (upstream walks a map of the points; kwhatif takes them in field order)."""
    invalid = version.behaviour.config_invalid_plugins
    if not invalid:
        return
    for point in PLUGIN_SET_FIELDS:
        if point == "multiPoint":
            continue
        for k, ref in enumerate(d.plugins[point].enabled):
            if ref.name in invalid:
                errs.append(_invalid_plugin(f"{path}.plugins.{point}.enabled[{k}]", ref.name))


def _validate(cfg: Mapping[str, Any], drafts: list[_ProfileDraft], version: SchedulerVersion) -> None:
    """ValidateKubeSchedulerConfiguration, after defaulting; raises the first error."""
    errs: list[ConfigError] = []
    burst = (cfg.get("clientConnection") or {}).get("burst", 100) or 100
    if burst < 0:
        errs.append(_invalid("clientConnection.burst", burst, "must be non-negative"))
    _validate_leader_election(cfg.get("leaderElection") or {}, errs)
    parallelism = cfg.get("parallelism", 16)
    if parallelism <= 0:
        errs.append(_invalid("parallelism", parallelism, "should be an integer value greater than zero"))
    if not drafts:
        errs.append(_required("profiles"))
    else:
        names: dict[str, int] = {}
        for i, d in enumerate(drafts):
            path = f"profiles[{i}]"
            name = d.name or ""
            if not name:
                errs.append(_required(f"{path}.schedulerName"))
            _validate_percentage(f"{path}.percentageOfNodesToScore", d.percentage, errs)
            _validate_invalid_plugins(path, d, errs, version)
            seen: set[str] = set()
            for j, (n, args, typed) in enumerate(d.config):
                pc_path = f"{path}.pluginConfig[{j}]"
                if n in seen:
                    errs.append(_duplicate(pc_path, _go_quote(n)))
                seen.add(n)
                check = _ARGS_VALIDATORS.get(n)
                if n in version.behaviour.config_invalid_plugins:
                    errs.append(_invalid_plugin(pc_path, n))
                elif check is not None and typed:
                    check(f"{pc_path}.args", args, errs, version)
            if name in names:
                # Upstream prints the other field.Path with %#v (a struct and a pointer address);
                # its path is what that means.
                errs.append(_duplicate(f"{path}.schedulerName", f"profiles[{names[name]}].schedulerName"))
            names[name] = i
        _validate_common_queue_sort(drafts, errs, version)
    _validate_percentage("percentageOfNodesToScore", cfg.get("percentageOfNodesToScore"), errs)
    initial = cfg.get("podInitialBackoffSeconds", 1)
    maximum = cfg.get("podMaxBackoffSeconds", 10)
    if initial <= 0:
        errs.append(_invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if maximum < initial:
        errs.append(_invalid("podMaxBackoffSeconds", maximum, "must be greater than or equal to PodInitialBackoffSeconds"))
    _validate_extenders(cfg.get("extenders") or [], errs)
    if errs:
        raise errs[0]


# --- entry points --------------------------------------------------------------------------------


def parse_configuration(text: str, source: str, version: SchedulerVersion | None = None) -> SchedulerConfiguration:
    """Decode, default and validate the text of a KubeSchedulerConfiguration file as the release
    (default: kwhatif's default release) does."""
    try:
        return _parse(text, source, version or default_version())
    except ConfigError as e:
        raise e.with_context(source=source) from None
    except RecursionError:
        raise ConfigError("nested too deeply", source=source) from None


def _parse(text: str, source: str, version: SchedulerVersion) -> SchedulerConfiguration:
    cfg = _decode_document(_parse_document(text), version)
    profiles = cfg.get("profiles") or [{}]  # no profiles: one default profile
    drafts = [_default_profile(p, version) for p in profiles]
    if len(drafts) == 1 and drafts[0].name is None:
        drafts[0].name = DEFAULT_SCHEDULER_NAME
    _validate(cfg, drafts, version)
    if cfg.get("extenders"):
        # Extenders are HTTP services that take part in Filter, Score, preemption and binding; a
        # run without them would differ from the real scheduler without saying so.
        raise ConfigError(
            "scheduler extenders are not supported: kwhatif runs only the in-tree plugins "
            "(remove `extenders` to simulate the scheduler without them)",
            field="extenders",
        )
    return SchedulerConfiguration(
        profiles=tuple(_build_profile(d) for d in drafts),
        percentage_of_nodes_to_score=cfg.get("percentageOfNodesToScore", 0),
        source=source,
        version=version,
    )


def _build_profile(d: _ProfileDraft) -> Profile:
    plugin_config: dict[str, Mapping[str, Any]] = {}
    for name, args, _ in d.config:
        # Raw args of plugins without an args kind are kept when they are an object; no plugin
        # reads them (upstream hands such plugins a runtime.Unknown they ignore).
        if isinstance(args, dict):
            plugin_config[name] = args
    return Profile(
        scheduler_name=d.name or "",
        plugins=d.plugins,
        plugin_config=plugin_config,
        percentage_of_nodes_to_score=d.percentage,
    )


def load_configuration(path: str, version: SchedulerVersion | None = None) -> SchedulerConfiguration:
    """Read a KubeSchedulerConfiguration file (YAML or JSON) as the release reads it."""
    with os_errors(path, ConfigError), open(path, "rb") as fh:
        data = fh.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"file is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB: not a {KIND}", source=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"not UTF-8 text (byte {e.start})", source=path) from None
    return parse_configuration(text, path, version)
