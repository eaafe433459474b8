"""NodeUnschedulable: an unschedulable node admits only pods that tolerate the
node.kubernetes.io/unschedulable:NoSchedule taint."""

from __future__ import annotations

import pytest

from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_unschedulable as nu

from builders import PodBuilder, make_handle, make_node, make_pod

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
        pytest.param(make_pod().name("p"), False, OK, id="schedulable"),
        pytest.param(make_pod().name("p"), True, REJECTED, id="unschedulable"),
        pytest.param(
            make_pod().name("p").toleration(KEY, "Exists", effect="NoSchedule"), True, OK, id="exists-noschedule"
        ),
        pytest.param(make_pod().name("p").toleration(KEY, "Exists"), True, OK, id="exists-any-effect"),
        # the taint the plugin checks has an empty value, so Equal with no value tolerates it
        pytest.param(
            make_pod().name("p").toleration(KEY, "Equal", effect="NoSchedule"), True, OK, id="equal-empty-value"
        ),
        pytest.param(
            make_pod().name("p").toleration(KEY, "Equal", value="true", effect="NoSchedule"),
            True,
            REJECTED,
            id="equal-wrong-value",
        ),
        pytest.param(make_pod().name("p").toleration(operator="Exists"), True, OK, id="empty-key-exists"),
        pytest.param(
            make_pod().name("p").toleration(operator="Exists", effect="NoSchedule"),
            True,
            OK,
            id="empty-key-exists-noschedule",
        ),
        pytest.param(
            make_pod().name("p").toleration(KEY, "Exists", effect="NoExecute"),
            True,
            REJECTED,
            id="wrong-effect-noexecute",
        ),
        pytest.param(
            make_pod().name("p").toleration(KEY, "Exists", effect="PreferNoSchedule"),
            True,
            REJECTED,
            id="wrong-effect-prefer",
        ),
        pytest.param(
            make_pod().name("p").toleration(operator="Exists", effect="NoExecute"),
            True,
            REJECTED,
            id="empty-key-wrong-effect",
        ),
        pytest.param(make_pod().name("p").toleration("other", "Exists"), True, REJECTED, id="other-key"),
        pytest.param(
            make_pod().name("p").toleration("other", "Exists").toleration(KEY, "Exists"),
            True,
            OK,
            id="second-toleration",
        ),
        # a real taint on the node is TaintToleration's business, not this plugin's
        pytest.param(
            make_pod().name("p").toleration(KEY, "Exists", effect="NoExecute"),
            False,
            OK,
            id="schedulable-ignores-tolerations",
        ),
    ],
)
def test_filter(pod: PodBuilder, unschedulable: bool, expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run(pod, unschedulable) == expected
