"""`kwhatif schedule`: place pods one after another and explain every decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from kwhatif.cli.complete import complete_namespace, complete_node
from kwhatif.cli.options import (
    EXIT_STATUS_HELP,
    ClusterFlags,
    Manifests,
    cluster_options,
    filename_options,
    ignore_node_name_option,
    live_options,
    output_options,
    parse_label_selector,
)
from kwhatif.cli.run import Run
from kwhatif.escape import visible
from kwhatif.report.base import ReportKind

if TYPE_CHECKING:
    from kwhatif.binder import ApiBinder
    from kwhatif.whatif.schedule import Plan


@click.command(epilog=EXIT_STATUS_HELP["schedule"])
@click.argument("pods", nargs=-1, metavar="[POD_OR_MANIFEST | pod/NAME | NAMESPACE/NAME]...")
@filename_options
@click.option(
    "--pending",
    is_flag=True,
    help="Schedule the cluster's pending pods: unbound, phase Pending, of a scheduler with a profile "
    "(or of --scheduler-name / --profile).",
)
@click.option(
    "--scheduler-name",
    metavar="NAME",
    help="With --pending: take the pending pods whose spec.schedulerName is NAME (another scheduler's).",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    shell_complete=complete_namespace,
    help="Namespace of pod/NAME and of manifests without one, and of the pods --pending and -l take (as "
    "kubectl -n; default: the kubeconfig context's, else default).",
)
@click.option(
    "-A",
    "--all-namespaces",
    is_flag=True,
    help="--pending and -l take the pods of every namespace, as kubectl -A.",
)
@click.option(
    "-l",
    "--selector",
    metavar="SELECTOR",
    help="Label selector (a=b,c!=d,e in (x,y)) narrowing --pending and the manifests' pods, as kubectl -l.",
)
@cluster_options
@output_options(ReportKind.SCHEDULE)
@click.option(
    "--node",
    "nodes",
    multiple=True,
    metavar="NAME",
    shell_complete=complete_node,
    help="Show only these nodes in the table. Repeatable.",
)
@click.option(
    "--explain",
    type=click.Choice(["grouped", "all"]),
    default="grouped",
    help="The table's nodes. grouped: on a cluster of up to 20 nodes every node; on a larger one a pod's "
    "5 best feasible nodes and a count of the others, its infeasible nodes grouped by reason (with counts) "
    "and, for a pod that fits nowhere, the nodes closest to fitting. all: every node of every pod.",
)
@click.option(
    "--detail",
    type=click.Choice(["full", "summary"]),
    default=None,
    help="-o json and yaml: full (default) records every node of every pod; summary writes the compact "
    "form the table shows (on more than 20 nodes), a few MB for hundreds of pods. With the table, full is "
    "--explain all.",
)
@click.option(
    "--apply",
    "apply_",
    is_flag=True,
    help="Bind the scheduled pods for real (needs --kubeconfig/--context): pods of the cluster get "
    "DefaultBinder's v1 Binding, new pods are created bound; each outcome is reported.",
)
@click.option("--yes", is_flag=True, help="With --apply: do not ask for confirmation.")
@ignore_node_name_option
def schedule(
    pods: tuple[str, ...],
    pending: bool,
    scheduler_name: str | None,
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    output: str,
    color: str,
    nodes: tuple[str, ...],
    explain: str,
    detail: str | None,
    apply_: bool,
    yes: bool,
    ignore_node_name: bool,
    sources: Manifests,
    flags: ClusterFlags,
) -> int:
    """Schedule pods, one after another, and explain every decision.

    POD_OR_MANIFEST files hold Pods (several per file allowed); '-' reads standard input; -f PATH
    and -k DIR give manifests as kubectl takes them, with the positional ones.
    pod/NAME and NAMESPACE/NAME name pods of the cluster; --pending takes all its pending pods.
    A manifest of a pod the cluster already has stands for the cluster's pod.
    """
    from kwhatif.whatif import schedule as engine
    from kwhatif.whatif.schedule import split_arguments

    co = flags.options()
    live = co.live
    if apply_ and co.cluster:
        raise click.UsageError(
            "--apply binds pods in a live cluster, not in a saved state (--cluster): a node that is free "
            "there may be full now; use --kubeconfig/--context"
        )
    if apply_ and not live:
        raise click.UsageError("--apply binds pods in a live cluster: give --kubeconfig/--context or set $KUBECONFIG")
    if detail == "summary" and (apply_ or output not in ("table", "wide", "json", "yaml")):
        raise click.UsageError("--detail summary is written by -o table, wide, json and yaml, without --apply")
    if yes and not apply_:
        raise click.UsageError("--yes answers the confirmation of --apply: without --apply nothing is bound")
    positional, names = split_arguments(pods)
    paths = sources.paths(positional)
    if scheduler_name and not pending:
        raise click.UsageError("--scheduler-name selects pending pods: add --pending")
    if not pods and not pending and not sources.given:
        raise click.UsageError(
            "nothing to schedule: give POD_OR_MANIFEST files, -f PATH, -k DIR, pod/NAME, NAMESPACE/NAME or --pending"
        )
    if all_namespaces and any(n.namespace is None for n in names):
        raise click.UsageError(
            "-A/--all-namespaces cannot find pod/NAME: a pod is named in one namespace (give NAMESPACE/NAME or -n)"
        )
    if selector is not None and names:
        raise click.UsageError(
            "-l/--selector cannot be combined with pod/NAME arguments: a name already selects the pod"
        )
    label_selector = parse_label_selector(selector, "-l/--selector")
    if namespace is not None:
        from kwhatif.api.names import is_dns1123_label

        errs = is_dns1123_label(namespace)
        if errs:
            raise click.UsageError(f"-n/--namespace {namespace!r}: {errs[0]}")
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the pods or --cluster, not both")
    run = Run.start(co, output, color, nodes=(nodes, "--node"))
    default_ns = namespace
    if default_ns is None:
        default_ns = "default"
        if live:
            from kwhatif.load.kubeconfig import context_namespace

            default_ns = context_namespace(co.kubeconfig, co.context)
    docs = run.documents(paths, None, ignore_node_name, kustomize=sources.kustomize)
    from_files, manifests = engine.manifest_pods(
        run.state, docs, namespace=default_ns, enforce_namespace=namespace is not None, note=run.note
    )
    plan = engine.plan(
        run.state,
        run.config,
        from_files,
        names,
        namespace=default_ns,
        profile=co.profile,
        scheduler_name=scheduler_name,
        pending=pending,
        all_namespaces=all_namespaces,
        selector=label_selector,
        ignore_node_name=ignore_node_name,
    )
    sel = plan.selection
    if apply_ and sel.moved:
        raise click.UsageError(
            f"--apply cannot bind pod {next(iter(sel.moved))} again: it is bound to node "
            f"{next(iter(sel.moved.values()))}, and the API server never moves a bound pod"
        )
    for note in sel.notes:
        run.note(note)
    if selector is not None and not plan.pods:
        what = "pending pod" if pending and not paths else "pod"
        run.note(f"-l {selector}: no {what} matches the selector")
    elif pending and not plan.pods:
        run.note("no pending pods to schedule")
    binder: ApiBinder | None = None
    if apply_:
        from kwhatif.binder import make_api_binder
        from kwhatif.whatif.schedule import unbound_claims

        binder = make_api_binder(
            co.kubeconfig, co.context, sel.existing, manifests, unbound_claims(run.state), live_options(co)
        )
    sched = run.scheduler(binder=binder, preemption=co.preemption and not apply_)
    if apply_ and not yes and plan.pods:
        _confirm(run, plan, binder)
    from kwhatif.cli.run import STREAMED, STREAMED_DOCUMENTS
    from kwhatif.report.base import OutputFormat

    explain_all = explain == "all" or (detail == "full" and OutputFormat(output) not in STREAMED_DOCUMENTS)
    if binder is None and OutputFormat(output) in STREAMED:
        # written pod by pod as the pods are placed: memory does not grow with their number
        fmt = OutputFormat(output)
        if fmt in STREAMED_DOCUMENTS:
            compact = detail == "summary"
        elif fmt in (OutputFormat.TABLE, OutputFormat.WIDE):
            compact = not explain_all and not nodes and detail != "full"
        else:
            compact = False  # markdown, junit, sarif and html read every node's record
        notes = list(plan.notes)
        if co.preemption and apply_:
            notes.append("preemption is off with --apply: kwhatif never evicts pods")
        return run.stream_schedule(sched, plan, notes, compact=compact, nodes=nodes, explain_all=explain_all)
    attempts = engine.schedule(sched, plan)
    notes = list(plan.notes)
    if apply_ and co.preemption:
        notes.append("preemption is off with --apply: kwhatif never evicts pods")
    if binder is not None:
        notes.append(binder.summary())
    report = run.schedule_report(sched, attempts, plan.profile, notes, apply=binder is not None)
    code = run.emit(report, nodes=nodes, explain_all=explain_all)
    for line in report.apply_messages():
        run.env.say(line)
    return code


def _confirm(run: Run, plan: Plan, binder: ApiBinder | None) -> None:
    """--apply without --yes asks on a terminal before anything is bound."""
    if not run.env.stdin_isatty:
        raise click.UsageError("--apply asks for confirmation on a terminal; add --yes to bind without asking")
    existing = sum(1 for p in plan.pods if p.key in plan.selection.existing)
    new = len(plan.pods) - existing
    what = " and ".join(
        t
        for t in (
            f"bind up to {existing} pending pod(s)" if existing else "",
            f"create up to {new} pod(s) bound to their nodes" if new else "",
        )
        if t
    )
    where = visible(binder.where) if binder else "the cluster"
    click.confirm(f"{what[0].upper()}{what[1:]} in {where}?", abort=True, err=True)
