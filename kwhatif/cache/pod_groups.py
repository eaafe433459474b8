"""The scheduler cache's pod-group state (backend/cache/podgroupstate.go): per PodGroup, the
pods the scheduler knows (bound or pending), which of them are bound, which are assumed in the
cycle in progress. GangScheduling's PreEnqueue counts all of them; its Permit counts the bound
and the assumed ones."""

from __future__ import annotations

from dataclasses import dataclass, field

from kwhatif.api.core import Pod


def group_key(pod: Pod) -> str:
    """ "namespace/podGroupName" of the pod's group; '' when it is in none."""
    return f"{pod.namespace}/{pod.pod_group}" if pod.pod_group else ""


@dataclass(slots=True)
class PodGroupState:
    all_pods: set[str] = field(default_factory=set)  # pod keys
    assigned: set[str] = field(default_factory=set)  # bound (spec.nodeName set)
    assumed: set[str] = field(default_factory=set)

    def all_pods_count(self) -> int:
        return len(self.all_pods)

    def scheduled_pods_count(self) -> int:
        return len(self.assigned) + len(self.assumed)

    def unscheduled(self) -> set[str]:
        return self.all_pods - self.assigned - self.assumed

    def copy(self) -> PodGroupState:
        return PodGroupState(set(self.all_pods), set(self.assigned), set(self.assumed))


@dataclass(slots=True)
class PodGroupStates:
    groups: dict[str, PodGroupState] = field(default_factory=dict)

    def get(self, namespace: str, name: str) -> PodGroupState | None:
        return self.groups.get(f"{namespace}/{name}")

    def copy(self) -> PodGroupStates:
        """An independent copy (a fork of the cluster changes its own)."""
        return PodGroupStates({k: g.copy() for k, g in self.groups.items()})

    def _of(self, pod: Pod) -> PodGroupState | None:
        key = group_key(pod)
        if not key:
            return None
        return self.groups.setdefault(key, PodGroupState())

    def add_pod(self, pod: Pod) -> None:
        g = self._of(pod)
        if g is None:
            return
        g.all_pods.add(pod.key)
        if pod.node_name:
            g.assigned.add(pod.key)

    def delete_pod(self, pod: Pod) -> None:
        g = self.groups.get(group_key(pod))
        if g is not None:
            g.all_pods.discard(pod.key)
            g.assigned.discard(pod.key)
            g.assumed.discard(pod.key)

    def assume(self, pod: Pod) -> None:
        g = self.groups.get(group_key(pod))
        if g is not None and pod.key in g.all_pods and pod.key not in g.assigned:
            g.assumed.add(pod.key)

    def forget(self, pod: Pod) -> None:
        g = self.groups.get(group_key(pod))
        if g is not None:
            g.assumed.discard(pod.key)

    def bind(self, pod: Pod) -> None:
        g = self.groups.get(group_key(pod))
        if g is not None:
            g.assumed.discard(pod.key)
            g.assigned.add(pod.key)
