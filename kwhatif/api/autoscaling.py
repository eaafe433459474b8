"""HorizontalPodAutoscaler (autoscaling/v1 and v2): the replica bounds the HPA controller keeps
its target within."""

from __future__ import annotations

from dataclasses import dataclass

from kwhatif.api import fields as f
from kwhatif.api.fields import Dict
from kwhatif.api.parse import name_of, namespace_of


@dataclass(frozen=True, slots=True)
class HorizontalPodAutoscaler:
    namespace: str
    name: str
    target_kind: str
    target_name: str
    target_api_version: str
    min_replicas: int  # defaulted to 1
    max_replicas: int

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def horizontal_pod_autoscaler(d: Dict) -> HorizontalPodAutoscaler:
    """The object after defaulting (minReplicas 1), checked as ValidateHorizontalPodAutoscaler
    checks the fields read here."""
    spec = f.mapping(d, "spec", "")
    ref = f.mapping(spec, "scaleTargetRef", "spec")
    kind = f.string(ref, "kind", "spec.scaleTargetRef")
    name = f.string(ref, "name", "spec.scaleTargetRef")
    if not kind:
        raise f.required("spec.scaleTargetRef.kind")
    if not name:
        raise f.required("spec.scaleTargetRef.name")
    min_replicas = f.integer(spec, "minReplicas", "spec", 1)
    assert min_replicas is not None
    max_replicas = f.integer(spec, "maxReplicas", "spec")
    if max_replicas is None:
        raise f.required("spec.maxReplicas")
    if min_replicas < 1:
        # minReplicas 0 needs the HPAScaleToZero gate, off by default
        raise f.invalid("spec.minReplicas", min_replicas, "must be greater than or equal to 1")
    if max_replicas < 1:
        raise f.invalid("spec.maxReplicas", max_replicas, "must be greater than 0")
    if max_replicas < min_replicas:
        raise f.invalid("spec.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`")
    return HorizontalPodAutoscaler(
        namespace_of(d),
        name_of(d),
        kind,
        name,
        f.string(ref, "apiVersion", "spec.scaleTargetRef"),
        min_replicas,
        max_replicas,
    )
