"""`kwhatif snapshot`: save what kwhatif reads from a live cluster as one List, for --cluster."""

from __future__ import annotations

import click

from kwhatif.cli.complete import complete_context
from kwhatif.cli.env import Environment, current
from kwhatif.cli.options import EXIT_STATUS_HELP, REQUEST_TIMEOUT_HELP, parse_size, parse_timeout


def _format(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """-o is a format, as on every command; a file name there is what -o meant before."""
    if value is None or value in ("json", "yaml"):
        return value
    raise click.BadParameter(
        f"{value!r} is not a format (json, yaml); give the file as an argument (kwhatif snapshot {value}) "
        "or with --output-file",
        param_hint="'-o' / '--output'",
    )


@click.command(epilog=EXIT_STATUS_HELP["snapshot"])
@click.argument("file", required=False, metavar="[FILE]", type=click.Path(dir_okay=False))
@click.option(
    "--output-file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write to FILE (the same as the FILE argument); '-' or none: standard output.",
)
@click.option(
    "-o",
    "--output",
    "fmt",
    metavar="json|yaml",
    callback=_format,
    help="Format: json or yaml. Default: from FILE's extension (.yaml and .yml: YAML), else JSON.",
)
@click.option("--kubeconfig", metavar="FILE", help="kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config).")
@click.option("--context", metavar="NAME", shell_complete=complete_context, help="kubeconfig context to use.")
@click.option("--request-timeout", metavar="DURATION", help=REQUEST_TIMEOUT_HELP)
@click.option(
    "--max-input-size", metavar="SIZE", help="Largest list to read (all its pages), such as 500M or 4G (default 2G)."
)
def snapshot(
    file: str | None,
    output_file: str | None,
    fmt: str | None,
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
    read are noted and skipped; any other failure writes nothing (FILE keeps its content, and
    standard output gets nothing). FILE (or --output-file) is written through a temporary file
    renamed into place; without one ('-' too), the List goes to standard output once complete.
    """
    from kwhatif.load.live import live_options, orphan_note, save_snapshot, snapshot_format

    env = current()
    if file is not None and output_file is not None:
        raise click.UsageError("give the file either as FILE or with --output-file, not both")
    path = file if file is not None else output_file
    fmt = snapshot_format(path, fmt)
    options = live_options(parse_timeout(request_timeout), parse_size(max_input_size) if max_input_size else None)
    progress = _Progress(env) if env.stderr_isatty else None
    try:
        stats = save_snapshot(kubeconfig, context, path, progress, options, fmt=fmt)
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
