"""The command line: the click group, its commands, and the one place that turns exceptions into
exit codes.

Only main() catches errors: every KwhatifError becomes one line on stderr and its exit code;
anything else is an internal error (exit 5) unless --debug asks for the traceback.
Heavy modules are imported inside the commands so that --help and completion stay fast.
"""

from __future__ import annotations

import gc
import os
import sys
import traceback
from typing import Any

import click

from kwhatif import __version__
from kwhatif.cli.capacity import capacity
from kwhatif.cli.check import check
from kwhatif.cli.completion import completion
from kwhatif.cli.drain import drain
from kwhatif.cli.env import Environment
from kwhatif.cli.schedule import schedule
from kwhatif.cli.snapshot import snapshot
from kwhatif.errors import ExitCode, Interrupted, KwhatifError


class _Group(click.Group):
    """click turns a KeyboardInterrupt in a command into Abort (and an empty line on stderr);
    kwhatif reports it as an interruption, exit 130."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kwhatif")
@click.option("--debug", is_flag=True, help="Show the traceback of internal errors.")
def cli(debug: bool) -> None:
    """What would kube-scheduler do with this pod, on this cluster, and why?

    kwhatif replays the upstream scheduling framework (the default profile of the cluster's own
    kube-scheduler release, 1.30 to 1.37, or your KubeSchedulerConfiguration) over a snapshot of a
    cluster, without touching it, and explains every filter rejection and every score.

    The release is --scheduler-version if given, else the live cluster's version, else the image
    tag of the dump's kube-scheduler (or kube-apiserver) static pod, else 1.35.
    """


for _command in (schedule, check, capacity, drain, snapshot, completion):
    cli.add_command(_command)


def _clear_progress() -> None:
    """An error message starts on a clean line, not after a half-drawn progress line."""
    progress = sys.modules.get("kwhatif.progress")
    if progress is not None:
        progress.clear()


def main(argv: list[str] | None = None, env: Environment | None = None) -> None:
    """Run the command line; ``env``: the terminal it runs in (default: the process's)."""
    env = env or Environment.from_process()
    args = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, not only before the command.
    debug = "--debug" in args
    if debug:
        args = [a for a in args if a != "--debug"]
    try:
        rv = cli.main(args=args, prog_name="kwhatif", standalone_mode=False, obj=env)
        code = int(rv) if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        code = e.exit_code
    except click.Abort as e:
        _clear_progress()
        if isinstance(e.__cause__, KeyboardInterrupt):
            click.echo("kwhatif: interrupted", file=env.stderr)
            code = ExitCode.INTERRUPTED
        else:
            click.echo("kwhatif: aborted", file=env.stderr)
            code = ExitCode.BAD_INPUT
    except (Interrupted, KeyboardInterrupt):
        _clear_progress()
        click.echo("kwhatif: interrupted", file=env.stderr)
        code = ExitCode.INTERRUPTED
    except click.ClickException as e:
        e.show(file=env.stderr)
        code = ExitCode.BAD_INPUT
    except KwhatifError as e:
        _clear_progress()
        if debug:
            traceback.print_exc(file=env.stderr)
        click.echo(f"kwhatif: error: {e}", file=env.stderr)
        code = e.exit_code
    except BrokenPipeError:
        # stdout closed early (| head): not an error of kwhatif's
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = 0
    except MemoryError:
        if debug:
            traceback.print_exc(file=env.stderr)
        click.echo("kwhatif: error: out of memory", file=env.stderr)
        code = ExitCode.BAD_INPUT
    except OSError as e:
        # writing the report failed (a full disk, a closed pipe handled above)
        if debug:
            traceback.print_exc(file=env.stderr)
        click.echo(f"kwhatif: error: {e.strerror or e}", file=env.stderr)
        code = ExitCode.BAD_INPUT
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 5
        _clear_progress()
        if debug:
            traceback.print_exc(file=env.stderr)
        msg = str(e).splitlines()[0] if str(e) else ""
        click.echo(
            f"kwhatif: internal error: {type(e).__name__}: {msg} (run with --debug for the traceback)", file=env.stderr
        )
        code = ExitCode.INTERNAL
    gc.unfreeze()  # what long_lived() kept out of the collector's way lived as long as the command
    sys.exit(code)
