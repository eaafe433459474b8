"""from_record: a report model's fields read off an engine's record, by name."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kwhatif.report.base import from_record


@dataclass(frozen=True, slots=True)
class _Model:
    name: str
    fits: int
    notes: tuple[str, ...] = ()


class _Record:
    def __init__(self, **attrs: object) -> None:
        self.__dict__.update(attrs)

    @property
    def fits(self) -> int:
        return 3


def test_fields_not_given_are_the_records_attributes_of_the_same_names():
    rec = _Record(name="web", notes=["from the record"], other="ignored")
    assert from_record(_Model, rec, notes=("given",)) == _Model("web", 3, ("given",))
    assert from_record(_Model, rec) == _Model("web", 3, ["from the record"])  # type: ignore[arg-type]


def test_a_field_the_record_lacks_raises_even_with_a_default():
    with pytest.raises(AttributeError, match="notes"):
        from_record(_Model, _Record(name="web"))
