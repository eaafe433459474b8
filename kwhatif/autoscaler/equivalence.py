"""Pod equivalence groups (core/scaleup/equivalence/groups.go, cluster-autoscaler-release-1.36):
pods of one controller with equal labels and semantically equal specs are checked once; a pod
without a controller, or of a DaemonSet, is a group of its own; one controller gets at most ten
groups, its other pods one group each."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Pod

MAX_EQUIVALENCE_GROUPS_BY_CONTROLLER = 10


@dataclass(slots=True)
class PodGroup:
    """equivalence.PodGroup: the pods, and for each node group whether the exemplar fits its
    template (SchedulableGroups) or why not (SchedulingErrors)."""

    pods: list[Pod]
    scheduling_errors: dict[str, str] = field(default_factory=dict)
    schedulable_groups: list[str] = field(default_factory=list)
    schedulable: bool = False

    @property
    def exemplar(self) -> Pod:
        return self.pods[0]


def spec_key(pod: Pod) -> Any:
    """What PodSpecSemanticallyEqual compares (utils/utils.go): the spec without projected volumes
    (service account tokens), hostname and env (which kwhatif does not read)."""
    volumes = tuple(v for v in pod.volumes if v.kind != "projected")
    return dataclasses.replace(
        pod,
        namespace="",
        name="",
        uid="",
        labels={},
        annotations={},
        owner_references=(),
        creation_timestamp=0.0,
        deleting=False,
        node_name="",
        nominated_node_name="",
        phase="",
        start_time=0.0,
        volumes=volumes,
        source="",
        admission_notes=(),
        resource_claim_statuses={},
    )


def build_pod_groups(pods: list[Pod]) -> list[PodGroup]:
    """BuildPodGroups, groups in the order of their first pod."""
    groups: list[PodGroup] = []
    by_controller: dict[str, list[tuple[PodGroup, Pod, Any]]] = {}
    for pod in pods:
        ref = pod.controller_ref
        if ref is None or ref.kind == "DaemonSet":
            groups.append(PodGroup([pod]))
            continue
        uid = ref.uid or f"{pod.namespace}/{ref.kind}/{ref.name}"
        egs = by_controller.setdefault(uid, [])
        key = spec_key(pod)
        found = next((g for g, rep, k in egs if dict(pod.labels) == dict(rep.labels) and k == key), None)
        if found is not None:
            found.pods.append(pod)
            continue
        g = PodGroup([pod])
        if len(egs) < MAX_EQUIVALENCE_GROUPS_BY_CONTROLLER:
            egs.append((g, pod, key))
        groups.append(g)
    return groups
