"""What-if edits of the cluster itself: take nodes out, add clones of a node template."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from kwhatif.api import parse
from kwhatif.api.names import is_dns1123_subdomain, is_valid_label_value
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import FieldError, InputError
from kwhatif.load.files import Document, Limits, read_path

HOSTNAME_LABEL = "kubernetes.io/hostname"
# The most clones --add-node adds, all of them together: the largest cluster Kubernetes supports
# (5,000 nodes: kubernetes.io/docs/setup/best-practices/cluster-large). Every clone is a node each
# pod is filtered and scored against, so an unbounded count is unbounded work and memory.
MAX_ADDED_NODES = 5000


def remove_nodes(state: ClusterState, names: tuple[str, ...] | list[str]) -> list[str]:
    """Remove nodes and the pods bound to them; returns the pods removed ("ns/name")."""
    missing = [n for n in names if n not in state.nodes]
    if missing:
        raise InputError(f"no node named {', '.join(repr(m) for m in missing)} in the cluster", field="--without-node")
    gone = set(names)
    removed = [p.key for p in state.pods if p.node_name in gone]
    state.pods = [p for p in state.pods if p.node_name not in gone]
    for n in gone:
        del state.nodes[n]
        state.csi_nodes.pop(n, None)
    return removed


def _split_spec(spec: str) -> tuple[str, int]:
    """FILE[:COUNT]. A suffix after the last ':' is a count when FILE exists without it."""
    path, sep, count = spec.rpartition(":")
    if not sep or not path or os.path.exists(spec):
        return spec, 1
    if not count.lstrip("-").isdigit() or not count.isascii():
        raise InputError(f"bad count {count[:40]!r} in {spec[:200]!r}: expected FILE[:COUNT]", field="--add-node")
    if len(count) > 12 or int(count) > MAX_ADDED_NODES:
        raise InputError(
            f"count {count[:40]} in {spec[:200]!r} is above {MAX_ADDED_NODES} (the most nodes a cluster is supported with)",
            field="--add-node",
        )
    n = int(count)
    if n < 1:
        raise InputError(f"count must be at least 1 in {spec[:200]!r}", field="--add-node")
    return path, n


def add_nodes(state: ClusterState, specs: tuple[str, ...] | list[str], limits: Limits = Limits()) -> list[str]:
    """Add COUNT clones of the Node in each FILE[:COUNT]; names are <template>-<i>, skipping names in
    use; the hostname label follows the new name. Returns the names added."""
    added: list[str] = []
    counted = [_split_spec(spec) for spec in specs]
    if sum(c for _, c in counted) > MAX_ADDED_NODES:
        raise InputError(
            f"{sum(c for _, c in counted)} nodes in all is above {MAX_ADDED_NODES} "
            "(the most nodes a cluster is supported with)",
            field="--add-node",
        )
    for path, count in counted:
        docs = [d for d in read_path(path, limits) if d.kind == "Node"]
        if len(docs) != 1:
            raise InputError(f"expected exactly one Node, found {len(docs)}", source=path, field="--add-node")
        added.extend(add_node_clones(state, docs[0], count, field="--add-node"))
    return added


def add_node_clones(state: ClusterState, doc: Document, count: int, field: str = "add_nodes") -> list[str]:
    """Add ``count`` clones of the Node of ``doc``: names <template>-<i>, skipping names in use; the
    hostname label follows the new name. Returns the names added."""
    added: list[str] = []
    try:
        template = parse.node(doc.body, doc.source)
    except FieldError as e:
        raise e.with_context(source=doc.source, obj=doc.describe()) from None
    i = 0
    for _ in range(count):
        i += 1
        while f"{template.name}-{i}" in state.nodes:
            i += 1
        name = f"{template.name}-{i}"
        # the clone must be a node the API server would take: its name, and its name as the
        # hostname label's value
        problems = is_dns1123_subdomain(name) + is_valid_label_value(name)
        if problems:
            raise InputError(
                f"clone name {name!r} is not a valid node name and hostname label: {problems[0]}",
                source=doc.source,
                obj=doc.describe(),
                field=field,
            )
        labels: dict[str, Any] = dict(template.labels)
        labels[HOSTNAME_LABEL] = name
        node = dataclasses.replace(template, name=name, uid="", labels=labels, source=f"{doc.source} (clone {i})")
        state.nodes[name] = node
        added.append(name)
    state.nodes = dict(sorted(state.nodes.items()))
    return added
