"""The gang cases of the fidelity sample (fidelity-sample/gang/): the real kube-scheduler 1.36.2's
answers with its Workload gates set from each case's feature-gates.txt. kwhatif's answer must be
the recorded one in the sample's canonical form (gang/canon.py: member order within a pod-group
cycle is random upstream). Cases of gang/random.txt vary even in that form: only the PodGroup
conditions and whether each group's pods were bound are compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import canon, run
from fidelity import SAMPLE

GANG = SAMPLE / "gang"
CASES = sorted(p for p in GANG.iterdir() if p.is_dir()) if GANG.is_dir() else []


def _random() -> set[str]:
    f = GANG / "random.txt"
    if not f.exists():
        return set()
    return {line.strip() for line in f.read_text().splitlines() if line.strip() and not line.startswith("#")}


def _expected(case: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((case / "expected.json").read_text())
    return data


@pytest.mark.skipif(not CASES, reason="the fidelity sample's gang/ cases are not here")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gang_case(case: Path) -> None:
    exp = _expected(case)
    meta = json.loads((case / "meta.json").read_text())
    got = run(case, meta["version"])
    if case.name in _random():
        assert got["podGroups"] == exp["podGroups"]
        assert {g: [n != "" for n in ns] for g, ns in got["groupNodes"].items()} == {
            g: [n != "" for n in ns] for g, ns in exp["groupNodes"].items()
        }
        return
    want, have = canon(exp), canon(got)
    for key in want:
        assert have[key] == want[key], key
    assert [(c["round"], c["podGroup"]) for c in got["cycles"]] == [(c["round"], c["podGroup"]) for c in exp["cycles"]]


@pytest.mark.skipif(not CASES, reason="the fidelity sample's gang/ cases are not here")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gang_case_attempts_where_order_matches(case: Path) -> None:
    """Where kwhatif tried a cycle's members in the recorded order, each member's per-node
    answer (first failing filter, totals, feasible set) is the recorded one: members see the
    members assumed before them."""
    if case.name in _random():
        pytest.skip("preemption picks victims at random upstream")
    from kwhatif.framework.types import PodOutcome

    from .harness import load

    exp = _expected(case)
    sched, pods = load(case, json.loads((case / "meta.json").read_text())["version"])
    attempts = [a for a in sched.run(pods, rounds=2) if a.result is not PodOutcome.GATED]
    rec = exp["attempts"]
    assert len(attempts) == len(rec)
    compared = 0
    for a, r in zip(attempts, rec):
        if a.pod.key != r["pod"]:
            continue
        compared += 1
        assert sorted(a.feasible) == r["feasible"], r["pod"]
        for node, entry in r["nodes"].items():
            fr = a.fit.filters[node]
            if entry["filter"] is None:
                assert fr.first is None, (r["pod"], node)
                if "total" in entry and a.prioritized is not None and a.prioritized.scores:
                    assert a.prioritized.scores[node].total == entry["total"], (r["pod"], node)
            else:
                assert fr.first is not None, (r["pod"], node)
                assert (fr.first.plugin, list(fr.first.reasons)) == (
                    entry["filter"]["plugin"],
                    entry["filter"]["reasons"],
                )
    assert compared > 0


def test_every_gang_case_is_loaded() -> None:
    if not GANG.is_dir():
        pytest.skip("the fidelity sample's gang/ cases are not here")
    on_disk = {p.parent.name for p in GANG.glob("*/expected.json")}
    assert on_disk == {c.name for c in CASES}
    assert _random() <= on_disk
