"""`kwhatif snapshot`: save what kwhatif reads from a live cluster as one List, for --cluster."""

from __future__ import annotations

import click

from kwhatif.cli.complete import complete_context
from kwhatif.cli.env import Environment, current
from kwhatif.cli.options import EXIT_STATUS_HELP, REQUEST_TIMEOUT_HELP, parse_size, parse_timeout


@click.command(epilog=EXIT_STATUS_HELP["snapshot"])
@click.option(
    "-o",
    "--output",
    "path",
    metavar="FILE",
    help="Write to FILE, as JSON (.json) or YAML (.yaml, .yml); default: JSON on standard output.",
)
@click.option("--kubeconfig", metavar="FILE", help="kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config).")
@click.option("--context", metavar="NAME", shell_complete=complete_context, help="kubeconfig context to use.")
@click.option("--request-timeout", metavar="DURATION", help=REQUEST_TIMEOUT_HELP)
@click.option(
    "--max-input-size", metavar="SIZE", help="Largest list to read (all its pages), such as 500M or 4G (default 2G)."
)
def snapshot(
    path: str | None,
    kubeconfig: str | None,
    context: str | None,
    request_timeout: str | None,
    max_input_size: str | None,
) -> int:
    """Save what kwhatif reads from a live cluster as one List, for --cluster.

    Nodes, pods, namespaces, PriorityClasses, PodDisruptionBudgets, services, workloads, storage
    objects, RuntimeClasses and DRA objects (DeviceClasses, ResourceSlices, ResourceClaims,
    ResourceClaimTemplates) are read in pages and written as one kubectl-compatible
    `kind: List` (without managedFields and kubectl's last-applied-configuration annotation,
    which kwhatif does not read). `--cluster FILE` then gives the answers the live cluster
    gives, for example in CI. Optional lists the cluster does not serve or lets kwhatif not
    read are noted and skipped; any other failure writes nothing (FILE keeps its content).
    Exit status 0, 2 when FILE cannot be written or a list is above --max-input-size, 3 when
    the cluster cannot be read.
    """
    from kwhatif.load.live import live_options, orphan_note, save_snapshot, snapshot_format

    env = current()
    snapshot_format(path)  # a bad file name fails before the cluster is read
    options = live_options(parse_timeout(request_timeout), parse_size(max_input_size) if max_input_size else None)
    progress = _Progress(env) if env.stderr_isatty else None
    try:
        stats = save_snapshot(kubeconfig, context, path, progress, options)
    finally:
        if progress is not None:
            progress.clear()
    for note in stats.notes:
        env.note(note)
    if stats.orphaned_pods:
        env.note(orphan_note(stats.orphaned_pods))
    if path and path != "-":
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(stats.counts.items()))
        env.say(f"saved {stats.total} objects to {path} ({kinds})")
    return 0


class _Progress:
    """One line on a terminal's stderr, rewritten as the pages come in."""

    def __init__(self, env: Environment) -> None:
        self.stderr = env.stderr
        self.width = 0

    def __call__(self, resource: str, count: int) -> None:
        text = f"kwhatif: reading {resource}: {count}"
        self.stderr.write("\r" + text.ljust(self.width))
        self.stderr.flush()
        self.width = max(self.width, len(text))

    def clear(self) -> None:
        if self.width:
            self.stderr.write("\r" + " " * self.width + "\r")
            self.stderr.flush()
