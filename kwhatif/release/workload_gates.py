"""The feature gates of the Workload API and gang scheduling, as one release has them.

GenericWorkload sends pods with spec.schedulingGroup through the pod-group cycle (without it the
API server drops the field); GangScheduling (needs GenericWorkload) adds the GangScheduling plugin;
TopologyAwareWorkloadScheduling (needs GenericWorkload) and WorkloadAwarePreemption (needs
GangScheduling) change placement and preemption of a group. All four are alpha and off in 1.36
(pkg/features/kube_features.go of v1.36.2).

1.37 no longer has the GangScheduling and WorkloadAwarePreemption gates (kube_features.go at
kubernetes/kubernetes ead35706, 1.37 development; GenericWorkload is beta there, still off by
default). The GangScheduling plugin stays in the registry (plugins/registry.go at 008b3652) and the
scheduler registers the workload-preemption metrics when GenericWorkload is on (metrics.go of 1.37
development), so kwhatif answers 1.37 with the plugin and workload-aware preemption following
GenericWorkload. 1.37's default_plugins.go is not stored: that the default profile adds the plugin
under GenericWorkload is inferred, not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kwhatif.release.versions import SchedulerVersion

GENERIC_WORKLOAD = "GenericWorkload"
GANG_SCHEDULING = "GangScheduling"
TOPOLOGY_AWARE = "TopologyAwareWorkloadScheduling"
WORKLOAD_AWARE_PREEMPTION = "WorkloadAwarePreemption"
GATES = (GENERIC_WORKLOAD, GANG_SCHEDULING, TOPOLOGY_AWARE, WORKLOAD_AWARE_PREEMPTION)
# kube_features.go's dependencies: a gate on needs these on too.
DEPENDS_ON: Mapping[str, str] = {
    GANG_SCHEDULING: GENERIC_WORKLOAD,
    TOPOLOGY_AWARE: GENERIC_WORKLOAD,
    WORKLOAD_AWARE_PREEMPTION: GANG_SCHEDULING,
}


@dataclass(frozen=True, slots=True)
class GangGates:
    generic_workload: bool = False
    gang_scheduling: bool = False
    topology_aware: bool = False
    workload_aware_preemption: bool = False

    @property
    def any(self) -> bool:
        return self.generic_workload


def gang_gates(version: SchedulerVersion, overrides: Mapping[str, bool]) -> GangGates:
    """The state of the gang gates under ``version`` with ``overrides`` (gate -> value) applied
    over the release's defaults. A gate the release does not know stays off."""

    def on(name: str) -> bool:
        if not version.has_gate(name):
            return False
        return bool(overrides.get(name, version.gate(name)))

    generic = on(GENERIC_WORKLOAD)

    def follows_generic(name: str) -> bool:
        """A gang gate the release no longer has (1.37 on) follows GenericWorkload."""
        if version.has_gate(name) or not version.behaviour.gang_follows_generic_workload:
            return on(name)
        return generic

    return GangGates(
        generic, follows_generic(GANG_SCHEDULING), on(TOPOLOGY_AWARE), follows_generic(WORKLOAD_AWARE_PREEMPTION)
    )


def dependency_errors(version: SchedulerVersion, overrides: Mapping[str, bool]) -> list[str]:
    """kube-scheduler refuses to start when a gate is on and a gate it depends on is off
    (featureGate.SetFromMap's check); its words, one message per such gate."""
    g = gang_gates(version, overrides)
    state = {
        GENERIC_WORKLOAD: g.generic_workload,
        GANG_SCHEDULING: g.gang_scheduling,
        TOPOLOGY_AWARE: g.topology_aware,
        WORKLOAD_AWARE_PREEMPTION: g.workload_aware_preemption,
    }
    return [
        f"{name} is enabled, but depends on features that are disabled: [{dep}]"
        for name, dep in DEPENDS_ON.items()
        if version.has_gate(name) and state[name] and not state[dep]
    ]
