"""Sequences of pending pods against the real scheduler's answers (fidelity-sample/seq).

Each case schedules its pods in two rounds, as the recorded run did: round 1 tries every pod in
queue order (preemptors evict and are nominated), round 2 retries the ones left. Every attempt is
compared (pod, result, FitError message with its preemption suffix, nominated node,
victims, the first failing filter on every node, totals, the best set) and so are the final
placements.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from kwhatif.framework.types import NodesFit, Prioritized
from kwhatif.scheduling.scheduler import Scheduler

from fidelity import BASE_VERSION, case_dirs, expected, explain, load_case

CASES = case_dirs("seq")


def _filters(nodes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per node, the first failing filter; the recorded schema leaves it out on success."""
    out = {}
    for name, entry in nodes.items():
        f = entry.get("filter") or {"code": "Success", "plugin": "", "reasons": []}
        out[name] = {"code": f["code"], "plugin": f["plugin"], "reasons": list(f["reasons"])}
    return out


def _totals(nodes: dict[str, Any]) -> dict[str, int]:
    return {name: entry["total"] for name, entry in nodes.items() if "total" in entry}


def _attempt_view(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "pod": a["pod"],
        "round": a["round"],
        "result": a["result"],
        "message": a["message"],
        "nominatedNodeName": a.get("nominatedNodeName") or "",
        "victims": sorted(a.get("victims") or []),
        "filters": _filters(a["nodes"]),
        "totals": _totals(a["nodes"]),
        "best": sorted(a["best"] or []),
    }


def _follow_recorded_ties(sched: Scheduler, recorded: list[dict[str, Any]]) -> None:
    """Upstream picks at random among the nodes that share the best score, and the rest of a
    sequence depends on that pick. Where the recorded attempt had such a tie, steer kwhatif to the
    node the recorded run took, so both runs continue from the same cluster."""
    attempt = [-1]  # index of the attempt in progress
    schedule_one = sched.schedule_one
    select = sched.select_host

    def schedule_one_counted(pod: Any, rnd: int = 1) -> Any:
        attempt[0] += 1
        return schedule_one(pod, rnd)

    def select_recorded(pod: Any, fit: NodesFit, prio: Prioritized) -> str:
        host = select(pod, fit, prio)
        i = attempt[0]
        if len(prio.best) > 1 and i < len(recorded) and recorded[i]["pod"] == pod.key:
            want = recorded[i].get("node") or ""
            if want in prio.best:
                return str(want)
        return host

    sched.schedule_one = schedule_one_counted  # type: ignore[method-assign]
    sched.select_host = select_recorded  # type: ignore[method-assign]


@functools.cache
def _run(
    case: Path, version: str = BASE_VERSION, answer: Path | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """kwhatif's attempts and final placements under ``version``, following the score ties of the
    recorded answer (``answer``: the expected.json; default the case's own)."""
    sched, pods = load_case(case, "pods.yaml", version)
    recorded = expected(answer.parent if answer is not None else case)["attempts"]
    _follow_recorded_ties(sched, recorded)
    attempts = sched.run(pods, rounds=2)
    views = []
    for att in attempts:
        got = explain(att, compact=True)
        got["round"] = att.round
        views.append(_attempt_view(got))
    final = {p.key: "" for p in pods}
    for att in attempts:
        if att.result == "Scheduled" and att.node:
            final[att.pod.key] = att.node
    return views, final


@pytest.mark.skipif(not CASES, reason="fidelity sample not available")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sequence_attempts(case: Path) -> None:
    exp = expected(case)
    got, _ = _run(case)
    want = [_attempt_view(a) for a in exp["attempts"]]
    assert [(a["round"], a["pod"]) for a in got] == [(a["round"], a["pod"]) for a in want]
    for g, w in zip(got, want):
        assert g == w, f"round {w['round']} {w['pod']}"


@pytest.mark.skipif(not CASES, reason="fidelity sample not available")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sequence_final_placements(case: Path) -> None:
    exp = expected(case)
    _, final = _run(case)
    assert final == exp["final"]
