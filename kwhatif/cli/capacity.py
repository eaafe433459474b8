"""`kwhatif capacity`: how many more copies of a pod fit, and what stops the next one."""

from __future__ import annotations

import click

from kwhatif.cli.options import (
    EXIT_STATUS_HELP,
    MAX_COPIES,
    ClusterFlags,
    Manifests,
    cluster_options,
    filename_options,
    namespace_option,
    output_options,
)
from kwhatif.cli.run import Run
from kwhatif.report.base import ReportKind


@click.command(epilog=EXIT_STATUS_HELP["capacity"])
@click.argument("pod", metavar="[POD_OR_WORKLOAD]", required=False)
@filename_options
@cluster_options
@output_options(ReportKind.CAPACITY)
@click.option(
    "--max",
    "max_copies",
    type=click.IntRange(1, MAX_COPIES),
    default=1000,
    show_default=True,
    help="Stop after this many copies (when --min is larger and --max not given: --min).",
)
@click.option(
    "--min",
    "minimum",
    type=click.IntRange(0, MAX_COPIES),
    default=None,
    help="Exit 1 when fewer than this many copies fit (a CI gate).",
)
@namespace_option
def capacity(
    pod: str | None,
    output: str,
    color: str,
    max_copies: int,
    minimum: int | None,
    namespace: str | None,
    sources: Manifests,
    flags: ClusterFlags,
) -> int:
    """How many more copies of a pod fit, where they would go, and what stops the next one.

    POD_OR_WORKLOAD (or -f PATH, or -k DIR) is a file with one Pod, or one workload (Deployment,
    StatefulSet, DaemonSet, Job, ...) whose pod template is used. Copies are scheduled one after another, each seeing
    the earlier ones, until one does not fit. A copy that would have to preempt other pods does
    not count.
    """
    from kwhatif.report.capacity import capacity_report
    from kwhatif.whatif.capacity import measure, template_of

    if minimum is not None and minimum > max_copies:
        if click.get_current_context().get_parameter_source("max_copies") is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError(
                f"--min {minimum} is more than --max {max_copies}: at most --max copies are counted, "
                "so the gate could never pass"
            )
        max_copies = minimum  # count far enough to tell whether the minimum fits
    co = flags.options()
    if pod is None and not sources.given:
        raise click.UsageError("nothing to count: give POD_OR_WORKLOAD, -f PATH or -k DIR")
    paths = sources.paths([pod] if pod is not None else [])
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the pod or --cluster, not both")
    run = Run.start(co, output, color)
    docs = run.documents(paths, namespace, False, kustomize=sources.kustomize)
    label = pod or (sources.filenames[0] if sources.filenames else str(sources.kustomize))
    template, origin = template_of(run.state, docs, label, profile=co.profile)
    sched = run.scheduler(filter_excluded=False)
    sched.framework_for(template)
    res = measure(sched, template, max_copies)
    if origin:
        res.notes.insert(0, origin)
    report = capacity_report(
        res, template.scheduler_name, sched.snapshot.num_nodes, minimum, run.chosen, run.chosen.notes
    )
    return run.emit(report)
