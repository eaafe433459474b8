"""Label selectors with the semantics of k8s.io/apimachinery/pkg/labels.

Two sources build them: metav1.LabelSelector (matchLabels + matchExpressions, used by pod affinity,
topology spread, PDBs, workloads) and v1.NodeSelectorRequirement (node affinity, with Gt and Lt).
A ``None`` LabelSelector selects nothing; an empty one selects everything.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

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
    return Selector(tuple(Requirement(k, Op.IN, frozenset((v,))) for k, v in sorted(labels.items())))


# --- label selector strings (labels.Parse, apimachinery/pkg/labels/selector.go) -----------------

_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_TOKENS = {
    ")": "CLOSE",
    ",": "COMMA",
    "!": "NOT",
    "==": "EQ2",
    "=": "EQ",
    ">": "GT",
    "in": "IN",
    "<": "LT",
    "!=": "NE",
    "notin": "NOTIN",
    "(": "OPEN",
}
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"


def _lex(text: str) -> list[tuple[str, str]]:
    """The lexer of labels.Parse: identifiers, keywords (in, notin) and special symbols."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            out.append(("END", ""))
            return out
        if text[i] in _SPECIAL:
            buf, last = "", None
            while i < n and text[i] in _SPECIAL:
                buf += text[i]
                if buf in _TOKENS:
                    last = buf
                    i += 1
                elif last is not None:
                    break
                else:
                    i += 1
            if last is None:
                out.append(("ERROR", f"error expected: keyword found '{buf}'"))
            else:
                out.append((_TOKENS[last], last))
            continue
        start = i
        while i < n and text[i] not in _SPECIAL and text[i] not in _WHITESPACE:
            i += 1
        word = text[start:i]
        out.append((_TOKENS.get(word, "ID") if word in ("in", "notin") else "ID", word))


def parse_selector(text: str) -> Selector:
    """A label selector string as kubectl -l takes it (``a=b,c!=d,e in (x,y),!f,g``).
    Raises ValueError with upstream's message for what labels.Parse refuses."""
    from kwhatif.api.names import is_qualified_name, is_valid_label_value

    tokens = _lex(text)
    pos = 0

    def peek(values: bool) -> tuple[str, str]:
        tok, lit = tokens[pos]
        if values and tok in ("IN", "NOTIN"):
            tok = "ID"
        return tok, lit

    def take(values: bool) -> tuple[str, str]:
        nonlocal pos
        t = peek(values)
        pos += 1
        return t

    def check_key(key: str) -> None:
        errs = is_qualified_name(key)
        if errs:
            raise ValueError(f'Invalid value: "{key}": {"; ".join(errs)}')

    def requirement() -> Requirement:
        tok, key = take(True)
        negate = tok == "NOT"
        if negate:
            tok, key = take(True)
        if tok != "ID":
            raise ValueError(f"found '{key}', expected: identifier")
        check_key(key)
        if negate:
            return Requirement(key, Op.DOES_NOT_EXIST)
        if peek(True)[0] in ("END", "COMMA"):
            return Requirement(key, Op.EXISTS)
        tok, lit = take(False)
        ops = {"IN": Op.IN, "NOTIN": Op.NOT_IN, "EQ": Op.IN, "EQ2": Op.IN, "NE": Op.NOT_IN, "GT": Op.GT, "LT": Op.LT}
        if tok not in ops:
            raise ValueError(f"found '{lit}', expected: {_BINARY_OPERATORS}")
        values: set[str] = set()
        if tok in ("IN", "NOTIN"):
            t, lit = take(True)
            if t != "OPEN":
                raise ValueError(f"found '{lit}' expected: '('")
            t, lit = peek(True)
            if t == "CLOSE":
                take(True)
                values.add("")
            elif t in ("ID", "COMMA"):
                while True:
                    t, lit = take(True)
                    if t == "ID":
                        values.add(lit)
                        t2, lit2 = peek(True)
                        if t2 == "COMMA":
                            continue
                        if t2 == "CLOSE":
                            break
                        raise ValueError(f"found '{lit2}', expected: ',' or ')'")
                    if t == "COMMA":
                        if not values:
                            values.add("")
                        t2, _ = peek(True)
                        if t2 == "CLOSE":
                            values.add("")
                            break
                        if t2 == "COMMA":
                            take(True)
                            values.add("")
                        continue
                    raise ValueError(f"found '{lit}', expected: ',', or identifier")
                if take(True)[0] != "CLOSE":
                    raise ValueError(f"found '{lit}', expected: ')'")
            else:
                raise ValueError(f"found '{lit}', expected: ',', ')' or identifier")
        else:
            t, lit = peek(True)
            if t in ("END", "COMMA"):
                values.add("")
            else:
                t, lit = take(True)
                if t != "ID":
                    raise ValueError(f"found '{lit}', expected: identifier")
                values.add(lit)
        for v in sorted(values):
            errs = is_valid_label_value(v)
            if errs:
                raise ValueError(f'Invalid value: "{v}": {"; ".join(errs)}')
        op = ops[tok]
        if op in (Op.GT, Op.LT):
            (v,) = values
            bound = parse_int64(v)
            if bound is None:
                raise ValueError(f"Invalid value: \"{v}\": for 'Gt', 'Lt' operators, the value must be an integer")
            return Requirement(key, op, frozenset(), bound)
        return Requirement(key, op, frozenset(values))

    reqs: list[Requirement] = []
    while True:
        tok, lit = peek(True)
        if tok == "END":
            break
        if tok not in ("ID", "NOT"):
            raise ValueError(f"found '{lit}', expected: !, identifier, or 'end of string'")
        try:
            reqs.append(requirement())
        except ValueError as e:
            raise ValueError(f"unable to parse requirement: {e}") from None
        tok, lit = take(True)
        if tok == "END":
            break
        if tok != "COMMA":
            raise ValueError(f"found '{lit}', expected: ',' or 'end of string'")
        t2, l2 = peek(True)
        if t2 not in ("ID", "NOT"):
            raise ValueError(f"found '{l2}', expected: identifier after ','")
    return Selector(tuple(sorted(reqs, key=lambda r: r.key)))
