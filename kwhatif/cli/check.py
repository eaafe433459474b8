"""`kwhatif check`: the CI gate, will the workloads in these manifests fit on the cluster?"""

from __future__ import annotations

import click

from kwhatif.cli.options import (
    EXIT_STATUS_HELP,
    ClusterFlags,
    Manifests,
    cluster_options,
    filename_options,
    ignore_node_name_option,
    namespace_option,
    output_options,
)
from kwhatif.cli.run import Run
from kwhatif.report.base import ReportKind


@click.command(epilog=EXIT_STATUS_HELP["check"])
@click.argument("manifests", nargs=-1, metavar="[MANIFEST]...")
@filename_options
@cluster_options
@output_options(ReportKind.CHECK)
@click.option(
    "--surge",
    is_flag=True,
    help="Keep the running pods of updated workloads while placing the new ones (a rolling update's worst case).",
)
@click.option(
    "--hpa-max",
    is_flag=True,
    help="Check workloads a HorizontalPodAutoscaler scales at its maxReplicas (the peak they must survive).",
)
@click.option(
    "--admit-suspended",
    is_flag=True,
    help=(
        "Check suspended Jobs, CronJobs and operators' objects (JobSets, RayClusters, Kubeflow jobs) as if resumed, "
        "as Kueue resumes what it admits (without it they are listed as not checked)."
    ),
)
@click.option(
    "--strict",
    is_flag=True,
    help=(
        "Fail (exit 1) on warnings too: objects kwhatif does not expand into pods (not checked), DaemonSets with "
        "no eligible node, answers the cluster state cannot give (unknown)."
    ),
)
@click.option(
    "--autoscale",
    is_flag=True,
    help="Count on cluster-autoscaler: workloads that fit only on new nodes of a node group are "
    "'fits after scale-up' (exit 0; --strict fails them). See `kwhatif autoscale`.",
)
@click.option("--node-groups", metavar="FILE", help="With --autoscale: the node groups (see `kwhatif autoscale`).")
@click.option("--expander", metavar="NAME[,NAME]", help="With --autoscale: cluster-autoscaler's --expander.")
@click.option(
    "--max-nodes-total",
    type=click.IntRange(0),
    default=None,
    help="With --autoscale: cluster-autoscaler's --max-nodes-total.",
)
@namespace_option
@ignore_node_name_option
def check(
    manifests: tuple[str, ...],
    output: str,
    color: str,
    surge: bool,
    hpa_max: bool,
    admit_suspended: bool,
    strict: bool,
    namespace: str | None,
    ignore_node_name: bool,
    sources: Manifests,
    flags: ClusterFlags,
    autoscale: bool = False,
    node_groups: str | None = None,
    expander: str | None = None,
    max_nodes_total: int | None = None,
) -> int:
    """CI gate: will the workloads in these manifests fit on the cluster?

    The manifests are MANIFEST files, -f PATH
    (files, directories as kubectl reads them, -R, '-') and -k DIR (a kustomization; for a Helm
    chart: `helm template ... | kwhatif check -f - ...`), all of them together.

    Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers and
    bare Pods become the pods their controllers would create; other objects in the manifests
    (PriorityClasses, Services, PVCs, LimitRanges, HorizontalPodAutoscalers, ...) join the cluster
    first. A workload that already runs is updated: its current pods leave first, unless --surge.
    """
    from kwhatif.report.check import check_report
    from kwhatif.whatif.check import check as run_check

    co = flags.options()
    if (node_groups or expander or max_nodes_total is not None) and not autoscale:
        raise click.UsageError("--node-groups, --expander and --max-nodes-total go with --autoscale")
    if not manifests and not sources.given:
        raise click.UsageError("nothing to check: give MANIFEST files, -f PATH or -k DIR")
    paths = sources.paths(manifests)
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the manifests or --cluster, not both")
    run = Run.start(co, output, color)
    docs = run.documents(paths, namespace, ignore_node_name, precise=True, kustomize=sources.kustomize)
    result, sched = run_check(
        run.state,
        docs,
        run.scheduler_factory(filter_excluded=False, compact=True),
        surge=surge,
        profile=co.profile,
        hpa_max=hpa_max,
        admit_suspended=admit_suspended,
    )
    if result.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(result.skipped.items()))
        run.note(f"objects in the manifests that run no pods, not checked: {kinds}")
    report = check_report(result, run.schedule_report(sched, result.attempts, run.profile), strict=strict)
    if autoscale:
        from kwhatif.cli.options import limits
        from kwhatif.report.autoscale import autoscale_report, with_autoscale
        from kwhatif.whatif.autoscale import AutoscaleOptions, autoscale_after_check

        # until nothing changes: a pod that waits for a later loop of the autoscaler fits too
        options = AutoscaleOptions(
            node_groups=node_groups, expander=expander, max_nodes_total=max_nodes_total, loops=20
        )
        auto = autoscale_after_check(run.state, sched, result.attempts, run.config, options, limits(co))
        report = with_autoscale(report, autoscale_report(auto, run.chosen))
    return run.emit(report)
