"""Upstream plugin names and where each is implemented.

Plugins are imported only when a profile uses them. Each module exposes ``new(args, handle)``,
which takes the plugin's typed args (kwhatif.config.types; None for plugins without an args
kind) and returns the plugin; NodeResourcesFit checks its args there, as upstream's NewFit does.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

REGISTRY: dict[str, str] = {
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
}


def factory(name: str) -> Callable[..., Any] | None:
    target = REGISTRY.get(name)
    if target is None:
        return None
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    fn: Callable[..., Any] = getattr(module, attr or "new")
    return fn
