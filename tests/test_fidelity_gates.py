"""The sample's feature-gate cases (fidelity-sample/gates/): one pending pod run through the real
kube-scheduler of one release with --feature-gates set. kwhatif, given the same release and gates,
must give the same explain answer, or refuse the same gate set with the same message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_fidelity import _compare
from test_fidelity_releases import _refusal

from kwhatif.release.versions import get as get_version

from fidelity import SAMPLE, case_dirs, expected

CASES = case_dirs("gates")


def _meta(case: Path) -> dict[str, str]:
    meta: dict[str, str] = json.loads((case / "meta.json").read_text())
    return meta


@pytest.mark.skipif(not CASES, reason="the fidelity sample's gates/ cases are not here")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gates_case(case: Path) -> None:
    meta = _meta(case)
    gates = (case / "feature-gates.txt").read_text().strip()
    assert gates == meta["gates"]
    exp = expected(case)
    if "error" in exp:
        _refusal(exp, lambda: _compare(case, exp, meta["version"], feature_gates=gates))
        return
    # as in test_fidelity_releases: with SchedulerAsyncPreemption on, the recorded victims may be
    # only those already deleted when the answer was taken
    partial = get_version(meta["version"], gates).gate("SchedulerAsyncPreemption")
    problems = _compare(case, exp, meta["version"], feature_gates=gates, recorded_victims_partial=partial)
    assert not problems, "\n".join(problems)


def test_every_gates_case_is_loaded() -> None:
    if not (SAMPLE / "gates").is_dir():
        pytest.skip("the fidelity sample's gates/ cases are not here")
    on_disk = {p.parent.name for p in (SAMPLE / "gates").glob("*/expected.json")}
    assert on_disk == {c.name for c in CASES}
    assert len(on_disk) >= 10
