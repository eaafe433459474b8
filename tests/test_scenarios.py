"""Small hand-made scenarios of upstream behaviours the fidelity sample does not cover.

Each folder of tests/scenarios holds cluster.yaml, the pods (pod.yaml or pods.yaml) and
expected.yaml, what the run must give (format: tests/scenarios/README.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kwhatif.framework.runtime import FilterResult
from kwhatif.scheduling.scheduler import Attempt

from fidelity import load_case

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
CASES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "expected.yaml").is_file())

# expected.yaml's keys of an attempt, and how each is read off the Attempt
ATTEMPT_FIELDS: dict[str, Callable[[Attempt], Any]] = {
    "round": lambda a: a.round,
    "pod": lambda a: a.pod.key,
    "result": lambda a: str(a.result),
    "node": lambda a: a.node,
    "message": lambda a: a.message,
    "nominated_node": lambda a: a.nominated_node,
    "victims": lambda a: [v.key for v in a.victims],
    "pod_nominated_node_name": lambda a: a.pod.nominated_node_name,
    "fast_path": lambda a: a.fit is not None and a.fit.fast_path,
    "evaluated_nodes": lambda a: a.evaluated_nodes,
    "feasible_nodes": lambda a: a.feasible_nodes,
    "best": lambda a: list(a.prioritized.best) if a.prioritized is not None else [],
}

# a node's first failing filter
FILTER_FIELDS: dict[str, Callable[[FilterResult], Any]] = {
    "plugin": lambda fr: fr.first.plugin if fr.first else None,
    "code": lambda fr: fr.first.code.label if fr.first else None,
    "reasons": lambda fr: list(fr.first.reasons) if fr.first else None,
    "with_nominated": lambda fr: fr.with_nominated,
}

CASE_KEYS = {"pods", "rounds", "cache", "attempts", "nominations"}


def expected(name: str) -> dict[str, Any]:
    with open(SCENARIOS / name / "expected.yaml") as fh:
        exp: dict[str, Any] = yaml.safe_load(fh)
    assert set(exp) <= CASE_KEYS, f"{name}/expected.yaml: unknown keys {sorted(set(exp) - CASE_KEYS)}"
    return exp


def actual(att: Attempt, want: dict[str, Any]) -> dict[str, Any]:
    """The attempt's values for the keys ``want`` names."""
    unknown = set(want) - set(ATTEMPT_FIELDS) - {"filters"}
    assert not unknown, f"unknown attempt keys {sorted(unknown)}"
    got = {k: ATTEMPT_FIELDS[k](att) for k in want if k != "filters"}
    if "filters" in want:
        got["filters"] = {}
        for node, fields in want["filters"].items():
            assert set(fields) <= set(FILTER_FIELDS), f"unknown filter keys {sorted(set(fields) - set(FILTER_FIELDS))}"
            assert att.fit is not None, "the cycle ended before the filter pass"
            fr = att.fit.filters[node]
            assert fr.first is not None, f"{node} passed every filter"
            got["filters"][node] = {k: FILTER_FIELDS[k](fr) for k in fields}
    return got


def test_every_scenario_has_an_expected_file() -> None:
    folders = sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir())
    assert folders == CASES


@pytest.mark.parametrize("name", CASES)
def test_scenario(name: str) -> None:
    exp = expected(name)
    sched, pods = load_case(SCENARIOS / name, exp.get("pods", "pod.yaml"))
    for node, keys in exp.get("cache", {}).items():
        assert [pi.pod.key for pi in sched.snapshot.get(node).pods] == keys, f"cache of {node}"
    attempts = sched.run(pods, rounds=exp.get("rounds", 1))
    want = exp["attempts"]
    assert len(attempts) == len(want)
    for i, (att, w) in enumerate(zip(attempts, want)):
        assert actual(att, w) == w, f"attempt {i}"
    if "nominations" in exp:
        assert dict(sched.nominator.node_of) == exp["nominations"]
