"""NodeUnschedulable: an unschedulable node admits only pods that tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint."""

from __future__ import annotations

import pytest

from builders import PodBuilder, make_handle, make_node, make_pod
from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_unschedulable as nu

KEY = "node.kubernetes.io/unschedulable"
REJECTED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",))
OK = (Code.SUCCESS, ())


def run(pod: PodBuilder, unschedulable: bool) -> tuple[Code, tuple[str, ...]]:
    node = make_node().name("n1")
    if unschedulable:
        node = node.unschedulable()
    h = make_handle([node.obj()])
    st = nu.new(None, h).filter(CycleState(), pod.obj(), h.snapshot.get("n1"))
    return st.code, st.reasons


def test_reason_is_upstreams() -> None:
    assert nu.ERR_REASON_UNSCHEDULABLE == "node(s) were unschedulable"


@pytest.mark.parametrize(
    "pod,unschedulable,expected",
    [
        (make_pod().name("p"), False, OK),
        (make_pod().name("p"), True, REJECTED),
        (make_pod().name("p").toleration(KEY, "Exists", effect="NoSchedule"), True, OK),
        (make_pod().name("p").toleration(KEY, "Exists"), True, OK),
        # the taint the plugin checks has an empty value, so Equal with no value tolerates it
        (make_pod().name("p").toleration(KEY, "Equal", effect="NoSchedule"), True, OK),
        (make_pod().name("p").toleration(KEY, "Equal", value="true", effect="NoSchedule"), True, REJECTED),
        (make_pod().name("p").toleration(operator="Exists"), True, OK),
        (make_pod().name("p").toleration(operator="Exists", effect="NoSchedule"), True, OK),
        (make_pod().name("p").toleration(KEY, "Exists", effect="NoExecute"), True, REJECTED),
        (make_pod().name("p").toleration(KEY, "Exists", effect="PreferNoSchedule"), True, REJECTED),
        (make_pod().name("p").toleration(operator="Exists", effect="NoExecute"), True, REJECTED),
        (make_pod().name("p").toleration("other", "Exists"), True, REJECTED),
        (make_pod().name("p").toleration("other", "Exists").toleration(KEY, "Exists"), True, OK),
        # a real taint on the node is TaintToleration's business, not this plugin's
        (make_pod().name("p").toleration(KEY, "Exists", effect="NoExecute"), False, OK),
    ],
    ids=[
        "schedulable",
        "unschedulable",
        "exists-noschedule",
        "exists-any-effect",
        "equal-empty-value",
        "equal-wrong-value",
        "empty-key-exists",
        "empty-key-exists-noschedule",
        "wrong-effect-noexecute",
        "wrong-effect-prefer",
        "empty-key-wrong-effect",
        "other-key",
        "second-toleration",
        "schedulable-ignores-tolerations",
    ],
)
def test_filter(pod: PodBuilder, unschedulable: bool, expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run(pod, unschedulable) == expected
