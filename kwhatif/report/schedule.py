"""The report model: plain, frozen data built once from the scheduler's Attempts.

Formatters render these objects and compute nothing about scheduling. ``to_dict`` gives the
documented JSON/YAML schema (apiVersion kwhatif/v1) with a stable key order.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kwhatif.api.core import Node
from kwhatif.api.quantity import canonical
from kwhatif.binder import Binding, Outcome
from kwhatif.dra.types import ClaimDevices
from kwhatif.errors import ExitCode
from kwhatif.framework.interface import Status
from kwhatif.framework.types import (
    FilterResult,
    NodeScores,
    NodesFit,
    PluginScore,
    PodOutcome,
    PreFilterRecord,
    Prioritized,
)
from kwhatif.release.versions import ChosenVersion
from kwhatif.report.base import ReportKind
from kwhatif.report.digest import NodeDigest, digest_dict
from kwhatif.report.groups import GroupEntry, group_dicts
from kwhatif.scheduling.scheduler import Attempt

API_VERSION = "kwhatif/v1"

_DETAILS_OF = operator.attrgetter("details")


@dataclass(frozen=True, slots=True)
class PodRef:
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class FilterEntry:
    plugin: str
    code: str
    reasons: tuple[str, ...] = ()
    # kwhatif's explanation beyond upstream's reasons (for example the devices DynamicResources
    # would allocate on the node, or why it cannot)
    details: tuple[str, ...] = ()
    # the devices each claim would get on the node (DynamicResources on a feasible node), as data
    allocations: tuple[ClaimDevices, ...] = ()

    @property
    def failed(self) -> bool:
        return self.code not in ("Success", "Skip")


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int


@dataclass(frozen=True, slots=True)
class NodeEntry:
    name: str
    feasible: bool
    filters: tuple[FilterEntry, ...]
    scores: tuple[ScoreEntry, ...] = ()
    total: int | None = None
    excluded: bool = False  # outside the PreFilterResult: upstream never filters it
    at_pre_filter: bool = False  # PreFilter rejected the pod for every node
    with_nominated: bool = False  # failed only with nominated pods counted in

    @property
    def upstream_failure(self) -> FilterEntry | None:
        """The status upstream reports for this node: its first failing filter."""
        for f in self.filters:
            if f.failed:
                return f
        return None

    @property
    def failures(self) -> tuple[FilterEntry, ...]:
        return tuple(f for f in self.filters if f.failed)

    @property
    def details(self) -> tuple[str, ...]:
        """What the passing filters said about the node (the devices it would allocate)."""
        if not any(map(_DETAILS_OF, self.filters)):  # most nodes: nothing, seen at C speed
            return ()
        return tuple(d for f in self.filters if not f.failed for d in f.details)


@dataclass(frozen=True, slots=True)
class Victim:
    namespace: str
    name: str
    node: str
    priority: int
    pdb_violation: bool = False


@dataclass(frozen=True, slots=True)
class Preemption:
    nominated_node: str
    victims: tuple[Victim, ...]


@dataclass(frozen=True, slots=True)
class BindingEntry:
    node: str
    recorded: bool = True
    applied: bool = False
    error: str = ""
    manifest: Mapping[str, Any] = field(default_factory=dict)  # the v1 Binding (that would be) posted
    outcome: Outcome = Outcome.RECORDED
    code: int = 0  # HTTP status of the API server's answer (--apply); 0 when none
    reason: str = ""  # its Status reason (Conflict, NotFound, Forbidden, ...)
    message: str = ""  # its Status message, or why the pod was skipped
    created_as: str = ""  # name the API server gave a pod created from generateName
    text: str = ""  # one line for people

    @property
    def settled(self) -> bool:
        """--apply settled the pod without an error: bound, created, or not posted because the
        cluster changed meanwhile (a dry run only records; a refusal is the pod's error)."""
        return self.outcome not in (Outcome.RECORDED, Outcome.FAILED)

    @property
    def skipped(self) -> bool:
        return self.outcome is Outcome.SKIPPED


@dataclass(frozen=True, slots=True)
class PodResult:
    pod: PodRef
    status: PodOutcome
    profile: str
    priority: int
    node: str | None
    tie: tuple[str, ...]
    best_score: int | None
    message: str | None
    pre_filter: tuple[FilterEntry, ...]
    nodes: tuple[NodeEntry, ...]
    preemption: Preemption | None
    binding: BindingEntry | None
    weights: Mapping[str, int]
    skipped_score_plugins: tuple[str, ...] = ()
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    attempt: int = 1
    notes: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    source: str = ""
    reason_counts: Mapping[str, int] = field(default_factory=dict)  # when the node records were dropped
    nominated_node: str = ""  # status.nominatedNodeName the attempt started with
    fast_path: bool = False  # placed on that nominated node without evaluating the others
    # the devices each claim of the pod gets on its node (DynamicResources), as data
    claims: tuple[ClaimDevices, ...] = ()
    # Every attempt of the pod, in order, the last one included (the pod's result is that last
    # attempt, with the preemption of an earlier one carried over); empty in an attempt itself.
    attempts: tuple[PodResult, ...] = ()
    # The compact form (report/digest.py): ``nodes`` then holds only the nodes it shows, and this
    # counts and groups the others; None: ``nodes`` holds every node.
    digest: NodeDigest | None = None

    @property
    def fits(self) -> bool:
        return self.status is PodOutcome.SCHEDULED

    @property
    def unschedulable(self) -> bool:
        """Its cycle found no node (a FitError), preemption or not."""
        return self.status is PodOutcome.UNSCHEDULABLE

    @property
    def gated(self) -> bool:
        """PreEnqueue kept it out of the active queue (scheduling gates)."""
        return self.status is PodOutcome.GATED

    @property
    def errored(self) -> bool:
        """A plugin or the framework failed: not a verdict on the nodes."""
        return self.status is PodOutcome.ERROR

    @property
    def all_attempts(self) -> tuple[PodResult, ...]:
        """The pod's attempts in order; a result built from one attempt is its own only one."""
        return self.attempts or (self,)

    @property
    def victims(self) -> tuple[Victim, ...]:
        """Every pod this pod's attempts evicted, in order."""
        return tuple(v for a in self.all_attempts if a.preemption for v in a.preemption.victims)

    def feasible(self) -> list[NodeEntry]:
        return [n for n in self.nodes if n.feasible]


@dataclass(frozen=True, slots=True)
class Summary:
    pods: int
    scheduled: int
    unschedulable: int
    errors: int = 0
    gated: int = 0
    preempted: int = 0


@dataclass(frozen=True, slots=True)
class ScheduleReport:
    profile: str
    results: tuple[PodResult, ...]
    num_nodes: int
    notes: tuple[str, ...] = ()
    scheduler_version: ChosenVersion | None = None  # the release answered as, and where it came from
    apply: bool = False  # --apply: the bindings were posted, and how they went decides the exit code
    groups: tuple[GroupEntry, ...] = ()  # Workload pod groups (gang scheduling)
    # the labels of the nodes the results name (zones and labels to sort and filter nodes by)
    node_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # a report written as its pods were scheduled (report/stream.py) holds no results: their
    # counts are given here
    counted: Summary | None = None
    detail: str = ""  # "summary": the results are in their compact form (report/digest.py)

    @property
    def kind(self) -> ReportKind:
        return ReportKind.SCHEDULE

    @property
    def summary(self) -> Summary:
        if self.counted is not None:
            return self.counted
        final = self.final_results()
        return Summary(
            pods=len(final),
            scheduled=sum(1 for r in final if r.status is PodOutcome.SCHEDULED),
            unschedulable=sum(1 for r in final if r.status is PodOutcome.UNSCHEDULABLE),
            errors=sum(1 for r in final if r.status is PodOutcome.ERROR),
            gated=sum(1 for r in final if r.status is PodOutcome.GATED),
            preempted=sum(len(r.victims) for r in final),
        )

    def final_results(self) -> list[PodResult]:
        """One result per pod (its final outcome), in the order pods were first attempted."""
        last: dict[str, PodResult] = {}
        for r in self.results:
            last[str(r.pod)] = r
        return list(last.values())

    @property
    def exit_code(self) -> ExitCode:
        """The exit policy, in one place: 0 when every pod was placed, 1 otherwise. With --apply,
        4 when some pods were bound and others failed to bind, 3 when bindings failed and none
        succeeded; pods skipped because someone else bound or deleted them meanwhile are not
        failures."""
        if self.apply:
            bindings = [b for _, b in self.bindings()]
            if any(b.outcome is Outcome.FAILED for b in bindings):
                return ExitCode.PARTIAL_APPLY if any(b.applied for b in bindings) else ExitCode.CLUSTER
        s = self.summary
        return ExitCode.OK if s.scheduled == s.pods else ExitCode.UNSCHEDULABLE

    def bindings(self) -> list[tuple[PodRef, BindingEntry]]:
        """Each pod's binding (recorded, or what the API server answered with --apply), by pod."""
        pairs = [(r.pod, r.binding) for r in self.final_results() if r.binding is not None]
        return sorted(pairs, key=lambda pb: str(pb[0]))

    def apply_messages(self) -> list[str]:
        """--apply: an error for each binding that failed, then a note for each pod skipped."""
        if not self.apply:
            return []
        bindings = self.bindings()
        return [f"error: {pod}: {b.text}" for pod, b in bindings if b.outcome is Outcome.FAILED] + [
            f"note: {pod}: {b.text}" for pod, b in bindings if b.outcome is Outcome.SKIPPED
        ]

    def to_dict(self) -> dict[str, Any]:
        return report_dict(self)


# --- building ------------------------------------------------------------------------------------


def _filter_entry(st: Status, shared: dict[tuple[str, str], FilterEntry] | None = None) -> FilterEntry:
    """The record of a status. ``shared``: one record per plugin and code for the statuses that
    say nothing else (most filters pass on most nodes), so a report over thousands of nodes holds
    a handful of them, and what reads it (an output's escaping, say) meets each once."""
    if shared is not None and not st.reasons and not st.details and not st.allocations:
        key = (st.plugin, st.code.label)
        entry = shared.get(key)
        if entry is None:
            entry = shared[key] = FilterEntry(st.plugin, st.code.label)
        return entry
    return FilterEntry(st.plugin, st.code.label, tuple(st.reasons), tuple(st.details), st.allocations)


def _score_entry(s: PluginScore, shared: dict[tuple[str, int, int, int, int], ScoreEntry]) -> ScoreEntry:
    """The record of a plugin's score on a node, one per distinct score (many nodes score alike)."""
    key = (s.plugin, s.raw, s.normalized, s.weight, s.weighted)
    entry = shared.get(key)
    if entry is None:
        entry = shared[key] = ScoreEntry(*key)
    return entry


def _pre_filter_entries(pre: PreFilterRecord | None) -> tuple[FilterEntry, ...]:
    """The PreFilter (or PreEnqueue) plugins that did not succeed, and the status that ended the
    pass when no plugin's own status says it."""
    if pre is None:
        return ()
    entries = tuple(_filter_entry(st) for st in pre.statuses if not st.is_success() and not st.is_skip())
    if not pre.status.is_success() and not any(e.plugin == pre.status.plugin for e in entries):
        entries += (_filter_entry(pre.status),)
    return entries


class EntryCache:
    """The records of nodes' filters and scores kept from one result to the next (pods of one
    template meet the same nodes' records again: the engine keeps a node's FilterResult while
    the node is unchanged), so each is built once and later results share them: a node's entry
    is looked up, not built again, and what reads the results (escaping, say) can remember what
    it did with it. Holds every record it keys by id, so the ids stay theirs; forgets everything
    at once when it grows past ``limit`` entries."""

    __slots__ = ("filters", "limit", "nodes", "results", "scores", "tuples", "weights")

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self.filters: dict[tuple[str, str], FilterEntry] = {}
        self.scores: dict[tuple[str, int, int, int, int], ScoreEntry] = {}
        self.tuples: dict[tuple[int, ...], tuple[Any, ...]] = {}
        # id of a node's FilterResult -> it, and the tuple of its entries
        self.results: dict[int, tuple[Any, tuple[FilterEntry, ...]]] = {}
        self.nodes: dict[tuple[Any, ...], NodeEntry] = {}
        self.weights: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}

    def weights_of(self, weights: Mapping[str, int]) -> dict[str, int]:
        """A copy of ``weights``, the same copy for equal weights (a profile's, pod after pod)."""
        key = tuple(weights.items())
        got = self.weights.get(key)
        if got is None:
            got = self.weights[key] = dict(weights)
        return got

    def trim(self) -> None:
        if len(self.tuples) + len(self.results) + len(self.nodes) + len(self.scores) > self.limit:
            for d in (self.filters, self.scores, self.tuples, self.results, self.nodes, self.weights):
                d.clear()


def _node_entries(
    fit: NodesFit,
    prio: Prioritized | None,
    cache: EntryCache | None = None,
    view: tuple[Mapping[str, FilterResult], Mapping[str, NodeScores]] | None = None,
) -> tuple[NodeEntry, ...]:
    """Every node the filter pass recorded (``view``: those of these records), with the scores
    of the feasible ones."""
    if view is not None:
        filters, scores = view
    else:
        filters, scores = fit.filters, (prio.scores if prio is not None else {})
    nodes = []
    if cache is None:
        cache = EntryCache()
        persistent = False
    else:
        cache.trim()
        persistent = True
    shared = cache.filters
    shared_scores = cache.scores
    # Nodes whose records are the same records share one tuple of them (most feasible nodes pass
    # every filter alike, and many score alike): what reads the report works each tuple out once.
    # Keyed by the records' ids: each tuple held here holds its records, so the ids stay theirs.
    tuples = cache.tuples
    results = cache.results
    known = cache.nodes

    def shared_tuple(records: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuples.setdefault(tuple(map(id, records)), records)

    at_pre_filter = fit.at_pre_filter
    for name, fr in filters.items():
        sc = scores.get(name)
        excluded = name in fit.excluded
        if at_pre_filter:
            records: tuple[FilterEntry, ...] = ()
        else:
            got = results.get(id(fr)) if persistent else None
            if got is None:
                records = shared_tuple(tuple([_filter_entry(st, shared) for st in fr.statuses]))
                if persistent:
                    results[id(fr)] = (fr, records)
            else:
                records = got[1]
        score_entries = shared_tuple(tuple([_score_entry(s, shared_scores) for s in sc.scores])) if sc else ()
        feasible = fr.feasible and not excluded and not at_pre_filter
        total = sc.total if sc else None
        if persistent:
            key = (name, id(records), id(score_entries), total, feasible, excluded, at_pre_filter, fr.with_nominated)
            entry = known.get(key)
            if entry is not None:
                nodes.append(entry)
                continue
        entry = NodeEntry(
            name=name,
            feasible=feasible,
            filters=records,
            scores=score_entries,
            total=total,
            excluded=excluded,
            at_pre_filter=at_pre_filter,
            with_nominated=fr.with_nominated,
        )
        if persistent:
            known[key] = entry
        nodes.append(entry)
    return tuple(nodes)


def _preemption(att: Attempt, victim_nodes: Mapping[str, str]) -> Preemption | None:
    if not att.nominated_node:
        return None
    details = att.preemption_details
    pdb_victims = set(details.pdb_violating_victims) if details is not None else set()
    victims = tuple(
        Victim(v.namespace, v.name, victim_nodes.get(v.key, v.node_name), v.priority, v.key in pdb_victims)
        for v in att.victims
    )
    return Preemption(att.nominated_node, victims)


def _binding_entry(b: Binding | None, manifest: bool = True) -> BindingEntry | None:
    if b is None:
        return None
    return BindingEntry(
        b.node,
        recorded=True,
        applied=b.applied,
        error=b.message if b.outcome is Outcome.FAILED else "",
        manifest=b.to_manifest() if manifest else {},
        outcome=b.outcome,
        code=b.code,
        reason=b.reason,
        message=b.message,
        created_as=b.created_as,
        text=b.describe(),
    )


def pod_result(
    att: Attempt,
    victim_nodes: Mapping[str, str] | None = None,
    *,
    cache: EntryCache | None = None,
    view: tuple[Mapping[str, FilterResult], Mapping[str, NodeScores]] | None = None,
    digest: NodeDigest | None = None,
    manifests: bool = True,
) -> PodResult:
    """One attempt as the report shows it, read off the records its cycle returned. ``cache``:
    node records kept from the results before (EntryCache); ``view``: the nodes' filter and score
    records to show in place of all the cycle's (a compact result's few nodes), with their
    ``digest``; ``manifests``: False leaves the binding's object out (a table never shows it)."""
    fit, prio = att.fit, att.prioritized
    best = prio.best if prio is not None else []
    status = PodOutcome(att.result)
    return PodResult(
        pod=PodRef(att.pod.namespace, att.pod.name),
        status=status,
        profile=att.profile,
        priority=att.pod.priority,
        node=att.node if status is PodOutcome.SCHEDULED else None,
        tie=tuple(best) if len(best) > 1 else (),
        best_score=prio.best_score if prio is not None else None,
        message=att.message or None if status is not PodOutcome.SCHEDULED else None,
        pre_filter=_pre_filter_entries(fit.pre_filter if fit is not None else None),
        nodes=_node_entries(fit, prio, cache, view) if fit is not None else (),
        preemption=_preemption(att, victim_nodes or {}),
        binding=_binding_entry(att.binding, manifests),
        weights=dict(att.weights) if cache is None else cache.weights_of(att.weights),
        skipped_score_plugins=tuple(sorted(att.skipped_score_plugins)),
        evaluated_nodes=att.evaluated_nodes,
        feasible_nodes=att.feasible_nodes,
        attempt=att.round,
        notes=tuple(att.notes),
        hints=tuple(att.hints),
        source=att.pod.source,
        reason_counts=dict(att.reason_counts),
        nominated_node=att.pod.nominated_node_name,
        fast_path=fit is not None and fit.fast_path,
        claims=att.claims if status is PodOutcome.SCHEDULED else (),
        digest=digest,
    )


def pod_outcome(attempts: Sequence[PodResult]) -> PodResult:
    """One pod's result from its attempts, in order: the last attempt's fields (what existing
    consumers read), the preemption of an earlier attempt carried over when the last one made
    none (the pod was placed on a retry after its victims were evicted), and every attempt."""
    final = attempts[-1]
    if len(attempts) == 1:
        return final
    r = final
    if r.preemption is None:
        prev = next((a for a in reversed(attempts[:-1]) if a.preemption is not None), None)
        if prev is not None:
            assert prev.preemption is not None
            notes = r.notes + (
                f"attempt {prev.attempt} preempted {len(prev.preemption.victims)} pod(s) on "
                f"{prev.preemption.nominated_node}; this is attempt {r.attempt}",
            )
            r = dataclasses.replace(r, preemption=prev.preemption, notes=notes)
    return dataclasses.replace(r, attempts=tuple(attempts))


def merge_attempts(results: Iterable[PodResult]) -> list[PodResult]:
    """One result per pod (see pod_outcome), in the order pods were first attempted."""
    by_pod: dict[str, list[PodResult]] = {}
    for r in results:
        by_pod.setdefault(str(r.pod), []).append(r)
    return [pod_outcome(rs) for rs in by_pod.values()]


def pod_outcomes(attempts: Iterable[Attempt]) -> list[PodResult]:
    """The scheduler's attempts as one result per pod."""
    return merge_attempts(pod_result(a) for a in attempts)


def schedule_report(
    attempts: list[Attempt],
    num_nodes: int,
    profile: str,
    notes: Iterable[str] = (),
    *,
    scheduler_version: ChosenVersion | None = None,
    apply: bool = False,
    groups: Iterable[GroupEntry] = (),
    nodes: Iterable[Node] = (),
) -> ScheduleReport:
    results = tuple(pod_outcomes(attempts))
    return ScheduleReport(
        profile=profile,
        results=results,
        num_nodes=num_nodes,
        notes=tuple(notes),
        scheduler_version=scheduler_version,
        apply=apply,
        groups=tuple(groups),
        node_labels=labels_of_named_nodes(results, nodes),
    )


def labels_of_named_nodes(results: Iterable[PodResult], nodes: Iterable[Node]) -> dict[str, dict[str, str]]:
    """The labels of the nodes these results name, by node name (sorted): only those, so a report
    whose node records were dropped does not carry every node's labels."""
    named: set[str] = set()
    for r in results:
        named_nodes(r, named)
    return labels_of(named, nodes)


def named_nodes(r: PodResult, named: set[str]) -> None:
    """Add the nodes a result names to ``named``."""
    for a in r.all_attempts:
        named.update(n.name for n in a.nodes)
        named.update(x for x in (a.node, a.preemption.nominated_node if a.preemption else None) if x)


def labels_of(named: set[str], nodes: Iterable[Node]) -> dict[str, dict[str, str]]:
    """The labels of the ``named`` nodes, by node name (sorted)."""
    return {n.name: dict(sorted(n.labels.items())) for n in sorted(nodes, key=lambda n: n.name) if n.name in named}


def version_fields(chosen: ChosenVersion | None) -> dict[str, Any]:
    """schedulerVersion and schedulerVersionSource, for every report that has them."""
    return chosen.report_fields() if chosen is not None else {}


def version_suffix(chosen: ChosenVersion | None) -> str:
    """The summary lines' mention of the release: ``, kube-scheduler 1.30.6 (from the dump)``."""
    return f", {chosen.describe()}" if chosen is not None else ""


# --- the documented dict form -------------------------------------------------------------------


def filter_dict(f: FilterEntry) -> dict[str, Any]:
    d: dict[str, Any] = {"plugin": f.plugin, "code": f.code, "reasons": list(f.reasons)}
    if f.details:
        d["details"] = list(f.details)
    if f.allocations:
        d["allocations"] = [allocation_dict(c) for c in f.allocations]
    return d


def allocation_dict(c: ClaimDevices) -> dict[str, Any]:
    """One claim's devices on a node (revision 5): per request, in the allocation's order, each
    device with its driver, pool and admin access, and the capacity it consumes of a shared
    device where the release models consumable capacity."""
    requests: dict[str, list[dict[str, Any]]] = {}
    for r in c.results:
        device: dict[str, Any] = {
            "driver": r.driver,
            "pool": r.pool,
            "device": r.device,
            "adminAccess": bool(r.admin_access),
        }
        if r.share_id is not None:
            device["shareID"] = r.share_id
        if r.consumed_capacity:
            device["consumedCapacity"] = {k: canonical(v) for k, v in sorted(r.consumed_capacity.items())}
        requests.setdefault(r.request, []).append(device)
    return {
        "claim": {"namespace": c.namespace, "name": c.name},
        "allocated": c.allocated,
        "requests": [{"request": name, "devices": devices} for name, devices in requests.items()],
    }


def node_dict(n: NodeEntry, shared: dict[int, Any] | None = None) -> dict[str, Any]:
    """A node's record. ``shared``: the dict of each filter and score record, and the list of each
    tuple of them, by the record's or tuple's id, so what many nodes share (see _filter_entry,
    _score_entry, _node_entries) is one dict or list in the document too, and a writer that meets
    it again can reuse what it wrote."""
    if shared is None:
        shared = {}
    filters = _shared_dicts(n.filters, shared, filter_dict)
    scores = _shared_dicts(n.scores, shared, score_dict)
    d: dict[str, Any] = {"name": n.name, "feasible": n.feasible, "filters": filters, "scores": scores, "total": n.total}
    if n.excluded:
        d["excludedByPreFilterResult"] = True
    return d


def score_dict(s: ScoreEntry) -> dict[str, Any]:
    return {"plugin": s.plugin, "raw": s.raw, "normalized": s.normalized, "weight": s.weight, "weighted": s.weighted}


def _shared_dicts(records: tuple[Any, ...], shared: dict[int, Any], record_dict: Any) -> list[dict[str, Any]]:
    """The dicts of a node's records: one dict per record and one list per tuple of records, by
    id, in ``shared`` (the nodes that share a tuple, _node_entries, share its list). An empty one
    is each node's own: a node's filters and scores are never the same list."""
    if not records:
        return []
    out: list[dict[str, Any]] | None = shared.get(id(records))
    if out is None:
        out = []
        for r in records:
            d = shared.get(id(r))
            if d is None:
                d = shared[id(r)] = record_dict(r)
            out.append(d)
        shared[id(records)] = out
    return out


def node_dicts(nodes: Iterable[NodeEntry]) -> list[dict[str, Any]]:
    """The records of a cycle's nodes, the filter and score records they share built once."""
    shared: dict[int, Any] = {}
    return [node_dict(n, shared) for n in nodes]


def preemption_dict(p: Preemption | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "nominatedNode": p.nominated_node,
        "victims": [
            {
                "namespace": v.namespace,
                "name": v.name,
                "node": v.node,
                "priority": v.priority,
                "pdbViolation": v.pdb_violation,
            }
            for v in p.victims
        ],
    }


def binding_dict(b: BindingEntry | None) -> dict[str, Any] | None:
    if b is None:
        return None
    d: dict[str, Any] = {
        "node": b.node,
        "recorded": b.recorded,
        "applied": b.applied,
        "outcome": b.outcome.value,
        "object": dict(b.manifest),
    }
    if b.outcome is not Outcome.RECORDED:
        d["code"] = b.code
        d["reason"] = b.reason
        d["message"] = b.message
    if b.created_as:
        d["createdAs"] = b.created_as
    return d


def attempt_dict(a: PodResult) -> dict[str, Any]:
    """One scheduling attempt: what upstream's cycle saw and did (its FailedScheduling event and
    nomination, or its binding)."""
    return {
        "attempt": a.attempt,
        "status": a.status.value,
        "nominatedNodeName": a.nominated_node or None,
        "node": a.node,
        "tie": list(a.tie),
        "message": a.message,
        "evaluatedNodes": a.evaluated_nodes,
        "feasibleNodes": a.feasible_nodes,
        **_cycle_fields(a),
    }


_CYCLE_FIELDS = (
    ("preFilter", "pre_filter", lambda v: [filter_dict(f) for f in v]),
    ("nodes", "nodes", node_dicts),
    ("preemption", "preemption", preemption_dict),
    ("binding", "binding", binding_dict),
    ("hints", "hints", list),
    ("notes", "notes", list),
)


def _cycle_fields(r: PodResult, like: PodResult | None = None, written: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a cycle's filters, scores, preemption and binding recorded, as a result and each of
    its attempts write it. A field ``r`` holds as the same object as attempt ``like`` (a pod's
    result is its last attempt's fields) takes the value ``written`` for that attempt: the same
    list, not a copy of every node's filters built again."""
    out: dict[str, Any] = {}
    for key, attr, build in _CYCLE_FIELDS:
        value = getattr(r, attr)
        if like is not None and written is not None and getattr(like, attr) is value:
            out[key] = written[key]
        else:
            out[key] = build(value)
    if r.claims:
        out["claims"] = [allocation_dict(c) for c in r.claims]
    if r.digest is not None:
        out["nodeSummary"] = digest_dict(r.digest)
    return out


def result_dict(r: PodResult) -> dict[str, Any]:
    """One pod: its final attempt's fields at the top, then every attempt in order."""
    attempts = [attempt_dict(a) for a in r.all_attempts]
    return {
        "pod": {"namespace": r.pod.namespace, "name": r.pod.name},
        "status": r.status.value,
        "profile": r.profile,
        "priority": r.priority,
        "attempt": r.attempt,
        "node": r.node,
        "tie": list(r.tie),
        "message": r.message,
        **_cycle_fields(r, r.all_attempts[-1], attempts[-1]),
        "attempts": attempts,
    }


def report_dict(rep: ScheduleReport) -> dict[str, Any]:
    return {**head_dict(rep), "results": [result_dict(r) for r in rep.results], **tail_dict(rep)}


def head_dict(rep: ScheduleReport) -> dict[str, Any]:
    """The document's fields before ``results`` (a streamed report writes them first)."""
    return {
        "apiVersion": API_VERSION,
        "kind": rep.kind.value,
        "profile": rep.profile,
        **version_fields(rep.scheduler_version),
        **({"detail": rep.detail} if rep.detail else {}),
    }


def tail_dict(rep: ScheduleReport) -> dict[str, Any]:
    """The document's fields after ``results`` (a streamed report writes them last)."""
    s = rep.summary
    return {
        **({"groups": group_dicts(rep.groups)} if rep.groups else {}),
        "summary": {
            "pods": s.pods,
            "scheduled": s.scheduled,
            "unschedulable": s.unschedulable,
            "errors": s.errors,
            "gated": s.gated,
            "preempted": s.preempted,
        },
        "notes": list(rep.notes),
        **node_labels_field(rep),
    }


def node_labels_field(rep: ScheduleReport) -> dict[str, Any]:
    """``nodeLabels`` of the nodes the results name, when there are any (the document omits it otherwise)."""
    return {"nodeLabels": {k: dict(v) for k, v in rep.node_labels.items()}} if rep.node_labels else {}
