"""`kwhatif autoscale --autoscaler karpenter`: what Karpenter would provision for the pending pods
and, with --consolidation, what its disruption controller would remove or replace.

The pods first go through kube-scheduler (kwhatif's own, for the selected release): those it
places are `existing`. Karpenter provisions for the others (it acts on pods the scheduler marked
unschedulable), with its own scheduler over the existing and in-flight nodes, the NodeClaims it
plans and new ones from the NodePools (kwhatif.autoscaler.karpenter.provisioner). A pod Karpenter
would nominate to an existing node that kube-scheduler refuses is reported as such: it would stay
pending. The loaded ClusterState is never changed: the scheduler works on its own snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Node, Pod, Taint
from kwhatif.autoscaler.karpenter.instancetypes import (
    InstanceType,
    ResourceList,
    catalog_from_nodes,
    label_keys,
    milli,
)
from kwhatif.autoscaler.karpenter.nodepools import NodeClaim, NodePool, read_objects
from kwhatif.autoscaler.karpenter.provisioner import (
    NodeInput,
    ProvisionOptions,
    Results,
    host_ports,
    provision,
    requests_for_pods,
)
from kwhatif.autoscaler.karpenter.requirements import (
    INSTANCE_TYPE_LABEL,
    NODE_INITIALIZED_LABEL,
    NODEPOOL_LABEL,
    Requirements,
)
from kwhatif.autoscaler.karpenter.topology import ExistingPod
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import InputError
from kwhatif.framework.types import PodOutcome
from kwhatif.scheduling.scheduler import Attempt, Scheduler

UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


@dataclass(frozen=True, slots=True)
class KarpenterOptions:
    provision: ProvisionOptions = ProvisionOptions()
    consolidation: bool = False
    spot_to_spot_consolidation: bool = False


@dataclass(slots=True)
class KarpenterRun:
    """What the run found: the kube-scheduler attempts, Karpenter's results, and the inputs."""

    attempts: dict[str, Attempt]  # by "ns/name": the pods kube-scheduler placed or refused
    results: Results | None
    pools: list[NodePool]
    claims: list[NodeClaim]
    catalog: list[InstanceType]
    well_known: frozenset[str]
    notes: list[str] = field(default_factory=list)
    consolidation: Any = None
    node_pools: dict[str, str] = field(
        default_factory=dict
    )  # node -> its NodePool (Karpenter's nodes)  # consolidation.Consolidation with --consolidation


def _pod_key(p: Pod) -> str:
    return f"{p.namespace}/{p.name}"


def daemonset_pods(state: ClusterState) -> list[Pod]:
    """One pod per DaemonSet, from the pods the cluster runs (Karpenter builds them from the
    DaemonSets' templates: a running pod carries the same requests and constraints)."""
    seen: dict[tuple[str, str], Pod] = {}
    for p in state.pods:
        ref = p.controller_ref
        if ref is not None and ref.kind == "DaemonSet":
            seen.setdefault((p.namespace, ref.name), p)
    return [seen[k] for k in sorted(seen)]


def _node_input(node: Node, pods: Sequence[Pod], claims_by_node: Mapping[str, NodeClaim]) -> NodeInput:
    ds = [p for p in pods if (r := p.controller_ref) is not None and r.kind == "DaemonSet"]
    taints = node.taints + (
        (UNSCHEDULABLE_TAINT,) if node.unschedulable and UNSCHEDULABLE_TAINT not in node.taints else ()
    )
    pool = node.labels.get(NODEPOOL_LABEL, "")
    claim = claims_by_node.get(node.name)
    capacity: ResourceList | None = milli(dict(claim.capacity)) if claim is not None and claim.capacity else None
    ports = host_ports(pods)
    return NodeInput(
        name=node.name,
        labels=node.labels,
        taints=taints,
        allocatable=milli(node.allocatable_list),
        requested=requests_for_pods(pods) if pods else {},
        daemon_requested=requests_for_pods(ds) if ds else {},
        host_ports=ports,
        nodepool=pool,
        capacity=capacity,
        # StateNode.Initialized: a managed node once Karpenter labels it initialized
        initialized=not pool or node.labels.get(NODE_INITIALIZED_LABEL) == "true",
    )


def _in_flight(claim: NodeClaim, catalog: Mapping[str, InstanceType]) -> NodeInput | None:
    """A NodeClaim whose node has not registered: its labels and single-valued requirements as
    the node's labels, its allocatable (or its instance type's) as what is free."""
    labels = dict(claim.labels)
    reqs = Requirements(claim.requirements)
    for key in reqs:
        r = reqs.get(key)
        if r.operator == "In" and len(r) == 1:
            labels.setdefault(key, r.any())
    alloc: ResourceList = milli(dict(claim.allocatable))
    it = catalog.get(claim.instance_type or labels.get(INSTANCE_TYPE_LABEL, ""))
    if not alloc and it is not None:
        alloc = dict(it.allocatable)
    if not alloc:
        return None
    return NodeInput(
        name=claim.name,
        labels=labels,
        taints=claim.taints,
        allocatable=alloc,
        requested={},
        daemon_requested={},
        host_ports=frozenset(),
        nodepool=claim.nodepool,
        capacity=milli(dict(claim.capacity)) or (dict(it.capacity) if it is not None else None),
        initialized=False,
        in_flight=True,
    )


def load_karpenter(
    state: ClusterState, extra: Sequence[tuple[str, dict[str, Any]]], instance_types: list[InstanceType] | None
) -> tuple[list[NodePool], list[NodeClaim], list[InstanceType], list[str]]:
    """The NodePools and NodeClaims of the state and of --node-pools, and the catalog."""
    notes: list[str] = []
    pools, claims = read_objects([*state.karpenter_objects, *extra])
    if not pools:
        raise InputError("no karpenter.sh/v1 NodePool in the cluster state or in --node-pools")
    if instance_types is None:
        catalog = catalog_from_nodes(state.nodes.values())
        notes.append(
            f"no --instance-types: the catalog is the {len(catalog)} instance type(s) of the cluster's own nodes, "
            "their allocatable as capacity and their prices estimated from their resources"
        )
    else:
        catalog = instance_types
    return pools, claims, catalog, notes


def run_karpenter(
    sched: Scheduler,
    state: ClusterState,
    pods: list[Pod],
    pools: list[NodePool],
    claims: list[NodeClaim],
    catalog: list[InstanceType],
    options: KarpenterOptions = KarpenterOptions(),
    notes: Sequence[str] = (),
) -> KarpenterRun:
    run = KarpenterRun({}, None, pools, claims, catalog, label_keys(catalog), list(notes))
    # 1. kube-scheduler: the pods it places need no new capacity
    attempts = sched.run(pods) if pods else []
    for att in attempts:
        run.attempts[_pod_key(att.pod)] = att
    unschedulable = [
        p for p in pods if (a := run.attempts.get(_pod_key(p))) is None or a.result is not PodOutcome.SCHEDULED
    ]
    # 2. Karpenter's view of the cluster after those placements
    claims_by_node = {c.node_name: c for c in claims if c.node_name}
    by_type = {it.name: it for it in catalog}
    nodes: list[NodeInput] = []
    existing: list[ExistingPod] = []
    for ni in sched.snapshot.node_infos:
        bound = [pi.pod for pi in ni.pods]
        nodes.append(_node_input(ni.node, bound, claims_by_node))
        if NODEPOOL_LABEL in ni.node.labels:
            run.node_pools[ni.node.name] = ni.node.labels[NODEPOOL_LABEL]
        for p in bound:
            aff = p.affinity.pod_anti_affinity if p.affinity else None
            existing.append(
                ExistingPod(
                    p.namespace,
                    p.labels,
                    ni.node.labels,
                    ni.node.name,
                    ni.node.taints,
                    tuple(aff.required) if aff else (),
                    p.uid or _pod_key(p),
                )
            )
    for c in sorted(claims, key=lambda c: c.name):
        if c.deleting or (c.node_name and c.node_name in state.nodes):
            continue
        n = _in_flight(c, by_type)
        if n is not None:
            nodes.append(n)
        else:
            run.notes.append(
                f"NodeClaim {c.name}: in flight, but neither its allocatable nor its instance type is known"
            )
    static = [p.name for p in pools if p.static]
    if static:
        run.notes.append(f"static NodePool(s) {', '.join(static)}: not provisioned for pods")
    run.results = provision(
        pools,
        catalog,
        unschedulable,
        nodes=nodes,
        daemonsets=daemonset_pods(state),
        existing_pods=existing,
        namespace_labels={n: state.namespace_labels(n) for n in state.namespaces},
        options=options.provision,
        well_known=run.well_known,
    )
    if options.consolidation:
        from kwhatif.autoscaler.karpenter.consolidation import consolidate

        run.consolidation = consolidate(
            nodes=list(state.nodes.values()),
            pods=state.pods,
            pending=[p for p in state.pending_pods if p.scheduler_name and not p.scheduling_gates],
            pdbs=[(b.namespace, b.name, b.selector, b.disruptions_allowed) for b in state.pdbs],
            pools=pools,
            claims=claims,
            catalog=catalog,
            daemonsets=daemonset_pods(state),
            do_not_disrupt={
                str(b.get("name")) for _, b in state.karpenter_objects if b.get("kind") == "NodeDoNotDisrupt"
            },
            namespace_labels={n: state.namespace_labels(n) for n in state.namespaces},
            options=options.provision,
            well_known=run.well_known,
            spot_to_spot=options.spot_to_spot_consolidation,
            fully_blocking=frozenset(
                (b.namespace, b.name) for b in state.pdbs if b.max_unavailable in (0, "0%") or b.min_available == "100%"
            ),
        )
        run.notes.extend(run.consolidation.notes)
    return run


def read_files(
    node_pools: str | None, instance_types: str | None, limits_: Any = None
) -> tuple[list[tuple[str, dict[str, Any]]], list[InstanceType] | None]:
    """The karpenter.sh objects of --node-pools and the catalog of --instance-types."""
    from kwhatif.autoscaler.karpenter.instancetypes import parse_instance_types
    from kwhatif.load.files import Limits, read_path

    lim = limits_ if limits_ is not None else Limits()
    extra: list[tuple[str, dict[str, Any]]] = []
    if node_pools:
        for doc in read_path(node_pools, lim):
            if doc.kind not in ("NodePool", "NodeClaim"):
                raise InputError(
                    f"expected karpenter.sh/v1 NodePools, got kind {doc.kind!r}", source=doc.source, obj=doc.describe()
                )
            extra.append((doc.source, doc.body))
        if not extra:
            raise InputError("no NodePool in the file", source=node_pools)
    catalog: list[InstanceType] | None = None
    if instance_types:
        catalog = []
        for doc in read_path(instance_types, lim):
            catalog.extend(parse_instance_types(doc.body, doc.source))
        if not catalog:
            raise InputError("no instance type in the file", source=instance_types)
    return extra, catalog


def provision_for(state: ClusterState, pods: list[Pod], config: Any, options: Any, limits_: Any = None) -> KarpenterRun:
    """`kwhatif autoscale --autoscaler karpenter` on a fork of the cluster (``state``), with the
    command's options (whatif.autoscale.AutoscaleOptions)."""
    from kwhatif.autoscaler.karpenter.provisioner import MinValuesPolicy, PreferencePolicy
    from kwhatif.config.options import Options

    extra, catalog = read_files(options.node_pools, options.instance_types, limits_)
    pools, claims, its, notes = load_karpenter(state, extra, catalog)
    kopts = KarpenterOptions(
        ProvisionOptions(PreferencePolicy(options.preference_policy), MinValuesPolicy(options.min_values_policy)),
        consolidation=options.consolidation,
        spot_to_spot_consolidation=options.spot_to_spot_consolidation,
    )
    sched = Scheduler(state, config, options=Options(preemption=False, filter_excluded=False, compact=True))
    return run_karpenter(sched, state, pods, pools, claims, its, kopts, notes)
