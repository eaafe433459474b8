"""`kwhatif drain`: would the pods on these nodes fit elsewhere?"""

from __future__ import annotations

import click

from kwhatif.cli.complete import complete_node
from kwhatif.cli.options import (
    EXIT_STATUS_HELP,
    ClusterFlags,
    cluster_options,
    output_options,
    parse_label_selector,
)
from kwhatif.cli.run import Run
from kwhatif.report.base import ReportKind


@click.command(epilog=EXIT_STATUS_HELP["drain"])
@click.argument("nodes", nargs=-1, required=True, metavar="NODE...", shell_complete=complete_node)
@cluster_options
@output_options(ReportKind.DRAIN)
@click.option(
    "--ignore-daemonsets",
    is_flag=True,
    help="Leave DaemonSet-managed pods (without it, drain refuses a node with one).",
)
@click.option(
    "--delete-emptydir-data",
    is_flag=True,
    help="Evict pods with emptyDir volumes, their data lost (without it, drain refuses a node with one).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Delete pods that declare no controller; nothing recreates them (without it, drain refuses a node with one).",
)
@click.option(
    "--disable-eviction",
    is_flag=True,
    help="Delete the pods instead of evicting them: PodDisruptionBudgets are not checked.",
)
@click.option(
    "--pod-selector",
    metavar="SELECTOR",
    help="Only the pods on the nodes that match this label selector are drained; the others stay.",
)
def drain(
    nodes: tuple[str, ...],
    output: str,
    color: str,
    ignore_daemonsets: bool,
    delete_emptydir_data: bool,
    force: bool,
    disable_eviction: bool,
    pod_selector: str | None,
    flags: ClusterFlags,
) -> int:
    """Would the pods on these nodes fit elsewhere? A what-if of `kubectl drain NODE...`.

    The nodes are cordoned and their pods sorted out as kubectl drain does: a node with a
    DaemonSet-managed pod (without --ignore-daemonsets), a pod with emptyDir volumes (without
    --delete-emptydir-data) or a pod that declares no controller (without --force) is refused
    with kubectl's error, and nothing on it is evicted. Static pods stay; PodDisruptionBudgets
    can refuse an eviction (unless --disable-eviction); the replacements are scheduled.
    """
    from kwhatif.whatif.drain import DrainOptions, run_report

    selector = parse_label_selector(pod_selector, "--pod-selector")
    opts = DrainOptions(
        ignore_daemonsets=ignore_daemonsets,
        delete_emptydir_data=delete_emptydir_data,
        force=force,
        disable_eviction=disable_eviction,
        pod_selector=selector,
    )
    run = Run.start(flags.options(), output, color, nodes=(nodes, "NODE"))
    sched = run.scheduler(filter_excluded=False, compact=True)
    return run.emit(run_report(sched, run.state, list(nodes), opts, pod_selector, run.profile, run.chosen))
