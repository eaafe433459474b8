"""The fidelity sample's tests skip where the sample is not present, except in CI, where that is
an error (tests/conftest.py stops the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fidelity import missing_sample_error


@pytest.mark.parametrize(
    "ci,present,error",
    [
        pytest.param("true", False, True, id="ci-missing-fails"),
        pytest.param("1", False, True, id="ci-one-missing-fails"),
        pytest.param("true", True, False, id="ci-present"),
        pytest.param("", False, False, id="local-missing-skips"),
        pytest.param("false", False, False, id="ci-false-missing-skips"),
    ],
)
def test_a_missing_sample_fails_in_ci(tmp_path: Path, ci: str, present: bool, error: bool) -> None:
    sample = tmp_path / "fidelity-sample"
    if present:
        sample.mkdir()
    got = missing_sample_error(sample, {"CI": ci} if ci else {})
    assert (got is not None) is error
    if error:
        assert got == (
            f"the fidelity sample is missing ({sample}): CI runs its cases; put it at ../shared/fidelity-sample "
            "or name it with KWHATIF_FIDELITY_SAMPLE"
        )
