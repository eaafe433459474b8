"""Shell completion scripts, generated from the click application the caller passes in."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

PROG = "kwhatif"
COMPLETE_VAR = "_KWHATIF_COMPLETE"


def completion_script(shell: str, app: click.Command) -> str:
    cls = get_completion_class(shell)
    if cls is None:
        raise ValueError(f"unsupported shell {shell!r}")
    return cls(app, {}, PROG, COMPLETE_VAR).source()
