"""The scheduling queue and scheduleOne (pkg/scheduler/schedule_one.go), in dry-run.

One Scheduler holds a Snapshot, a Framework per profile and a Binder. ``run(pods)`` orders the
pods as PrioritySort does and attempts each one; a second round retries every pod still
unscheduled (preemptors then carry their nominated node), which is how upstream ends up after
preemption. Every attempt is recorded in full: every filter plugin on every node, every score.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from kwhatif import progress
from kwhatif.api.core import Pod
from kwhatif.api.workload import refuse_unserved
from kwhatif.binder import Binder, Binding, RecordingBinder
from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.node_info import NodeInfo, pod_id, shape
from kwhatif.cache.snapshot import Snapshot
from kwhatif.config.options import Options
from kwhatif.config.types import SchedulerConfiguration
from kwhatif.dra.types import ClaimDevices
from kwhatif.errors import ConfigError, InputError
from kwhatif.framework.handle import Nominator
from kwhatif.framework.interface import Code, CycleState, Placement, PreemptionDetails, QueuedPodInfo, Status
from kwhatif.framework.runtime import Framework, Registry
from kwhatif.framework.types import (
    FilterResult,
    FitError,
    NodesFit,
    NominatingInfo,
    PodOutcome,
    PreFilterRecord,
    Prioritized,
    ScheduleResult,
    fit_error_message,
)
from kwhatif.plugins.registry import in_tree
from kwhatif.release.workload_gates import gang_gates
from kwhatif.scheduling.explain import hints
from kwhatif.scheduling.pod_group_cycle import PodGroupCycle
from kwhatif.scheduling.queue import GangQueue

if TYPE_CHECKING:
    from kwhatif.scheduling.incremental import Engine

MIN_FEASIBLE_NODES_TO_FIND = 100
COMPACT_KEEP_FAILURES = 20  # attempts that keep every node's record in a compact run
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


@dataclass(slots=True)
class Attempt:
    """One scheduling cycle of one pod, with everything the framework said: the records of the
    filter pass (NodesFit) and of the score pass (Prioritized) as the cycle returned them."""

    pod: Pod
    profile: str
    round: int
    result: PodOutcome = PodOutcome.UNSCHEDULABLE
    node: str | None = None
    message: str = ""
    # findNodesThatFitPod's record; None when the cycle ended before it (being deleted, no nodes).
    # A pod PreEnqueue gated has one with the gate's status as its PreFilter record and no node.
    fit: NodesFit | None = None
    # prioritizeNodes' record, when schedulePod picked a node (the binding may still fail)
    prioritized: Prioritized | None = None
    weights: dict[str, int] = field(default_factory=dict)
    nominated_node: str = ""
    victims: list[Pod] = field(default_factory=list)
    preemption_details: PreemptionDetails | None = None
    binding: Binding | None = None
    notes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    pre_score_skipped: frozenset[str] = frozenset()  # PreScore's Skips when scoring then failed
    reason_counts: dict[str, int] = field(default_factory=dict)  # FitError histogram, kept when compacted
    num_nodes: int = 0
    cycle: int = 0  # which ScheduleOne call (the members of one pod-group cycle share it)
    pod_group: str = ""  # "namespace/name" of the pod's PodGroup when it went through a pod-group cycle
    # the devices of the pod's claims on the chosen node, kept when the per-node records are dropped
    kept_claims: tuple[ClaimDevices, ...] = ()

    def compact(self) -> None:
        """Drop the per-node records, keeping the verdict, the chosen node's scores and the
        counts of the reasons nodes gave (what a many-pod report needs). The records are
        replaced, never changed: the kept cycles of kwhatif.incremental and the copies of a
        reused attempt hold the same ones."""
        fit, prio = self.fit, self.prioritized
        counts: dict[str, int] = {}
        if fit is not None:
            self.kept_claims = self.claims
            if fit.filter_reasons is not None:
                counts = fit.filter_reasons
            else:
                for name, fr in fit.filters.items():
                    if name in fit.excluded or fr.first is None:
                        continue
                    for r in fr.first.reasons:
                        counts[r] = counts.get(r, 0) + 1
            self.fit = dataclasses.replace(fit, filters={}, filter_reasons=None, feasible_names=None)
        self.reason_counts = counts
        if prio is not None:
            kept = {self.node: prio.scores[self.node]} if self.node is not None and self.node in prio.scores else {}
            self.prioritized = dataclasses.replace(prio, scores=kept)

    @property
    def feasible(self) -> list[str]:
        return self.fit.feasible if self.fit is not None else []

    @property
    def claims(self) -> tuple[ClaimDevices, ...]:
        """The devices each claim of the pod gets (or holds) on the chosen node, as its filters
        recorded them; those kept by compact() once the records are gone."""
        fr = self.fit.filters.get(self.node) if self.fit is not None and self.node is not None else None
        if fr is None:
            return self.kept_claims
        return tuple(c for st in fr.statuses for c in st.allocations)

    @property
    def evaluated_nodes(self) -> int:
        """ScheduleResult.EvaluatedNodes: the nodes the filter pass evaluated, once a node was picked."""
        return self.fit.evaluated_nodes if self.fit is not None and self.prioritized is not None else 0

    @property
    def feasible_nodes(self) -> int:
        """ScheduleResult.FeasibleNodes, once a node was picked."""
        return self.fit.feasible_nodes if self.fit is not None and self.prioritized is not None else 0

    @property
    def skipped_score_plugins(self) -> frozenset[str]:
        """The score plugins PreScore skipped (Skip), if PreScore ran."""
        return self.prioritized.skipped_score_plugins if self.prioritized is not None else self.pre_score_skipped


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes upstream looks for before it stops filtering."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * percentage // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


class Scheduler:
    def __init__(
        self,
        cluster: ClusterState,
        config: SchedulerConfiguration,
        *,
        snapshot: Snapshot | None = None,
        binder: Binder | None = None,
        options: Options = Options(),
        registry: Registry | None = None,
        feature_gates: Mapping[str, bool] | None = None,
    ) -> None:
        """``registry`` names the plugins the profiles may enable (default: the in-tree ones);
        ``feature_gates`` overrides the release's gate defaults (gang scheduling reads them)."""
        self.cluster = cluster
        self.config = config
        self.options = options
        self.version = config.version
        if cluster.version.release != config.version.release:
            # The cluster's pods count (requests, host ports) as the release being reproduced counts them.
            cluster.use_version(config.version)
        self.snapshot = snapshot if snapshot is not None else Snapshot(cluster.nodes.values(), cluster.pods)
        self.binder: Binder = binder or RecordingBinder()
        self.nominator = Nominator()
        self.frameworks: dict[str, Framework] = {}
        # Work kept across cycles (kwhatif.incremental), shared by the profiles' frameworks,
        # which consult it at their extension points.
        self.engine: Engine | None = None
        if options.incremental and options.explain_all_filters:
            from kwhatif.scheduling.incremental import Engine

            self.engine = Engine(self.snapshot, self.nominator)
        reg = registry if registry is not None else in_tree()
        for prof in config.profiles:
            # Each profile's plugins get their own framework as their handle (preemption re-runs
            # that profile's filters); the snapshot and the nominator are shared.
            try:
                fw = Framework(
                    reg,
                    prof,
                    snapshot=self.snapshot,
                    cluster=cluster,
                    nominator=self.nominator,
                    binder=self.binder,
                    version=config.version,
                    cache=self.engine,
                )
            except ConfigError as e:
                raise e.with_context(source=config.source or None) from None
            self.frameworks[prof.scheduler_name] = fw
        # Pending pods of the cluster that a preemption nominated keep their place on that node:
        # upstream's queue nominates them when it takes them in.
        for p in cluster.pending_pods:
            if p.nominated_node_name and p.nominated_node_name in self.snapshot:
                self.nominator.add(p, p.nominated_node_name)
        self.deleted: list[Pod] = []  # victims of preemption, in order
        # The nodes a pod-group cycle's placement limits its members to (None: every node).
        self._placement: frozenset[str] | None = None
        self._placement_nodes: list[NodeInfo] = []
        # Workload pod groups: the gang-aware part of the queue and the cache's group state
        refuse_unserved(
            [*cluster.scheduling_workloads.values(), *cluster.pod_groups.values()],
            dict(self.version.behaviour.workload_api_served),
            str(self.version.release),
        )
        self.pod_group_states = cluster.pod_group_states
        self.gang = GangQueue(
            gang_gates(self.version, feature_gates or {}),
            cluster.pod_groups,
            self.pod_group_states,
            self.version.behaviour,
        )

    # --- queue ----------------------------------------------------------------------------------

    def framework_for(self, pod: Pod) -> Framework:
        fw = self.frameworks.get(pod.scheduler_name)
        if fw is None:
            names = ", ".join(sorted(self.frameworks))
            raise InputError(
                f'no profile for schedulerName "{pod.scheduler_name}" (profiles: {names})',
                obj=f"Pod {pod.key}",
                field="spec.schedulerName",
                source=pod.source or None,
            )
        return fw

    def queue_order(self, pods: list[Pod], timestamps: list[float] | None = None) -> list[Pod]:
        infos = [QueuedPodInfo(p, timestamps[i] if timestamps else p.creation_timestamp, i) for i, p in enumerate(pods)]
        if not infos:
            return []
        fw = self.framework_for(pods[0])
        qs = fw.queue_sort()

        def cmp(a: QueuedPodInfo, b: QueuedPodInfo) -> int:
            if qs.less(a, b):
                return -1
            if qs.less(b, a):
                return 1
            return 0

        return [qi.pod for qi in sorted(infos, key=functools.cmp_to_key(cmp))]

    def run(self, pods: list[Pod], rounds: int = 2, *, skip_unchanged: bool = False) -> list[Attempt]:
        """Schedule pods in queue order; then retry the ones left, once per extra round.

        With ``skip_unchanged``, a retry when nothing was placed or removed since the pod's last
        attempt and it carries no new nomination is not evaluated again: its answer could not
        differ, so the last attempt's answer is recorded as this round's attempt.
        """
        return [att for att, _ in self.iter_run(pods, rounds, skip_unchanged=skip_unchanged)]

    def iter_run(
        self, pods: list[Pod], rounds: int = 2, *, skip_unchanged: bool = False
    ) -> Iterator[tuple[Attempt, bool]]:
        """run(), each attempt as soon as it ends, with whether it is its pod's last (a pod that
        failed is tried again in the next round, if there is one)."""
        for p in pods:
            self.framework_for(p)
        pods = self.gang.prepare(self.cluster.pods, pods)
        pending = self.queue_order(pods)
        for p in pending:
            if p.nominated_node_name and p.nominated_node_name in self.snapshot:
                self.nominator.add(p, p.nominated_node_name)
        failed_at: dict[str, tuple[int, int]] = {}
        failed: dict[str, Attempt] = {}
        kept_failures = 0
        last_failure: tuple[Pod, tuple[int, int], Attempt] | None = None
        task = progress.task("placing pods", len(pending), "pods")
        for rnd in range(1, rounds + 1):
            task.update(task.done, task.done + len(pending))
            left: list[Pod] = []
            popped: set[str] = set()  # members a pod-group cycle took out of the queue
            for pod in pending:
                key = pod_id(pod)
                if key in popped:
                    continue
                # What this attempt sees; one that changed it (a preemption evicting its victims)
                # is not "unchanged" for the retry.
                seen = self._generation()
                group = self.gang.group_of(pod)
                if group:
                    batch = self._schedule_pod_group(pod, [p for p in pending if pod_id(p) not in popped], rnd)
                    popped.update(pod_id(a.pod) for a in batch)
                    for a in batch:
                        task.advance()
                        again = a.result in (PodOutcome.UNSCHEDULABLE, PodOutcome.ERROR) and not self.binder.settled(
                            a.pod
                        )
                        if again:
                            left.append(a.pod)
                        yield a, not (again and rnd < rounds)
                    continue
                att = None
                if skip_unchanged and rnd > 1 and failed_at.get(key) == seen:
                    prev = failed[key]
                    att = dataclasses.replace(prev, pod=pod, round=rnd, notes=list(prev.notes))
                if att is None:
                    att = self._same_as_last_failure(pod, rnd, last_failure)
                if att is None:
                    att = self.schedule_one(pod, rnd)
                    if att.result == PodOutcome.UNSCHEDULABLE and not att.nominated_node and _reusable(pod):
                        last_failure = (shape(pod), self._generation(), att)
                if att.result is not PodOutcome.GATED:
                    self.gang.single()
                    att.cycle = self.gang.cycles
                task.advance()
                if self.options.compact:
                    if att.result == PodOutcome.SCHEDULED or kept_failures >= COMPACT_KEEP_FAILURES:
                        att.compact()
                    else:
                        kept_failures += 1
                if att.result in (PodOutcome.UNSCHEDULABLE, PodOutcome.ERROR):
                    failed_at[key] = seen
                    failed[key] = att
                    # A binding the cluster refused is reported, never posted again.
                    if not self.binder.settled(pod):
                        left.append(pod)
                yield att, not (left and left[-1] is pod and rnd < rounds)
            if not left:
                break
            # The next round re-activates the pods still pending, as a live cluster does once the
            # victims are gone: a preemptor's status.nominatedNodeName has reached the queue, whose
            # nominator keeps it, so its retry tries that node first (evaluateNominatedNode) and
            # the lower-or-equal priority pods of the round see it there. A nomination cleared
            # since (by a higher-priority preemptor on the same node) is gone from the status too.
            left = [self._with_nomination(p) for p in left]
            # Failed pods re-enter the queue when they fail: their new timestamps keep the order
            # they failed in, after priority.
            pending = self.queue_order(left, [float(i) for i in range(len(left))])
        task.close()

    def _schedule_pod_group(self, first: Pod, queued: list[Pod], rnd: int) -> list[Attempt]:
        """One pod-group cycle (kwhatif.gang): the group of ``first`` and its members still queued."""

        def schedule(p: Pod, cycle: PodGroupCycle | None) -> Attempt:
            att = self.schedule_one(p, rnd, cycle)  # without a cycle: a member PreEnqueue keeps out
            if cycle is not None:
                att.cycle, att.pod_group = self.gang.cycles, cycle.key
            return att

        def blank(p: Pod) -> Attempt:
            fw = self.framework_for(p)
            att = Attempt(pod=p, profile=fw.profile_name, round=rnd, num_nodes=self.snapshot.num_nodes)
            att.cycle, att.pod_group = self.gang.cycles, f"{p.namespace}/{p.pod_group}"
            return att

        def enqueued(p: Pod) -> bool:
            return self.framework_for(p).run_pre_enqueue(p).is_success()

        # the cycle hands back the Attempts schedule() and blank() made
        return cast("list[Attempt]", self.gang.schedule_group(first, queued, rnd, self, schedule, blank, enqueued))

    # --- placements (TopologyAwareWorkloadScheduling) ---------------------------------------------

    def assume_placement(self, placement: Placement) -> None:
        """Snapshot.AssumePlacement: members are filtered and scored on the placement's nodes only
        (a placement of every node is no limit)."""
        if len(placement.nodes) == self.snapshot.num_nodes:
            self.forget_placement()
            return
        self._placement = frozenset(placement.nodes)
        self._placement_nodes = [ni for ni in (self.snapshot.get(n) for n in placement.nodes) if ni is not None]

    def forget_placement(self) -> None:
        self._placement = None
        self._placement_nodes = []

    def nodes_in_placement(self) -> list[NodeInfo]:
        """ListNodesInPlacement: the snapshot's nodes, or the assumed placement's."""
        return self._placement_nodes if self._placement is not None else self.snapshot.node_infos

    @property
    def num_nodes_in_placement(self) -> int:
        return len(self._placement_nodes) if self._placement is not None else self.snapshot.num_nodes

    @contextlib.contextmanager
    def without_preemption(self) -> Iterator[None]:
        """Cycles run meanwhile skip PostFilter (a pod group's workload-aware preemption tries
        the group without preempting for its members)."""
        saved = self.options
        self.options = dataclasses.replace(saved, preemption=False)
        try:
            yield
        finally:
            self.options = saved

    def evict(self, pod: Pod) -> None:
        """Delete a preemption victim."""
        if self.snapshot.remove_pod(pod):
            self.deleted.append(pod)
        self.pod_group_states.delete_pod(pod)

    def _with_nomination(self, pod: Pod) -> Pod:
        """The pod as its next attempt sees it: status.nominatedNodeName as the nominator holds it."""
        node = self.nominator.node_of.get(pod_id(pod), "")
        if node == pod.nominated_node_name:
            return pod
        return dataclasses.replace(pod, nominated_node_name=node)

    def _same_as_last_failure(
        self, pod: Pod, rnd: int, last: tuple[Pod, tuple[int, int], Attempt] | None
    ) -> Attempt | None:
        """A pod identical to the one that just failed, on a cluster that has not changed since,
        fails the same way: reuse that answer instead of filtering every node again (replicas of
        a workload that does not fit)."""
        if last is None or not _reusable(pod):
            return None
        key, generation, att = last
        if generation != self._generation() or shape(pod) != key:
            return None
        return dataclasses.replace(att, pod=pod, round=rnd, notes=list(att.notes))

    def _generation(self) -> tuple[int, int]:
        """Changes to what a cycle sees: placements and removals, and nominations."""
        return (self.snapshot.generation, self.nominator.version)

    # --- scheduleOne ----------------------------------------------------------------------------

    def schedule_one(self, pod: Pod, rnd: int = 1, cycle: PodGroupCycle | None = None) -> Attempt:
        """One scheduling cycle and its binding cycle (scheduleOne), recorded as an Attempt; in a
        pod-group ``cycle``, the member only assumes its node and the cycle decides the rest."""
        fw = self.framework_for(pod)
        att = Attempt(pod=pod, profile=fw.profile_name, round=rnd, num_nodes=self.num_nodes_in_placement)
        att.notes.extend(pod.admission_notes)
        att.weights = {pl.name: fw.score_weights[pl.name] for pl in fw.points["score"]}
        gate = fw.run_pre_enqueue(pod)
        if not gate.is_success():
            att.result = PodOutcome.GATED
            att.message = gate.message()
            att.fit = NodesFit(PreFilterRecord(None, gate, [gate], frozenset()))
            return att
        if pod.deleting:
            # skipPodSchedule: a pod being deleted is not scheduled.
            att.result = PodOutcome.ERROR
            att.message = "the pod is being deleted (metadata.deletionTimestamp is set): the scheduler skips it"
            return att
        if self.num_nodes_in_placement == 0:
            att.result = PodOutcome.UNSCHEDULABLE
            att.message = "no nodes available to schedule pods"
            return att
        state = CycleState()
        fit = att.fit = self.find_nodes_that_fit_pod(fw, state, pod)
        att.notes.extend(fit.notes)
        scheduled = self.schedule_pod(fw, state, pod, fit)
        if isinstance(scheduled, Status):
            att.pre_score_skipped = state.skip_score_plugins  # PreScore ran, if scoring failed
            att.result = PodOutcome.ERROR
            att.message = scheduled.message()
            return att
        if isinstance(scheduled, FitError):
            # Hints read the snapshot this cycle saw, before preemption changes it.
            att.hints = hints(pod, fit, self.snapshot, fw)
            nominating = self.handle_fit_error(fw, state, pod, scheduled, att.notes)
            att.result = PodOutcome.UNSCHEDULABLE
            att.message = scheduled.error()
            if nominating is not None:
                att.nominated_node = nominating.nominated_node_name
                att.victims = list(nominating.victims)
                att.preemption_details = nominating.details
                if cycle is not None:
                    cycle.place_nominated(fw, state, pod, nominating.nominated_node_name)
            return att
        prio = att.prioritized = scheduled.prioritized
        assert prio is not None
        att.notes.extend(prio.notes)
        place = cycle.place if cycle is not None else self.assume_and_bind
        att.result, att.message, att.binding, notes = place(fw, state, pod, scheduled.suggested_host)
        att.notes.extend(notes)
        if att.result is PodOutcome.SCHEDULED:
            att.node = scheduled.suggested_host
        return att

    def schedule_pod(
        self, fw: Framework, state: CycleState, pod: Pod, fit: NodesFit
    ) -> ScheduleResult | FitError | Status:
        """schedulePod after findNodesThatFitPod: the node picked (with the scores it was picked
        by), the FitError when none fits, or the error that ended the cycle."""
        if fit.error is not None:
            return fit.error
        feasible = fit.feasible
        if not feasible:
            return FitError(pod, self.num_nodes_in_placement, fit.diagnosis)
        prio = self.prioritize_nodes(fw, state, pod, fit, feasible)
        if isinstance(prio, Status):
            return prio
        host = self.select_host(pod, fit, prio)
        return ScheduleResult(host, fit.evaluated_nodes, fit.feasible_nodes, prioritized=prio)

    def find_nodes_that_fit_pod(self, fw: Framework, state: CycleState, pod: Pod) -> NodesFit:
        """findNodesThatFitPod, evaluating every node (not only as many as upstream needs)."""
        pre = fw.run_pre_filter(state, pod)
        fit = NodesFit(pre)
        all_nodes = self.nodes_in_placement()
        placement = self._placement
        if not pre.status.is_success():
            if not pre.status.is_rejected():
                fit.error = pre.status
                return fit
            fit.at_pre_filter = True
            st = pre.status
            fit.diagnosis.pre_filter_msg = st.message()
            for ni in all_nodes:
                fit.filters[ni.name] = FilterResult(ni.name, [st], st)
            fit.diagnosis.node_to_status = {ni.name: st for ni in all_nodes}
            return fit
        included: set[str] | None = None
        to_filter = all_nodes
        if pre.result is not None and not pre.result.all_nodes():
            assert pre.result.node_names is not None
            included = {
                n for n in pre.result.node_names if n in self.snapshot and (placement is None or n in placement)
            }
            if self.options.filter_excluded:
                fit.excluded = frozenset(ni.name for ni in all_nodes if ni.name not in pre.result.node_names)
            else:
                # Only what upstream filters: the subset, and the nominated node (tried first).
                wanted = included | ({pod.nominated_node_name} & self.snapshot.names)
                if placement is not None:
                    wanted &= placement
                to_filter = [ni for ni in (self.snapshot.get(n) for n in sorted(wanted)) if ni is not None]
        statuses: dict[str, Status] = {}
        error: Status | None = None
        all_plugins = self.options.explain_all_filters
        # the template cache answers for every node: not while a placement limits them
        reused = fw.run_filter_from_cache(state, pod, pre) if placement is None else None
        filters = fit.filters
        if reused is not None:
            # the same results, mostly kept from earlier cycles of identical pods
            filters = fit.filters = reused.filters
            fit.feasible_names = reused.feasible_names
            fit.filter_reasons = reused.filter_reasons
            statuses, error = reused.statuses, reused.error
            to_filter = []
        for ni in to_filter:
            fr = fw.run_filter_with_nominated_pods(state, pod, ni, all_plugins=all_plugins)
            filters[ni.name] = fr
            if included is not None and ni.name not in included:
                continue
            if fr.first is not None:
                statuses[ni.name] = fr.first
                if fr.first.code is Code.ERROR and error is None:
                    error = fr.first
        fit.diagnosis.node_to_status = statuses
        # evaluateNominatedNode: a pod nominated by an earlier preemption is tried on that node
        # first, PreFilterResult or not; if it fits there, upstream looks no further (and never
        # sees what the other nodes would have said).
        nominated = pod.nominated_node_name
        if nominated and nominated in filters:
            nominated_result = filters[nominated]
            if nominated_result.feasible:
                fit.fast_path = True
                fit.excluded = fit.excluded - {nominated}  # it was filtered, PreFilterResult or not
                fit.evaluated_nodes = fit.feasible_nodes = 1
                fit.diagnosis.node_to_status = {}
                return fit
            assert nominated_result.first is not None
            statuses[nominated] = nominated_result.first
        if error is not None:
            fit.error = error
            return fit
        feasible = fit.feasible
        fit.evaluated_nodes = len(feasible) + len(statuses)
        fit.feasible_nodes = len(feasible)
        pct = fw.percentage_of_nodes_to_score
        if pct is None:
            pct = self.config.percentage_of_nodes_to_score
        candidates = len(included) if included is not None else len(all_nodes)
        to_find = num_feasible_nodes_to_find(pct, candidates)
        if len(feasible) > to_find:
            fit.notes.append(
                f"upstream stops filtering after {to_find} feasible nodes (percentageOfNodesToScore); "
                f"kwhatif evaluated all {len(all_nodes)} nodes"
            )
        if included is not None and self.version.behaviour.fit_error_counts_excluded_nodes:
            _add_excluded_statuses(statuses, all_nodes, included, pre.plugins_with_nodes)
        return fit

    def handle_fit_error(
        self, fw: Framework, state: CycleState, pod: Pod, err: FitError, notes: list[str]
    ) -> NominatingInfo | None:
        """The FitError branch of schedulingCycle: the PostFilter plugins (preemption), whose
        message completes the error, then the nomination they ask for (prepareCandidate removes
        the victims). The node the pod is nominated to, with its victims, if any."""
        statuses = err.diagnosis.node_to_status
        result = None
        if fw.has_post_filter_plugins() and self.options.preemption:
            result, st = fw.run_post_filter(state, pod, statuses)
            err.diagnosis.post_filter_msg = st.message()
            if st.code is Code.ERROR:
                notes.append(f"PostFilter failed: {err.diagnosis.post_filter_msg}")
        if result is None:
            # NominatingMode Noop: the pod keeps the node its status already names, if any.
            if pod.nominated_node_name:
                self.nominator.add(pod, pod.nominated_node_name)
            return None
        if not result.nominated_node_name:
            # Override with an empty name: preemption cannot help, so the nomination is cleared.
            self.nominator.delete(pod)
            return None
        node = result.nominated_node_name
        # prepareCandidate: the victims are deleted, and lower-priority pods nominated to the
        # same node lose their nomination (they may no longer fit there).
        for v in result.victims:
            self.snapshot.remove_pod(v)
            self.deleted.append(v)
        for pi in list(self.nominator.pods_for_node(node)):
            if pi.pod.priority < pod.priority:
                self.nominator.delete(pi.pod)
        self.nominator.add(pod, node)
        return NominatingInfo(node, tuple(result.victims), result.details)

    def prioritize_nodes(
        self, fw: Framework, state: CycleState, pod: Pod, fit: NodesFit, feasible: list[str]
    ) -> Prioritized | Status:
        """prioritizeNodes over the feasible nodes, or the error that ends the cycle."""
        kept = (
            fw.run_score_from_cache(state, pod, fit.fast_path, feasible, fit.feasible_names)
            if self._placement is None
            else None
        )
        if kept is not None:
            return kept
        nodes: list[NodeInfo] = sorted(
            (ni for ni in (self.snapshot.get(n) for n in set(feasible)) if ni is not None), key=lambda ni: ni.name
        )
        if not fw.has_score_plugins():
            # prioritizeNodes gives every feasible node the same score (1) without running PreScore
            # or Score; selectHost then picks one of them at random.
            prio = Prioritized(sorted(feasible))
            if len(nodes) > 1 and not fit.fast_path:
                prio.notes.append(
                    "no score plugins: upstream gives every feasible node the same score and selectHost picks one "
                    "of them at random; kwhatif takes the first by name and lists them all as the tie"
                )
            return prio
        upstream_scored = len(nodes) > 1 and not fit.fast_path
        if not upstream_scored and self.options.compact:
            # Upstream does not score a lone feasible node; a many-pod run does not show it.
            return Prioritized(sorted(feasible))
        prio = Prioritized([], upstream_scored=upstream_scored)
        st = fw.run_pre_score(state, pod, nodes)
        prio.skipped_score_plugins = state.skip_score_plugins
        if st.is_success():
            results, st = fw.run_score(state, pod, nodes)
            if st.is_success():
                prio.scores = {ns.name: ns for ns in results}
        if not st.is_success():
            if upstream_scored:
                return st
            prio.notes.append(f"scoring failed ({st.message()}); upstream does not score this pod's nodes")
        if prio.scores:
            best = max(ns.total for ns in prio.scores.values())
            prio.best_score = best
            prio.best = sorted(n for n, ns in prio.scores.items() if ns.total == best)
        else:
            prio.best = sorted(feasible)
        return prio

    def select_host(self, pod: Pod, fit: NodesFit, prio: Prioritized) -> str:
        """selectHost: the nominated node when the pod fits there (evaluateNominatedNode), else the
        first of the best-scored nodes by name (upstream picks among them at random)."""
        if fit.fast_path:
            return pod.nominated_node_name
        return prio.best[0]

    def assume_and_bind(
        self, fw: Framework, state: CycleState, pod: Pod, host: str
    ) -> tuple[PodOutcome, str, Binding | None, list[str]]:
        """assume, Reserve and Permit (the rest of schedulingCycle), then bindingCycle (PreBind,
        Bind, PostBind): how the attempt ends, its message, the binding and notes."""
        assumed = self.snapshot.assume(pod, host)
        notes: list[str] = []

        def fail(point: str, st: Status) -> tuple[PodOutcome, str]:
            fw.run_unreserve(state, assumed, host)
            self.snapshot.forget(assumed)
            if st.is_rejected():
                # Reserve and Permit rejections are reported as a FitError over the one node;
                # PreBind and Bind ones as their own message.
                msg = fit_error_message(1, "", {host: st}, "") if point in ("Reserve", "Permit") else st.message()
                return PodOutcome.UNSCHEDULABLE, msg
            return PodOutcome.ERROR, st.message()

        st = fw.run_reserve(state, assumed, host)
        if not st.is_success():
            return (*fail("Reserve", st), None, notes)
        st = fw.run_permit(state, assumed, host)
        if not st.is_success() and not st.is_wait():
            return (*fail("Permit", st), None, notes)
        if st.is_wait():
            notes.append(st.message())
        st = fw.run_pre_bind(state, assumed, host)
        if not st.is_success():
            return (*fail("PreBind", st), None, notes)
        st = fw.run_bind(state, assumed, host)
        if not st.is_success():
            outcome, msg = fail("Bind", st)
            return outcome, msg, self.binder.binding_for(pod), notes  # what the cluster answered, with --apply
        fw.run_post_bind(state, assumed, host)
        binding = self.binder.binding_for(pod) or Binding(pod.namespace, pod.name, pod.uid, host)
        self.nominator.delete(pod)
        return PodOutcome.SCHEDULED, "", binding, notes


def _add_excluded_statuses(
    statuses: dict[str, Status], all_nodes: list[NodeInfo], included: set[str], plugins: list[str]
) -> None:
    """From 1.32 the nodes a PreFilterResult left out carry this status (the FitError histogram
    counts them; preemption finds nothing to do there)."""
    st = Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(set(plugins)))}]",)
    )
    for ni in all_nodes:
        if ni.name not in included:
            statuses.setdefault(ni.name, st)


def _reusable(pod: Pod) -> bool:
    # An ephemeral volume's claim, and a ResourceClaim made from a template, are named after the
    # pod: replicas differ there.
    return not any(v.kind == "ephemeral" for v in pod.volumes) and not any(
        c.resource_claim_template_name for c in pod.resource_claims
    )
