"""Which API schema the selected release's objects are read against."""

from __future__ import annotations

from kwhatif.release.versions import SchedulerVersion


def newer_than_schema(version: SchedulerVersion, schema_minor: int | None) -> bool:
    """Whether ``version`` is a release newer than the API schema whose minor release is
    ``schema_minor`` (None: no schema): fields that release added are then unknown to the schema,
    so an unknown field may be a valid one."""
    return schema_minor is not None and version.minor > schema_minor
