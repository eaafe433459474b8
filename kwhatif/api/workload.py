"""scheduling.k8s.io Workload and PodGroup (the Workload API of gang scheduling), as the
scheduler reads them.

Types of k8s.io/api/scheduling/v1alpha2 (served in 1.36; v1alpha3 and v1beta1 in 1.37, the same
for the fields kwhatif reads): a Workload lists podGroupTemplates,
each with a schedulingPolicy (``basic: {}`` or ``gang: {minCount: N}``); a PodGroup names the
template it was made from and carries its own copy of the policy, which is what kube-scheduler
reads (1.36 never reads Workload objects). A pod joins a group with
``spec.schedulingGroup.podGroupName``, a PodGroup of its namespace.

Validation is the API server's for the fields kwhatif reads: the one-of policy, minCount at
least 1, the template list (1..8 entries, unique DNS-label names) and the template reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kwhatif.api import fields as f
from kwhatif.errors import FieldError, InputError
from kwhatif.release.versions import WORKLOAD_API_SERVED

GROUP = "scheduling.k8s.io"
KINDS = ("Workload", "PodGroup")
# every apiVersion of the group any release serves (a file may give them; whether the selected
# release serves one is checked once it is known: refuse_unserved)
API_VERSIONS = frozenset(f"{GROUP}/{v}" for by_kind in WORKLOAD_API_SERVED for vs in by_kind.values() for v in vs)

WORKLOAD_MAX_POD_GROUP_TEMPLATES = 8  # WorkloadMaxPodGroupTemplates
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def served_versions(kind: str, served: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The apiVersions of ``kind`` an API server serves, given the release's table (empty: none)."""
    return frozenset(f"{GROUP}/{v}" for v in served.get(kind, frozenset()))


def refuse_unserved(
    objects: Iterable[SchedulingWorkload | PodGroup], served_by_kind: Mapping[str, frozenset[str]], release: str
) -> None:
    """The first object whose apiVersion the API server of ``release`` does not serve is bad input."""
    for obj in objects:
        kind = "Workload" if isinstance(obj, SchedulingWorkload) else "PodGroup"
        served = served_versions(kind, served_by_kind)
        if obj.api_version in served:
            continue
        if served:
            detail = f"the API server of {release} serves {', '.join(sorted(served))}"
        else:
            detail = f"the API server of {release} does not serve {kind}"
        raise InputError(
            f"unknown apiVersion {obj.api_version!r} for {kind} ({detail})",
            source=obj.source or None,
            obj=f"{kind} {obj.namespace}/{obj.name}",
            field="apiVersion",
        )


@dataclass(frozen=True, slots=True)
class SchedulingPolicy:
    """PodGroupSchedulingPolicy: exactly one of basic and gang; min_count is gang's minCount."""

    gang: bool
    min_count: int = 0

    def describe(self) -> str:
        return f"gang (minCount {self.min_count})" if self.gang else "basic"


@dataclass(frozen=True, slots=True)
class PodGroupTemplate:
    name: str
    policy: SchedulingPolicy


@dataclass(frozen=True, slots=True)
class SchedulingWorkload:
    """A scheduling.k8s.io Workload (not a controller: see load.cluster.Workload for those)."""

    namespace: str
    name: str
    api_version: str
    templates: tuple[PodGroupTemplate, ...]
    controller_kind: str = ""
    controller_name: str = ""
    source: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class PodGroup:
    namespace: str
    name: str
    api_version: str
    policy: SchedulingPolicy
    workload_name: str = ""
    template_name: str = ""
    priority_class_name: str = ""
    priority: int | None = None
    topology_keys: tuple[str, ...] = ()
    source: str = ""
    scheduled: bool = False  # status.conditions has PodGroupScheduled=True

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def _policy(d: Mapping[str, Any], path: str) -> SchedulingPolicy:
    basic = f.opt_mapping(d, "basic", path)
    gang = f.opt_mapping(d, "gang", path)
    if basic is not None and gang is not None:
        raise FieldError("Invalid value: must specify exactly one of: `basic`, `gang`", field=path)
    if basic is None and gang is None:
        raise FieldError("Invalid value: must specify one of: `basic`, `gang`", field=path)
    if gang is None:
        return SchedulingPolicy(gang=False)
    gpath = f.join(path, "gang")
    if gang.get("minCount") is None:
        raise f.required(f.join(gpath, "minCount"))
    n = f.integer(gang, "minCount", gpath)
    assert n is not None
    if n < 1:
        raise f.invalid(f.join(gpath, "minCount"), n, "must be greater than or equal to 1")
    return SchedulingPolicy(gang=True, min_count=n)


def _meta(body: Mapping[str, Any]) -> tuple[str, str]:
    meta = f.mapping(body, "metadata", "")
    name = f.string(meta, "name", "metadata")
    if not name:
        raise f.required("metadata.name", "name or generateName is required")
    return f.string(meta, "namespace", "metadata") or "default", name


def workload(body: Mapping[str, Any], source: str = "") -> SchedulingWorkload:
    ns, name = _meta(body)
    version = str(body.get("apiVersion") or "")
    spec = f.mapping(body, "spec", "")
    if version.endswith("/v1alpha1"):
        # 1.35's shape: spec.podGroups[] with a policy each.
        items, key = f.obj_seq(spec, "podGroups", "spec"), "podGroups"
    else:
        items, key = f.obj_seq(spec, "podGroupTemplates", "spec"), "podGroupTemplates"
    path = f"spec.{key}"
    if not items:
        raise f.required(path, "must have at least one item")
    if len(items) > WORKLOAD_MAX_POD_GROUP_TEMPLATES:
        raise FieldError(
            f"Too many: {len(items)}: must have at most {WORKLOAD_MAX_POD_GROUP_TEMPLATES} items", field=path
        )
    seen: set[str] = set()
    templates = []
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        tname = f.string(item, "name", ipath)
        if not tname:
            raise f.required(f.join(ipath, "name"))
        if not _DNS_LABEL.match(tname) or len(tname) > 63:
            raise f.invalid(f.join(ipath, "name"), tname, "must be a valid DNS label")
        if tname in seen:
            raise FieldError(f"Duplicate value: {f.render_value(tname)}", field=f.join(ipath, "name"))
        seen.add(tname)
        templates.append(
            PodGroupTemplate(
                tname, _policy(f.mapping(item, "schedulingPolicy", ipath), f.join(ipath, "schedulingPolicy"))
            )
        )
    ref = f.mapping(spec, "controllerRef", "spec")
    return SchedulingWorkload(
        ns,
        name,
        version,
        tuple(templates),
        f.string(ref, "kind", "spec.controllerRef"),
        f.string(ref, "name", "spec.controllerRef"),
        source,
    )


def pod_group(body: Mapping[str, Any], source: str = "") -> PodGroup:
    ns, name = _meta(body)
    spec = f.mapping(body, "spec", "")
    ref = f.opt_mapping(spec, "podGroupTemplateRef", "spec")
    wl_name = tmpl = ""
    if ref is not None:
        wl = f.mapping(ref, "workload", "spec.podGroupTemplateRef")
        wpath = "spec.podGroupTemplateRef.workload"
        wl_name = f.string(wl, "workloadName", wpath)
        tmpl = f.string(wl, "podGroupTemplateName", wpath)
        if not wl_name:
            raise f.required(f.join(wpath, "workloadName"))
        if not tmpl:
            raise f.required(f.join(wpath, "podGroupTemplateName"))
    policy = _policy(f.mapping(spec, "schedulingPolicy", "spec"), "spec.schedulingPolicy")
    constraints = f.mapping(spec, "schedulingConstraints", "spec")
    keys = []
    for i, t in enumerate(f.obj_seq(constraints, "topology", "spec.schedulingConstraints")):
        tpath = f"spec.schedulingConstraints.topology[{i}]"
        k = f.string(t, "key", tpath)
        if not k:
            raise f.required(f.join(tpath, "key"))
        keys.append(k)
    return PodGroup(
        ns,
        name,
        str(body.get("apiVersion") or ""),
        policy,
        wl_name,
        tmpl,
        f.string(spec, "priorityClassName", "spec"),
        f.integer(spec, "priority", "spec"),
        tuple(keys),
        source,
        any(
            isinstance(c, dict) and c.get("type") == "PodGroupScheduled" and c.get("status") == "True"
            for c in f.seq(f.mapping(body, "status", ""), "conditions", "status")
        ),
    )


def pod_group_name(spec: Mapping[str, Any]) -> str:
    """spec.schedulingGroup.podGroupName of a pod spec ('' when the pod is in no group)."""
    group = f.mapping(spec, "schedulingGroup", "spec")
    return f.string(group, "podGroupName", "spec.schedulingGroup")
