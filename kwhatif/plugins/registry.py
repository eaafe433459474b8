"""The in-tree registry (pkg/scheduler/framework/plugins/registry.go): upstream plugin names and
their factories.

A Framework is built over a registry (a mapping of plugin name to factory, as upstream's
NewFramework takes one); the Scheduler passes this one. Plugins are imported only when a profile
uses them. Each factory is ``new(args, handle)``: it takes the plugin's typed args
(kwhatif.config.types; None for plugins without an args kind) and returns the plugin;
NodeResourcesFit checks its args there, as upstream's NewFit does.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kwhatif.framework.runtime import PluginFactory, Registry

_IN_TREE: dict[str, str] = {
    "SchedulingGates": "kwhatif.plugins.scheduling_gates",
    "PrioritySort": "kwhatif.plugins.queue_sort",
    "NodeUnschedulable": "kwhatif.plugins.node_unschedulable",
    "NodeName": "kwhatif.plugins.node_name",
    "TaintToleration": "kwhatif.plugins.taint_toleration",
    "NodeAffinity": "kwhatif.plugins.node_affinity",
    "NodeDeclaredFeatures": "kwhatif.plugins.node_declared_features",
    "NodePorts": "kwhatif.plugins.node_ports",
    "NodeResourcesFit": "kwhatif.plugins.node_resources_fit",
    "VolumeRestrictions": "kwhatif.plugins.volume_restrictions",
    "EBSLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_ebs",
    "GCEPDLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_gce_pd",
    "AzureDiskLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_azure_disk",
    "CinderLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_cinder",
    "NodeVolumeLimits": "kwhatif.plugins.node_volume_limits",
    "VolumeBinding": "kwhatif.plugins.volume_binding",
    "VolumeZone": "kwhatif.plugins.volume_zone",
    "PodTopologySpread": "kwhatif.plugins.pod_topology_spread",
    "InterPodAffinity": "kwhatif.plugins.inter_pod_affinity",
    "DynamicResources": "kwhatif.plugins.dynamic_resources",
    "DefaultPreemption": "kwhatif.plugins.default_preemption",
    "NodeResourcesBalancedAllocation": "kwhatif.plugins.node_resources_balanced_allocation",
    "ImageLocality": "kwhatif.plugins.image_locality",
    "DefaultBinder": "kwhatif.plugins.default_binder",
    "GangScheduling": "kwhatif.plugins.gang_scheduling",
}


class _LazyRegistry(Mapping[str, "PluginFactory"]):
    """Name -> factory, importing a plugin's module the first time its factory is looked up."""

    def __init__(self, targets: Mapping[str, str]) -> None:
        self._targets = dict(targets)
        self._loaded: dict[str, PluginFactory] = {}

    def __getitem__(self, name: str) -> PluginFactory:
        fn = self._loaded.get(name)
        if fn is None:
            module_name, _, attr = self._targets[name].partition(":")
            module = importlib.import_module(module_name)
            fn = self._loaded[name] = getattr(module, attr or "new")
        return fn

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __contains__(self, name: object) -> bool:
        return name in self._targets


IN_TREE: Registry = _LazyRegistry(_IN_TREE)


def in_tree() -> Registry:
    """The default registry: every in-tree plugin kwhatif implements."""
    return IN_TREE
