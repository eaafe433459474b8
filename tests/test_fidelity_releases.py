"""The answers of later kube-scheduler releases to the fidelity sample's inputs
(fidelity-sample/releases/<version>/): kwhatif, run as that exact release, must give each of them.

Every explain answer (cases, volumes, config) is compared on the fields tests/test_fidelity.py
compares for v1.30.6, every sequence as tests/test_preemption_sequences.py compares them. An answer
``{"error": ...}`` is a refusal: kwhatif must refuse the input with the same error. Sequences the
release resolves at random (seq-random.txt) are compared on their queue order only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_fidelity import _compare
from test_preemption_sequences import _attempt_view, _run

from kwhatif.errors import KwhatifError
from kwhatif.release.versions import get as get_version

from fidelity import SAMPLE, expected

RELEASES = SAMPLE / "releases"


def _versions() -> list[str]:
    if not RELEASES.is_dir():
        return []
    return sorted((p.name for p in RELEASES.iterdir() if p.is_dir()), key=lambda v: tuple(map(int, v.split("."))))


def _answers(kinds: tuple[str, ...]) -> list[Any]:
    out = []
    for version in _versions():
        for kind in kinds:
            d = RELEASES / version / kind
            if not d.is_dir():
                continue
            for answer in sorted(p for p in d.iterdir() if p.is_dir()):
                out.append(
                    pytest.param(version, SAMPLE / kind / answer.name, answer, id=f"{version}/{kind}/{answer.name}")
                )
    return out


def _random_sequences(version: str) -> set[str]:
    f = RELEASES / version / "seq-random.txt"
    if not f.exists():
        return set()
    return {line.strip() for line in f.read_text().splitlines() if line.strip() and not line.startswith("#")}


def _refusal(answer: dict[str, Any], run: Any) -> None:
    """The release refused the input: kwhatif must refuse it too, with the same error."""
    with pytest.raises(KwhatifError) as ei:
        run()
    err = ei.value
    text = f"{err.field}: {err.message}" if getattr(err, "field", None) else getattr(err, "message", str(err))
    assert text in answer["error"] or answer["error"] in str(err), f"expected {answer['error']!r}, got {str(err)!r}"


EXPLAIN = _answers(("cases", "volumes", "config"))


@pytest.mark.skipif(not EXPLAIN, reason="the fidelity sample's releases/ answers are not here")
@pytest.mark.parametrize("version,case,answer", EXPLAIN)
def test_release_explain_answer(version: str, case: Path, answer: Path) -> None:
    exp = expected(answer)
    if "error" in exp:
        _refusal(exp, lambda: _compare(case, exp, version))
        return
    # With SchedulerAsyncPreemption (1.33+) victims are deleted by a goroutine after the cycle: an
    # answer recorded before it ran lists only the victims already gone (1.33.3 e112 and e119 list
    # none), so the recorded victims must be among kwhatif's; the nominated node is compared exactly.
    partial = get_version(version).gate("SchedulerAsyncPreemption")
    problems = _compare(case, exp, version, recorded_victims_partial=partial)
    assert not problems, "\n".join(problems)


SEQUENCES = _answers(("seq",))


@pytest.mark.skipif(not SEQUENCES, reason="the fidelity sample's releases/ answers are not here")
@pytest.mark.parametrize("version,case,answer", SEQUENCES)
def test_release_sequence_answer(version: str, case: Path, answer: Path) -> None:
    exp = expected(answer)
    if "error" in exp:
        _refusal(exp, lambda: _run(case, version, answer / "expected.json"))
        return
    from fidelity import load_case

    sched, pods = load_case(case, "pods.yaml", version)
    assert [p.key for p in sched.queue_order(pods)] == exp["order"]
    if case.name in _random_sequences(version):
        pytest.skip(f"kube-scheduler {version} breaks a tie between preemption candidates at random in {case.name}")
    got, final = _run(case, version, answer / "expected.json")
    want = [_attempt_view(a) for a in exp["attempts"]]
    assert [(a["round"], a["pod"]) for a in got] == [(a["round"], a["pod"]) for a in want]
    for g, w in zip(got, want):
        assert g == w, f"round {w['round']} {w['pod']}"
    assert final == exp["final"]


def test_every_release_answer_is_loaded() -> None:
    """No answer of releases/ is left out of the tables above."""
    if not RELEASES.is_dir():
        pytest.skip("the fidelity sample's releases/ answers are not here")
    on_disk = {str(p.parent.relative_to(RELEASES)) for p in RELEASES.glob("*/*/*/expected.json")}
    loaded = {f"{p.values[0]}/{p.values[2].parent.name}/{p.values[2].name}" for p in EXPLAIN + SEQUENCES}
    assert on_disk == loaded
    assert json.loads((RELEASES / _versions()[0] / "cases" / "e000" / "expected.json").read_text())
