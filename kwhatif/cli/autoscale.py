"""`kwhatif autoscale`: what the cluster autoscaler would do for pods that do not fit."""

from __future__ import annotations

import click

from kwhatif.cli.karpenter import karpenter_operator_options
from kwhatif.cli.options import (
    ClusterFlags,
    Manifests,
    cluster_options,
    filename_options,
    namespace_option,
    output_options,
)
from kwhatif.cli.run import Run
from kwhatif.report.base import ReportKind

EPILOG = (
    "\b\nExit status:\n"
    "  0   every pod fits the existing nodes or new nodes of a group (or waits for a later loop)\n"
    "  1   a pod gets no node: no group can host it, or a limit cuts it off\n"
    "  2   bad usage or bad input (file, YAML, object, field, configuration)\n"
    "  3   cluster or API error\n"
    "  5   internal error (--debug shows the traceback)\n"
    "  130 interrupted (Ctrl-C)\n"
    "  141 standard output was closed or its reader went away"
)


@click.command(epilog=EPILOG)
@click.argument("manifests", nargs=-1, metavar="[POD_OR_MANIFEST]...")
@filename_options
@click.option("--pending", is_flag=True, help="The cluster's pending pods (unbound, not terminal).")
@cluster_options
@output_options(ReportKind.AUTOSCALE)
@click.option(
    "--autoscaler",
    type=click.Choice(["cluster-autoscaler", "karpenter"]),
    default=None,
    help="Whose answer: cluster-autoscaler's node groups, or Karpenter's NodePools (default: Karpenter when "
    "the cluster state holds NodePools and no node groups, else cluster-autoscaler).",
)
@click.option(
    "--node-groups",
    metavar="FILE",
    help="The node groups (kind NodeGroups of kwhatif/v1: sizes, nodes, templates, prices, expander "
    "options); default: the nodes grouped by their provider labels, sized by the cluster-autoscaler-status "
    "ConfigMap.",
)
@click.option(
    "--expander",
    metavar="NAME[,NAME]",
    help="cluster-autoscaler's --expander chain: least-waste (default), most-pods, least-nodes, priority, "
    "price, random (deterministic here: the first group by name, the tie named).",
)
@click.option(
    "--max-nodes-total",
    type=click.IntRange(0),
    default=None,
    help="cluster-autoscaler's --max-nodes-total (0: no limit).",
)
@click.option("--cores-total", metavar="MIN:MAX", help="cluster-autoscaler's --cores-total (cores).")
@click.option("--memory-total", metavar="MIN:MAX", help="cluster-autoscaler's --memory-total (GiB).")
@click.option(
    "--balance-similar-node-groups/--no-balance-similar-node-groups",
    default=None,
    help="Split a scale-up over similar node groups, as cluster-autoscaler's flag.",
)
@click.option(
    "--loops",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Autoscaler loops: each later one sees the nodes the earlier ones added (stops when nothing changes).",
)
@click.option(
    "--scale-down", is_flag=True, help="Also say which nodes the autoscaler could remove, and why the others stay."
)
@click.option(
    "--scale-down-utilization-threshold",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="A node whose requested cpu and memory are both below this share of allocatable is a candidate.",
)
@click.option("--node-pools", metavar="FILE", help="Karpenter: NodePools (karpenter.sh/v1) besides the cluster's.")
@click.option(
    "--instance-types", metavar="FILE", help="Karpenter: the instance types (kind InstanceTypes of kwhatif/v1)."
)
@click.option("--consolidation", is_flag=True, help="Karpenter: also the nodes consolidation would delete or replace.")
@karpenter_operator_options
@namespace_option
def autoscale(
    manifests: tuple[str, ...],
    pending: bool,
    output: str,
    color: str,
    autoscaler: str | None,
    node_groups: str | None,
    expander: str | None,
    max_nodes_total: int | None,
    cores_total: str | None,
    memory_total: str | None,
    balance_similar_node_groups: bool | None,
    loops: int,
    scale_down: bool,
    scale_down_utilization_threshold: float,
    node_pools: str | None,
    instance_types: str | None,
    consolidation: bool,
    min_values_policy: str,
    preference_policy: str,
    spot_to_spot_consolidation: bool,
    namespace: str | None,
    sources: Manifests,
    flags: ClusterFlags,
) -> int:
    """What the cluster autoscaler would do for pods that do not fit the existing nodes.

    The pods are POD_OR_MANIFEST files, -f PATH and -k DIR (workloads become the pods their
    controllers create, as `kwhatif check` expands them), or the cluster's --pending pods. The
    scheduler places what fits the existing nodes first; for the rest, cluster-autoscaler's
    scale-up as its code runs it: pod equivalence groups, the node groups it skips and why, each
    group's template node (a sanitized copy of one of its nodes, or its given template, with the
    DaemonSet and static pods a new node runs), the template checked with the scheduler's
    filters only (as the autoscaler runs them, for the selected release and feature gates), the
    binpacking estimate of each group's new nodes, the expander's choice, the limits
    (--max-nodes-total, --cores-total, --memory-total, each group's maxSize) and balancing.

    Each pod is `existing`, `scale-up` (its group and new node) or `none` with why: it waits for a
    later scale-up, a limit cuts it off, or no group can host it (each group's reason).

    With --autoscaler karpenter (the default when the state holds NodePools and no
    cluster-autoscaler node groups), Karpenter's provisioning instead: existing and in-flight
    nodes, the NodeClaims it plans, new ones from the heaviest NodePool that accepts a pod, their
    instance types cheapest first (--instance-types, else the nodes' own types), and with
    --consolidation what its disruption controller would delete or replace.
    """
    from kwhatif.cli.options import limits
    from kwhatif.whatif.autoscale import AutoscaleOptions, AutoscalerKind, fork
    from kwhatif.whatif.autoscale_report import run_report

    co = flags.options()
    if not manifests and not sources.given and not pending:
        raise click.UsageError("nothing to autoscale for: give POD_OR_MANIFEST files, -f PATH, -k DIR or --pending")
    paths = sources.paths(manifests)
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the manifests or --cluster, not both")
    run = Run.start(co, output, color, allow_no_nodes=True)  # every group may be at zero
    docs = run.documents(paths, namespace, False, kustomize=sources.kustomize)
    state = fork(run.state)  # the manifests' other objects join a copy
    options = AutoscaleOptions(
        autoscaler=AutoscalerKind(autoscaler) if autoscaler else None,
        node_groups=node_groups,
        expander=expander,
        max_nodes_total=max_nodes_total,
        cores_total=cores_total,
        memory_total=memory_total,
        balance_similar_node_groups=balance_similar_node_groups,
        scale_down=scale_down,
        scale_down_utilization_threshold=scale_down_utilization_threshold,
        loops=loops,
        node_pools=node_pools,
        instance_types=instance_types,
        consolidation=consolidation,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
    )
    report = run_report(
        state,
        docs,
        run.config,
        run.chosen,
        options,
        limits(co),
        pending=pending,
        namespace=namespace,
        profile=co.profile,
        note=run.note,
    )
    return run.emit(report)
