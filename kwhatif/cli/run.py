"""One run of a command: the cluster state, the release answered as, the scheduler configuration,
the scheduler factory and the output options, built in the same order by every command (the
preamble each one shares), and the report written at its end."""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from kwhatif.cli.env import Environment, current
from kwhatif.cli.options import ClusterOptions, limits, live_options
from kwhatif.errors import InputError
from kwhatif.report.base import OutputFormat

if TYPE_CHECKING:
    from kwhatif.binder import Binder
    from kwhatif.cache.cluster import ClusterState
    from kwhatif.config.types import SchedulerConfiguration
    from kwhatif.load.files import Document
    from kwhatif.release.versions import ChosenVersion, SchedulerVersion
    from kwhatif.report.formats.formatter import AnyReport, RenderOptions
    from kwhatif.report.schedule import ScheduleReport
    from kwhatif.scheduling.scheduler import Attempt, Scheduler
    from kwhatif.whatif.schedule import Plan

# The schedule report's formats written pod by pod as the pods are scheduled (Run.stream_schedule)
STREAMED_DOCUMENTS = frozenset({OutputFormat.JSON, OutputFormat.YAML})
# those whose opening says what only the end knows: each pod's part kept in a temporary file until then
STREAMED_AT_END = frozenset({OutputFormat.MARKDOWN, OutputFormat.JUNIT, OutputFormat.SARIF, OutputFormat.HTML})
STREAMED = frozenset({OutputFormat.TABLE, OutputFormat.WIDE, *STREAMED_DOCUMENTS, *STREAMED_AT_END})


def long_lived() -> None:
    """What exists now (the cluster, the snapshot) lives until the command ends: the cyclic
    collector stops rescanning its millions of objects on every collection (gc.freeze; that
    rescanning triples a load and nearly doubles a cycle). main() hands them back at the end."""
    gc.freeze()


def load_cluster_state(co: ClusterOptions, *, allow_no_nodes: bool = False) -> ClusterState:
    from kwhatif import progress

    env = current()
    progress.enable_for_terminal(co.quiet)
    if co.cluster and (co.kubeconfig or co.context):
        raise click.UsageError("give either --cluster or --kubeconfig/--context, not both")
    if co.cluster:
        from kwhatif.load.cluster import load_cluster

        state = load_cluster(list(co.cluster), limits(co), long_lived=long_lived, allow_no_nodes=allow_no_nodes)
        if state.orphaned_pods:
            from kwhatif.load.live import orphan_note

            env.note(orphan_note(state.orphaned_pods, live=False))
    elif co.live:
        from kwhatif.load.live import load_live_cluster

        state = load_live_cluster(co.kubeconfig, co.context, live_options(co))
    else:
        raise click.UsageError(
            "no cluster state: give --cluster PATH (or '-'), --kubeconfig/--context, or set $KUBECONFIG"
        )
    if state.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(state.skipped.items()))
        env.note(f"skipped objects kwhatif does not read: {kinds}")
    if co.without_node or co.add_node:
        from kwhatif.load.edits import add_nodes, remove_nodes

        remove_nodes(state, co.without_node)
        added = add_nodes(state, co.add_node, limits(co))
        if added:
            add_daemon_pods(state, added, env)
    long_lived()
    return state


def add_daemon_pods(state: ClusterState, nodes: list[str], env: Environment) -> None:
    """A node that joins runs the pods of the DaemonSets that select it before anything else
    lands there: --add-node's clones get them, so that capacity and drain count what is left."""
    from kwhatif.controlplane.controllers.workloads import daemon_pods_on

    pods, skipped = daemon_pods_on(state, nodes)
    state.pods.extend(pods)
    if pods:
        per = {f"{p.owner_references[0].name}" for p in pods if p.owner_references}
        env.note(
            f"--add-node: the {len(nodes)} new node(s) run {len(pods)} DaemonSet pod(s) "
            f"({', '.join(sorted(per)[:5])}{', ...' if len(per) > 5 else ''}), as the DaemonSet controller creates them"
        )
    for why in skipped:
        env.note(f"--add-node: the new nodes run no pod of {why}")


def choose_version(co: ClusterOptions, state: ClusterState) -> ChosenVersion:
    """The kube-scheduler release to answer as (flag, live /version, dump image, default); the
    cluster's pods are derived again as that release derives them."""
    from kwhatif.load.scheduler_version import choose, kubelet_skew_notes

    chosen = choose(co.scheduler_version, state, live=co.live)
    chosen = chosen.with_feature_gates(co.feature_gates)
    state.use_version(chosen.version)
    from kwhatif.load.node_conditions import untainted_not_ready_notes

    notes = chosen.notes + tuple(kubelet_skew_notes(state, chosen.version)) + tuple(untainted_not_ready_notes(state))
    return dataclasses.replace(chosen, notes=notes)


def load_scheduler_config(co: ClusterOptions, version: SchedulerVersion | None = None) -> SchedulerConfiguration:
    """The configuration of --config, or the release's default one."""
    from kwhatif.config.defaults import default_configuration

    if co.config:
        from kwhatif.config.load import load_configuration

        cfg = load_configuration(co.config, version, limits(co).read_timeout)
    else:
        cfg = default_configuration(version)
    if co.profile and cfg.profile(co.profile) is None:
        names = ", ".join(p.scheduler_name for p in cfg.profiles)
        raise InputError(f"no profile named {co.profile!r} (profiles: {names})", field="--profile")
    return cfg


def render_options(
    env: Environment, color: str, *, nodes: tuple[str, ...] = (), explain_all: bool = False
) -> RenderOptions:
    """How the report is rendered on this terminal; ``nodes`` and ``explain_all``: schedule's
    --nodes and --explain all."""
    from kwhatif.report.formats.formatter import RenderOptions

    return RenderOptions(
        width=env.width, color=env.use_color(color), unicode=env.unicode, explain_all=explain_all, nodes=nodes
    )


def emit(report: AnyReport, output: str, ropts: RenderOptions, env: Environment) -> int:
    """Write the report in the format asked for; the command exits with the report's exit code."""
    from kwhatif.load.cluster import no_gc
    from kwhatif.report.formats.output import get_formatter
    from kwhatif.sink import Sink

    with no_gc():  # a report's millions of young containers hold no cycles
        text = get_formatter(OutputFormat(output), ropts).format(report)
    sink = Sink(env.stdout)
    sink.write(text)
    sink.flush()
    return int(report.exit_code)


def read_documents(
    paths: Iterable[str],
    co: ClusterOptions,
    namespace: str | None,
    ignore_node_name: bool,
    *,
    precise: bool = False,
    env: Environment | None = None,
    kustomize: str | None = None,
) -> list[Document]:
    """The documents of the manifests given to a command (the files, then what -k ``kustomize``
    renders), with -n and --ignore-node-name applied; ``precise``: each names the line it starts
    on (for annotations)."""
    from kwhatif.load.files import read_path
    from kwhatif.whatif.documents import apply_options

    docs = [d for p in paths for d in read_path(p, limits(co))]
    if kustomize is not None:
        from kwhatif.load.manifests import render_kustomization

        docs.extend(render_kustomization(kustomize, limits(co)))
    return apply_options(
        docs, namespace, ignore_node_name, precise=precise, note=lambda line: (env or current()).note(line)
    )


def missing_nodes(state: ClusterState, names: Iterable[str], field: str) -> None:
    """Nodes a command names must be in the cluster."""
    missing = [n for n in names if n not in state.nodes]
    if missing:
        raise InputError(f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field=field)


@dataclass(slots=True)
class Run:
    """What every command builds before it asks its engine, and how it answers."""

    env: Environment
    options: ClusterOptions
    # the cluster as loaded, never changed; ``state`` is this run's fork of it, which the engines change
    loaded: ClusterState
    state: ClusterState
    chosen: ChosenVersion
    config: SchedulerConfiguration
    output: str = OutputFormat.TABLE.value
    color: str = "auto"

    @classmethod
    def start(
        cls,
        options: ClusterOptions,
        output: str = OutputFormat.TABLE.value,
        color: str = "auto",
        *,
        nodes: tuple[Iterable[str], str] | None = None,
        allow_no_nodes: bool = False,
    ) -> Run:
        """Load the cluster state, choose the release, check the ``nodes`` the command names
        (names, and the option that named them) and read the configuration, in that order."""
        env = current()
        state = load_cluster_state(options, allow_no_nodes=allow_no_nodes)
        chosen = choose_version(options, state)
        if nodes is not None:
            missing_nodes(state, *nodes)
        config = load_scheduler_config(options, chosen.version)
        return cls(env, options, state, state.fork(), chosen, config, output, color)

    @property
    def profile(self) -> str:
        """--profile, else the configuration's first profile."""
        return self.options.profile or self.config.profiles[0].scheduler_name

    def documents(
        self,
        paths: Iterable[str],
        namespace: str | None,
        ignore_node_name: bool,
        *,
        precise: bool = False,
        kustomize: str | None = None,
    ) -> list[Document]:
        return read_documents(
            paths, self.options, namespace, ignore_node_name, precise=precise, env=self.env, kustomize=kustomize
        )

    def scheduler_factory(
        self,
        *,
        binder: Binder | None = None,
        preemption: bool | None = None,
        filter_excluded: bool = True,
        compact: bool = False,
    ) -> Callable[[ClusterState], Scheduler]:
        """Schedulers of the configuration over a cluster state (``filter_excluded`` and ``compact``:
        as config.options.Options says; preemption: --no-preemption unless given); what they hold
        lives as long as the run."""
        from kwhatif.config.options import Options
        from kwhatif.scheduling.scheduler import Scheduler

        opts = Options(
            preemption=self.options.preemption if preemption is None else preemption,
            filter_excluded=filter_excluded,
            compact=compact,
        )

        def make(state: ClusterState) -> Scheduler:
            sched = Scheduler(state, self.config, binder=binder, options=opts)
            long_lived()
            return sched

        return make

    def scheduler(
        self,
        *,
        binder: Binder | None = None,
        preemption: bool | None = None,
        filter_excluded: bool = True,
        compact: bool = False,
    ) -> Scheduler:
        return self.scheduler_factory(
            binder=binder, preemption=preemption, filter_excluded=filter_excluded, compact=compact
        )(self.state)

    def schedule_report(
        self,
        sched: Scheduler,
        attempts: list[Attempt],
        profile: str,
        notes: Iterable[str] = (),
        *,
        apply: bool = False,
    ) -> ScheduleReport:
        """The schedule report of ``attempts``: the command's notes, then the release's, then the
        pod groups'; the groups and the labels of the nodes the results name."""
        from kwhatif.load.cluster import no_gc
        from kwhatif.report.groups import group_entries
        from kwhatif.report.schedule import schedule_report

        with no_gc():
            return schedule_report(
                attempts,
                sched.snapshot.num_nodes,
                profile,
                [*notes, *self.chosen.notes, *sched.gang.notes],
                scheduler_version=self.chosen,
                apply=apply,
                groups=group_entries(attempts, sched.gang),
                nodes=[ni.node for ni in sched.snapshot.node_infos],
            )

    def stream_schedule(
        self,
        sched: Scheduler,
        plan: Plan,
        notes: Iterable[str],
        *,
        compact: bool,
        nodes: tuple[str, ...] = (),
        explain_all: bool = False,
    ) -> int:
        """Schedule the plan's pods and write the schedule report as they are placed, pod by pod
        (report/stream.py), in the compact form of report/digest.py when ``compact``; the exit
        code is the report's."""
        from kwhatif.cache.pod_groups import group_key
        from kwhatif.report.groups import group_entries
        from kwhatif.report.schedule import EntryCache, PodResult, ScheduleReport, labels_of, pod_result
        from kwhatif.report.stream import JsonWriter, ResultWriter, ScheduleStream, TableWriter, YamlWriter
        from kwhatif.sink import Sink

        fmt = OutputFormat(self.output)
        num_nodes = sched.snapshot.num_nodes
        writer: ResultWriter
        spool = None
        if fmt in STREAMED_AT_END:
            from kwhatif.report.stream_docs import Spool, SpoolWriter, document_writer

            spool = Spool()
            at_end = document_writer(fmt.value)
            writer = SpoolWriter(at_end)
        elif fmt is OutputFormat.JSON:
            writer = JsonWriter()
        elif fmt is OutputFormat.YAML:
            writer = YamlWriter()
        else:
            from kwhatif.report.formats.output import get_formatter
            from kwhatif.report.formats.table import TableFormatter

            formatter = get_formatter(fmt, render_options(self.env, self.color, nodes=nodes, explain_all=explain_all))
            assert isinstance(formatter, TableFormatter)
            writer = TableWriter(formatter, num_nodes)
        # a table never shows a binding's object: not built for one
        manifests = fmt not in (OutputFormat.TABLE, OutputFormat.WIDE)
        base: Callable[[Attempt], PodResult]
        if compact:
            from kwhatif.report.compact import Digester

            base = Digester(manifests=manifests)
        else:
            base = functools.partial(pod_result, manifests=manifests, cache=EntryCache())
        extra = plan.selection.pod_notes

        def build(att: Attempt) -> PodResult:
            r = base(att)
            more = extra.get(att.pod.key)
            return dataclasses.replace(r, notes=(*more, *r.notes)) if more else r

        detail = "summary" if compact and fmt in STREAMED_DOCUMENTS else ""
        head = ScheduleReport(plan.profile, (), num_nodes, scheduler_version=self.chosen, detail=detail)
        out = Sink(self.env.stdout)
        stream = ScheduleStream(
            writer, out if spool is None else spool.sink, build, head, keep=lambda a: bool(group_key(a.pod))
        )
        from kwhatif.whatif import kubelet

        # a pod bound by spec.nodeName goes to its node's kubelet, never to the scheduler
        stream.run(kubelet.iter_run(sched, plan.pods, skip_unchanged=True))
        tail = dataclasses.replace(
            head,
            notes=(*notes, *self.chosen.notes, *sched.gang.notes),
            groups=tuple(group_entries(stream.kept, sched.gang)),
            node_labels=labels_of(stream.named, [ni.node for ni in sched.snapshot.node_infos]),
            counted=stream.summary,
        )
        stream.close(tail)
        if spool is not None:
            try:
                at_end.document(out, tail, stream.summary.pods, spool.records)
                out.flush()
            finally:
                spool.close()
        return int(tail.exit_code)

    def emit(self, report: AnyReport, *, nodes: tuple[str, ...] = (), explain_all: bool = False) -> int:
        """Write the report to standard output; its exit code is the command's."""
        ropts = render_options(self.env, self.color, nodes=nodes, explain_all=explain_all)
        return emit(report, self.output, ropts, self.env)

    def note(self, line: str) -> None:
        self.env.note(line)
