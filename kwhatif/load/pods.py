"""Incoming pods for `kwhatif schedule`: Pod manifests, admitted as the API server would."""

from __future__ import annotations

import dataclasses
from typing import Any

from kwhatif.api import parse
from kwhatif.api.core import Pod
from kwhatif.errors import FieldError, InputError
from kwhatif.load.cluster import ClusterState, classify
from kwhatif.load.files import Document, Limits, read_path


def pods_from_documents(
    docs: list[Document],
    cluster: ClusterState,
    manifests: dict[str, dict[str, Any]] | None = None,
    *,
    namespace: str = "default",
    enforce_namespace: bool = False,
) -> tuple[list[Pod], list[Document]]:
    """Parse and admit every Pod document; return the pods and the non-Pod documents left.
    ``manifests``, when given, receives each pod's document by "namespace/name" (for --apply;
    without the name kwhatif generated from generateName). Pods without a namespace go to
    ``namespace``; with ``enforce_namespace`` (kubectl -n) a pod of another namespace is an error."""
    admission = cluster.admission
    pods: list[Pod] = []
    rest: list[Document] = []
    seen: dict[str, str] = {}
    for doc in docs:
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
        parse.generate_name(doc.body)
        try:
            pod = admission.admit(parse.pod(doc.body, namespace, doc.source), strict=True)
        except FieldError as e:
            raise e.with_context(source=doc.source, obj=doc.describe()) from None
        if pod.key in seen:
            raise InputError(f"duplicate pod: also defined in {seen[pod.key]}", source=doc.source, obj=doc.describe())
        seen[pod.key] = doc.source
        if manifests is not None:
            manifests[pod.key] = body
        pods.append(pod)
    return pods, rest


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
