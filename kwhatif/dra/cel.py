"""Kubernetes' CEL environment for device selectors (k8s.io/dynamic-resource-allocation/cel).

The one module that knows the CEL engine. The engine is cel-expr-python (Google's cel-cpp):
expressions are parsed and type-checked at compile time, as cel-go does upstream, and evaluate
in microseconds against a device's activation, which is built once per device and reused.

The environment is upstream's: a variable `device` with `driver`, `attributes` (domain ->
id -> int | bool | string | semver) and `capacity` (domain -> id -> quantity); looking up a
domain the device does not have gives an empty map; attributes and capacities without a
domain belong to the device's driver. `cel.bind`, the strings extension and the Kubernetes
quantity, semver, regex (find, findAll) and list libraries (isSorted, sum, min, max) are available. cel-expr-python has no opaque values, so a
quantity or semver is carried as a one-entry map tagged with its kind, holding a canonical form
(an exact rational, a normalised version); equal quantities are therefore equal maps, as
Quantity.Equal compares them.

Errors follow upstream's CompilationResult and DeviceMatches: a compile error is
"compilation failed: ERROR: <input>:1:5: ..." and a runtime error carries cel-go's wording
where kwhatif knows it ("no such key: x"). Not modelled: the runtime cost limit (1,000,000)
and the list indexOf/lastIndexOf, URL, IP/CIDR and format libraries (using them is a compile error here).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kwhatif.api import quantity as q
from kwhatif.dra.types import DeviceAttribute, DeviceCapacity
from kwhatif.errors import InputError

_Q = "__kwhatif_quantity__"
_V = "__kwhatif_semver__"
DEVICE_FIELDS = ("driver", "attributes", "capacity")
DEVICE_FIELDS_CONSUMABLE = DEVICE_FIELDS + ("allowMultipleAllocations",)
# resource.CELSelectorExpressionMaxLength: longer expressions are rejected by validation
MAX_EXPRESSION_LENGTH = 10 * 1024


class CelError(Exception):
    """A compile or runtime error; str() is upstream's detail text."""


@dataclass(frozen=True, slots=True)
class Program:
    expression: str
    error: str | None  # compile error, upstream's text
    compiled: Any = None
    domains: frozenset[str] = frozenset()  # literal domains looked up in attributes/capacity


# --- Kubernetes library values -------------------------------------------------------------------


def _fraction_text(v: Fraction) -> str:
    return f"{v.numerator}/{v.denominator}"


def _quantity_value(x: Any) -> Fraction:
    if isinstance(x, dict) and _Q in x:
        return _fraction(str(x[_Q]))
    raise ValueError("no such overload")


@functools.lru_cache(maxsize=4096)
def _fraction(text: str) -> Fraction:
    n, d = text.split("/")
    return Fraction(int(n), int(d))


def _is_quantity(x: Any) -> bool:
    return isinstance(x, dict) and _Q in x


def _is_semver(x: Any) -> bool:
    return isinstance(x, dict) and _V in x


def encode_quantity(v: Fraction) -> dict[str, str]:
    return {_Q: _fraction_text(v)}


_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)


def parse_semver(text: str) -> tuple[int, int, int, tuple[str, ...], str]:
    """blang/semver's strict Parse; raises ValueError with its message."""
    m = _SEMVER.fullmatch(text)
    if m is None:
        if text.count(".") < 2:
            raise ValueError("No Major.Minor.Patch elements found")
        raise ValueError(f"Invalid version {text!r}")
    pre = tuple(m.group(4).split(".")) if m.group(4) else ()
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), pre, m.group(5) or ""


def _normalize_semver(text: str) -> str:
    """semver(s, true): a missing minor or patch is 0, leading "v" and zeros are dropped."""
    s = text[1:] if text.startswith("v") else text
    m = re.search(r"[-+]", s)
    core, rest = (s[: m.start()], s[m.start() :]) if m else (s, "")
    parts = core.split(".")
    if len(parts) > 3:
        return text
    parts += ["0"] * (3 - len(parts))
    try:
        parts = [str(int(p)) for p in parts]
    except ValueError:
        return text
    return ".".join(parts) + rest


def encode_semver(text: str) -> dict[str, str]:
    parse_semver(text)
    return {_V: text}


def _semver_key(x: Any) -> tuple[int, int, int, tuple[str, ...]]:
    if not _is_semver(x):
        raise ValueError("no such overload")
    major, minor, patch, pre, _ = parse_semver(str(x[_V]))
    return major, minor, patch, pre


def _compare_pre(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    if a == b:
        return 0
    if not a:
        return 1
    if not b:
        return -1
    for x, y in zip(a, b):
        if x == y:
            continue
        xn, yn = x.isdigit(), y.isdigit()
        if xn and yn:
            return -1 if int(x) < int(y) else 1
        if xn != yn:
            return -1 if xn else 1
        return -1 if x < y else 1
    return -1 if len(a) < len(b) else (1 if len(a) > len(b) else 0)


def _compare(a: Any, b: Any) -> int:
    if _is_quantity(a) and _is_quantity(b):
        x, y = _quantity_value(a), _quantity_value(b)
        return (x > y) - (x < y)
    if _is_semver(a) and _is_semver(b):
        ka, kb = _semver_key(a), _semver_key(b)
        if ka[:3] != kb[:3]:
            return -1 if ka[:3] < kb[:3] else 1
        return _compare_pre(ka[3], kb[3])
    raise ValueError("no such overload")


def _quantity(s: str) -> dict[str, str]:
    try:
        return encode_quantity(q.parse_quantity(s))
    except q.QuantityError:
        raise ValueError(
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        ) from None


def _is_quantity_str(s: str) -> bool:
    try:
        q.parse_quantity(s)
    except q.QuantityError:
        return False
    return True


def _semver(s: str, normalize: bool = False) -> dict[str, str]:
    text = _normalize_semver(s) if normalize else s
    try:
        return encode_semver(text)
    except ValueError as e:
        raise ValueError(f"could not parse {s!r} as semver: {e}") from None


def _is_semver_str(s: str, normalize: bool = False) -> bool:
    try:
        parse_semver(_normalize_semver(s) if normalize else s)
    except ValueError:
        return False
    return True


def _as_integer(x: Any) -> int:
    v = _quantity_value(x)
    if v.denominator != 1 or not -(1 << 63) <= v < (1 << 63):
        raise ValueError("cannot convert value to integer")
    return int(v)


def _arith(sign: int) -> Callable[[Any, Any], dict[str, str]]:
    def fn(a: Any, b: Any) -> dict[str, str]:
        other = Fraction(b) if isinstance(b, int) and not isinstance(b, bool) else _quantity_value(b)
        return encode_quantity(_quantity_value(a) + sign * other)

    return fn


def _semver_part(i: int) -> Callable[[Any], int]:
    def fn(x: Any) -> int:
        return _semver_key(x)[:3][i]

    return fn


def _plain(x: Any) -> Any:
    return x.plain_value() if hasattr(x, "plain_value") else x


def _list_sorted(items: list[Any]) -> bool:
    vals = [_plain(v) for v in items]
    try:
        return all(_cmp_any(vals[i], vals[i + 1]) <= 0 for i in range(len(vals) - 1))
    except ValueError:
        raise ValueError("no such overload") from None


def _cmp_any(a: Any, b: Any) -> int:
    if isinstance(a, dict) or isinstance(b, dict):
        return _compare(a, b)
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        raise ValueError("no such overload")
    return int(a > b) - int(a < b)


def _list_sum(items: list[Any]) -> Any:
    vals = [_plain(v) for v in items]
    if vals and all(_is_quantity(v) for v in vals):
        return encode_quantity(sum((_quantity_value(v) for v in vals), Fraction(0)))
    return sum(vals) if vals else 0


def _list_extreme(pick: int) -> Callable[[list[Any]], Any]:
    def fn(items: list[Any]) -> Any:
        vals = [_plain(v) for v in items]
        if not vals:
            raise ValueError(f"{'max' if pick > 0 else 'min'}(list) called on empty list")
        best = vals[0]
        for v in vals[1:]:
            if _cmp_any(v, best) * pick > 0:
                best = v
        return best

    return fn


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ValueError(f"invalid regular expression: {e}") from None


def _find(s: str, pattern: str) -> str:
    """The regex library's find: the first match, or ""."""
    m = _regex(pattern).search(s)
    return m.group(0) if m else ""


def _find_all(s: str, pattern: str, limit: int = -1) -> list[str]:
    out = [m.group(0) for m in _regex(pattern).finditer(s)]
    return out if limit < 0 else out[:limit]


# --- the environment ---------------------------------------------------------------------------


class Compiler:
    """Compiles and caches selector expressions (upstream's cel.Cache); one per feature set."""

    def __init__(self, consumable_capacity: bool = False) -> None:
        try:
            from cel_expr_python import cel  # type: ignore[import-untyped]
            from cel_expr_python.ext import ext_bindings, ext_strings  # type: ignore[import-untyped]
        except ImportError as e:
            raise InputError(
                f"evaluating DRA device selectors needs the cel-expr-python package ({e}): pip install cel-expr-python"
            ) from None

        self._cel = cel
        T = cel.Type
        dyn_map = T.Map(T.STRING, T.DYN)
        opaque = T.Map(T.STRING, T.STRING)  # a tagged quantity or semver
        dyn_list = T.List(T.DYN)
        self.fields = DEVICE_FIELDS_CONSUMABLE if consumable_capacity else DEVICE_FIELDS

        def ov(id_: str, ret: Any, params: list[Any], impl: Callable[..., Any], member: bool = False) -> Any:
            return cel.Overload(id_, ret, params, is_member=member, impl=impl)

        decls = {
            "quantity": [ov("string_to_quantity", opaque, [T.STRING], _quantity)],
            "isQuantity": [ov("is_quantity_string", T.BOOL, [T.STRING], _is_quantity_str)],
            "semver": [
                ov("string_to_semver", opaque, [T.STRING], _semver),
                ov("string_bool_to_semver", opaque, [T.STRING, T.BOOL], _semver),
            ],
            "isSemver": [
                ov("is_semver_string", T.BOOL, [T.STRING], _is_semver_str),
                ov("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], _is_semver_str),
            ],
            "compareTo": [ov("opaque_compare_to", T.INT, [opaque, opaque], _compare, True)],
            "isGreaterThan": [
                ov("opaque_is_greater_than", T.BOOL, [opaque, opaque], lambda a, b: _compare(a, b) > 0, True)
            ],
            "isLessThan": [ov("opaque_is_less_than", T.BOOL, [opaque, opaque], lambda a, b: _compare(a, b) < 0, True)],
            "sign": [
                ov("quantity_sign", T.INT, [opaque], lambda a: (lambda v: (v > 0) - (v < 0))(_quantity_value(a)), True)
            ],
            "isInteger": [
                ov("quantity_is_integer", T.BOOL, [opaque], lambda a: _quantity_value(a).denominator == 1, True)
            ],
            "asInteger": [ov("quantity_as_integer", T.INT, [opaque], _as_integer, True)],
            "asApproximateFloat": [
                ov("quantity_as_float", T.DOUBLE, [opaque], lambda a: float(_quantity_value(a)), True)
            ],
            "add": [
                ov("quantity_add", opaque, [opaque, opaque], _arith(1), True),
                ov("quantity_add_int", opaque, [opaque, T.INT], _arith(1), True),
            ],
            "sub": [
                ov("quantity_sub", opaque, [opaque, opaque], _arith(-1), True),
                ov("quantity_sub_int", opaque, [opaque, T.INT], _arith(-1), True),
            ],
            "major": [ov("semver_major", T.INT, [opaque], _semver_part(0), True)],
            "minor": [ov("semver_minor", T.INT, [opaque], _semver_part(1), True)],
            "patch": [ov("semver_patch", T.INT, [opaque], _semver_part(2), True)],
            "find": [ov("string_find_string", T.STRING, [T.STRING, T.STRING], _find, True)],
            "findAll": [
                ov("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], _find_all, True),
                ov("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT], _find_all, True),
            ],
            "isSorted": [ov("list_is_sorted", T.BOOL, [dyn_list], _list_sorted, True)],
            "sum": [ov("list_sum", T.DYN, [dyn_list], _list_sum, True)],
            "min": [ov("list_min", T.DYN, [dyn_list], _list_extreme(-1), True)],
            "max": [ov("list_max", T.DYN, [dyn_list], _list_extreme(1), True)],
        }
        self._env = cel.NewEnv(
            variables={"device": dyn_map},
            extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()],
            functions=[cel.FunctionDecl(name, ovs) for name, ovs in decls.items()],
        )
        self._cache: dict[str, Program] = {}

    def compile(self, expression: str) -> Program:
        prog = self._cache.get(expression)
        if prog is None:
            prog = self._compile(expression)
            if len(self._cache) < 4096:
                self._cache[expression] = prog
        return prog

    def _compile(self, expression: str) -> Program:
        for m in _DEVICE_FIELD.finditer(expression):
            if m.group(2) not in self.fields and not _in_string(expression, m.start()):
                dot = m.start(1) + m.group(1).index(".")
                snippet = f"\n | {expression}\n | {'.' * dot}^" if "\n" not in expression else ""
                return Program(
                    expression,
                    f"compilation failed: ERROR: <input>:1:{dot + 1}: undefined field '{m.group(2)}'{snippet}",
                )
        try:
            compiled = self._env.compile(expression)
        except Exception as e:  # cel-cpp reports parse and check errors as RuntimeError
            if "cannot be the range of a comprehension (must be list, map, or dynamic)" not in str(e):
                msg = "compilation failed: " + _clean(str(e))
                ref = re.search(r"(?:undeclared reference to|found no matching overload for) '([A-Za-z_.]+)'", msg)
                if ref and ref.group(1).rsplit(".", 1)[-1] in _NOT_PROVIDED:
                    first, nl, rest = msg.partition("\n")
                    note = f" (kwhatif's CEL environment lacks the Kubernetes library function {ref.group(1)!r})"
                    msg = first + note + nl + rest
                return Program(expression, msg)
            # cel-cpp's checker refuses a `dyn` map value (an attribute domain) as a macro's
            # range, which cel-go accepts; such expressions are evaluated unchecked
            compiled = self._env.compile(expression, disable_check=True)
        rtype = compiled.return_type().name()
        if rtype not in ("BOOL", "DYN"):
            return Program(expression, f"must evaluate to bool or the unknown type, not {_type_name(rtype)}")
        domains = frozenset(m.group(1) or m.group(2) or "" for m in _DOMAIN_LOOKUP.finditer(expression))
        return Program(expression, None, compiled, domains)

    def syntax_error(self, expression: str) -> str | None:
        """The parse error of an expression (what any CEL implementation refuses), or None."""
        try:
            self._env.compile(expression, disable_check=True)
        except Exception as e:  # cel-cpp reports parse errors as RuntimeError
            return "compilation failed: " + _clean(str(e))
        return None

    def matches(self, program: Program, driver: str, device: DeviceInput) -> bool:
        """DeviceMatches: raises CelError for a runtime error."""
        if program.error is not None:
            raise CelError(program.error)
        missing = program.domains - device.domains
        act = device.activations.get((id(self), missing))
        if act is None:
            data = device.data
            if missing:
                data = {
                    **data,
                    "attributes": {**data["attributes"], **{d: {} for d in missing}},
                    "capacity": {**data["capacity"], **{d: {} for d in missing}},
                }
            act = self._env.Activation(data={"device": data})
            device.activations[(id(self), missing)] = act
        value = program.compiled.eval(act)
        tname = value.type().name()
        if tname == "BOOL":
            return bool(value.value())
        if tname == "ERROR":
            raise CelError(_runtime_message(str(value.value())))
        name = _type_name(tname)
        raise CelError(
            f"CEL result of type {name} could not be converted to bool: type conversion error from '{name}' to 'bool'"
        )


class DeviceInput:
    """A device as the `device` variable; built once per device and kept by the caller."""

    __slots__ = ("data", "domains", "activations")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.domains = frozenset(data["attributes"]) | frozenset(data["capacity"])
        # per compiler (they live for the whole run) and set of domains added as empty maps
        self.activations: dict[tuple[int, frozenset[str]], Any] = {}


def device_input(
    driver: str,
    attributes: Mapping[str, DeviceAttribute],
    capacity: Mapping[str, DeviceCapacity],
    allow_multiple_allocations: bool | None = None,
    consumable_capacity: bool = False,
) -> DeviceInput:
    """Raises CelError for an attribute upstream cannot convert (an invalid version)."""
    attrs: dict[str, dict[str, Any]] = {}
    for name, attr in attributes.items():
        domain, ident = split_qualified_name(name, driver)
        attrs.setdefault(domain, {})[ident] = _attribute_value(name, attr)
    caps: dict[str, dict[str, Any]] = {}
    for name, cap in capacity.items():
        domain, ident = split_qualified_name(name, driver)
        caps.setdefault(domain, {})[ident] = encode_quantity(cap.value)
    data: dict[str, Any] = {"driver": driver, "attributes": attrs, "capacity": caps}
    if consumable_capacity:
        data["allowMultipleAllocations"] = bool(allow_multiple_allocations)
    return DeviceInput(data)


def _attribute_value(name: str, attr: DeviceAttribute) -> Any:
    if attr.int_value is not None:
        return attr.int_value
    if attr.bool_value is not None:
        return attr.bool_value
    if attr.string_value is not None:
        return attr.string_value
    if attr.version_value is not None:
        try:
            return encode_semver(attr.version_value)
        except ValueError as e:
            raise CelError(f"attribute {name}: parse semantic version: {e}") from None
    raise CelError(f"attribute {name}: unsupported attribute value")


def split_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (default_domain, name)


_DEVICE_FIELD = re.compile(r"\bdevice(\s*\.\s*)([A-Za-z_][A-Za-z0-9_]*)")
_DOMAIN_LOOKUP = re.compile(r"""\b(?:attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]""")


def _in_string(text: str, pos: int) -> bool:
    """Whether pos lies inside a string literal (a rough scan for the field check)."""
    quote = ""
    i = 0
    while i < pos:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        i += 1
    return bool(quote)


def _clean(msg: str) -> str:
    msg = re.sub(r"^[A-Z_]+: ", "", msg.strip())
    msg = re.sub(r"\s*\[[A-Z_]+\]$", "", msg)
    return msg


def _type_name(name: str) -> str:
    return {
        "INT": "int",
        "UINT": "uint",
        "DOUBLE": "double",
        "STRING": "string",
        "BYTES": "bytes",
        "NULL": "null_type",
        "DURATION": "google.protobuf.Duration",
        "TIMESTAMP": "google.protobuf.Timestamp",
    }.get(name, name.lower().replace("<", "(").replace(">", ")"))


def _runtime_message(msg: str) -> str:
    msg = _clean(msg)
    m = re.fullmatch(r'Key not found in map : "?(.*?)"?', msg)
    if m:
        return f"no such key: {m.group(1)}"
    if msg == "divide by zero":
        return "division by zero"
    if msg.startswith("No matching overloads found"):
        return "no such overload"
    return msg


# The compiler with upstream's default environment, shared by every allocator of a run.
_COMPILERS: dict[bool, Compiler] = {}


def compiler(consumable_capacity: bool = False) -> Compiler:
    c = _COMPILERS.get(consumable_capacity)
    if c is None:
        c = _COMPILERS[consumable_capacity] = Compiler(consumable_capacity)
    return c


def validate_expression(expression: str) -> str | None:
    """Why the API server would refuse a selector, as far as kwhatif can tell without risking
    a refusal of what it accepts: too long, or not parseable. Type errors surface when the
    selector is evaluated (a Filter error, as for a stored expression upstream)."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        return f"must have at most {MAX_EXPRESSION_LENGTH} bytes"
    return compiler().syntax_error(expression)


# Kubernetes CEL library functions kwhatif's environment does not provide.
_NOT_PROVIDED = frozenset(
    {
        "indexOf",
        "lastIndexOf",
        "url",
        "isURL",
        "ip",
        "isIP",
        "cidr",
        "isCIDR",
        "format",
        "reverse",
        "contains",
        "containsAll",
        "intersects",
        "equivalent",
    }
)


__all__ = [
    "CelError",
    "Compiler",
    "DeviceInput",
    "Program",
    "compiler",
    "device_input",
]
