"""The expanders and their chain (expander/{waste,mostpods,leastnodes,priority,price,random},
expander/factory/chain.go and expander_factory.go, cluster-autoscaler-release-1.36).

Each expander is a filter: it keeps the best of the options. The chain applies them in order and
stops as soon as one option is left; whatever remains goes to the random strategy, which picks
here deterministically (the first option by group name) and names the tie it broke.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.core import Node, Pod
from kwhatif.errors import InputError

GIB = 2**30
MIB = 2**20


class ExpanderName(enum.StrEnum):
    RANDOM = "random"
    MOST_PODS = "most-pods"
    LEAST_WASTE = "least-waste"
    LEAST_NODES = "least-nodes"
    PRICE = "price"
    PRIORITY = "priority"


DEFAULT_EXPANDER = "least-waste"


@dataclass(slots=True)
class Option:
    """expander.Option: a group, how many nodes it needs, the pods they would take."""

    group: str
    node_count: int
    pods: list[Pod]
    template: Node
    similar: list[str] = field(default_factory=list)
    exists: bool = True  # the group has nodes (the price expander doubles the others' score)
    debug: str = ""


@dataclass(frozen=True, slots=True)
class Step:
    """One expander of the chain: the options it kept (by group)."""

    expander: str
    kept: tuple[str, ...]


@dataclass(slots=True)
class Choice:
    """The chain's answer: the option chosen, each step, and the options the random choice broke a
    tie between (empty when no tie)."""

    best: Option | None
    steps: list[Step]
    tie: tuple[str, ...] = ()


def parse_chain(text: str) -> list[ExpanderName]:
    """--expander: a comma-separated chain (Factory.Build's checks)."""
    names: list[ExpanderName] = []
    for raw in text.split(","):
        name = raw.strip()
        try:
            e = ExpanderName(name)
        except ValueError:
            choices = ", ".join(x.value for x in ExpanderName)
            raise InputError(f"Expander {name} not supported (expanders: {choices})", field="--expander") from None
        if e in names:
            raise InputError(
                f"Expander {name} was specified multiple times, each expander must not be specified more than once",
                field="--expander",
            )
        if names and names[-1] is ExpanderName.RANDOM:
            raise InputError(
                f"Expander {name} came after an expander random that will always return only one result, "
                f"this is not allowed since {name} will never be used",
                field="--expander",
            )
        names.append(e)
    return names


# --- filters ----------------------------------------------------------------------------------


def _cpu_mem(pods: list[Pod]) -> tuple[int, int]:
    return sum(p.requests.milli_cpu for p in pods), sum(p.requests.memory for p in pods)


def capacity_of(node: Node) -> tuple[int, int]:
    """status.capacity cpu (millicores) and memory (bytes)."""
    cap = node.capacity_list or node.allocatable_list
    cpu = cap.get("cpu", Fraction(0))
    mem = cap.get("memory", Fraction(0))
    return math.ceil(cpu * 1000), math.ceil(mem)


def waste_score(o: Option) -> float:
    """least-waste: the share of the new nodes' cpu plus the share of their memory the pods leave
    unused (waste.go)."""
    req_cpu, req_mem = _cpu_mem(o.pods)
    cpu, mem = capacity_of(o.template)
    avail_cpu, avail_mem = cpu * o.node_count, mem * o.node_count
    wasted_cpu = (avail_cpu - req_cpu) / avail_cpu if avail_cpu else math.nan
    wasted_mem = (avail_mem - req_mem) / avail_mem if avail_mem else math.nan
    return wasted_cpu + wasted_mem


def least_waste(options: list[Option]) -> list[Option]:
    best: list[Option] | None = None
    best_score = 0.0
    for o in options:
        score = waste_score(o)
        o.debug = f"waste={score:.4f}"
        if best is not None and score == best_score:
            best.append(o)
        if best is None or score < best_score:
            best_score = score
            best = [o]
    return best or []


def most_pods(options: list[Option]) -> list[Option]:
    best: list[Option] = []
    most = 0
    for o in options:
        if len(o.pods) == most:
            best.append(o)
            continue
        if len(o.pods) > most:
            most = len(o.pods)
            best = [o]
    return best


def least_nodes(options: list[Option]) -> list[Option]:
    best: list[Option] = []
    least = math.inf
    for o in options:
        if o.node_count == 0:
            continue
        if o.node_count == least:
            best.append(o)
            continue
        if o.node_count < least:
            least = o.node_count
            best = [o]
    return best


def priority(options: list[Option], priorities: Mapping[int, tuple[str, ...]] | None) -> list[Option]:
    """priority.go: the options whose group matches the highest priority's regular expressions
    (RE2 search, as Go's FindStringIndex); without a table, or when none matches, all of them."""
    if not options or not priorities:
        return options
    best: list[Option] = []
    top = -1
    for o in options:
        prio = max((p for p, rxs in priorities.items() if any(re.search(rx, o.group) for rx in rxs)), default=None)
        if prio is None or prio < top:
            continue
        if prio > top:
            top = prio
            best = []
        best.append(o)
    return best or options


# price.go's constants
STABILIZATION_POD = (500, 500 * MIB)  # priceStabilizationPod: 500m cpu, 500Mi
NOT_EXIST_COEFFICIENT = 2.0
GPU_UNFITNESS_OVERRIDE = 1000.0


def preferred_node(node_count: int) -> tuple[int, int]:
    """SimplePreferredNodeProvider: the node size CA prefers for a cluster of this many nodes
    (cpu in millicores, memory in bytes)."""
    for limit, cpu, mem in ((2, 1, 3750), (6, 2, 7500), (20, 4, 15000), (60, 8, 30000), (200, 16, 60000)):
        if node_count <= limit:
            return cpu * 1000, mem * MIB
    return 32 * 1000, 120000 * MIB


def has_gpu(node: Node) -> bool:
    return bool((node.capacity_list or node.allocatable_list).get("nvidia.com/gpu")) or any(
        k in node.labels
        for k in ("cloud.google.com/gke-accelerator", "k8s.amazonaws.com/accelerator", "nvidia.com/gpu")
    )


@dataclass(frozen=True, slots=True)
class Pricing:
    """The pricing model the NodeGroups file gives: each group's node price and the pod price per
    CPU and per GiB of memory, per hour."""

    node_prices: Mapping[str, float]
    cpu: float
    memory: float

    def pod_price(self, milli_cpu: int, memory: int) -> float:
        return milli_cpu / 1000 * self.cpu + memory / GIB * self.memory


def price(
    options: list[Option],
    node_price: Callable[[Option], float | None],
    pod_price: Callable[[Pod], float],
    stabilization: float,
    preferred_cpu: int,
) -> list[Option]:
    """price.go BestOptions with SimpleNodeUnfitness: the lowest score of (node price + a
    stabilising pod's price) / (the pods' price + it), times how far the node's cpu is from the
    preferred size (suppressed as more nodes are added; 1000 for a GPU node), doubled for a group
    that does not exist yet. An option whose node has no price is left out."""
    best: list[Option] = []
    best_score = 0.0
    for o in options:
        one = node_price(o)
        if one is None:
            continue
        total_node = one * o.node_count
        total_pods = sum(pod_price(p) for p in o.pods)
        sub = (total_node + stabilization) / (total_pods + stabilization) if total_pods + stabilization else math.inf
        cpu, _ = capacity_of(o.template)
        unfit = max(preferred_cpu / cpu, cpu / preferred_cpu) if cpu else math.inf
        suppressed = (unfit - 1.0) * (1.0 - math.tanh((o.node_count - 1) / 15.0)) + 1.0
        if has_gpu(o.template):
            suppressed = GPU_UNFITNESS_OVERRIDE
        score = suppressed * sub
        if not o.exists:
            score *= NOT_EXIST_COEFFICIENT
        o.debug = f"price score={score:.4f}"
        if not best or best_score == score:
            best.append(o)
            best_score = score
        elif best_score > score:
            best = [o]
            best_score = score
    return best


def priced(options: list[Option], pricing: Pricing, cluster_nodes: int) -> list[Option]:
    """The price expander with the file's pricing model and SimplePreferredNodeProvider."""
    return price(
        options,
        lambda o: pricing.node_prices.get(o.group),
        lambda p: pricing.pod_price(p.requests.milli_cpu, p.requests.memory),
        pricing.pod_price(*STABILIZATION_POD),
        preferred_node(cluster_nodes)[0],
    )


def choose(
    options: list[Option],
    chain: list[ExpanderName],
    *,
    priorities: Mapping[int, tuple[str, ...]] | None = None,
    pricing: Pricing | None = None,
    cluster_nodes: int = 0,
) -> Choice:
    """chainStrategy.BestOption, then the random strategy (deterministic here)."""
    filters: dict[ExpanderName, Callable[[list[Option]], list[Option]]] = {
        ExpanderName.LEAST_WASTE: least_waste,
        ExpanderName.MOST_PODS: most_pods,
        ExpanderName.LEAST_NODES: least_nodes,
        ExpanderName.PRIORITY: lambda os: priority(os, priorities),
        ExpanderName.PRICE: lambda os: priced(os, pricing or Pricing({}, 0.0, 0.0), cluster_nodes),
        ExpanderName.RANDOM: lambda os: _random(os)[:1],
    }
    steps: list[Step] = []
    current = options
    for name in chain:
        if name is ExpanderName.RANDOM:
            break
        current = filters[name](current)
        steps.append(Step(name.value, tuple(o.group for o in current)))
        if len(current) == 1:
            return Choice(current[0], steps)
    if not current:
        return Choice(None, steps)
    ordered = _random(current)
    steps.append(Step(ExpanderName.RANDOM.value, (ordered[0].group,)))
    tie = tuple(o.group for o in ordered) if len(ordered) > 1 else ()
    return Choice(ordered[0], steps, tie)


def _random(options: list[Option]) -> list[Option]:
    """The random strategy's candidates in the order kwhatif picks them: by group name."""
    return sorted(options, key=lambda o: o.group)
