"""`kwhatif completion SHELL`: the shell completion script, generated from the click application."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from kwhatif.cli.options import EXIT_STATUS_HELP

PROG = "kwhatif"
COMPLETE_VAR = "_KWHATIF_COMPLETE"


def completion_script(shell: str, app: click.Command) -> str:
    cls = get_completion_class(shell)
    if cls is None:
        raise ValueError(f"unsupported shell {shell!r}")
    return cls(app, {}, PROG, COMPLETE_VAR).source()


@click.command(epilog=EXIT_STATUS_HELP["completion"])
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> int:
    """Print the shell completion script (source it from your shell's rc file)."""
    from kwhatif.cli.env import current

    click.echo(completion_script(shell, ctx.find_root().command), nl=False, file=current().stdout)
    return 0
