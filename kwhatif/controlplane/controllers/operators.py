"""Custom resources of common operators whose manifests declare their pods: the built-in
controllers' objects each operator creates, so `check` places the pods they would run.

Each kind is reduced to the workloads its operator creates, built from the templates of the
manifest (their pods then meet admission and the scheduler like any other):

- LeaderWorkerSet (leaderworkerset.x-k8s.io, sigs.k8s.io/lws pkg/controllers): spec.replicas
  groups of spec.leaderWorkerTemplate.size pods; the leader StatefulSet names each group's leader
  ``<lws>-<group>`` (leaderTemplate, else workerTemplate), and each group's worker StatefulSet
  ``<lws>-<group>`` its workers ``<lws>-<group>-<1..size-1>``. The
  ``leaderworkerset.sigs.k8s.io/exclusive-topology`` annotation puts every pod of a group in one
  domain of that topology, alone (pkg/webhooks/pod_webhook.go SetExclusiveAffinities: a required
  pod affinity to its group's key, a required anti-affinity to any other group's).
- JobSet (jobset.x-k8s.io, sigs.k8s.io/jobset): spec.replicatedJobs[].replicas Jobs
  ``<jobset>-<replicatedJob>-<index>`` of the replicated job's Job template (each Job then runs its
  pods as the Job controller does).
- RayCluster (ray.io, ray-project/kuberay ray-operator): one head pod, and for each worker group
  clamp(replicas, minReplicas, maxReplicas) x numOfHosts pods (utils.GetWorkerGroupDesiredReplicas);
  a RayJob, the RayCluster of its spec.rayClusterSpec.
- The Kubeflow training jobs (kubeflow.org: PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob,
  JAXJob, MXJob): for each replica type, its replicas (default 1) pods ``<job>-<type>-<index>``.

A suspended object (spec.suspend; a Kubeflow job's spec.runPolicy.suspend) creates no pods until
it is resumed (Kueue resumes the objects it admits): `check` says so, unless --admit-suspended.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kwhatif.api import fields as f
from kwhatif.api.fields import Dict
from kwhatif.cache.cluster import Workload
from kwhatif.errors import FieldError, InputError

_INT32_MAX = (1 << 31) - 1
# more pods than this in one check is a mistake, not a what-if (whatif/check.py's MAX_PODS)
MAX_PODS = 100_000

# sigs.k8s.io/lws api/leaderworkerset/v1 well-known names
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
LWS_GROUP_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/group-index"
LWS_GROUP_KEY_LABEL = "leaderworkerset.sigs.k8s.io/group-key"
LWS_EXCLUSIVE_ANNOTATION = "leaderworkerset.sigs.k8s.io/exclusive-topology"
# sigs.k8s.io/jobset api/jobset/v1alpha2
JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
JOBSET_REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
JOBSET_JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"
# kuberay ray-operator/controllers/ray/utils/constant.go
RAY_CLUSTER_LABEL = "ray.io/cluster"
RAY_NODE_TYPE_LABEL = "ray.io/node-type"
RAY_GROUP_LABEL = "ray.io/group"
# kubeflow training-operator and mpi-operator
KUBEFLOW_JOB_NAME_LABEL = "training.kubeflow.org/job-name"
KUBEFLOW_REPLICA_TYPE_LABEL = "training.kubeflow.org/replica-type"

# kubeflow.org kinds and the field that holds their replica specs
KUBEFLOW_REPLICA_SPECS = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
    "MXJob": "mxReplicaSpecs",
}
# the order the replica types are created in (the launcher and the masters first)
_TYPE_ORDER = ("Launcher", "Master", "Chief", "Scheduler", "Server", "PS", "Worker", "Evaluator")


@dataclass(frozen=True, slots=True)
class Part:
    """A built-in workload the operator creates, and where its pod template is in the manifest
    (``template``: the path of the pod template; errors inside it name the manifest's field)."""

    workload: Workload
    template: str


@dataclass(frozen=True, slots=True)
class Expansion:
    parts: tuple[Part, ...]
    describe: str  # how the pods are counted, for the report
    suspended: str | None  # the field that suspends the object, when it is set


def known(api_version: str, kind: str) -> bool:
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    return (group, kind) in _EXPANDERS


def expansion(api_version: str, kind: str, namespace: str, name: str, body: Dict, source: str) -> Expansion | None:
    """The workloads ``body``'s operator creates, or None for a kind kwhatif does not know."""
    group = api_version.split("/", 1)[0] if "/" in api_version else ""
    expand = _EXPANDERS.get((group, kind))
    if expand is None:
        return None
    return expand(_Obj(kind, namespace, name, body, source))


@dataclass(frozen=True, slots=True)
class _Obj:
    kind: str
    namespace: str
    name: str
    body: Dict
    source: str

    def workload(self, kind: str, name: str, spec: dict[str, Any], labels: dict[str, str]) -> Workload:
        api = "batch/v1" if kind == "Job" else "apps/v1"
        body = {
            "apiVersion": api,
            "kind": kind,
            "metadata": {"name": name, "namespace": self.namespace, "labels": dict(labels)},
            "spec": spec,
        }
        return Workload(kind, self.namespace, name, "", body, self.source)


def _count(d: Dict, key: str, path: str, default: int) -> int:
    n = f.integer(d, key, path, default)
    assert n is not None
    if n < 0:
        raise f.invalid(f"{path}.{key}", n, "must be greater than or equal to 0")
    if n > _INT32_MAX:
        raise f.invalid(f"{path}.{key}", n, "must fit in a 32-bit integer")
    return n


def _pod_template(parent: Dict, key: str, path: str, labels: dict[str, str], restart: str | None) -> dict[str, Any]:
    """A copy of the pod template ``parent[key]`` with the operator's labels (and, for a
    StatefulSet stand-in, restartPolicy Always: the operator's pods keep their own, which the
    scheduler never reads)."""
    tmpl = copy.deepcopy(dict(f.mapping(parent, key, path)))
    meta = tmpl.get("metadata")
    meta = dict(meta) if isinstance(meta, dict) else {}
    old = meta.get("labels")
    meta["labels"] = {**(old if isinstance(old, dict) else {}), **labels}
    tmpl["metadata"] = meta
    spec = tmpl.get("spec")
    if not isinstance(spec, dict):
        raise f.required(f"{path}.{key}.spec")
    if restart is not None:
        spec["restartPolicy"] = restart
    return tmpl


def _stateful(
    obj: _Obj, name: str, replicas: int, template: dict[str, Any], labels: dict[str, str], start: int = 0
) -> Workload:
    """A StatefulSet of Parallel pods ``<name>-<start..>``: the pods an operator names by index."""
    spec = {
        "replicas": replicas,
        "podManagementPolicy": "Parallel",
        "serviceName": name,
        "selector": {"matchLabels": dict(labels)},
        "template": template,
    }
    if start:
        spec["ordinals"] = {"start": start}
    return obj.workload("StatefulSet", name, spec, labels)


def _bound(obj: _Obj, pods: int, field: str) -> None:
    """Refuse, before anything is built, an object that asks for more pods than one check places."""
    if pods > MAX_PODS:
        raise InputError(
            f"{field} would make {pods} pods, more than {MAX_PODS} to place in one check",
            source=obj.source,
            obj=f"{obj.kind} {obj.namespace}/{obj.name}",
        )


def _suspended(d: Dict, path: str) -> str | None:
    return f"{path}.suspend" if f.boolean(d, "suspend", path) else None


# --- LeaderWorkerSet ----------------------------------------------------------------------------


def _exclusive(template: dict[str, Any], group_key: str, topology: str) -> None:
    """SetExclusiveAffinities: the group's pods share one domain of ``topology``, alone."""
    spec = template["spec"]
    affinity = spec.get("affinity")
    affinity = dict(affinity) if isinstance(affinity, dict) else {}
    for kind, expressions in (
        ("podAffinity", [{"key": LWS_GROUP_KEY_LABEL, "operator": "In", "values": [group_key]}]),
        (
            "podAntiAffinity",
            [
                {"key": LWS_GROUP_KEY_LABEL, "operator": "Exists"},
                {"key": LWS_GROUP_KEY_LABEL, "operator": "NotIn", "values": [group_key]},
            ],
        ),
    ):
        section = affinity.get(kind)
        section = dict(section) if isinstance(section, dict) else {}
        terms = section.get("requiredDuringSchedulingIgnoredDuringExecution")
        terms = list(terms) if isinstance(terms, list) else []
        terms.append({"labelSelector": {"matchExpressions": expressions}, "topologyKey": topology})
        section["requiredDuringSchedulingIgnoredDuringExecution"] = terms
        affinity[kind] = section
    spec["affinity"] = affinity


def _leader_worker_set(obj: _Obj) -> Expansion:
    spec = f.mapping(obj.body, "spec", "")
    replicas = _count(spec, "replicas", "spec", 1)
    lwt = f.mapping(spec, "leaderWorkerTemplate", "spec")
    path = "spec.leaderWorkerTemplate"
    size = _count(lwt, "size", path, 1)
    if size < 1:
        raise f.invalid(f"{path}.size", size, "must be greater than or equal to 1")
    _bound(obj, replicas * size, "spec.replicas x spec.leaderWorkerTemplate.size")
    leader_key = "leaderTemplate" if isinstance(lwt.get("leaderTemplate"), dict) else "workerTemplate"
    annotations = f.str_map(f.mapping(obj.body, "metadata", ""), "annotations", "metadata")
    topology = annotations.get(LWS_EXCLUSIVE_ANNOTATION)
    parts: list[Part] = []
    for group in range(replicas):
        leader = f"{obj.name}-{group}"
        # genGroupUniqueKey: sha1 of "<namespace>/<leader pod name>"
        group_key = hashlib.sha1(f"{obj.namespace}/{leader}".encode()).hexdigest()
        labels = {LWS_NAME_LABEL: obj.name, LWS_GROUP_INDEX_LABEL: str(group), LWS_GROUP_KEY_LABEL: group_key}
        tmpl = _pod_template(lwt, leader_key, path, labels, "Always")
        if topology:
            _exclusive(tmpl, group_key, topology)
        parts.append(Part(_stateful(obj, obj.name, 1, tmpl, labels, start=group), f"{path}.{leader_key}"))
        if size > 1:
            tmpl = _pod_template(lwt, "workerTemplate", path, labels, "Always")
            if topology:
                _exclusive(tmpl, group_key, topology)
            parts.append(Part(_stateful(obj, leader, size - 1, tmpl, labels, start=1), f"{path}.workerTemplate"))
    how = (
        f"LeaderWorkerSet: {replicas} group(s) of {size} pod(s) (spec.replicas {replicas} x "
        f"spec.leaderWorkerTemplate.size {size}): a leader {obj.name}-<group> and its workers "
        f"{obj.name}-<group>-<n>, as the LeaderWorkerSet controller's StatefulSets create them"
    )
    if topology:
        how += f"; exclusive placement: each group alone in one {topology} domain"
    return Expansion(tuple(parts), how, None)


# --- JobSet ------------------------------------------------------------------------------------


def _job_set(obj: _Obj) -> Expansion:
    spec = f.mapping(obj.body, "spec", "")
    parts: list[Part] = []
    counts: list[str] = []
    total = 0
    for i, rj in enumerate(f.obj_seq(spec, "replicatedJobs", "spec")):
        path = f"spec.replicatedJobs[{i}]"
        rj_name = f.string(rj, "name", path)
        if not rj_name:
            raise f.required(f"{path}.name")
        replicas = _count(rj, "replicas", path, 1)
        total += replicas
        _bound(obj, total, "the replicas of spec.replicatedJobs")
        job_template = f.mapping(rj, "template", path)
        job_spec = f.mapping(job_template, "spec", f"{path}.template")
        for index in range(replicas):
            labels = {
                JOBSET_NAME_LABEL: obj.name,
                JOBSET_REPLICATED_JOB_LABEL: rj_name,
                JOBSET_JOB_INDEX_LABEL: str(index),
            }
            job = copy.deepcopy(dict(job_spec))
            job["template"] = _pod_template(job_spec, "template", f"{path}.template.spec", labels, None)
            job.pop("suspend", None)  # the JobSet's suspension decides
            name = f"{obj.name}-{rj_name}-{index}"
            parts.append(Part(obj.workload("Job", name, job, labels), f"{path}.template.spec.template"))
        counts.append(f"{rj_name}: {replicas} Job(s)")
    how = (
        "JobSet: the Jobs <jobset>-<replicatedJob>-<index> of its replicated jobs ("
        + ", ".join(counts)
        + "), each running its pods as the Job controller does"
    )
    return Expansion(tuple(parts), how, _suspended(spec, "spec"))


# --- RayCluster --------------------------------------------------------------------------------


def _ray_cluster(obj: _Obj) -> Expansion:
    spec = f.mapping(obj.body, "spec", "")
    parts, how = _ray_pods(obj, spec, "spec")
    return Expansion(tuple(parts), f"RayCluster: {how}", _suspended(spec, "spec"))


def _ray_job(obj: _Obj) -> Expansion:
    """A RayJob's RayCluster, made from spec.rayClusterSpec (its submitter pod, which the
    operator builds itself, is not counted)."""
    spec = f.mapping(obj.body, "spec", "")
    cluster = f.opt_mapping(spec, "rayClusterSpec", "spec")
    if cluster is None:
        # a RayJob that runs on an existing cluster (spec.clusterSelector) creates no pods of its own
        return Expansion((), "RayJob: it runs on an existing RayCluster (no spec.rayClusterSpec)", None)
    parts, how = _ray_pods(obj, cluster, "spec.rayClusterSpec")
    how = f"RayJob: the RayCluster of its spec.rayClusterSpec, {how}; its submitter pod is not counted"
    return Expansion(tuple(parts), how, _suspended(spec, "spec"))


def _ray_pods(obj: _Obj, spec: Dict, at: str) -> tuple[list[Part], str]:
    head = f.mapping(spec, "headGroupSpec", at)
    labels = {RAY_CLUSTER_LABEL: obj.name, RAY_NODE_TYPE_LABEL: "head", RAY_GROUP_LABEL: "headgroup"}
    tmpl = _pod_template(head, "template", f"{at}.headGroupSpec", labels, "Always")
    parts = [Part(_stateful(obj, f"{obj.name}-head", 1, tmpl, labels), f"{at}.headGroupSpec.template")]
    counts = ["head 1"]
    total = 1
    for i, group in enumerate(f.obj_seq(spec, "workerGroupSpecs", at)):
        path = f"{at}.workerGroupSpecs[{i}]"
        group_name = f.string(group, "groupName", path) or str(i)
        lo = _count(group, "minReplicas", path, 0)
        hi = _count(group, "maxReplicas", path, _INT32_MAX)
        hosts = _count(group, "numOfHosts", path, 1)
        raw = f.integer(group, "replicas", path)
        # GetWorkerGroupDesiredReplicas: replicas kept within [minReplicas, maxReplicas], times
        # numOfHosts; a suspended group runs none
        if f.boolean(group, "suspend", path):
            want = 0
        elif lo > hi:
            want = hi
        elif raw is None or raw < lo:
            want = lo
        else:
            want = min(raw, hi)
        pods = want * hosts
        total += pods
        _bound(obj, total, "the replicas of spec.workerGroupSpecs")
        counts.append(f"{group_name} {want} x numOfHosts {hosts}" if hosts != 1 else f"{group_name} {want}")
        if pods:
            wl = {RAY_CLUSTER_LABEL: obj.name, RAY_NODE_TYPE_LABEL: "worker", RAY_GROUP_LABEL: group_name}
            tmpl = _pod_template(group, "template", path, wl, "Always")
            name = f"{obj.name}-{group_name}-worker"
            parts.append(Part(_stateful(obj, name, pods, tmpl, wl), f"{path}.template"))
    return parts, "its head pod and its worker groups' pods (" + ", ".join(counts) + ")"


# --- Kubeflow training jobs ----------------------------------------------------------------------


def _kubeflow_job(obj: _Obj) -> Expansion:
    spec = f.mapping(obj.body, "spec", "")
    key = KUBEFLOW_REPLICA_SPECS[obj.kind]
    specs = f.mapping(spec, key, "spec")
    order = {t: i for i, t in enumerate(_TYPE_ORDER)}
    parts: list[Part] = []
    counts: list[str] = []
    total = 0
    for rtype in sorted(specs, key=lambda t: (order.get(str(t), len(order)), str(t))):
        path = f"spec.{key}.{rtype}"
        rspec = f.mapping(specs, str(rtype), f"spec.{key}")
        replicas = _count(rspec, "replicas", path, 1)
        total += replicas
        _bound(obj, total, f"the replicas of spec.{key}")
        counts.append(f"{rtype} {replicas}")
        if not replicas:
            continue
        lower = str(rtype).lower()
        labels = {KUBEFLOW_JOB_NAME_LABEL: obj.name, KUBEFLOW_REPLICA_TYPE_LABEL: lower}
        tmpl = _pod_template(rspec, "template", path, labels, "Always")
        parts.append(Part(_stateful(obj, f"{obj.name}-{lower}", replicas, tmpl, labels), f"{path}.template"))
    how = f"{obj.kind}: the pods <job>-<type>-<index> of its replica types (" + ", ".join(counts) + ")"
    run_policy = f.mapping(spec, "runPolicy", "spec")
    return Expansion(tuple(parts), how, _suspended(run_policy, "spec.runPolicy"))


_EXPANDERS: dict[tuple[str, str], Callable[[_Obj], Expansion]] = {
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): _leader_worker_set,
    ("jobset.x-k8s.io", "JobSet"): _job_set,
    ("ray.io", "RayCluster"): _ray_cluster,
    ("ray.io", "RayJob"): _ray_job,
    **{("kubeflow.org", kind): _kubeflow_job for kind in KUBEFLOW_REPLICA_SPECS},
}


def remap(error: FieldError, template: str) -> FieldError:
    """An error of a stand-in workload's pod template, named by the manifest's own field."""

    def inside(p: str | None) -> str:
        if p is None:
            return template
        for prefix in ("spec.template", "spec.jobTemplate.spec.template"):
            if p == prefix or p.startswith(prefix + "."):
                return template + p[len(prefix) :]
        return p

    return FieldError(error.message, field=inside(error.field), more=tuple((inside(p), m) for p, m in error.more))
