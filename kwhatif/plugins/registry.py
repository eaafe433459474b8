"""The in-tree registry (pkg/scheduler/framework/plugins/registry.go): upstream plugin names,
their factories and their records (kwhatif.plugins.info.PluginInfo).

A Framework is built over a registry (a mapping of plugin name to factory, as upstream's
NewFramework takes one); the Scheduler passes this one. Plugins are imported only when a profile
uses them. Each factory is ``new(args, handle)``: it takes the plugin's typed args
(kwhatif.config.types; None for plugins without an args kind) and returns the plugin;
NodeResourcesFit checks its args there, as upstream's NewFit does.

Each plugin's module exports its record as ``INFO`` (the module of the in-tree volume limits, one
per plugin): ``info(name)`` imports the module and reads it, as the factories are read.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from kwhatif.plugins.info import PluginInfo

if TYPE_CHECKING:
    from kwhatif.framework.runtime import PluginFactory, Registry

# name -> "module[:factory[:record]]" (factory ``new`` and record ``INFO`` unless named)
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
    "EBSLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_ebs:EBS_INFO",
    "GCEPDLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_gce_pd:GCE_PD_INFO",
    "AzureDiskLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_azure_disk:AZURE_DISK_INFO",
    "CinderLimits": "kwhatif.plugins.node_volume_limits_in_tree:new_cinder:CINDER_INFO",
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
    "TopologyPlacementGenerator": "kwhatif.plugins.topology_placement",
    "PodGroupPodsCount": "kwhatif.plugins.podgroup_pods_count",
}


class _LazyRegistry(Mapping[str, "PluginFactory"]):
    """Name -> factory, importing a plugin's module the first time its factory is looked up."""

    def __init__(self, targets: Mapping[str, str]) -> None:
        self._targets = dict(targets)
        self._loaded: dict[str, PluginFactory] = {}

    def __getitem__(self, name: str) -> PluginFactory:
        fn = self._loaded.get(name)
        if fn is None:
            module_name, attr, _ = _target(self._targets[name])
            fn = self._loaded[name] = getattr(importlib.import_module(module_name), attr)
        return fn

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __contains__(self, name: object) -> bool:
        return name in self._targets


def _target(spec: str) -> tuple[str, str, str]:
    module_name, _, rest = spec.partition(":")
    factory, _, record = rest.partition(":")
    return module_name, factory or "new", record or "INFO"


IN_TREE: Registry = _LazyRegistry(_IN_TREE)
_INFOS: dict[str, PluginInfo] = {}


def names() -> tuple[str, ...]:
    """The names of the in-tree plugins."""
    return tuple(_IN_TREE)


def info(name: str) -> PluginInfo | None:
    """The record of the in-tree plugin ``name`` (None: no such plugin)."""
    found = _INFOS.get(name)
    if found is None:
        spec = _IN_TREE.get(name)
        if spec is None:
            return None
        module_name, _, attr = _target(spec)
        found = getattr(importlib.import_module(module_name), attr)
        if not isinstance(found, PluginInfo) or found.name != name:
            raise TypeError(f"{module_name}.{attr} is not the record of plugin {name}")
        _INFOS[name] = found
    return found


def in_tree() -> Registry:
    """The default registry: every in-tree plugin kwhatif implements."""
    return IN_TREE
