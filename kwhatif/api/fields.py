"""Typed field access on decoded YAML/JSON with the field path in every error.

Errors follow the API server's field.Error wording ("<path>: Invalid value: ...",
"<path>: Required value", "<path>: Unsupported value: ...").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from kwhatif.api import quantity as q
from kwhatif.errors import FieldError
from kwhatif.gocompat import bounded_quote, bounded_text

Dict = Mapping[str, Any]


def render_value(value: object) -> str:
    """A field's value as field.Invalid prints it: a string as fmt's %q; a long one (a hostile
    file's megabytes) as its quoted first characters and its length, so that the message stays
    a readable line (bounded_quote)."""
    if isinstance(value, str):
        return bounded_quote(value)
    if isinstance(value, (dict, list)):
        try:
            return bounded_text(json.dumps(value, sort_keys=True, default=str))
        except RecursionError:
            # nested deeper than the encoder recurses (YAML allows 10,000 levels)
            return f"{'{...}' if isinstance(value, dict) else '[...]'} (nested too deeply to show)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(f"Invalid value: {render_value(value)}: {detail}", field=path)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("Required value" + (f": {detail}" if detail else ""), field=path)


def unsupported(path: str, value: object, supported: Iterable[str]) -> FieldError:
    vals = ", ".join(json.dumps(s) for s in supported)
    return FieldError(f"Unsupported value: {render_value(value)}: supported values: {vals}", field=path)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(f"Forbidden: {detail}", field=path)


def type_error(path: str, value: object, expected: str) -> FieldError:
    if value is None:
        return FieldError(f"expected {expected}, got null", field=path)
    kind = type(value).__name__
    kind = {"dict": "object", "list": "array", "str": "string"}.get(kind, kind)
    return FieldError(f"expected {expected}, got {kind} {render_value(value)[:60]}", field=path)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def mapping(d: Dict, key: str, path: str) -> Dict:
    """A nested object; absent or null gives {}."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise type_error(join(path, key), v, "an object")
    return v


def opt_mapping(d: Dict, key: str, path: str) -> Dict | None:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, dict):
        raise type_error(join(path, key), v, "an object")
    return v


def seq(d: Dict, key: str, path: str) -> list[Any]:
    v = d.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise type_error(join(path, key), v, "a list")
    return v


def obj_seq(d: Dict, key: str, path: str) -> list[Dict]:
    items = seq(d, key, path)
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise type_error(f"{join(path, key)}[{i}]", item, "an object")
    return items


def string(d: Dict, key: str, path: str, default: str = "") -> str:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise type_error(join(path, key), v, "a string")
    return v


def integer(d: Dict, key: str, path: str, default: int | None = None) -> int | None:
    v = d.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        raise type_error(join(path, key), v, "an integer")
    return v


def boolean(d: Dict, key: str, path: str, default: bool = False) -> bool:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise type_error(join(path, key), v, "a boolean")
    return v


def str_list(d: Dict, key: str, path: str) -> tuple[str, ...]:
    items = seq(d, key, path)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise type_error(f"{join(path, key)}[{i}]", item, "a string")
    return tuple(items)


def str_map(d: Dict, key: str, path: str) -> dict[str, str]:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise type_error(join(path, key), v, "a map of strings")
    for k, val in v.items():
        if not isinstance(val, str):
            # Label and annotation values are strings; YAML turns `zone: 1` into an int.
            raise type_error(f"{join(path, key)}.{k}", val, "a string")
    return v


def int_or_string(d: Dict, key: str, path: str) -> int | str | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise type_error(join(path, key), v, "an integer or a string")
    return v


def quantity(value: object, path: str) -> Fraction:
    try:
        return q.parse_quantity(value)
    except q.QuantityFormatError as e:
        if isinstance(value, str) and len(value) > 256:
            # a hostile file's megabyte of digits: the message stays a readable line
            raise FieldError(
                f"Invalid value: {json.dumps(value[:64])}... ({len(value)} characters): {e.detail}", field=path
            ) from None
        raise invalid(path, value, e.detail) from None
    except q.QuantityError as e:
        raise FieldError(str(e), field=path) from None


def resource_list(d: Dict, key: str, path: str, defaulted: bool = True) -> dict[str, Fraction]:
    """A ResourceList; ``defaulted``: one of core/v1, whose amounts the API server rounds up to
    thousandths when it decodes the object (SetDefaults_ResourceList)."""
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise type_error(join(path, key), v, "a map of quantities")
    out: dict[str, Fraction] = {}
    for name, raw in v.items():
        amount = _ROUNDED.get(raw) if defaulted and type(raw) is str else None
        if amount is None:
            try:
                amount = q.parse_quantity(raw)
            except q.QuantityError:
                amount = quantity(raw, f"{join(path, key)}[{name}]")  # raises, naming the field
            if defaulted:
                amount = q.round_up_milli(amount)
                if type(raw) is str and len(_ROUNDED) < 1 << 14:
                    _ROUNDED[raw] = amount
        out[str(name)] = amount
    return out


# A core/v1 amount's text and the quantity it is once rounded: specs repeat a few dozen texts.
_ROUNDED: dict[str, Fraction] = {}


def timestamp(d: Dict, key: str, path: str) -> float:
    v = d.get(key)
    seconds = _TIMES.get(v) if type(v) is str else None
    return seconds if seconds is not None else time_value(v, join(path, key))


def time_value(v: object, path: str) -> float:
    """A metav1.Time as seconds since the epoch; null or "" is 0."""
    if v is None or v == "":
        return 0.0
    if isinstance(v, datetime):  # YAML may already have decoded it
        return v.timestamp() if v.tzinfo else v.replace(tzinfo=UTC).timestamp()
    if not isinstance(v, str):
        raise type_error(path, v, "an RFC 3339 time")
    seconds = _TIMES.get(v)
    if seconds is not None:
        return seconds
    try:
        seconds = datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise FieldError(f"invalid time {v!r}: expected RFC 3339", field=path) from None
    if len(_TIMES) < 1 << 16:
        _TIMES[v] = seconds
    return seconds


# Objects created together share their timestamps: each distinct text is parsed once.
_TIMES: dict[str, float] = {}
TIMES = _TIMES  # for kwhatif.load.typed
