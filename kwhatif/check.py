"""`kwhatif check`: will the workloads in these manifests fit on the cluster?

Manifests may hold workloads (expanded into the pods their controllers would create), bare Pods,
and the objects that come with them (PriorityClasses, Services, PersistentVolumeClaims, ...),
which join the cluster state first. A workload that already runs in the cluster is updated: its
current pods leave before the new ones are placed, unless ``surge`` keeps them (the worst moment
of a rolling update).
"""

from __future__ import annotations

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
    merged_objects: int = 0


def merge_objects(state: ClusterState, docs: list[Document]) -> int:
    """Objects of the manifests other than Pods and workloads join (or replace) the cluster's."""
    extra = build_cluster(docs, check_node_refs=False)
    n = 0
    for name, ns in extra.namespaces.items():
        state.namespaces[name] = ns
        n += 1
    for name, pc in extra.priority_classes.items():
        state.priority_classes[name] = pc
        n += 1
    for name, rc in extra.runtime_classes.items():
        state.runtime_classes[name] = rc
        n += 1
    for svc in extra.services:
        state.services = [s for s in state.services if (s.namespace, s.name) != (svc.namespace, svc.name)] + [svc]
        n += 1
    for pdb in extra.pdbs:
        state.pdbs = [p for p in state.pdbs if (p.namespace, p.name) != (pdb.namespace, pdb.name)] + [pdb]
        n += 1
    for maps in ("pvs", "pvcs", "storage_classes", "csi_drivers"):
        src = getattr(extra, maps)
        getattr(state, maps).update(src)
        n += len(src)
    if extra.nodes:
        raise InputError("manifests to check may not hold Nodes; use --add-node to add nodes", obj=f"Node {next(iter(extra.nodes))}")
    return n


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
    for d in docs:
        kind = classify(d)
        if kind is None:
            continue
        if kind in WORKLOAD_KINDS:
            workload_docs.append(d)
        elif kind == "Pod":
            pod_docs.append(d)
        else:
            other_docs.append(d)
    merged = merge_objects(state, other_docs) if other_docs else 0
    manifest_state = build_cluster(workload_docs, check_node_refs=False)
    checked: list[CheckedWorkload] = []
    index = 0
    for w in sorted(manifest_state.workloads.values(), key=lambda w: _doc_order(workload_docs, w)):
        replaced = 0
        current = state.workloads.get(w.key)
        if current is not None and not surge:
            gone = wl.owned_pods(current, state)
            keys = {p.key for p in gone}
            replaced = len(keys)
            state.pods = [p for p in state.pods if p.key not in keys]
            state.pending_pods = [p for p in state.pending_pods if p.key not in keys]
        exp = wl.expand_workload(w, state, index=index)
        index += 1
        for pvc in exp.pvcs:
            state.pvcs.setdefault(pvc.key, pvc)
        state.workloads[w.key] = w
        cw = CheckedWorkload(w.kind, w.namespace, w.name, w.source, exp.desired, list(exp.pods), replaced, list(exp.notes))
        if current is not None:
            cw.notes.append(
                f"updates the running {w.kind}: {replaced} current pod(s) kept (--surge)" if surge
                else f"updates the running {w.kind}: its {replaced} current pod(s) leave first"
            )
        checked.append(cw)
    bare, _ = pods_from_documents(pod_docs, state)
    bare = prepare_incoming(bare, state, replace_existing=not surge)
    for pod, doc in zip(bare, pod_docs):
        checked.append(CheckedWorkload("Pod", pod.namespace, pod.name, doc.source, 1, [pod]))
    all_pods = [p for cw in checked for p in cw.pods]
    if profile:
        import dataclasses

        all_pods = [dataclasses.replace(p, scheduler_name=profile) for p in all_pods]
        for cw in checked:
            cw.pods = [dataclasses.replace(p, scheduler_name=profile) for p in cw.pods]
    sched: Scheduler = sched_factory(state)
    attempts = sched.run(all_pods, skip_unchanged=True)
    return CheckResult(checked, attempts, merged), sched


def _doc_order(docs: list[Document], w: Workload) -> int:
    for i, d in enumerate(docs):
        if d.source == w.source:
            return i
    return len(docs)
