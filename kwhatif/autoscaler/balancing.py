"""--balance-similar-node-groups (processors/nodegroupset/compare_nodegroups.go and
balancing_processor.go, cluster-autoscaler-release-1.36): groups whose template nodes are alike
(equal capacity but memory within 1.5%, allocatable and free resources within 5%, equal labels but
the ignored ones) share a scale-up, the smallest first, within each one's maximum."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from kwhatif.api.core import Pod
from kwhatif.autoscaler.template import Template

MAX_CAPACITY_MEMORY_DIFFERENCE_RATIO = 0.015
MAX_ALLOCATABLE_DIFFERENCE_RATIO = 0.05
MAX_FREE_DIFFERENCE_RATIO = 0.05
BASIC_IGNORED_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
    }
)


def _within(a: Fraction, b: Fraction, ratio: float) -> bool:
    """resourceListWithinTolerance, on milli-values."""
    larger, smaller = max(a, b) * 1000, min(a, b) * 1000
    return float(larger - smaller) <= float(larger) * ratio


def _requested(pods: tuple[Pod, ...]) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {"cpu": Fraction(0), "memory": Fraction(0)}
    for p in pods:
        out["cpu"] += Fraction(p.requests.milli_cpu, 1000)
        out["memory"] += p.requests.memory
        for k, v in p.requests.scalar.items():
            out[k] = out.get(k, Fraction(0)) + v
        if p.requests.ephemeral_storage:
            out["ephemeral-storage"] = out.get("ephemeral-storage", Fraction(0)) + p.requests.ephemeral_storage
    return out


def dissimilarity(t1: Template, t2: Template, ignored: frozenset[str] = BASIC_IGNORED_LABELS) -> str | None:
    """IsCloudProviderNodeInfoSimilar: None when alike, else what differs (its log's words)."""
    n1, n2 = t1.node, t2.node
    cap1, cap2 = n1.capacity_list or n1.allocatable_list, n2.capacity_list or n2.allocatable_list
    for kind in sorted(set(cap1) | set(cap2)):
        if kind not in cap1 or kind not in cap2:
            return f'missing capacity "{kind}"'
        if kind == "memory":
            if not _within(cap1[kind], cap2[kind], MAX_CAPACITY_MEMORY_DIFFERENCE_RATIO):
                return "memory not within tolerance"
        elif cap1[kind] != cap2[kind]:
            return f'capacity resource "{kind}" does not match'
    a1, a2 = n1.allocatable_list, n2.allocatable_list
    for kind in set(a1) | set(a2):
        if kind not in a1 or kind not in a2 or not _within(a1[kind], a2[kind], MAX_ALLOCATABLE_DIFFERENCE_RATIO):
            return "allocatable resources not within tolerance"
    r1, r2 = _requested(t1.pods), _requested(t2.pods)
    for kind in set(r1) | set(r2):
        if kind not in r1 or kind not in r2:
            return "free resources not within tolerance"
        f1 = a1.get(kind, Fraction(0)) - r1[kind]
        f2 = a2.get(kind, Fraction(0)) - r2[kind]
        if not _within(f1, f2, MAX_FREE_DIFFERENCE_RATIO):
            return "free resources not within tolerance"
    labels: dict[str, list[str]] = {}
    for n in (n1, n2):
        for k, v in n.labels.items():
            if k not in ignored:
                labels.setdefault(k, []).append(v)
    if any(len(vs) != 2 or vs[0] != vs[1] for vs in labels.values()):
        return "labels do not match"
    return None


@dataclass(slots=True)
class ScaleUpInfo:
    """nodegroupset.ScaleUpInfo."""

    group: str
    current: int
    new: int
    max: int


def balance(groups: list[tuple[str, int, int]], new_nodes: int) -> list[ScaleUpInfo]:
    """BalanceScaleUpBetweenGroups over (name, current size, max size): one node at a time to the
    smallest group that has room (groups sorted by current size, stably)."""
    infos = [ScaleUpInfo(name, cur, cur, mx) for name, cur, mx in groups if cur != mx]
    total = sum(max(i.max - i.current, 0) for i in infos)
    new_nodes = min(new_nodes, total)
    infos.sort(key=lambda i: i.current)
    start = current = 0
    while new_nodes > 0:
        info = infos[current]
        if info.new < info.max:
            info.new += 1
            new_nodes -= 1
        else:
            infos[start], infos[current] = infos[current], infos[start]
            start += 1
        # upstream's pointer is to the slot, which the swap may have refilled
        if current < len(infos) - 1 and infos[current].new > infos[current + 1].new:
            current += 1
        else:
            current = start
    return [i for i in infos if i.new != i.current]


def similar_groups(name: str, templates: Mapping[str, Template]) -> list[str]:
    """FindSimilarNodeGroups: the other groups whose templates are alike, by name."""
    mine = templates[name]
    return [g for g in sorted(templates) if g != name and dissimilarity(mine, templates[g]) is None]
