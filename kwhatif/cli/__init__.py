"""The command line (see main.py): options.py holds the shared options, run.py the run every
command builds, env.py the terminal passed in, one module per command."""

from kwhatif.cli.main import cli, kubectl_main, main

__all__ = ["cli", "kubectl_main", "main"]
