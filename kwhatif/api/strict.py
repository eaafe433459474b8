"""Strict field validation of the manifests' built-in objects, as `kubectl apply` asks for it.

kubectl's default `--validate=strict` makes the API server decode the object strictly
(apimachinery runtime/serializer: a field its schema does not know fails the request with
`<Kind> in version "<version>" cannot be handled as a <Kind>: strict decoding error: unknown
field "spec.containres"`, every unknown field listed). A typo in a resources block is then a
refusal, not a silently dropped field.

The schema is the published OpenAPI one, as the Kubernetes Python client's generated models carry
it (their ``openapi_types`` and ``attribute_map``): read from the model files as text (the client
is never imported), only for the types a manifest reaches. A field the client's schema does not
know but a release newer than the client's added is not refused: when the selected release is
newer, an unknown field is reported as a note instead.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_LEAVES = frozenset({"str", "int", "bool", "float", "datetime", "date", "object", "bytearray", "file"})
_LIST = re.compile(r"^(?:List\[(.+)\]|list\[(.+)\])$")
_DICT = re.compile(r"^(?:Dict\[str, (.+)\]|dict\(str, (.+)\))$")
_IMPORT = re.compile(r"from kubernetes\.client\.models\.(\w+) import (\w+)")
_LAZY = re.compile(r'"(\w+)": "\.(\w+)"')
_VERSION = re.compile(r'__version__ = "(\d+)\.')
# the built-in groups whose kinds kwhatif reads, as the client names their models' prefixes
_GROUPS = frozenset(
    {"", "apps", "batch", "policy", "scheduling.k8s.io", "storage.k8s.io", "node.k8s.io", "autoscaling"}
)


@dataclass(frozen=True, slots=True)
class _Model:
    fields: dict[str, str]  # JSON name -> the client's type


@functools.cache
def _models_dir() -> Path | None:
    spec = importlib.util.find_spec("kubernetes")
    if spec is None or spec.origin is None:
        return None
    d = Path(spec.origin).parent / "client" / "models"
    return d if (d / "__init__.py").is_file() else None


@functools.cache
def client_release() -> int | None:
    """The minor release of the API the client's models describe (client 37.x: 1.37)."""
    d = _models_dir()
    if d is None:
        return None
    m = _VERSION.search((d.parent.parent / "__init__.py").read_text(encoding="utf-8", errors="replace"))
    return int(m.group(1)) if m else None


@functools.cache
def _modules() -> dict[str, str]:
    d = _models_dir()
    if d is None:
        return {}
    text = (d / "__init__.py").read_text(encoding="utf-8", errors="replace")
    out = {cls: mod for mod, cls in _IMPORT.findall(text)}
    out.update({cls: mod for cls, mod in _LAZY.findall(text)})
    return out


def _dict_literal(text: str, name: str) -> dict[str, str]:
    """The dict literal assigned to class attribute ``name`` in a model file."""
    m = re.search(rf"^\s+{name}(?::[^=\n]+)? = \{{", text, re.MULTILINE)
    if m is None:
        return {}
    start = m.end() - 1
    end = text.index("}", start)
    value = ast.literal_eval(text[start : end + 1])
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


@functools.cache
def _model(cls: str) -> _Model | None:
    mod = _modules().get(cls)
    d = _models_dir()
    if mod is None or d is None:
        return None
    path = d / f"{mod}.py"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        types = _dict_literal(text, "openapi_types")
        names = _dict_literal(text, "attribute_map")
    except (OSError, ValueError, SyntaxError):
        return None
    if not types:
        return None
    return _Model({names.get(attr, attr): typ for attr, typ in types.items()})


def model_of(api_version: str, kind: str) -> str | None:
    """The client's model class of a built-in kind (V1Pod, V1Deployment, V2HorizontalPodAutoscaler)."""
    group, _, version = api_version.rpartition("/")
    if group not in _GROUPS or not version:
        return None
    if not re.fullmatch(r"v\d+", version):
        # an alpha or beta version changes from release to release (the Workload API's PodGroup
        # between v1alpha2 and v1beta1): the client's model may be another release's, so only the
        # fields kwhatif reads are checked, by its own parser
        return None
    cls = version[0].upper() + version[1:] + kind
    return cls if cls in _modules() else None


def unknown_fields(body: dict[str, Any], cls: str) -> list[str]:
    """The paths of the fields of ``body`` that model ``cls`` does not know, in document order
    (as the strict decoder names them: "spec.containers[0].resource")."""
    return list(_walk(body, cls, ""))


@functools.cache
def _shape(typ: str) -> tuple[str, str]:
    """("leaf", ""), ("list", item type), ("dict", value type) or ("model", class)."""
    if typ in _LEAVES:
        return "leaf", ""
    m = _LIST.match(typ)
    if m:
        return "list", m.group(1) or m.group(2)
    m = _DICT.match(typ)
    if m:
        return "dict", m.group(1) or m.group(2)
    return "model", typ


def _walk(value: Any, typ: str, path: str) -> Iterator[str]:
    shape, inner = _shape(typ)
    if shape == "leaf" or value is None:
        return
    if shape == "list":
        if isinstance(value, list):
            for i, item in enumerate(value):
                if _shape(inner)[0] != "leaf":
                    yield from _walk(item, inner, f"{path}[{i}]")
        return
    if shape == "dict":
        if isinstance(value, dict) and _shape(inner)[0] != "leaf":
            for k, item in value.items():
                yield from _walk(item, inner, f"{path}[{k}]")
        return
    model = _model(typ)
    if model is None or not isinstance(value, dict):
        return  # a type kwhatif cannot read: nothing is refused for it
    for key, item in value.items():
        here = f"{path}.{key}" if path else str(key)
        field = model.fields.get(str(key))
        if field is None:
            yield here
        else:
            yield from _walk(item, field, here)


def strict_decoding_error(api_version: str, kind: str, unknown: list[str]) -> str:
    """The API server's answer (runtime.NewStrictDecodingError inside the codec's error)."""
    version = api_version.rpartition("/")[2]
    fields = ", ".join(f'unknown field "{p}"' for p in unknown)
    return f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {fields}'
