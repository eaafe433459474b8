"""`kwhatif diff`: what changes for these pods if the scheduler changes (an upgrade, a feature gate,
another configuration)?"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import click

from kwhatif.cli.complete import complete_feature_gates, complete_namespace, complete_release
from kwhatif.cli.options import (
    EXIT_STATUS_HELP,
    ClusterFlags,
    Manifests,
    cluster_options,
    filename_options,
    ignore_node_name_option,
    output_options,
    parse_label_selector,
)
from kwhatif.cli.run import Run, long_lived, render_options
from kwhatif.errors import InputError
from kwhatif.report.base import ReportKind

if TYPE_CHECKING:
    from collections.abc import Callable

    from kwhatif.cache.cluster import ClusterState
    from kwhatif.whatif.diff import Side, SideRun


@click.command(epilog=EXIT_STATUS_HELP["diff"])
@click.argument("pods", nargs=-1, metavar="[POD_OR_MANIFEST | pod/NAME | NAMESPACE/NAME]...")
@filename_options
@click.option("--pending", is_flag=True, help="Compare the cluster's pending pods (as `kwhatif schedule --pending`).")
@click.option(
    "--check",
    "check_",
    is_flag=True,
    help="The manifests hold workloads: compare them as `kwhatif check` places them (verdict and placed count "
    "per workload, and every pod).",
)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    shell_complete=complete_namespace,
    help="Namespace of pod/NAME and of manifests without one, and of the pods --pending and -l take.",
)
@click.option("-A", "--all-namespaces", is_flag=True, help="--pending and -l take the pods of every namespace.")
@click.option(
    "-l", "--selector", metavar="SELECTOR", help="Label selector narrowing --pending and the manifests' pods."
)
@cluster_options
@click.option(
    "--to-scheduler-version",
    metavar="VERSION",
    shell_complete=complete_release,
    help="The release to compare with (default: the first side's).",
)
@click.option(
    "--to-feature-gates",
    metavar="K=V,...",
    shell_complete=complete_feature_gates,
    help="The compared side's --feature-gates (default: --feature-gates).",
)
@click.option("--to-config", metavar="FILE", help="The compared side's KubeSchedulerConfiguration (default: --config).")
@click.option("--to-profile", metavar="NAME", help="The compared side's profile (default: --profile).")
@click.option(
    "--fail-on",
    type=click.Choice(["status", "node", "any"]),
    default="status",
    show_default=True,
    help="Exit 1 when some pod's status changes (status), also when its node changes (node), or on any change.",
)
@click.option(
    "--detail",
    type=click.Choice(["full", "summary"]),
    default="full",
    show_default=True,
    help="summary: the table and Markdown list each changed pod and its causes, without the per-node values.",
)
@output_options(ReportKind.DIFF)
@ignore_node_name_option
def diff(
    pods: tuple[str, ...],
    pending: bool,
    check_: bool,
    namespace: str | None,
    all_namespaces: bool,
    selector: str | None,
    to_scheduler_version: str | None,
    to_feature_gates: str | None,
    to_config: str | None,
    to_profile: str | None,
    fail_on: str,
    detail: str,
    output: str,
    color: str,
    ignore_node_name: bool,
    sources: Manifests,
    flags: ClusterFlags,
) -> int:
    """Compare these pods on this cluster under two schedulers.

    The usual options (--scheduler-version, --feature-gates, --config, --profile, or what the
    cluster says) describe the scheduler as it is; --to-scheduler-version, --to-feature-gates,
    --to-config and --to-profile the one to compare with, each defaulting to the first one.
    Pods are given as to `kwhatif schedule` (files, -f, -k, pod/NAME, --pending); with --check the
    manifests are workloads, as `kwhatif check` takes them. Both runs start from the same loaded
    cluster, each on its own copy.

    For each pod, `changed` lists the aspects that differ: status, node, message (the FitError
    text), filters (some node's first failing filter), scores (some feasible node's total, or the
    feasible set) and preemption (the nominated node or the victims), with the recorded upstream
    changes and feature gates that can explain them.
    """
    from kwhatif.report.diff_aspects import FailOn
    from kwhatif.whatif.diff import Side, resolve_to_version, to_version

    co = flags.options()
    if to_scheduler_version is not None:
        resolve_to_version(to_scheduler_version)  # a bad value fails before any input is read
    from kwhatif.whatif.schedule import split_arguments

    positional, names = split_arguments(() if check_ else pods)
    paths = sources.paths(list(pods) if check_ else positional)
    if check_:
        if pending:
            raise click.UsageError("--check compares the workloads of manifests; --pending compares pending pods")
        if not paths and not sources.kustomize:
            raise click.UsageError("--check: give MANIFEST files, -f PATH or -k DIR")
    elif not pods and not pending and not sources.given:
        raise click.UsageError(
            "nothing to compare: give POD_OR_MANIFEST files, -f PATH, -k DIR, pod/NAME, NAMESPACE/NAME, --pending, "
            "or manifests with --check"
        )
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the pods or --cluster, not both")
    label_selector = parse_label_selector(selector, "-l/--selector")
    run = Run.start(co, output, color)
    before = Side(run.chosen, run.config, co.profile)
    after_chosen = to_version(run.chosen, to_scheduler_version, co.feature_gates, to_feature_gates)
    to_opts = dataclasses.replace(co, config=to_config or co.config, profile=to_profile or co.profile)
    from kwhatif.cli.run import load_scheduler_config

    try:
        after_config = load_scheduler_config(to_opts, after_chosen.version)
    except InputError as e:
        if e.field != "--profile":
            raise
        # the compared side's profile: --to-profile, or --profile looked up in --to-config
        raise InputError(e.message, field="--to-profile" if to_profile else "--profile (in --to-config)") from None
    after = Side(after_chosen, after_config, to_opts.profile)
    for line in after_chosen.notes:
        if line not in run.chosen.notes:
            run.note(f"--to-scheduler-version: {line}")
    docs = run.documents(paths, namespace if check_ else None, ignore_node_name, kustomize=sources.kustomize)
    default_ns = namespace or "default"
    if namespace is None and co.live:
        from kwhatif.load.kubeconfig import context_namespace

        default_ns = context_namespace(co.kubeconfig, co.context)

    from functools import partial

    from kwhatif.whatif.diff import check_side, schedule_side

    run_one: Callable[[ClusterState, Side], SideRun]
    if check_:
        run_one = partial(check_side, docs=docs, preemption=co.preemption, on_scheduler=long_lived)
    else:
        run_one = partial(
            schedule_side,
            docs=docs,
            names=names,
            namespace=default_ns,
            enforce_namespace=namespace is not None,
            pending=pending,
            all_namespaces=all_namespaces,
            selector=label_selector,
            ignore_node_name=ignore_node_name,
            preemption=co.preemption,
            on_scheduler=long_lived,
        )

    from kwhatif.report.diff import diff_report, render
    from kwhatif.whatif.diff import diff as run_diff
    from kwhatif.whatif.diff import side_notes

    result = run_diff(run.state, before, after, run_one)
    for line in side_notes(result):
        run.note(line)
    if pending and not result.pods:
        run.note("no pending pods to compare")
    report = diff_report(result, FailOn(fail_on), notes=run.chosen.notes)
    run.env.stdout.write(render(report, output, render_options(run.env, color), summary=detail == "summary"))
    run.env.stdout.flush()
    return int(report.exit_code)
