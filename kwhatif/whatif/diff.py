"""`kwhatif diff`: the same pods (or workloads) on the same cluster under two schedulers, and
what changes for each pod between them.

A side is a release (with its feature gates) and a scheduler configuration. Both sides run on
their own copy of the loaded cluster, so the cluster is read once and neither run sees the
other's placements. Each pod's final attempt on one side is compared with its final attempt on
the other, aspect by aspect (Aspect); the plugins whose answers differ name the recorded
upstream changes (versions.CHANGES) that can explain a difference, as do the feature gates
whose values differ and the configuration's differences.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from kwhatif.cache.cluster import ClusterState
from kwhatif.config.types import Profile, SchedulerConfiguration
from kwhatif.errors import InputError
from kwhatif.framework.types import NodeScores, PodOutcome
from kwhatif.plugins.incremental_scores import ScoreTable
from kwhatif.release.gate_plugins import API_SERVER, FRAMEWORK, GATE_PLUGINS, PREEMPTION_PLUGIN, Point, explains
from kwhatif.release.versions import MODELLED_GATES, Change, ChosenVersion, Release
from kwhatif.report.diff_aspects import Aspect
from kwhatif.scheduling.scheduler import Attempt, Scheduler

if TYPE_CHECKING:
    from kwhatif.api.labels import Selector
    from kwhatif.load.files import Document
    from kwhatif.release.versions import Resolved
    from kwhatif.whatif.schedule import PodName

# FRAMEWORK, PREEMPTION_PLUGIN, GATE_PLUGINS and what each gate can change at which extension
# point (explains) are release knowledge: kwhatif.release.gate_plugins.


@dataclass(frozen=True, slots=True)
class Side:
    """One scheduler: the release answered as (with its gates) and its configuration."""

    chosen: ChosenVersion
    config: SchedulerConfiguration
    profile: str | None = None  # --profile / --to-profile

    @property
    def config_source(self) -> str:
        return self.config.source

    def fields(self) -> dict[str, Any]:
        """The report's ``from``/``to``: release, where it came from, gates, configuration."""
        out = dict(self.chosen.report_fields())
        out["featureGates"] = self.chosen.version.feature_gates_in_force()
        out["config"] = self.config.source or None
        out["profile"] = self.profile
        return out


def fork(state: ClusterState) -> ClusterState:
    """A copy of the cluster state that a run may change (merge manifests' objects, select pods,
    re-derive pods for its release, track pod groups) without the original seeing it: every
    table is a new container holding the same immutable objects; the pod-group tracker and the
    name generator, which runs change in place, are copied."""
    fork_of = getattr(state, "fork", None)
    if callable(fork_of):
        forked = fork_of()
        assert isinstance(forked, ClusterState)
        return forked
    values: dict[str, Any] = {}
    for f in dataclasses.fields(state):
        v = getattr(state, f.name)
        if f.name in ("pod_group_states", "names"):
            v = copy.deepcopy(v)
        elif isinstance(v, (dict, list, set)) or hasattr(v, "most_common"):
            v = copy.copy(v)
        values[f.name] = v
    return ClusterState(**values)


# --- one pod's values on one side -----------------------------------------------------------------


FilterKey = tuple[str, str, tuple[str, ...]]  # plugin, code, reasons of a node's first failure


@dataclass(frozen=True, slots=True)
class PodValues:
    """What a pod's final attempt says, in the terms the aspects compare."""

    status: str
    node: str | None
    tie: tuple[str, ...]
    message: str | None
    # each node's first failing filter (None: it passes), the PreFilter rejection on every node
    filters: Mapping[str, FilterKey | None]
    feasible: tuple[str, ...]
    # each feasible node's total, when upstream scores (more than one feasible node)
    totals: Mapping[str, int]
    # each scored node's plugin scores (what names the plugins behind a change), read only for
    # the nodes whose totals differ: a cycle's table builds a node's breakdown when it is read
    scores: Mapping[str, NodeScores]
    nominated_node: str | None
    victims: tuple[str, ...]
    profile: str = ""
    source: str = ""  # the manifest the pod came from ("file:line"), if any


ABSENT = PodValues("-", None, (), None, {}, (), {}, {}, None, ())


def _totals(scores: Mapping[str, NodeScores]) -> dict[str, int]:
    """Each node's total; from a cycle's score table at once, without building every node's
    breakdown."""
    if isinstance(scores, ScoreTable):
        return dict(zip(scores.names, scores.totals.tolist(), strict=True))
    return {name: ns.total for name, ns in scores.items()}


def _score_plugins_differing(a: PodValues, b: PodValues, nodes: list[str]) -> set[str]:
    """The plugins whose weighted score differs on one of ``nodes`` (scored on both sides); a
    plugin one side does not score with scores 0 there. Two cycles' score tables are compared a
    plugin row at a time over their common nodes."""
    ta, tb = a.scores, b.scores
    if not nodes:
        return set()
    if isinstance(ta, ScoreTable) and isinstance(tb, ScoreTable):
        _, ia, ib = np.intersect1d(np.array(ta.names), np.array(tb.names), assume_unique=True, return_indices=True)
        rows_a = {p: ta.norm[k][ia] * ta.weights[k] for k, p in enumerate(ta.plugins)}
        rows_b = {p: tb.norm[k][ib] * tb.weights[k] for k, p in enumerate(tb.plugins)}
        zero = np.zeros(len(ia), dtype=np.int64)
        return {
            p for p in dict.fromkeys([*rows_a, *rows_b]) if bool(np.any(rows_a.get(p, zero) != rows_b.get(p, zero)))
        }
    out: set[str] = set()
    for node in nodes:
        sa, sb = plugin_weighted(a, node), plugin_weighted(b, node)
        out.update(p for p in dict.fromkeys([*sa, *sb]) if sa.get(p, 0) != sb.get(p, 0))
    return out


def plugin_weighted(v: PodValues, node: str) -> dict[str, int]:
    """A node's weighted score per plugin on one side ({} when it was not scored)."""
    ns = v.scores.get(node) if node in v.totals else None
    return {s.plugin: s.weighted for s in ns.scores} if ns is not None else {}


def pod_values(att: Attempt, preemption_of: Attempt | None = None) -> PodValues:
    """The values of a pod's final attempt; ``preemption_of``: its last attempt that nominated a
    node (the preemption an earlier attempt made is the pod's, as the reports carry it over)."""
    fit, prio = att.fit, att.prioritized
    filters: dict[str, FilterKey | None] = {}
    if fit is not None:
        for name, fr in fit.filters.items():
            st = fr.first
            if fit.at_pre_filter:
                st = fit.pre_filter.status
            filters[name] = None if st is None else (st.plugin, st.code.label, tuple(st.reasons))
    totals: dict[str, int] = {}
    scores: Mapping[str, NodeScores] = {}
    if prio is not None and prio.upstream_scored:
        scores = prio.scores
        totals = _totals(scores)
    scheduled = att.result is PodOutcome.SCHEDULED
    best = prio.best if prio is not None else []
    pre = preemption_of if preemption_of is not None else att
    return PodValues(
        status=str(att.result),
        node=att.node if scheduled else None,
        tie=tuple(best) if scheduled and len(best) > 1 else (),
        message=None if scheduled else (att.message or None),
        filters=filters,
        feasible=tuple(sorted(att.feasible)) if fit is not None else (),
        totals=totals,
        scores=scores,
        nominated_node=pre.nominated_node or None,
        victims=tuple(f"{v.namespace}/{v.name}" for v in pre.victims) if pre.nominated_node else (),
        profile=att.profile,
        source=att.pod.source,
    )


def final_values(attempts: Iterable[Attempt]) -> dict[str, PodValues]:
    """Each pod's values, by "namespace/name", in the order of the pods' final attempts (what a
    pod met depends on the placements made before its final attempt)."""
    last: dict[str, Attempt] = {}
    nominated: dict[str, Attempt] = {}
    for a in attempts:
        key = a.pod.key
        last.pop(key, None)
        last[key] = a
        if a.nominated_node:
            nominated[key] = a
    return {k: pod_values(a, nominated.get(k) if not a.nominated_node else None) for k, a in last.items()}


# --- comparing two sides -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cause:
    """What can explain a difference: a recorded upstream change in force on one side only, a
    feature gate whose value differs, or the configurations' difference for a plugin."""

    kind: str  # "release", "gate", "config", or "earlier" (a pod placed before it moved)
    text: str  # the change's summary, the gate's name, or what differs in the configuration
    release: str = ""  # where the change landed on the line of the side that has it
    plugins: tuple[str, ...] = ()
    prs: tuple[int, ...] = ()
    from_value: bool | None = None  # a gate's values
    to_value: bool | None = None
    side: str = ""  # "to" when the change is in force on the compared side only, else "from"

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "earlier":
            return {"earlierPod": self.text, "from": self.release or None, "to": self.side or None}
        if self.kind == "gate":
            return {"gate": self.text, "from": self.from_value, "to": self.to_value, "plugins": list(self.plugins)}
        out: dict[str, Any] = {"change": self.text, "plugins": list(self.plugins)}
        if self.kind == "release":
            out = {"release": self.release, **out, "pr": [f"#{p}" for p in self.prs], "inForce": self.side}
        else:
            out = {"config": self.text, "plugins": list(self.plugins)}
        return out

    def describe(self) -> str:
        """One line for people: ``BalancedAllocation scores ... from 1.36.0 (#135573)``."""
        if self.kind == "earlier":
            return (
                f"pod {self.text} was placed earlier on {self.side or 'no node'} instead of {self.release or 'no node'}"
            )
        if self.kind == "gate":
            return f"feature gate {self.text} {str(self.from_value).lower()} -> {str(self.to_value).lower()}"
        if self.kind == "config":
            return f"configuration: {self.text}"
        prs = f" (#{', #'.join(map(str, self.prs))})" if self.prs else ""
        when = "from" if self.side == "to" else "until"
        return f"{self.text} {when} {self.release}{prs}"


@dataclass(frozen=True, slots=True)
class PodDiff:
    key: str  # "namespace/name"
    changed: tuple[Aspect, ...]
    before: PodValues
    after: PodValues
    plugins: tuple[str, ...]  # the plugins whose answers differ
    causes: tuple[Cause, ...]

    @property
    def namespace(self) -> str:
        return self.key.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.key.split("/", 1)[1]


def _changed_filters(a: PodValues, b: PodValues) -> dict[str, tuple[FilterKey | None, FilterKey | None]]:
    out = {}
    for node in dict.fromkeys([*a.filters, *b.filters]):
        fa, fb = a.filters.get(node), b.filters.get(node)
        if fa != fb:
            out[node] = (fa, fb)
    return out


def _changed_totals(a: PodValues, b: PodValues) -> dict[str, tuple[int | None, int | None]]:
    out = {}
    for node in dict.fromkeys([*a.totals, *b.totals]):
        ta, tb = a.totals.get(node), b.totals.get(node)
        if ta != tb:
            out[node] = (ta, tb)
    return out


def compare(a: PodValues, b: PodValues) -> tuple[tuple[Aspect, ...], tuple[str, ...]]:
    """The aspects that differ, and the plugins whose answers differ (by upstream name; FRAMEWORK
    when only the FitError message differs, "api" when the pod is on one side only)."""
    changed, evidence = compare_points(a, b)
    return changed, tuple(sorted({p for p, _ in evidence}))


def compare_points(a: PodValues, b: PodValues) -> tuple[tuple[Aspect, ...], frozenset[tuple[str, Point]]]:
    """The aspects that differ, and what differs as (plugin, extension point) pairs: a node's
    first failing filter (Point.FILTER), a plugin's weighted score on a node both sides scored
    (SCORE), the nominated node or victims (DefaultPreemption's POST_FILTER), the FitError text
    alone (the framework's CYCLE), a pod on one side only (the API server's ADMISSION)."""
    changed: list[Aspect] = []
    evidence: set[tuple[str, Point]] = set()
    if a.status != b.status:
        changed.append(Aspect.STATUS)
        if ABSENT.status in (a.status, b.status):
            evidence.add((API_SERVER, Point.ADMISSION))
    if a.node != b.node:
        changed.append(Aspect.NODE)
    if a.message != b.message:
        changed.append(Aspect.MESSAGE)
    filters = _changed_filters(a, b)
    if filters:
        changed.append(Aspect.FILTERS)
        for fa, fb in filters.values():
            evidence.update((f[0], Point.FILTER) for f in (fa, fb) if f is not None and f[0])
    totals = _changed_totals(a, b)
    if a.feasible != b.feasible or totals:
        changed.append(Aspect.SCORES)
        common = [n for n, (ta, tb) in totals.items() if ta is not None and tb is not None]
        evidence.update((p, Point.SCORE) for p in _score_plugins_differing(a, b, common))
    if (a.nominated_node, a.victims) != (b.nominated_node, b.victims):
        changed.append(Aspect.PREEMPTION)
        evidence.add((PREEMPTION_PLUGIN, Point.POST_FILTER))
    if Aspect.MESSAGE in changed and not filters:
        evidence.add((FRAMEWORK, Point.CYCLE))
    return tuple(changed), frozenset(evidence)


@dataclass(frozen=True, slots=True)
class CauseIndex:
    """The causes two sides offer: the recorded changes in force on one side only, the gates
    whose values differ, the plugins whose configuration differs."""

    changes: tuple[Cause, ...]
    gates: tuple[Cause, ...]
    config: tuple[Cause, ...]

    @classmethod
    def of(cls, a: Side, b: Side) -> CauseIndex:
        va, vb = a.chosen.version, b.chosen.version
        changes: list[Cause] = []
        for side, have, lack, line in (("to", vb, va, vb.release), ("from", va, vb, va.release)):
            for c in have.changes:
                if c not in lack.changes:
                    changes.append(_change_cause(c, side, line))
        gates = tuple(
            Cause("gate", n, plugins=GATE_PLUGINS.get(n, ()), from_value=va.gate(n), to_value=vb.gate(n))
            for n in MODELLED_GATES
            if va.gate(n) != vb.gate(n)
        )
        return cls(tuple(changes), gates, tuple(config_causes(a, b)))

    def for_plugins(self, plugins: Iterable[str]) -> tuple[Cause, ...]:
        """The causes that can explain a difference in these plugins' answers: the changes and the
        configuration's differences that touch one of them, then the gates whose values differ
        and that one of them reads."""
        wanted = set(plugins)
        out = [c for c in self.changes if wanted & set(c.plugins)]
        out += [c for c in self.config if wanted & set(c.plugins) or not c.plugins]
        out += [c for c in self.gates if wanted & set(c.plugins)]
        return tuple(out)

    def for_evidence(self, evidence: Iterable[tuple[str, Point]]) -> tuple[Cause, ...]:
        """The causes of a pod's difference (compare_points): the changes and configuration
        differences of the plugins that differ, then the gates whose values differ and that can
        produce what differs at one of their plugins' extension points (gate_plugins.explains)."""
        ev = frozenset(evidence)
        wanted = {p for p, _ in ev}
        out = [c for c in self.changes if wanted & set(c.plugins)]
        out += [c for c in self.config if wanted & set(c.plugins) or not c.plugins]
        out += [c for c in self.gates if explains(c.text, ev)]
        return tuple(out)

    @property
    def all(self) -> tuple[Cause, ...]:
        return (*self.changes, *self.gates, *self.config)


def _change_cause(c: Change, side: str, line: Release) -> Cause:
    return Cause("release", c.summary, release=c.landed_on(line), plugins=c.plugins, prs=c.prs, side=side)


def _profile_of(side: Side, name: str | None) -> Profile:
    cfg = side.config
    p = cfg.profile(name) if name else None
    return p if p is not None else cfg.profiles[0]


def config_causes(a: Side, b: Side) -> list[Cause]:
    """The plugins whose place in the profile (extension points, weight) or arguments differ
    between the two sides' configurations, when the sides are configured differently."""
    if a.config.source == b.config.source and a.profile == b.profile:
        return []
    pa, pb = _profile_of(a, a.profile), _profile_of(b, b.profile)
    plugins: set[str] = set()
    for point in dict.fromkeys([*pa.plugins, *pb.plugins]):
        sa, sb = pa.plugins.get(point), pb.plugins.get(point)
        ea = {r.name: r.weight for r in sa.enabled} if sa else {}
        eb = {r.name: r.weight for r in sb.enabled} if sb else {}
        plugins.update(n for n in dict.fromkeys([*ea, *eb]) if ea.get(n, -1) != eb.get(n, -1))
        plugins.update(set(sa.disabled if sa else ()) ^ set(sb.disabled if sb else ()))
    for name in dict.fromkeys([*pa.plugin_config, *pb.plugin_config]):
        if pa.plugin_config.get(name) != pb.plugin_config.get(name):
            plugins.add(name)
    if pa.percentage_of_nodes_to_score != pb.percentage_of_nodes_to_score:
        plugins.add(FRAMEWORK)
    what = []
    if a.config.source != b.config.source:
        what.append(
            f"{a.config.source or 'the default configuration'} -> {b.config.source or 'the default configuration'}"
        )
    if pa.scheduler_name != pb.scheduler_name:
        what.append(f"profile {pa.scheduler_name} -> {pb.scheduler_name}")
    text = "; ".join(what) or "the configurations differ"
    if not plugins:
        return [Cause("config", text)]
    return [Cause("config", f"{text}: {p}", plugins=(p,)) for p in sorted(plugins)]


def diff_pods(before: Mapping[str, PodValues], after: Mapping[str, PodValues], causes: CauseIndex) -> list[PodDiff]:
    """Every pod of either side, in the order of the first side's final attempts, with what differs.
    A pod placed before another (its node or its victims changed) changes what the later one
    meets: the first such pods (EARLIER_CAUSES) are named first among the later pods' causes."""
    out = []
    moved: list[Cause] = []
    for key in dict.fromkeys([*before, *after]):
        a, b = before.get(key, ABSENT), after.get(key, ABSENT)
        changed, evidence = compare_points(a, b)
        plugins = tuple(sorted({p for p, _ in evidence}))
        found = (*moved[:EARLIER_CAUSES], *causes.for_evidence(evidence)) if changed else ()
        out.append(PodDiff(key, changed, a, b, plugins, found))
        if Aspect.NODE in changed or Aspect.PREEMPTION in changed:
            moved.append(Cause("earlier", key, release=a.node or "", side=b.node or ""))
    return out


# at most this many earlier pods named among a pod's causes
EARLIER_CAUSES = 3


# --- running both sides ---------------------------------------------------------------------------


@dataclass(slots=True)
class SideRun:
    """One side's run: its scheduler (for the report's snapshot and groups) and its attempts; with
    --check, the check engine's result too."""

    side: Side
    scheduler: Scheduler
    attempts: list[Attempt]
    check: Any = None  # whatif.check.CheckResult
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class DiffResult:
    before: SideRun
    after: SideRun
    pods: list[PodDiff]
    causes: CauseIndex


def run_side(
    state: ClusterState,
    side: Side,
    run: Callable[[ClusterState, Side], SideRun],
) -> SideRun:
    """``run`` on a fork of ``state`` re-derived for the side's release."""
    mine = fork(state)
    if mine.version.release != side.chosen.version.release or mine.version != side.chosen.version:
        mine.use_version(side.chosen.version)
    return run(mine, side)


def diff(state: ClusterState, before: Side, after: Side, run: Callable[[ClusterState, Side], SideRun]) -> DiffResult:
    """Run both sides, each on its own fork of ``state``, and compare every pod."""
    a = run_side(state, before, run)
    b = run_side(state, after, run)
    causes = CauseIndex.of(before, after)
    pods = diff_pods(final_values(a.attempts), final_values(b.attempts), causes)
    return DiffResult(a, b, pods, causes)


# --- the two kinds of side ------------------------------------------------------------------------


def _nothing() -> None:
    pass


def schedule_side(
    state: ClusterState,
    side: Side,
    docs: list[Document],
    *,
    names: Iterable[PodName] = (),
    namespace: str = "default",
    enforce_namespace: bool = False,
    pending: bool = False,
    all_namespaces: bool = False,
    selector: Selector | None = None,
    ignore_node_name: bool = False,
    preemption: bool = True,
    on_scheduler: Callable[[], None] = _nothing,
) -> SideRun:
    """One side of a diff of pods, placed as `kwhatif schedule` places them: the manifests' pods
    (``docs``), the cluster's pods ``names`` and, with ``pending``, its pending pods, one after
    another. ``namespace``: of the pods that name none (with ``enforce_namespace``, -n: every pod's);
    ``on_scheduler`` runs once the side's scheduler exists."""
    from kwhatif.config.options import Options
    from kwhatif.whatif import schedule as engine

    notes: list[str] = []
    try:
        from_files, _ = engine.manifest_pods(
            state, docs, namespace=namespace, enforce_namespace=enforce_namespace, note=notes.append
        )
    except InputError as e:
        if not e.message.startswith(engine.NOT_PODS):
            raise
        # a workload in a diff of pods: --check compares workloads
        kind = e.message.rsplit(" for ", 1)[-1]
        raise InputError(f"diff compares Pods; add --check to compare {kind}", source=e.source, obj=e.obj) from None
    plan = engine.plan(
        state,
        side.config,
        from_files,
        list(names),
        namespace=namespace,
        profile=side.profile,
        pending=pending,
        all_namespaces=all_namespaces,
        selector=selector,
        ignore_node_name=ignore_node_name,
    )
    notes.extend(plan.selection.notes)
    sched = Scheduler(state, side.config, options=Options(preemption=preemption))
    on_scheduler()
    attempts = engine.schedule(sched, plan)
    return SideRun(side, sched, attempts, notes=notes)


def check_side(
    state: ClusterState,
    side: Side,
    docs: list[Document],
    *,
    preemption: bool = True,
    on_scheduler: Callable[[], None] = _nothing,
) -> SideRun:
    """One side of a diff of workloads (--check), placed as `kwhatif check` places them."""
    from kwhatif.config.options import Options
    from kwhatif.whatif.check import check as run_check

    def factory(st: ClusterState) -> Scheduler:
        sched = Scheduler(st, side.config, options=Options(preemption=preemption, filter_excluded=False))
        on_scheduler()
        return sched

    result, sched = run_check(state, docs, factory, profile=side.profile)
    return SideRun(side, sched, result.attempts, check=result, notes=list(result.notes))


def side_notes(result: DiffResult) -> list[str]:
    """The notes of both sides' runs, each once."""
    return list(dict.fromkeys([*result.before.notes, *result.after.notes]))


def resolve_to_version(flag: str) -> Resolved:
    """--to-scheduler-version's release (ConfigError naming the flag when there is none)."""
    from kwhatif.errors import ConfigError
    from kwhatif.release.versions import resolve

    try:
        return resolve(flag)
    except ValueError as e:
        raise ConfigError(str(e), field="--to-scheduler-version") from None


def to_version(chosen: ChosenVersion, flag: str | None, gates: str | None, to_gates: str | None) -> ChosenVersion:
    """The compared side's release: --to-scheduler-version (``flag``), else the first side's; with
    --to-feature-gates (``to_gates``), else --feature-gates (``gates``)."""
    from kwhatif.release.versions import VersionSource, for_release

    if flag:
        r = resolve_to_version(flag)
        base = ChosenVersion(r.version, VersionSource.FLAG, r.notes)
    else:
        base = dataclasses.replace(chosen, version=for_release(chosen.version.release), notes=())
    from kwhatif.errors import InputError
    from kwhatif.release.featuregates import FeatureGateError

    try:
        return base.with_feature_gates(to_gates if to_gates is not None else gates)
    except FeatureGateError as e:
        flag_name = "--to-feature-gates" if to_gates is not None else "--feature-gates (for --to-scheduler-version)"
        raise InputError(e.message, field=flag_name) from None
