"""PrioritySort: higher priority first, then the earlier timestamp, then the input order."""

from __future__ import annotations

import dataclasses

import pytest

from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.framework.interface import QueuedPodInfo
from kwhatif.plugins import queue_sort as qs
from kwhatif.scheduling.scheduler import Scheduler

from builders import make_node, make_pod

T0 = "2024-01-01T00:00:00Z"
T1 = "2024-01-01T00:00:01Z"
T2 = "2024-01-01T00:01:00Z"


def scheduler() -> Scheduler:
    node = make_node().name("n1").obj()
    config = dataclasses.replace(default_configuration(), percentage_of_nodes_to_score=100)
    return Scheduler(ClusterState(nodes={node.name: node}), config)


@pytest.mark.parametrize(
    "pods,expected",
    [
        pytest.param([("a", 0, T0), ("b", 10, T0), ("c", 5, T0)], ["b", "c", "a"], id="priority-desc"),
        pytest.param([("a", 0, T2), ("b", 0, T0), ("c", 0, T1)], ["b", "c", "a"], id="timestamp"),
        pytest.param([("a", 0, T0), ("b", 0, T0), ("c", 0, T0)], ["a", "b", "c"], id="input-order"),
        pytest.param(
            [("late-high", 100, T2), ("early-low", 0, T0)], ["late-high", "early-low"], id="priority-beats-time"
        ),
        pytest.param([("a", 1, T1), ("b", 1, T0), ("c", 2, T2), ("d", 1, T0)], ["c", "b", "d", "a"], id="mixed"),
        pytest.param([("neg", -5, T0), ("zero", 0, T2)], ["zero", "neg"], id="negative-priority"),
    ],
)
def test_queue_order(pods: list[tuple[str, int, str]], expected: list[str]) -> None:
    objs = [make_pod().name(n).priority(p).created(ts).obj() for n, p, ts in pods]
    assert [p.name for p in scheduler().queue_order(objs)] == expected


def test_queue_order_with_explicit_timestamps() -> None:
    """Retries re-enter the queue with new timestamps, which replace the creation times."""
    objs = [make_pod().name(n).created(T0).obj() for n in ("a", "b", "c")]
    assert [p.name for p in scheduler().queue_order(objs, [2.0, 0.0, 1.0])] == ["b", "c", "a"]


def test_less() -> None:
    pl = qs.new(None, None)
    high = QueuedPodInfo(make_pod().name("h").priority(10).obj(), timestamp=5.0, order=1)
    low = QueuedPodInfo(make_pod().name("l").priority(1).obj(), timestamp=0.0, order=0)
    assert pl.less(high, low) and not pl.less(low, high)
    a = QueuedPodInfo(make_pod().name("a").obj(), timestamp=1.0, order=1)
    b = QueuedPodInfo(make_pod().name("b").obj(), timestamp=2.0, order=0)
    assert pl.less(a, b) and not pl.less(b, a)
    c = QueuedPodInfo(make_pod().name("c").obj(), timestamp=1.0, order=0)
    assert pl.less(c, a) and not pl.less(a, c)
    assert not pl.less(a, a)
