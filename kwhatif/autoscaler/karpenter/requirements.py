"""Karpenter's requirement algebra: a label key's allowed values as a set or a complement, with
integer bounds and minValues, and Requirements (one per key) with Karpenter's compatibility rules.

Ported from kubernetes-sigs/karpenter v1.14.1 pkg/scheduling/requirement.go and requirements.go
(and the label tables of pkg/apis/v1/labels.go). Karpenter's own rules, not kube-scheduler's: a
custom label a pod asks for must be known to the NodePool, a well-known one may be undefined.
Error texts are Karpenter's, with its map iteration made deterministic (keys sorted).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from kwhatif.api.core import NodeSelectorTerm, Taint, Toleration
from kwhatif.api.labels import Op

# Karpenter's label keys (pkg/apis/v1/labels.go).
NODEPOOL_LABEL = "karpenter.sh/nodepool"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
NODE_REGISTERED_LABEL = "karpenter.sh/registered"
NODE_INITIALIZED_LABEL = "karpenter.sh/initialized"
DO_NOT_DISRUPT_ANNOTATION = "karpenter.sh/do-not-disrupt"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ARCH_LABEL = "kubernetes.io/arch"
OS_LABEL = "kubernetes.io/os"
HOSTNAME_LABEL = "kubernetes.io/hostname"
WINDOWS_BUILD_LABEL = "node.kubernetes.io/windows-build"

CAPACITY_TYPE_SPOT = "spot"
CAPACITY_TYPE_ON_DEMAND = "on-demand"
CAPACITY_TYPE_RESERVED = "reserved"

# v1.WellKnownLabels: may be left undefined by a NodePool and still be asked for by a pod.
WELL_KNOWN_LABELS = frozenset(
    {
        NODEPOOL_LABEL,
        ZONE_LABEL,
        REGION_LABEL,
        INSTANCE_TYPE_LABEL,
        ARCH_LABEL,
        OS_LABEL,
        CAPACITY_TYPE_LABEL,
        WINDOWS_BUILD_LABEL,
    }
)
# v1.RestrictedLabels: left out of a Requirements' text.
RESTRICTED_LABELS = frozenset({HOSTNAME_LABEL})
# v1.NormalizedLabels: aliases a pod may use for the well-known keys.
NORMALIZED_LABELS = {
    "failure-domain.beta.kubernetes.io/zone": ZONE_LABEL,
    "beta.kubernetes.io/arch": ARCH_LABEL,
    "beta.kubernetes.io/os": OS_LABEL,
    "beta.kubernetes.io/instance-type": INSTANCE_TYPE_LABEL,
    "failure-domain.beta.kubernetes.io/region": REGION_LABEL,
}

_MAX_INT = (1 << 63) - 1


def _atoi(text: str) -> int | None:
    try:
        return int(text, 10) if text.strip() == text and text else None
    except ValueError:
        return None


def _within(value: str, gte: int | None, lte: int | None) -> bool:
    if gte is None and lte is None:
        return True
    n = _atoi(value)
    if n is None:
        return False
    if gte is not None and n < gte:
        return False
    return not (lte is not None and n > lte)


def _max(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _go_list(values: Iterable[str]) -> str:
    """fmt's %s of a []string: "[a b c]"."""
    return "[" + " ".join(values) + "]"


@dataclass(frozen=True, slots=True)
class Requirement:
    """One key's allowed values (requirement.go): ``values`` when not ``complement``, everything
    but ``values`` when it is; ``gte``/``lte`` bound integer values (Gt/Lt canonicalised)."""

    key: str
    complement: bool
    values: frozenset[str]
    gte: int | None = None
    lte: int | None = None
    min_values: int | None = None

    @classmethod
    def new(cls, key: str, op: str, values: Iterable[str] = (), min_values: int | None = None) -> Requirement:
        """NewRequirementWithFlexibility: a node selector operator (In, NotIn, Exists,
        DoesNotExist, Gt, Lt, Gte, Lte) over ``values``; aliased keys are normalised."""
        key = NORMALIZED_LABELS.get(key, key)
        vals = tuple(values)
        if op == "In":
            return cls(key, False, frozenset(vals), min_values=min_values)
        complement = op not in ("DoesNotExist",)
        keep = frozenset(vals) if op == "NotIn" else frozenset()
        gte: int | None = None
        lte: int | None = None
        if op in ("Gt", "Gte", "Lt", "Lte"):
            n = _atoi(vals[0]) if vals else None
            n = 0 if n is None else n
            if op == "Gt":
                if n >= _MAX_INT:
                    return cls(key, False, frozenset(), min_values=min_values)
                gte = n + 1
            elif op == "Gte":
                gte = n
            elif op == "Lt":
                lte = n - 1
            else:
                lte = n
        return cls(key, complement, keep, gte, lte, min_values)

    def intersection(self, other: Requirement) -> Requirement:
        complement = self.complement and other.complement
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        min_values = _max(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return Requirement(self.key, False, frozenset(), min_values=min_values)
        if self.complement and other.complement:
            values = self.values | other.values
        elif self.complement:
            values = other.values - self.values
        elif other.complement:
            values = self.values - other.values
        else:
            values = self.values & other.values
        values = frozenset(v for v in values if _within(v, gte, lte))
        if not complement:
            gte = lte = None
        return Requirement(self.key, complement, values, gte, lte, min_values)

    def has_intersection(self, other: Requirement) -> bool:
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            return any(v not in self.values and _within(v, gte, lte) for v in other.values)
        if other.complement:
            return any(v not in other.values and _within(v, gte, lte) for v in self.values)
        return any(v in other.values and _within(v, gte, lte) for v in self.values)

    def has(self, value: str) -> bool:
        if self.complement:
            return value not in self.values and _within(value, self.gte, self.lte)
        return value in self.values and _within(value, self.gte, self.lte)

    @property
    def operator(self) -> str:
        if self.complement:
            return "NotIn" if self.values else "Exists"
        return "In" if self.values else "DoesNotExist"

    def __len__(self) -> int:
        if self.complement:
            return _MAX_INT - len(self.values)
        return len(self.values)

    def sorted_values(self) -> list[str]:
        return sorted(self.values)

    def any(self) -> str:
        """Requirement.Any, deterministic: the first value of an In, the lowest allowed integer
        of a complement (Karpenter draws a random one)."""
        op = self.operator
        if op == "In":
            return self.sorted_values()[0]
        if op in ("NotIn", "Exists"):
            n = self.gte if self.gte is not None else 0
            while str(n) in self.values:
                n += 1
            return str(n)
        return ""

    def with_values(self, *extra: str) -> Requirement:
        """Requirement.Insert: the same requirement with more values."""
        return Requirement(
            self.key, self.complement, self.values | frozenset(extra), self.gte, self.lte, self.min_values
        )

    def with_min_values(self, min_values: int | None) -> Requirement:
        return Requirement(self.key, self.complement, self.values, self.gte, self.lte, min_values)

    def __str__(self) -> str:
        op = self.operator
        if op in ("Exists", "DoesNotExist"):
            s = f"{self.key} {op}"
        else:
            values = self.sorted_values()
            if len(values) > 5:
                values = values[:5] + [f"and {len(values) - 5} others"]
            s = f"{self.key} {op} {_go_list(values)}"
        if self.gte is not None:
            s += f" >={self.gte}"
        if self.lte is not None:
            s += f" <={self.lte}"
        if self.min_values is not None:
            s += f" minValues {self.min_values}"
        return s


def exists(key: str) -> Requirement:
    return Requirement(key, True, frozenset())


class Requirements:
    """One Requirement per key (requirements.go); add() intersects with what the key has."""

    __slots__ = ("_reqs",)

    def __init__(self, reqs: Iterable[Requirement] = ()) -> None:
        self._reqs: dict[str, Requirement] = {}
        for r in reqs:
            self.add(r)

    @classmethod
    def from_labels(cls, labels: Mapping[str, str]) -> Requirements:
        return cls(Requirement.new(k, "In", (v,)) for k, v in labels.items())

    def copy(self) -> Requirements:
        out = Requirements()
        out._reqs = dict(self._reqs)
        return out

    def add(self, *reqs: Requirement) -> None:
        for r in reqs:
            have = self._reqs.get(r.key)
            self._reqs[r.key] = r.intersection(have) if have is not None else r

    def add_all(self, other: Requirements) -> None:
        self.add(*other.values())

    def set(self, req: Requirement) -> None:
        """Replace a key's requirement (no intersection)."""
        self._reqs[req.key] = req

    def remove(self, key: str) -> None:
        self._reqs.pop(key, None)

    def values(self) -> list[Requirement]:
        return list(self._reqs.values())

    def keys(self) -> list[str]:
        return list(self._reqs)

    def __iter__(self) -> Iterator[str]:
        return iter(self._reqs)

    def __len__(self) -> int:
        return len(self._reqs)

    def has(self, key: str) -> bool:
        return key in self._reqs

    def get(self, key: str) -> Requirement:
        """The key's requirement; an undefined key allows anything (Exists)."""
        r = self._reqs.get(key)
        return r if r is not None else exists(key)

    def compatible(self, other: Requirements, allow_undefined: frozenset[str] = frozenset()) -> str | None:
        """Requirements.Compatible: None when ``other`` can loosely be met, else Karpenter's error.
        A custom key ``other`` asks for must be defined here (unless its operator is NotIn or
        DoesNotExist); keys in ``allow_undefined`` (the well-known labels) may be undefined."""
        for key in sorted(other._reqs):
            if key in allow_undefined:
                continue
            op = other.get(key).operator
            if key in self._reqs or op in ("NotIn", "DoesNotExist"):
                continue
            return f'label "{key}" does not have known values{self._label_hint(key, allow_undefined)}'
        return self.intersects(other)

    def is_compatible(self, other: Requirements, allow_undefined: frozenset[str] = frozenset()) -> bool:
        return self.compatible(other, allow_undefined) is None

    def _label_hint(self, key: str, allow_undefined: frozenset[str]) -> str:
        suffix = key.split("/", 1)[1] if "/" in key else key
        for known in [*sorted(allow_undefined), *sorted(self._reqs)]:
            if key in known or known.endswith(suffix):
                return f' (typo of "{known}"?)'
        return ""

    def intersects(self, other: Requirements) -> str | None:
        """Requirements.Intersects: None when every shared key has a common value (two keys that
        both exclude values are taken to intersect), else the joined badKeyErrors."""
        errs: list[str] = []
        small, large = (self._reqs, other._reqs) if len(self._reqs) <= len(other._reqs) else (other._reqs, self._reqs)
        for key in sorted(k for k in small if k in large):
            mine, theirs = self._reqs[key], other._reqs[key]
            if mine.has_intersection(theirs):
                continue
            if theirs.operator in ("NotIn", "DoesNotExist") and mine.operator in ("NotIn", "DoesNotExist"):
                continue
            errs.append(f"key {key}, {theirs} not in {mine}")
        return "; ".join(errs) if errs else None

    def signature(self, without: str = "") -> frozenset[Requirement]:
        """The requirements as a hashable value (every value, unlike the text), less ``without``."""
        return frozenset(r for k, r in self._reqs.items() if k != without)

    def has_min_values(self) -> bool:
        return any(r.min_values is not None for r in self._reqs.values())

    def __str__(self) -> str:
        return ", ".join(sorted(str(r) for r in self._reqs.values() if r.key not in RESTRICTED_LABELS))


# --- pods -----------------------------------------------------------------------------------------


def term_requirements(term: NodeSelectorTerm) -> list[Requirement]:
    """A node selector term's matchExpressions as Karpenter requirements (matchFields are not
    labels: Karpenter does not read them)."""
    out: list[Requirement] = []
    if term.expressions is None:
        return out
    for r in term.expressions.requirements:
        if r.op is Op.GT or r.op is Op.LT:
            out.append(Requirement.new(r.key, str(r.op), (str(r.bound),)))
        else:
            out.append(Requirement.new(r.key, str(r.op), sorted(r.values)))
    return out


def taint_text(t: Taint) -> str:
    """pretty.Taint."""
    return f"{t.key}:{t.effect}" if not t.value else f"{t.key}={t.value}:{t.effect}"


def tolerates(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> str | None:
    """scheduling.Taints.ToleratesPod: every taint, whatever its effect, must be tolerated;
    the errors of the ones that are not, joined as multierr joins them."""
    tols = tuple(tolerations)
    errs = [
        f"did not tolerate taint (taint={taint_text(t)})"
        for t in taints
        if not any(tol.tolerates(t, comparison_operators=True) for tol in tols)
    ]
    return "; ".join(errs) if errs else None
