"""How deeply an object read from the input may nest.

Go's decoders stop at 10,000 levels (encoding/json and go-yaml: "exceeded max depth"), and Go
recurses that deep without harm; Python's copies, hashes and encoders of a workload's template
recurse a frame or two per level and stop near 1,000. No Kubernetes object comes near either:
the deepest real manifests (CustomResourceDefinitions' OpenAPI schemas) nest about 40 levels, and
a Pod's own fields a dozen. So the objects kwhatif reads as workloads are refused past
MAX_OBJECT_DEPTH, with the field where the limit is crossed, before anything walks them.
"""

from __future__ import annotations

from typing import Any

MAX_OBJECT_DEPTH = 100


def too_deep(body: Any, limit: int = MAX_OBJECT_DEPTH) -> str | None:
    """The field path (``spec.template.spec.x.a``) where ``body`` nests deeper than ``limit``
    levels of mappings and lists, None when it does not. Iterative, so any depth is measured."""
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(body, 0, ())]
    while stack:
        obj, depth, path = stack.pop()
        if isinstance(obj, dict):
            items: Any = obj.items()
        elif isinstance(obj, list):
            items = enumerate(obj)
        else:
            continue
        if depth >= limit:
            return _path(path)
        for key, value in items:
            if isinstance(value, (dict, list)):
                stack.append((value, depth + 1, (*path, key)))
    return None


def _path(path: tuple[str | int, ...]) -> str:
    out = ""
    for p in path[:12]:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out + ("..." if len(path) > 12 else "")


def depth_problem(body: Any, limit: int = MAX_OBJECT_DEPTH) -> str | None:
    """The one-line refusal of an object nested too deeply, None for any other."""
    where = too_deep(body, limit)
    if where is None:
        return None
    return f"{where}: nested more than {limit} levels deep (no Kubernetes object comes near)"
