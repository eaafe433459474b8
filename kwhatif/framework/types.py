"""Records shared by the scheduler, the plugins and every report (pkg/scheduler/framework/types.go).

The outcome of one scheduling attempt, the FitError with its Diagnosis, the ScheduleResult of
schedulePod, and the per-node records of the filter and score passes: plugins (preemption) render
the same message the scheduler does, and the report, check, capacity and drain read the same
outcome enum.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kwhatif.framework.interface import PreemptionDetails, PreFilterResult, Status

if TYPE_CHECKING:
    from kwhatif.api.core import Pod

NO_NODE_AVAILABLE_MSG = "0/{n} nodes are available"


class PodOutcome(enum.StrEnum):
    """How one scheduling attempt of a pod ended."""

    SCHEDULED = "Scheduled"
    UNSCHEDULABLE = "Unschedulable"  # a FitError, or a rejection at Reserve/Permit/PreBind
    ERROR = "Error"  # a plugin or the framework failed: upstream retries with backoff
    GATED = "Gated"  # PreEnqueue kept it out of the active queue


def fit_error_message(num_nodes: int, pre_filter_msg: str, statuses: Mapping[str, Status], post_filter_msg: str) -> str:
    """framework.FitError.Error(): the PreFilter message, else the sorted histogram of every
    node's reasons, then the PostFilter message."""
    msg = NO_NODE_AVAILABLE_MSG.format(n=num_nodes) + ":"
    if pre_filter_msg:
        msg += f" {pre_filter_msg}."
    else:
        counts: dict[str, int] = {}
        for st in statuses.values():
            for r in st.reasons:
                counts[r] = counts.get(r, 0) + 1
        entries = sorted(f"{v} {k}" for k, v in counts.items())
        if entries:
            msg += " " + ", ".join(entries) + "."
    if post_filter_msg:
        msg += f" {post_filter_msg}"
    return msg


# --- the filter pass -----------------------------------------------------------------------------


@dataclass(slots=True)
class FilterResult:
    """Every filter plugin's status on one node, in profile order (Skip for PreFilter-skipped
    plugins), and the one upstream would report (the first non-success), if any."""

    node: str
    statuses: list[Status]
    first: Status | None = None
    with_nominated: bool = False  # the failure came from the pass with nominated pods added

    @property
    def feasible(self) -> bool:
        return self.first is None


@dataclass(slots=True)
class PreFilterRecord:
    result: PreFilterResult | None
    status: Status
    statuses: list[Status]  # every PreFilter plugin that ran, with its plugin name
    skipped: frozenset[str]
    plugins_with_nodes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Diagnosis:
    """framework.Diagnosis: why the nodes did not fit."""

    node_to_status: dict[str, Status] = field(default_factory=dict)  # the nodes that failed
    pre_filter_msg: str = ""  # set when PreFilter rejected the pod for every node
    post_filter_msg: str = ""


@dataclass(slots=True)
class FitError:
    """framework.FitError: no node fits the pod (the error schedulePod returns)."""

    pod: Pod
    num_all_nodes: int
    diagnosis: Diagnosis

    def error(self) -> str:
        d = self.diagnosis
        return fit_error_message(self.num_all_nodes, d.pre_filter_msg, d.node_to_status, d.post_filter_msg)


@dataclass(slots=True)
class NominatingInfo:
    """framework.NominatingInfo: the node a PostFilter nominated, and the pods evicted for it."""

    nominated_node_name: str
    victims: tuple[Pod, ...] = ()
    details: PreemptionDetails | None = None


@dataclass(slots=True)
class ScheduleResult:
    """ScheduleResult (schedule_one.go): the node picked, how many nodes the filter pass evaluated
    and how many of them fit; kwhatif adds the scores the node was picked by."""

    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int
    prioritized: Prioritized | None = None


@dataclass(slots=True)
class NodesFit:
    """findNodesThatFitPod's answer (the feasible nodes, the Diagnosis of the others, or an error),
    with kwhatif's record of every node it filtered."""

    pre_filter: PreFilterRecord
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    filters: dict[str, FilterResult] = field(default_factory=dict)  # every node filtered, node order
    excluded: frozenset[str] = frozenset()  # not in the PreFilterResult (filtered all the same)
    at_pre_filter: bool = False  # PreFilter rejected the pod for every node
    fast_path: bool = False  # fits its nominated node: upstream looks no further
    error: Status | None = None  # PreFilter or a Filter plugin failed
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    feasible_names: list[str] | None = None  # the feasible nodes, when the filter pass knows them
    filter_reasons: dict[str, int] | None = None  # the FitError histogram, when it keeps one
    notes: list[str] = field(default_factory=list)

    @property
    def feasible(self) -> list[str]:
        if self.feasible_names is not None:
            return list(self.feasible_names)
        return [n for n, fr in self.filters.items() if fr.feasible and n not in self.excluded]


# --- the score pass ------------------------------------------------------------------------------


@dataclass(slots=True)
class PluginScore:
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int


@dataclass(slots=True)
class NodeScores:
    name: str
    scores: list[PluginScore] = field(default_factory=list)
    total: int = 0


@dataclass(slots=True)
class Prioritized:
    """prioritizeNodes' answer: every feasible node's scores (when they were computed) and the
    nodes that share the best total, which selectHost picks from."""

    best: list[str]
    scores: Mapping[str, NodeScores] = field(default_factory=dict)
    best_score: int | None = None
    upstream_scored: bool = False  # upstream scores these nodes (more than one feasible node)
    skipped_score_plugins: frozenset[str] = frozenset()  # PreScore returned Skip
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Filtered:
    """A cycle's filter pass as the per-template cache answers it, mostly kept from earlier
    cycles of identical pods."""

    filters: dict[str, FilterResult]  # every node, node order
    feasible_names: list[str]
    filter_reasons: dict[str, int]  # the FitError histogram
    statuses: dict[str, Status]  # the nodes that failed
    error: Status | None
