"""The manifests given to a command, as every engine reads them: -n and --ignore-node-name
applied, and with ``precise`` each document naming the line it starts on. The command line and the
Python API read their files each their own way, then hand the documents here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kwhatif.load.files import Document


def apply_options(
    docs: list[Document], namespace: str | None, ignore_node_name: bool, *, precise: bool, note: Callable[[str], None]
) -> list[Document]:
    """``docs`` with ``namespace`` (-n) and ``ignore_node_name`` (--ignore-node-name) applied in
    place; ``precise``: each names the line it starts on (for annotations). ``note`` says how many
    pods lose their node."""
    from kwhatif.controlplane.controllers.pods import drop_node_names
    from kwhatif.load.cluster import apply_namespace
    from kwhatif.load.files import precise_sources

    if precise:
        precise_sources(docs)
    if namespace:
        apply_namespace(docs, namespace)
    if ignore_node_name:
        n = drop_node_names(docs)
        if n:
            note(f"--ignore-node-name: {n} pod(s) lose spec.nodeName and are scheduled anew")
    return docs
