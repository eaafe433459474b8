"""The predicate checks cluster-autoscaler runs through the scheduler framework
(simulator/clustersnapshot/predicate/plugin_runner.go, cluster-autoscaler-release-1.36): PreFilter
once, then Filter on the nodes asked about; no Score. The plugins are kwhatif's own, for the
selected release, profile and feature gates: this module only drives them over a snapshot that
template copies are added to and taken from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kwhatif.api.core import Node, Pod
from kwhatif.cache.snapshot import Snapshot
from kwhatif.framework.interface import CycleState, Status
from kwhatif.scheduling.scheduler import Scheduler

# podtopologyspread's ErrReasonConstraintsNotMatch, which the estimator looks for
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a pod does not fit a node: the failing plugins with their reasons (in profile order),
    or the PreFilter that rejected it everywhere."""

    plugins: tuple[str, ...]
    reasons: tuple[str, ...]
    pre_filter: bool = False

    def text(self) -> str:
        return "; ".join(self.reasons)


def _failure(statuses: Iterable[Status], pre_filter: bool = False) -> Failure:
    plugins: list[str] = []
    reasons: list[str] = []
    for st in statuses:
        if st.is_success() or st.is_skip():
            continue
        plugins.append(st.plugin)
        reasons.extend(st.reasons or (st.code.name,))
    return Failure(tuple(plugins), tuple(dict.fromkeys(reasons)), pre_filter)


class Simulator:
    """CheckPredicates, SchedulePod and SchedulePodOnAnyNodeMatching over a scheduler's snapshot
    and frameworks."""

    def __init__(self, sched: Scheduler) -> None:
        self.sched = sched
        self.snapshot: Snapshot = sched.snapshot

    def _pre_filter(self, pod: Pod) -> tuple[CycleState, frozenset[str] | None, Failure | None]:
        fw = self.sched.framework_for(pod)
        state = CycleState()
        pre = fw.run_pre_filter(state, pod)
        if not pre.status.is_success():
            return state, None, _failure([pre.status], pre_filter=True)
        allowed = None if pre.result is None or pre.result.all_nodes() else pre.result.node_names
        return state, allowed, None

    def check(self, pod: Pod, node: str, *, all_plugins: bool = False) -> Failure | None:
        """RunFiltersOnNode: None when the pod fits the node; else why not (``all_plugins``: every
        failing filter, not only the first, as upstream stops at)."""
        state, allowed, fail = self._pre_filter(pod)
        if fail is not None:
            return fail
        if allowed is not None and node not in allowed:
            fw = self.sched.framework_for(pod)
            names = [s.plugin for s in fw.run_pre_filter(CycleState(), pod).statuses if s.plugin]
            return Failure(tuple(names), (f"PreFilter filtered the node out ({', '.join(names)})",), True)
        ni = self.snapshot.get(node)
        assert ni is not None, node
        fr = self.sched.framework_for(pod).run_filter(state, pod, ni, all_plugins=all_plugins)
        if fr.first is None:
            return None
        return _failure(fr.statuses if all_plugins else [fr.first])

    def fits_any(self, pod: Pod, nodes: list[str], start: int = 0) -> int:
        """RunFiltersUntilPassingNode over ``nodes`` from position ``start`` (wrapping): the
        position of the first that fits, or -1. Unschedulable nodes are passed over."""
        if not nodes:
            return -1
        state, allowed, fail = self._pre_filter(pod)
        if fail is not None:
            return -1
        fw = self.sched.framework_for(pod)
        n = len(nodes)
        for i in range(n):
            k = (start + i) % n
            name = nodes[k]
            if allowed is not None and name not in allowed:
                continue
            ni = self.snapshot.get(name)
            if ni is None or ni.node.unschedulable:
                continue
            if fw.run_filter(state, pod, ni, all_plugins=False).first is None:
                return k
        return -1

    def place(self, pod: Pod, node: str) -> Pod:
        return self.snapshot.assume(pod, node)

    def add_node(self, node: Node, pods: Iterable[Pod]) -> None:
        self.snapshot.add_node(node)
        for p in pods:
            self.snapshot.add_pod(p)

    def remove_node(self, name: str) -> None:
        self.snapshot.remove_node(name)
