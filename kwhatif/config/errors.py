"""Field errors in upstream's wording (k8s.io/apimachinery/pkg/util/validation/field): the
``Invalid value``, ``Required value``, ``Duplicate value``, ``Forbidden`` and ``Unsupported
value`` bodies and the path they belong to, and the aggregate of several errors as
k8s.io/apimachinery/pkg/util/errors prints it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from kwhatif.errors import ConfigError
from kwhatif.gocompat import bounded_quote, bounded_text, go_quote


def field_error(path: str, body: str) -> ConfigError:
    return ConfigError(body, field=path or None)


def aggregate(errs: Sequence[ConfigError]) -> ConfigError:
    """utilerrors.NewAggregate(errs): one error is itself; several print as ``[a, b]``, each
    message once, in order."""
    texts = list(dict.fromkeys(e.render() for e in errs))
    if len(texts) == 1:
        return errs[0]
    return ConfigError("[" + ", ".join(texts) + "]")


def go_str_slice(values: Sequence[str] | None) -> str:
    """A []string as fmt's %#v prints it."""
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def render(value: object) -> str:
    """A field's value as field.Invalid prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return bounded_quote(value)
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    try:
        return bounded_text(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
    except RecursionError:
        # nested deeper than the encoder recurses (YAML allows 10,000 levels)
        return f"{'{...}' if isinstance(value, dict) else '[...]'} (nested too deeply to show)"


def invalid(path: str, value: object, detail: str, rendered: str | None = None) -> ConfigError:
    return field_error(path, f"Invalid value: {rendered if rendered is not None else render(value)}: {detail}")


def required(path: str, detail: str = "") -> ConfigError:
    return field_error(path, "Required value" + (f": {detail}" if detail else ""))


def duplicate(path: str, rendered: str) -> ConfigError:
    return field_error(path, f"Duplicate value: {rendered}")


def forbidden(path: str, detail: str) -> ConfigError:
    return field_error(path, f"Forbidden: {detail}")


def not_supported(path: str, value: str, supported: Iterable[str]) -> ConfigError:
    values = ", ".join(go_quote(s) for s in supported)
    return field_error(path, f"Unsupported value: {go_quote(value)}: supported values: {values}")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
