"""The Python API: a cluster loaded once, asked what-if questions many times.

``load_cluster`` reads a cluster state (files, or a live cluster through a kubeconfig) into a
``Cluster``. Its ``schedule``, ``check``, ``capacity``, ``drain``, ``autoscale`` and ``diff`` run the same engines as the
commands of the same names, with the commands' options as keyword arguments, and return the same
report objects: ``report.to_dict()`` is the document ``-o json`` prints, ``render(report, "table")``
the text. None of them changes the cluster: each runs on a fork of it.

``fork()``, ``add_nodes``, ``remove_nodes`` and ``apply`` make what-ifs of the cluster itself, as
kubernetes-sigs/scheduler-library's ClusterSnapshot does: fork, change the fork, ask; the original
is never touched.

``autoscale`` and ``diff`` follow the same pattern (a fork, the engine, the report of its
command); see docs/api.md.

Errors are the command line's (kwhatif.errors): InputError (bad input, exit status 2 on the
command line), ConfigError, ClusterError (3). Notes the commands print on standard error go to the
``kwhatif`` logger here.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from kwhatif.errors import InputError

if TYPE_CHECKING:
    from kwhatif.cache.cluster import ClusterState
    from kwhatif.config.types import SchedulerConfiguration
    from kwhatif.load.files import Document, Limits
    from kwhatif.release.versions import ChosenVersion
    from kwhatif.report.autoscale import AutoscaleReport
    from kwhatif.report.capacity import CapacityReport
    from kwhatif.report.check import CheckReport
    from kwhatif.report.diff import DiffReport
    from kwhatif.report.drain import DrainReport
    from kwhatif.report.karpenter import KarpenterReport
    from kwhatif.report.schedule import ScheduleReport
    from kwhatif.scheduling.scheduler import Scheduler

log = logging.getLogger("kwhatif")

# What an input can be: a path (a file, a directory as kubectl -f reads it, or a
# `kubectl cluster-info dump` directory), the text of YAML or JSON documents (a str with a line
# break), or one object as a dict. A str without a line break is a path (for schedule: also
# pod/NAME or NAMESPACE/NAME, as on the command line).
Source: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any]"
Sources: TypeAlias = "Source | Iterable[Source]"

DEFAULT_MAX_COPIES = 1000  # capacity's --max default


def load_cluster(
    paths: Sources | None = None,
    *,
    kubeconfig: str | os.PathLike[str] | None = None,
    context: str | None = None,
    max_input_size: int | None = None,
    request_timeout: float | None = None,
) -> Cluster:
    """The cluster state of ``paths`` (as ``--cluster``: Lists, manifests, cluster-info dumps,
    YAML text or dicts), else of a live cluster (``kubeconfig`` and/or ``context``, as
    ``--kubeconfig``/``--context``; ``$KUBECONFIG`` when both are None and no path is given).
    ``max_input_size``: bytes, as ``--max-input-size``; ``request_timeout``: seconds of a live
    read (0: none). Raises InputError (exit status 2) or ClusterError (3)."""
    limits = _limits(max_input_size)
    if paths is not None and (kubeconfig is not None or context is not None):
        raise InputError("give either paths or kubeconfig/context, not both", field="load_cluster")
    if paths is not None:
        from kwhatif.load.cluster import build_cluster
        from kwhatif.load.cluster import load_cluster as load_files

        items = _items(paths)
        if items and all(not isinstance(s, Mapping) and not _is_text(s) and os.fspath(s) != "-" for s in items):
            # files only: the loader's own path (its fast decoding of large Lists)
            state = load_files([_path(s) for s in items], limits)
        else:
            state = build_cluster(iter(_documents(paths, limits, what="cluster")), check_node_refs=False)
        if not state.nodes:
            raise InputError("the cluster has no nodes (expected Node objects)", source=_describe(paths))
        if state.orphaned_pods:
            from kwhatif.load.live import orphan_note

            log.info(orphan_note(state.orphaned_pods, live=False))
        _note_skipped(state)
        return Cluster(state)
    from kwhatif.load.kubeconfig import live_requested

    kc = os.fspath(kubeconfig) if kubeconfig is not None else None
    if not live_requested(kc, context):
        raise InputError(
            "no cluster state: give paths, kubeconfig= or context=, or set $KUBECONFIG", field="load_cluster"
        )
    from kwhatif.load.live import live_options, load_live_cluster

    state = load_live_cluster(kc, context, live_options(request_timeout, max_input_size))
    _note_skipped(state)
    return Cluster(state, live=_Live(kc, context))


def _note_skipped(state: ClusterState) -> None:
    if state.skipped:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(state.skipped.items()))
        log.info(f"skipped objects kwhatif does not read: {kinds}")


@dataclass(frozen=True, slots=True)
class _Live:
    """Where a live cluster was read from: its release comes from its /version, and the
    namespace of pod/NAME from the context."""

    kubeconfig: str | None
    context: str | None


class Cluster:
    """A cluster state, read once. Ask it with schedule/check/capacity/drain/autoscale/diff
    (never changed by them); change it with add_nodes/remove_nodes/apply, on a fork() to keep
    the original."""

    __slots__ = ("_state", "_live")

    def __init__(self, state: ClusterState, *, live: _Live | None = None) -> None:
        self._state = state
        self._live = live

    # --- what it holds -----------------------------------------------------------------------

    @property
    def nodes(self) -> tuple[str, ...]:
        """The names of its nodes, sorted."""
        return tuple(self._state.nodes)

    @property
    def pods(self) -> tuple[str, ...]:
        """Its bound pods, as "namespace/name"."""
        return tuple(p.key for p in self._state.pods)

    @property
    def pending_pods(self) -> tuple[str, ...]:
        """Its pods bound to no node, as "namespace/name"."""
        return tuple(p.key for p in self._state.pending_pods)

    def __repr__(self) -> str:
        s = self._state
        return f"<kwhatif.Cluster: {len(s.nodes)} nodes, {len(s.pods)} bound pods, {len(s.pending_pods)} pending>"

    # --- what-ifs of the cluster itself ------------------------------------------------------

    def fork(self) -> Cluster:
        """A copy to change: what is done to it (add_nodes, remove_nodes, apply) leaves this one as
        it is. The objects themselves are immutable and shared; only the tables are copied."""
        return Cluster(self._state.fork(), live=self._live)

    def add_nodes(self, node: Source, count: int = 1) -> Cluster:
        """Add ``count`` clones of one Node (a path, YAML text or a dict), named <name>-1, <name>-2,
        ... skipping names in use, as ``--add-node FILE:COUNT``. Returns this cluster."""
        from kwhatif.load.edits import add_node_clones

        if count < 1:
            raise InputError(f"count must be at least 1, not {count}", field="add_nodes")
        docs = [d for d in _documents(node, _limits(None), what="node") if d.kind == "Node"]
        if len(docs) != 1:
            raise InputError(f"expected exactly one Node, found {len(docs)}", field="add_nodes")
        added = add_node_clones(self._state, docs[0], count)
        # a node that joins runs the pods of the DaemonSets that select it, as --add-node's clones do
        from kwhatif.controlplane.controllers.workloads import daemon_pods_on

        pods, _ = daemon_pods_on(self._state, added)
        self._state.pods.extend(pods)
        return self

    def remove_nodes(self, names: str | Iterable[str]) -> Cluster:
        """Take nodes out with the pods bound to them, as ``--without-node``. Returns this cluster."""
        from kwhatif.load.edits import remove_nodes

        wanted = [names] if isinstance(names, str) else list(names)
        missing = [n for n in wanted if n not in self._state.nodes]
        if missing:
            raise InputError(
                f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field="remove_nodes"
            )
        remove_nodes(self._state, wanted)
        return self

    def apply(self, objects: Sources) -> Cluster:
        """Add objects to the cluster, or replace those of the same kind, namespace and name, as
        if the cluster's files had held them: Nodes, Pods (bound ones on their node, the others
        pending), workloads, PriorityClasses, storage, ... Returns this cluster."""
        from kwhatif.load.cluster import build_cluster

        state = self._state
        docs = _documents(objects, _limits(None), what="objects")
        pod_docs = [d for d in docs if d.kind == "Pod"]
        extra = build_cluster(iter([d for d in docs if d.kind != "Pod"]), check_node_refs=False, names=state.names)
        _merge(state, extra)
        _add_pods(state, pod_docs)
        return self

    # --- the engines -------------------------------------------------------------------------

    def schedule(
        self,
        pods: Sources = (),
        *,
        pending: bool = False,
        scheduler_name: str | None = None,
        namespace: str | None = None,
        all_namespaces: bool = False,
        selector: str | None = None,
        ignore_node_name: bool = False,
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
        preemption: bool = True,
    ) -> ScheduleReport:
        """``kwhatif schedule``: place ``pods`` (manifests, pod/NAME, NAMESPACE/NAME) and, with
        ``pending``, the cluster's pending pods, one after another, and explain every decision."""
        from kwhatif.whatif import schedule as engine

        sources, names = _split_pods(pods)
        if scheduler_name and not pending:
            raise InputError("scheduler_name selects pending pods: add pending=True", field="scheduler_name")
        if not sources and not names and not pending:
            raise InputError("nothing to schedule: give pods or pending=True", field="pods")
        label_selector = _selector(selector, "selector")
        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        default_ns = self._default_namespace(namespace)
        docs = _read(state, sources, None, ignore_node_name)
        from_files, _ = engine.manifest_pods(
            state, docs, namespace=default_ns, enforce_namespace=namespace is not None, note=log.info
        )
        plan = engine.plan(
            state,
            cfg,
            from_files,
            names,
            namespace=default_ns,
            profile=profile,
            scheduler_name=scheduler_name,
            pending=pending,
            all_namespaces=all_namespaces,
            selector=label_selector,
            ignore_node_name=ignore_node_name,
        )
        for note in plan.selection.notes:
            log.info(note)
        sched = _scheduler(state, cfg, preemption)
        attempts = engine.schedule(sched, plan)
        return _schedule_report(sched, attempts, plan.profile, chosen, plan.notes)

    def check(
        self,
        manifests: Sources,
        *,
        surge: bool = False,
        hpa_max: bool = False,
        strict: bool = False,
        namespace: str | None = None,
        ignore_node_name: bool = False,
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
        preemption: bool = True,
    ) -> CheckReport:
        """``kwhatif check``: will the workloads of these manifests fit on the cluster?"""
        from kwhatif.report.check import check_report
        from kwhatif.whatif.check import check as run_check

        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        docs = _read(state, manifests, namespace, ignore_node_name, precise=True)
        if not docs:
            raise InputError("nothing to check: no manifests", field="manifests")
        result, sched = run_check(
            state,
            docs,
            _factory(cfg, preemption, filter_excluded=False, compact=True),
            surge=surge,
            profile=profile,
            hpa_max=hpa_max,
        )
        if result.skipped:
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(result.skipped.items()))
            log.info(f"objects in the manifests that run no pods, not checked: {kinds}")
        name = profile or cfg.profiles[0].scheduler_name
        return check_report(result, _schedule_report(sched, result.attempts, name, chosen), strict=strict)

    def capacity(
        self,
        pod: Source,
        *,
        max_copies: int | None = None,
        minimum: int | None = None,
        namespace: str | None = None,
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
        preemption: bool = True,
    ) -> CapacityReport:
        """``kwhatif capacity``: how many more copies of a pod (or of a workload's pod template)
        fit, where, and what stops the next one. ``max_copies`` (``--max``, default 1000, or
        ``minimum`` when that is larger), ``minimum`` (``--min``: the report's exit code is 1
        when fewer fit)."""
        from kwhatif.report.capacity import capacity_report
        from kwhatif.whatif.capacity import measure, template_of

        if max_copies is not None and max_copies < 1:
            raise InputError(f"max_copies must be at least 1, not {max_copies}", field="max_copies")
        if minimum is not None and minimum < 0:
            raise InputError(f"minimum must be at least 0, not {minimum}", field="minimum")
        if minimum is not None and max_copies is not None and minimum > max_copies:
            raise InputError(
                f"minimum {minimum} is more than max_copies {max_copies}: the gate could never pass", field="minimum"
            )
        limit = max_copies if max_copies is not None else max(DEFAULT_MAX_COPIES, minimum or 0)
        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        docs = _read(state, pod, namespace, False)
        label = _describe(pod)
        template, origin = template_of(state, docs, label, profile=profile)
        sched = _scheduler(state, cfg, preemption, filter_excluded=False)
        sched.framework_for(template)
        res = measure(sched, template, limit)
        if origin:
            res.notes.insert(0, origin)
        return capacity_report(res, template.scheduler_name, sched.snapshot.num_nodes, minimum, chosen, chosen.notes)

    def drain(
        self,
        nodes: str | Iterable[str],
        *,
        ignore_daemonsets: bool = False,
        delete_emptydir_data: bool = False,
        force: bool = False,
        disable_eviction: bool = False,
        pod_selector: str | None = None,
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
        preemption: bool = True,
    ) -> DrainReport:
        """``kwhatif drain``: would the pods on these nodes fit elsewhere? The options are
        kubectl drain's."""
        from kwhatif.whatif.drain import DrainOptions, run_report

        names = [nodes] if isinstance(nodes, str) else list(nodes)
        if not names:
            raise InputError("nothing to drain: give node names", field="nodes")
        selector = _selector(pod_selector, "pod_selector")
        opts = DrainOptions(
            ignore_daemonsets=ignore_daemonsets,
            delete_emptydir_data=delete_emptydir_data,
            force=force,
            disable_eviction=disable_eviction,
            pod_selector=selector,
        )
        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        missing = [n for n in names if n not in state.nodes]
        if missing:
            raise InputError(f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field="nodes")
        sched = _scheduler(state, cfg, preemption, filter_excluded=False, compact=True)
        return run_report(sched, state, names, opts, pod_selector, profile or cfg.profiles[0].scheduler_name, chosen)

    def autoscale(
        self,
        pods: Sources | None = None,
        *,
        pending: bool = False,
        node_groups: str | os.PathLike[str] | None = None,
        expander: str | None = None,
        max_nodes_total: int | None = None,
        cores_total: str | None = None,
        memory_total: str | None = None,
        balance_similar_node_groups: bool | None = None,
        loops: int = 1,
        scale_down: bool = False,
        scale_down_utilization_threshold: float = 0.5,
        autoscaler: str | None = None,
        node_pools: str | os.PathLike[str] | None = None,
        instance_types: str | os.PathLike[str] | None = None,
        consolidation: bool = False,
        min_values_policy: str = "Strict",
        preference_policy: str = "Respect",
        spot_to_spot_consolidation: bool = False,
        namespace: str | None = None,
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
    ) -> AutoscaleReport | KarpenterReport:
        """``kwhatif autoscale``: what the cluster autoscaler would do for the pods (manifests,
        with their workloads expanded, and/or the cluster's ``pending`` pods) that do not fit the
        existing nodes. The keyword arguments are the command's options."""
        from kwhatif.whatif.autoscale import AutoscaleOptions, AutoscalerKind
        from kwhatif.whatif.autoscale_report import run_report

        if pods is None and not pending:
            raise InputError("nothing to autoscale for: give pods or pending=True", field="pods")
        if loops < 1:
            raise InputError(f"loops must be at least 1, not {loops}", field="loops")
        try:
            kind = AutoscalerKind(autoscaler) if autoscaler else None
        except ValueError:
            raise InputError(f"unknown autoscaler {autoscaler!r}", field="autoscaler") from None
        # Karpenter's operator options, as the command's choices
        for name, value, choices in (
            ("min_values_policy", min_values_policy, ("Strict", "BestEffort")),
            ("preference_policy", preference_policy, ("Respect", "Ignore")),
        ):
            if value not in choices:
                raise InputError(f"must be one of {', '.join(choices)}, not {value!r}", field=name)
        if not 0 <= scale_down_utilization_threshold <= 1:  # NaN too
            raise InputError(
                f"must be between 0 and 1, not {scale_down_utilization_threshold}",
                field="scale_down_utilization_threshold",
            )
        if max_nodes_total is not None and max_nodes_total < 0:
            raise InputError(f"must be at least 0, not {max_nodes_total}", field="max_nodes_total")
        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        docs = _read(state, pods, namespace, False) if pods is not None else []
        options = AutoscaleOptions(
            autoscaler=kind,
            node_groups=os.fspath(node_groups) if node_groups is not None else None,
            expander=expander,
            max_nodes_total=max_nodes_total,
            cores_total=cores_total,
            memory_total=memory_total,
            balance_similar_node_groups=balance_similar_node_groups,
            scale_down=scale_down,
            scale_down_utilization_threshold=scale_down_utilization_threshold,
            loops=loops,
            node_pools=os.fspath(node_pools) if node_pools is not None else None,
            instance_types=os.fspath(instance_types) if instance_types is not None else None,
            consolidation=consolidation,
            min_values_policy=min_values_policy,
            preference_policy=preference_policy,
            spot_to_spot_consolidation=spot_to_spot_consolidation,
        )
        return run_report(
            state,
            docs,
            cfg,
            chosen,
            options,
            _limits(None),
            pending=pending,
            namespace=namespace,
            profile=profile,
            note=log.info,
        )

    def diff(
        self,
        pods: Sources = (),
        *,
        pending: bool = False,
        check: bool = False,
        namespace: str | None = None,
        all_namespaces: bool = False,
        selector: str | None = None,
        ignore_node_name: bool = False,
        fail_on: str = "status",
        scheduler_version: str | None = None,
        feature_gates: str | Mapping[str, bool] | None = None,
        config: Source | None = None,
        profile: str | None = None,
        to_scheduler_version: str | None = None,
        to_feature_gates: str | Mapping[str, bool] | None = None,
        to_config: Source | None = None,
        to_profile: str | None = None,
        preemption: bool = True,
    ) -> DiffReport:
        """``kwhatif diff``: the same pods (manifests, pod/NAME, NAMESPACE/NAME, and with
        ``pending`` the cluster's pending pods; with ``check``, the workloads of manifests) under
        two schedulers, and what changes for each pod. ``scheduler_version``, ``feature_gates``,
        ``config`` and ``profile`` are the scheduler as it is; ``to_scheduler_version``,
        ``to_feature_gates``, ``to_config`` and ``to_profile`` the one to compare with, each
        defaulting to the first one's. ``fail_on``: status, node or any (``--fail-on``)."""
        from functools import partial

        from kwhatif.report.diff import diff_report
        from kwhatif.report.diff_aspects import FailOn
        from kwhatif.whatif.diff import Side, check_side, resolve_to_version, schedule_side, side_notes, to_version
        from kwhatif.whatif.diff import diff as run_diff

        try:
            fail = FailOn(fail_on)
        except ValueError:
            choices = ", ".join(f.value for f in FailOn)
            raise InputError(f"unknown value {fail_on!r} (one of {choices})", field="fail_on") from None
        if to_scheduler_version is not None:
            resolve_to_version(to_scheduler_version)
        sources: list[Source]
        names: list[Any] = []
        if check:
            if pending:
                raise InputError(
                    "check=True compares the workloads of manifests; pending=True pending pods", field="pending"
                )
            sources = _items(pods)
            if not sources:
                raise InputError("nothing to compare: give the manifests' workloads", field="pods")
        else:
            sources, names = _split_pods(pods)
            if not sources and not names and not pending:
                raise InputError("nothing to compare: give pods or pending=True", field="pods")
        label_selector = _selector(selector, "selector")
        state, chosen, cfg = self._prepare(scheduler_version, feature_gates, config, profile)
        before = Side(chosen, cfg, profile)
        after_chosen = to_version(
            chosen,
            to_scheduler_version,
            _gates_text(feature_gates),
            _gates_text(to_feature_gates, "to_feature_gates"),
        )
        after_profile = to_profile or profile
        after_cfg = _configuration(to_config if to_config is not None else config, after_chosen)
        if after_profile and after_cfg.profile(after_profile) is None:
            known = ", ".join(p.scheduler_name for p in after_cfg.profiles)
            raise InputError(f"no profile named {after_profile!r} (profiles: {known})", field="to_profile")
        after = Side(after_chosen, after_cfg, after_profile)
        for line in after_chosen.notes:
            if line not in chosen.notes:
                log.info(f"--to-scheduler-version: {line}")
        docs = _read(state, sources, namespace if check else None, ignore_node_name)
        run_one: Any
        if check:
            run_one = partial(check_side, docs=docs, preemption=preemption)
        else:
            run_one = partial(
                schedule_side,
                docs=docs,
                names=names,
                namespace=self._default_namespace(namespace),
                enforce_namespace=namespace is not None,
                pending=pending,
                all_namespaces=all_namespaces,
                selector=label_selector,
                ignore_node_name=ignore_node_name,
                preemption=preemption,
            )
        result = run_diff(state, before, after, run_one)
        for line in side_notes(result):
            log.info(line)
        if pending and not result.pods:
            log.info("no pending pods to compare")
        return diff_report(result, fail, notes=chosen.notes)

    def _default_namespace(self, namespace: str | None) -> str:
        """-n, else the live context's namespace, else "default"."""
        if namespace is not None:
            return namespace
        if self._live is not None:
            from kwhatif.load.kubeconfig import context_namespace

            return context_namespace(self._live.kubeconfig, self._live.context)
        return "default"

    def _prepare(
        self,
        scheduler_version: str | None,
        feature_gates: str | Mapping[str, bool] | None,
        config: Source | None,
        profile: str | None,
    ) -> tuple[ClusterState, ChosenVersion, SchedulerConfiguration]:
        """A fork of the state to run on, the release answered as (with its pods derived as it
        derives them) and the scheduler configuration: the preamble of every command."""
        from kwhatif.load.scheduler_version import choose, kubelet_skew_notes, parse_flag

        if scheduler_version is not None:
            parse_flag(scheduler_version)
        state = self._state.fork()
        chosen = choose(scheduler_version, state, live=self._live is not None)
        chosen = chosen.with_feature_gates(_gates_text(feature_gates))
        state.use_version(chosen.version)
        notes = chosen.notes + tuple(kubelet_skew_notes(state, chosen.version))
        chosen = dataclasses.replace(chosen, notes=notes)
        cfg = _configuration(config, chosen)
        if profile and cfg.profile(profile) is None:
            names = ", ".join(p.scheduler_name for p in cfg.profiles)
            raise InputError(f"no profile named {profile!r} (profiles: {names})", field="profile")
        return state, chosen, cfg


def render(report: Any, output: str = "table", *, width: int = 0, explain_all: bool = False) -> str:
    """A report in one of the command line's output formats (``-o``): table, wide, json, yaml,
    markdown, junit, github, sarif or html, as the command writes it to a file or pipe."""
    from kwhatif.report.base import OutputFormat, ReportKind
    from kwhatif.report.formats.formatter import RenderOptions
    from kwhatif.report.formats.output import get_formatter

    try:
        fmt = OutputFormat(output)
    except ValueError:
        choices = ", ".join(f.value for f in OutputFormat)
        raise InputError(f"unknown output format {output!r} (one of {choices})", field="output") from None
    if fmt not in report.kind.formats:
        choices = ", ".join(f.value for f in report.kind.formats)
        raise InputError(
            f"{'an' if report.kind[0] in 'AEIOU' else 'a'} {report.kind} report has no {output} format (one of {choices})",
            field="output",
        )
    options = RenderOptions(width=width, explain_all=explain_all)
    if report.kind is ReportKind.DIFF:
        from kwhatif.report.diff import render as render_diff

        return render_diff(report, fmt.value, options)
    return get_formatter(fmt, options).format(report)


# --- helpers ---------------------------------------------------------------------------------


def _limits(max_input_size: int | None) -> Limits:
    from kwhatif.load.files import Limits

    if max_input_size is not None and max_input_size <= 0:
        raise InputError("max_input_size must be above 0", field="max_input_size")
    return Limits.uniform(max_input_size) if max_input_size else Limits()


def _items(sources: Sources) -> list[Source]:
    if isinstance(sources, str | os.PathLike | Mapping):
        return [sources]
    return list(sources)


def _path(s: Source) -> str:
    assert not isinstance(s, Mapping)
    return os.fspath(s)


def _is_text(s: Source) -> bool:
    return isinstance(s, str) and "\n" in s


def _describe(sources: Sources) -> str:
    items = _items(sources)
    out = []
    for i, s in enumerate(items, 1):
        if isinstance(s, Mapping):
            out.append(f"<object {i}>")
        elif _is_text(s):
            out.append(f"<text {i}>")
        else:
            out.append(os.fspath(s))
    return ", ".join(out)


def _documents(sources: Sources, limits: Limits, *, what: str) -> list[Document]:
    """The documents of each source: a path as ``-f`` reads it, a text as a file of it would
    be, a dict as a one-object file ("<object N>" and "<text N>" name them in errors)."""
    from kwhatif.load.files import parse_text, read_path

    docs: list[Document] = []
    for i, s in enumerate(_items(sources), 1):
        if isinstance(s, Mapping):
            try:
                text = json.dumps(s)
            except (TypeError, ValueError) as e:
                raise InputError(f"not a JSON-like object: {e}", source=f"<object {i}>") from None
            docs.extend(parse_text(text, f"<object {i}>", limits.max_yaml_bytes))
        elif _is_text(s):
            assert isinstance(s, str)
            if len(s) > limits.max_yaml_bytes:
                raise InputError(f"text is larger than the {limits.max_yaml_bytes} bytes limit", source=f"<text {i}>")
            docs.extend(parse_text(s, f"<text {i}>", limits.max_yaml_bytes))
        else:
            path = os.fspath(s)
            if path == "-":
                raise InputError(f"'-' (standard input) is not an input of the Python API: give the {what}'s text")
            docs.extend(read_path(path, limits))
    return docs


def _read(
    state: ClusterState, sources: Sources, namespace: str | None, ignore_node_name: bool, *, precise: bool = False
) -> list[Document]:
    """The manifests given to an engine, with namespace= and ignore_node_name= applied, as the
    command's run.documents()."""
    from kwhatif.whatif.documents import apply_options

    docs = _documents(sources, _limits(None), what="manifests")
    return apply_options(docs, namespace, ignore_node_name, precise=precise, note=log.info)


def _split_pods(pods: Sources) -> tuple[list[Source], list[Any]]:
    """schedule's arguments: the manifests (paths, texts, dicts, in the order given) and the pods
    of the cluster named as pod/NAME or NAMESPACE/NAME."""
    from kwhatif.whatif.schedule import split_arguments

    sources: list[Source] = []
    names: list[Any] = []
    for s in _items(pods):
        if isinstance(s, Mapping) or _is_text(s):
            sources.append(s)
            continue
        found, named = split_arguments([_path(s)])
        sources.extend(found)
        names.extend(named)
    return sources, names


def _selector(text: str | None, field: str) -> Any:
    if text is None:
        return None
    from kwhatif.api.labels import parse_selector

    try:
        return parse_selector(text)
    except ValueError as e:
        raise InputError(f"{text!r}: {e}", field=field) from None


def _gates_text(gates: str | Mapping[str, bool] | None, field: str = "feature_gates") -> str | None:
    """feature_gates= as --feature-gates spells them: a str as given, a dict as k=v,..."""
    if gates is None or isinstance(gates, str):
        return gates
    for k, v in gates.items():
        if not isinstance(v, bool):  # "false" or "no" would be truthy: a gate turned on by mistake
            raise InputError(f"{k}: expected true or false, got {v!r}", field=field)
    return ",".join(f"{k}={'true' if v else 'false'}" for k, v in gates.items())


def _configuration(config: Source | None, chosen: ChosenVersion) -> SchedulerConfiguration:
    from kwhatif.config.defaults import default_configuration
    from kwhatif.config.load import load_configuration, parse_configuration

    if config is None:
        return default_configuration(chosen.version)
    if isinstance(config, Mapping):
        return parse_configuration(json.dumps(config), "<config>", chosen.version)
    if _is_text(config):
        assert isinstance(config, str)
        return parse_configuration(config, "<config>", chosen.version)
    return load_configuration(os.fspath(config), chosen.version)


def _factory(cfg: SchedulerConfiguration, preemption: bool, **options: Any) -> Any:
    from kwhatif.config.options import Options
    from kwhatif.scheduling.scheduler import Scheduler

    opts = Options(preemption=preemption, **options)

    def make(state: ClusterState) -> Scheduler:
        return Scheduler(state, cfg, options=opts)

    return make


def _scheduler(state: ClusterState, cfg: SchedulerConfiguration, preemption: bool, **options: Any) -> Scheduler:
    sched: Scheduler = _factory(cfg, preemption, **options)(state)
    return sched


def _schedule_report(
    sched: Scheduler, attempts: Any, profile: str, chosen: ChosenVersion, notes: Sequence[str] = ()
) -> ScheduleReport:
    """The schedule report as the command's Run.schedule_report builds it."""
    from kwhatif.report.groups import group_entries
    from kwhatif.report.schedule import schedule_report

    return schedule_report(
        attempts,
        sched.snapshot.num_nodes,
        profile,
        [*notes, *chosen.notes, *sched.gang.notes],
        scheduler_version=chosen,
        nodes=[ni.node for ni in sched.snapshot.node_infos],
        groups=group_entries(attempts, sched.gang),
    )


def _merge(state: ClusterState, extra: ClusterState) -> None:
    """``extra``'s objects (no pods) join ``state``, replacing those of the same key, kind by kind
    as the table of kinds keeps them; a node replaced keeps the pods bound to it."""
    from kwhatif.cache.kinds import KINDS, Store

    for k in KINDS:
        if k.kind == "Pod":
            continue
        mine, theirs = getattr(state, k.field), getattr(extra, k.field)
        if isinstance(mine, dict):
            mine.update(theirs)
        elif k.store is Store.LISTED:
            new = {(getattr(o, "namespace", ""), o.name) for o in theirs}
            kept = [o for o in mine if (getattr(o, "namespace", ""), o.name) not in new]
            setattr(state, k.field, kept + list(theirs))
    state.nodes = dict(sorted(state.nodes.items()))


def _add_pods(state: ClusterState, docs: list[Document]) -> None:
    """Pods join as the loader adds them (admitted against the cluster's PriorityClasses and
    RuntimeClasses); one of an existing pod's namespace and name replaces it."""
    from kwhatif.api import parse
    from kwhatif.api.resources import PodRules
    from kwhatif.errors import FieldError

    rules = PodRules.of(state.version)
    admission = state.admission
    for doc in docs:
        state.names(doc.body)
        try:
            pod = parse.pod(doc.body, "default", doc.source, validate=False, rules=rules)
        except FieldError as e:
            raise e.with_context(source=doc.source, obj=doc.describe()) from None
        if pod.terminal:
            continue
        pod = admission.admit(pod, strict=False)
        if pod.node_name and pod.node_name not in state.nodes:
            raise InputError(
                f'node "{pod.node_name}" is not in the cluster',
                source=doc.source,
                obj=f"Pod {pod.key}",
                field="spec.nodeName",
            )
        state.pods = [p for p in state.pods if p.key != pod.key]
        state.pending_pods = [p for p in state.pending_pods if p.key != pod.key]
        (state.pods if pod.node_name else state.pending_pods).append(pod)
