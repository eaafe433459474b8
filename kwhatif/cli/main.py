"""The command line: the click group, its commands, and the one place that turns exceptions into
exit codes.

Only main() catches errors: every KwhatifError becomes one line on stderr and its exit code;
anything else is an internal error (exit 5) unless --debug asks for the traceback.
Heavy modules are imported inside the commands so that --help and completion stay fast.
"""

from __future__ import annotations

import dataclasses
import errno
import gc
import io
import os
import sys
import traceback
from typing import Any

import click

from kwhatif.cli.autoscale import autoscale
from kwhatif.cli.capacity import capacity
from kwhatif.cli.check import check
from kwhatif.cli.completion import completion
from kwhatif.cli.diff import diff
from kwhatif.cli.drain import drain
from kwhatif.cli.env import Environment
from kwhatif.cli.mcp import mcp
from kwhatif.cli.schedule import schedule
from kwhatif.cli.snapshot import snapshot
from kwhatif.errors import ExitCode, Interrupted, KwhatifError
from kwhatif.escape import visible
from kwhatif.secrets import redacting
from kwhatif.version import __version__


class _Group(click.Group):
    """click turns a KeyboardInterrupt in a command into Abort (and an empty line on stderr);
    kwhatif reports it as an interruption, exit 130."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None
        except BrokenPipeError:
            raise _ReaderGone() from None  # not to click, which would exit 1


class _ReaderGone(Exception):
    """Standard output's reader went away (or it was closed)."""


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kwhatif")
@click.option("--debug", is_flag=True, help="Show the traceback of internal errors.")
def cli(debug: bool) -> None:
    """What would kube-scheduler do with this pod, on this cluster, and why?

    kwhatif replays the upstream scheduling framework (the default profile of the cluster's own
    kube-scheduler release, 1.30 to 1.38, or your KubeSchedulerConfiguration) over a snapshot of a
    cluster, without touching it, and explains every filter rejection and every score.

    The release is --scheduler-version if given, else the live cluster's version, else the image
    tag of the dump's kube-scheduler (or kube-apiserver) static pod, else 1.36.2.
    """


for _command in (schedule, check, capacity, drain, autoscale, diff, snapshot, completion, mcp):
    cli.add_command(_command)


def _clear_progress() -> None:
    """An error message starts on a clean line, not after a half-drawn progress line."""
    progress = sys.modules.get("kwhatif.progress")
    if progress is not None:
        progress.clear()


class _ClosedStdout(io.TextIOBase):
    """Standard output when kwhatif was started with it closed (`>&-`): writing to it is
    writing to a pipe nobody reads."""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "standard output is closed")

    def isatty(self) -> bool:
        return False


def _guard_stdout() -> None:
    """With standard output closed, descriptor 1 is held by /dev/null so that no file kwhatif
    opens (nor a credential plugin it runs) takes its place, and writes end as a broken pipe."""
    if sys.stdout is not None:
        return
    try:
        os.fstat(1)
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
        if fd != 1:
            os.dup2(fd, 1)
            os.close(fd)
    sys.stdout = _ClosedStdout()


def _drop_stdout() -> None:
    """Standard output failed (a broken pipe, a full disk): what is still buffered goes to
    /dev/null, so that exiting does not try to write it again and report that."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.close(fd)
    except OSError:
        pass
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit


def _finish_stdout(code: int, env: Environment, prog: str = "kwhatif") -> int:
    """Flush standard output here, where a failure can be told in one line, not at exit."""
    try:
        env.stdout.flush()
        if sys.stdout is not None and sys.stdout is not env.stdout:
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return BROKEN_PIPE
    except OSError as e:
        _drop_stdout()
        click.echo(f"{prog}: error: cannot write to standard output: {e.strerror or e}", file=env.stderr)
        return ExitCode.BAD_INPUT
    return code


# The longest error line written: the values an error quotes are bounded where it is made (a
# field's value by its first characters), this bounds what else a line may carry (a path, a
# server's message).
MAX_ERROR_LINE = 16 * 1024


def _bounded(line: str) -> str:
    if len(line) <= MAX_ERROR_LINE:
        return line
    return f"{line[:MAX_ERROR_LINE]}... ({len(line) - MAX_ERROR_LINE} more characters)"


# A reader that went away (`| head`, a closed stdout): quiet, with the status of a process that
# SIGPIPE ended (128 + 13), as a shell reports it.
BROKEN_PIPE = 141


# kubectl runs a plugin named kubectl-whatif on PATH as `kubectl whatif`; usage, help and errors
# say so.
KUBECTL_PLUGIN = "kubectl whatif"


def kubectl_main() -> None:
    """The kubectl-whatif command: the same command line, named as kubectl runs it."""
    main(prog=KUBECTL_PLUGIN)


def main(argv: list[str] | None = None, env: Environment | None = None, prog: str = "kwhatif") -> None:
    """Run the command line; ``env``: the terminal it runs in (default: the process's); ``prog``:
    the name usage, help and errors give it."""
    _guard_stdout()
    env = env or Environment.from_process()
    if env.prog != prog:
        env = dataclasses.replace(env, prog=prog)
    # no credential reaches the terminal, whatever text carries it (kwhatif.secrets)
    env = dataclasses.replace(
        env, stdout=redacting(env.stdout, thorough=False), stderr=redacting(env.stderr, thorough=True)
    )
    if sys.stderr is not None:
        sys.stderr = redacting(sys.stderr, thorough=True)
    args = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, not only before the command.
    debug = "--debug" in args
    if debug:
        args = [a for a in args if a != "--debug"]
    try:
        rv = cli.main(args=args, prog_name=prog, standalone_mode=False, obj=env)
        code = int(rv) if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        code = e.exit_code
    except click.Abort as e:
        _clear_progress()
        if isinstance(e.__cause__, KeyboardInterrupt):
            click.echo(f"{prog}: interrupted", file=env.stderr)
            code = ExitCode.INTERRUPTED
        else:
            click.echo(f"{prog}: aborted", file=env.stderr)
            code = ExitCode.BAD_INPUT
    except (Interrupted, KeyboardInterrupt):
        _clear_progress()
        click.echo(f"{prog}: interrupted", file=env.stderr)
        code = ExitCode.INTERRUPTED
    except click.ClickException as e:
        e.show(file=env.stderr)
        code = ExitCode.BAD_INPUT
    except KwhatifError as e:
        _clear_progress()
        if debug:
            traceback.print_exc(file=env.stderr)
        click.echo(f"{prog}: error: {_bounded(visible(str(e)))}", file=env.stderr)
        code = e.exit_code
    except (BrokenPipeError, _ReaderGone):
        # stdout closed early (| head): not an error of kwhatif's, nothing to say
        _clear_progress()
        _drop_stdout()
        code = BROKEN_PIPE
    except MemoryError:
        if debug:
            traceback.print_exc(file=env.stderr)
        click.echo(f"{prog}: error: out of memory", file=env.stderr)
        code = ExitCode.BAD_INPUT
    except OSError as e:
        # writing the report failed (a full disk, a closed pipe handled above)
        _clear_progress()
        if debug:
            traceback.print_exc(file=env.stderr)
        if e.filename is None:
            _drop_stdout()
            click.echo(f"{prog}: error: cannot write to standard output: {e.strerror or e}", file=env.stderr)
        else:
            click.echo(f"{prog}: error: {visible(str(e.filename))}: {e.strerror or e}", file=env.stderr)
        code = ExitCode.BAD_INPUT
    except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 5
        _clear_progress()
        if debug:
            traceback.print_exc(file=env.stderr)
        msg = str(e).splitlines()[0] if str(e) else ""
        click.echo(
            f"{prog}: internal error: {type(e).__name__}: {visible(msg)} (run with --debug for the traceback)",
            file=env.stderr,
        )
        code = ExitCode.INTERNAL
    code = _finish_stdout(code, env, prog)
    gc.unfreeze()  # what long_lived() kept out of the collector's way lived as long as the command
    sys.exit(code)
