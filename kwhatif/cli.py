"""The command line: click commands that wire options to the load → schedule → report stages.

Only this module catches errors: every KwhatifError becomes one line on stderr and its exit code;
anything else is an internal error (exit 5) unless --debug asks for the traceback.
Heavy modules are imported inside the commands so that --help and completion stay fast.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

import click

from kwhatif import __version__
from kwhatif.errors import ExitCode, InputError, KwhatifError

if TYPE_CHECKING:
    from kwhatif.framework.profile import SchedulerConfiguration
    from kwhatif.load.cluster import ClusterState
    from kwhatif.report.formatter import RenderOptions

F = TypeVar("F", bound=Callable[..., Any])

OUTPUT_FORMATS = ("table", "wide", "json", "yaml", "markdown", "junit")


def _parse_size(text: str) -> int:
    units = {"": 1, "k": 1 << 10, "ki": 1 << 10, "m": 1 << 20, "mi": 1 << 20, "g": 1 << 30, "gi": 1 << 30}
    t = text.strip().lower().removesuffix("b")
    num = t.rstrip("kmgi")
    unit = t[len(num):]
    if not num.isdigit() or unit not in units:
        raise click.BadParameter(f"{text!r} is not a size such as 500M or 2G")
    return int(num) * units[unit]


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
    quiet: bool


def cluster_options(fn: F) -> F:
    opts = [
        click.option("--cluster", "-c", "cluster", multiple=True, metavar="PATH",
                     help="Cluster state: a kubectl List (YAML/JSON), manifests, or a `kubectl cluster-info dump` "
                          "(stream or directory). Repeatable; '-' reads standard input."),
        click.option("--kubeconfig", metavar="FILE", help="Read the cluster state from a live cluster."),
        click.option("--context", metavar="NAME", help="kubeconfig context to use (implies --kubeconfig default)."),
        click.option("--config", "config", metavar="FILE",
                     help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with the profiles to use."),
        click.option("--profile", metavar="NAME", help="Schedule every pod with this profile, whatever its schedulerName."),
        click.option("--max-input-size", metavar="SIZE", default=None,
                     help="Largest input file to read (default 128M for YAML, 2G for JSON)."),
        click.option("--without-node", multiple=True, metavar="NAME", help="Take this node (and its pods) out first. Repeatable."),
        click.option("--add-node", multiple=True, metavar="FILE[:COUNT]",
                     help="Add COUNT clones (default 1) of the Node in FILE with fresh names. Repeatable."),
        click.option("--no-preemption", is_flag=True, help="Do not run PostFilter (DefaultPreemption)."),
        click.option("--quiet", is_flag=True,
                     help="No progress line on standard error (shown on a terminal during long loads and runs)."),
    ]
    for o in reversed(opts):
        fn = o(fn)
    return fn


def output_options(formats: Iterable[str] = OUTPUT_FORMATS) -> Callable[[F], F]:
    def deco(fn: F) -> F:
        fn = click.option("-o", "--output", type=click.Choice(list(formats)), default="table", show_default=True,
                          help="Output format.")(fn)
        fn = click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
                          help="Colour the table output (auto: on a terminal, unless NO_COLOR is set).")(fn)
        return fn

    return deco


def _cluster_opts(kw: dict[str, Any]) -> ClusterOptions:
    size = kw.pop("max_input_size", None)
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
    )


def _limits(co: ClusterOptions) -> Any:
    from kwhatif.load.files import Limits

    return Limits.uniform(co.max_input_size) if co.max_input_size else Limits()


def load_cluster_state(co: ClusterOptions) -> "ClusterState":
    from kwhatif import progress

    progress.enable_for_terminal(co.quiet)
    if co.cluster and (co.kubeconfig or co.context):
        raise click.UsageError("give either --cluster or --kubeconfig/--context, not both")
    if co.cluster:
        from kwhatif.load.cluster import load_cluster

        state = load_cluster(list(co.cluster), _limits(co))
    elif co.kubeconfig or co.context:
        from kwhatif.load.live import load_live_cluster

        state = load_live_cluster(co.kubeconfig, co.context)
    else:
        raise click.UsageError("no cluster state: give --cluster PATH (or '-') or --kubeconfig/--context")
    if state.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(state.skipped.items()))
        click.echo(f"kwhatif: note: skipped objects kwhatif does not read: {kinds}", err=True)
    if co.without_node or co.add_node:
        from kwhatif.load.edits import add_nodes, remove_nodes

        remove_nodes(state, co.without_node)
        add_nodes(state, co.add_node, _limits(co))
    return state


def load_scheduler_config(co: ClusterOptions) -> "SchedulerConfiguration":
    from kwhatif.framework.profile import default_configuration

    if co.config:
        from kwhatif.framework.config import load_configuration

        cfg = load_configuration(co.config)
    else:
        cfg = default_configuration()
    if co.profile and cfg.profile(co.profile) is None:
        names = ", ".join(p.scheduler_name for p in cfg.profiles)
        raise InputError(f"no profile named {co.profile!r} (profiles: {names})", field="--profile")
    return cfg


def render_options(color: str, **kw: Any) -> "RenderOptions":
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


def emit(report: Any, output: str, ropts: "RenderOptions") -> None:
    from kwhatif.report.formatter import get_formatter

    text = get_formatter(output, ropts).format(report)
    sys.stdout.write(text)
    sys.stdout.flush()


# --- commands ------------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kwhatif")
@click.option("--debug", is_flag=True, help="Show the traceback of internal errors.")
def cli(debug: bool) -> None:
    """What would kube-scheduler do with this pod, on this cluster, and why?

    kwhatif replays the upstream scheduling framework (default profile of kube-scheduler v1.30,
    or your KubeSchedulerConfiguration) over a snapshot of a cluster, without touching it, and
    explains every filter rejection and every score.
    """


@cli.command()
@click.argument("pods", nargs=-1, required=True, metavar="POD_OR_MANIFEST...")
@cluster_options
@output_options()
@click.option("--node", "nodes", multiple=True, metavar="NAME", help="Show only these nodes in the table. Repeatable.")
@click.option("--explain", type=click.Choice(["grouped", "all"]), default="grouped",
              help="all: list every infeasible node instead of grouping them by reason.")
@click.option("--apply", "apply_", is_flag=True, help="Bind the scheduled pods for real (needs --kubeconfig/--context).")
@click.option("--yes", is_flag=True, help="With --apply: do not ask for confirmation.")
def schedule(pods: tuple[str, ...], output: str, color: str, nodes: tuple[str, ...], explain: str,
             apply_: bool, yes: bool, **kw: Any) -> int:
    """Schedule pods, one after another, and explain every decision.

    POD_OR_MANIFEST files hold Pods (several per file allowed); '-' reads standard input.
    Exit status: 0 all pods fit, 1 some do not, 2 bad input, 3 cluster error, 4 --apply bound
    some pods and failed others.
    """
    from kwhatif.framework.profile import Options
    from kwhatif.load.pods import load_pods, prepare_incoming
    from kwhatif.report.model import schedule_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    if apply_ and not (co.kubeconfig or co.context):
        raise click.UsageError("--apply binds pods in a live cluster: give --kubeconfig/--context")
    if "-" in pods and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the pods or --cluster, not both")
    state = load_cluster_state(co)
    unknown = [n for n in nodes if n not in state.nodes]
    if unknown:
        raise InputError(f"no node named {', '.join(repr(n) for n in unknown)} in the cluster", field="--node")
    cfg = load_scheduler_config(co)
    manifests: dict[str, dict[str, Any]] = {}
    incoming, rest = load_pods(list(pods), state, _limits(co), manifests=manifests)
    if rest:
        doc = rest[0]
        raise InputError(
            f"kwhatif schedule takes Pods; use `kwhatif check` for {doc.kind} objects",
            source=doc.source,
            obj=doc.describe(),
        )
    pending = {p.key for p in state.pending_pods}
    incoming = prepare_incoming(incoming, state)
    if co.profile:
        import dataclasses

        incoming = [dataclasses.replace(p, scheduler_name=co.profile) for p in incoming]
    binder = None
    if apply_:
        from kwhatif.load.live import make_api_binder

        binder = make_api_binder(co.kubeconfig, co.context, pending, manifests)
    sched = Scheduler(state, cfg, binder=binder, options=Options(preemption=co.preemption and not apply_))
    if apply_ and not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("--apply asks for confirmation on a terminal; add --yes to bind without asking")
        click.confirm(f"Bind up to {len(incoming)} pod(s) in the live cluster?", abort=True, err=True)
    attempts = sched.run(incoming, skip_unchanged=True)
    profile = co.profile or (incoming[0].scheduler_name if incoming else cfg.profiles[0].scheduler_name)
    notes = ["preemption is off with --apply: kwhatif never evicts pods"] if apply_ and co.preemption else []
    report = schedule_report(attempts, sched.snapshot.num_nodes, profile, notes)
    emit(report, output, render_options(color, nodes=nodes, explain_all=explain == "all", wide=output == "wide"))
    if apply_:
        return int(apply_exit_code(report, binder))
    return int(report.return_code)


def apply_exit_code(report: Any, binder: Any) -> ExitCode:
    """--apply: 4 when some pods were bound and others failed to bind, 3 when every bind failed."""
    bound = sum(1 for r in report.final_results() if r.binding is not None and r.binding.applied)
    failed = len(binder.errors)
    for key, msg in sorted(binder.errors.items()):
        click.echo(f"kwhatif: error: binding {key} failed: {msg}", err=True)
    if failed and bound:
        return ExitCode.PARTIAL_APPLY
    if failed:
        return ExitCode.CLUSTER
    code: ExitCode = report.return_code
    return code


@cli.command()
@click.argument("manifests", nargs=-1, required=True, metavar="MANIFEST...")
@cluster_options
@output_options(("table", "json", "yaml", "markdown", "junit", "github"))
@click.option("--surge", is_flag=True,
              help="Keep the running pods of updated workloads while placing the new ones (a rolling update's worst case).")
def check(manifests: tuple[str, ...], output: str, color: str, surge: bool, **kw: Any) -> int:
    """CI gate: will the workloads in these manifests fit on the cluster?

    Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers and
    bare Pods become the pods their controllers would create; other objects in the manifests
    (PriorityClasses, Services, PVCs, ...) join the cluster first. A workload that already runs is
    updated: its current pods leave first, unless --surge. Exit status 0 when everything fits, 1
    otherwise.
    """
    from kwhatif.check import check as run_check
    from kwhatif.framework.profile import Options
    from kwhatif.load.files import precise_sources, read_path
    from kwhatif.report.check import check_report
    from kwhatif.report.model import schedule_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    if "-" in manifests and "-" in co.cluster:
        raise click.UsageError("standard input can feed either the manifests or --cluster, not both")
    state = load_cluster_state(co)
    cfg = load_scheduler_config(co)
    docs = [d for m in manifests for d in read_path(m, _limits(co))]
    precise_sources(docs)
    result, sched = run_check(
        state,
        docs,
        lambda st: Scheduler(st, cfg, options=Options(preemption=co.preemption, filter_excluded=False, compact=True)),
        surge=surge,
        profile=co.profile,
    )
    if result.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(result.skipped.items()))
        click.echo(f"kwhatif: note: skipped objects in the manifests kwhatif does not read: {kinds}", err=True)
    profile = co.profile or cfg.profiles[0].scheduler_name
    sched_report = schedule_report(result.attempts, sched.snapshot.num_nodes, profile)
    report = check_report(result, sched_report)
    emit(report, output, render_options(color))
    return int(report.return_code)


@cli.command()
@click.argument("pod", metavar="POD")
@cluster_options
@output_options(("table", "json", "yaml", "markdown", "junit"))
@click.option("--max", "max_copies", type=click.IntRange(1), default=1000, show_default=True,
              help="Stop after this many copies.")
@click.option("--min", "minimum", type=click.IntRange(0), default=None,
              help="Exit 1 when fewer than this many copies fit (a CI gate).")
def capacity(pod: str, output: str, color: str, max_copies: int, minimum: int | None, **kw: Any) -> int:
    """How many more copies of POD fit, where they would go, and what stops the next one.

    Copies are scheduled one after another, each seeing the earlier ones, until one does not fit.
    A copy that would have to preempt other pods does not count.
    """
    import dataclasses

    from kwhatif.capacity import measure
    from kwhatif.framework.profile import Options
    from kwhatif.load.pods import load_pods
    from kwhatif.report.capacity import capacity_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    state = load_cluster_state(co)
    cfg = load_scheduler_config(co)
    pods, rest = load_pods([pod], state, _limits(co))
    if len(pods) != 1 or rest:
        raise InputError(f"expected exactly one Pod, found {len(pods)} Pod(s) and {len(rest)} other object(s)", source=pod)
    template = pods[0]
    if co.profile:
        template = dataclasses.replace(template, scheduler_name=co.profile)
    sched = Scheduler(state, cfg, options=Options(preemption=co.preemption, filter_excluded=False))
    sched.framework_for(template)
    res = measure(sched, template, max_copies)
    report = capacity_report(res, template.scheduler_name, sched.snapshot.num_nodes, minimum)
    emit(report, output, render_options(color))
    return int(report.return_code)


@cli.command()
@click.argument("nodes", nargs=-1, required=True, metavar="NODE...")
@cluster_options
@output_options(("table", "json", "yaml", "markdown", "junit"))
def drain(nodes: tuple[str, ...], output: str, color: str, **kw: Any) -> int:
    """Would the pods on these nodes fit elsewhere? A what-if of `kubectl drain NODE...`.

    The nodes are cordoned, their pods evicted as drain evicts them (DaemonSet and static pods
    stay; PodDisruptionBudgets can refuse an eviction) and the replacements scheduled.
    Exit status 0 when every evicted pod lands somewhere, 1 otherwise.
    """
    from kwhatif.drain import drain as run_drain
    from kwhatif.framework.profile import Options
    from kwhatif.report.drain import drain_report
    from kwhatif.scheduler import Scheduler

    co = _cluster_opts(kw)
    state = load_cluster_state(co)
    missing = [n for n in nodes if n not in state.nodes]
    if missing:
        raise InputError(f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field="NODE")
    cfg = load_scheduler_config(co)
    sched = Scheduler(state, cfg, options=Options(preemption=co.preemption, filter_excluded=False, compact=True))
    result = run_drain(sched, state, list(nodes))
    report = drain_report(result, co.profile or cfg.profiles[0].scheduler_name)
    emit(report, output, render_options(color))
    return int(report.return_code)


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> int:
    """Print the shell completion script (source it from your shell's rc file)."""
    from kwhatif.completions import completion_script

    click.echo(completion_script(shell), nl=False)
    return 0


# --- entry point -----------------------------------------------------------------------------------


def _clear_progress() -> None:
    """An error message starts on a clean line, not after a half-drawn progress line."""
    progress = sys.modules.get("kwhatif.progress")
    if progress is not None:
        progress.clear()


def main(argv: list[str] | None = None) -> None:
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
    except click.Abort:
        click.echo("kwhatif: aborted", err=True)
        code = ExitCode.BAD_INPUT
    except click.ClickException as e:
        e.show()
        code = ExitCode.BAD_INPUT
    except KwhatifError as e:
        _clear_progress()
        if debug:
            traceback.print_exc()
        click.echo(f"kwhatif: error: {e}", err=True)
        code = e.exit_code
    except KeyboardInterrupt:
        _clear_progress()
        click.echo("kwhatif: interrupted", err=True)
        code = 130
    except BrokenPipeError:
        # stdout closed early (| head): not an error of kwhatif's
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = 0
    except MemoryError:
        if debug:
            traceback.print_exc()
        click.echo("kwhatif: error: out of memory", err=True)
        code = ExitCode.BAD_INPUT
    except OSError as e:
        # writing the report failed (a full disk, a closed pipe handled above)
        if debug:
            traceback.print_exc()
        click.echo(f"kwhatif: error: {e.strerror or e}", err=True)
        code = ExitCode.BAD_INPUT
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 5
        _clear_progress()
        if debug:
            traceback.print_exc()
        msg = str(e).splitlines()[0] if str(e) else ""
        click.echo(f"kwhatif: internal error: {type(e).__name__}: {msg} (run with --debug for the traceback)", err=True)
        code = ExitCode.INTERNAL
    sys.exit(code)
