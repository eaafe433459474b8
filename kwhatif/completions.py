"""Shell completion scripts, generated from the click application."""

from __future__ import annotations

from click.shell_completion import get_completion_class

PROG = "kwhatif"
COMPLETE_VAR = "_KWHATIF_COMPLETE"


def completion_script(shell: str) -> str:
    from kwhatif.cli import cli

    cls = get_completion_class(shell)
    if cls is None:
        raise ValueError(f"unsupported shell {shell!r}")
    return cls(cli, {}, PROG, COMPLETE_VAR).source()
