"""`kwhatif drain`: would the pods on these nodes fit elsewhere?"""

from __future__ import annotations

from typing import Any

import click

from kwhatif.cli.options import cluster_options, cluster_opts, output_options
from kwhatif.cli.run import Run
from kwhatif.report.base import ReportKind


@click.command()
@click.argument("nodes", nargs=-1, required=True, metavar="NODE...")
@cluster_options
@output_options(ReportKind.DRAIN)
def drain(nodes: tuple[str, ...], output: str, color: str, **kw: Any) -> int:
    """Would the pods on these nodes fit elsewhere? A what-if of `kubectl drain NODE...`.

    The nodes are cordoned, their pods evicted as drain evicts them (DaemonSet and static pods
    stay; PodDisruptionBudgets can refuse an eviction) and the replacements scheduled.
    Exit status 0 when every evicted pod lands somewhere, 1 otherwise.
    """
    from kwhatif.report.drain import drain_report
    from kwhatif.whatif.drain import drain as run_drain

    run = Run.start(cluster_opts(kw), output, color, nodes=(nodes, "NODE"))
    sched = run.scheduler(filter_excluded=False, compact=True)
    result = run_drain(sched, run.state, list(nodes))
    return run.emit(drain_report(result, run.profile, run.chosen, run.chosen.notes))
