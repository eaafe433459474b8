"""`kwhatif check`: will the workloads in these manifests fit on the cluster?

Manifests may hold workloads (expanded into the pods their controllers would create), bare Pods,
and the objects that come with them (PriorityClasses, Services, PersistentVolumeClaims, ...),
which join the cluster state first. A workload that already runs in the cluster is updated: its
current pods leave before the new ones are placed, unless ``surge`` keeps them (the worst moment
of a rolling update).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Pod
from kwhatif.errors import InputError
from kwhatif.load.cluster import WORKLOAD_KINDS, ClusterState, Workload, build_cluster, classify
from kwhatif.load.files import Document
from kwhatif.load.pods import pods_from_documents, prepare_incoming
from kwhatif.scheduler import Attempt, Scheduler


@dataclass(slots=True)
class CheckedWorkload:
    kind: str
    namespace: str
    name: str
    source: str
    desired: int
    pods: list[Pod]
    replaced: int = 0  # pods of the running version taken out first
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(slots=True)
class CheckResult:
    workloads: list[CheckedWorkload]
    attempts: list[Attempt]
    skipped: dict[str, int] = field(default_factory=dict)  # kinds in the manifests kwhatif does not read


# More pods than this in one check is a mistake (or a typo in replicas), not a what-if.
MAX_PODS = 100_000


def merge_objects(state: ClusterState, docs: list[Document]) -> None:
    """Objects of the manifests other than Pods and workloads join (or replace) the cluster's."""
    extra = build_cluster(docs, check_node_refs=False)
    if extra.nodes:
        raise InputError("manifests to check may not hold Nodes; use --add-node to add nodes", obj=f"Node {next(iter(extra.nodes))}")
    for maps in ("namespaces", "priority_classes", "runtime_classes", "pvs", "pvcs", "storage_classes", "csi_drivers",
                 "device_classes", "resource_claims", "resource_claim_templates"):
        getattr(state, maps).update(getattr(extra, maps))
    names = {s.name for s in extra.resource_slices}
    state.resource_slices = [s for s in state.resource_slices if s.name not in names] + extra.resource_slices
    for svc in extra.services:
        state.services = [s for s in state.services if (s.namespace, s.name) != (svc.namespace, svc.name)] + [svc]
    for pdb in extra.pdbs:
        state.pdbs = [p for p in state.pdbs if (p.namespace, p.name) != (pdb.namespace, pdb.name)] + [pdb]


def check(
    state: ClusterState,
    docs: list[Document],
    sched_factory: Any,
    *,
    surge: bool = False,
    profile: str | None = None,
) -> tuple[CheckResult, Scheduler]:
    from kwhatif.load import workloads as wl

    workload_docs: list[Document] = []
    pod_docs: list[Document] = []
    other_docs: list[Document] = []
    skipped: dict[str, int] = {}
    for d in docs:
        kind = classify(d)
        if kind is None:
            skipped[d.kind] = skipped.get(d.kind, 0) + 1
            continue
        if kind in WORKLOAD_KINDS:
            workload_docs.append(d)
        elif kind == "Pod":
            pod_docs.append(d)
        else:
            other_docs.append(d)
    if other_docs:
        merge_objects(state, other_docs)
    manifest_state = build_cluster(workload_docs, check_node_refs=False)
    checked: list[CheckedWorkload] = []
    index = 0
    planned = 0
    for w in sorted(manifest_state.workloads.values(), key=lambda w: _doc_order(workload_docs, w)):
        replaced = running = 0
        current = state.workloads.get(w.key)
        if current is not None:
            gone = wl.owned_pods(current, state)
            keys = {p.key for p in gone}
            running = len(keys)
            if not surge:
                replaced = running
                state.pods = [p for p in state.pods if p.key not in keys]
                state.pending_pods = [p for p in state.pending_pods if p.key not in keys]
        _check_size(w, planned)
        exp = wl.expand_workload(w, state, index=index)
        index += 1
        planned += len(exp.pods)
        for pvc in exp.pvcs:
            state.pvcs.setdefault(pvc.key, pvc)
        state.workloads[w.key] = w
        cw = CheckedWorkload(w.kind, w.namespace, w.name, w.source, exp.desired, list(exp.pods), replaced, list(exp.notes))
        if current is not None:
            cw.notes.append(
                f"updates the running {w.kind}: its {running} current pod(s) keep running (--surge)" if surge
                else f"updates the running {w.kind}: its {replaced} current pod(s) leave first"
            )
        checked.append(cw)
    bare, _ = pods_from_documents(pod_docs, state)
    bare = prepare_incoming(bare, state, replace_existing=not surge)
    for pod, doc in zip(bare, pod_docs):
        checked.append(CheckedWorkload("Pod", pod.namespace, pod.name, doc.source, 1, [pod]))
    if not checked:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items()))
        raise InputError(
            "no workloads or pods to check in the manifests" + (f" (not read: {kinds})" if kinds else "")
        )
    all_pods = [p for cw in checked for p in cw.pods]
    _controller_claims(state, all_pods)
    if profile:
        import dataclasses

        all_pods = [dataclasses.replace(p, scheduler_name=profile) for p in all_pods]
        for cw in checked:
            cw.pods = [dataclasses.replace(p, scheduler_name=profile) for p in cw.pods]
    sched: Scheduler = sched_factory(state)
    attempts = sched.run(all_pods, skip_unchanged=True)
    return CheckResult(checked, attempts, skipped), sched


def _check_size(w: Workload, planned: int) -> None:
    spec: dict[str, Any] = w.body.get("spec") if isinstance(w.body.get("spec"), dict) else {}  # type: ignore[assignment]
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    job: dict[str, Any] = job_spec if isinstance(job_spec, dict) else spec
    for key in ("replicas", "parallelism"):
        n = job.get(key)
        if isinstance(n, int) and not isinstance(n, bool) and planned + n > MAX_PODS:
            raise InputError(
                f"{key} {n} would make more than {MAX_PODS} pods to place in one check",
                source=w.source,
                obj=f"{w.kind} {w.namespace}/{w.name}",
                field=f"spec.{key}" if job is spec else f"spec.jobTemplate.spec.{key}",
            )


def _controller_claims(state: ClusterState, pods: list[Pod]) -> None:
    """What the controllers around the scheduler do for new pods before they are scheduled: the
    ephemeral volume controller creates each generic ephemeral volume's claim, and an external
    provisioner binds a claim of an Immediate StorageClass right away (to a new volume without
    topology). WaitForFirstConsumer claims stay for VolumeBinding to decide."""
    from kwhatif.api import storage

    for pod in pods:
        for v in pod.volumes:
            if v.kind != "ephemeral" or not v.ephemeral_claim:
                continue
            name = f"{pod.name}-{v.name}"
            key = f"{pod.namespace}/{name}"
            if key in state.pvcs:
                continue
            body = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": name,
                    "namespace": pod.namespace,
                    "uid": f"kwhatif-ephemeral-{pod.namespace}-{name}",
                    "ownerReferences": [
                        {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}
                    ],
                },
                "spec": dict(v.ephemeral_spec or {}),
            }
            pvc = storage.persistent_volume_claim(body)
            if pvc.storage_class_name is None:
                default = _default_class(state)
                if default:
                    pvc = dataclasses.replace(pvc, storage_class_name=default, spec_storage_class_name=default)
            state.pvcs[key] = pvc
    for key, pvc in list(state.pvcs.items()):
        if pvc.volume_name or not pvc.uid.startswith("kwhatif-"):
            continue
        sc = state.storage_classes.get(pvc.storage_class_name or "")
        if sc is None or sc.volume_binding_mode != "Immediate" or sc.provisioner == "kubernetes.io/no-provisioner":
            continue
        pv_name = f"pvc-{pvc.uid}"
        pv = storage.persistent_volume(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": pv_name, "uid": f"kwhatif-pv-{pvc.uid}", "resourceVersion": "1"},
                "spec": {
                    "capacity": {"storage": str(math.ceil(pvc.request or 0))},
                    "accessModes": list(pvc.access_modes) or ["ReadWriteOnce"],
                    "storageClassName": sc.name,
                    "claimRef": {"namespace": pvc.namespace, "name": pvc.name, "uid": pvc.uid},
                    "csi": {"driver": sc.provisioner, "volumeHandle": pv_name},
                },
                "status": {"phase": "Bound"},
            }
        )
        state.pvs[pv_name] = pv
        annotations = dict(pvc.annotations)
        annotations["pv.kubernetes.io/bind-completed"] = "yes"
        state.pvcs[key] = dataclasses.replace(pvc, volume_name=pv_name, phase="Bound", annotations=annotations)


def _default_class(state: ClusterState) -> str | None:
    from kwhatif.load.workloads import default_storage_class

    return default_storage_class(state)


def _doc_order(docs: list[Document], w: Workload) -> int:
    for i, d in enumerate(docs):
        if d.source == w.source:
            return i
    return len(docs)
