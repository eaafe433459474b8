"""The package's layering: no import cycles among kwhatif modules; the packages form the layers
of LAYERS, each importing only its own layer and those below (no package cycle); the framework
and its plugins never reach up into the scheduler, nor into load/ (the cluster model they read is
kwhatif.cache.cluster); api/ never imports dra/; no code outside release/ compares release numbers;
no code outside plugins/, config/ and release/ names a plugin.

Module cycles: every import counts (at the top of a module, under TYPE_CHECKING and inside
functions). Package layers: every import but those under ``if TYPE_CHECKING:`` (annotations may
name a type of a higher layer).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kwhatif"

# None: a cycle added anywhere fails the test.
ALLOWED_CYCLES: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    target = sub if sub in mods else base
                    if target in mods and target != mod:
                        graph[mod].add(target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods and alias.name != mod:
                        graph[mod].add(alias.name)
    return graph


# The intended layers, lowest first. A package may import packages of its own layer or below.
# Packages are kwhatif's subpackages and top-level modules; controlplane/ counts as its two halves.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "gocompat", "escape", "progress", "version", "sink", "secrets", "bounded"),
    ("release",),
    ("api",),
    ("controlplane.admission", "dra", "config"),
    ("cache",),
    ("load",),
    ("framework",),
    ("plugins",),
    ("scheduling", "binder"),
    ("controlplane.controllers", "controlplane"),
    ("autoscaler",),
    ("report",),
    ("whatif",),
    ("mcp", "api_public", "cli", "__main__", "kwhatif"),
)
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def _package(mod: str) -> str:
    parts = mod.split(".")
    if len(parts) == 1:
        return "kwhatif"
    if parts[1] == "controlplane" and len(parts) > 2:
        return ".".join(parts[1:3])
    return parts[1]


def _runtime_imports(path: Path, package: str, mods: dict[str, Path]) -> set[str]:
    """The kwhatif modules ``path`` imports outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                typing_only.update(id(d) for child in node.body for d in ast.walk(child))
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                if base == "kwhatif" and alias.name == "__version__":
                    continue  # the version string: a constant, not a layer
                sub = f"{base}.{alias.name}"
                target = sub if sub in mods else base
                if target in mods:
                    out.add(target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in mods)
    return out


def _package_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        src = _package(mod)
        graph.setdefault(src, set())
        for target in _runtime_imports(path, package, mods):
            dst = _package(target)
            if dst != src:
                graph[src].add(dst)
    return graph


def test_every_package_has_a_layer():
    assert sorted(p for p in _package_graph() if p not in RANK) == []


def test_no_package_cycle():
    assert [sorted(c) for c in _cycles(_package_graph())] == []


def test_packages_import_their_layer_or_below():
    graph = _package_graph()
    upward = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets if RANK[b] > RANK[a])
    assert upward == []


# A release number compared outside release/: `minor >= 37`, `version.minor == 30`, `(1, 37) <= ...`.
_RELEASE_COMPARISON = re.compile(
    r"\bminor\b\s*(?:[<>]=?|[!=]=|-)\s*[\w.(\[]|[\w.)\]]\s*(?:[<>]=?|[!=]=|-)\s*[\w.]*\bminor\b"
    r"|\(\s*1\s*,\s*3\d\s*\)\s*[<>]"
)


def test_no_release_comparison_outside_release():
    """Release differences are recorded changes and gate tables in release/ (black's rule: code asks
    for a feature, never compares versions)."""
    offenders = []
    for mod, path in _modules().items():
        if mod == "kwhatif.release" or mod.startswith("kwhatif.release."):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if _RELEASE_COMPARISON.search(code):
                offenders.append(f"{mod}:{n}: {line.strip()}")
    assert offenders == []


def test_the_release_rule_sees_comparisons():
    for text in (
        "if self.minor >= 37:",
        "x = a if version.minor == 30 else b",
        "if 36 < v.minor:",
        "if minor > version.minor:",
        "elif version.minor - minor > 3:",
    ):
        assert _RELEASE_COMPARISON.search(text), text
    assert not _RELEASE_COMPARISON.search("minor: int = 36")


# The packages that may name a plugin: the plugins themselves, their configuration (profiles,
# args kinds) and the releases' recorded changes.
_NAMING_PLUGINS = ("kwhatif.plugins", "kwhatif.config", "kwhatif.release")


def _plugin_names() -> frozenset[str]:
    from kwhatif.plugins import registry

    return frozenset(registry.names())


def _plugin_name_literals(source: str, plugin_names: frozenset[str]) -> list[tuple[int, str]]:
    """The string literals of ``source`` that are a plugin's name (docstrings aside; a message
    that mentions a plugin in its words is not a name the code goes by)."""
    tree = ast.parse(source)
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value in plugin_names
    )


def test_no_plugin_named_outside_its_home():
    """What the rest of the program knows of a plugin (its column, SARIF help, hints, incremental
    model) is the plugin's record (kwhatif.plugins.info): no code outside plugins/, config/ and
    release/ writes a plugin's name."""
    plugin_names = _plugin_names()
    offenders = [
        f"{mod}:{line}: {value!r}"
        for mod, path in _modules().items()
        if not any(mod == p or mod.startswith(p + ".") for p in _NAMING_PLUGINS)
        for line, value in _plugin_name_literals(path.read_text(), plugin_names)
    ]
    assert offenders == []


def test_the_plugin_name_rule_sees_names():
    source = '''
"""A module about NodeAffinity."""
def f(plugin):
    """NodeAffinity's hints."""
    # NodeAffinity in a comment
    if plugin == "NodeAffinity":
        return f"{plugin} is not {'TaintToleration'}"
    return "turned away by NodeAffinity"
'''
    assert _plugin_name_literals(source, _plugin_names()) == [(6, "NodeAffinity"), (7, "TaintToleration")]


def test_every_plugin_has_its_record():
    """Each in-tree plugin's module exports its record, under the plugin's name."""
    from kwhatif.plugins import registry

    for name in registry.names():
        record = registry.info(name)
        assert record is not None and record.name == name
    assert registry.info("NoSuchPlugin") is None


def _external_imports(path: Path) -> set[str]:
    """The top-level names of the modules ``path`` imports that are not kwhatif's."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
    return names - {"kwhatif"}


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert _cycles(graph) == [frozenset({"a", "b", "c"})]


def test_no_import_cycles_among_kwhatif_modules():
    cycles = [sorted(c) for c in _cycles(_graph()) if c not in ALLOWED_CYCLES]
    assert cycles == []


@pytest.mark.parametrize(
    "layer,forbidden",
    [
        pytest.param("kwhatif.plugins", "kwhatif.scheduling.scheduler", id="plugins-do-not-import-the-scheduler"),
        pytest.param("kwhatif.framework", "kwhatif.scheduling.scheduler", id="framework-does-not-import-the-scheduler"),
        pytest.param("kwhatif.framework", "kwhatif.plugins", id="framework-does-not-import-plugins"),
        pytest.param("kwhatif.plugins", "kwhatif.report", id="plugins-do-not-import-reports"),
        # The cluster model (kwhatif.cache.cluster) sits below the framework; load/ builds it.
        pytest.param("kwhatif.framework", "kwhatif.load", id="framework-does-not-import-load"),
        pytest.param("kwhatif.plugins", "kwhatif.load", id="plugins-do-not-import-load"),
        pytest.param("kwhatif.cache", "kwhatif.load", id="cache-does-not-import-load"),
        # The per-template cache is reached through the Framework's CycleCache protocol.
        pytest.param("kwhatif.framework", "kwhatif.scheduling", id="framework-does-not-import-scheduling"),
        pytest.param("kwhatif.api", "kwhatif.dra", id="api-does-not-import-dra"),
        pytest.param("kwhatif.whatif", "kwhatif.cli", id="engines-do-not-import-the-cli"),
        pytest.param("kwhatif.report", "kwhatif.cli", id="reports-do-not-import-the-cli"),
        pytest.param("kwhatif.api", "kwhatif.load", id="admission-does-not-import-the-loaders"),
        pytest.param("kwhatif.api", "kwhatif.whatif", id="admission-does-not-import-the-engines"),
    ]
    + [
        # reports read the results they are given; only the verdicts they group are shared
        pytest.param("kwhatif.report", f"kwhatif.whatif.{engine}", id=f"reports-do-not-import-the-{engine}-engine")
        for engine in ("check", "drain", "capacity", "schedule")
    ],
)
def test_layers_import_downwards_only(layer, forbidden):
    graph = _graph()
    offenders = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m == layer or m.startswith(layer + ".")
        for t in targets
        if t == forbidden or t.startswith(forbidden + ".")
    )
    assert offenders == []


def test_formats_import_only_the_report_models_and_base():
    """An output format renders the report models: it reads nothing of the scheduler, the
    plugins, the loaders or the what-if engines, only kwhatif.report (base, the models, the
    formatter base and its sibling formats), kwhatif.escape (escaping for the output medium) and the
    package's version (-o sarif names the tool)."""
    graph = _graph()
    formats = [m for m in graph if m == "kwhatif.report.formats" or m.startswith("kwhatif.report.formats.")]
    assert "kwhatif.report.formats.table" in formats and "kwhatif.report.formats.wide" in formats
    offenders = sorted(
        f"{m} -> {t}"
        for m in formats
        for t in graph[m]
        if not t.startswith("kwhatif.report.") and t not in ("kwhatif.version", "kwhatif.escape")
    )
    assert offenders == []


def test_only_the_cli_package_imports_click():
    offenders = sorted(
        mod
        for mod, path in _modules().items()
        if not mod.startswith("kwhatif.cli") and "click" in _external_imports(path)
    )
    assert offenders == []


def test_the_rules_see_what_they_forbid():
    """The checks above find a forbidden import where one is."""
    graph = _graph()
    assert "kwhatif.whatif.check" in graph["kwhatif.cli.check"]
    assert "kwhatif.report.verdict" in graph["kwhatif.report.check"]
    assert "click" in _external_imports(PACKAGE / "cli" / "main.py")
