"""`kwhatif diff` of two releases reports exactly the differences between the real schedulers'
recorded answers to the same inputs (the fidelity sample's releases/<version>/ answers).

The expected aspects are derived from the two recorded answers alone: status (result), node (the
first of the best nodes by name: kwhatif breaks ties so on each side), message (the FitError
text), filters (each node's first failing plugin, code and reasons), scores (the feasible set and,
where upstream scored, each node's total) and preemption (nominated node and victims)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from kwhatif.cli.env import Environment
from kwhatif.cli.main import main
from tests.fidelity import BASE_VERSION, SAMPLE

ASPECTS = ("status", "node", "message", "filters", "scores", "preemption")


def _answer(version: str, case: Path) -> dict[str, Any]:
    path = (
        case / "expected.json"
        if version == BASE_VERSION
        else SAMPLE / "releases" / version / case.parent.name / case.name / "expected.json"
    )
    with open(path) as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def _values(a: dict[str, Any]) -> dict[str, Any]:
    scheduled = a["result"] == "Scheduled"
    nodes = a.get("nodes", {})
    filters = {
        n: None
        if v["filter"]["code"] == "Success"
        else (v["filter"]["plugin"], v["filter"]["code"], v["filter"]["reasons"])
        for n, v in nodes.items()
    }
    totals = {n: v["total"] for n, v in nodes.items() if "total" in v} if a.get("upstreamScored") else {}
    return {
        "status": a["result"],
        "node": sorted(a["best"])[0] if scheduled else None,
        "message": a.get("message") or None,
        "filters": filters,
        "scores": (sorted(a.get("feasible", [])), totals),
        "preemption": (a.get("nominatedNodeName") or None, sorted(a.get("victims") or [])),
    }


def expected_changes(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    va, vb = _values(a), _values(b)
    return [k for k in ASPECTS if va[k] != vb[k]]


def _diff(case: Path, before: str, after: str) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    args = [
        "diff",
        str(case / "pod.yaml"),
        "--cluster",
        str(case / "cluster.yaml"),
        "--scheduler-version",
        before,
        "--to-scheduler-version",
        after,
        "-o",
        "json",
    ]
    if (case / "sched-config.yaml").exists():
        args += ["--config", str(case / "sched-config.yaml")]
    with pytest.raises(SystemExit) as ei:
        main(args, env=Environment(out, err))
    assert ei.value.code in (0, 1), err.getvalue()
    return int(ei.value.code or 0), json.loads(out.getvalue())


# A handful of cases between recorded releases, covering every aspect the answers differ in:
# node changes from BalancedAllocation's new formula (1.36), reworded reasons and histograms,
# UnschedulableAndUnresolvable resource fits (1.34), a configured profile, a volume case, and
# cases where nothing changes.
CASES = [
    ("1.35.7", "1.36.2", "cases/e030"),
    ("1.35.7", "1.36.2", "cases/e038"),
    ("1.35.7", "1.36.2", "cases/e000"),
    ("1.33.3", "1.36.2", "cases/e011"),
    ("1.33.3", "1.36.2", "cases/e000"),
    ("1.33.3", "1.36.2", "cases/e003"),
    ("1.33.3", "1.36.2", "cases/e004"),
    ("1.33.3", "1.36.2", "cases/e030"),
    ("1.31.8", "1.36.2", "config/k009"),
    ("1.31.8", "1.36.2", "volumes/v004"),
    ("1.31.8", "1.33.3", "cases/e030"),
    (BASE_VERSION, "1.36.2", "cases/e062"),
]


@pytest.mark.skipif(not (SAMPLE / "releases").is_dir(), reason="the fidelity sample's releases/ answers are not here")
@pytest.mark.parametrize(("before", "after", "name"), CASES, ids=[f"{a}-{b}-{n}" for a, b, n in CASES])
def test_diff_of_two_releases_is_the_difference_of_their_recorded_answers(before: str, after: str, name: str) -> None:
    case = SAMPLE / name
    ra, rb = _answer(before, case), _answer(after, case)
    want = expected_changes(ra, rb)
    code, doc = _diff(case, before, after)
    (pod,) = doc["pods"]
    assert pod["changed"] == want
    assert code == (1 if "status" in want else 0)
    assert doc["summary"]["byAspect"] == {a: int(a in want) for a in ASPECTS}
    # both sides' values are the recorded ones
    for side, answer in (("from", ra), ("to", rb)):
        v = _values(answer)
        assert pod[side]["status"] == v["status"]
        assert pod[side]["node"] == v["node"]
        if "message" in want:
            assert pod[side]["message"] == v["message"]
        if "filters" in want:
            for node, f in pod[side]["filters"].items():
                assert (None if f is None else (f["plugin"], f["code"], f["reasons"])) == v["filters"][node]
        if "scores" in want:
            for node, total in pod[side]["scores"]["totals"].items():
                assert total == v["scores"][1].get(node)
