"""`kwhatif autoscale --autoscaler karpenter`: the Karpenter half of the autoscale command (its
options, and the run from the cluster state to the report)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from kwhatif.cli.options import cluster_options as _cluster_options
from kwhatif.cli.options import filename_options as _filename_options
from kwhatif.cli.run import Run

F = TypeVar("F", bound=Callable[..., Any])


def karpenter_options(fn: F) -> F:
    """--node-pools, --instance-types, --consolidation and Karpenter's operator options."""
    for deco in reversed(
        (
            click.option(
                "--node-pools",
                "node_pools",
                metavar="FILE",
                type=click.Path(),
                help="Karpenter: karpenter.sh/v1 NodePools (as `kubectl get nodepools -o yaml` prints them), with "
                "those of the cluster state; a NodePool in both is taken from FILE.",
            ),
            click.option(
                "--instance-types",
                "instance_types",
                metavar="FILE",
                type=click.Path(),
                help="Karpenter: the instance type catalog (kind InstanceTypes of kwhatif/v1: capacity, overhead, "
                "labels, offerings with zone, capacity type, price). Default: the types of the cluster's nodes.",
            ),
            click.option(
                "--consolidation",
                is_flag=True,
                help="Karpenter: also what the disruption controller would consolidate now (empty and "
                "underutilized nodes, single- and multi-node, delete or replace) and why each other node stays.",
            ),
            click.option(
                "--min-values-policy",
                type=click.Choice(["Strict", "BestEffort"]),
                default="Strict",
                show_default=True,
                help="Karpenter's MinValuesPolicy: BestEffort relaxes a NodePool's minValues instead of failing.",
            ),
            click.option(
                "--preference-policy",
                type=click.Choice(["Respect", "Ignore"]),
                default="Respect",
                show_default=True,
                help="Karpenter's PreferencePolicy: Ignore drops preferred affinities and ScheduleAnyway spreads.",
            ),
            click.option(
                "--spot-to-spot-consolidation",
                is_flag=True,
                help="Karpenter's SpotToSpotConsolidation feature gate: a spot node may be replaced by a cheaper spot one.",
            ),
        )
    ):
        fn = deco(fn)
    return fn


def read_extra(paths: list[str], run: Run) -> list[tuple[str, dict[str, Any]]]:
    """The karpenter.sh objects of --node-pools (and any file of the same kind)."""
    from kwhatif.cli.options import limits
    from kwhatif.load.files import read_path

    out: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        for doc in read_path(path, limits(run.options)):
            if doc.kind in ("NodePool", "NodeClaim"):
                out.append((doc.source, doc.body))
    return out


def read_instance_types(path: str, run: Run) -> list[Any]:
    from kwhatif.autoscaler.karpenter.instancetypes import parse_instance_types
    from kwhatif.cli.options import limits
    from kwhatif.errors import InputError
    from kwhatif.load.files import read_path

    its: list[Any] = []
    found = False
    for doc in read_path(path, limits(run.options)):
        found = True
        its.extend(parse_instance_types(doc.body, doc.source))
    if not found:
        raise InputError("no InstanceTypes document", source=path)
    return its


def run_karpenter_command(
    run: Run,
    pods: list[Any],
    output: str,
    *,
    node_pools: str | None,
    instance_types: str | None,
    consolidation: bool,
    min_values_policy: str,
    preference_policy: str,
    spot_to_spot_consolidation: bool,
    notes: list[str],
) -> int:
    from kwhatif.autoscaler.karpenter.provisioner import MinValuesPolicy, PreferencePolicy, ProvisionOptions
    from kwhatif.report.karpenter import karpenter_report, render
    from kwhatif.whatif.karpenter import KarpenterOptions, load_karpenter, run_karpenter

    extra = read_extra([node_pools], run) if node_pools else []
    catalog = read_instance_types(instance_types, run) if instance_types else None
    pools, claims, its, load_notes = load_karpenter(run.state, extra, catalog)
    opts = KarpenterOptions(
        ProvisionOptions(PreferencePolicy(preference_policy), MinValuesPolicy(min_values_policy)),
        consolidation=consolidation,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
    )
    sched = run.scheduler(preemption=False, compact=True)
    result = run_karpenter(sched, run.state, pods, pools, claims, its, opts, load_notes)
    options = (
        ("minValuesPolicy", min_values_policy),
        ("preferencePolicy", preference_policy),
        ("spotToSpotConsolidation", "true" if spot_to_spot_consolidation else "false"),
    )
    report = karpenter_report(result, run.chosen, tuple([*notes, *run.chosen.notes]), options)
    text = render(report, output)
    run.env.stdout.write(text)
    run.env.stdout.flush()
    return int(report.exit_code)


def select_pods(
    run: Run,
    args: tuple[str, ...],
    sources: Any,
    pending: bool,
    namespace: str | None,
    ignore_node_name: bool = False,
) -> tuple[list[Any], list[str]]:
    """The pods to provision for, as `schedule` selects them: manifests (workloads expanded),
    pod/NAME, and with --pending the cluster's pending pods."""
    from kwhatif.whatif import schedule as engine

    positional, names = engine.split_arguments(args)
    paths = sources.paths(positional)
    if not args and not pending and not sources.given:
        raise click.UsageError("nothing to provision for: give POD_OR_MANIFEST files, -f PATH, -k DIR or --pending")
    default_ns = namespace or "default"
    from kwhatif.cache.cluster import Workload
    from kwhatif.load.cluster import WORKLOAD_KINDS
    from kwhatif.load.workloads import expand_workload

    docs = run.documents(paths, None, ignore_node_name, kustomize=sources.kustomize)
    # workloads give the pods their controllers would create, as `check` expands them
    expanded: list[Any] = []
    wnotes: list[str] = []
    for i, d in enumerate(d for d in docs if d.kind in WORKLOAD_KINDS):
        meta = d.body.get("metadata") if isinstance(d.body.get("metadata"), dict) else {}
        w = Workload(
            d.kind,
            str(meta.get("namespace") or default_ns),
            str(meta.get("name") or ""),
            str(meta.get("uid") or ""),
            d.body,
            d.source,
        )
        exp = expand_workload(w, run.state, index=i)
        expanded.extend(exp.pods)
        wnotes.extend(exp.notes)
        if exp.refusal:
            wnotes.append(f"{w.kind} {w.namespace}/{w.name}: {exp.refusal}")
    docs = [d for d in docs if d.kind not in WORKLOAD_KINDS]
    from_files, _ = engine.manifest_pods(
        run.state, docs, namespace=default_ns, enforce_namespace=namespace is not None, note=run.note
    )
    from_files = [*from_files, *expanded]
    plan = engine.plan(
        run.state,
        run.config,
        from_files,
        names,
        namespace=default_ns,
        pending=pending,
        all_namespaces=namespace is None,
    )
    notes = wnotes + list(plan.notes) + list(plan.selection.notes)
    if pending and not plan.pods:
        notes.append("no pending pods")
    return plan.pods, notes


@click.command("autoscale")
@click.argument("pods", nargs=-1, metavar="[POD_OR_MANIFEST | pod/NAME | NAMESPACE/NAME]...")
@_filename_options
@click.option("--pending", is_flag=True, help="Provision for the cluster's pending pods.")
@click.option("-n", "--namespace", metavar="NS", help="Namespace of pod/NAME and of manifests without one.")
@_cluster_options
@click.option(
    "--autoscaler",
    type=click.Choice(["karpenter"]),
    default="karpenter",
    show_default=True,
    help="The autoscaler whose decisions are simulated.",
)
@karpenter_options
@click.option(
    "-o",
    "--output",
    type=click.Choice(["table", "json", "yaml", "markdown", "html"]),
    default="table",
    show_default=True,
    help="Output format.",
)
def autoscale(
    pods: tuple[str, ...],
    pending: bool,
    namespace: str | None,
    autoscaler: str,
    node_pools: str | None,
    instance_types: str | None,
    consolidation: bool,
    min_values_policy: str,
    preference_policy: str,
    spot_to_spot_consolidation: bool,
    output: str,
    **kw: Any,
) -> int:
    """What Karpenter would provision for these pods, from which NodePool, on which instance types
    (and with --consolidation, what it would remove or replace). Pods kube-scheduler places on the
    existing nodes need nothing; Karpenter provisions for the others as its scheduler does."""
    from kwhatif.cli.options import cluster_opts, manifests_of

    sources = manifests_of(kw)
    co = cluster_opts(kw)
    run = Run.start(co, output)
    selected, notes = select_pods(run, pods, sources, pending, namespace)
    return run_karpenter_command(
        run,
        selected,
        output,
        node_pools=node_pools,
        instance_types=instance_types,
        consolidation=consolidation,
        min_values_policy=min_values_policy,
        preference_policy=preference_policy,
        spot_to_spot_consolidation=spot_to_spot_consolidation,
        notes=notes,
    )
