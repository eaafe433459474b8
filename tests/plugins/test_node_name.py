"""NodeName: a pod that names its node fits only there."""

from __future__ import annotations

import pytest

from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_name as nn

from builders import PodBuilder, make_handle, make_node, make_pod

REJECTED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match the requested node name",))
OK = (Code.SUCCESS, ())


@pytest.mark.parametrize(
    "pod,expected",
    [
        pytest.param(make_pod().name("p").node("n1"), OK, id="match"),
        pytest.param(make_pod().name("p").node("n2"), REJECTED, id="mismatch"),
        pytest.param(make_pod().name("p").node("n1-other"), REJECTED, id="prefix-is-not-a-match"),
        pytest.param(make_pod().name("p"), OK, id="no-node-name"),
    ],
)
def test_filter(pod: PodBuilder, expected: tuple[Code, tuple[str, ...]]) -> None:
    h = make_handle([make_node().name("n1").obj()])
    st = nn.new(None, h).filter(CycleState(), pod.obj(), h.snapshot.get("n1"))
    assert (st.code, st.reasons) == expected
    assert nn.ERR_REASON == "node(s) didn't match the requested node name"
