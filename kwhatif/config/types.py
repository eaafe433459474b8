"""The configuration's types as the framework consumes them (pkg/scheduler/apis/config:
types.go and types_pluginargs.go): profiles with their merged plugin sets, and one frozen
dataclass per plugin args kind. decode.py, defaults.py, convert.py and validation.py produce them.

The args hold what their plugins read, converted once: parsed node affinity, parsed topology
spread constraints, resource specs and shape points. Values validation refuses (a weight out of
range, an unknown strategy) are still representable, since NodeResourcesFit's args are checked by
its constructor only, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import NodeAffinity, TopologySpreadConstraint
from kwhatif.release.versions import SchedulerVersion, default_version

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"

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
    # 1.36 on (Behaviour.placement_plugins): the pod-group cycle's placements
    "placementGenerate",
    "placementScore",
)

# Plugins with an args kind (<Name>Args) in the v1 scheme (pkg/scheduler/apis/config/register.go).
DEFAULT_PREEMPTION = "DefaultPreemption"
INTER_POD_AFFINITY = "InterPodAffinity"
NODE_AFFINITY = "NodeAffinity"
BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT = "NodeResourcesFit"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
VOLUME_BINDING = "VolumeBinding"
DYNAMIC_RESOURCES = "DynamicResources"  # from 1.34


# --- plugin args ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    utilization: int
    score: int


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int
    min_candidate_nodes_absolute: int


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    hard_pod_affinity_weight: int
    ignore_preferred_terms_of_existing_pods: bool


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    added_affinity: NodeAffinity | None = None
    # addedAffinity listed preferred terms (PreScore then always runs, even if all were empty)
    added_preferred: bool = False


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...]


LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SCORING_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


@dataclass(frozen=True, slots=True)
class RequestedToCapacityRatioParam:
    shape: tuple[UtilizationShapePoint, ...]


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    type: str
    resources: tuple[ResourceSpec, ...]
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs:
    ignored_resources: tuple[str, ...]
    ignored_resource_groups: tuple[str, ...]
    scoring_strategy: ScoringStrategy


SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    defaulting_type: str
    # parsed once; a constraint's selector is always NOTHING (each pod's default selector
    # replaces it, and validation refuses one given)
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs:
    bind_timeout_seconds: int
    shape: tuple[UtilizationShapePoint, ...] | None = None  # None: not given


@dataclass(frozen=True, slots=True)
class DynamicResourcesArgs:
    filter_timeout_ns: int | None = None  # None: not set (its gate is off)
    binding_timeout_ns: int | None = None


PluginArgs = (
    DefaultPreemptionArgs
    | InterPodAffinityArgs
    | NodeAffinityArgs
    | NodeResourcesBalancedAllocationArgs
    | NodeResourcesFitArgs
    | PodTopologySpreadArgs
    | VolumeBindingArgs
    | DynamicResourcesArgs
)


# --- profiles ------------------------------------------------------------------------------------


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
    # plugin name -> its typed args, defaulted and validated
    plugin_config: Mapping[str, PluginArgs]
    percentage_of_nodes_to_score: int | None = None
    # args of plugins without an args kind (upstream's runtime.Unknown): kept, read by no plugin
    unknown_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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
