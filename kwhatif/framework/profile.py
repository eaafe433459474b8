"""Scheduler profiles as the framework consumes them, and upstream's default profile.

framework/config.py decodes a KubeSchedulerConfiguration into these types (defaults merged as in
pkg/scheduler/apis/config/v1); runtime.Framework expands them into ordered plugin lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

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

    def profile(self, name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == name:
                return p
        return None


# getDefaultPlugins(): one multiPoint list; weights only where upstream sets them.
DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef("SchedulingGates"),
    PluginRef("PrioritySort"),
    PluginRef("NodeUnschedulable"),
    PluginRef("NodeName"),
    PluginRef("TaintToleration", 3),
    PluginRef("NodeAffinity", 2),
    PluginRef("NodePorts"),
    PluginRef("NodeResourcesFit", 1),
    PluginRef("VolumeRestrictions"),
    PluginRef("EBSLimits"),
    PluginRef("GCEPDLimits"),
    PluginRef("NodeVolumeLimits"),
    PluginRef("AzureDiskLimits"),
    PluginRef("VolumeBinding"),
    PluginRef("VolumeZone"),
    PluginRef("PodTopologySpread", 2),
    PluginRef("InterPodAffinity", 2),
    PluginRef("DefaultPreemption"),
    PluginRef("NodeResourcesBalancedAllocation", 1),
    PluginRef("ImageLocality", 1),
    PluginRef("DefaultBinder"),
)

DEFAULT_RESOURCE_SPEC: tuple[dict[str, Any], ...] = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def default_args() -> dict[str, dict[str, Any]]:
    """The v1 defaults of every plugin that has args (SetDefaults_*Args)."""
    return {
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


def default_profile(name: str = DEFAULT_SCHEDULER_NAME, percentage: int | None = None) -> Profile:
    plugins = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    plugins["multiPoint"] = PluginSet(DEFAULT_MULTI_POINT)
    return Profile(name, plugins, default_args(), percentage)


def default_configuration() -> SchedulerConfiguration:
    return SchedulerConfiguration(profiles=(default_profile(),))


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
