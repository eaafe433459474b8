"""Which plugins each modelled feature gate can change, by upstream plugin name, as the recorded
changes name them (kwhatif.release.changes.Change.plugins): `kwhatif diff` (kwhatif.whatif.diff)
names a gate whose value differs as a cause of a pod's difference when one of its plugins answers
differently."""

from __future__ import annotations

from collections.abc import Mapping

# Plugin names the recorded changes use for what is not one plugin (versions.Change.plugins)
FRAMEWORK = "framework"
PREEMPTION_PLUGIN = "DefaultPreemption"

# The plugins whose answers each modelled feature gate can change (the plugins that read it, as
# pkg/scheduler/framework/plugins/feature.Features and the registry pass them; the API server's
# gates through the pod requests the resource plugins read). A gate whose value differs is a
# cause of a pod's difference when one of its plugins answers differently.
_RESOURCES = ("NodeResourcesFit", "NodeResourcesBalancedAllocation")
GATE_PLUGINS: Mapping[str, tuple[str, ...]] = {
    "MatchLabelKeysInPodTopologySpread": ("PodTopologySpread",),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": ("PodTopologySpread",),
    "MatchLabelKeysInPodAffinity": ("InterPodAffinity",),
    "PodDisruptionConditions": (PREEMPTION_PLUGIN,),
    "InPlacePodVerticalScaling": _RESOURCES,
    "InPlacePodLevelResourcesVerticalScaling": _RESOURCES,
    "PodLevelResources": _RESOURCES,
    "DynamicResourceAllocation": ("DynamicResources",),
    "DRAAdminAccess": ("DynamicResources",),
    "DRAPrioritizedList": ("DynamicResources",),
    "DRAPartitionableDevices": ("DynamicResources",),
    "DRADeviceTaints": ("DynamicResources",),
    "DRAConsumableCapacity": ("DynamicResources",),
    "DRASchedulerFilterTimeout": ("DynamicResources",),
    "DRAResourceClaimDeviceStatus": ("DynamicResources",),
    "DRADeviceBindingConditions": ("DynamicResources",),
    "DRAExtendedResource": ("DynamicResources", "NodeResourcesFit"),
    "VolumeCapacityPriority": ("VolumeBinding",),
    "StorageCapacityScoring": ("VolumeBinding",),
    "VolumeLimitScaling": ("NodeVolumeLimits",),
    "NodeDeclaredFeatures": ("NodeDeclaredFeatures",),
    "TaintTolerationComparisonOperators": ("TaintToleration",),
    "ContainerRestartRules": (*_RESOURCES, "NodePorts"),
    "GenericWorkload": ("GangScheduling", FRAMEWORK),
    "GangScheduling": ("GangScheduling", FRAMEWORK),
    "WorkloadAwarePreemption": (PREEMPTION_PLUGIN, "GangScheduling"),
}
