"""What `kubectl apply` of a manifest's objects other than workloads and Pods does to the cluster
state: they join it (or replace the objects of their names), as the API server stores them once
admission lets them in. A claim meets admission (LimitRanger, DefaultStorageClass) and a new
PersistentVolume becomes Available (the PV controller's syncVolume); `kwhatif check`, `schedule`
and `autoscale` apply them before any pod is created."""

from __future__ import annotations

from kwhatif.cache.cluster import ClusterState
from kwhatif.controlplane.admission.chain import AdmissionChain
from kwhatif.controlplane.controllers.pv_controller import available_new_volumes
from kwhatif.errors import InputError
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import Document


def merge_objects(
    state: ClusterState, docs: list[Document], notes: list[str], chain: AdmissionChain | None = None
) -> list[str]:
    """Objects of the manifests other than Pods and workloads join (or replace) the cluster's.
    A claim or volume that already exists keeps its bound state (apply never changes it); a new
    claim meets admission (``chain``, default: over ``state``): one LimitRanger refuses is not
    created (said in ``notes``), DefaultStorageClass gives the others the default class. Returns
    the keys of the claims the manifests create."""
    chain = chain or AdmissionChain(state)
    extra = build_cluster(docs, check_node_refs=False, names=state.names)
    if extra.nodes:
        raise InputError(
            "manifests to check may not hold Nodes; use --add-node to add nodes", obj=f"Node {next(iter(extra.nodes))}"
        )
    state.apply(extra)
    new_pvs = [name for name in extra.pvs if name not in state.pvs]
    for name in new_pvs:
        state.pvs[name] = extra.pvs[name]
    available_new_volumes(state, new_pvs)
    new_claims = []
    refused = _refused_claims(chain, [d for d in docs if d.kind == "PersistentVolumeClaim"], notes)
    for key, pvc in extra.pvcs.items():
        if key in state.pvcs or key in refused:
            continue
        state.pvcs[key] = chain.default_storage_class(pvc)
        new_claims.append(key)
    return new_claims


def _refused_claims(chain: AdmissionChain, docs: list[Document], notes: list[str]) -> set[str]:
    """Claims of the manifests the LimitRanger admission plugin refuses (min/max storage)."""
    refused = set()
    for d in docs:
        meta = d.body.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, dict) and meta.get("namespace") else "default"
        name = meta.get("name") if isinstance(meta, dict) else ""
        refusal = chain.claim_refusal(d.body, str(ns), str(name))
        if refusal is not None:
            refused.add(f"{ns}/{name}")
            notes.append(f"PersistentVolumeClaim {ns}/{name} is not created: {refusal}")
    return refused
