"""The default profile of each release as data: getDefaultPlugins() of
pkg/scheduler/apis/config/v1/default_plugins.go (its multiPoint list, after applyFeatureGates), and
which plugins the release's in-tree registry has (framework/plugins/registry.go). The switches come
from the recorded changes (changes.py); config/defaults.py builds the profile from this list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kwhatif.release.changes import VOLUME_LIMITS_IN_TREE, Behaviour


class ReleaseView(Protocol):
    """What the profile reads of a release (versions.SchedulerVersion)."""

    @property
    def behaviour(self) -> Behaviour: ...

    def gate(self, name: str) -> bool: ...

    def has_gate(self, name: str) -> bool: ...


# Plugins the in-tree registry has only in some releases: the Behaviour switch that says whether
# this one has it (the others are always registered).
REGISTERED_BY: dict[str, Callable[[Behaviour], bool]] = {
    **{name: lambda b: b.volume_limits_in_tree_registered for name in VOLUME_LIMITS_IN_TREE},
    "NodeDeclaredFeatures": lambda b: b.node_declared_features_registered,
    "GangScheduling": lambda b: b.gang_scheduling_registered,
    "TopologyPlacementGenerator": lambda b: b.placement_plugins,
    "PodGroupPodsCount": lambda b: b.placement_plugins,
}


def default_plugins(release: ReleaseView) -> tuple[tuple[str, int | None], ...]:
    """getDefaultPlugins(): the multiPoint list (name, weight) of this release, after
    applyFeatureGates."""
    b = release.behaviour
    refs: list[tuple[str, int | None]] = [
        ("SchedulingGates", None),
        ("PrioritySort", None),
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodePorts", None),
        ("NodeResourcesFit", 1),
        ("VolumeRestrictions", None),
    ]
    if b.volume_limits_in_tree_default:
        refs += [("EBSLimits", None), ("GCEPDLimits", None), ("NodeVolumeLimits", None), ("AzureDiskLimits", None)]
    else:
        refs.append(("NodeVolumeLimits", None))
    refs += [
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2),
        ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("DefaultBinder", None),
    ]
    if release.gate("NodeDeclaredFeatures"):
        refs.append(("NodeDeclaredFeatures", None))
    if release.gate("DynamicResourceAllocation"):
        # Before DefaultPreemption: deallocating an idle claim beats evicting a pod.
        i = next(i for i, (n, _) in enumerate(refs) if n == "DefaultPreemption")
        refs.insert(i, ("DynamicResources", b.dynamic_resources_score_weight))
    if gang_plugin_on(release):
        refs.append(("GangScheduling", None))  # applyGangScheduling
    if release.behaviour.placement_plugins and release.gate("TopologyAwareWorkloadScheduling"):
        # applyTopologyAwareWorkloadScheduling (default_plugins.go of v1.36.2)
        refs += [("TopologyPlacementGenerator", None), ("PodGroupPodsCount", 1)]
    return tuple(refs)


def gang_plugin_on(release: ReleaseView) -> bool:
    """Whether the default profile has GangScheduling: its gate, or from 1.37 (which has no
    such gate) GenericWorkload (kwhatif.release.workload_gates)."""
    if release.has_gate("GangScheduling"):
        return release.gate("GangScheduling")
    return release.behaviour.gang_follows_generic_workload and release.gate("GenericWorkload")


def plugin_registered(release: ReleaseView, name: str) -> bool:
    """Whether the release's in-tree registry has the plugin."""
    switch = REGISTERED_BY.get(name)
    return True if switch is None else switch(release.behaviour)
