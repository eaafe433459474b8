"""What the configuration tests share: the document header, kube-scheduler 1.30.6's default
plugin lists, and parsing as that release (PINNED) does."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.config.load import parse_configuration
from kwhatif.config.types import ResourceSpec, ScoringStrategy
from kwhatif.errors import ConfigError
from kwhatif.framework.runtime import Framework

from builders import PINNED, make_framework, make_node

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

DEFAULT_SCORE = [
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "VolumeBinding",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
]
DEFAULT_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}
DEFAULT_FILTER = [
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
]
DEFAULT_PRE_FILTER = [
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
]


CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
FIT_DEFAULT_STRATEGY = ScoringStrategy("LeastAllocated", CPU_MEMORY)


def parse(body: str) -> Any:
    return parse_configuration(HEADER + body, "sched.yaml", PINNED)


def framework(prof: Any) -> Framework:
    return make_framework([make_node().name("n1").obj()], profile=prof)


def raises(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_configuration(text, "sched.yaml", PINNED)
    return info.value
