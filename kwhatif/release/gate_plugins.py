"""What each modelled feature gate can change, by upstream plugin name and extension point:
`kwhatif diff` (kwhatif.whatif.diff) names a gate whose value differs as a cause of a pod's
difference only when that difference can come from one of the gate's plugins at one of its
points (a score-only gate never explains a filter's or a message's difference, a filter-only gate
never a node's total)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

# Plugin names the recorded changes use for what is not one plugin (versions.Change.plugins)
FRAMEWORK = "framework"
API_SERVER = "api"
PREEMPTION_PLUGIN = "DefaultPreemption"


class Point(enum.StrEnum):
    """Where a plugin's answer shows in what `kwhatif diff` compares for a pod."""

    # the API server: a new pod refused, or fields the scheduler reads dropped from it
    ADMISSION = "admission"
    # PreEnqueue (kwhatif records its rejection as the pod's PreFilter record), PreFilter and
    # Filter: a node's first failing filter and the feasible set (diff's `filters`)
    FILTER = "filter"
    # PreScore and Score: a scored node's total (diff's `scores`)
    SCORE = "score"
    # PostFilter: the nominated node, the victims, and its part of the FitError (`preemption`)
    POST_FILTER = "postFilter"
    # scheduleOne and the pod-group cycle: the FitError text, Permit's waiting (`message`)
    CYCLE = "cycle"


_F, _S, _P, _C, _A = Point.FILTER, Point.SCORE, Point.POST_FILTER, Point.CYCLE, Point.ADMISSION

Effects = tuple[tuple[str, frozenset[Point]], ...]


def _e(*pairs: tuple[str, Iterable[Point]]) -> Effects:
    return tuple((plugin, frozenset(points)) for plugin, points in pairs)


# The resource plugins read a pod's requests as the gates have the API server and the scheduler
# count them (api/resources.py: pod-level requests, status resources of a resized pod):
# NodeResourcesFit filters and scores with them, BalancedAllocation only scores.
_RESOURCE_COUNTING = _e(("NodeResourcesFit", (_F, _S)), ("NodeResourcesBalancedAllocation", (_S,)))
# The DRA allocator's features: which devices PreFilter/Filter find on a node, hence the node's
# allocation that Score (1.35+: the prioritized-list alternatives chosen) reads.
_DRA_ALLOCATOR = _e(("DynamicResources", (_F, _S)))

# Each modelled gate's effects: the plugins that read it (as pkg/scheduler/framework/plugins/
# feature.Features and the registry pass it, or the API server's admission of a new pod) and the
# points where its value changes their answers. Where kwhatif reads each gate: the comments.
GATE_EFFECTS: Mapping[str, Effects] = {
    # admission merges matchLabelKeys into the selector (or drops it); both points of the plugin
    # read the selector (podtopologyspread/filtering.go and scoring.go)
    "MatchLabelKeysInPodTopologySpread": _e(("PodTopologySpread", (_F, _S)), (API_SERVER, (_A,))),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": _e(("PodTopologySpread", (_F, _S)), (API_SERVER, (_A,))),
    "MatchLabelKeysInPodAffinity": _e(("InterPodAffinity", (_F, _S)), (API_SERVER, (_A,))),
    # podTerminatingByPreemption: whether a pod already preempting is left to finish
    "PodDisruptionConditions": _e((PREEMPTION_PLUGIN, (_P,))),
    "InPlacePodVerticalScaling": _RESOURCE_COUNTING,
    "InPlacePodLevelResourcesVerticalScaling": _RESOURCE_COUNTING,
    "PodLevelResources": (*_RESOURCE_COUNTING, (API_SERVER, frozenset({_A}))),
    # off: the plugin leaves the default profile (its filters, scores and PostFilter's
    # "no new claims to deallocate") and the API server drops the pod's claims
    "DynamicResourceAllocation": _e(("DynamicResources", (_F, _S, _P)), (API_SERVER, (_A,))),
    "DRAAdminAccess": _DRA_ALLOCATOR,
    "DRAPrioritizedList": _DRA_ALLOCATOR,
    "DRAPartitionableDevices": _DRA_ALLOCATOR,
    "DRADeviceTaints": _DRA_ALLOCATOR,
    "DRAConsumableCapacity": _DRA_ALLOCATOR,
    # the filter's time limit (DynamicResourcesArgs.filterTimeout's default)
    "DRASchedulerFilterTimeout": _e(("DynamicResources", (_F,))),
    # binding conditions: the experimental allocator tries such devices last
    "DRAResourceClaimDeviceStatus": _DRA_ALLOCATOR,
    "DRADeviceBindingConditions": _DRA_ALLOCATOR,
    # extended resources backed by devices: NodeResourcesFit leaves them to DynamicResources
    "DRAExtendedResource": _e(("DynamicResources", (_F, _S)), ("NodeResourcesFit", (_F,))),
    # VolumeBinding's Score and its shape (volumebinding/scorer.go): no filter
    "VolumeCapacityPriority": _e(("VolumeBinding", (_S,))),
    "StorageCapacityScoring": _e(("VolumeBinding", (_S,))),
    # the CSI-driver presence check (nodevolumelimits/csi.go Filter): no score
    "VolumeLimitScaling": _e(("NodeVolumeLimits", (_F,))),
    # the plugin in the default profile: PreFilter and Filter only
    "NodeDeclaredFeatures": _e(("NodeDeclaredFeatures", (_F,))),
    # Gt/Lt tolerations: TaintToleration's Filter and its PreferNoSchedule Score, and
    # PodTopologySpread's nodeTaintsPolicy: Honor (which nodes count in a domain)
    "TaintTolerationComparisonOperators": _e(
        ("TaintToleration", (_F, _S)), ("PodTopologySpread", (_F, _S)), (API_SERVER, (_A,))
    ),
    # off: the API server refuses a container's own restartPolicy (no plugin reads it)
    "ContainerRestartRules": _e((API_SERVER, (_A,))),
    # the Workload API and gang scheduling: GangScheduling's PreEnqueue and PlacementFeasible (and
    # Permit until 1.37), the pod-group cycle; the API server serves the Workload API; from 1.37
    # the plugin and workload-aware preemption follow GenericWorkload (release/workload_gates.py)
    "GenericWorkload": _e(
        ("GangScheduling", (_F, _C)), (FRAMEWORK, (_C,)), (PREEMPTION_PLUGIN, (_P,)), (API_SERVER, (_A,))
    ),
    "GangScheduling": _e(("GangScheduling", (_F, _C)), (FRAMEWORK, (_C,))),
    "WorkloadAwarePreemption": _e((PREEMPTION_PLUGIN, (_P,)), ("GangScheduling", (_C,))),
    # a group placed within one topology domain: the pod-group cycle tries each domain's nodes
    # (the framework's messages and the group's), PodGroupPodsCount scores the placements, and
    # workload-aware preemption refuses groups with scheduling constraints
    "TopologyAwareWorkloadScheduling": _e(
        ("PodGroupPodsCount", (_S,)), (FRAMEWORK, (_C,)), ("GangScheduling", (_C,)), (PREEMPTION_PLUGIN, (_P,))
    ),
}

# The plugins each gate can change (what the report lists with the gate).
GATE_PLUGINS: Mapping[str, tuple[str, ...]] = {
    gate: tuple(p for p, _ in effects) for gate, effects in GATE_EFFECTS.items()
}

Evidence = frozenset[tuple[str, Point]]


def explains(gate: str, evidence: Iterable[tuple[str, Point]]) -> bool:
    """Whether ``gate`` can produce a pod's difference, given what differs as (plugin, point)
    pairs (kwhatif.whatif.diff.compare_points). A Filter effect explains a preemption or a
    FitError text that differs with every node's first failure unchanged: DefaultPreemption's
    dry run (framework/preemption/preemption.go, SelectVictimsOnNode) runs the Filter plugins
    again with the victims removed, and its message counts their reasons. A gate with no
    recorded effects explains nothing."""
    effects = dict(GATE_EFFECTS.get(gate, ()))
    filters = any(_F in points for points in effects.values())
    for plugin, point in evidence:
        if point in effects.get(plugin, ()):
            return True
        if point is _P and (filters or any(_P in points for points in effects.values())):
            return True
        if point is _C and plugin == FRAMEWORK and (filters or any(_P in pts for pts in effects.values())):
            return True
    return False
