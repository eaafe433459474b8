"""The scheduling framework's vocabulary (pkg/scheduler/framework/interface.go, cycle_state.go).

Status codes, Status, CycleState, PreFilterResult and the plugin protocol of every extension
point. A plugin class implements the methods of the points it takes part in; the runtime decides
membership by ``isinstance`` against these ABCs, as upstream does with Go interfaces.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from kwhatif.api.core import Pod
    from kwhatif.cache.node_info import NodeInfo, PodInfo
    from kwhatif.dra.types import ClaimDevices

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = (1 << 63) - 1  # math.MaxInt64


class Code(enum.IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        return _CODE_LABELS[self]


_CODE_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True)
class Status:
    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    # kwhatif's own explanation (devices a node would get, why none fit): shown in reports,
    # never part of upstream's reasons or the FitError histogram
    details: tuple[str, ...] = ()
    # the same for data (DynamicResources: the devices of each claim on a feasible node)
    allocations: tuple[ClaimDevices, ...] = ()

    @classmethod
    def of(cls, code: Code, *reasons: str) -> Status:
        return cls(code, tuple(reasons))

    @classmethod
    def error(cls, message: str) -> Status:
        return cls(Code.ERROR, (message,))

    def is_success(self) -> bool:
        return self.code is Code.SUCCESS

    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    def is_wait(self) -> bool:
        return self.code is Code.WAIT

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        return Status(self.code, self.reasons, plugin, self.details, self.allocations)


SUCCESS = Status()
SKIP = Status(Code.SKIP)


# framework.ErrNotFound (pkg/scheduler/framework/cycle_state.go): what CycleState.Read returns for
# a key nobody wrote, for example when a profile disables a plugin's PreFilter or PreScore but
# keeps its Filter or Score. Each plugin wraps it in its own words.
ERR_NOT_FOUND = "not found"

T = TypeVar("T")


class StateKey(Generic[T]):
    """framework.StateKey: the key of one plugin's entry in CycleState, typed by what it holds."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class StateNotFoundError(LookupError):
    """framework.ErrNotFound: nothing was written under the key this cycle."""

    def __init__(self) -> None:
        super().__init__(ERR_NOT_FOUND)


class CycleState:
    """Per-cycle plugin data. Values stored must offer ``clone()`` when they are mutated by
    PreFilter extensions (AddPod/RemovePod), as upstream's StateData does."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[StateKey[Any], Any] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        self.skip_score_plugins: frozenset[str] = frozenset()

    def write(self, key: StateKey[T], value: T) -> None:
        self._data[key] = value

    def read(self, key: StateKey[T]) -> T:
        """The value written under key this cycle; StateNotFoundError (ErrNotFound) when none
        was: each plugin words that error itself, as upstream's plugins do."""
        try:
            value: T = self._data[key]
        except KeyError:
            raise StateNotFoundError() from None
        return value

    def delete(self, key: StateKey[Any]) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self._data.items():
            clone = getattr(v, "clone", None)
            c._data[k] = clone() if callable(clone) else v
        c.skip_filter_plugins = self.skip_filter_plugins
        c.skip_score_plugins = self.skip_score_plugins
        return c


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """A subset of nodes worth filtering; ``None`` node_names means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class PreemptionVictim:
    pod: str  # namespace/name
    priority: int
    pdb_violation: bool


@dataclass(frozen=True, slots=True)
class PreemptionCandidate:
    """A node where preemption would let the pod fit, as pickOneNodeForPreemption compared it."""

    node: str
    victims: tuple[str, ...]  # namespace/name
    num_pdb_violations: int
    highest_priority: int
    sum_priorities: int


@dataclass(frozen=True, slots=True)
class PreemptionDetails:
    """What the report shows about a preemption: every victim with its priority and PDB verdict,
    the rule that picked the node, and the candidates that were compared."""

    node: str
    selected_by: str
    victims: tuple[PreemptionVictim, ...]
    pdb_violating_victims: tuple[str, ...]  # sorted
    num_pdb_violations: int
    candidates: tuple[PreemptionCandidate, ...]


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    nominated_node_name: str = ""
    victims: tuple[Pod, ...] = ()
    details: PreemptionDetails | None = None


# --- plugin protocols --------------------------------------------------------------------------


class Plugin(abc.ABC):  # noqa: B024 (the extension points below declare the abstract methods)
    NAME: str = ""

    @property
    def name(self) -> str:
        return self.NAME


class QueueSortPlugin(Plugin):
    @abc.abstractmethod
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


class PreEnqueuePlugin(Plugin):
    @abc.abstractmethod
    def pre_enqueue(self, pod: Pod) -> Status: ...


class PreFilterExtensions(abc.ABC):
    @abc.abstractmethod
    def add_pod(self, state: CycleState, pod: Pod, to_add: PodInfo, node_info: NodeInfo) -> Status: ...

    @abc.abstractmethod
    def remove_pod(self, state: CycleState, pod: Pod, to_remove: PodInfo, node_info: NodeInfo) -> Status: ...


class PreFilterPlugin(Plugin):
    @abc.abstractmethod
    def pre_filter(self, state: CycleState, pod: Pod) -> tuple[PreFilterResult | None, Status]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    @abc.abstractmethod
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...


class PostFilterPlugin(Plugin):
    @abc.abstractmethod
    def post_filter(
        self, state: CycleState, pod: Pod, statuses: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]: ...


class PreScorePlugin(Plugin):
    @abc.abstractmethod
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status: ...


class ScorePlugin(Plugin):
    @abc.abstractmethod
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]: ...

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """None: the plugin has no ScoreExtensions."""
        return None


class ReservePlugin(Plugin):
    @abc.abstractmethod
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...

    @abc.abstractmethod
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class PermitPlugin(Plugin):
    @abc.abstractmethod
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]: ...


class PreBindPlugin(Plugin):
    @abc.abstractmethod
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...


class BindPlugin(Plugin):
    @abc.abstractmethod
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...


class PostBindPlugin(Plugin):
    @abc.abstractmethod
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@dataclass(slots=True)
class QueuedPodInfo:
    pod: Pod
    timestamp: float  # when it entered the queue
    order: int  # position among the inputs, the last tie-breaker
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class Placement:
    """A set of nodes a pod group is tried on as a whole (fwk.Placement, 1.36): ``name`` is the
    topology domain ('' for the placement of every node); ``nodes`` are node names in the
    snapshot's order."""

    name: str
    nodes: tuple[str, ...]


class PlacementGeneratePlugin(Plugin):
    """PlacementGeneratePlugin (1.36): the placements a pod group's cycle tries, given the parent
    placement (every node in the snapshot)."""

    @abc.abstractmethod
    def generate_placements(self, namespace: str, group: str, parent: Placement) -> tuple[list[Placement], Status]: ...


class PlacementScorePlugin(Plugin):
    """PlacementScorePlugin (1.36): a placement's score from the members it placed (proposed:
    pod key -> node, those with a node), then normalized over every feasible placement."""

    @abc.abstractmethod
    def score_placement(self, namespace: str, group: str, proposed: Mapping[str, str]) -> tuple[int, Status]: ...

    def normalize_placement_scores(self, scores: list[int]) -> Status:
        """NormalizePlacementScore, in place; plugins without PlacementScoreExtensions keep it."""
        return Status(Code.SUCCESS, ())


EXTENSION_POINTS: tuple[tuple[str, type[Plugin]], ...] = (
    ("preEnqueue", PreEnqueuePlugin),
    ("queueSort", QueueSortPlugin),
    ("preFilter", PreFilterPlugin),
    ("filter", FilterPlugin),
    ("postFilter", PostFilterPlugin),
    ("preScore", PreScorePlugin),
    ("score", ScorePlugin),
    ("reserve", ReservePlugin),
    ("permit", PermitPlugin),
    ("preBind", PreBindPlugin),
    ("bind", BindPlugin),
    ("postBind", PostBindPlugin),
    ("placementGenerate", PlacementGeneratePlugin),
    ("placementScore", PlacementScorePlugin),
)


class Binder(abc.ABC):
    """Where DefaultBinder's Bind sends a binding (upstream posts a v1 Binding through the
    clientset). kwhatif.binder implements it: recorded by default, posted with --apply; the
    scheduler also reads back what the cluster answered."""

    @abc.abstractmethod
    def bind(self, pod: Pod, node_name: str) -> Status: ...
