"""One scale-up of cluster-autoscaler (core/scaleup/orchestrator/orchestrator.go ScaleUp,
cluster-autoscaler-release-1.36), over the pods the scheduler could not place:

1. pod equivalence groups (equivalence.py);
2. the node groups not considered, and why (filterValidScaleUpNodeGroups: at maximum size, over a
   resource limit, no template);
3. each group's template checked against each equivalence group's exemplar, filters only
   (SchedulablePodGroups), the failures kept as the reasons a group cannot host a pod;
4. an option per group: the binpacking estimate of its nodes (estimator.py), with its similar
   groups when balancing;
5. the expander chain's choice (expanders.py), capped by --max-nodes-total and the resource
   limits, balanced over the similar groups (balancing.py).

The pods of the chosen option scale up; the others wait for a later loop, are cut off by a limit,
or no group can host them (each group's reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kwhatif.api.core import Pod
from kwhatif.autoscaler import balancing, expanders, limits
from kwhatif.autoscaler.equivalence import PodGroup, build_pod_groups
from kwhatif.autoscaler.estimator import MAX_NODES_PER_SCALE_UP, EstimationContext, estimate, node_limit
from kwhatif.autoscaler.nodegroups import NodeGroup
from kwhatif.autoscaler.simulator import Simulator
from kwhatif.autoscaler.template import Template, instantiate

# skippedreasons.go
MAX_LIMIT_REACHED = "max node group size reached"
NOT_READY = "not ready for scale-up"
MAX_NODES_TOTAL_REACHED = "max node total count already reached"

WAITS = "waits for a later scale-up"
NO_GROUP = "no group can host it"


@dataclass(frozen=True, slots=True)
class ScaleUpOptions:
    """cluster-autoscaler's flags a scale-up reads."""

    expander: tuple[expanders.ExpanderName, ...] = (expanders.ExpanderName.LEAST_WASTE,)
    max_nodes_total: int = 0
    cores_total: tuple[int, int] = (0, limits.DEFAULT_MAX_CORES)
    memory_total: tuple[int, int] = (0, limits.DEFAULT_MAX_MEMORY)
    balance_similar_node_groups: bool = False
    max_nodes_per_scale_up: int = MAX_NODES_PER_SCALE_UP
    priorities: Mapping[int, tuple[str, ...]] | None = None
    pricing: expanders.Pricing | None = None
    # the estimator's limiter thresholds (static, similar groups' room, cluster size), as
    # core/autoscaler.go builds them; upstream's orchestrator tests run it without any
    estimator_thresholds: bool = True


@dataclass(frozen=True, slots=True)
class OptionEntry:
    group: str
    node_count: int
    pods: tuple[str, ...]
    similar: tuple[str, ...] = ()
    debug: str = ""


@dataclass(frozen=True, slots=True)
class Chosen:
    group: str
    node_count: int
    current: int
    new: int
    max: int
    nodes: tuple[str, ...]  # the names given to the new nodes


@dataclass(frozen=True, slots=True)
class NoGroup:
    pod: str
    reasons: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class PodVerdict:
    """A pod's outcome in this loop: the group and new node it goes to, or why it gets none."""

    pod: str
    group: str | None
    node: str | None
    why: str | None


@dataclass(slots=True)
class ScaleUpResult:
    expander: str
    options: list[OptionEntry] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    chosen: list[Chosen] = field(default_factory=list)
    no_group: list[NoGroup] = field(default_factory=list)
    steps: list[expanders.Step] = field(default_factory=list)
    tie: tuple[str, ...] = ()
    pods: dict[str, PodVerdict] = field(default_factory=dict)
    # per group: each equivalence group's exemplar's failure on its template ("" where it fits)
    template_checks: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _room(g: NodeGroup, sizes: Mapping[str, int]) -> int:
    return max(g.max_size - sizes[g.name], 0)


def scale_up(
    sim: Simulator,
    pending: list[Pod],
    groups: list[NodeGroup],
    templates: Mapping[str, Template],
    sizes: dict[str, int],
    node_count: int,
    opts: ScaleUpOptions,
    tracker: limits.Tracker,
    new_node_names: dict[str, int],
) -> ScaleUpResult:
    """ScaleUp over ``pending``: what it decides, every pod's verdict. ``sizes`` (each group's
    target size) and ``new_node_names`` (how many nodes each group has been given, for their
    names) are updated with the scale-up chosen."""
    res = ScaleUpResult(",".join(e.value for e in opts.expander))
    egs = build_pod_groups(pending)
    by_name = {g.name: g for g in groups}
    # filterValidScaleUpNodeGroups
    valid: list[NodeGroup] = []
    for g in groups:
        tmpl = templates.get(g.name)
        if sizes[g.name] >= g.max_size:
            res.skipped[g.name] = MAX_LIMIT_REACHED
            continue
        if tmpl is None:
            res.skipped[g.name] = NOT_READY
            continue
        check = tracker.check(tmpl.node, 1)
        if check.exceeded:
            res.skipped[g.name] = check.message
            continue
        valid.append(g)
    # SchedulablePodGroups: each exemplar against the group's empty template node
    schedulable: dict[str, list[PodGroup]] = {}
    for g in valid:
        tmpl = templates[g.name]
        node, node_pods = instantiate(tmpl, tmpl.node.name)
        sim.add_node(node, node_pods)
        checks: dict[str, str] = {}
        try:
            for eg in egs:
                fail = sim.check(eg.exemplar, node.name, all_plugins=True)
                if fail is None:
                    schedulable.setdefault(g.name, []).append(eg)
                    eg.schedulable = True
                    eg.schedulable_groups.append(g.name)
                    checks[eg.exemplar.key] = ""
                else:
                    eg.scheduling_errors[g.name] = fail.text()
                    checks[eg.exemplar.key] = fail.text()
        finally:
            sim.remove_node(node.name)
        res.template_checks[g.name] = checks
    # ComputeExpansionOption for each valid group
    options: list[expanders.Option] = []
    estimates = {}
    for g in valid:
        pod_groups = schedulable.get(g.name, [])
        if not pod_groups:
            continue
        similar: list[str] = []
        if opts.balance_similar_node_groups:
            mine = {id(eg) for eg in pod_groups}
            similar = [
                s
                for s in balancing.similar_groups(g.name, {n: templates[n] for n in templates if n in schedulable})
                if mine <= {id(eg) for eg in schedulable.get(s, [])}
            ]
        ctx = (
            EstimationContext(
                opts.max_nodes_total,
                _room(g, sizes) + sum(_room(by_name[s], sizes) for s in similar),
                node_count,
                opts.max_nodes_per_scale_up,
            )
            if opts.estimator_thresholds
            else EstimationContext(0, None, node_count, 0)
        )
        est = estimate(
            sim, [list(eg.pods) for eg in pod_groups], templates[g.name], ctx, f"{templates[g.name].node.name}-e"
        )
        estimates[g.name] = (est, ctx)
        if not est.scheduled or est.node_count == 0:
            continue
        options.append(
            expanders.Option(
                g.name,
                est.node_count,
                est.scheduled,
                templates[g.name].node,
                similar,
                exists=bool(g.nodes) or sizes[g.name] > 0,
            )
        )
    for o in options:
        res.options.append(OptionEntry(o.group, o.node_count, tuple(p.key for p in o.pods), tuple(o.similar)))
    best: expanders.Option | None = None
    if options:
        choice = expanders.choose(
            options,
            list(opts.expander),
            priorities=opts.priorities,
            pricing=opts.pricing,
            cluster_nodes=node_count,
        )
        res.steps, res.tie, best = choice.steps, choice.tie, choice.best
        res.options = [
            OptionEntry(
                e.group, e.node_count, e.pods, e.similar, next((o.debug for o in options if o.group == e.group), "")
            )
            for e in res.options
        ]
    cut: dict[str, str] = {}  # pod -> the limit that cut it off
    given: dict[str, tuple[str, str]] = {}  # pod -> (group, node)
    if best is not None:
        new_nodes = limits.capped_new_node_count(best.node_count, node_count, opts.max_nodes_total)
        limit_word = "--max-nodes-total" if new_nodes < best.node_count else ""
        if new_nodes < 1:
            res.notes.append(f"{MAX_NODES_TOTAL_REACHED} (--max-nodes-total {opts.max_nodes_total})")
            new_nodes = 0
        else:
            allowed = tracker.check(templates[best.group].node, new_nodes)
            if allowed.allowed < new_nodes:
                limit_word = "--cores-total" if "cpu" in allowed.exceeded else "--memory-total"
                new_nodes = allowed.allowed
        infos: list[balancing.ScaleUpInfo] = []
        if new_nodes > 0:
            targets = [best.group] + [s for s in best.similar if not tracker.check(templates[s].node, 1).exceeded]
            infos = balancing.balance([(n, sizes[n], by_name[n].max_size) for n in targets], new_nodes)
            # capScaleUpsByQuota
            capped: list[balancing.ScaleUpInfo] = []
            for info in infos:
                delta = info.new - info.current
                ok = tracker.check(templates[info.group].node, delta).allowed
                if ok < delta:
                    info.new = info.current + ok
                if ok > 0:
                    tracker.consume(templates[info.group].node, ok)
                if info.new != info.current:
                    capped.append(info)
            infos = capped
            if sum(i.new - i.current for i in infos) < new_nodes and not limit_word:
                limit_word = f"maxSize of {best.group}"
        # the estimated nodes, in order, go to the groups of the scale-up
        est, ctx = estimates[best.group]
        slots: list[tuple[str, str]] = []
        for info in infos:
            names = []
            for _ in range(info.new - info.current):
                k = new_node_names.get(info.group, 0)
                new_node_names[info.group] = k + 1
                names.append(f"{info.group}-new-{k}")
                slots.append((info.group, names[-1]))
            res.chosen.append(
                Chosen(info.group, info.new - info.current, info.current, info.new, info.max, tuple(names))
            )
            sizes[info.group] = info.new
        node_slot = {n: slots[i] for i, n in enumerate(est.node_names) if i < len(slots)}
        for p in best.pods:
            where = est.pods[p.key]
            slot = node_slot.get(where)
            if slot is not None:
                given[p.key] = slot
            elif where not in est.node_names:
                # the estimator's topology-spread fallback put it on an existing node
                given[p.key] = (best.group, where)
            else:
                cut[p.key] = f"cut off by {limit_word or 'maxSize of ' + best.group}"
        if est.limited:
            why = _limit_reason(ctx, best.group)
            for eg in schedulable.get(best.group, []):
                for p in eg.pods:
                    if p.key not in given and p.key not in cut:
                        cut[p.key] = why
    # every pod's verdict
    for eg in egs:
        if not eg.schedulable:
            reasons = {name: eg.scheduling_errors[name] for name in sorted(eg.scheduling_errors)}
            for name, why in res.skipped.items():
                reasons.setdefault(name, f"skipped: {why}")
            why = NO_GROUP
            if not eg.scheduling_errors and res.skipped and set(res.skipped.values()) == {MAX_LIMIT_REACHED}:
                # no template refused it: every group is at its maximum (upstream's event: "pod
                # didn't trigger scale-up: N max node group size reached"), a limit, not a misfit
                why = f"cut off by maxSize of {', '.join(sorted(res.skipped))}"
            for p in eg.pods:
                res.no_group.append(NoGroup(p.key, dict(sorted(reasons.items()))))
                res.pods[p.key] = PodVerdict(p.key, None, None, why)
            continue
        for p in eg.pods:
            if p.key in given:
                grp, node_name = given[p.key]
                res.pods[p.key] = PodVerdict(p.key, grp, node_name, None)
            elif p.key in cut:
                res.pods[p.key] = PodVerdict(p.key, None, None, cut[p.key])
            else:
                res.pods[p.key] = PodVerdict(p.key, None, None, WAITS)
    return res


def _limit_reason(ctx: EstimationContext, group: str) -> str:
    """Which of the estimator's limits stopped it (the smallest)."""
    limit = node_limit(ctx)
    if ctx.max_nodes_total and (ctx.max_nodes_total - ctx.current_node_count) == limit:
        return "cut off by --max-nodes-total"
    if limit == ctx.max_nodes_per_scale_up and (ctx.similar_room is None or ctx.similar_room > limit):
        return f"cut off by --max-nodes-per-scaleup ({ctx.max_nodes_per_scale_up})"
    return f"cut off by maxSize of {group}"


def commit(sim: Simulator, templates: Mapping[str, Template], chosen: list[Chosen]) -> list[str]:
    """The chosen nodes registered: template copies added to the snapshot under their names."""
    added: list[str] = []
    for c in chosen:
        for name in c.nodes:
            node, pods = instantiate(templates[c.group], name)
            sim.add_node(node, pods)
            added.append(name)
    return added
