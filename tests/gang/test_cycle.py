"""The pod-group cycle and the gang-aware queue under each gate setting: gates off (the API
server drops spec.schedulingGroup), a PodGroup that does not exist or has fewer pods than
minCount (GangScheduling's PreEnqueue), members that need preemption, and the gates' own rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kwhatif.framework.types import PodOutcome
from kwhatif.release.versions import get as get_version
from kwhatif.release.workload_gates import GangGates, dependency_errors, gang_gates

from .harness import load, run
from fidelity import SAMPLE

GANG = SAMPLE / "gang"
ON = {"GenericWorkload": True, "GangScheduling": True}

CLUSTER = """\
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: v1
  kind: Node
  metadata: {name: node-0, labels: {kubernetes.io/hostname: node-0}}
  status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
  status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}
"""
LOW_PODS = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: low-0, namespace: default}
  spec: {nodeName: node-0, containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: low-1, namespace: default}
  spec: {nodeName: node-1, containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]}
"""


def _group(name: str, min_count: int) -> str:
    return f"""\
- apiVersion: scheduling.k8s.io/v1alpha2
  kind: PodGroup
  metadata: {{name: {name}, namespace: default}}
  spec:
    schedulingPolicy: {{gang: {{minCount: {min_count}}}}}
"""


def _pods(group: str, n: int, cpu: str, priority_class: str = "") -> str:
    out = "apiVersion: v1\nkind: List\nitems:\n"
    pc = f"priorityClassName: {priority_class}, " if priority_class else ""
    for i in range(n):
        out += f"""\
- apiVersion: v1
  kind: Pod
  metadata: {{name: w-{i}, namespace: default, creationTimestamp: '2024-01-01T00:00:0{i}Z'}}
  spec: {{{pc}schedulingGroup: {{podGroupName: {group}}}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: '{cpu}'}}}}}}]}}
"""
    return out


def _case(tmp_path: Path, cluster_extra: str, pods: str) -> Path:
    (tmp_path / "cluster.yaml").write_text(CLUSTER + cluster_extra)
    (tmp_path / "pods.yaml").write_text(pods)
    return tmp_path


def _view(a: dict[str, Any]) -> list[tuple[int, str, str, str, str, str]]:
    return [(t["round"], t["pod"], t["result"], t["node"], t["nominatedNodeName"], t["message"]) for t in a["attempts"]]


@pytest.mark.skipif(not GANG.is_dir(), reason="the fidelity sample's gang/ cases are not here")
def test_gates_off_pods_are_scheduled_one_by_one() -> None:
    """rejected-gang-frees-room with the gates at 1.36's defaults: three workers fit alone and are bound."""
    sched, pods = load(GANG / "rejected-gang-frees-room", gates={})
    attempts = sched.run(pods, rounds=2)
    assert all(a.pod_group == "" for a in attempts)
    assert {a.pod.key: a.node for a in attempts if a.result is PodOutcome.SCHEDULED} == {
        "default/w-0": "node-2",
        "default/w-1": "node-1",
        "default/w-2": "node-0",
    }
    assert sched.gang.conditions == {}
    assert sched.gang.notes == [
        "4 pod(s) name a PodGroup (spec.schedulingGroup), which the API server drops while the GenericWorkload "
        "feature gate is off: they are scheduled one by one, not as a group"
    ]


def test_missing_pod_group_keeps_members_out_of_the_queue(tmp_path: Path) -> None:
    a = run(_case(tmp_path, "", _pods("nowhere", 2, "1")), gates=ON)
    assert a["attempts"] == []
    assert a["queue"] == {
        "default/w-0": {"queue": "unschedulable", "gatingPlugin": "GangScheduling", "attempts": 0},
        "default/w-1": {"queue": "unschedulable", "gatingPlugin": "GangScheduling", "attempts": 0},
    }
    sched, pods = load(tmp_path, gates=ON)
    msgs = {att.message for att in sched.run(pods)}
    assert msgs == {'waiting for pods\'s pod group "nowhere" to appear in scheduling queue'}


def test_fewer_pods_than_min_count_wait_in_the_queue(tmp_path: Path) -> None:
    sched, pods = load(_case(tmp_path, _group("g", 3), _pods("g", 2, "1")), gates=ON)
    attempts = sched.run(pods)
    assert [(att.pod.key, att.result, att.message) for att in attempts] == [
        ("default/w-0", PodOutcome.GATED, "waiting for minCount pods from a gang to appear in scheduling queue"),
        ("default/w-1", PodOutcome.GATED, "waiting for minCount pods from a gang to appear in scheduling queue"),
    ]
    assert sched.gang.outcomes == []


def test_without_gang_scheduling_a_missing_pod_group_does_not_gate(tmp_path: Path) -> None:
    """GenericWorkload alone: the pod-group cycle runs, no plugin waits for the group."""
    a = run(_case(tmp_path, "", _pods("nowhere", 2, "3")), gates={"GenericWorkload": True})
    assert a["final"] == {"default/w-0": "node-0", "default/w-1": "node-1"}
    assert [c["pods"] for c in a["cycles"]] == [["default/w-0", "default/w-1"]]


def test_members_that_need_preemption_are_nominated_then_placed(tmp_path: Path) -> None:
    """Both members need a low-priority pod evicted: each is nominated and assumed at its node,
    the group waits for the preemption, and the next round binds both on their nominated nodes."""
    a = run(_case(tmp_path, LOW_PODS + _group("g", 2), _pods("g", 2, "2", "high")), gates=ON)
    assert _view(a) == [
        (1, "default/w-0", "Unschedulable", "", "node-0", "0/2 nodes are available: 2 Insufficient cpu."),
        (1, "default/w-1", "Unschedulable", "", "node-1", "0/2 nodes are available: 2 Insufficient cpu."),
        (2, "default/w-0", "Scheduled", "node-0", "", ""),
        (2, "default/w-1", "Scheduled", "node-1", "", ""),
    ]
    assert [c["victims"] for c in a["cycles"]] == [["default/low-0", "default/low-1"], []]
    assert a["podGroups"]["default/g"]["conditions"][0]["status"] == "True"


def test_a_gang_that_cannot_fit_even_by_preemption_still_evicts(tmp_path: Path) -> None:
    """minCount 3 on 2 nodes that hold one member each: the two preemptions happen in the cycle
    (their victims are gone), but the group is rejected and no member is bound or nominated."""
    a = run(_case(tmp_path, LOW_PODS + _group("g", 3), _pods("g", 3, "3", "high")), gates=ON)
    assert a["final"] == {"default/w-0": "", "default/w-1": "", "default/w-2": ""}
    assert a["cycles"][0]["victims"] == ["default/low-0", "default/low-1"]
    first = [t for t in a["attempts"] if t["round"] == 1]
    assert [t["nominatedNodeName"] for t in first] == ["", "", ""]
    assert (
        sorted(t["message"] for t in first)[-2:]
        == [
            "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or more plugins "
            "asked to wait and no plugin rejected pod"
        ]
        * 2
    )
    assert a["podGroups"]["default/g"]["conditions"][0] == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "pod group is unschedulable",
    }


@pytest.mark.parametrize(
    "release,overrides,want",
    [
        pytest.param("1.36.2", {}, GangGates(), id="1.36-defaults-off"),
        pytest.param("1.36.2", ON, GangGates(True, True, False, False), id="1.36-gang-on"),
        pytest.param(
            "1.36.2",
            {**ON, "TopologyAwareWorkloadScheduling": True, "WorkloadAwarePreemption": True},
            GangGates(True, True, True, True),
            id="1.36-all-on",
        ),
        pytest.param(
            "1.35", {**ON, "WorkloadAwarePreemption": True}, GangGates(True, True, False, False), id="1.35-no-wap"
        ),
        pytest.param("1.34", ON, GangGates(), id="1.34-gates-do-not-exist"),
    ],
)
def test_gang_gates(release: str, overrides: dict[str, bool], want: GangGates) -> None:
    assert gang_gates(get_version(release), overrides) == want


def test_gate_dependencies() -> None:
    v = get_version("1.36.2")
    assert dependency_errors(v, ON) == []
    assert dependency_errors(v, {"GangScheduling": True, "WorkloadAwarePreemption": True}) == [
        "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]",
    ]
    assert dependency_errors(v, {"GenericWorkload": True, "WorkloadAwarePreemption": True}) == [
        "WorkloadAwarePreemption is enabled, but depends on features that are disabled: [GangScheduling]",
    ]


def test_gang_scheduling_plugin_is_in_the_default_profile_only_with_its_gate() -> None:
    from kwhatif.release.versions import SchedulerVersion

    v = get_version("1.36.2")

    on: SchedulerVersion = v.with_feature_gates("GenericWorkload=true,GangScheduling=true")
    assert ("GangScheduling", None) not in v.default_plugins()
    assert on.default_plugins()[-1] == ("GangScheduling", None)


WAP = {**ON, "WorkloadAwarePreemption": True}
NOT_ELIGIBLE = (
    "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
    "preemption: not eligible due to workload aware preemption enabled"
)


def _group_with_priority(name: str, min_count: int, priority: int) -> str:
    return _group(name, min_count).replace("    schedulingPolicy:", f"    priority: {priority}\n    schedulingPolicy:")


def test_workload_aware_preemption_uses_the_pod_group_priority(tmp_path: Path) -> None:
    """WorkloadAwarePreemption: the members' own preemption is off, and the group preempts at
    the PodGroup's priority, which is 0 here (high-priority pods, PodGroup without priority):
    nothing is preempted."""
    a = run(_case(tmp_path, LOW_PODS + _group("g", 2), _pods("g", 2, "2", "high")), gates=WAP)
    assert _view(a) == [
        (1, "default/w-0", "Unschedulable", "", "", NOT_ELIGIBLE),
        (1, "default/w-1", "Unschedulable", "", "", NOT_ELIGIBLE),
        (2, "default/w-0", "Unschedulable", "", "", NOT_ELIGIBLE),
        (2, "default/w-1", "Unschedulable", "", "", NOT_ELIGIBLE),
    ]
    assert a["podGroups"]["default/g"]["conditions"][0]["message"] == (
        "pod group is unschedulable, No preemption victims found for incoming preemptor"
    )
    assert all(c["victims"] == [] for c in a["cycles"])


def test_workload_aware_preemption_evicts_as_few_as_the_group_needs(tmp_path: Path) -> None:
    """A PodGroup of priority 1000: all lower-priority pods are taken out, the group fits, then
    victims are given back while it still fits; one eviction frees a node for both members."""
    a = run(_case(tmp_path, LOW_PODS + _group_with_priority("g", 2, 1000), _pods("g", 2, "2")), gates=WAP)
    assert [c["victims"] for c in a["cycles"]] == [["default/low-1"], []]
    assert a["final"] == {"default/w-0": "node-1", "default/w-1": "node-1"}
    assert a["podGroups"]["default/g"]["conditions"][0]["status"] == "True"


def test_preemption_victims_order() -> None:
    from kwhatif.framework.pod_group_preemption import victims

    from builders import make_pod

    def pod(name: str, prio: int, group: str = "", start: str = "2024-01-01T00:00:00Z") -> Any:
        b = make_pod().name(name).priority(prio).set("spec.nodeName", "n").set("status.startTime", start)
        if group:
            b = b.set("spec.schedulingGroup", {"podGroupName": group})
        return b.obj()

    got = victims(
        [pod("a", 5), pod("b", 1), pod("c", 1, "g"), pod("d", 3, "g"), pod("e", 200), pod("f", 2, "h")], 100, True
    )
    assert sorted((tuple(p.name for p in v.pods), v.is_pod_group, v.priority) for v in got) == [
        (("a",), False, 5),
        (("b",), False, 1),
        (("c", "d"), True, 3),  # a pod group's priority is its highest member's
        (("f",), True, 2),
    ]
