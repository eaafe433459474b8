"""Scheduler profiles as the framework consumes them, and upstream's default profile.

framework/config.py decodes a KubeSchedulerConfiguration into these types (defaults merged as in
pkg/scheduler/apis/config/v1); runtime.Framework expands them into ordered plugin lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kwhatif.versions import SchedulerVersion, default_version

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# Extension points in the order of KubeSchedulerConfiguration's `plugins` fields.
PLUGIN_SET_FIELDS = (
    "multiPoint",
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)


@dataclass(frozen=True, slots=True)
class PluginRef:
    name: str
    weight: int | None = None  # None: not given (a Go nil pointer)


@dataclass(frozen=True, slots=True)
class PluginSet:
    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Profile:
    scheduler_name: str
    # extension point name (PLUGIN_SET_FIELDS) -> merged plugin set
    plugins: Mapping[str, PluginSet]
    # plugin name -> args after v1 defaulting (plain data: dicts, lists, ints, strings)
    plugin_config: Mapping[str, Mapping[str, Any]]
    percentage_of_nodes_to_score: int | None = None


@dataclass(frozen=True, slots=True)
class SchedulerConfiguration:
    profiles: tuple[Profile, ...]
    percentage_of_nodes_to_score: int = 0  # 0: adaptive, as upstream's default
    source: str = ""  # the file it came from; "" for the built-in default
    # the kube-scheduler release whose defaults and behaviour the run reproduces
    version: SchedulerVersion = field(default_factory=default_version)

    def profile(self, name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == name:
                return p
        return None


def default_multi_point(version: SchedulerVersion) -> tuple[PluginRef, ...]:
    """getDefaultPlugins() of the release: one multiPoint list; weights only where upstream sets them."""
    return tuple(PluginRef(name, weight) for name, weight in version.default_plugins())


DEFAULT_RESOURCE_SPEC: tuple[dict[str, Any], ...] = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def default_args(version: SchedulerVersion | None = None) -> dict[str, dict[str, Any]]:
    """The v1 defaults of every plugin that has args (SetDefaults_*Args) in the release."""
    version = version or default_version()
    args: dict[str, dict[str, Any]] = {
        "DefaultPreemption": {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
        "InterPodAffinity": {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
        "NodeAffinity": {},
        "NodeResourcesBalancedAllocation": {"resources": [dict(r) for r in DEFAULT_RESOURCE_SPEC]},
        "NodeResourcesFit": {
            "ignoredResources": [],
            "ignoredResourceGroups": [],
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [dict(r) for r in DEFAULT_RESOURCE_SPEC],
            },
        },
        "PodTopologySpread": {"defaultingType": "System", "defaultConstraints": []},
        "VolumeBinding": {"bindTimeoutSeconds": 600},
    }
    if version.behaviour.dynamic_resources_args:
        args["DynamicResources"] = dynamic_resources_default_args(version, {})
    if version.gate("StorageCapacityScoring"):
        # SetDefaults_VolumeBindingArgs: prefer nodes with more free capacity
        args["VolumeBinding"]["shape"] = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    return args


DYNAMIC_RESOURCES_FILTER_TIMEOUT_NS = 10 * 1_000_000_000  # DynamicResourcesFilterTimeoutDefault
DYNAMIC_RESOURCES_BINDING_TIMEOUT_NS = 600 * 1_000_000_000  # DynamicResourcesBindingTimeoutDefault


def dynamic_resources_default_args(version: SchedulerVersion, given: Mapping[str, Any]) -> dict[str, Any]:
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


@dataclass(frozen=True, slots=True)
class Options:
    """How a what-if run behaves beyond the profile."""

    preemption: bool = True
    explain_all_filters: bool = True  # evaluate every filter plugin on every node
    # Also filter the nodes a PreFilterResult leaves out, to show what they would have said.
    filter_excluded: bool = True
    # Keep per-node records only for the first pods that do not fit (many-pod runs: check,
    # capacity, drain); the others keep their verdict, message and reason counts.
    compact: bool = False
    # Reuse work across cycles (kwhatif.incremental): state kept up to date as pods come and go,
    # per-node results kept while their node is unchanged. Off, every cycle starts from scratch
    # (the reference the engine is tested against); the reports are the same either way.
    incremental: bool = True
