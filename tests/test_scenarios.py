"""Small hand-made scenarios of upstream behaviours the fidelity sample does not cover
(tests/scenarios/<name>/cluster.yaml + pod.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_preemptor_retries_on_its_nominated_node():
    # Round 1: the preemptor evicts the guard on node-a and is nominated there; the follower
    # (lower priority) sees it on node-a and goes to node-c. Round 2: the preemptor tries node-a
    # first and binds there, though node-c now scores higher (a retry without the nomination
    # would land on node-c).
    sched, pods = load_case(SCENARIOS / "retry-on-nominated-node", "pods.yaml")
    first, follower, retry = sched.run(pods, rounds=2)
    assert (first.round, first.pod.key, first.result) == (1, "default/preemptor", "Unschedulable")
    assert first.message == "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules."
    assert first.nominated_node == "node-a" and [v.key for v in first.victims] == ["default/guard"]
    assert (follower.round, follower.pod.key, follower.result, follower.node) == (1, "default/follower", "Scheduled", "node-c")
    fr = follower.filters["node-a"]
    assert fr.first is not None and fr.first.reasons == ("Insufficient cpu",) and fr.with_nominated
    assert (retry.round, retry.pod.key, retry.result, retry.node) == (2, "default/preemptor", "Scheduled", "node-a")
    assert retry.pod.nominated_node_name == "node-a" and retry.fast_path
    assert (retry.evaluated_nodes, retry.feasible_nodes) == (1, 1)
    assert retry.best == ["node-c"]  # what a full evaluation would have picked
    assert not sched.nominator.node_of  # bound: the nomination is gone


@pytest.mark.parametrize(
    "start_time,victims",
    [
        # equal start times: the sort keeps LIST order, the first pods are given back first
        pytest.param(True, ["default/web-10", "default/web-2"], id="same-start-time"),
        # no start time: MoreImportantPod says yes both ways and the insertion sort reverses them
        pytest.param(False, ["batch/job-1", "default/web-1"], id="no-start-time"),
    ],
)
def test_victims_follow_list_order_not_file_order(tmp_path, start_time, victims):
    # The file lists default/web-2, default/web-10, batch/job-1, default/web-1; the cache holds
    # them in LIST order: batch/job-1, default/web-1, default/web-10, default/web-2.
    src = SCENARIOS / "victims-in-list-order"
    case = tmp_path / "case"
    case.mkdir()
    text = (src / "cluster.yaml").read_text()
    if not start_time:
        text = text.replace(', startTime: "2024-01-01T00:00:00Z"', "")
    (case / "cluster.yaml").write_text(text)
    (case / "pod.yaml").write_text((src / "pod.yaml").read_text())
    sched, pods = load_case(case)
    assert [pi.pod.key for pi in sched.snapshot.get("node-a").pods] == [
        "batch/job-1", "default/web-1", "default/web-10", "default/web-2"
    ]
    (att,) = sched.run(pods, rounds=1)
    assert att.nominated_node == "node-a"
    assert sorted(v.key for v in att.victims) == victims
