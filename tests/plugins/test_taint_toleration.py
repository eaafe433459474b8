"""TaintToleration: the Filter rejects the first untolerated NoSchedule/NoExecute taint; the
Score counts untolerated PreferNoSchedule taints and NormalizeScore reverses the count."""

from __future__ import annotations

import pytest

from kwhatif.framework.interface import Code, CycleState, NodeScore, StateNotFoundError
from kwhatif.plugins import taint_toleration as tt

from builders import NodeBuilder, PodBuilder, make_handle, make_node, make_pod

OK = (Code.SUCCESS, ())


def untolerated(key: str, value: str = "") -> tuple[Code, tuple[str, ...]]:
    return Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (f"node(s) had untolerated taint {{{key}: {value}}}",)


def run_filter(pod: PodBuilder, node: NodeBuilder) -> tuple[Code, tuple[str, ...]]:
    h = make_handle([node.name("n1").obj()])
    st = tt.new(None, h).filter(CycleState(), pod.obj(), h.snapshot.get("n1"))
    return st.code, st.reasons


def pod() -> PodBuilder:
    return make_pod().name("p")


def node() -> NodeBuilder:
    return make_node()


@pytest.mark.parametrize(
    "pod,node,expected",
    [
        pytest.param(pod(), node(), OK, id="no-taints"),
        pytest.param(
            pod(), node().taint("dedicated", "gpu", "NoSchedule"), untolerated("dedicated", "gpu"), id="noschedule"
        ),
        pytest.param(
            pod(), node().taint("dedicated", "gpu", "NoExecute"), untolerated("dedicated", "gpu"), id="noexecute"
        ),
        pytest.param(
            pod(), node().taint("maintenance", effect="NoSchedule"), untolerated("maintenance"), id="empty-value"
        ),
        pytest.param(pod(), node().taint("dedicated", "gpu", "PreferNoSchedule"), OK, id="prefer-ignored"),
        pytest.param(
            pod().toleration("dedicated", "Equal", "gpu", "NoSchedule"),
            node().taint("dedicated", "gpu"),
            OK,
            id="equal",
        ),
        pytest.param(
            pod().toleration("dedicated", "Equal", "cpu", "NoSchedule"),
            node().taint("dedicated", "gpu"),
            untolerated("dedicated", "gpu"),
            id="equal-wrong-value",
        ),
        pytest.param(
            pod().toleration("dedicated", "Exists", effect="NoSchedule"),
            node().taint("dedicated", "gpu"),
            OK,
            id="exists",
        ),
        pytest.param(
            pod().toleration("dedicated", "Exists"),
            node().taint("dedicated", "gpu", "NoExecute"),
            OK,
            id="exists-any-effect",
        ),
        pytest.param(
            pod().toleration(operator="Exists"),
            node().taint("a", "1").taint("b", "2", "NoExecute"),
            OK,
            id="empty-key-exists",
        ),
        pytest.param(
            pod().toleration(operator="Exists", effect="NoSchedule"),
            node().taint("a", "1").taint("b", "2", "NoExecute"),
            untolerated("b", "2"),
            id="empty-key-exists-one-effect",
        ),
        # an empty effect matches every effect
        pytest.param(
            pod().toleration("dedicated", "Equal", "gpu"),
            node().taint("dedicated", "gpu", "NoExecute"),
            OK,
            id="empty-effect-matches-all",
        ),
        pytest.param(
            pod().toleration("dedicated", "Exists", effect="NoExecute"),
            node().taint("dedicated", "gpu", "NoSchedule"),
            untolerated("dedicated", "gpu"),
            id="wrong-effect",
        ),
        pytest.param(
            pod().toleration("dedicated", "Exists", effect="PreferNoSchedule"),
            node().taint("dedicated", "gpu", "NoSchedule"),
            untolerated("dedicated", "gpu"),
            id="prefer-toleration-for-noschedule",
        ),
        pytest.param(
            pod().toleration("maintenance", "Equal", effect="NoSchedule"),
            node().taint("maintenance"),
            OK,
            id="equal-empty-value",
        ),
        # only the first untolerated taint, in the node's order, is reported
        pytest.param(
            pod().toleration("a", "Exists"),
            node().taint("a", "1").taint("b", "2", "NoExecute").taint("c", "3"),
            untolerated("b", "2"),
            id="first-untolerated",
        ),
        pytest.param(
            pod(),
            node().taint("soft", "x", "PreferNoSchedule").taint("c", "3").taint("b", "2"),
            untolerated("c", "3"),
            id="first-untolerated-skips-prefer",
        ),
        pytest.param(
            pod().toleration("other", "Exists"), node().taint("maintenance"), untolerated("maintenance"), id="other-key"
        ),
    ],
)
def test_filter(pod: PodBuilder, node: NodeBuilder, expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run_filter(pod, node) == expected


def test_reason_text() -> None:
    assert tt.err_reason_untolerated("maintenance", "") == "node(s) had untolerated taint {maintenance: }"
    assert tt.err_reason_untolerated("k", "v") == "node(s) had untolerated taint {k: v}"


# --- score ------------------------------------------------------------------------------------


def scores(pod: PodBuilder, nodes: dict[str, NodeBuilder]) -> tuple[dict[str, int], dict[str, int]]:
    """Raw and normalized scores of every node."""
    objs = [b.name(n).obj() for n, b in nodes.items()]
    h = make_handle(objs)
    pl = tt.new(None, h)
    p = pod.obj()
    st = CycleState()
    infos = [h.snapshot.get(n) for n in nodes]
    assert pl.pre_score(st, p, infos).is_success()
    raw: list[NodeScore] = []
    for ni in infos:
        s, status = pl.score(st, p, ni)
        assert status.is_success()
        raw.append(NodeScore(ni.name, s))
    before = {s.name: s.score for s in raw}
    assert pl.normalize_score(st, p, raw).is_success()
    return before, {s.name: s.score for s in raw}


PREFER = "PreferNoSchedule"

SCORE_CASES = [
    pytest.param(
        pod(),
        {"a": node(), "b": node().taint("x", "1", PREFER), "c": node().taint("x", "1", PREFER).taint("y", "2", PREFER)},
        {"a": 0, "b": 1, "c": 2},
        {"a": 100, "b": 50, "c": 0},
        id="count-reversed",
    ),
    pytest.param(
        pod(),
        {"a": node(), "b": node()},
        {"a": 0, "b": 0},
        {"a": 100, "b": 100},
        id="all-zero",
    ),
    # hard taints do not count in the score
    pytest.param(
        pod(),
        {"a": node().taint("x", "1", "NoSchedule").taint("z", "1", "NoExecute"), "b": node().taint("x", "1", PREFER)},
        {"a": 0, "b": 1},
        {"a": 100, "b": 0},
        id="hard-taints-not-scored",
    ),
    pytest.param(
        pod().toleration("x", "Equal", "1", PREFER),
        {"a": node().taint("x", "1", PREFER), "b": node().taint("x", "2", PREFER)},
        {"a": 0, "b": 1},
        {"a": 100, "b": 0},
        id="tolerated-equal",
    ),
    # a toleration without effect counts for PreferNoSchedule taints
    pytest.param(
        pod().toleration("x", "Exists"),
        {"a": node().taint("x", "1", PREFER), "b": node().taint("y", "1", PREFER)},
        {"a": 0, "b": 1},
        {"a": 100, "b": 0},
        id="empty-effect-counts",
    ),
    # a NoSchedule toleration is not kept for scoring
    pytest.param(
        pod().toleration("x", "Exists", effect="NoSchedule"),
        {"a": node().taint("x", "1", PREFER), "b": node()},
        {"a": 1, "b": 0},
        {"a": 0, "b": 100},
        id="noschedule-toleration-ignored",
    ),
    pytest.param(
        pod().toleration(operator="Exists"),
        {"a": node().taint("x", "1", PREFER).taint("y", "1", PREFER), "b": node()},
        {"a": 0, "b": 0},
        {"a": 100, "b": 100},
        id="tolerate-everything",
    ),
    # Go integer division: 100 - 100*1/3 = 67, 100 - 100*2/3 = 34
    pytest.param(
        pod(),
        {
            "a": node().taint("x", "1", PREFER),
            "b": node().taint("x", "1", PREFER).taint("y", "1", PREFER),
            "c": node().taint("x", "1", PREFER).taint("y", "1", PREFER).taint("z", "1", PREFER),
            "d": node(),
        },
        {"a": 1, "b": 2, "c": 3, "d": 0},
        {"a": 67, "b": 34, "c": 0, "d": 100},
        id="go-division",
    ),
]


@pytest.mark.parametrize(
    "pod,nodes,raw,normalized",
    SCORE_CASES,
)
def test_score(pod: PodBuilder, nodes: dict[str, NodeBuilder], raw: dict[str, int], normalized: dict[str, int]) -> None:
    assert scores(pod, nodes) == (raw, normalized)


def test_pre_score_without_nodes_writes_nothing() -> None:
    h = make_handle([])
    st = CycleState()
    assert tt.new(None, h).pre_score(st, pod().obj(), []).is_success()
    with pytest.raises(StateNotFoundError):
        st.read(tt.PRE_SCORE_STATE_KEY)
