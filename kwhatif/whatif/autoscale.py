"""`kwhatif autoscale`: what the cluster's autoscaler would do for pods that do not fit.

The scheduler places what fits on the existing nodes first (those pods never reach the
autoscaler); the others go to the selected autoscaler. ``autoscale`` dispatches to it: one small
function, so that each autoscaler plugs in the same way. cluster-autoscaler's loop is
autoscaler/orchestrator.py; a loop after the first sees the nodes the earlier ones added: the
pods that fit them (filters only, first fit, as the autoscaler's filter-out-schedulable step) take
no new node before it looks again (as its main loop, RunOnce, sees the cluster once the new nodes
registered).

Everything runs on a fork of the cluster state: template nodes and new nodes are added to the
fork's snapshot, never to the state loaded.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kwhatif.api.core import Pod
from kwhatif.autoscaler import expanders, limits
from kwhatif.autoscaler.nodegroups import UNBOUNDED, NodeGroup, NodeGroupSet, discover, parse_min_max, read_node_groups
from kwhatif.autoscaler.orchestrator import ScaleUpOptions, ScaleUpResult, commit, scale_up
from kwhatif.autoscaler.simulator import Simulator
from kwhatif.autoscaler.template import Template, build_template
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.options import Options
from kwhatif.errors import InputError
from kwhatif.framework.types import PodOutcome
from kwhatif.scheduling.scheduler import Scheduler

if TYPE_CHECKING:
    from kwhatif.autoscaler.scaledown import ScaleDownResult
    from kwhatif.config.types import SchedulerConfiguration


class AutoscalerKind(enum.StrEnum):
    CLUSTER_AUTOSCALER = "cluster-autoscaler"
    KARPENTER = "karpenter"


class Outcome(enum.StrEnum):
    EXISTING = "existing"  # fits the existing nodes: the scheduler places it, no new node
    SCALE_UP = "scale-up"  # goes to a new node of a group
    NONE = "none"  # no new node for it (yet): see why


@dataclass(frozen=True, slots=True)
class AutoscaleOptions:
    """The command's options, as one object (flags win over the NodeGroups file)."""

    autoscaler: AutoscalerKind | None = None  # None: Karpenter when the state has NodePools only
    node_groups: str | None = None
    expander: str | None = None
    max_nodes_total: int | None = None
    cores_total: str | None = None
    memory_total: str | None = None
    balance_similar_node_groups: bool | None = None
    scale_down: bool = False
    scale_down_utilization_threshold: float = 0.5
    loops: int = 1
    # Karpenter's inputs
    node_pools: str | None = None
    instance_types: str | None = None
    consolidation: bool = False
    min_values_policy: str = "Strict"
    preference_policy: str = "Respect"
    spot_to_spot_consolidation: bool = False


@dataclass(frozen=True, slots=True)
class PodEntry:
    pod: Pod
    outcome: Outcome
    node: str | None = None
    node_group: str | None = None
    why: str | None = None
    loop: int = 0  # the loop whose scale-up gives it its node (0: existing nodes)


@dataclass(frozen=True, slots=True)
class GroupEntry:
    """A node group before and after the scale-ups, and its template."""

    name: str
    min_size: int
    max_size: int | None  # None: unknown
    before: int
    after: int
    source: str
    template_node: str | None
    template_origin: str | None
    template_pods: tuple[str, ...]
    template_allocatable: Mapping[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class AutoscaleResult:
    autoscaler: str
    groups: list[GroupEntry]
    pods: list[PodEntry]
    loops: list[ScaleUpResult]
    scale_down: ScaleDownResult | None = None
    notes: list[str] = field(default_factory=list)
    expander: str = expanders.DEFAULT_EXPANDER
    karpenter: Any = None  # whatif.karpenter.KarpenterRun under --autoscaler karpenter
    karpenter_options: tuple[tuple[str, str], ...] = ()


def fork(state: ClusterState) -> ClusterState:
    """A copy to change: ClusterState.fork() where it exists, else a copy of the node table and
    the pod lists (every table and list of the state: the objects themselves are immutable)."""
    fork_fn: Callable[[], ClusterState] | None = getattr(state, "fork", None)
    if fork_fn is not None:
        return fork_fn()
    copies = {
        f.name: type(v)(v) for f in dataclasses.fields(state) if type(v := getattr(state, f.name)) in (dict, list)
    }
    return dataclasses.replace(state, **copies)


# --- the pods ---------------------------------------------------------------------------------


def input_pods(
    state: ClusterState,
    docs: list[Any],
    *,
    pending: bool,
    namespace: str,
    profile: str | None = None,
    profiles: frozenset[str] | None = None,
) -> tuple[list[Pod], list[str]]:
    """The pods to place: the manifests' Pods, the pods their workloads' controllers create (as
    `kwhatif check` expands them: the objects that come with them join the cluster first), and
    with ``pending`` the cluster's pending pods. Notes say what was left out."""
    from kwhatif.cache.kinds import WORKLOAD_KINDS
    from kwhatif.controlplane.controllers.apply import merge_objects
    from kwhatif.controlplane.controllers.workloads import expand_workload
    from kwhatif.load.cluster import build_cluster, classify
    from kwhatif.whatif.check import check_size
    from kwhatif.whatif.schedule import COMPANION_KINDS, manifest_pods

    notes: list[str] = []
    kinds = [classify(d) for d in docs]
    workload_docs = [d for d, k in zip(docs, kinds, strict=True) if k in WORKLOAD_KINDS]
    pod_docs = [d for d, k in zip(docs, kinds, strict=True) if k == "Pod" or d.kind in COMPANION_KINDS]
    others = [
        d
        for d, k in zip(docs, kinds, strict=True)
        if k is not None and k not in WORKLOAD_KINDS and k != "Pod" and d.kind not in COMPANION_KINDS
    ]
    skipped = sorted({d.kind for d, k in zip(docs, kinds, strict=True) if k is None})
    if skipped:
        notes.append(f"objects in the manifests that run no pods, left out: {', '.join(skipped)}")
    if others:
        merge_objects(state, others, notes)  # Services, PodDisruptionBudgets, claims, ... join the cluster
    pods, _ = manifest_pods(state, pod_docs, namespace=namespace, enforce_namespace=False, note=notes.append)
    if workload_docs:
        manifest_state = build_cluster(workload_docs, check_node_refs=False, names=state.names)
        for i, w in enumerate(manifest_state.workloads.values()):
            if (w.kind, w.namespace or namespace, w.name) in state.workloads:
                notes.append(
                    f"{w.kind} {w.namespace}/{w.name} runs already: its new pods are placed besides its running ones"
                )
            # bounded as `kwhatif check` bounds it: a huge replica count is bad input, not hours of work
            check_size(w, len(pods), "autoscale run")
            exp = expand_workload(w, state, index=i)
            if exp.refusal:
                notes.append(f"{w.kind} {w.namespace}/{w.name}: {exp.refusal}")
            pods.extend(exp.pods)
    if pending:
        # the pending pods of the configuration's schedulers (--profile takes them all)
        mine = [p for p in state.pending_pods if profile or profiles is None or p.scheduler_name in profiles]
        if len(mine) < len(state.pending_pods):
            notes.append(
                f"{len(state.pending_pods) - len(mine)} pending pod(s) of other schedulers left out (give --profile to take them)"
            )
        pods.extend(mine)
    if profile:
        pods = [dataclasses.replace(p, scheduler_name=profile) for p in pods]
    if not pods:
        notes.append("no pods to place")
    return pods, notes


# --- dispatch -------------------------------------------------------------------------------------


def autoscale(
    state: ClusterState, pods: list[Pod], config: SchedulerConfiguration, options: AutoscaleOptions, limits_: Any = None
) -> AutoscaleResult:
    """The autoscaler's answer for ``pods`` on ``state``: one function per autoscaler."""
    threshold = options.scale_down_utilization_threshold
    if not 0 <= threshold <= 1:  # a float range lets NaN through, and NaN compares false with every utilization
        raise InputError(f"must be between 0 and 1, not {threshold}", field="--scale-down-utilization-threshold")
    kind = options.autoscaler or default_autoscaler(state, options)
    _check_options_apply(kind, options)
    if kind is AutoscalerKind.KARPENTER:
        return run_karpenter(state, pods, config, options, limits_)
    return run_cluster_autoscaler(state, pods, config, options, limits_)


def _check_options_apply(kind: AutoscalerKind, o: AutoscaleOptions) -> None:
    """An option of the other autoscaler is bad usage: silently ignored, it would look answered."""
    if kind is AutoscalerKind.KARPENTER:
        given = {
            "--expander": o.expander is not None,
            "--max-nodes-total": o.max_nodes_total is not None,
            "--cores-total": o.cores_total is not None,
            "--memory-total": o.memory_total is not None,
            "--balance-similar-node-groups": bool(o.balance_similar_node_groups),
            "--loops": o.loops != 1,
            "--scale-down": o.scale_down,
            "--scale-down-utilization-threshold": o.scale_down_utilization_threshold != 0.5,
        }
        other = "cluster-autoscaler"
    else:
        given = {
            "--node-pools": o.node_pools is not None,
            "--instance-types": o.instance_types is not None,
            "--consolidation": o.consolidation,
            "--min-values-policy": o.min_values_policy != "Strict",
            "--preference-policy": o.preference_policy != "Respect",
            "--spot-to-spot-consolidation": o.spot_to_spot_consolidation,
        }
        other = "karpenter"
    flags = [flag for flag, on in given.items() if on]
    if flags:
        raise InputError(
            f"{'applies' if len(flags) == 1 else 'apply'} to --autoscaler {other} only; this run answers as {kind.value}",
            field=", ".join(flags),
        )


def default_autoscaler(state: ClusterState, options: AutoscaleOptions) -> AutoscalerKind:
    """Karpenter when the state (or --node-pools) holds NodePools and no cluster-autoscaler node groups: none given
    (--node-groups), and not both a cluster-autoscaler-status ConfigMap and nodes of a provider's
    node group (the managed node group Karpenter itself runs on makes no cluster-autoscaler)."""
    from kwhatif.autoscaler.nodegroups import PROVIDER_LABELS

    pools = sum(1 for _, body in state.karpenter_objects if body.get("kind") == "NodePool")
    ca_status = "kube-system/cluster-autoscaler-status" in state.config_maps
    labelled = any(k in n.labels for n in state.nodes.values() for k in PROVIDER_LABELS)
    if (pools or options.node_pools is not None) and options.node_groups is None and not (ca_status and labelled):
        return AutoscalerKind.KARPENTER
    return AutoscalerKind.CLUSTER_AUTOSCALER


def run_karpenter(
    state: ClusterState, pods: list[Pod], config: SchedulerConfiguration, options: AutoscaleOptions, limits_: Any
) -> AutoscaleResult:
    """Karpenter's provisioning (and consolidation) on a fork: whatif/karpenter.py."""
    from kwhatif.whatif import karpenter

    run = karpenter.provision_for(fork(state), pods, config, options, limits_)
    entries = [
        PodEntry(a.pod, Outcome.EXISTING, a.node) if a.result is PodOutcome.SCHEDULED else PodEntry(a.pod, Outcome.NONE)
        for a in run.attempts.values()
    ]
    return AutoscaleResult(
        AutoscalerKind.KARPENTER.value,
        [],
        entries,
        [],
        karpenter=run,
        karpenter_options=(
            ("minValuesPolicy", options.min_values_policy),
            ("preferencePolicy", options.preference_policy),
            ("spotToSpotConsolidation", "true" if options.spot_to_spot_consolidation else "false"),
        ),
    )


# --- cluster-autoscaler ---------------------------------------------------------------------------


def node_group_set(state: ClusterState, options: AutoscaleOptions, limits_: Any = None) -> NodeGroupSet:
    if options.node_groups:
        return read_node_groups(options.node_groups, state, limits_)
    return discover(state)


def scale_up_options(ngs: NodeGroupSet, state: ClusterState, options: AutoscaleOptions) -> ScaleUpOptions:
    """The flags, else the file's values, else cluster-autoscaler's defaults."""
    try:
        chain = expanders.parse_chain(options.expander or ngs.expander or expanders.DEFAULT_EXPANDER)
    except InputError as e:
        if options.expander or not ngs.expander:
            raise
        # the chain came from the NodeGroups file: name its field there, not the flag
        raise InputError(e.message, source=ngs.source or None, obj="NodeGroups", field="expander") from None
    cores = (
        parse_min_max(options.cores_total, "--cores-total", "cores")
        if options.cores_total
        else ngs.cores_total or (0, limits.DEFAULT_MAX_CORES)
    )
    memory = (
        parse_min_max(options.memory_total, "--memory-total", "memory")
        if options.memory_total
        else ngs.memory_total or (0, limits.DEFAULT_MAX_MEMORY)
    )
    priorities = ngs.priorities
    if priorities is None:
        from kwhatif.autoscaler.nodegroups import PRIORITY_CONFIG_MAP, _priorities

        text = state.config_maps.get(PRIORITY_CONFIG_MAP, {}).get("priorities")
        if text:
            priorities = _priorities(text, "priorities")
    pricing = None
    if expanders.ExpanderName.PRICE in chain:
        prices = {g.name: g.price for g in ngs.groups if g.price is not None}
        if not prices or ngs.pod_price is None:
            raise InputError(
                "the price expander needs each group's price and podPrice (cpu, memory) in the NodeGroups file",
                field="--expander",
            )
        pricing = expanders.Pricing(prices, *ngs.pod_price)
    if expanders.ExpanderName.PRIORITY in chain and not priorities:
        raise InputError(
            "the priority expander needs its table: priorities in the NodeGroups file, or the "
            "kube-system/cluster-autoscaler-priority-expander ConfigMap in the cluster state",
            field="--expander",
        )
    balance = options.balance_similar_node_groups
    if balance is None:
        balance = bool(ngs.balance_similar_node_groups)
    return ScaleUpOptions(
        expander=tuple(chain),
        max_nodes_total=options.max_nodes_total if options.max_nodes_total is not None else (ngs.max_nodes_total or 0),
        cores_total=cores,
        memory_total=memory,
        balance_similar_node_groups=balance,
        priorities=priorities,
        pricing=pricing,
    )


def _allocatable(tmpl: Template) -> dict[str, int]:
    """cpu in millicores, memory in bytes, pods, and the extended resources."""
    a = tmpl.node.allocatable
    out = {"cpu": a.milli_cpu, "memory": a.memory, "pods": a.allowed_pod_number}
    out.update((k, v) for k, v in sorted(a.scalar.items()))
    return out


def run_cluster_autoscaler(
    state: ClusterState, pods: list[Pod], config: SchedulerConfiguration, options: AutoscaleOptions, limits_: Any
) -> AutoscaleResult:
    ngs, notes = _groups_and_notes(state, options, limits_)
    work = fork(state)
    # the scheduler places what fits the existing nodes (those pods never reach the autoscaler)
    first = Scheduler(work, config, options=Options(preemption=False, filter_excluded=False, compact=True))
    attempts = first.run(pods, rounds=1)
    return after_scheduler(work, first, attempts, pods, config, options, ngs, notes)


def _groups_and_notes(state: ClusterState, options: AutoscaleOptions, limits_: Any) -> tuple[NodeGroupSet, list[str]]:
    ngs = node_group_set(state, options, limits_)
    scale_up_options(ngs, state, options)  # bad options fail before anything is scheduled
    notes = list(ngs.notes)
    nodepools = sum(1 for _, body in state.karpenter_objects if body.get("kind") == "NodePool")
    if nodepools:
        notes.append(
            f"Karpenter provisioning not modelled: {nodepools} NodePool(s) in the cluster state are "
            "left out of cluster-autoscaler's answer (--autoscaler karpenter answers for them)"
        )
    return ngs, notes


def autoscale_after_check(
    state: ClusterState,
    sched: Scheduler,
    attempts: list[Any],
    config: SchedulerConfiguration,
    options: AutoscaleOptions,
    limits_: Any = None,
) -> AutoscaleResult:
    """`check --autoscale`: cluster-autoscaler's loops over what the check's scheduler could not
    place (its snapshot, with the check's placements, is simulated on; the state is only read)."""
    kind = options.autoscaler or default_autoscaler(state, options)
    if kind is AutoscalerKind.KARPENTER:
        raise InputError("check --autoscale answers for cluster-autoscaler only here", field="--autoscale")
    ngs, notes = _groups_and_notes(state, options, limits_)
    pods = [att.pod for att in attempts]
    return after_scheduler(
        state, sched, attempts, list(dict((p.key, p) for p in pods).values()), config, options, ngs, notes
    )


def after_scheduler(
    work: ClusterState,
    first: Scheduler,
    attempts: list[Any],
    pods: list[Pod],
    config: SchedulerConfiguration,
    options: AutoscaleOptions,
    ngs: NodeGroupSet,
    notes: list[str],
) -> AutoscaleResult:
    """cluster-autoscaler's loops over what a scheduler left unschedulable: ``first`` has run
    ``attempts`` (the last attempt of each pod counts) over ``work``; its snapshot, with their
    placements, is the one the autoscaler simulates on (template and new nodes are added to it)."""
    opts = scale_up_options(ngs, work, options)
    last: dict[str, Any] = {}
    for att in attempts:
        last[att.pod.key] = att
    attempts = [last[k] for k in dict.fromkeys(att.pod.key for att in attempts)]
    sched = Scheduler(
        work,
        config,
        snapshot=first.snapshot,
        options=Options(preemption=False, filter_excluded=False, compact=True, incremental=False),
    )
    sim = Simulator(sched)
    pods_on: dict[str, list[Pod]] = {}
    for p in work.pods:
        pods_on.setdefault(p.node_name, []).append(p)
    templates: dict[str, Template] = {}
    for g in ngs.groups:
        tmpl, tnotes = build_template(g, work, pods_on)
        notes.extend(tnotes)
        if tmpl is not None:
            templates[g.name] = tmpl
        else:
            notes.append(f"node group {g.name}: no node and no template: cluster-autoscaler cannot build its nodes")
    sizes = {g.name: g.target_size for g in ngs.groups}
    before = dict(sizes)
    tracker = limits.Tracker.of(work.nodes.values(), opts.cores_total, opts.memory_total)
    entries: dict[str, PodEntry] = {}
    pending: list[Pod] = []
    for att in attempts:
        if att.result is PodOutcome.SCHEDULED:
            entries[att.pod.key] = PodEntry(att.pod, Outcome.EXISTING, att.node, _group_of(ngs, att.node))
        elif att.result is PodOutcome.UNSCHEDULABLE:
            pending.append(att.pod)
        else:
            entries[att.pod.key] = PodEntry(att.pod, Outcome.NONE, why=att.message)
    loops: list[ScaleUpResult] = []
    names: dict[str, int] = {}
    node_group_of: dict[str, str] = {}
    added: list[str] = []  # the nodes the loops added, in order
    for loop in range(1, max(options.loops, 1) + 1):
        if not pending:
            break
        if loop > 1:
            # the new nodes registered: what fits them now takes no new node (the autoscaler's
            # filter-out-schedulable step: filters only, first fit, from the last match). The
            # existing nodes refused these pods in the first pass and have not changed.
            still: list[Pod] = []
            start = 0
            for p in pending:
                k = sim.fits_any(p, added, start)
                if k < 0:
                    still.append(p)
                    continue
                start = k
                node = added[k]
                sim.place(dataclasses.replace(p, node_name=""), node)
                prev = entries.get(p.key)
                placed_loop = prev.loop if prev is not None and prev.outcome is Outcome.SCALE_UP else loop - 1
                entries[p.key] = PodEntry(p, Outcome.SCALE_UP, node, node_group_of.get(node), loop=placed_loop)
            pending = still
            if not pending:
                break
        node_count = sched.snapshot.num_nodes
        res = scale_up(sim, pending, list(ngs.groups), templates, sizes, node_count, opts, tracker, names)
        loops.append(res)
        for p in pending:
            v = res.pods[p.key]
            if v.group is not None:
                entries[p.key] = PodEntry(p, Outcome.SCALE_UP, v.node, v.group, loop=loop)
            else:
                entries[p.key] = PodEntry(p, Outcome.NONE, why=v.why, loop=loop)
        if not res.chosen:
            break
        for c in res.chosen:
            for n in c.nodes:
                node_group_of[n] = c.group
        added.extend(commit(sim, templates, res.chosen))
    scale_down_result = None
    if options.scale_down:
        # over the cluster with the pods that fit the existing nodes, before any scale-up (the
        # autoscaler does not scale down in a loop that scaled up): a snapshot of its own
        from kwhatif.autoscaler.scaledown import scale_down

        placed = [
            dataclasses.replace(e.pod, node_name=e.node)
            for e in entries.values()
            if e.outcome is Outcome.EXISTING and e.loop == 0 and e.node
        ]
        sd_state = dataclasses.replace(work, pods=[*work.pods, *placed])
        sd_sched = Scheduler(
            sd_state,
            config,
            options=Options(preemption=False, filter_excluded=False, compact=True, incremental=False),
        )
        scale_down_result = scale_down(Simulator(sd_sched), ngs, before, options.scale_down_utilization_threshold, work)
    groups = [
        GroupEntry(
            g.name,
            g.min_size,
            g.max_size if g.max_known and g.max_size != UNBOUNDED else None,
            before[g.name],
            sizes[g.name],
            g.source,
            templates[g.name].node.name if g.name in templates else None,
            templates[g.name].origin if g.name in templates else None,
            tuple(p.key for p in templates[g.name].pods) if g.name in templates else (),
            _allocatable(templates[g.name]) if g.name in templates else {},
        )
        for g in ngs.groups
    ]
    ordered = [entries[p.key] for p in pods if p.key in entries]
    return AutoscaleResult(
        AutoscalerKind.CLUSTER_AUTOSCALER.value,
        groups,
        ordered,
        loops,
        scale_down_result,
        notes,
        ",".join(e.value for e in opts.expander),
    )


def _group_of(ngs: NodeGroupSet, node: str | None) -> str | None:
    if node is None:
        return None
    for g in ngs.groups:
        if node in g.nodes:
            return g.name
    return None


__all__ = ["AutoscaleOptions", "AutoscaleResult", "AutoscalerKind", "NodeGroup", "Outcome", "autoscale"]
