"""The command line: click commands that wire options to the load → schedule → report stages.

Only this module catches errors: every KwhatifError becomes one line on stderr and its exit code;
anything else is an internal error (exit 5) unless --debug asks for the traceback.
Heavy modules are imported inside the commands so that --help and completion stay fast.
"""

from __future__ import annotations

import errno
import gc
import io
import os
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kwhatif import __version__
from kwhatif.errors import ExitCode, InputError, Interrupted, KwhatifError
from kwhatif.report.base import OutputFormat, ReportKind

if TYPE_CHECKING:
    from kwhatif.config.types import SchedulerConfiguration
    from kwhatif.load.cluster import ClusterState
    from kwhatif.report.formatter import AnyReport, RenderOptions
    from kwhatif.versions import ChosenVersion

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def _parse_size(text: str) -> int:
    units = {"": 1, "k": 1 << 10, "ki": 1 << 10, "m": 1 << 20, "mi": 1 << 20, "g": 1 << 30, "gi": 1 << 30}
    t = text.strip().lower().removesuffix("b")
    num = t.rstrip("kmgi")
    unit = t[len(num) :]
    if not num.isdigit() or unit not in units:
        raise click.BadParameter(f"{text!r} is not a size such as 500M or 2G", param_hint="'--max-input-size'")
    size = int(num) * units[unit]
    if size == 0:
        raise click.BadParameter(
            "0 would refuse every input; give a size such as 500M or 2G", param_hint="'--max-input-size'"
        )
    return size


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    cluster: tuple[str, ...]
    kubeconfig: str | None
    context: str | None
    config: str | None
    profile: str | None
    max_input_size: int | None
    without_node: tuple[str, ...]
    add_node: tuple[str, ...]
    preemption: bool
    quiet: bool = False
    scheduler_version: str | None = None
    request_timeout: float | None = None  # None: the default


def _parse_timeout(text: str | None) -> float | None:
    """--request-timeout, as kubectl spells it (30s, 1m, a bare number of seconds; 0: none)."""
    if text is None:
        return None
    from kwhatif.load.http import parse_duration

    try:
        return parse_duration(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a duration such as 30s, 2m or 1m30s (a bare number is seconds; 0 waits forever)",
            param_hint="'--request-timeout'",
        ) from None


REQUEST_TIMEOUT_HELP = (
    "Live reads: give up on a request (and an exec credential plugin) after this long, such as 30s "
    "or 2m (a bare number is seconds; 0 waits forever). Default 60s."
)


def _live_options(co: ClusterOptions) -> Any:
    from kwhatif.load.live import live_options

    return live_options(co.kubeconfig, co.context, co.request_timeout, co.max_input_size)


def cluster_options(fn: F) -> F:
    opts = [
        click.option(
            "--cluster",
            "-c",
            "cluster",
            multiple=True,
            metavar="PATH",
            help="Cluster state: a kubectl List (YAML/JSON), manifests, or a `kubectl cluster-info dump` "
            "(stream or directory). Repeatable; '-' reads standard input.",
        ),
        click.option("--kubeconfig", metavar="FILE", help="Read the cluster state from a live cluster."),
        click.option("--context", metavar="NAME", help="kubeconfig context to use (implies --kubeconfig default)."),
        click.option("--request-timeout", metavar="DURATION", help=REQUEST_TIMEOUT_HELP),
        click.option(
            "--config",
            "config",
            metavar="FILE",
            help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with the profiles to use.",
        ),
        click.option(
            "--profile", metavar="NAME", help="Schedule every pod with this profile, whatever its schedulerName."
        ),
        click.option(
            "--max-input-size",
            metavar="SIZE",
            default=None,
            help="Largest input file to read, for YAML and JSON alike, such as 500M or 4G (above 0; "
            "default 128M for YAML, 2G for JSON).",
        ),
        click.option(
            "--without-node", multiple=True, metavar="NAME", help="Take this node (and its pods) out first. Repeatable."
        ),
        click.option(
            "--add-node",
            multiple=True,
            metavar="FILE[:COUNT]",
            help="Add COUNT clones (default 1) of the Node in FILE with fresh names. Repeatable.",
        ),
        click.option("--no-preemption", is_flag=True, help="Do not run PostFilter (DefaultPreemption)."),
        click.option(
            "--quiet",
            is_flag=True,
            help="No progress line on standard error (shown on a terminal during long loads and runs).",
        ),
        click.option(
            "--scheduler-version",
            metavar="VERSION",
            help="Answer as this kube-scheduler release: 1.30 to 1.37 (the newest patch kwhatif knows) or "
            "an exact patch such as 1.34.2. Default: the live cluster's version, else the dump's "
            "kube-scheduler (or kube-apiserver) image, else 1.35.",
        ),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def output_options(kind: ReportKind) -> Callable[[F], F]:
    """-o with the formats the command's kind of report is written in, and --color."""

    def deco(fn: F) -> F:
        fn = click.option(
            "-o",
            "--output",
            type=click.Choice([f.value for f in kind.formats]),
            default=OutputFormat.TABLE.value,
            show_default=True,
            help="Output format.",
        )(fn)
        fn = click.option(
            "--color",
            type=click.Choice(["auto", "always", "never"]),
            default="auto",
            help="Colour the table output (auto: on a terminal, unless NO_COLOR is set).",
        )(fn)
        return fn

    return deco


def namespace_option(fn: F) -> F:
    return click.option(
        "-n",
        "--namespace",
        metavar="NS",
        help="Namespace for objects of the manifests that name none, as `kubectl apply -n` (an object that names "
        "another one is an error).",
    )(fn)


def ignore_node_name_option(fn: F) -> F:
    return click.option(
        "--ignore-node-name",
        is_flag=True,
        help="Drop spec.nodeName from the Pods given (a pod exported from a cluster keeps its node) to schedule them anew; "
        "a bound pod of the cluster named or given is taken off its node first.",
    )(fn)


def read_documents(
    paths: Iterable[str], co: ClusterOptions, namespace: str | None, ignore_node_name: bool, *, precise: bool = False
) -> list[Any]:
    """The documents of the manifests given to a command, with -n and --ignore-node-name applied;
    ``precise``: each names the line it starts on (for annotations)."""
    from kwhatif.load.cluster import apply_namespace
    from kwhatif.load.files import precise_sources, read_path
    from kwhatif.load.pods import drop_node_names

    docs = [d for p in paths for d in read_path(p, _limits(co))]
    if precise:
        precise_sources(docs)
    if namespace:
        apply_namespace(docs, namespace)
    if ignore_node_name:
        n = drop_node_names(docs)
        if n:
            click.echo(
                f"kwhatif: note: --ignore-node-name: {n} pod(s) lose spec.nodeName and are scheduled anew", err=True
            )
    return docs


def _cluster_opts(kw: dict[str, Any]) -> ClusterOptions:
    size = kw.pop("max_input_size", None)
    version = kw.pop("scheduler_version", None)
    if version is not None:
        from kwhatif.load.scheduler_version import parse_flag

        parse_flag(version)  # a bad value fails before any input is read
    return ClusterOptions(
        cluster=tuple(kw.pop("cluster", ())),
        kubeconfig=kw.pop("kubeconfig", None),
        context=kw.pop("context", None),
        config=kw.pop("config", None),
        profile=kw.pop("profile", None),
        max_input_size=_parse_size(size) if size else None,
        without_node=tuple(kw.pop("without_node", ())),
        add_node=tuple(kw.pop("add_node", ())),
        preemption=not kw.pop("no_preemption", False),
        quiet=kw.pop("quiet", False),
        scheduler_version=version,
        request_timeout=_parse_timeout(kw.pop("request_timeout", None)),
    )


def _limits(co: ClusterOptions) -> Any:
    from kwhatif.load.files import Limits

    return Limits.uniform(co.max_input_size) if co.max_input_size else Limits()


def long_lived() -> None:
    """What exists now (the cluster, the snapshot) lives until the command ends: the cyclic
    collector stops rescanning its millions of objects on every collection (gc.freeze; that
    rescanning triples a load and nearly doubles a cycle). main() hands them back at the end."""
    gc.freeze()


def _long_lived_scheduler(sched: T) -> T:
    long_lived()
    return sched


def load_cluster_state(co: ClusterOptions) -> ClusterState:
    from kwhatif import progress

    progress.enable_for_terminal(co.quiet)
    if co.cluster and (co.kubeconfig or co.context):
        raise click.UsageError("give either --cluster or --kubeconfig/--context, not both")
    if co.cluster:
        from kwhatif.load.cluster import load_cluster

        state = load_cluster(list(co.cluster), _limits(co))
        if state.orphaned_pods:
            from kwhatif.load.live import orphan_note

            click.echo(f"kwhatif: note: {orphan_note(state.orphaned_pods, live=False)}", err=True)
    elif co.kubeconfig or co.context:
        from kwhatif.load.live import load_live_cluster

        state = load_live_cluster(co.kubeconfig, co.context, _live_options(co))
    else:
        raise click.UsageError("no cluster state: give --cluster PATH (or '-') or --kubeconfig/--context")
    if state.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(state.skipped.items()))
        click.echo(f"kwhatif: note: skipped objects kwhatif does not read: {kinds}", err=True)
    if co.without_node or co.add_node:
        from kwhatif.load.edits import add_nodes, remove_nodes

        remove_nodes(state, co.without_node)
        add_nodes(state, co.add_node, _limits(co))
    long_lived()
    return state


def choose_version(co: ClusterOptions, state: ClusterState) -> ChosenVersion:
    """The kube-scheduler release to answer as (flag, live /version, dump image, default); the
    cluster's pods are derived again as that release derives them."""
    import dataclasses

    from kwhatif.load.scheduler_version import choose, kubelet_skew_notes

    chosen = choose(co.scheduler_version, state, live=bool(co.kubeconfig or co.context) and not co.cluster)
    state.use_version(chosen.version)
    notes = chosen.notes + tuple(kubelet_skew_notes(state, chosen.version))
    return dataclasses.replace(chosen, notes=notes)


def load_scheduler_config(co: ClusterOptions, version: Any = None) -> SchedulerConfiguration:
    """The configuration of --config, or the release's default one."""
    from kwhatif.config.defaults import default_configuration

    if co.config:
        from kwhatif.config.load import load_configuration

        cfg = load_configuration(co.config, version)
    else:
        cfg = default_configuration(version)
    if co.profile and cfg.profile(co.profile) is None:
        names = ", ".join(p.scheduler_name for p in cfg.profiles)
        raise InputError(f"no profile named {co.profile!r} (profiles: {names})", field="--profile")
    return cfg


def render_options(color: str, **kw: Any) -> RenderOptions:
    import shutil

    from kwhatif.report.formatter import RenderOptions

    if color == "always":
        use_color = True
    elif color == "never":
        use_color = False
    else:
        use_color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    width = shutil.get_terminal_size((100, 24)).columns if sys.stdout.isatty() else 0
    return RenderOptions(width=width, color=use_color, **kw)


def emit(report: AnyReport, output: str, ropts: RenderOptions) -> int:
    """Write the report in the format asked for; the command exits with the report's exit code."""
    from kwhatif.report.output import get_formatter

    text = get_formatter(OutputFormat(output), ropts).format(report)
    sys.stdout.write(text)
    sys.stdout.flush()
    return int(report.exit_code)


# --- commands ------------------------------------------------------------------------------------


class _Group(click.Group):
    """click turns a KeyboardInterrupt in a command into Abort (and an empty line on stderr);
    kwhatif reports it as an interruption, exit 130."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None
        except BrokenPipeError:
            raise _ReaderGone() from None  # not to click, which would exit 1


class _ReaderGone(Exception):
    """Standard output's reader went away (or it was closed)."""


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kwhatif")
@click.option("--debug", is_flag=True, help="Show the traceback of internal errors.")
def cli(debug: bool) -> None:
    """What would kube-scheduler do with this pod, on this cluster, and why?

    kwhatif replays the upstream scheduling framework (the default profile of the cluster's own
    kube-scheduler release, 1.30 to 1.37, or your KubeSchedulerConfiguration) over a snapshot of a
    cluster, without touching it, and explains every filter rejection and every score.

    The release is --scheduler-version if given, else the live cluster's version, else the image
    tag of the dump's kube-scheduler (or kube-apiserver) static pod, else 1.35.
    """


@cli.command()
@click.argument("pods", nargs=-1, metavar="[POD_OR_MANIFEST | pod/NAME | NAMESPACE/NAME]...")
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
    help="Namespace of pod/NAME and of manifests without one (as kubectl -n; default: the kubeconfig "
    "context's, else default); narrows --pending to it.",
)
@click.option(
    "-l",
    "--selector",
    metavar="SELECTOR",
    help="Label selector (a=b,c!=d,e in (x,y)) narrowing --pending and the manifests' pods, as kubectl -l.",
)
@cluster_options
@output_options(ReportKind.SCHEDULE)
@click.option("--node", "nodes", multiple=True, metavar="NAME", help="Show only these nodes in the table. Repeatable.")
@click.option(
    "--explain",
    type=click.Choice(["grouped", "all"]),
    default="grouped",
    help="all: list every infeasible node instead of grouping them by reason.",
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
    selector: str | None,
    output: str,
    color: str,
    nodes: tuple[str, ...],
    explain: str,
    apply_: bool,
    yes: bool,
    ignore_node_name: bool,
    **kw: Any,
) -> int:
    """Schedule pods, one after another, and explain every decision.

    POD_OR_MANIFEST files hold Pods (several per file allowed); '-' reads standard input.
    pod/NAME and NAMESPACE/NAME name pods of the cluster; --pending takes all its pending pods.
    A manifest of a pod the cluster already has stands for the cluster's pod.
    Exit status: 0 all pods fit (and, with --apply, were bound), 1 some do not fit, 2 bad input,
    3 cluster error or no binding succeeded, 4 --apply bound some pods and failed others.
    """
    import dataclasses

    from kwhatif.config.options import Options
    from kwhatif.load.pods import pods_from_documents
    from kwhatif.load.selection import select_pods, split_arguments, unbound_claims
    from kwhatif.report.model import schedule_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    live = bool(co.kubeconfig or co.context)
    if apply_ and co.cluster:
        raise click.UsageError(
            "--apply binds pods in a live cluster, not in a saved state (--cluster): a node that is free "
            "there may be full now; use --kubeconfig/--context"
        )
    if apply_ and not live:
        raise click.UsageError("--apply binds pods in a live cluster: give --kubeconfig/--context")
    if yes and not apply_:
        raise click.UsageError("--yes answers the confirmation of --apply: without --apply nothing is bound")
    paths, names = split_arguments(pods)
    if scheduler_name and not pending:
        raise click.UsageError("--scheduler-name selects pending pods: add --pending")
    if not pods and not pending:
        raise click.UsageError("nothing to schedule: give POD_OR_MANIFEST files, pod/NAME, NAMESPACE/NAME or --pending")
    if selector is not None and names:
        raise click.UsageError(
            "-l/--selector cannot be combined with pod/NAME arguments: a name already selects the pod"
        )
    label_selector = None
    if selector is not None:
        from kwhatif.api.labels import parse_selector

        try:
            label_selector = parse_selector(selector)
        except ValueError as e:
            raise click.UsageError(f"-l/--selector {selector!r}: {e}") from None
    if namespace is not None:
        from kwhatif.api.names import is_dns1123_label

        errs = is_dns1123_label(namespace)
        if errs:
            raise click.UsageError(f"-n/--namespace {namespace!r}: {errs[0]}")
    if "-" in paths and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the pods or --cluster, not both")
    state = load_cluster_state(co)
    chosen = choose_version(co, state)
    unknown = [n for n in nodes if n not in state.nodes]
    if unknown:
        raise InputError(f"no node named {', '.join(repr(n) for n in unknown)} in the cluster", field="--node")
    cfg = load_scheduler_config(co, chosen.version)
    default_ns = namespace
    if default_ns is None:
        default_ns = "default"
        if live:
            from kwhatif.load.live import context_namespace

            default_ns = context_namespace(co.kubeconfig, co.context)
    manifests: dict[str, dict[str, Any]] = {}
    docs = read_documents(paths, co, None, ignore_node_name)
    from_files, rest = pods_from_documents(
        docs, state, manifests=manifests, namespace=default_ns, enforce_namespace=namespace is not None
    )
    # The ResourceClaims and ResourceClaimTemplates that come with the pods join the cluster.
    claim_docs = [d for d in rest if d.kind in ("ResourceClaim", "ResourceClaimTemplate")]
    if claim_docs:
        from kwhatif.check import merge_objects
        from kwhatif.load.cluster import apply_namespace

        if namespace is not None:
            apply_namespace(claim_docs, namespace)  # kubectl -n: another namespace is an error
        for d in claim_docs:
            meta = d.body.get("metadata")
            if isinstance(meta, dict) and not meta.get("namespace"):
                meta["namespace"] = default_ns
        merge_objects(state, claim_docs, [])
        rest = [d for d in rest if d.kind not in ("ResourceClaim", "ResourceClaimTemplate")]
    from kwhatif.load.pods import unverified_namespaces_note

    unverified = unverified_namespaces_note(state, {p.namespace for p in from_files})
    if unverified:
        click.echo(f"kwhatif: note: {unverified}", err=True)
    if rest:
        from kwhatif.load.cluster import WORKLOAD_KINDS, classify

        # name the workload the user meant to check, not the Namespace or ConfigMap before it
        doc = next((d for d in rest if classify(d) in WORKLOAD_KINDS), rest[0])
        raise InputError(
            f"kwhatif schedule takes Pods; use `kwhatif check` for {doc.kind} objects",
            source=doc.source,
            obj=doc.describe(),
        )
    profile = co.profile
    notes: list[str] = []
    if scheduler_name:
        wanted = frozenset({scheduler_name})
        if profile is None and cfg.profile(scheduler_name) is None:
            profile = cfg.profiles[0].scheduler_name
            notes.append(f"no profile is named {scheduler_name}: its pods are scheduled with profile {profile}")
    elif profile:
        wanted = frozenset({profile})
    else:
        wanted = frozenset(p.scheduler_name for p in cfg.profiles)
    sel = select_pods(
        state,
        from_files,
        names,
        namespace=default_ns,
        pending=pending,
        all_namespaces=namespace is None,
        selector=label_selector,
        scheduler_names=wanted,
        ignore_node_name=ignore_node_name,
    )
    if apply_ and sel.moved:
        raise click.UsageError(
            f"--apply cannot bind pod {next(iter(sel.moved))} again: it is bound to node "
            f"{next(iter(sel.moved.values()))}, and the API server never moves a bound pod"
        )
    for note in sel.notes:
        click.echo(f"kwhatif: note: {note}", err=True)
    incoming = sel.pods
    if selector is not None and not incoming:
        what = "pending pod" if pending and not paths else "pod"
        click.echo(f"kwhatif: note: -l {selector}: no {what} matches the selector", err=True)
    elif pending and not incoming:
        click.echo("kwhatif: note: no pending pods to schedule", err=True)
    if profile:
        incoming = [dataclasses.replace(p, scheduler_name=profile) for p in incoming]
    binder = None
    if apply_:
        from kwhatif.load.live import make_api_binder

        binder = make_api_binder(
            co.kubeconfig, co.context, sel.existing, manifests, unbound_claims(state), _live_options(co)
        )
    sched = Scheduler(state, cfg, binder=binder, options=Options(preemption=co.preemption and not apply_))
    long_lived()
    if apply_ and not yes and incoming:
        if not sys.stdin.isatty():
            raise click.UsageError("--apply asks for confirmation on a terminal; add --yes to bind without asking")
        existing = sum(1 for p in incoming if p.key in sel.existing)
        new = len(incoming) - existing
        what = " and ".join(
            t
            for t in (
                f"bind up to {existing} pending pod(s)" if existing else "",
                f"create up to {new} pod(s) bound to their nodes" if new else "",
            )
            if t
        )
        click.confirm(
            f"{what[0].upper()}{what[1:]} in {binder.where if binder else 'the cluster'}?", abort=True, err=True
        )
    attempts = sched.run(incoming, skip_unchanged=True)
    for att in attempts:
        extra = sel.pod_notes.get(att.pod.key)
        if extra:
            att.notes[:0] = extra
    if not profile:
        profile = incoming[0].scheduler_name if incoming else cfg.profiles[0].scheduler_name
    if apply_ and co.preemption:
        notes.append("preemption is off with --apply: kwhatif never evicts pods")
    if binder is not None:
        notes.append(binder.summary())
    notes += chosen.notes
    report = schedule_report(
        attempts, sched.snapshot.num_nodes, profile, notes, scheduler_version=chosen, apply=binder is not None
    )
    code = emit(report, output, render_options(color, nodes=nodes, explain_all=explain == "all"))
    for line in report.apply_messages():
        click.echo(f"kwhatif: {line}", err=True)
    return code


@cli.command()
@click.argument("manifests", nargs=-1, required=True, metavar="MANIFEST...")
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
    "--strict",
    is_flag=True,
    help="Fail (exit 1) on warnings too: custom resources kwhatif cannot expand, DaemonSets with no eligible node.",
)
@namespace_option
@ignore_node_name_option
def check(
    manifests: tuple[str, ...],
    output: str,
    color: str,
    surge: bool,
    hpa_max: bool,
    strict: bool,
    namespace: str | None,
    ignore_node_name: bool,
    **kw: Any,
) -> int:
    """CI gate: will the workloads in these manifests fit on the cluster?

    Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers and
    bare Pods become the pods their controllers would create; other objects in the manifests
    (PriorityClasses, Services, PVCs, LimitRanges, HorizontalPodAutoscalers, ...) join the cluster
    first. A workload that already runs is updated: its current pods leave first, unless --surge.
    Exit status 0 when everything fits, 1 when something does not fit or is refused (LimitRange,
    ResourceQuota), or with --strict on warnings.
    """
    from kwhatif.check import check as run_check
    from kwhatif.config.options import Options
    from kwhatif.report.check import check_report
    from kwhatif.report.model import schedule_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    if "-" in manifests and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the manifests or --cluster, not both")
    state = load_cluster_state(co)
    chosen = choose_version(co, state)
    cfg = load_scheduler_config(co, chosen.version)
    docs = read_documents(manifests, co, namespace, ignore_node_name, precise=True)
    result, sched = run_check(
        state,
        docs,
        lambda st: _long_lived_scheduler(
            Scheduler(st, cfg, options=Options(preemption=co.preemption, filter_excluded=False, compact=True))
        ),
        surge=surge,
        profile=co.profile,
        hpa_max=hpa_max,
    )
    if result.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(result.skipped.items()))
        click.echo(f"kwhatif: note: skipped objects in the manifests kwhatif does not read: {kinds}", err=True)
    profile = co.profile or cfg.profiles[0].scheduler_name
    sched_report = schedule_report(
        result.attempts, sched.snapshot.num_nodes, profile, chosen.notes, scheduler_version=chosen
    )
    report = check_report(result, sched_report, strict=strict)
    return emit(report, output, render_options(color))


@cli.command()
@click.argument("pod", metavar="POD_OR_WORKLOAD")
@cluster_options
@output_options(ReportKind.CAPACITY)
@click.option(
    "--max",
    "max_copies",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="Stop after this many copies (when --min is larger and --max not given: --min).",
)
@click.option(
    "--min",
    "minimum",
    type=click.IntRange(0),
    default=None,
    help="Exit 1 when fewer than this many copies fit (a CI gate).",
)
@namespace_option
def capacity(
    pod: str, output: str, color: str, max_copies: int, minimum: int | None, namespace: str | None, **kw: Any
) -> int:
    """How many more copies of a pod fit, where they would go, and what stops the next one.

    POD_OR_WORKLOAD is a file with one Pod, or one workload (Deployment, StatefulSet, DaemonSet,
    Job, ...) whose pod template is used. Copies are scheduled one after another, each seeing
    the earlier ones, until one does not fit. A copy that would have to preempt other pods does
    not count.
    """
    import dataclasses

    from kwhatif.capacity import measure
    from kwhatif.config.options import Options
    from kwhatif.load.pods import capacity_template
    from kwhatif.report.capacity import capacity_report
    from kwhatif.scheduler import Scheduler

    if minimum is not None and minimum > max_copies:
        if click.get_current_context().get_parameter_source("max_copies") is not click.core.ParameterSource.DEFAULT:
            raise click.UsageError(
                f"--min {minimum} is more than --max {max_copies}: at most --max copies are counted, "
                "so the gate could never pass"
            )
        max_copies = minimum  # count far enough to tell whether the minimum fits
    co = _cluster_opts(kw)
    state = load_cluster_state(co)
    chosen = choose_version(co, state)
    cfg = load_scheduler_config(co, chosen.version)
    docs = read_documents((pod,), co, namespace, False)
    template, origin = capacity_template(docs, state, pod)
    if co.profile:
        template = dataclasses.replace(template, scheduler_name=co.profile)
    sched = Scheduler(state, cfg, options=Options(preemption=co.preemption, filter_excluded=False))
    long_lived()
    sched.framework_for(template)
    res = measure(sched, template, max_copies)
    if origin:
        res.notes.insert(0, origin)
    report = capacity_report(res, template.scheduler_name, sched.snapshot.num_nodes, minimum, chosen, chosen.notes)
    return emit(report, output, render_options(color))


@cli.command()
@click.argument("nodes", nargs=-1, required=True, metavar="NODE...")
@cluster_options
@output_options(ReportKind.DRAIN)
def drain(nodes: tuple[str, ...], output: str, color: str, **kw: Any) -> int:
    """Would the pods on these nodes fit elsewhere? A what-if of `kubectl drain NODE...`.

    The nodes are cordoned, their pods evicted as drain evicts them (DaemonSet and static pods
    stay; PodDisruptionBudgets can refuse an eviction) and the replacements scheduled.
    Exit status 0 when every evicted pod lands somewhere, 1 otherwise.
    """
    from kwhatif.config.options import Options
    from kwhatif.drain import drain as run_drain
    from kwhatif.report.drain import drain_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    state = load_cluster_state(co)
    chosen = choose_version(co, state)
    missing = [n for n in nodes if n not in state.nodes]
    if missing:
        raise InputError(f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field="NODE")
    cfg = load_scheduler_config(co, chosen.version)
    sched = Scheduler(state, cfg, options=Options(preemption=co.preemption, filter_excluded=False, compact=True))
    long_lived()
    result = run_drain(sched, state, list(nodes))
    report = drain_report(result, co.profile or cfg.profiles[0].scheduler_name, chosen, chosen.notes)
    return emit(report, output, render_options(color))


@cli.command()
@click.option(
    "-o",
    "--output",
    "path",
    metavar="FILE",
    help="Write to FILE, as JSON (.json) or YAML (.yaml, .yml); default: JSON on standard output.",
)
@click.option("--kubeconfig", metavar="FILE", help="kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config).")
@click.option("--context", metavar="NAME", help="kubeconfig context to use.")
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

    snapshot_format(path)  # a bad file name fails before the cluster is read
    options = live_options(
        kubeconfig, context, _parse_timeout(request_timeout), _parse_size(max_input_size) if max_input_size else None
    )
    progress = _Progress() if sys.stderr.isatty() else None
    try:
        stats = save_snapshot(kubeconfig, context, path, progress, options)
    finally:
        if progress is not None:
            progress.clear()
    for note in stats.notes:
        click.echo(f"kwhatif: note: {note}", err=True)
    if stats.orphaned_pods:
        click.echo(f"kwhatif: note: {orphan_note(stats.orphaned_pods)}", err=True)
    if path and path != "-":
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(stats.counts.items()))
        click.echo(f"kwhatif: saved {stats.total} objects to {path} ({kinds})", err=True)
    return 0


class _Progress:
    """One line on a terminal's stderr, rewritten as the pages come in."""

    def __init__(self) -> None:
        self.width = 0

    def __call__(self, resource: str, count: int) -> None:
        text = f"kwhatif: reading {resource}: {count}"
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()
        self.width = max(self.width, len(text))

    def clear(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> int:
    """Print the shell completion script (source it from your shell's rc file)."""
    from kwhatif.completions import completion_script

    click.echo(completion_script(shell, cli), nl=False)
    return 0


# --- entry point -----------------------------------------------------------------------------------


def _clear_progress() -> None:
    """An error message starts on a clean line, not after a half-drawn progress line."""
    progress = sys.modules.get("kwhatif.progress")
    if progress is not None:
        progress.clear()


class _ClosedStdout(io.TextIOBase):
    """Standard output when kwhatif was started with it closed (`>&-`): writing to it is
    writing to a pipe nobody reads."""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "standard output is closed")

    def isatty(self) -> bool:
        return False


def _guard_stdout() -> None:
    """With standard output closed, descriptor 1 is held by /dev/null so that no file kwhatif
    opens (nor a credential plugin it runs) takes its place, and writes end as a broken pipe."""
    if sys.stdout is not None:
        return
    try:
        os.fstat(1)
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
        if fd != 1:
            os.dup2(fd, 1)
            os.close(fd)
    sys.stdout = _ClosedStdout()


def _drop_stdout() -> None:
    """Standard output failed (a broken pipe, a full disk): what is still buffered goes to
    /dev/null, so that exiting does not try to write it again and report that."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:
        pass
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit


def _finish_stdout(code: int) -> int:
    """Flush standard output here, where a failure can be told in one line, not at exit."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return BROKEN_PIPE
    except OSError as e:
        _drop_stdout()
        click.echo(f"kwhatif: error: cannot write to standard output: {e.strerror or e}", err=True)
        return ExitCode.BAD_INPUT
    return code


# A reader that went away (`| head`, a closed stdout): quiet, with the status of a process that
# SIGPIPE ended (128 + 13), as a shell reports it.
BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> None:
    _guard_stdout()
    args = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, not only before the command.
    debug = "--debug" in args
    if debug:
        args = [a for a in args if a != "--debug"]
    try:
        rv = cli.main(args=args, prog_name="kwhatif", standalone_mode=False)
        code = int(rv) if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        code = e.exit_code
    except click.Abort as e:
        _clear_progress()
        if isinstance(e.__cause__, KeyboardInterrupt):
            click.echo("kwhatif: interrupted", err=True)
            code = ExitCode.INTERRUPTED
        else:
            click.echo("kwhatif: aborted", err=True)
            code = ExitCode.BAD_INPUT
    except (Interrupted, KeyboardInterrupt):
        _clear_progress()
        click.echo("kwhatif: interrupted", err=True)
        code = ExitCode.INTERRUPTED
    except click.ClickException as e:
        e.show()
        code = ExitCode.BAD_INPUT
    except KwhatifError as e:
        _clear_progress()
        if debug:
            traceback.print_exc()
        click.echo(f"kwhatif: error: {e}", err=True)
        code = e.exit_code
    except (BrokenPipeError, _ReaderGone):
        # stdout closed early (| head): not an error of kwhatif's, nothing to say
        _clear_progress()
        _drop_stdout()
        code = BROKEN_PIPE
    except MemoryError:
        if debug:
            traceback.print_exc()
        click.echo("kwhatif: error: out of memory", err=True)
        code = ExitCode.BAD_INPUT
    except OSError as e:
        # writing the report failed (a full disk, a closed pipe handled above)
        _clear_progress()
        if debug:
            traceback.print_exc()
        if e.filename is None:
            _drop_stdout()
            click.echo(f"kwhatif: error: cannot write to standard output: {e.strerror or e}", err=True)
        else:
            click.echo(f"kwhatif: error: {e.filename}: {e.strerror or e}", err=True)
        code = ExitCode.BAD_INPUT
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 5
        _clear_progress()
        if debug:
            traceback.print_exc()
        msg = str(e).splitlines()[0] if str(e) else ""
        click.echo(f"kwhatif: internal error: {type(e).__name__}: {msg} (run with --debug for the traceback)", err=True)
        code = ExitCode.INTERNAL
    code = _finish_stdout(code)
    gc.unfreeze()  # what long_lived() kept out of the collector's way lived as long as the command
    sys.exit(code)
