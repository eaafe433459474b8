"""SchedulingGates: a pod with scheduling gates never enters a scheduling cycle."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.framework.interface import Code
from kwhatif.framework.types import PodOutcome
from kwhatif.plugins import scheduling_gates as sg
from kwhatif.scheduling.scheduler import Scheduler

from builders import PodBuilder, make_node, make_pod


@pytest.mark.parametrize(
    "pod,expected",
    [
        pytest.param(make_pod().name("p"), (Code.SUCCESS, ()), id="no-gates"),
        pytest.param(
            make_pod().name("p").gate("a"),
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates: [a]",)),
            id="one-gate",
        ),
        pytest.param(
            make_pod().name("p").gate("a").gate("b"),
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates: [a b]",)),
            id="two-gates-in-order",
        ),
        pytest.param(
            make_pod().name("p").gate("example.com/quota").gate("b"),
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates: [example.com/quota b]",)),
            id="qualified-name",
        ),
    ],
)
def test_pre_enqueue(pod: PodBuilder, expected: tuple[Code, tuple[str, ...]]) -> None:
    st = sg.new(None, None).pre_enqueue(pod.obj())
    assert (st.code, st.reasons) == expected


def test_gated_pod_is_never_placed() -> None:
    node = make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj()
    cluster = ClusterState(nodes={node.name: node})
    config = dataclasses.replace(default_configuration(), percentage_of_nodes_to_score=100)
    sched = Scheduler(cluster, config)
    gated = make_pod().name("gated").gate("a").gate("b").req(cpu="1").obj()
    free = make_pod().name("free").req(cpu="1").obj()
    attempts = sched.run([gated, free])
    # the gated pod is not retried in the second round: it never entered the active queue
    assert [(a.pod.name, a.result, a.node) for a in attempts] == [
        ("gated", PodOutcome.GATED, None),
        ("free", PodOutcome.SCHEDULED, "n1"),
    ]
    gated_attempt = attempts[0]
    assert gated_attempt.message == "waiting for scheduling gates: [a b]"
    assert gated_attempt.fit.filters == {} and gated_attempt.prioritized is None
    assert gated_attempt.binding is None
    assert sched.snapshot.node_of(gated) is None
    assert sched.snapshot.node_of(free) == "n1"
