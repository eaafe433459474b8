"""The framework runtime (pkg/scheduler/framework/runtime/framework.go) over a profile.

``Framework(registry, profile, snapshot=..., cluster=..., ...)`` is NewFramework: it builds each
plugin the profile enables from the registry's factory, handing it the framework itself as its
Handle. It builds the ordered plugin list of every extension point exactly as NewFramework does (explicit
sets, multiPoint expansion, overrides, score weights with the int64 overflow guard) and runs the
extension points. Unlike upstream, Filter can evaluate every plugin on a node so that all reasons
are known; ``FilterResult.first`` is what upstream would have reported.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from kwhatif.api.core import Pod
from kwhatif.cache.node_info import NodeInfo, PodInfo, pod_id
from kwhatif.config.types import PluginSet, Profile
from kwhatif.errors import ConfigError
from kwhatif.framework.handle import ClusterListers, Handle, Nominator
from kwhatif.framework.interface import (
    EXTENSION_POINTS,
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    SUCCESS,
    Binder,
    BindPlugin,
    Code,
    CycleState,
    FilterPlugin,
    NodeScore,
    PermitPlugin,
    Placement,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    StateKey,
    Status,
)
from kwhatif.framework.types import Filtered, FilterResult, NodeScores, PluginScore, PreFilterRecord, Prioritized
from kwhatif.gocompat import wrap_int64 as _wrap_int64
from kwhatif.release.versions import SchedulerVersion, default_version

if TYPE_CHECKING:
    from kwhatif.cache.snapshot import Snapshot

# The order in which NewFramework walks the extension points (getExtensionPoints): it decides
# which error a broken profile reports first.
_BUILD_ORDER = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
    "placementGenerate",
    "placementScore",
)
_POINT_TYPES = dict(EXTENSION_POINTS)


_SUCCESS_BY_PLUGIN: dict[str, Status] = {}


_SKIP_BY_PLUGIN: dict[str, Status] = {}

# A stand-in for one plugin's PreFilter or PreScore: same arguments, same result.
PreFilterFn = Callable[[CycleState, Pod], tuple[PreFilterResult | None, Status]]
PreScoreFn = Callable[[CycleState, Pod, list[NodeInfo]], Status]

# runtime.PluginFactory and runtime.Registry: new(args, handle) for each plugin name; args are the
# plugin's decoded arguments from the profile (None when it gives none).
PluginFactory = Callable[[Any, Handle], Plugin]
Registry = Mapping[str, PluginFactory]


class TemplateCache(Protocol):
    """What the per-template cache (kwhatif.incremental) keeps for the pods of one template
    under this profile. Each answer is exactly the from-scratch one, or None: not handled, the
    framework evaluates from scratch."""

    def pre_filter_substitutes(self) -> Mapping[str, PreFilterFn]:
        """Stand-ins for some plugins' PreFilter (state kept up to date instead of recounted)."""
        ...

    def filter_nodes(self, state: CycleState, pod: Pod, pre: PreFilterRecord) -> Filtered | None:
        """Every node's filter result for this cycle."""
        ...

    def prioritize(
        self, state: CycleState, pod: Pod, fast_path: bool, feasible: list[str], names: list[str]
    ) -> Prioritized | None:
        """The feasible nodes' scores for a cycle filter_nodes answered."""
        ...


class CycleCache(Protocol):
    """The work kept across scheduling cycles, per pod template (kwhatif.incremental.Engine)."""

    def template_for(self, fw: Framework, pod: Pod) -> TemplateCache | None:
        """The pod's template, caught up with the snapshot; None: evaluate from scratch."""
        ...


# The cycle's template, found by run_pre_filter and read by the later extension points.
_TEMPLATE_KEY: StateKey[TemplateCache] = StateKey("kwhatif/template")


def _success_of(plugin: str) -> Status:
    """A shared Success status naming the plugin (statuses are immutable)."""
    st = _SUCCESS_BY_PLUGIN.get(plugin)
    if st is None:
        st = _SUCCESS_BY_PLUGIN[plugin] = Status(Code.SUCCESS, (), plugin)
    return st


def skip_of(plugin: str) -> Status:
    """A shared Skip status naming the plugin: what Filter records for a plugin PreFilter skipped."""
    st = _SKIP_BY_PLUGIN.get(plugin)
    if st is None:
        st = _SKIP_BY_PLUGIN[plugin] = Status(Code.SKIP, (), plugin)
    return st


# a filter plugin of a plan: its place among the statuses, itself, its name, the nodes it is
# known to pass and the rejections it is known to answer (see run_filter_nodes)
_PlannedFilter = tuple[int, FilterPlugin, str, Sequence[bool] | None, Sequence[Status | None] | None]


def _filter_node(
    state: CycleState,
    pod: Pod,
    node_info: NodeInfo,
    passed: list[Status],
    filters: list[_PlannedFilter],
    k: int,
    all_plugins: bool,
) -> FilterResult:
    """One node's filter statuses by a plan (``k``: the node's place in the known passes)."""
    statuses = passed.copy()
    first: Status | None = None
    for i, pl, name, passing, rejections in filters:
        if passing is not None and passing[k]:
            continue
        st = rejections[k] if rejections is not None else None  # a known rejection names its plugin
        if st is None:
            st = pl.filter(state, pod, node_info)
            if st.code is Code.SUCCESS:
                if st.details or st.allocations:
                    statuses[i] = st.with_plugin(name)
                continue
            if not st.is_rejected():
                st = Status(Code.ERROR, (f'running "{name}" filter plugin: {st.message()}',), name)
            else:
                st = st.with_plugin(name)
        statuses[i] = st
        if first is None:
            first = st
            if not all_plugins:
                del statuses[i + 1 :]
                break
    return FilterResult(node_info.name, statuses, first)


class Framework:
    """frameworkImpl: one profile's plugins, run at each extension point. It is the Handle its
    plugins are given (kwhatif.framework.handle.Handle)."""

    def __init__(
        self,
        registry: Registry,
        profile: Profile,
        *,
        snapshot: Snapshot,
        cluster: ClusterListers,
        nominator: Nominator | None = None,
        binder: Binder | None = None,
        version: SchedulerVersion | None = None,
        cache: CycleCache | None = None,
    ) -> None:
        """``cache`` keeps work across cycles (kwhatif.incremental.Engine); without it every
        cycle is evaluated from scratch."""
        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.snapshot = snapshot
        self.cluster = cluster
        self.nominator = nominator if nominator is not None else Nominator()
        self.binder = binder
        self.version = version if version is not None else default_version()
        self.plugins: dict[str, Plugin] = {}
        self.points: dict[str, list[Plugin]] = {p: [] for p, _ in EXTENSION_POINTS}
        self.score_weights: dict[str, int] = {}
        self.placement_score_weights: dict[str, int] = {}
        self.registry = registry
        self.cache = cache
        self._build()
        # One typed list per extension point, in the order they run (_build checked each
        # plugin's type; isinstance on ABCs would be slow per node).
        self.pre_enqueue_plugins: list[PreEnqueuePlugin] = self._typed("preEnqueue")
        self.queue_sort_plugins: list[QueueSortPlugin] = self._typed("queueSort")
        self.pre_filter_plugins: list[PreFilterPlugin] = self._typed("preFilter")
        self.filter_plugins: list[FilterPlugin] = self._typed("filter")
        self.post_filter_plugins: list[PostFilterPlugin] = self._typed("postFilter")
        self.pre_score_plugins: list[PreScorePlugin] = self._typed("preScore")
        self.score_plugins: list[ScorePlugin] = self._typed("score")
        self.reserve_plugins: list[ReservePlugin] = self._typed("reserve")
        self.permit_plugins: list[PermitPlugin] = self._typed("permit")
        self.pre_bind_plugins: list[PreBindPlugin] = self._typed("preBind")
        self.bind_plugins: list[BindPlugin] = self._typed("bind")
        self.post_bind_plugins: list[PostBindPlugin] = self._typed("postBind")
        self.placement_generate_plugins: list[PlacementGeneratePlugin] = self._typed("placementGenerate")
        self.placement_score_plugins: list[PlacementScorePlugin] = self._typed("placementScore")
        self._filter_plans: dict[frozenset[str], tuple[list[Status], list[_PlannedFilter]]] = {}

    # --- construction ---------------------------------------------------------------------------

    def _typed(self, point: str) -> list[Any]:
        """The extension point's plugins, of the type _build checked them to be."""
        return list(self.points[point])

    def _err(self, msg: str) -> ConfigError:
        return ConfigError(msg, obj=f'profile "{self.profile_name}"')

    def _build(self) -> None:
        prof = self.profile
        needed: set[str] = set()
        for ps in prof.plugins.values():
            needed.update(r.name for r in ps.enabled)
        for name in sorted(needed):
            fac = self.registry.get(name) if self.version.plugin_registered(name) else None
            if fac is None:
                continue  # reported below as "does not exist", where upstream reports it
            try:
                self.plugins[name] = fac(prof.plugin_config.get(name), self)
            except ConfigError as e:
                # frameworkImpl wraps the constructor's error whole: its field path comes after the
                # plugin's name, as upstream prints it
                raise ConfigError(
                    f'initializing plugin "{name}": {e.render()}', obj=f'profile "{self.profile_name}"'
                ) from None
        multi = prof.plugins.get("multiPoint")
        for point in _BUILD_ORDER:
            ptype = _POINT_TYPES[point]
            pset = prof.plugins.get(point)
            seen: set[str] = set()
            lst: list[Plugin] = []
            for ref in pset.enabled if pset else ():
                pg = self.plugins.get(ref.name)
                if pg is None:
                    raise self._err(f'{ptype.__name__} "{ref.name}" does not exist')
                if not isinstance(pg, ptype):
                    raise self._err(f'plugin "{ref.name}" does not extend {ptype.__name__} plugin')
                if ref.name in seen:
                    raise self._err(f'plugin "{ref.name}" already registered as "{ptype.__name__}"')
                seen.add(ref.name)
                lst.append(pg)
            self.points[point] = lst
        if multi is not None and multi.enabled:
            self._expand_multi_point()
        if len(self.points["queueSort"]) != 1:
            raise self._err(
                f'only one queue sort plugin required for profile with scheduler name "{self.profile_name}", '
                f"but got {len(self.points['queueSort'])}"
            )
        if not self.points["bind"]:
            raise self._err(f'at least one bind plugin is needed for profile with scheduler name "{self.profile_name}"')
        if len(self.points["placementGenerate"]) > 1:
            raise self._err(
                "at most one placement generate plugin is allowed for profile with scheduler name "
                f'"{self.profile_name}"'
            )
        score_set = prof.plugins.get("score")
        refs = list(score_set.enabled if score_set else ()) + list(multi.enabled if multi else ())
        total = 0
        for ref in refs:
            pg = self.plugins.get(ref.name)
            if not isinstance(pg, ScorePlugin) or ref.name in self.score_weights:
                continue
            w = ref.weight or 0
            if w == 0:
                w = 1
            self.score_weights[ref.name] = w
            # weight*MaxNodeScore > MaxTotalScore-totalPriority, in int64 arithmetic
            if _wrap_int64(w * MAX_NODE_SCORE) > _wrap_int64(MAX_TOTAL_SCORE - total):
                raise self._err("total score of Score plugins could overflow")
            total = _wrap_int64(total + w * MAX_NODE_SCORE)
        for pl in self.points["score"]:
            if self.score_weights.get(pl.name, 0) == 0:
                raise self._err(f'score plugin "{pl.name}" is not configured with weight')
        self._placement_score_weights(multi)

    def _placement_score_weights(self, multi: PluginSet | None) -> None:
        """getValidScoreWeights for PlacementScore plugins (framework.go of v1.36.2): a weight
        left out is 1; the total may not overflow."""
        pset = self.profile.plugins.get("placementScore")
        refs = list(pset.enabled if pset else ()) + list(multi.enabled if multi else ())
        total = 0
        for ref in refs:
            pg = self.plugins.get(ref.name)
            if not isinstance(pg, PlacementScorePlugin) or ref.name in self.placement_score_weights:
                continue
            w = ref.weight or 1
            self.placement_score_weights[ref.name] = w
            if _wrap_int64(w * MAX_NODE_SCORE) > _wrap_int64(MAX_TOTAL_SCORE - total):
                raise self._err("placement score plugins: total score of Score plugins could overflow")
            total = _wrap_int64(total + w * MAX_NODE_SCORE)

    def _expand_multi_point(self) -> None:
        prof = self.profile
        multi = prof.plugins["multiPoint"]
        for point in _BUILD_ORDER:
            ptype = _POINT_TYPES[point]
            ps = prof.plugins.get(point)
            enabled = [r.name for r in ps.enabled] if ps else []
            disabled = set(ps.disabled) if ps else set()
            if "*" in disabled:
                continue
            multi_enabled: list[str] = []
            overrides: set[str] = set()
            for ref in multi.enabled:
                pg = self.plugins.get(ref.name)
                if pg is None:
                    raise self._err(f'{ptype.__name__} "{ref.name}" does not exist')
                if not isinstance(pg, ptype):
                    continue
                if ref.name in disabled:
                    continue
                if ref.name in enabled:
                    overrides.add(ref.name)
                    continue
                if ref.name in multi_enabled:
                    raise self._err(f'plugin "{ref.name}" already registered as "{ptype.__name__}"')
                multi_enabled.append(ref.name)
            order = [n for n in enabled if n in overrides]
            order += multi_enabled
            order += [n for n in enabled if n not in overrides]
            self.points[point] = [self.plugins[n] for n in order]

    # --- Handle ---------------------------------------------------------------------------------

    def namespace_labels(self, name: str) -> dict[str, str]:
        """A namespace missing from the dump still exists where its pods run: it gets the label
        the API server puts on every namespace."""
        return self.cluster.namespace_labels(name)

    # --- introspection --------------------------------------------------------------------------

    def names(self, point: str) -> list[str]:
        return [p.name for p in self.points[point]]

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    # --- the pod-group cycle's placements (1.36) ---------------------------------------------------

    def run_placement_generate(
        self, namespace: str, group: str, nodes: Sequence[str]
    ) -> tuple[list[Placement], Status]:
        """RunPlacementGeneratePlugins: the parent placement (every node) without a generator; a
        generator that generates nothing makes the group Unschedulable."""
        parent = Placement("", tuple(nodes))
        if not self.placement_generate_plugins:
            return [parent], SUCCESS
        pl = self.placement_generate_plugins[0]
        placements, st = pl.generate_placements(namespace, group, parent)
        if not st.is_success():
            return [], st.with_plugin(pl.name)
        if not placements:
            return [], Status(Code.UNSCHEDULABLE, ("no feasible placements found",), pl.name)
        return placements, SUCCESS

    def run_placement_score(
        self, namespace: str, group: str, proposed: Sequence[Mapping[str, str]]
    ) -> tuple[list[int], Status]:
        """RunPlacementScorePlugins: each placement's total of weighted, normalized scores
        (``proposed``: per placement, its members with a node, pod key -> node)."""
        totals = [0] * len(proposed)
        for pl in self.placement_score_plugins:
            scores: list[int] = []
            for p in proposed:
                sc, st = pl.score_placement(namespace, group, p)
                if not st.is_success():
                    return [], Status.error(
                        f'running PlacementScore plugins: plugin "{pl.name}" failed with: {st.message()}'
                    )
                scores.append(sc)
            st = pl.normalize_placement_scores(scores)
            if not st.is_success():
                return [], Status.error(
                    f'running NormalizePlacementScore on PlacementScore plugins: plugin "{pl.name}" failed with: '
                    f"{st.message()}"
                )
            w = self.placement_score_weights[pl.name]
            for i, sc in enumerate(scores):
                if sc > MAX_NODE_SCORE or sc < MIN_NODE_SCORE:
                    return [], Status.error(
                        "applying score defaultWeights on PlacementScore plugins: "
                        f'plugin "{pl.name}" returns an invalid score {sc}, it should in the range of '
                        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                    )
                totals[i] += sc * w
        return totals, SUCCESS

    # --- queue ----------------------------------------------------------------------------------

    def queue_sort(self) -> QueueSortPlugin:
        return self.queue_sort_plugins[0]

    def run_pre_enqueue(self, pod: Pod) -> Status:
        for pl in self.pre_enqueue_plugins:
            st = pl.pre_enqueue(pod)
            if not st.is_success():
                return st.with_plugin(pl.name)
        return SUCCESS

    # --- PreFilter ------------------------------------------------------------------------------

    def run_pre_filter(
        self, state: CycleState, pod: Pod, substitutes: Mapping[str, PreFilterFn] | None = None
    ) -> PreFilterRecord:
        """RunPreFilterPlugins. ``substitutes`` stand in for some plugins' PreFilter (state kept up
        to date across cycles instead of recounted); they must answer exactly as the plugin would.
        With a cache and no substitutes given, the cycle's template is found here (the start of
        every cycle) and gives them."""
        if substitutes is None and self.cache is not None:
            tmpl = self.cache.template_for(self, pod)
            if tmpl is not None:
                state.write(_TEMPLATE_KEY, tmpl)
                substitutes = tmpl.pre_filter_substitutes()
        skipped: set[str] = set()
        result: PreFilterResult | None = None
        statuses: list[Status] = []
        plugins_with_nodes: list[str] = []
        return_status = SUCCESS

        def done(res: PreFilterResult | None, st: Status) -> PreFilterRecord:
            state.skip_filter_plugins = frozenset(skipped)
            return PreFilterRecord(res, st, statuses, frozenset(skipped), plugins_with_nodes)

        for pl in self.pre_filter_plugins:
            fn = substitutes.get(pl.name) if substitutes else None
            r, st = fn(state, pod) if fn is not None else pl.pre_filter(state, pod)
            st = st.with_plugin(pl.name)
            statuses.append(st)
            if st.is_skip():
                skipped.add(pl.name)
                continue
            if not st.is_success():
                if st.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return done(None, st)
                if st.code is Code.UNSCHEDULABLE:
                    return_status = st
                    continue
                return done(
                    None, Status(Code.ERROR, (f'running PreFilter plugin "{pl.name}": {st.message()}',), pl.name)
                )
            if r is not None and not r.all_nodes():
                plugins_with_nodes.append(pl.name)
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                if len(plugins_with_nodes) == 1:
                    msg = f"node(s) didn't satisfy plugin {plugins_with_nodes[0]}"
                else:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(plugins_with_nodes)}] simultaneously"
                return done(result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)))
        return done(result, return_status)

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_pre_filter_extension("AddPod", state, pod, to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_pre_filter_extension("RemovePod", state, pod, to_remove, node_info)

    def _run_pre_filter_extension(
        self, op: str, state: CycleState, pod: Pod, other: PodInfo, node_info: NodeInfo
    ) -> Status:
        """RunPreFilterExtensionAddPod and RunPreFilterExtensionRemovePod: each PreFilter plugin
        not skipped this cycle updates its state for ``other`` added to or removed from the node."""
        add = op == "AddPod"
        for pl in self.pre_filter_plugins:
            if pl.name in state.skip_filter_plugins:
                continue
            ext = pl.pre_filter_extensions()
            if ext is None:
                continue
            st = ext.add_pod(state, pod, other, node_info) if add else ext.remove_pod(state, pod, other, node_info)
            if not st.is_success():
                return Status(Code.ERROR, (f'running {op} on PreFilter plugin "{pl.name}": {st.message()}',), pl.name)
        return SUCCESS

    # --- Filter ---------------------------------------------------------------------------------

    def _filter_plan(self, skip: frozenset[str]) -> tuple[list[Status], list[_PlannedFilter]]:
        """The statuses of a node every filter plugin passes (Skip for those PreFilter skipped),
        and the plugins to run, each with its place in that list (and no known passes)."""
        plan = self._filter_plans.get(skip)
        if plan is None:
            names = [pl.NAME for pl in self.filter_plugins]
            plan = self._filter_plans[skip] = (
                [skip_of(name) if name in skip else _success_of(name) for name in names],
                [
                    (i, pl, name, None, None)
                    for i, (pl, name) in enumerate(zip(self.filter_plugins, names, strict=True))
                    if name not in skip
                ],
            )
        return plan

    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo, *, all_plugins: bool = True) -> FilterResult:
        passed, filters = self._filter_plan(state.skip_filter_plugins)
        return _filter_node(state, pod, node_info, passed, filters, 0, all_plugins)

    def run_filter_nodes(
        self,
        state: CycleState,
        pod: Pod,
        node_infos: list[NodeInfo],
        nominated: Container[str] = (),
        *,
        all_plugins: bool = True,
        passes: Mapping[str, Sequence[bool]] | None = None,
        rejections: Mapping[str, Sequence[Status | None]] | None = None,
    ) -> list[FilterResult]:
        """run_filter of each node (run_filter_with_nominated_pods of those named in
        ``nominated``), the plan looked up once for all of them. ``passes``: per plugin, per node
        of ``node_infos``, True where the plugin's Filter is known to answer a bare Success there
        (it is not called: what it would answer is the plan's Success already). ``rejections``:
        per plugin, per node, the rejection its Filter is known to answer there, naming the
        plugin (None: not known); it is not called there either."""
        passed, filters = self._filter_plan(state.skip_filter_plugins)
        # the nodes every plugin that runs is known to pass: the plan's statuses are theirs
        every: list[bool] | None = None
        if rejections:
            filters = [(i, pl, name, p, rejections.get(name)) for i, pl, name, p, _ in filters]
        if passes:
            filters = [(i, pl, name, passes.get(name), r) for i, pl, name, _, r in filters]
            known = [p for _, _, _, p, _ in filters]
            if known and all(p is not None for p in known):
                every = [all(at) for at in zip(*known)]
        out: list[FilterResult] = []
        for k, node_info in enumerate(node_infos):
            if nominated and node_info.name in nominated:
                out.append(self.run_filter_with_nominated_pods(state, pod, node_info, all_plugins=all_plugins))
            elif every is not None and every[k]:
                out.append(FilterResult(node_info.name, passed.copy(), None))
            else:
                out.append(_filter_node(state, pod, node_info, passed, filters, k, all_plugins))
        return out

    def run_filter_plugin(self, pl: FilterPlugin, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """One plugin's entry in run_filter's statuses, recorded the same way."""
        name = pl.NAME
        if name in state.skip_filter_plugins:
            return skip_of(name)
        st = pl.filter(state, pod, node_info)
        if st.code is Code.SUCCESS:
            return st.with_plugin(name) if st.details or st.allocations else _success_of(name)
        if not st.is_rejected():
            return Status(Code.ERROR, (f'running "{name}" filter plugin: {st.message()}',), name)
        return st.with_plugin(name)

    def run_filter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, *, all_plugins: bool = True
    ) -> FilterResult:
        """RunFilterPluginsWithNominatedPods: first with the nominated pods of equal or higher
        priority added to the node, then, if that passed, without them. A PreFilter extension's
        AddPod error ends there: that Error is the node's status (the cycle fails with it)."""
        added, state_with, info_with, st = self._add_nominated_pods(state, pod, node_info)
        if not st.is_success():
            return FilterResult(node_info.name, [st], st)
        if not added:
            return self.run_filter(state, pod, node_info, all_plugins=all_plugins)
        res = self.run_filter(state_with, pod, info_with, all_plugins=all_plugins)
        if not res.feasible:
            res.with_nominated = True
            return res
        return self.run_filter(state, pod, node_info, all_plugins=all_plugins)

    def _add_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[bool, CycleState, NodeInfo, Status]:
        nominated = self.nominator.pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info, SUCCESS
        info_out: NodeInfo | None = None
        state_out = state
        for pi in nominated:
            if pi.pod.priority >= pod.priority and pod_id(pi.pod) != pod_id(pod):
                if info_out is None:
                    info_out = node_info.clone()
                    state_out = state.clone()
                info_out.add_pod_info(pi)
                st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not st.is_success():
                    return False, state, node_info, st
        if info_out is None:
            return False, state, node_info, SUCCESS
        return True, state_out, info_out, SUCCESS

    def run_filter_from_cache(self, state: CycleState, pod: Pod, pre: PreFilterRecord) -> Filtered | None:
        """Every node's filter result for this cycle from the cycle's template, refiltering only
        what changed since an earlier cycle of an identical pod; None: filter each node."""
        tmpl = self._template(state)
        return tmpl.filter_nodes(state, pod, pre) if tmpl is not None else None

    def _template(self, state: CycleState) -> TemplateCache | None:
        if self.cache is None:
            return None
        try:
            return state.read(_TEMPLATE_KEY)
        except LookupError:
            return None

    # --- PostFilter -----------------------------------------------------------------------------

    def run_post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        reasons: list[str] = []
        rejector = ""
        result: PostFilterResult | None = None
        for pl in self.post_filter_plugins:
            r, st = pl.post_filter(state, pod, statuses)
            if st.is_success():
                return r, st.with_plugin(pl.name)
            if st.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, st.with_plugin(pl.name)
            if not st.is_rejected():
                return None, Status(Code.ERROR, st.reasons, pl.name)
            if r is not None:
                result = r
            reasons.extend(st.reasons)
            if not rejector:
                rejector = pl.name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    # --- PreScore and Score ---------------------------------------------------------------------

    def run_pre_score(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        substitutes: Mapping[str, PreScoreFn] | None = None,
    ) -> Status:
        skipped: set[str] = set()
        node_list = list(nodes)  # no plugin changes the list it is given
        try:
            for pl in self.pre_score_plugins:
                fn = substitutes.get(pl.name) if substitutes else None
                st = fn(state, pod, node_list) if fn is not None else pl.pre_score(state, pod, node_list)
                if st.is_skip():
                    skipped.add(pl.name)
                    continue
                if not st.is_success():
                    return Status(Code.ERROR, (f'running PreScore plugin "{pl.name}": {st.message()}',), pl.name)
            return SUCCESS
        finally:
            state.skip_score_plugins = frozenset(skipped)

    def run_score_from_cache(
        self, state: CycleState, pod: Pod, fast_path: bool, feasible: list[str], names: list[str] | None
    ) -> Prioritized | None:
        """PreScore and Score of the feasible nodes (``names``: the same in node order, known when
        run_filter_from_cache answered) from the cycle's template, over vectors; None: run them."""
        tmpl = self._template(state)
        if tmpl is None or names is None:
            return None
        return tmpl.prioritize(state, pod, fast_path, feasible, names)

    def run_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[NodeScores], Status]:
        plugins = [pl for pl in self.score_plugins if pl.name not in state.skip_score_plugins]
        raw: dict[str, list[NodeScore]] = {}
        for pl in plugins:
            lst: list[NodeScore] = []
            for ni in nodes:
                s, st = pl.score(state, pod, ni)
                if not st.is_success():
                    return [], Status(
                        Code.ERROR, (f'running Score plugins: plugin "{pl.name}" failed with: {st.message()}',), pl.name
                    )
                lst.append(NodeScore(ni.name, s))
            raw[pl.name] = lst
        normalized: dict[str, list[NodeScore]] = {}
        for pl in plugins:
            scores = [NodeScore(ns.name, ns.score) for ns in raw[pl.name]]
            nst = pl.normalize_score(state, pod, scores)
            if nst is not None and not nst.is_success():
                return [], Status(
                    Code.ERROR,
                    (f'running Normalize on Score plugins: plugin "{pl.name}" failed with: {nst.message()}',),
                    pl.name,
                )
            normalized[pl.name] = scores
        out: list[NodeScores] = []
        for i, ni in enumerate(nodes):
            ns = NodeScores(ni.name)
            for pl in plugins:
                w = self.score_weights[pl.name]
                score = normalized[pl.name][i].score
                if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                    return [], Status(
                        Code.ERROR,
                        (
                            f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid '
                            f"score {score}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",
                        ),
                        pl.name,
                    )
                weighted = score * w
                ns.scores.append(PluginScore(pl.name, raw[pl.name][i].score, score, w, weighted))
                ns.total += weighted
            out.append(ns)
        return out, SUCCESS

    # --- Reserve, Permit, PreBind, Bind, PostBind -----------------------------------------------

    def run_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for pl in self.reserve_plugins:
            st = pl.reserve(state, pod, node_name)
            if not st.is_success():
                if st.is_rejected():
                    return st.with_plugin(pl.name)
                return Status(Code.ERROR, (f'running Reserve plugin "{pl.name}": {st.message()}',), pl.name)
        return SUCCESS

    def run_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in reversed(self.reserve_plugins):
            pl.unreserve(state, pod, node_name)

    def run_permit(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        waiting = False
        for pl in self.permit_plugins:
            st, _timeout = pl.permit(state, pod, node_name)
            if not st.is_success():
                if st.is_rejected():
                    return st.with_plugin(pl.name)
                if st.is_wait():
                    waiting = True
                    continue
                return Status(Code.ERROR, (f'running Permit plugin "{pl.name}": {st.message()}',), pl.name)
        if waiting:
            return Status(Code.WAIT, (f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"',))
        return SUCCESS

    def run_pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for pl in self.pre_bind_plugins:
            st = pl.pre_bind(state, pod, node_name)
            if not st.is_success():
                if st.is_rejected():
                    return st.with_plugin(pl.name)
                return Status(Code.ERROR, (f'running PreBind plugin "{pl.name}": {st.message()}',), pl.name)
        return SUCCESS

    def run_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for pl in self.bind_plugins:
            st = pl.bind(state, pod, node_name)
            if st.is_skip():
                continue
            if not st.is_success():
                if st.is_rejected():
                    return st.with_plugin(pl.name)
                return Status(Code.ERROR, (f'running Bind plugin "{pl.name}": {st.message()}',), pl.name)
            return st.with_plugin(pl.name)
        return Status(Code.SKIP)

    def run_post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in self.post_bind_plugins:
            pl.post_bind(state, pod, node_name)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.queue_sort().less(a, b)
