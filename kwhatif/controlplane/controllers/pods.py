"""Incoming pods for `kwhatif schedule`: Pod manifests, admitted as the API server would."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import Pod
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.controlplane.admission.chain import AdmissionChain, Refused
from kwhatif.errors import FieldError, InputError
from kwhatif.load.cluster import classify
from kwhatif.load.files import Document, Limits, read_path


def unverified_namespaces_note(chain: AdmissionChain, namespaces: set[str]) -> str | None:
    """A note naming the namespaces of new objects that a cluster state without Namespace
    objects cannot confirm (no pod of the state runs there either), or None."""
    unknown = chain.unverified_namespaces(namespaces)
    if not unknown:
        return None
    return (
        f"the cluster state holds no Namespace objects: namespace(s) {', '.join(unknown)} are taken to exist "
        "(the API server refuses pods of a namespace that does not)"
    )


def pods_from_documents(
    docs: list[Document],
    cluster: ClusterState,
    manifests: dict[str, dict[str, Any]] | None = None,
    refusals: dict[str, Refused[Pod]] | None = None,
    admitted: dict[str, str] | None = None,
    *,
    namespace: str = "default",
    enforce_namespace: bool = False,
    chain: AdmissionChain | None = None,
    invalid: dict[int, FieldError] | None = None,
) -> tuple[list[Pod], list[Document]]:
    """Parse and admit every Pod document; return the pods and the non-Pod documents left.
    ``manifests``, when given, receives each pod's document by "namespace/name" (for --apply;
    without the name kwhatif generated from generateName). Pods without a namespace go to
    ``namespace``; with ``enforce_namespace`` (kubectl -n) a pod of another namespace is an error.

    Each pod goes through the API server's admission ``chain`` (default: over ``cluster``): a pod
    it refuses is an error, or, with ``refusals``, recorded there by "namespace/name".
    ``admitted``, when given, receives what the plugins set, by pod. ``invalid``, when given,
    receives the field error of each Pod document the API server refuses (by its position in
    ``docs``) instead of it being raised; that pod is left out."""
    admission = cluster.admission
    chain = chain or AdmissionChain(cluster)
    pods: list[Pod] = []
    rest: list[Document] = []
    seen: dict[str, str] = {}
    for position, doc in enumerate(docs):
        kind = classify(doc)
        if kind != "Pod":
            rest.append(doc)
            continue
        meta = doc.body.get("metadata")
        own_ns = meta.get("namespace") if isinstance(meta, dict) else None
        if enforce_namespace and isinstance(own_ns, str) and own_ns and own_ns != namespace:
            raise InputError(
                f'the namespace from the provided object "{own_ns}" does not match the namespace "{namespace}". '
                f"You must pass '--namespace={own_ns}' to perform this operation.",
                source=doc.source,
                obj=doc.describe(),
            )
        generated = isinstance(meta, dict) and not meta.get("name") and bool(meta.get("generateName"))
        body = doc.body
        if generated and manifests is not None and isinstance(meta, dict):
            body = {**doc.body, "metadata": dict(meta)}
        cluster.names(doc.body)
        try:
            pod = parse.pod(doc.body, namespace, doc.source, rules=admission.rules)
            outcome = chain.admit_pod(
                doc.body, pod, _parser(namespace, doc.source, admission.rules), validate_refused=refusals is not None
            )
            pod = outcome.obj
            if outcome.notes and admitted is not None:
                admitted[pod.key] = outcome.notes[0]
            if isinstance(outcome, Refused):
                if refusals is None:
                    raise InputError(outcome.message, source=doc.source, obj=doc.describe())
                refusals[pod.key] = outcome
        except FieldError as e:
            if invalid is not None:
                invalid[position] = e
                continue
            raise e.with_context(source=doc.source, obj=doc.describe()) from None
        if pod.key in seen:
            raise InputError(f"duplicate pod: also defined in {seen[pod.key]}", source=doc.source, obj=doc.describe())
        seen[pod.key] = doc.source
        if manifests is not None:
            manifests[pod.key] = body
        pods.append(pod)
    return pods, rest


def _parser(namespace: str, source: str, rules: PodRules) -> Callable[[dict[str, Any]], Pod]:
    def parse_again(body: dict[str, Any]) -> Pod:
        return parse.pod(body, namespace, source, rules=rules)

    return parse_again


def drop_node_names(docs: list[Document]) -> int:
    """--ignore-node-name: Pods lose spec.nodeName (a pod exported from a cluster keeps the node
    it ran on), so they are scheduled anew. Returns how many had one."""
    n = 0
    for doc in docs:
        if doc.kind != "Pod":
            continue
        spec = doc.body.get("spec")
        if isinstance(spec, dict) and spec.get("nodeName"):
            del spec["nodeName"]
            n += 1
    return n


def load_pods(
    paths: list[str],
    cluster: ClusterState,
    limits: Limits = Limits(),
    stdin: Any = None,
    manifests: dict[str, dict[str, Any]] | None = None,
    *,
    namespace: str = "default",
    enforce_namespace: bool = False,
) -> tuple[list[Pod], list[Document]]:
    docs: list[Document] = []
    for p in paths:
        docs.extend(read_path(p, limits, stdin))
    return pods_from_documents(docs, cluster, manifests, namespace=namespace, enforce_namespace=enforce_namespace)


def prepare_incoming(pods: list[Pod], cluster: ClusterState, *, replace_existing: bool = False) -> list[Pod]:
    """Give pods without a UID one, and reconcile them with the cluster's pods of the same name:
    a pending pod of the dump is the same pod (it leaves the pending list); a bound one is an
    error unless ``replace_existing`` (then it is taken out of the cluster first)."""
    existing = {p.key: p for p in cluster.pods}
    pending = {p.key for p in cluster.pending_pods}
    out = []
    for pod in pods:
        if pod.key in existing:
            if not replace_existing:
                raise InputError(
                    f"a pod of this name already runs on node {existing[pod.key].node_name} in the cluster",
                    source=pod.source or None,
                    obj=f"Pod {pod.key}",
                )
            cluster.pods = [p for p in cluster.pods if p.key != pod.key]
        if pod.key in pending:
            cluster.pending_pods = [p for p in cluster.pending_pods if p.key != pod.key]
        if not pod.uid:
            pod = dataclasses.replace(pod, uid=f"kwhatif-{pod.namespace}-{pod.name}")
        out.append(pod)
    return out


def capacity_template(docs: list[Document], cluster: ClusterState, path: str) -> tuple[Pod, str | None]:
    """The pod `kwhatif capacity` copies: the one Pod of the manifests, or the pod template of
    their one workload as its controller would create it (LimitRange defaults included), named
    after the workload. Other objects (a Namespace, a Service, ...) are ignored. Returns the pod
    and a note saying where it came from."""
    from kwhatif.cache.kinds import WORKLOAD_KINDS
    from kwhatif.controlplane.controllers.workloads import expand_workload
    from kwhatif.load.cluster import build_cluster

    pods, rest = pods_from_documents(docs, cluster)
    workload_docs = [d for d in rest if classify(d) in WORKLOAD_KINDS]
    if len(pods) == 1 and not workload_docs:
        return pods[0], None
    if pods or len(workload_docs) != 1:
        raise InputError(
            f"expected one Pod or one workload, found {len(pods)} Pod(s) and {len(workload_docs)} workload(s)",
            source=path,
        )
    doc = workload_docs[0]
    if doc.kind == "DaemonSet":
        raise InputError(
            "a DaemonSet runs one pod per eligible node: capacity takes a Pod or a Deployment, ReplicaSet, "
            "StatefulSet, Job, CronJob or ReplicationController",
            source=doc.source,
            obj=doc.describe(),
        )
    (w,) = build_cluster([doc], check_node_refs=False, names=cluster.names).workloads.values()
    # one pod of the template, whatever the replicas (a Job's parallelism) say
    body = copy.deepcopy(w.body)
    spec = body.setdefault("spec", {})
    target = spec.get("jobTemplate", {}).get("spec") if w.kind == "CronJob" else spec
    if isinstance(target, dict):
        if w.kind in ("Job", "CronJob"):
            target["parallelism"] = 1
            target.pop("suspend", None)
        else:
            target["replicas"] = 1
    if w.kind == "CronJob":
        spec.pop("suspend", None)
    exp = expand_workload(dataclasses.replace(w, body=body), cluster)
    if exp.refusal is not None:
        raise InputError(exp.refusal, source=doc.source, obj=doc.describe())
    if not exp.pods:
        raise InputError(f"{w.kind} {exp.namespace}/{w.name} creates no pod", source=doc.source, obj=doc.describe())
    pod = dataclasses.replace(exp.pods[0], name=w.name, uid=f"kwhatif-{exp.namespace}-{w.name}")
    return pod, f"the pod template of {w.kind} {exp.namespace}/{w.name}, as its controller creates its pods"
