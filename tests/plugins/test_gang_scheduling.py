"""GangScheduling's PreEnqueue and Permit (gangscheduling.go of v1.36.2), as upstream's
gangscheduling_test.go tables exercise them: the pod's group missing, basic policy, fewer pods
known than minCount, and the quorum of scheduled (bound or assumed) members."""

from __future__ import annotations

import pytest

from kwhatif.api.workload import PodGroup, SchedulingPolicy
from kwhatif.cache.pod_groups import PodGroupStates
from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import gang_scheduling as gs

from builders import make_pod


def _group(min_count: int | None, name: str = "pg", namespace: str = "default") -> PodGroup:
    policy = SchedulingPolicy(gang=False) if min_count is None else SchedulingPolicy(gang=True, min_count=min_count)
    return PodGroup(namespace, name, "scheduling.k8s.io/v1alpha2", policy)


def _states(pending: int, bound: int = 0, assumed: int = 0, group: str = "pg") -> PodGroupStates:
    st = PodGroupStates()
    for i in range(pending + bound):
        b = make_pod().name(f"m{i}").set("spec.schedulingGroup", {"podGroupName": group})
        if i >= pending:
            b = b.set("spec.nodeName", "node-a")
        st.add_pod(b.obj())
    for i in range(assumed):
        st.assume(make_pod().name(f"m{i}").set("spec.schedulingGroup", {"podGroupName": group}).obj())
    return st


POD = make_pod().name("p").set("spec.schedulingGroup", {"podGroupName": "pg"})
FOREIGN = make_pod().name("q")  # in no group


@pytest.mark.parametrize(
    "pod,groups,states,code,message",
    [
        pytest.param(FOREIGN, [], _states(0), Code.SUCCESS, "", id="pod-without-scheduling-group"),
        pytest.param(
            POD,
            [],
            _states(1),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'waiting for pods\'s pod group "pg" to appear in scheduling queue',
            id="pod-group-not-found",
        ),
        pytest.param(POD, [_group(None)], _states(1), Code.SUCCESS, "", id="basic-policy-always-enqueued"),
        pytest.param(
            POD,
            [_group(3)],
            _states(2),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue",
            id="fewer-pods-than-min-count",
        ),
        pytest.param(POD, [_group(3)], _states(3), Code.SUCCESS, "", id="exactly-min-count-pods"),
        pytest.param(POD, [_group(2)], _states(1, bound=1), Code.SUCCESS, "", id="bound-members-count"),
        pytest.param(
            POD,
            [_group(2, namespace="other")],
            _states(2),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'waiting for pods\'s pod group "pg" to appear in scheduling queue',
            id="pod-group-in-another-namespace",
        ),
    ],
)
def test_pre_enqueue(pod, groups, states, code: Code, message: str) -> None:  # type: ignore[no-untyped-def]
    pl = gs.GangScheduling({g.key: g for g in groups}, states)
    st = pl.pre_enqueue(pod.obj())
    assert st.code is code
    assert st.message() == message


@pytest.mark.parametrize(
    "groups,states,code,message,timeout",
    [
        pytest.param([_group(None)], _states(2), Code.SUCCESS, "", 0.0, id="basic-policy"),
        pytest.param(
            [_group(3)],
            _states(3, assumed=2),
            Code.WAIT,
            "waiting for minCount pods from a gang to be scheduled",
            300.0,
            id="quorum-not-met-waits-5-minutes",
        ),
        pytest.param([_group(3)], _states(3, assumed=3), Code.SUCCESS, "", 0.0, id="quorum-met-by-assumed"),
        pytest.param(
            [_group(3)], _states(1, bound=2, assumed=1), Code.SUCCESS, "", 0.0, id="quorum-met-with-bound-members"
        ),
        pytest.param(
            [],
            _states(1),
            Code.ERROR,
            "failed to get podGroup default/pg: not found",
            0.0,
            id="pod-group-gone",
        ),
    ],
)
def test_permit(groups, states, code: Code, message: str, timeout: float) -> None:  # type: ignore[no-untyped-def]
    pl = gs.GangScheduling({g.key: g for g in groups}, states)
    st, wait = pl.permit(CycleState(), POD.obj(), "node-a")
    assert st.code is code
    assert st.message() == message
    assert wait == timeout


def test_permit_of_pod_without_group_succeeds() -> None:
    pl = gs.GangScheduling({}, PodGroupStates())
    st, wait = pl.permit(CycleState(), FOREIGN.obj(), "node-a")
    assert st.is_success() and wait == 0.0


def test_missing_pod_group_message_of_1_37() -> None:
    from kwhatif.release import versions

    pl = gs.GangScheduling({}, _states(1), versions.get("1.37").behaviour.gang_missing_pod_group_reason)
    assert pl.pre_enqueue(POD.obj()).message() == 'waiting for pod\'s pod group "pg" to appear in scheduling queue'
