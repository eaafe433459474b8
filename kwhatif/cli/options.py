"""The options the commands share, as click decorators, and the frozen values they become: the
cluster options reach a command as one ClusterFlags (checked into a ClusterOptions where the command
says), the manifests of -f/-R/-k as one Manifests; the options travel to the run as one value, not
as loose flags."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kwhatif.cli.complete import (
    complete_context,
    complete_feature_gates,
    complete_namespace,
    complete_node,
    complete_release,
)
from kwhatif.report.base import OutputFormat, ReportKind

if TYPE_CHECKING:
    from kwhatif.api.labels import Selector
    from kwhatif.load.files import Limits
    from kwhatif.load.live import LiveOptions

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


# The largest value each limit a user sets may take (above them a value is a typo, or would
# overflow what it is handed to: a socket timeout, a buffer's index):
# --max-input-size: 64 GiB, over a hundred times the dump of a cluster at Kubernetes' largest
# supported size (5,000 nodes and 150,000 pods: kubernetes.io/docs/setup/best-practices/cluster-large);
MAX_INPUT_SIZE = 64 << 30
# --request-timeout: a day (0 still waits forever);
MAX_REQUEST_TIMEOUT = 24 * 3600.0
# capacity --max and --min: the pods of a cluster at that largest supported size.
MAX_COPIES = 150_000


def parse_size(text: str, flag: str = "--max-input-size") -> int:
    units = {"": 1, "k": 1 << 10, "ki": 1 << 10, "m": 1 << 20, "mi": 1 << 20, "g": 1 << 30, "gi": 1 << 30}
    t = text.strip().lower().removesuffix("b")
    num = t.rstrip("kmgi")
    unit = t[len(num) :]
    if not num.isdigit() or unit not in units:
        raise click.BadParameter(f"{text[:40]!r} is not a size such as 500M or 2G", param_hint=f"'{flag}'")
    if len(num) > 30 or int(num) * units[unit] > MAX_INPUT_SIZE:
        raise click.BadParameter(f"{text[:40]!r} is above the largest size kwhatif reads, 64G", param_hint=f"'{flag}'")
    size = int(num) * units[unit]
    if size == 0:
        raise click.BadParameter("0 would refuse every input; give a size such as 500M or 2G", param_hint=f"'{flag}'")
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
    feature_gates: str | None = None
    request_timeout: float | None = None  # None: the default

    @property
    def live(self) -> bool:
        """The cluster state comes from a live cluster: no --cluster, and --kubeconfig, --context
        or $KUBECONFIG (kubectl's loading rules)."""
        from kwhatif.load.kubeconfig import live_requested

        return not self.cluster and live_requested(self.kubeconfig, self.context)


def parse_label_selector(text: str | None, flag: str) -> Selector | None:
    """A label selector given on the command line (-l, --pod-selector), as kubectl parses it;
    None when not given. One that does not parse is a usage error naming the flag."""
    if text is None:
        return None
    from kwhatif.api.labels import parse_selector

    try:
        return parse_selector(text)
    except ValueError as e:
        raise click.UsageError(f"{flag} {text!r}: {e}") from None


def parse_timeout(text: str | None) -> float | None:
    """--request-timeout, as kubectl spells it (30s, 1m, a bare number of seconds; 0: none)."""
    if text is None:
        return None
    from kwhatif.load.http import parse_duration

    try:
        seconds = parse_duration(text)
    except ValueError:
        raise click.BadParameter(
            f"{text[:40]!r} is not a duration such as 30s, 2m or 1m30s (a bare number is seconds; 0 waits forever)",
            param_hint="'--request-timeout'",
        ) from None
    if seconds > MAX_REQUEST_TIMEOUT:
        raise click.BadParameter(
            f"{text[:40]!r} is above the longest timeout, 24h (0 waits forever)", param_hint="'--request-timeout'"
        )
    return seconds


def _exit_statuses(*lines: str) -> str:
    """A command's --help epilog: every exit status it can end with (README's Exit status)."""
    common = (
        "2   bad usage or bad input (file, YAML, object, field, configuration)",
        "3   cluster or API error",
        "5   internal error (--debug shows the traceback)",
        "130 interrupted (Ctrl-C)",
        "141 standard output was closed or its reader went away",
    )
    rows = sorted((*lines, *common), key=lambda r: int(r.split()[0]))
    return "\b\nExit status:\n" + "\n".join("  " + r for r in rows)


EXIT_STATUS_HELP = {
    "schedule": _exit_statuses(
        "0   every pod fits (with --apply: every pod was bound)",
        "1   at least one pod does not fit",
        "4   --apply bound some pods and failed others",
    ),
    "check": _exit_statuses(
        "0   every workload fits",
        "1   something does not fit or is refused (LimitRange, ResourceQuota); with --strict, warnings too",
    ),
    "capacity": _exit_statuses("0   counted (and at least --min copies fit)", "1   fewer than --min copies fit"),
    "drain": _exit_statuses(
        "0   every evicted pod lands somewhere",
        "1   a replacement does not fit, a PodDisruptionBudget refuses an eviction, or drain refuses a node",
    ),
    "diff": _exit_statuses(
        "0   no pod's status changes (with --fail-on node/any: no node change / no change at all)",
        "1   some pod's status (or a workload's verdict) changes, or what --fail-on names",
    ),
    "snapshot": _exit_statuses("0   the snapshot was written"),
    "completion": "\b\nExit status:\n  0   the script was printed\n  2   bad usage",
}


REQUEST_TIMEOUT_HELP = (
    "Live reads: give up on a request (and an exec credential plugin) after this long, such as 30s "
    "or 2m (a bare number is seconds; 0 waits forever). Default 60s."
)


def live_options(co: ClusterOptions) -> LiveOptions:
    """The live reader's options (timeout, size bound) of these options."""
    from kwhatif.load.live import live_options as make

    return make(co.request_timeout, co.max_input_size)


@dataclass(frozen=True, slots=True)
class ClusterFlags:
    """The cluster options as the command line gives them; ``options()`` checks them into the
    ClusterOptions of the run (a bad value fails where the command asks, before any input is read)."""

    cluster: tuple[str, ...] = ()
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: str | None = None
    config: str | None = None
    profile: str | None = None
    max_input_size: str | None = None
    without_node: tuple[str, ...] = ()
    add_node: tuple[str, ...] = ()
    no_preemption: bool = False
    quiet: bool = False
    scheduler_version: str | None = None
    feature_gates: str | None = None

    def options(self) -> ClusterOptions:
        if self.scheduler_version is not None:
            from kwhatif.load.scheduler_version import parse_flag

            parse_flag(self.scheduler_version)  # a bad value fails before any input is read
        return ClusterOptions(
            cluster=self.cluster,
            kubeconfig=self.kubeconfig,
            context=self.context,
            config=self.config,
            profile=self.profile,
            max_input_size=parse_size(self.max_input_size) if self.max_input_size else None,
            without_node=self.without_node,
            add_node=self.add_node,
            preemption=not self.no_preemption,
            quiet=self.quiet,
            scheduler_version=self.scheduler_version,
            feature_gates=self.feature_gates,
            request_timeout=parse_timeout(self.request_timeout),
        )


def cluster_options(fn: Callable[..., R]) -> Callable[..., R]:
    """The options that say which cluster state to read and which scheduler to answer as; the
    command receives them as one ``flags: ClusterFlags``."""
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
        click.option(
            "--kubeconfig",
            metavar="FILE",
            help="Read the cluster state from a live cluster (without --cluster, $KUBECONFIG's files are read as "
            "kubectl reads them, else ~/.kube/config when --context is given).",
        ),
        click.option(
            "--context",
            metavar="NAME",
            shell_complete=complete_context,
            help="kubeconfig context to use (default: the current-context).",
        ),
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
            "--without-node",
            multiple=True,
            metavar="NAME",
            shell_complete=complete_node,
            help="Take this node (and its pods) out first. Repeatable.",
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
            shell_complete=complete_release,
            help="Answer as this kube-scheduler release: 1.30 to 1.38 (the newest patch kwhatif knows) or "
            "an exact patch such as 1.34.2. Default: the live cluster's version, else the dump's "
            "kube-scheduler (or kube-apiserver) image, else 1.36.2 (the newest release checked exactly).",
        ),
        click.option(
            "--feature-gates",
            metavar="K=V,...",
            shell_complete=complete_feature_gates,
            help="kube-scheduler's --feature-gates for that release (and its API server's), e.g. "
            "TaintTolerationComparisonOperators=true,PodLevelResources=false.",
        ),
    ]

    @functools.wraps(fn)
    def command(
        *args: object,
        cluster: tuple[str, ...],
        kubeconfig: str | None,
        context: str | None,
        request_timeout: str | None,
        config: str | None,
        profile: str | None,
        max_input_size: str | None,
        without_node: tuple[str, ...],
        add_node: tuple[str, ...],
        no_preemption: bool,
        quiet: bool,
        scheduler_version: str | None,
        feature_gates: str | None,
        **options: object,
    ) -> R:
        flags = ClusterFlags(
            cluster=cluster,
            kubeconfig=kubeconfig,
            context=context,
            request_timeout=request_timeout,
            config=config,
            profile=profile,
            max_input_size=max_input_size,
            without_node=without_node,
            add_node=add_node,
            no_preemption=no_preemption,
            quiet=quiet,
            scheduler_version=scheduler_version,
            feature_gates=feature_gates,
        )
        return fn(*args, flags=flags, **options)

    for o in reversed(opts):
        command = o(command)
    return command


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
        shell_complete=complete_namespace,
        help="Namespace for objects of the manifests that name none, as `kubectl apply -n` (an object that names "
        "another one is an error).",
    )(fn)


@dataclass(frozen=True, slots=True)
class Manifests:
    """The manifests of -f/--filename (-R) and -k/--kustomize, next to the positional ones."""

    filenames: tuple[str, ...] = ()
    recursive: bool = False
    kustomize: str | None = None

    def paths(self, positional: tuple[str, ...] | list[str] = ()) -> list[str]:
        """The positional paths, then the files of -f (directories expanded as kubectl does)."""
        from kwhatif.load.manifests import expand_filenames

        return [*positional, *expand_filenames(self.filenames, self.recursive)]

    @property
    def given(self) -> bool:
        return bool(self.filenames or self.kustomize)


def filename_options(fn: Callable[..., R]) -> Callable[..., R]:
    """kubectl's -f/--filename, -R/--recursive and -k/--kustomize; the command receives them as
    one ``sources: Manifests``."""

    @functools.wraps(fn)
    def command(
        *args: object, filenames: tuple[str, ...], recursive: bool, kustomize: str | None, **options: object
    ) -> R:
        return fn(*args, sources=Manifests(tuple(filenames), recursive, kustomize), **options)

    return _manifest_options(command)


def _manifest_options(fn: F) -> F:
    fn = click.option(
        "-k",
        "--kustomize",
        metavar="DIR",
        type=click.Path(file_okay=False),
        help="Render the kustomization directory DIR (kubectl kustomize DIR, else kustomize build DIR) and "
        "read its objects.",
    )(fn)
    fn = click.option(
        "-R", "--recursive", is_flag=True, help="With -f DIR: read the directory's subdirectories too, as kubectl -R."
    )(fn)
    fn = click.option(
        "-f",
        "--filename",
        "filenames",
        multiple=True,
        metavar="PATH",
        type=click.Path(),
        help="A manifest file, a directory (its .json, .yaml and .yml files) or '-' for standard input, as "
        "kubectl -f. Repeatable; with the positional arguments.",
    )(fn)
    return fn


def ignore_node_name_option(fn: F) -> F:
    return click.option(
        "--ignore-node-name",
        is_flag=True,
        help="Drop spec.nodeName from the Pods given (a pod exported from a cluster keeps its node) to schedule them anew; "
        "a bound pod of the cluster named or given is taken off its node first.",
    )(fn)


def limits(co: ClusterOptions) -> Limits:
    """The input size limits of --max-input-size."""
    from kwhatif.bounded import DEFAULT_READ_TIMEOUT
    from kwhatif.load.files import Limits

    timeout = DEFAULT_READ_TIMEOUT if co.request_timeout is None else co.request_timeout
    if co.max_input_size:
        return Limits.uniform(co.max_input_size, timeout)
    return Limits(read_timeout=timeout)
