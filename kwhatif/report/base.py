"""What every report is, and the output formats it can be written in.

A report (schedule, check, capacity, drain) is plain data with three things the command line
needs: its ``kind``, the ``exit_code`` the command ends with (the exit policy lives on the report,
not in the CLI) and ``to_dict()``, the documented JSON/YAML document. This module stays light (no
scheduler imports): cli/options.py reads the output formats from it when it builds its options.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from kwhatif.errors import ExitCode

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    Model = TypeVar("Model", bound=DataclassInstance)


class OutputFormat(enum.StrEnum):
    """The values of -o, in the order --help lists them."""

    TABLE = "table"
    WIDE = "wide"  # the table with each score as raw>normalized x weight=weighted
    JSON = "json"
    YAML = "yaml"
    MARKDOWN = "markdown"
    JUNIT = "junit"
    GITHUB = "github"  # GitHub Actions workflow commands: annotations on the manifest lines
    SARIF = "sarif"  # a SARIF 2.1.0 log for code scanning: a result per failure at its manifest line
    HTML = "html"  # one self-contained page: the JSON document drawn as tables and heatmaps


class ReportKind(enum.StrEnum):
    """A report's ``kind``, as its JSON document names it."""

    SCHEDULE = "ScheduleReport"
    CHECK = "CheckReport"
    CAPACITY = "CapacityReport"
    DRAIN = "DrainReport"
    DIFF = "DiffReport"

    @property
    def formats(self) -> tuple[OutputFormat, ...]:
        """The output formats this kind of report is written in: every one, except those that
        belong to one kind only."""
        return tuple(f for f in OutputFormat if self in _ONLY_FOR.get(f, (self,)))


# -o wide is the score breakdown of a schedule; -o github annotates the manifests of a check;
# -o sarif points at the manifests of the pods (schedule) and workloads (check) that do not fit.
_ONLY_FOR = {
    OutputFormat.WIDE: (ReportKind.SCHEDULE,),
    OutputFormat.GITHUB: (ReportKind.CHECK, ReportKind.DIFF),
    OutputFormat.SARIF: (ReportKind.SCHEDULE, ReportKind.CHECK, ReportKind.DIFF),
}


class Report(Protocol):
    @property
    def kind(self) -> ReportKind: ...

    @property
    def exit_code(self) -> ExitCode:
        """What the command exits with (0 all fits, 1 something does not, 3/4 --apply failures)."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON/YAML document (apiVersion kwhatif/v1), keys in a stable order."""
        ...


def from_record(model: type[Model], record: object, **given: Any) -> Model:
    """A report model built from an engine's record: the fields not ``given`` are the record's
    attributes of the same names (a record without one is a bug, and raises)."""
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(model) if f.name not in given}
    return model(**values, **given)
