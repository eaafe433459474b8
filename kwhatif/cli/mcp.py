"""`kwhatif mcp`: the engines as Model Context Protocol tools over standard input and output."""

from __future__ import annotations

import os

import click

from kwhatif.cli.options import parse_size
from kwhatif.errors import InputError


@click.command(
    epilog="\b\nExit status:\n  0   the client closed the connection\n  2   bad usage, or the mcp extra is missing"
)
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False),
    help="A directory the tools may read files under (cluster states, manifests, configurations). "
    "Repeatable; relative paths in calls are taken from the first. Default: the current directory.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    metavar="SECONDS",
    help="Stop a tool call that takes longer than this, and answer with an error.",
)
@click.option(
    "--max-output-size",
    metavar="SIZE",
    default="4M",
    show_default=True,
    help="Largest JSON report a tool answers with, such as 4M; a larger one is answered with its summary and an error.",
)
@click.option(
    "--max-input-size",
    metavar="SIZE",
    default=None,
    help="Largest input file the tools read, as the commands' --max-input-size.",
)
def mcp(roots: tuple[str, ...], timeout: float, max_output_size: str, max_input_size: str | None) -> int:
    """Serve kwhatif's engines as Model Context Protocol tools over standard input and output.

    The tools are schedule, check, capacity and drain, each with the inputs and options of its
    command, answering with a short summary and the JSON report of `-o json`. The server is
    read-only (nothing is ever bound or written to a cluster) and reads only files under the --root
    directories. Register it with an MCP client as the command `kwhatif mcp --root DIR`.
    Needs the `mcp` extra: pip install 'kwhatif[mcp]'.
    """
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError:
        raise InputError("kwhatif mcp needs the MCP SDK: pip install 'kwhatif[mcp]'") from None
    from kwhatif.mcp import ServerOptions, serve

    options = ServerOptions(
        roots=tuple(os.path.realpath(r) for r in (roots or (os.getcwd(),))),
        timeout=timeout,
        max_output=parse_size(max_output_size, "--max-output-size"),
        max_input_size=parse_size(max_input_size) if max_input_size else None,
    )
    serve(options)
    return 0
