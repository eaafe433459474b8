"""Every case of the fidelity sample: kwhatif must give the real kube-scheduler's answer.

For each node: the first failing filter plugin, its code and reasons; for feasible nodes every
score plugin's raw, normalized and weighted score and the total; the best set, the result, the
FitError message (with the preemption suffix), the nominated node and the victims.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fidelity import BASE_VERSION, SAMPLE, case_dirs, expected, explain, load_case

pytestmark = pytest.mark.skipif(
    not SAMPLE.is_dir(), reason="the fidelity sample (../shared/fidelity-sample) is not here"
)

EXPLAIN_CASES = case_dirs("cases") + case_dirs("volumes") + case_dirs("config")


def _compare(
    case: Path,
    exp: dict[str, Any] | None = None,
    version: str = BASE_VERSION,
    *,
    recorded_victims_partial: bool = False,
    feature_gates: str = "",
) -> list[str]:
    """What differs between kwhatif's answer under ``version`` and the answer ``exp`` (default:
    the case's own expected.json). ``recorded_victims_partial``: the recorded victims may be only
    those already deleted when the answer was taken (asynchronous preemption)."""
    exp = expected(case) if exp is None else exp
    sched, pods = load_case(case, version=version, feature_gates=feature_gates)
    assert len(pods) == 1
    att = sched.run(pods, rounds=1)[0]
    got = explain(att)
    problems = []
    if exp.get("preFilter"):
        pf = att.fit.pre_filter.status if att.fit is not None else None
        want = exp["preFilter"]
        have = {"code": pf.code.label, "plugin": pf.plugin, "reasons": list(pf.reasons)} if pf else None
        if have != {"code": want["code"], "plugin": want["plugin"], "reasons": want["reasons"]}:
            problems.append(f"preFilter: expected {want}, got {have}")
    if exp.get("preFilterResultNodes") is not None:
        excluded = sorted(set(exp["nodes"]) - set(exp["preFilterResultNodes"]))
        if got["excluded"] != excluded:
            problems.append(f"excluded by PreFilterResult: expected {excluded}, got {got['excluded']}")
    for node, want in exp["nodes"].items():
        have = got["nodes"].get(node)
        if have is None:
            problems.append(f"{node}: missing")
            continue
        wf, hf = want["filter"], have["filter"]
        if not want.get("atPreFilter") and (wf["code"], wf["plugin"], wf["reasons"]) != (
            hf["code"],
            hf["plugin"],
            hf["reasons"],
        ):
            problems.append(f"{node}: filter expected {wf}, got {hf}")
        for key in ("scores", "normalized", "raw"):
            if key in want and want[key] != have.get(key):
                problems.append(f"{node}: {key} expected {want[key]}, got {have.get(key)}")
        if "total" in want and want["total"] != have.get("total"):
            problems.append(f"{node}: total expected {want['total']}, got {have.get('total')}")
    for key in ("feasible", "best", "bestScore", "result", "message", "evaluatedNodes", "feasibleNodes"):
        if exp.get(key) != got[key]:
            problems.append(f"{key}: expected {exp.get(key)!r}, got {got[key]!r}")
    if exp.get("nominatedNodeName", "") != got["nominatedNodeName"]:
        problems.append(
            f"nominatedNodeName: expected {exp.get('nominatedNodeName')!r}, got {got['nominatedNodeName']!r}"
        )
    want_victims = sorted(exp.get("victims") or [])
    if recorded_victims_partial and set(want_victims) <= set(got["victims"]):
        want_victims = got["victims"]
    if want_victims != got["victims"]:
        problems.append(f"victims: expected {exp.get('victims')}, got {got['victims']}")
    if exp.get("skippedFilterPlugins") is not None and not (att.fit is not None and att.fit.at_pre_filter):
        if sorted(exp["skippedFilterPlugins"]) != got["skippedFilterPlugins"]:
            problems.append(
                f"skippedFilterPlugins: expected {exp['skippedFilterPlugins']}, got {got['skippedFilterPlugins']}"
            )
    if exp.get("skippedScorePlugins") is not None and got["skippedScorePlugins"] is not None:
        if sorted(exp["skippedScorePlugins"]) != got["skippedScorePlugins"]:
            problems.append(
                f"skippedScorePlugins: expected {exp['skippedScorePlugins']}, got {got['skippedScorePlugins']}"
            )
    if exp.get("weights"):
        if exp["weights"] != att.weights:
            problems.append(f"weights: expected {exp['weights']}, got {att.weights}")
    return problems


@pytest.mark.parametrize("case", EXPLAIN_CASES, ids=[f"{c.parent.name}/{c.name}" for c in EXPLAIN_CASES])
def test_explain_case(case: Path) -> None:
    problems = _compare(case)
    assert not problems, "\n".join(problems)


CAPACITY_CASES = case_dirs("capacity")


@pytest.mark.parametrize("case", CAPACITY_CASES, ids=[c.name for c in CAPACITY_CASES])
def test_capacity_case(case: Path) -> None:
    """As many copies fit as in the real scheduler; where they went and the first failure too,
    unless that depended on random tie-breaking in the reference run."""
    from kwhatif.whatif.capacity import measure

    exp = expected(case)
    sched, pods = load_case(case)
    res = measure(sched, pods[0], 300)
    assert res.fits == exp["fits"]
    if not exp["tieDependent"]:
        assert res.per_node == exp["perNode"]
        assert res.first_failure == exp["firstFailure"]


SEQ_CASES = case_dirs("seq")


@pytest.mark.parametrize("case", SEQ_CASES, ids=[c.name for c in SEQ_CASES])
def test_sequence_final_placements(case: Path) -> None:
    """The queue order and where every pod ends up after both rounds."""
    exp = expected(case)
    sched, pods = load_case(case, "pods.yaml")
    assert [p.key for p in sched.queue_order(pods)] == exp["order"]
    if any(len(a.get("best") or []) > 1 for a in exp["attempts"]):
        pytest.skip("the reference run broke a score tie at random; tests/test_preemption_sequences.py replays it")
    atts = sched.run(pods, rounds=2)
    final = {p.key: "" for p in pods}
    for a in atts:
        final[a.pod.key] = a.node or "" if a.result == "Scheduled" else final[a.pod.key]
    assert final == exp["final"]
