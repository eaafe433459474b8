"""Small hand-made scenarios of upstream behaviours the fidelity sample does not cover
(tests/scenarios/<name>/cluster.yaml + pod.yaml)."""

from __future__ import annotations

from pathlib import Path

from fidelity import load_case

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def run(name: str):
    sched, pods = load_case(SCENARIOS / name)
    return sched.run(pods, rounds=1)[0]


def test_pending_nominated_pod_holds_its_node():
    # A preemptor waiting on node-a (status.nominatedNodeName) counts there for lower-priority
    # pods: the newcomer no longer fits node-a and goes to node-b.
    att = run("nominated-pending")
    assert att.node == "node-b"
    fr = att.filters["node-a"]
    assert fr.first is not None and fr.first.reasons == ("Insufficient cpu",) and fr.with_nominated


def test_nominated_node_outside_the_prefilter_result():
    # evaluateNominatedNode runs before the PreFilterResult narrows the nodes.
    att = run("nominated-outside-prefilter-result")
    assert att.result == "Scheduled" and att.node == "node-b"
    assert att.fast_path and (att.evaluated_nodes, att.feasible_nodes) == (1, 1)


def test_runtime_class_scheduling_constraints():
    att = run("runtimeclass-scheduling")
    assert att.node == "node-b"
    assert att.filters["node-a"].first is not None and att.filters["node-a"].first.plugin == "NodeAffinity"
