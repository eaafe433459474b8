"""The engine: per pod template, the state and the per-node results kept across cycles.

The Engine is the Framework's CycleCache (kwhatif.framework.runtime): the framework asks it for a
Template when PreFilter starts a cycle. The Template stands in for the PreFilter of
PodTopologySpread and InterPodAffinity (its models answer without walking the cluster, and hand
the plugins their state through the plugins' public hooks), then fills the cycle's filter results
from its cache, refiltering only what changed, then scores the feasible nodes over vectors. Each
step answers "not handled" where it cannot be sure to match a from-scratch evaluation, and the
framework then evaluates from scratch."""

from __future__ import annotations

from collections import Counter
from operator import attrgetter
from typing import Any

import numpy as np

from kwhatif.api.core import Pod, WhenUnsatisfiable
from kwhatif.cache.node_info import NodeInfo, shape
from kwhatif.cache.snapshot import Snapshot
from kwhatif.config.types import LEAST_ALLOCATED, MOST_ALLOCATED
from kwhatif.framework.handle import Nominator
from kwhatif.framework.incremental import BoolArray, IntArray, NodeIndex
from kwhatif.framework.interface import (
    SKIP,
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    PreFilterResult,
    ScorePlugin,
    StateNotFoundError,
    Status,
)
from kwhatif.framework.runtime import Framework, PreFilterFn, PreScoreFn
from kwhatif.framework.types import Filtered, FilterResult, PreFilterRecord, Prioritized
from kwhatif.plugins import dynamic_resources as dra
from kwhatif.plugins import image_locality as il
from kwhatif.plugins import inter_pod_affinity as ipa
from kwhatif.plugins import node_name as nn
from kwhatif.plugins import node_resources_balanced_allocation as nrba
from kwhatif.plugins import node_resources_fit as nrf
from kwhatif.plugins import node_unschedulable as nu
from kwhatif.plugins import pod_topology_spread as pts
from kwhatif.plugins import taint_toleration as tt
from kwhatif.plugins.incremental_scores import (
    ScoreTable,
    balanced_scores,
    default_normalize,
    resource_rows,
    weighted_resource_scores,
)
from kwhatif.plugins.inter_pod_affinity.incremental import (
    AffinityFilterModel,
    AffinityScoreModel,
    has_preferred_terms,
    namespaces_of,
)
from kwhatif.plugins.pod_topology_spread.incremental import SpreadFilterModel, SpreadScoreModel

# Filter plugins whose answer on a node reads only the pod, the node's NodeInfo and state that
# PreFilter derives from the pod alone: kept per node until the node changes.
NODE_FILTERS = frozenset(
    {
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "NodeDeclaredFeatures",
    }
)
# Score plugins of the same kind, with how each normalizes (None: not at all).
NODE_SCORES: dict[str, bool | None] = {
    "TaintToleration": True,  # DefaultNormalizeScore, reversed
    "NodeAffinity": False,  # DefaultNormalizeScore
    "NodeResourcesFit": None,
    "NodeResourcesBalancedAllocation": None,
    "ImageLocality": None,
}
SPREAD = pts.NAME
AFFINITY = ipa.NAME
# DynamicResources: its PreFilter skips a pod without resource claims (and so its Filter), and its
# Score (1.35 on) gives such a pod 0 on every node. A pod with claims is evaluated from scratch
# (what its Filter answers changes with every Reserve of a claim).
DRA = dra.NAME

MAX_TEMPLATES = 8
MAX_NODE_SCORE = 100


def _ours(pl: Any, name: str) -> bool:
    return pl.name == name and type(pl).__module__.startswith("kwhatif.plugins.")


class _Variant:
    """The results of a group's nodes under one answer of PodTopologySpread, with what they add
    to the template's bookkeeping (failing nodes, reasons, errors, feasibility). The aggregates
    leave out the group's dirty members, whose entries here are stale."""

    __slots__ = ("results", "failing_names", "failing", "reasons", "errors", "ok")

    def __init__(self, results: list[FilterResult], names: list[str], members: list[int], dirty: set[int]) -> None:
        self.results = results
        self.failing_names: dict[str, Status] = {}
        self.failing: dict[int, Status] = {}
        self.reasons: dict[str, int] = {}
        self.errors: set[int] = set()
        firsts = [fr.first for fr in results]
        self.ok: BoolArray = np.array([f is None for f in firsts], dtype=np.bool_)
        for i, first in enumerate(firsts):
            if first is None or i in dirty:
                continue
            pos = members[i]
            self.failing_names[names[i]] = first
            self.failing[pos] = first
            for r in first.reasons:
                self.reasons[r] = self.reasons.get(r, 0) + 1
            if first.code is Code.ERROR:
                self.errors.add(pos)

    def drop(self, i: int, name: str, pos: int) -> None:
        """Leave member ``i`` out of the aggregates (it became dirty)."""
        first = self.results[i].first
        if first is None:
            return
        del self.failing_names[name]
        del self.failing[pos]
        reasons = self.reasons
        for r in first.reasons:
            reasons[r] -= 1
        if first.code is Code.ERROR:
            self.errors.discard(pos)

    def take(self, i: int, fr: FilterResult, name: str, pos: int) -> None:
        """Put member ``i`` (dirty until now) back with its result ``fr``."""
        self.results[i] = fr
        first = fr.first
        self.ok[i] = first is None
        if first is None:
            return
        self.failing_names[name] = first
        self.failing[pos] = first
        reasons = self.reasons
        for r in first.reasons:
            reasons[r] = reasons.get(r, 0) + 1
        if first.code is Code.ERROR:
            self.errors.add(pos)


class _Group:
    """A group of nodes (a zone) that takes PodTopologySpread's answers together: its nodes'
    results under the last two answers, so that a flip between them is a few bulk operations.
    Members whose result changed otherwise since (dirty) are handled one by one."""

    __slots__ = ("members", "names", "positions", "rank", "variants", "dirty")

    def __init__(self, members: list[int], names: list[str]) -> None:
        self.members = members
        self.names = names
        self.positions: IntArray = np.array(members, dtype=np.int64)
        self.rank = {pos: i for i, pos in enumerate(members)}
        self.variants: dict[Status, _Variant] = {}
        self.dirty: set[int] = set()

    def touch(self, pos: int) -> None:
        """The node's result changed other than by a flip: its kept results are stale."""
        i = self.rank[pos]
        if i in self.dirty:
            return
        self.dirty.add(i)
        name = self.names[i]
        for v in self.variants.values():
            v.drop(i, name, pos)


# Groups smaller than this flip node by node (_flip), without the kept variants.
_BULK_GROUP = 16


class KnownAnswers:
    """What some filter plugins answer on each node, told over all nodes at once (run_filter_nodes
    calls them only where neither says): ``passes``, per plugin, True where its Filter certainly
    answers a bare Success; ``rejections``, per plugin, the rejection its Filter answers (already
    naming the plugin), None where not known."""

    __slots__ = ("passes", "rejections")

    def __init__(self) -> None:
        self.passes: dict[str, list[bool]] = {}
        self.rejections: dict[str, list[Status | None]] = {}


def _known_answers(fw: Framework, state: CycleState, pod: Pod, infos: list[NodeInfo]) -> KnownAnswers:
    """NodeName passes every node for a pod that names no node, NodeUnschedulable the schedulable
    nodes, TaintToleration the nodes without taints. NodeResourcesFit's answer is told on every
    node when the pod requests no extended resource: a pass where everything it requests fits
    and a pod more is allowed, else its rejection. The other nodes (and plugins) are filtered as
    ever."""
    out = KnownAnswers()
    for pl in fw.filter_plugins:
        if type(pl) is nn.NodeName:
            if not pod.node_name:
                out.passes[pl.name] = [True] * len(infos)
        elif type(pl) is nu.NodeUnschedulable:
            out.passes[pl.name] = [not ni.node.unschedulable for ni in infos]
        elif type(pl) is tt.TaintToleration:
            out.passes[pl.name] = [not ni.node.taints for ni in infos]
        elif type(pl) is nrf.NodeResourcesFit:
            fit = _fit_answers(pl, state, infos)
            if fit is not None:
                out.passes[pl.name], out.rejections[pl.name] = fit
    return out


_FIT_CHECKED = (
    ("milli_cpu", "cpu"),
    ("memory", "memory"),
    ("ephemeral_storage", "ephemeral-storage"),
)
_UNRESOLVABLE_BIT = len(_FIT_CHECKED) + 1


def _fit_answers(
    pl: nrf.NodeResourcesFit, state: CycleState, infos: list[NodeInfo]
) -> tuple[list[bool], list[Status | None]] | None:
    """NodeResourcesFit's Filter on every node, as fits_request decides it (the pod count, then
    cpu, memory and ephemeral-storage): whether it passes, and where not, its rejection (one
    Status per distinct set of lacking resources, shared by the nodes that lack them). None when
    the pod requests extended resources or a value is too large for int64 (each node is then
    filtered)."""
    try:
        req = state.read(nrf.PRE_FILTER_STATE_KEY)
    except StateNotFoundError:
        return None
    if any(req.scalar.values()):
        return None
    n = len(infos)
    try:
        # each node's allocatable and requested, gathered once for every resource
        node_alloc = list(map(_ALLOCATABLE, infos))
        node_used = list(map(_REQUESTED, infos))
        lacking: IntArray = (
            np.fromiter(map(len, map(_PODS, infos)), dtype=np.int64, count=n) + 1
            > np.fromiter(map(_ALLOWED_PODS, node_alloc), dtype=np.int64, count=n)
        ).astype(np.int64)
        for bit, (attr, _) in enumerate(_FIT_CHECKED, 1):
            amount = getattr(req, attr)
            if amount >= 1 << 62:
                return None
            if amount > 0:
                get = attrgetter(attr)
                alloc = np.fromiter(map(get, node_alloc), dtype=np.int64, count=n)
                used = np.fromiter(map(get, node_used), dtype=np.int64, count=n)
                if n and (int(np.abs(alloc).max()) >= 1 << 62 or int(np.abs(used).max()) >= 1 << 62):
                    return None  # alloc - used might overflow
                short = amount > alloc - used
                lacking |= short.astype(np.int64) << bit
                if pl.unresolvable_above_allocatable:
                    lacking |= (short & (amount > alloc)).astype(np.int64) << _UNRESOLVABLE_BIT
    except OverflowError:
        return None
    fits: list[bool] = (lacking == 0).tolist()
    rejections: list[Status | None] = [None] * n
    made: dict[int, Status] = {}
    name = pl.name
    for pos in np.flatnonzero(lacking).tolist():
        sig = int(lacking[pos])
        st = made.get(sig)
        if st is None:
            st = made[sig] = _fit_rejection(sig, name)
        rejections[pos] = st
    return fits, rejections


def _fit_rejection(sig: int, plugin: str) -> Status:
    """The rejection of a _fit_answers signature: bit 0 the pod count, bits 1 to 3 the resources
    of _FIT_CHECKED, the next bit a request above the node's allocatable (unresolvable)."""
    reasons = [nrf.ERR_REASON_TOO_MANY_PODS] if sig & 1 else []
    reasons += [nrf.insufficient(res) for bit, (_, res) in enumerate(_FIT_CHECKED, 1) if sig >> bit & 1]
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if sig >> _UNRESOLVABLE_BIT & 1 else Code.UNSCHEDULABLE
    return Status(code, tuple(reasons), plugin)


_ALLOCATABLE = attrgetter("node.allocatable")
_REQUESTED = attrgetter("requested")
_PODS = attrgetter("pods")
_ALLOWED_PODS = attrgetter("allowed_pod_number")


def _resource_rows(
    state: CycleState, key: Any, infos: list[NodeInfo], resources: Any, balanced: bool
) -> tuple[Any, tuple[IntArray, IntArray]] | None:
    """The PreScore requests under ``key`` and resource_rows of them (None when either is missing)."""
    try:
        reqs = state.read(key)
    except StateNotFoundError:
        return None
    rows = resource_rows(infos, resources, reqs, balanced)
    return None if rows is None else (reqs, rows)


def _bulk_scores(pl: ScorePlugin, state: CycleState, pod: Pod, infos: list[NodeInfo]) -> IntArray | None:
    """The raw scores NodeResourcesFit (LeastAllocated, MostAllocated),
    NodeResourcesBalancedAllocation, ImageLocality and TaintToleration give ``infos``, computed over all of them at
    once: each answers what its Score answers node by node. None: score node by node."""
    if type(pl) is nrf.NodeResourcesFit:
        kind = pl.args.scoring_strategy.type
        if kind != LEAST_ALLOCATED and kind != MOST_ALLOCATED:
            return None
        found = _resource_rows(state, nrf.PRE_SCORE_STATE_KEY, infos, pl.resources, False)
        if found is None:
            return None
        alloc, req = found[1]
        return weighted_resource_scores(alloc, req, [r.weight for r in pl.resources], kind == MOST_ALLOCATED)
    if type(pl) is nrba.NodeResourcesBalancedAllocation:
        found = _resource_rows(state, nrba.PRE_SCORE_STATE_KEY, infos, pl.resources, True)
        if found is None:
            return None
        reqs, (alloc, req) = found
        with_pod = balanced_scores(alloc, req)
        if with_pod is None or not pl.with_and_without:
            return with_pod
        without_pod = balanced_scores(alloc, req - np.array(reqs, dtype=np.int64)[:, None])
        if without_pod is None:
            return None
        half = MAX_NODE_SCORE // 2
        out: IntArray = half + (half + with_pod - without_pod) // 2
        return out
    if type(pl) is il.ImageLocality:
        return np.array(pl.scores(pod, infos), dtype=np.int64)
    if type(pl) is tt.TaintToleration:
        try:
            state.read(tt.PRE_SCORE_STATE_KEY)
        except StateNotFoundError:
            return None  # Score reports the missing state
        # a node without taints has none the pod does not tolerate: 0
        score = pl.score
        return np.array([score(state, pod, ni)[0] if ni.node.taints else 0 for ni in infos], dtype=np.int64)
    return None


def _with_status(fr: FilterResult, k: int, st: Status) -> FilterResult:
    """``fr`` with plugin ``k``'s status replaced by ``st``, and the first non-success again."""
    statuses = list(fr.statuses)
    statuses[k] = st
    first = None
    for s in statuses:
        if s.code is not Code.SUCCESS and s.code is not Code.SKIP:
            first = s
            break
    return FilterResult(fr.node, statuses, first)


class Engine:
    """Templates of the pods seen so far (the most recent few), over one snapshot."""

    def __init__(self, snapshot: Snapshot, nominator: Nominator) -> None:
        self.index = NodeIndex(snapshot)
        self.nominator = nominator
        self.templates: list[Template] = []
        # cycles filtered and scored by templates, and full filter passes (first cycles, resets)
        self.stats: Counter[str] = Counter()
        # Node order is name order (the snapshot sorts); the score tables rely on it.
        self.ordered = self.index.names == sorted(self.index.names)

    def template_for(self, fw: Framework, pod: Pod) -> Template | None:
        """The template of this pod, caught up with the snapshot; None: evaluate from scratch."""
        if (
            not self.ordered
            or pod.nominated_node_name
            or pod.resource_claims
            or any(v.kind == "ephemeral" for v in pod.volumes)
        ):
            return None
        self.index.sync()
        key = shape(pod)
        for i, t in enumerate(self.templates):
            if t.fw is fw and t.shape == key:
                if i:
                    self.templates.insert(0, self.templates.pop(i))
                t.sync()
                return t
        t = Template(self, fw, key)
        self.templates.insert(0, t)
        del self.templates[MAX_TEMPLATES:]
        return t


class Template:
    """Everything kept for the replicas of one pod template under one profile."""

    def __init__(self, engine: Engine, fw: Framework, shape: Pod) -> None:
        self.engine = engine
        self.index = engine.index
        self.fw = fw
        self.shape = shape
        self.cursor = len(self.index.changes)
        self.node_version = self.index.node_version
        spread = fw.plugins.get(SPREAD)
        self.spread = spread if isinstance(spread, pts.PodTopologySpread) else None
        affinity = fw.plugins.get(AFFINITY)
        self.affinity = affinity if isinstance(affinity, ipa.InterPodAffinity) else None
        self.filter_ok, self.score_ok = self._classify()
        self._reset()

    def _classify(self) -> tuple[bool, bool]:
        """Whether the profile's plugins are ones the engine knows (filters, then scores)."""
        fw = self.fw
        pre_filter = {pl.name for pl in fw.pre_filter_plugins}
        filters = {pl.name for pl in fw.filter_plugins}
        filter_ok = True
        for name, special in ((SPREAD, self.spread), (AFFINITY, self.affinity)):
            # The models stand in for PreFilter, and Filter reads what they write: both or neither.
            if (name in pre_filter) != (name in filters) or ((name in filters) and special is None):
                filter_ok = False
        pre_score = {pl.name for pl in fw.pre_score_plugins}
        score_ok = True
        self.known_scores: set[str] = set()
        for pl in fw.score_plugins:
            if pl.name in (SPREAD, AFFINITY):
                ours = self.spread if pl.name == SPREAD else self.affinity
                if ours is None or pl.name not in pre_score:
                    score_ok = False
            elif pl.name == DRA and _ours(pl, DRA):
                pass  # scores 0 for the pods it sees (DynamicResourcesScoring.scores_zero_everywhere)
            elif not _ours(pl, pl.name) or pl.name not in NODE_SCORES:
                continue  # fine as long as its PreScore skips it
            elif NODE_SCORES[pl.name] is None and type(pl).normalize_score is not ScorePlugin.normalize_score:
                continue
            self.known_scores.add(pl.name)
        return filter_ok, score_ok

    def _reset(self) -> None:
        n = self.index.size
        self.results: dict[str, FilterResult] = {}
        self.built = False
        self.stale: set[int] = set()
        self.nominated: set[str] = set()
        self.static_skip: frozenset[str] = frozenset()
        self.skip_prev: frozenset[str] = frozenset()
        self.feasible_mask: BoolArray = np.zeros(n, dtype=np.bool_)
        self.failing: dict[int, Status] = {}  # the first failure of every infeasible node
        self.failing_names: dict[str, Status] = {}  # the same by name
        self.errors: set[int] = set()
        self.reasons: dict[str, int] = {}  # reason -> infeasible nodes giving it first
        self.spread_filter: SpreadFilterModel | None = None
        self.affinity_filter: AffinityFilterModel | None = None
        self.spread_score: SpreadScoreModel | None = None
        self.affinity_score: AffinityScoreModel | None = None
        self.raw: dict[str, IntArray] = {}
        self.raw_valid: dict[str, BoolArray] = {}
        # per node, its result under PodTopologySpread's answer before the last _flip
        self.alt: dict[int, FilterResult] = {}
        # one object per distinct answer of PodTopologySpread, so that answers compare by identity
        self.canon: dict[Status, Status] = {}
        # the groups of self.groups_of (a spreading model) whose results are kept per answer
        self.groups: dict[int, _Group] = {}
        self.groups_of: SpreadFilterModel | None = None

    # --- catching up ----------------------------------------------------------------------------

    def sync(self) -> None:
        """Apply the snapshot's changes since the last cycle of this template."""
        index = self.index
        if index.node_version != self.node_version:
            self.node_version = index.node_version
            self.cursor = len(index.changes)
            self._reset()
            return
        changes = index.changes
        end = len(changes)
        if self.cursor == end:
            return
        position = index.position
        for i in range(self.cursor, end):
            ni, pi, sign = changes[i]
            if pi is None:
                continue
            pos = position[ni.name]
            self.stale.add(pos)
            for valid in self.raw_valid.values():
                valid[pos] = False
            if self.spread_filter is not None:
                self.spread_filter.apply(pos, pi.pod, sign)
            if self.affinity_filter is not None:
                self.affinity_filter.apply(pos, pi, sign)
            if self.spread_score is not None:
                self.spread_score.apply(pos, pi.pod, sign)
            if self.affinity_score is not None:
                self.affinity_score.apply(pos, pi, sign)
        self.cursor = end

    # --- PreFilter ------------------------------------------------------------------------------

    def pre_filter_substitutes(self) -> dict[str, PreFilterFn]:
        if not self.filter_ok:
            return {}
        out: dict[str, PreFilterFn] = {}
        if self.spread is not None:
            out[SPREAD] = self._spread_pre_filter
        if self.affinity is not None:
            out[AFFINITY] = self._affinity_pre_filter
        return out

    def _spread_pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        assert isinstance(self.spread, pts.PodTopologySpread)
        constraints = tuple(self.spread.constraints_for(pod, WhenUnsatisfiable.DO_NOT_SCHEDULE))
        if not constraints:
            return None, SKIP
        m = self.spread_filter
        if m is None or m.constraints != constraints:
            m = self.spread_filter = SpreadFilterModel(self.index, pod, constraints)
        self.spread.write_pre_filter_state(state, m.state())
        return None, SUCCESS

    def _affinity_pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]:
        pl = self.affinity
        assert isinstance(pl, ipa.InterPodAffinity)
        m = self.affinity_filter
        if m is None or (m.namespace_dependent and m.namespaces != namespaces_of(pl)):
            m = self.affinity_filter = AffinityFilterModel(pl, self.index, pod)
        if m.skip():
            return None, SKIP
        s = m.state()
        s.pod = pod
        pl.write_pre_filter_state(state, s)
        return None, SUCCESS

    # --- Filter ---------------------------------------------------------------------------------

    def filter_nodes(self, state: CycleState, pod: Pod, pre: PreFilterRecord) -> Filtered | None:
        """Every node's filter result for this cycle (node order), the infeasible nodes' statuses
        (in node order when none is feasible or one failed with an error) and the first error.
        None when this cycle must be filtered from scratch."""
        if not self.filter_ok or (pre.result is not None and not pre.result.all_nodes()):
            return None
        fw = self.fw
        skip = state.skip_filter_plugins
        for pl in fw.filter_plugins:
            name = pl.name
            if name in skip or name in NODE_FILTERS and _ours(pl, name):
                continue
            if name == SPREAD and pl is self.spread or name == AFFINITY and pl is self.affinity:
                continue
            return None  # a plugin whose answer may depend on more than the node
        index = self.index
        infos = index.infos
        nominated_now = {name for name, pis in self.engine.nominator.by_node.items() if pis}
        static_skip = skip - {SPREAD, AFFINITY}
        self.engine.stats["filtered"] += 1
        if not self.built or static_skip != self.static_skip:
            self.engine.stats["full"] += 1
            self._filter_all(state, pod, nominated_now)
            self.built = True
            self.static_skip = static_skip
            if self.spread_filter is not None:
                self.spread_filter.take_affected()
                self.spread_filter.group_status = {}
            if self.affinity_filter is not None:
                self.affinity_filter.take_affected()
        else:
            refresh = set(self.stale)
            for name in nominated_now | self.nominated:
                at = index.position.get(name)
                if at is not None:
                    refresh.add(at)
            for pos in sorted(refresh):
                self._set(pos, fw.run_filter_with_nominated_pods(state, pod, infos[pos]))
            for k, pl in enumerate(fw.filter_plugins):
                if pl.name == SPREAD and self.spread_filter is not None:
                    self._splice_spread(k, pl, state, pod, skip, self.spread_filter, refresh)
                elif pl.name == AFFINITY and self.affinity_filter is not None:
                    self._splice(k, pl, state, pod, skip, self.affinity_filter.take_affected(), refresh)
                elif pl.name in (SPREAD, AFFINITY) and (pl.name in skip) != (pl.name in self.skip_prev):
                    self._splice(k, pl, state, pod, skip, None, refresh)
        self.stale.clear()
        self.nominated = nominated_now
        self.skip_prev = skip
        feasible_names: list[str] = index.names_np[self.feasible_mask].tolist()
        reasons = {r: n for r, n in self.reasons.items() if n > 0}
        error = self.failing[min(self.errors)] if self.errors else None
        if not feasible_names or error is not None:
            names = index.names
            statuses = {names[p]: self.failing[p] for p in sorted(self.failing)}
        else:
            statuses = self.failing_names.copy()
        return Filtered(dict(self.results), feasible_names, reasons, statuses, error)

    def _filter_all(self, state: CycleState, pod: Pod, nominated: set[str]) -> None:
        """Filter every node (the first cycle of a template): what _set does per node, in bulk."""
        infos = self.index.infos
        results: dict[str, FilterResult] = {}
        failing: dict[int, Status] = {}
        failing_names: dict[str, Status] = {}
        reasons: dict[str, int] = {}
        errors: set[int] = set()
        known = _known_answers(self.fw, state, pod, infos)
        for pos, fr in enumerate(
            self.fw.run_filter_nodes(state, pod, infos, nominated, passes=known.passes, rejections=known.rejections)
        ):
            name = fr.node
            results[name] = fr
            first = fr.first
            if first is not None:
                failing[pos] = first
                failing_names[name] = first
                for r in first.reasons:
                    reasons[r] = reasons.get(r, 0) + 1
                if first.code is Code.ERROR:
                    errors.add(pos)
        mask: BoolArray = np.ones(self.index.size, dtype=np.bool_)
        mask[list(failing)] = False
        self.results, self.failing, self.failing_names = results, failing, failing_names
        self.reasons, self.errors, self.feasible_mask = reasons, errors, mask
        self.alt = {}
        self.groups = {}

    def _set(self, pos: int, fr: FilterResult) -> None:
        name = self.index.names[pos]
        self.alt.pop(pos, None)  # built on the node's other answers, which may change now
        if self.groups:
            m = self.groups_of
            assert m is not None
            group = self.groups.get(int(m.group_of[pos]))
            if group is not None:
                group.touch(pos)
        known = name in self.results
        self.results[name] = fr
        first = fr.first
        old = self.failing.get(pos)
        if known and old is first:
            return  # same verdict, same first failure
        reasons = self.reasons
        if old is not None:
            del self.failing[pos]
            del self.failing_names[name]
            for r in old.reasons:
                reasons[r] -= 1
            if old.code is Code.ERROR:
                self.errors.discard(pos)
        if first is None:
            self.feasible_mask[pos] = True
        else:
            self.feasible_mask[pos] = False
            self.failing[pos] = first
            self.failing_names[name] = first
            for r in first.reasons:
                reasons[r] = reasons.get(r, 0) + 1
            if first.code is Code.ERROR:
                self.errors.add(pos)

    def _splice(
        self,
        k: int,
        pl: FilterPlugin,
        state: CycleState,
        pod: Pod,
        skip: frozenset[str],
        affected: set[int] | None,
        done: set[int],
    ) -> None:
        """Re-run one plugin's Filter on the nodes whose answer may have changed, keeping the
        other plugins' answers. A plugin that went from skipped to run (or back) touches all."""
        was_skipped, skipped = pl.name in self.skip_prev, pl.name in skip
        if was_skipped != skipped:
            affected = None
        elif skipped:
            return
        fw = self.fw
        infos = self.index.infos
        positions = range(len(infos)) if affected is None else sorted(affected)
        for pos in positions:
            if pos not in done:
                self._replace(pos, k, fw.run_filter_plugin(pl, state, pod, infos[pos]))

    def _splice_spread(
        self,
        k: int,
        pl: FilterPlugin,
        state: CycleState,
        pod: Pod,
        skip: frozenset[str],
        m: SpreadFilterModel,
        done: set[int],
    ) -> None:
        """_splice for PodTopologySpread, whose answer is the same for every node of a group
        (nodes with the same values of the constraints' keys): each group is filtered once and
        only the nodes of groups whose answer changed are touched (_flip)."""
        affected = m.take_affected_groups()
        was_skipped, skipped = pl.name in self.skip_prev, pl.name in skip
        if was_skipped != skipped:
            m.group_status = {}  # the nodes' answers are Skip, or not yet this plugin's
            affected = None
        if skipped:
            if was_skipped != skipped:
                self._splice(k, pl, state, pod, skip, None, done)
            return
        groups = range(len(m.representative)) if affected is None else sorted(affected)
        infos = self.index.infos
        canon = self.canon
        if self.groups_of is not m:
            self.groups, self.groups_of = {}, m
        for g in groups:
            st = self.fw.run_filter_plugin(pl, state, pod, infos[m.representative[g]])
            st = canon.setdefault(st, st)
            old = m.group_status.get(g)
            if old is st:
                continue
            m.group_status[g] = st
            members = m.member_list(g)
            if old is None or len(members) < _BULK_GROUP:
                self._flip(k, members, st, old, done)
            else:
                self._flip_group(k, g, members, st, old, done)

    def _flip_group(self, k: int, g: int, members: list[int], st: Status, old: Status, done: set[int]) -> None:
        """_flip for a big group whose answer goes from ``old`` to ``st``: when the results of
        both answers are kept (_Group), the clean members move over in bulk and only the dirty
        ones one by one; otherwise node by node, keeping both for the next time."""
        group = self.groups.get(g)
        results = self.results
        if group is None or old not in group.variants or st not in group.variants:
            if group is None:
                group = self.groups[g] = _Group(members, self.index.names_np[members].tolist())
            before = list(map(results.__getitem__, group.names))
            self._flip(k, members, st, old, done)
            after = list(map(results.__getitem__, group.names))
            rank = group.rank
            # kept only for the nodes that answered ``old`` before and ``st`` now
            dirty = {rank[pos] for pos in done if pos in rank}
            for i, (a, b) in enumerate(zip(before, after)):
                if a.statuses[k] != old or b.statuses[k] != st:
                    dirty.add(i)
            group.dirty = dirty
            group.variants = {
                old: _Variant(before, group.names, members, dirty),
                st: _Variant(after, group.names, members, dirty),
            }
            return
        src, dst = group.variants[old], group.variants[st]
        names = group.names
        saved = [(i, results[names[i]]) for i in group.dirty]
        results.update(zip(names, dst.results))
        failing, failing_names, reasons = self.failing, self.failing_names, self.reasons
        for name in src.failing_names:
            del failing_names[name]
        for pos in src.failing:
            del failing[pos]
        failing_names.update(dst.failing_names)
        failing.update(dst.failing)
        for r, n in src.reasons.items():
            reasons[r] -= n
        for r, n in dst.reasons.items():
            reasons[r] = reasons.get(r, 0) + n
        self.errors -= src.errors
        self.errors |= dst.errors
        mask = self.feasible_mask
        mask[group.positions] = dst.ok
        if not saved:
            return
        # the dirty members: back to their own results, then flipped one by one
        for i, fr in saved:
            results[names[i]] = fr
            mask[members[i]] = fr.first is None
        self._flip(k, [members[i] for i, _ in saved], st, old, done)
        if len(group.variants) != 2:
            return
        for i, fr in saved:
            pos = members[i]
            now = results[names[i]]
            if pos in done or fr.statuses[k] != old or now.statuses[k] != st:
                continue
            group.dirty.discard(i)
            src.take(i, fr, names[i], pos)
            dst.take(i, now, names[i], pos)

    def _flip(self, k: int, members: list[int], st: Status, old: Status | None, done: set[int]) -> None:
        """Put one plugin's new answer ``st`` (the same for all) into the results of ``members``
        (but those in ``done``), which answered ``old`` (None: not known). What _replace and _set
        do per node, with the result each node had under its previous answer kept (self.alt):
        answers that flip back and forth (a zone whose spreading becomes satisfiable again when
        the minimum moves) find the result already built."""
        names = self.index.names
        results, alt = self.results, self.alt
        failing, failing_names, reasons, errors = self.failing, self.failing_names, self.reasons, self.errors
        now_ok: list[int] = []
        now_bad: list[int] = []
        error_code = Code.ERROR
        for pos in members:
            if pos in done:
                continue
            name = names[pos]
            fr = results[name]
            cur = fr.statuses[k]
            if cur is st or (cur is not old and cur == st):
                continue
            a = alt.get(pos)
            if a is None or a.statuses[k] is not st:
                a = _with_status(fr, k, st)
            alt[pos] = fr
            results[name] = a
            was, now = fr.first, a.first
            if was is now:
                continue
            if was is not None:
                for r in was.reasons:
                    reasons[r] -= 1
                if was.code is error_code:
                    errors.discard(pos)
            if now is None:
                del failing[pos]
                del failing_names[name]
                now_ok.append(pos)
                continue
            failing[pos] = now
            failing_names[name] = now
            for r in now.reasons:
                reasons[r] = reasons.get(r, 0) + 1
            if now.code is error_code:
                errors.add(pos)
            if was is None:
                now_bad.append(pos)
        if now_ok:
            self.feasible_mask[now_ok] = True
        if now_bad:
            self.feasible_mask[now_bad] = False

    def _replace(self, pos: int, k: int, st: Status) -> None:
        """Put one plugin's new answer into a node's result."""
        fr = self.results[self.index.names[pos]]
        if fr.statuses[k] == st:
            return
        self._set(pos, _with_status(fr, k, st))

    # --- PreScore and Score ---------------------------------------------------------------------

    def _pre_score_substitutes(self) -> dict[str, PreScoreFn]:
        out: dict[str, PreScoreFn] = {}
        if self.spread is not None:
            out[SPREAD] = self._spread_pre_score
        if self.affinity is not None:
            out[AFFINITY] = self._affinity_pre_score
        return out

    def _spread_pre_score(self, state: CycleState, pod: Pod, nodes: list[Any]) -> Status:
        pl = self.spread
        assert isinstance(pl, pts.PodTopologySpread)
        if not self.index.infos:
            return SKIP
        require_all = bool(pod.topology_spread_constraints) or not pl.system_defaulted
        constraints = tuple(pl.constraints_for(pod, WhenUnsatisfiable.SCHEDULE_ANYWAY))
        if not constraints:
            return SKIP
        m = self.spread_score
        if m is None or m.constraints != constraints or m.require_all != require_all:
            self.spread_score = SpreadScoreModel(self.index, pod, constraints, require_all)
        return SUCCESS

    def _affinity_pre_score(self, state: CycleState, pod: Pod, nodes: list[Any]) -> Status:
        pl = self.affinity
        assert isinstance(pl, ipa.InterPodAffinity)
        if not nodes:
            return SKIP
        if pl.args.ignore_preferred_terms_of_existing_pods and not has_preferred_terms(pod):
            return SKIP
        m = self.affinity_score
        if m is None or (m.namespace_dependent and m.namespaces != namespaces_of(pl)):
            m = self.affinity_score = AffinityScoreModel(pl, self.index, pod)
        if not m.contributed:
            return SKIP
        return SUCCESS

    def prioritize(
        self, state: CycleState, pod: Pod, fast_path: bool, feasible: list[str], names: list[str]
    ) -> Prioritized | None:
        """Score the feasible nodes (``names``, node order) of a cycle filtered by filter_nodes;
        None when the scheduler must score from scratch."""
        fw = self.fw
        if not self.score_ok or fast_path or len(feasible) <= 1 or not fw.has_score_plugins():
            return None
        idx: IntArray = np.flatnonzero(self.feasible_mask)
        if len(idx) != len(feasible):
            return None
        nodes = self.index.infos_np[idx].tolist()
        st = fw.run_pre_score(state, pod, nodes, self._pre_score_substitutes())
        if not st.is_success():
            return None
        skipped = state.skip_score_plugins
        plugins = [pl for pl in fw.score_plugins if pl.name not in skipped]
        if any(pl.name not in self.known_scores and pl.name not in (SPREAD, AFFINITY) for pl in plugins):
            return None
        raws: list[IntArray] = []
        norms: list[IntArray] = []
        for pl in plugins:
            name = pl.name
            if name == SPREAD:
                assert self.spread_score is not None
                raw, norm = self.spread_score.scores(idx)
            elif name == AFFINITY:
                assert self.affinity_score is not None
                raw, norm = self.affinity_score.scores(idx)
            elif name == DRA:
                if not (isinstance(pl, dra.DynamicResourcesScoring) and pl.scores_zero_everywhere(state)):
                    return None
                raw = norm = np.zeros(len(idx), dtype=np.int64)
            else:
                got = self._node_raw(pl, state, pod, idx)
                if got is None:
                    return None
                raw = got
                reverse = NODE_SCORES[name]
                norm = raw if reverse is None else default_normalize(raw, reverse)
            if len(norm) and (int(norm.max()) > MAX_NODE_SCORE or int(norm.min()) < 0):
                return None  # the range error is reported by the from-scratch path
            raws.append(raw)
            norms.append(norm)
        self.engine.stats["scored"] += 1
        weights = [fw.score_weights[pl.name] for pl in plugins]
        f = len(idx)
        if plugins:
            raw_m = np.vstack(raws)
            norm_m = np.vstack(norms)
            totals = (norm_m * np.array(weights, dtype=np.int64)[:, None]).sum(axis=0)
        else:
            raw_m = norm_m = np.zeros((0, f), dtype=np.int64)
            totals = np.zeros(f, dtype=np.int64)
        best = int(totals.max())
        return Prioritized(
            best=[names[i] for i in np.flatnonzero(totals == best).tolist()],
            scores=ScoreTable(names, [pl.name for pl in plugins], weights, raw_m, norm_m, totals),
            best_score=best,
            upstream_scored=True,
            skipped_score_plugins=skipped,
        )

    def _node_raw(self, pl: ScorePlugin, state: CycleState, pod: Pod, idx: IntArray) -> IntArray | None:
        """The plugin's raw score of each node at ``idx``, computed only for nodes changed since."""
        name = pl.name
        raw = self.raw.get(name)
        valid = self.raw_valid.get(name)
        if raw is None or valid is None:
            raw = self.raw[name] = np.zeros(self.index.size, dtype=np.int64)
            valid = self.raw_valid[name] = np.zeros(self.index.size, dtype=np.bool_)
        missing = idx[~valid[idx]]
        bulk = _bulk_scores(pl, state, pod, self.index.infos_np[missing].tolist()) if len(missing) > 1 else None
        if bulk is not None:
            raw[missing] = bulk
            valid[missing] = True
        elif len(missing):
            score = pl.score
            try:
                got = [score(state, pod, ni) for ni in self.index.infos_np[missing].tolist()]
            except KeyError:
                return None
            if any(st.code is not Code.SUCCESS for _, st in got):
                return None  # the from-scratch path reports the failure
            raw[missing] = [s for s, _ in got]
            valid[missing] = True
        out: IntArray = raw[idx]
        return out
