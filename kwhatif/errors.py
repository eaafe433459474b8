"""Error types and exit codes.

Every error that reaches the user is a KwhatifError subclass; its class decides the exit code and
``str(err)`` is the one line printed on stderr. Only kwhatif.cli.main catches them.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0  # every pod fits (or was bound)
    UNSCHEDULABLE = 1  # at least one pod does not fit
    BAD_INPUT = 2  # bad usage, file, YAML, object, field or configuration
    CLUSTER = 3  # cluster or API error
    PARTIAL_APPLY = 4  # --apply bound some pods and failed others
    INTERNAL = 5  # a bug
    INTERRUPTED = 130  # interrupted (SIGINT, Ctrl-C): 128 + SIGINT, as a shell reports it


class KwhatifError(Exception):
    exit_code: ExitCode = ExitCode.INTERNAL


class InputError(KwhatifError):
    """Bad input: a file, document, object or field. The message names all of them it knows."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        obj: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.obj = obj
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        parts = []
        if self.source:
            parts.append(self.source)
        if self.obj:
            parts.append(self.obj)
        head = ": ".join(parts)
        body = f"{self.field}: {self.message}" if self.field else self.message
        return f"{head}: {body}" if head else body

    def with_context(self, *, source: str | None = None, obj: str | None = None) -> InputError:
        """Return a copy that also names the file and/or object (keeps what is already known)."""
        return type(self)(
            self.message,
            source=self.source or source,
            obj=self.obj or obj,
            field=self.field,
        )


class FieldError(InputError):
    """A field of an object is invalid; ``field`` is the path inside the object. ``more``: the
    other field errors the same validation found, as (path, message): the API server answers
    with all of them (an aggregate, "[path: message, path: message]")."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        obj: str | None = None,
        field: str | None = None,
        more: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.more = more
        super().__init__(message, source=source, obj=obj, field=field)

    @property
    def detail(self) -> str:
        """The field error(s) as the API server words them: "<path>: <what is wrong>", several
        in brackets (utilerrors.NewAggregate, ToAggregate of a field.ErrorList)."""
        first = f"{self.field}: {self.message}" if self.field else self.message
        if not self.more:
            return first
        rest = [f"{p}: {m}" if p else m for p, m in self.more]
        return "[" + ", ".join(dict.fromkeys([first, *rest])) + "]"

    def render(self) -> str:
        head = ": ".join(p for p in (self.source, self.obj) if p)
        return f"{head}: {self.detail}" if head else self.detail

    def under(self, path: str) -> FieldError:
        """The same error(s) with every path inside ``path`` (a template inside its controller)."""

        def inside(p: str | None) -> str:
            return f"{path}.{p}" if p else path

        return type(self)(
            self.message,
            source=self.source,
            obj=self.obj,
            field=inside(self.field),
            more=tuple((inside(p), m) for p, m in self.more),
        )

    def with_context(self, *, source: str | None = None, obj: str | None = None) -> FieldError:
        return type(self)(
            self.message, source=self.source or source, obj=self.obj or obj, field=self.field, more=self.more
        )


class ConfigError(InputError):
    """An invalid KubeSchedulerConfiguration or an invalid option."""


class ClusterError(KwhatifError):
    """The cluster or its API could not be reached or answered with an error."""

    exit_code = ExitCode.CLUSTER


class Interrupted(KwhatifError):
    """The command was interrupted (KeyboardInterrupt)."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")
