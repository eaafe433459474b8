"""The pod-group cycle with TopologyAwareWorkloadScheduling (schedule_one_podgroup.go of v1.36.2,
podGroupSchedulingPlacementAlgorithm): a PodGroup with schedulingConstraints.topology is placed
entirely within one domain of the key; every domain is tried on the same snapshot, the members
filtered and scored on that domain's nodes only; none feasible gives the group
`0/N placements are available, first placement status: ...`; several feasible are scored by
PodGroupPodsCount. Zones here have different sizes, so the answers do not hang on upstream's
random placement order or tie-break (except where a test says so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kwhatif.framework.types import PodOutcome

from .harness import load, run

ZONE = "topology.kubernetes.io/zone"
GATES = "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true"
WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
    "one or more plugins asked to wait and no plugin rejected pod"
)
# zone-a: 2 x 4 cpu, zone-b: 3 x 4 cpu, zone-c: 1 x 8 cpu; one more node without a zone label
NODES = [("a-1", "zone-a", 4), ("a-2", "zone-a", 4), ("b-1", "zone-b", 4), ("b-2", "zone-b", 4), ("b-3", "zone-b", 4)]
NODES += [("c-1", "zone-c", 8), ("x-1", "", 16)]


def _cluster(
    nodes: list[tuple[str, str, int]], groups: list[tuple[str, str, str]], bound: list[tuple[str, str, str]]
) -> str:
    items = []
    for n, z, c in nodes:
        labels = f"kubernetes.io/hostname: {n}" + (f", {ZONE}: {z}" if z else "")
        items.append(
            f"- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}, labels: {{{labels}}}}}\n"
            f"  status: {{allocatable: {{cpu: '{c}', memory: 16Gi, pods: '110'}}}}"
        )
    for name, policy, key in groups:
        cons = f"\n    schedulingConstraints:\n      topology:\n      - key: {key}" if key else ""
        items.append(
            f"- apiVersion: scheduling.k8s.io/v1alpha2\n  kind: PodGroup\n  metadata: {{name: {name}, namespace: default}}\n"
            f"  spec:\n    schedulingPolicy: {policy}{cons}"
        )
    for name, grp, node in bound:
        items.append(_pod(name, grp, "2", node))
    return "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n"


def _pod(name: str, group: str, cpu: str, node: str = "") -> str:
    bound = f"\n    nodeName: {node}" if node else ""
    return (
        f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: {name}, namespace: default}}\n  spec:{bound}\n"
        f"    schedulingGroup: {{podGroupName: {group}}}\n"
        f"    containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}]"
    )


def _case(
    tmp: Path,
    pods: int,
    policy: str,
    key: str = ZONE,
    *,
    cpu: str = "2",
    nodes: list[tuple[str, str, int]] | None = None,
    bound: list[tuple[str, str, str]] | None = None,
    gates: str = GATES,
) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "cluster.yaml").write_text(_cluster(nodes or NODES, [("g", policy, key)], bound or []))
    (tmp / "pods.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n" + "\n".join(_pod(f"w-{i}", "g", cpu) for i in range(pods)) + "\n"
    )
    (tmp / "feature-gates.txt").write_text(gates + "\n")
    return tmp


def _condition(got: dict[str, Any]) -> dict[str, str]:
    cond: dict[str, str] = got["podGroups"]["default/g"]["conditions"][0]
    return cond


def _messages(got: dict[str, Any], rnd: int = 1) -> list[str]:
    return sorted(a["message"] for a in got["attempts"] if a["round"] == rnd)


def test_gang_that_fits_only_in_one_zone_is_placed_there(tmp_path: Path) -> None:
    """5 workers of 2 cpu: zone-a (8 cpu) and zone-c (8 cpu) hold 4, zone-b (12 cpu) holds 6;
    the unlabelled 16-cpu node, which would hold them all, is in no placement."""
    got = run(_case(tmp_path, 5, "{gang: {minCount: 5}}"))
    assert got["groupNodes"]["default/g"] == ["b-1", "b-1", "b-2", "b-2", "b-3"]
    assert _condition(got) == {"type": "PodGroupScheduled", "status": "True", "reason": "Scheduled", "message": ""}
    assert [c["round"] for c in got["cycles"]] == [1]


def test_gang_without_the_gate_uses_the_unlabelled_node(tmp_path: Path) -> None:
    got = run(_case(tmp_path, 5, "{gang: {minCount: 5}}", gates="GenericWorkload=true,GangScheduling=true"))
    assert "x-1" in got["groupNodes"]["default/g"]


def test_gang_that_fits_in_no_single_zone(tmp_path: Path) -> None:
    """7 workers: no zone holds 7. The group answers as in the first placement (zone-a, the smallest
    name in kwhatif; a Go map's order upstream): 4 members fit there and wait for the quorum, 3
    have zone-a's FitError, counting zone-a's 2 nodes (preemption counts every node)."""
    got = run(_case(tmp_path, 7, "{gang: {minCount: 7}}"))
    assert got["groupNodes"]["default/g"] == [""] * 7
    assert _condition(got) == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "0/3 placements are available, first placement status: pod group is unschedulable",
    }
    fit_error = (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/7 nodes are "
        "available: 2 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling."
    )
    assert _messages(got) == sorted([WAITING] * 4 + [fit_error] * 3)
    assert {a["failureCode"] for a in got["attempts"] if a["message"] == fit_error} == {"Unschedulable"}


def test_basic_group_takes_the_placement_with_most_pods(tmp_path: Path) -> None:
    """A basic group is feasible in every zone that holds one member; PodGroupPodsCount scores
    zone-a 4, zone-b 6, zone-c 4 (normalized 66, 100, 66): zone-b wins, 6 of 8 bound there, the
    other 2 keep zone-b's FitError."""
    sched, pods = load(_case(tmp_path, 8, "{basic: {}}"))
    attempts = sched.run(pods, rounds=1)
    placed = sorted(a.node or "" for a in attempts if a.result is PodOutcome.SCHEDULED)
    assert placed == ["b-1", "b-1", "b-2", "b-2", "b-3", "b-3"]
    unfit = [a.message for a in attempts if a.result is not PodOutcome.SCHEDULED]
    assert (
        unfit
        == [
            "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/7 nodes are "
            "available: 3 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling."
        ]
        * 2
    )
    record = sched.gang.outcomes[-1].placements
    assert record is not None
    assert [(t.name, t.feasible, t.placed, t.score) for t in record.tried] == [
        ("zone-a", True, 4, 66),
        ("zone-b", True, 6, 100),
        ("zone-c", True, 4, 66),
    ]
    assert record.chosen == "zone-b"


def test_placement_score_tie_takes_the_first_domain(tmp_path: Path) -> None:
    """Two zones holding the same number of members tie at 100; upstream breaks the tie at random,
    kwhatif takes the first by domain name."""
    nodes = [("a-1", "zone-a", 4), ("c-1", "zone-c", 4)]
    sched, pods = load(_case(tmp_path, 2, "{basic: {}}", nodes=nodes))
    attempts = sched.run(pods, rounds=1)
    assert sorted(a.node or "" for a in attempts) == ["a-1", "a-1"]
    record = sched.gang.outcomes[-1].placements
    assert record is not None
    assert [(t.name, t.score) for t in record.tried] == [("zone-a", 100), ("zone-c", 100)]


def test_members_already_scheduled_pin_the_domain(tmp_path: Path) -> None:
    """One member is bound in zone-c: only zone-c is generated, and it holds 3 more of 2 cpu."""
    case = _case(tmp_path, 4, "{gang: {minCount: 5}}", bound=[("w-bound", "g", "c-1")])
    got = run(case)
    assert (
        _condition(got)["message"] == "0/1 placements are available, first placement status: pod group is unschedulable"
    )
    got_fit = sorted(a["message"] for a in got["attempts"] if a["round"] == 1)
    assert got_fit.count(WAITING) == 3
    sched, pods = load(case)
    sched.run(pods, rounds=1)
    record = sched.gang.outcomes[-1].placements
    assert record is not None
    assert [t.name for t in record.tried] == ["zone-c"]


def test_no_node_with_the_key_leaves_no_placement(tmp_path: Path) -> None:
    """RunPlacementGeneratePlugins: a generator that generates nothing makes the group
    Unschedulable with `no feasible placements found`, which every member reports."""
    got = run(_case(tmp_path, 2, "{gang: {minCount: 2}}", key="example.com/rack"))
    assert _condition(got) == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "no feasible placements found",
    }
    assert _messages(got) == ["no feasible placements found"] * 2
    assert got["groupNodes"]["default/g"] == ["", ""]


def test_group_without_constraints_is_one_placement_of_every_node(tmp_path: Path) -> None:
    """Without schedulingConstraints the generator returns every node: the group is placed as
    without the gate, but an infeasible one says `0/1 placements are available`."""
    fits = run(_case(tmp_path / "fits", 5, "{gang: {minCount: 5}}", key=""))
    assert "x-1" in fits["groupNodes"]["default/g"]
    nodes = [("a-1", "zone-a", 4), ("c-1", "zone-c", 4)]
    got = run(_case(tmp_path / "not", 5, "{gang: {minCount: 5}}", key="", nodes=nodes))
    assert (
        _condition(got)["message"] == "0/1 placements are available, first placement status: pod group is unschedulable"
    )
    fit_error = (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are "
        "available: 2 No preemption victims found for incoming pod."
    )
    assert _messages(got) == sorted([WAITING] * 4 + [fit_error])


def test_workload_aware_preemption_refuses_groups_with_constraints(tmp_path: Path) -> None:
    gates = GATES + ",WorkloadAwarePreemption=true"
    got = run(_case(tmp_path, 7, "{gang: {minCount: 7}}", gates=gates))
    assert _condition(got)["message"] == (
        "0/3 placements are available, first placement status: pod group is unschedulable, "
        "workload aware preemption is not supported for pod groups with scheduling constraints"
    )


def test_pod_group_not_there_is_an_error_of_the_generator(tmp_path: Path) -> None:
    """Without GangScheduling nothing keeps the members of a PodGroup that does not exist out of
    the queue: the generator's lister fails, and every member gets its error; no condition is
    written (there is no PodGroup to write it on)."""
    case = _case(
        tmp_path, 2, "{gang: {minCount: 2}}", gates="GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
    )
    (case / "pods.yaml").write_text((case / "pods.yaml").read_text().replace("podGroupName: g", "podGroupName: other"))
    sched, pods = load(case)
    attempts = sched.run(pods, rounds=1)
    assert [(a.result, a.message) for a in attempts] == [
        (PodOutcome.ERROR, 'podgroup.scheduling.k8s.io "other" not found')
    ] * 2
    assert sched.gang.conditions == {}
