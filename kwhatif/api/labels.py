"""Label selectors with the semantics of k8s.io/apimachinery/pkg/labels.

Two sources build them: metav1.LabelSelector (matchLabels + matchExpressions, used by pod affinity,
topology spread, PDBs, workloads) and v1.NodeSelectorRequirement (node affinity, with Gt and Lt).
A ``None`` LabelSelector selects nothing; an empty one selects everything.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Mapping


_INT = re.compile(r"[+-]?[0-9]+")


def parse_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): digits with an optional sign, nothing else, in range."""
    if not _INT.fullmatch(text):
        return None
    n = int(text)
    return n if -(1 << 63) <= n < (1 << 63) else None


class Op(enum.StrEnum):
    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    op: Op
    values: frozenset[str] = frozenset()
    # Gt/Lt: the bound as an integer (validated when parsed).
    bound: int = 0

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.op
        if op is Op.IN:
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op is Op.NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op is Op.EXISTS:
            return self.key in labels
        if op is Op.DOES_NOT_EXIST:
            return self.key not in labels
        v = labels.get(self.key)
        if v is None:
            return False
        n = parse_int64(v)
        if n is None:
            return False
        return n > self.bound if op is Op.GT else n < self.bound


@dataclass(frozen=True, slots=True)
class Selector:
    """A conjunction of requirements. ``nothing`` selects no set of labels at all."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    @property
    def empty(self) -> bool:
        """Selects everything (labels.Selector.Empty())."""
        return not self.nothing and not self.requirements

    def render(self) -> str:
        if self.nothing:
            return "<none>"
        parts = []
        for r in self.requirements:
            vals = ",".join(sorted(r.values))
            if r.op is Op.IN:
                parts.append(f"{r.key}={vals}" if len(r.values) == 1 else f"{r.key} in ({vals})")
            elif r.op is Op.NOT_IN:
                parts.append(f"{r.key}!={vals}" if len(r.values) == 1 else f"{r.key} notin ({vals})")
            elif r.op is Op.EXISTS:
                parts.append(r.key)
            elif r.op is Op.DOES_NOT_EXIST:
                parts.append(f"!{r.key}")
            elif r.op is Op.GT:
                parts.append(f"{r.key}>{r.bound}")
            else:
                parts.append(f"{r.key}<{r.bound}")
        return ",".join(parts)


NOTHING = Selector(nothing=True)


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """labels.SelectorFromSet: every key equals its value (an empty set selects everything)."""
    return Selector(
        tuple(Requirement(k, Op.IN, frozenset((v,))) for k, v in sorted(labels.items()))
    )
