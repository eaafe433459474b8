"""Reading YAML and JSON documents: the one mapping of their errors (and of unreadable paths) to
one-line messages, shared by the cluster loader (kwhatif/load/files.py) and the configuration; and
the strict reader of a KubeSchedulerConfiguration document, which keeps what Go's strict decoding
reports (keys given twice, JSON numbers written with a fraction).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from kwhatif.errors import ConfigError, InputError
from kwhatif.gocompat import go_quote

try:  # the C loader is an order of magnitude faster; fall back where libyaml is missing
    YAML_LOADER: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    YAML_LOADER = yaml.SafeLoader

# An alias-expanded document may be this many times larger than its text, at least this large.
ALIAS_EXPANSION_FACTOR = 20
ALIAS_EXPANSION_FLOOR = 1_000_000

# Deepest nesting of YAML collections accepted: libyaml's composer recurses in C without a
# guard and overflows the stack somewhere above 20,000 levels; go-yaml stops at 10,000 ("exceeded
# max depth"), which no real manifest comes near.
MAX_YAML_DEPTH = 10_000


def _raise_libyaml_nesting_cap() -> None:
    """libyaml 0.2.6 (bundled from PyYAML 6.0.4) refuses documents nested deeper than 1,000
    levels ("exceeded maximum nesting depth"); earlier builds have no such cap. kwhatif measures
    the nesting itself (yaml_nesting_problem, before any document is composed) and refuses above
    MAX_YAML_DEPTH, naming the object and field where it can; so the cap is lifted as earlier
    builds had it, and every PyYAML build reads the same documents. Only the parser's event
    stream is bounded by it, and that parser keeps its state on the heap, not the C stack. A build
    without the setting is left as it is."""
    module = getattr(yaml, "_yaml", None) or getattr(getattr(yaml, "cyaml", None), "_yaml", None)
    path = getattr(module, "__file__", None)
    if not path:
        return
    try:
        import ctypes

        setter = getattr(ctypes.CDLL(path), "yaml_set_max_nest_level", None)
    except OSError:  # pragma: no cover - the extension was found but cannot be opened again
        return
    if setter is not None:
        setter.argtypes = [ctypes.c_int]
        setter.restype = None
        setter(2**31 - 1)


_raise_libyaml_nesting_cap()


def json_error_message(line: int, column: int, msg: str) -> str:
    return f"invalid JSON at line {line} column {column}: {msg}"


@contextlib.contextmanager
def os_errors(path: str, error: type[InputError] = InputError) -> Iterator[None]:
    """Turn the ways a path cannot be read into one-line errors naming it."""
    try:
        yield
    except FileNotFoundError:
        raise error("no such file or directory", source=path) from None
    except IsADirectoryError:
        raise error("is a directory", source=path) from None
    except PermissionError:
        raise error("permission denied", source=path) from None
    except OSError as e:
        raise error(f"cannot read: {e.strerror or e}", source=path) from None


def yaml_error_message(e: yaml.YAMLError, text: str) -> str:
    """One line for a YAML error, with the line and column where they are known."""
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = e.problem or e.context or "malformed"
        if isinstance(e, yaml.constructor.ConstructorError) and "tag" in (e.problem or ""):
            problem = f"{problem} (only plain YAML is accepted)"
    elif isinstance(e, yaml.reader.ReaderError):
        # a character YAML does not allow (NUL, other control characters)
        pos = min(max(e.position, 0), len(text))
        line = text.count("\n", 0, pos) + 1
        where = f" at line {line} column {pos - text.rfind(chr(10), 0, pos)}"
        char = e.character if isinstance(e.character, int) else ord(e.character) if e.character else 0
        problem = f"unacceptable character #x{char:04x}: {e.reason}"
    else:
        where, problem = "", str(e)
    return f"invalid YAML{where}: {' '.join(problem.split())}"


def yaml_nesting_problem(text: str) -> str | None:
    """Why ``text`` must not reach the C YAML loader (its collections nest deeper than
    MAX_YAML_DEPTH), with the line and column where the limit is crossed; None when it is safe.

    A collection takes at least one character of the text, so short texts are safe; otherwise
    flow collections need an opening bracket each and block collections indentation (or "- " and
    "? " indicators) at the start of a line, so a text with few non-empty brackets and no long
    prefix of those is safe too (a 40 MB kubectl dump is checked in half a second). Only what passes neither bound is parsed, event by event, to measure it."""
    limit = MAX_YAML_DEPTH
    if len(text) <= limit:
        return None
    # empty collections ({} and [], as kubectl and PyYAML write them) nest nothing further
    brackets = text.count("{") + text.count("[") - text.count("{}") - text.count("[]")
    if brackets < limit // 2 and not _LONG_PREFIX.match(text) and not _LONG_LINE_PREFIX.search(text):
        return None
    depth = 0
    try:
        for event in yaml.parse(text, Loader=YAML_LOADER):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
                    return f"invalid YAML{where}: nested too deeply (more than {limit} levels)"
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return None  # the loader reports the syntax error itself
    return None


_LONG_PREFIX = re.compile(rf"[ ?-]{{{MAX_YAML_DEPTH // 2}}}")
_LONG_LINE_PREFIX = re.compile(rf"\n[ ?-]{{{MAX_YAML_DEPTH // 2}}}")


# --- the strict reader of a configuration document ------------------------------------------------


class JsonFloat(float):
    """A JSON number written with a fraction or exponent: Go never decodes it into an integer."""

    text: str

    def __new__(cls, text: str) -> JsonFloat:
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


class JsonObject(dict[str, Any]):
    """A JSON object that remembers the keys given twice (the strict decoder rejects them)."""

    duplicates: list[str]


def json_object(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject()
    obj.duplicates = []
    for k, v in pairs:
        if k in obj:
            obj.duplicates.append(k)
        obj[k] = v
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON value {name}")


class StrictLoader(YAML_LOADER):  # type: ignore[misc]
    """Safe YAML that records keys set twice in a mapping (YAMLToJSONStrict reports them) and keeps
    timestamps as strings (sigs.k8s.io/yaml converts them to JSON strings)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[str] = []

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    hashable = key not in seen
                except TypeError:
                    continue  # reported as an unsupported key by the constructor
                if not hashable:
                    self.duplicates.append(
                        f"line {key_node.start_mark.line + 1}: key {go_quote(str(key))} already set in map"
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


# go-yaml (kubectl's and the API server's YAML) reads no base-60 numbers: 1:30 is the string
# "1:30" there, where PyYAML's YAML 1.1 resolver reads the integer 90. The same resolvers without
# the sexagesimal forms.
_GO_INT = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+)$""",
    re.X,
)
_GO_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_GO_RESOLVED = {"tag:yaml.org,2002:int": _GO_INT, "tag:yaml.org,2002:float": _GO_FLOAT}


def go_yaml_resolvers(*, timestamps: bool) -> dict[str, list[tuple[str, Any]]]:
    """The safe loader's implicit resolvers as go-yaml resolves plain scalars: no base-60
    numbers; without timestamps when ``timestamps`` is False."""
    return {
        first: [
            (tag, _GO_RESOLVED.get(tag, rx))
            for tag, rx in resolvers
            if timestamps or tag != "tag:yaml.org,2002:timestamp"
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def construct_go_int(loader: Any, node: Any) -> Any:
    """An integer as go-yaml reads one into an interface: one too long for Python's int() (4,300
    digits) stays its text, as go-yaml keeps a number it cannot parse a string."""
    _check_explicit_tag(loader, node)
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError:
        return loader.construct_scalar(node)


_YAML_TAG = "tag:yaml.org,2002:"
# The tags go-yaml resolves itself (resolvableTag of gopkg.in/yaml.v2 resolve.go): a scalar that
# names one of them explicitly must read as that type, else the document is refused.
_RESOLVABLE = ("bool", "int", "float", "null", "timestamp")


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG) :] if tag.startswith(_YAML_TAG) else tag


def _check_explicit_tag(loader: Any, node: Any) -> None:
    """go-yaml's resolve (gopkg.in/yaml.v2 resolve.go, which sigs.k8s.io/yaml and so kubectl and
    the API server read YAML with): a scalar whose explicit tag is not what its text resolves to
    fails with "cannot decode !!str `x` as a !!float" (an integer may be read as a float)."""
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot decode a collection as a {_short_tag(node.tag)}", node.start_mark
        )
    resolved = loader.resolve(yaml.ScalarNode, node.value, (True, False))
    if resolved == node.tag or (node.tag == _YAML_TAG + "float" and resolved == _YAML_TAG + "int"):
        return
    if node.tag == _YAML_TAG + "timestamp" and resolved == _YAML_TAG + "str":
        return  # a loader that reads timestamps as text: the constructor decides
    raise _cannot_decode(loader, node)


def _cannot_decode(loader: Any, node: Any, *, unparsed: bool = False) -> yaml.constructor.ConstructorError:
    # unparsed: the text looked like the type and still did not parse (go-yaml then reads a string)
    resolved = _YAML_TAG + "str" if unparsed else loader.resolve(yaml.ScalarNode, node.value, (True, False))
    value = node.value if len(node.value) <= 64 else node.value[:64] + "..."
    return yaml.constructor.ConstructorError(
        None, None, f"cannot decode {_short_tag(resolved)} `{value}` as a {_short_tag(node.tag)}", node.start_mark
    )


def _checked(name: str, base: Any) -> Any:
    def construct(loader: Any, node: Any) -> Any:
        _check_explicit_tag(loader, node)
        try:
            return base(loader, node)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError):
            # the value still cannot be built (a timestamp's month out of range): the same
            # refusal, never an internal error
            raise _cannot_decode(loader, node, unparsed=True) from None

    return construct


def add_go_tag_constructors(loader: Any) -> None:
    """Make ``loader`` refuse, as go-yaml does, a scalar whose explicit tag (``!!float x``,
    ``!!bool x``, ``!!timestamp x``) its text cannot be read as, instead of raising from inside
    PyYAML's constructors."""
    for name in _RESOLVABLE:
        tag = _YAML_TAG + name
        if name == "int":
            loader.add_constructor(tag, construct_go_int)
            continue
        base = loader.yaml_constructors.get(tag)
        if base is not None:
            loader.add_constructor(tag, _checked(name, base))


class PlainLoader(YAML_LOADER):  # type: ignore[misc]
    """The safe loader with go-yaml's explicit-tag rules (a kubeconfig's, an ExecCredential's)."""


PlainLoader.yaml_implicit_resolvers = go_yaml_resolvers(timestamps=True)
add_go_tag_constructors(PlainLoader)
StrictLoader.yaml_implicit_resolvers = go_yaml_resolvers(timestamps=False)
add_go_tag_constructors(StrictLoader)


@dataclass(slots=True)
class StrictDocument:
    body: Any
    yaml_duplicates: list[str]
    size: int


def read_strict_document(text: str, kind: str) -> StrictDocument:
    """The one document of a file of ``kind``: JSON when its first non-space character is ``{``
    (the JSON serializer claims the data), YAML otherwise."""
    if text.startswith("\ufeff"):
        # Go does not skip a byte order mark, so such a file is never taken for JSON.
        text = text[1:]
        is_json = False
    else:
        is_json = text.lstrip()[:1] == "{"
    if is_json:
        try:
            body = json.loads(
                text, object_pairs_hook=json_object, parse_float=JsonFloat, parse_constant=_reject_constant
            )
        except json.JSONDecodeError as e:
            raise ConfigError(json_error_message(e.lineno, e.colno, e.msg)) from None
        except ValueError as e:
            raise ConfigError(f"invalid JSON: {e}") from None
        except RecursionError:
            raise ConfigError("invalid JSON: nested too deeply") from None
        return StrictDocument(body, [], len(text))
    problem = yaml_nesting_problem(text)
    if problem:
        raise ConfigError(problem)
    loader = StrictLoader(text)
    docs: list[Any] = []
    try:
        while loader.check_data():
            docs.append(loader.get_data())
    except yaml.YAMLError as e:
        raise ConfigError(yaml_error_message(e, text)) from None
    except RecursionError:
        raise ConfigError("invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    docs = [d for d in docs if d is not None]
    if len(docs) > 1:
        # Upstream silently reads only the first document; a second one is almost certainly a
        # mistake (two configurations concatenated), so it is an error here.
        raise ConfigError(f"the file holds {len(docs)} YAML documents; a {kind} file holds one")
    return StrictDocument(docs[0] if docs else None, loader.duplicates, len(text))
