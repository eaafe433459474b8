"""Shell completion of option values: kubeconfig contexts ($KUBECONFIG merged as kubectl merges it),
namespaces and node names of the --cluster files already on the command line, releases, and the
feature gates of the release chosen so far.

Completion never contacts a cluster: a live read can take seconds, ask for credentials or hang on a
network, all of it on every Tab. Without --cluster files there is nothing to offer for namespaces
and nodes. A file that cannot be read offers nothing; completion never fails."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click
from click.shell_completion import CompletionItem


def _matching(names: Iterable[str], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(n) for n in sorted(set(names)) if n.startswith(incomplete)]


def complete_context(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from kwhatif.load.kubeconfig import contexts

    items, _ = contexts(ctx.params.get("kubeconfig"))
    return _matching((c["name"] for c in items), incomplete)


def _cluster_objects(ctx: click.Context) -> list[dict[str, Any]]:
    """The objects of the --cluster files given so far (not standard input)."""
    paths = [p for p in ctx.params.get("cluster") or () if p != "-"]
    if not paths:
        return []
    from kwhatif.errors import KwhatifError
    from kwhatif.load.files import read_path

    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            out.extend(d.body for d in read_path(path))
        except (KwhatifError, OSError, ValueError):
            continue
    return out


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, dict) else {}


def complete_namespace(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    names = set()
    for obj in _cluster_objects(ctx):
        meta = _meta(obj)
        name = meta.get("name") if obj.get("kind") == "Namespace" else meta.get("namespace")
        if isinstance(name, str) and name:
            names.add(name)
    return _matching(names, incomplete)


def complete_node(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    names = (_meta(o).get("name") for o in _cluster_objects(ctx) if o.get("kind") == "Node")
    return _matching((n for n in names if isinstance(n, str) and n), incomplete)


def complete_release(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from kwhatif.release.versions import MAJOR, NEWEST_PATCH, SUPPORTED_MINORS

    minors = [f"{MAJOR}.{m}" for m in SUPPORTED_MINORS]
    patches = [f"{MAJOR}.{m}.{p}" for m in SUPPORTED_MINORS for p in range(NEWEST_PATCH[m] + 1)]
    # the minors first; a minor typed in full offers its patches too
    if incomplete in minors:
        return [CompletionItem(v) for v in [incomplete, *patches] if v == incomplete or v.startswith(incomplete + ".")]
    offered = minors if incomplete.count(".") < 2 else patches
    return [CompletionItem(v) for v in offered if v.startswith(incomplete)]


def complete_feature_gates(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The gates the release of --scheduler-version (else the default one) knows, for the last
    K=V of the list; the ones already given are not offered again."""
    from kwhatif.release import featuregates
    from kwhatif.release.versions import DEFAULT_MINOR, parse_version

    minor = DEFAULT_MINOR
    flag = ctx.params.get("scheduler_version")
    if isinstance(flag, str):
        try:
            minor = parse_version(flag)[1]
        except ValueError:
            pass
    try:
        gates = featuregates.known(minor)
    except ValueError:
        return []
    head, _, last = incomplete.rpartition(",")
    prefix = head + "," if head else ""
    given = {kv.split("=", 1)[0] for kv in head.split(",") if kv}
    if "=" in last:
        name = last.split("=", 1)[0]
        return [CompletionItem(f"{prefix}{name}={v}") for v in ("true", "false") if f"{name}={v}".startswith(last)]
    return [CompletionItem(f"{prefix}{n}=") for n in sorted(gates) if n.startswith(last) and n not in given]
