"""v1 defaults (pkg/scheduler/apis/config/v1: defaults.go, default_plugins.go) of the release:
the default profile's plugins (getDefaultPlugins' list is release data: kwhatif/release/profiles.py),
plugin sets merged with them (mergePlugins), and every args kind's defaults, applied field by field
to decoded v1 data. ``default_configuration`` is what kube-scheduler runs without --config.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kwhatif.config.convert import convert_args
from kwhatif.config.decode import TypedArgs, args_types
from kwhatif.config.types import (
    BALANCED_ALLOCATION,
    DEFAULT_PREEMPTION,
    DEFAULT_SCHEDULER_NAME,
    DYNAMIC_RESOURCES,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    PLUGIN_SET_FIELDS,
    POD_TOPOLOGY_SPREAD,
    VOLUME_BINDING,
    PluginArgs,
    PluginRef,
    PluginSet,
    Profile,
    SchedulerConfiguration,
)
from kwhatif.release import profiles
from kwhatif.release.versions import SchedulerVersion, default_version


def default_multi_point(version: SchedulerVersion) -> tuple[PluginRef, ...]:
    """getDefaultPlugins() of the release: one multiPoint list; weights only where upstream sets them."""
    return tuple(PluginRef(name, weight) for name, weight in profiles.default_plugins(version))


# --- args: SetDefaults_<Kind>Args over decoded v1 data ------------------------------------------

DEFAULT_RESOURCE_SPEC: tuple[dict[str, Any], ...] = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})
DEFAULT_BIND_TIMEOUT_SECONDS = 600
# with StorageCapacityScoring on: prefer nodes with more free capacity
DEFAULT_CAPACITY_SHAPE: tuple[dict[str, int], ...] = ({"utilization": 0, "score": 10}, {"utilization": 100, "score": 0})
DYNAMIC_RESOURCES_FILTER_TIMEOUT_NS = 10 * 1_000_000_000  # DynamicResourcesFilterTimeoutDefault
DYNAMIC_RESOURCES_BINDING_TIMEOUT_NS = 600 * 1_000_000_000  # DynamicResourcesBindingTimeoutDefault


def _default_dynamic_resources(version: SchedulerVersion, given: Mapping[str, Any]) -> dict[str, Any]:
    """SetDefaults_DynamicResourcesArgs: the timeouts default only while their gates are on."""
    out = dict(given)
    if "filterTimeout" not in out and version.gate("DRASchedulerFilterTimeout"):
        out["filterTimeout"] = DYNAMIC_RESOURCES_FILTER_TIMEOUT_NS
    if (
        "bindingTimeout" not in out
        and version.behaviour.dynamic_resources_binding_timeout
        and version.gate("DRADeviceBindingConditions")
        and version.gate("DRAResourceClaimDeviceStatus")
    ):
        out["bindingTimeout"] = DYNAMIC_RESOURCES_BINDING_TIMEOUT_NS
    return out


def _resource_specs(given: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if not given:
        return [dict(r) for r in DEFAULT_RESOURCE_SPEC]
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
    out: dict[str, Any] = {"bindTimeoutSeconds": a.get("bindTimeoutSeconds", DEFAULT_BIND_TIMEOUT_SECONDS)}
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
        return _default_dynamic_resources(version, dict(given or {}))
    if name == VOLUME_BINDING and version.gate("StorageCapacityScoring"):
        # SetDefaults_VolumeBindingArgs: with the gate on, a missing shape prefers emptier nodes.
        out = _default_volume_binding(dict(given or {}))
        out.setdefault("shape", [dict(p) for p in DEFAULT_CAPACITY_SHAPE])
        return out
    fn = _ARGS_DEFAULTS.get(name)
    return fn(dict(given or {})) if fn is not None else None


def default_args(version: SchedulerVersion | None = None) -> dict[str, PluginArgs]:
    """The typed default args of every plugin that has an args kind in the release."""
    version = version or default_version()
    out: dict[str, PluginArgs] = {}
    for name in sorted(args_types(version)):
        data = default_plugin_args(name, None, version)
        assert data is not None
        out[name] = convert_args(name, data)
    return out


# --- plugin sets ----------------------------------------------------------------------------------


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
    defaults["multiPoint"] = PluginSet(default_multi_point(version or default_version()))
    if custom is None:
        return defaults
    return {f: merge_plugin_set(defaults[f], _plugin_set(custom.get(f))) for f in PLUGIN_SET_FIELDS}


# --- profiles -------------------------------------------------------------------------------------


@dataclass(slots=True)
class ProfileDraft:
    name: str | None  # None: not given
    percentage: int | None
    plugins: dict[str, PluginSet]
    # (name, args, typed) in upstream's order: the given entries, then defaults for enabled
    # plugins. Typed args are defaulted dicts, other args raw data (None when absent).
    config: list[tuple[str, Any, bool]]


def default_profile_draft(prof: Mapping[str, Any], version: SchedulerVersion) -> ProfileDraft:
    plugins = merge_plugins(prof.get("plugins"), version)
    config: list[tuple[str, Any, bool]] = []
    existing: set[str] = set()
    for pc in prof.get("pluginConfig") or ():
        name = pc.get("name", "")
        existing.add(name)
        args = pc.get("args")
        if isinstance(args, TypedArgs):
            config.append((name, default_plugin_args(name, args.data, version), True))
        else:
            config.append((name, args, False))
    kinds = args_types(version)
    enabled_names = sorted({ref.name for ps in plugins.values() for ref in ps.enabled})
    for name in enabled_names:
        if name not in existing and name in kinds:
            config.append((name, default_plugin_args(name, None, version), True))
    return ProfileDraft(prof.get("schedulerName"), prof.get("percentageOfNodesToScore"), plugins, config)


def default_profile(
    name: str = DEFAULT_SCHEDULER_NAME, percentage: int | None = None, *, version: SchedulerVersion | None = None
) -> Profile:
    version = version or default_version()
    plugins = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    plugins["multiPoint"] = PluginSet(default_multi_point(version))
    return Profile(name, plugins, default_args(version), percentage)


def default_configuration(version: SchedulerVersion | None = None) -> SchedulerConfiguration:
    """The configuration kube-scheduler runs without --config: the release's default profile."""
    version = version or default_version()
    return SchedulerConfiguration(profiles=(default_profile(version=version),), version=version)
