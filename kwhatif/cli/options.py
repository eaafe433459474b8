"""The options the commands share, as click decorators, and the one frozen ClusterOptions object
they become (the options travel to the run as one value, not as loose flags)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from kwhatif.cli.complete import (
    complete_context,
    complete_feature_gates,
    complete_namespace,
    complete_node,
    complete_release,
)
from kwhatif.report.base import OutputFormat, ReportKind

F = TypeVar("F", bound=Callable[..., Any])


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


def parse_label_selector(text: str | None, flag: str) -> Any:
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


def live_options(co: ClusterOptions) -> Any:
    """The live reader's options (timeout, size bound) of these options."""
    from kwhatif.load.live import live_options as make

    return make(co.request_timeout, co.max_input_size)


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


def filename_options(fn: F) -> F:
    """kubectl's -f/--filename, -R/--recursive and -k/--kustomize."""
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


def manifests_of(kw: dict[str, Any]) -> Manifests:
    return Manifests(tuple(kw.pop("filenames", ())), kw.pop("recursive", False), kw.pop("kustomize", None))


def ignore_node_name_option(fn: F) -> F:
    return click.option(
        "--ignore-node-name",
        is_flag=True,
        help="Drop spec.nodeName from the Pods given (a pod exported from a cluster keeps its node) to schedule them anew; "
        "a bound pod of the cluster named or given is taken off its node first.",
    )(fn)


def cluster_opts(kw: dict[str, Any]) -> ClusterOptions:
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
        max_input_size=parse_size(size) if size else None,
        without_node=tuple(kw.pop("without_node", ())),
        add_node=tuple(kw.pop("add_node", ())),
        preemption=not kw.pop("no_preemption", False),
        quiet=kw.pop("quiet", False),
        scheduler_version=version,
        feature_gates=kw.pop("feature_gates", None),
        request_timeout=parse_timeout(kw.pop("request_timeout", None)),
    )


def limits(co: ClusterOptions) -> Any:
    """The input size limits of --max-input-size."""
    from kwhatif.bounded import DEFAULT_READ_TIMEOUT
    from kwhatif.load.files import Limits

    timeout = DEFAULT_READ_TIMEOUT if co.request_timeout is None else co.request_timeout
    if co.max_input_size:
        return Limits.uniform(co.max_input_size, timeout)
    return Limits(read_timeout=timeout)
