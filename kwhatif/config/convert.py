"""Defaulted v1 args turned into their typed form (upstream's v1 -> internal conversion): the
one place plugin args are read from decoded data. Plugins get the typed objects and read fields.

The data is what decode.py produced and defaults.py completed, so fields have Go's types; values
are not judged here (validation.py does that before, and NodeResourcesFit's constructor after).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import NodeInclusionPolicy, TopologySpreadConstraint, WhenUnsatisfiable
from kwhatif.api.labels import NOTHING
from kwhatif.config.types import (
    BALANCED_ALLOCATION,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
    VOLUME_BINDING,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from kwhatif.errors import ConfigError, FieldError

Data = Mapping[str, Any]


def _resources(items: list[Data]) -> tuple[ResourceSpec, ...]:
    return tuple(ResourceSpec(r.get("name", ""), r.get("weight", 0)) for r in items)


def _shape(points: list[Data]) -> tuple[UtilizationShapePoint, ...]:
    return tuple(UtilizationShapePoint(p.get("utilization", 0), p.get("score", 0)) for p in points)


def _default_preemption(a: Data) -> DefaultPreemptionArgs:
    return DefaultPreemptionArgs(a["minCandidateNodesPercentage"], a["minCandidateNodesAbsolute"])


def _inter_pod_affinity(a: Data) -> InterPodAffinityArgs:
    return InterPodAffinityArgs(a["hardPodAffinityWeight"], a["ignorePreferredTermsOfExistingPods"])


def _node_affinity(a: Data) -> NodeAffinityArgs:
    added = a.get("addedAffinity")
    if added is None:
        return NodeAffinityArgs()
    preferred = added.get("preferredDuringSchedulingIgnoredDuringExecution")
    if preferred:
        # NewPreferredSchedulingTerms skips terms of weight 0 without parsing them (and
        # validation does not look at them either)
        added = {**added, "preferredDuringSchedulingIgnoredDuringExecution": [t for t in preferred if t.get("weight")]}
    try:
        # the scheduler's own parsing of the selectors (nodeaffinity.NewNodeSelector and
        # NewPreferredSchedulingTerms), which accepts any weight and no terms
        affinity = parse.node_affinity(added, "addedAffinity", lenient=True)
    except FieldError as e:
        raise ConfigError(e.message, field=e.field) from None
    return NodeAffinityArgs(affinity, bool(preferred))


def _balanced_allocation(a: Data) -> NodeResourcesBalancedAllocationArgs:
    return NodeResourcesBalancedAllocationArgs(_resources(a["resources"]))


def _node_resources_fit(a: Data) -> NodeResourcesFitArgs:
    ss = a["scoringStrategy"]
    rtcr = ss.get("requestedToCapacityRatio")
    return NodeResourcesFitArgs(
        ignored_resources=tuple(a.get("ignoredResources") or ()),
        ignored_resource_groups=tuple(a.get("ignoredResourceGroups") or ()),
        scoring_strategy=ScoringStrategy(
            type=ss.get("type", ""),
            resources=_resources(ss.get("resources") or []),
            requested_to_capacity_ratio=None
            if rtcr is None
            else RequestedToCapacityRatioParam(_shape(rtcr.get("shape") or [])),
        ),
    )


def _policy(value: str | None) -> NodeInclusionPolicy | None:
    # not validated for args: upstream only compares with Honor, anything else ignores
    if not value:
        return None
    return NodeInclusionPolicy.HONOR if value == "Honor" else NodeInclusionPolicy.IGNORE


def default_constraint(c: Data) -> TopologySpreadConstraint:
    """One v1.TopologySpreadConstraint of PodTopologySpreadArgs.defaultConstraints. Its selector
    is NOTHING: validation refuses one given, and each pod's default selector replaces it."""
    when = c.get("whenUnsatisfiable") or ""
    return TopologySpreadConstraint(
        max_skew=c.get("maxSkew", 0) or 0,
        topology_key=c.get("topologyKey", ""),
        when_unsatisfiable=WhenUnsatisfiable(when)
        if when in tuple(WhenUnsatisfiable)
        else WhenUnsatisfiable.DO_NOT_SCHEDULE,
        label_selector=NOTHING,
        min_domains=c.get("minDomains"),
        node_affinity_policy=_policy(c.get("nodeAffinityPolicy")),
        node_taints_policy=_policy(c.get("nodeTaintsPolicy")),
        match_label_keys=tuple(c.get("matchLabelKeys") or ()),
    )


def _pod_topology_spread(a: Data) -> PodTopologySpreadArgs:
    return PodTopologySpreadArgs(a["defaultingType"], tuple(default_constraint(c) for c in a["defaultConstraints"]))


def _volume_binding(a: Data) -> VolumeBindingArgs:
    shape = a.get("shape")
    return VolumeBindingArgs(a["bindTimeoutSeconds"], None if shape is None else _shape(shape))


def _dynamic_resources(a: Data) -> DynamicResourcesArgs:
    return DynamicResourcesArgs(a.get("filterTimeout"), a.get("bindingTimeout"))


_CONVERTERS: dict[str, Callable[[Data], PluginArgs]] = {
    DEFAULT_PREEMPTION: _default_preemption,
    INTER_POD_AFFINITY: _inter_pod_affinity,
    NODE_AFFINITY: _node_affinity,
    BALANCED_ALLOCATION: _balanced_allocation,
    NODE_RESOURCES_FIT: _node_resources_fit,
    POD_TOPOLOGY_SPREAD: _pod_topology_spread,
    VOLUME_BINDING: _volume_binding,
    DYNAMIC_RESOURCES: _dynamic_resources,
}


def convert_args(name: str, data: Data) -> PluginArgs:
    """The typed args of plugin ``name`` (which has an args kind) from its defaulted v1 data."""
    return _CONVERTERS[name](data)
