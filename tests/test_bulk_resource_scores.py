"""NodeResourcesFit's and NodeResourcesBalancedAllocation's scores over many nodes at once (what
the incremental engine computes for the nodes of a first cycle) are each node's Score: random
nodes and pods, every strategy and resource list, the releases before and after balanced
allocation scores the change the pod brings; what the vector arithmetic cannot be sure of is
left to the node-by-node path."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kwhatif.framework.interface import CycleState
from kwhatif.plugins import node_resources_balanced_allocation as ba
from kwhatif.plugins import node_resources_fit as fit
from kwhatif.release.versions import get
from kwhatif.scheduling.incremental import _bulk_scores

from builders import make_handle, make_node, make_pod, plugin_args

GPU = "example.com/gpu"
CPUS = ("0", "1", "2", "4", "7", "16", "250m", "1500m", "96")
MEMORY = ("0", "1Gi", "3Gi", "8Gi", "12345678", "64Gi", "1Ti", "3Pi")
REQ_CPU = ("0", "100m", "250m", "1", "2", "3", "5", "33m")
REQ_MEMORY = ("0", "128Mi", "1Gi", "2Gi", "5Gi", "777777", "2Ti")

FIT_ARGS: list[dict[str, Any] | None] = [
    None,
    {"scoringStrategy": {"type": "MostAllocated"}},
    {
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}, {"name": GPU, "weight": 2}],
        }
    },
    {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "memory", "weight": 5}]}},
    {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "ephemeral-storage", "weight": 1}]}},
]
BALANCED_ARGS: list[dict[str, Any] | None] = [
    None,
    {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]},
    {"resources": [{"name": "cpu"}]},
    {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "ephemeral-storage"}, {"name": GPU}]},
]


def _resources(rng: random.Random, cpu: tuple[str, ...], memory: tuple[str, ...]) -> dict[str, str]:
    res = {"cpu": rng.choice(cpu), "memory": rng.choice(memory)}
    if rng.random() < 0.5:
        res[GPU] = str(rng.randrange(0, 5))
    if rng.random() < 0.3:
        res["ephemeral-storage"] = rng.choice(("0", "10Gi", "100Gi"))
    return res


def _cluster(rng: random.Random, version: Any) -> tuple[Any, list[Any], Any]:
    nodes, pods = [], []
    for i in range(rng.randrange(2, 30)):
        alloc = _resources(rng, CPUS, MEMORY)
        if rng.random() < 0.2:  # a node of the same shape as the one before
            alloc = dict(nodes[-1].d["status"]["allocatable"]) if nodes else alloc
        alloc["pods"] = "110"
        b = make_node().name(f"n{i}").capacity(**{k.replace("-", "_"): v for k, v in alloc.items()})
        b.d["status"]["allocatable"] = alloc
        nodes.append(b)
        for j in range(rng.randrange(0, 4)):
            p = make_pod().name(f"e{i}-{j}").node(f"n{i}")
            if rng.random() < 0.8:
                p.req(**{k.replace("-", "_"): v for k, v in _resources(rng, REQ_CPU, REQ_MEMORY).items() if v != "0"})
            pods.append(p.obj(version=version))
    h = make_handle([n.obj() for n in nodes], pods, version=version)
    pod = make_pod().name("p")
    if rng.random() < 0.85:
        pod.req(**{k.replace("-", "_"): v for k, v in _resources(rng, REQ_CPU, REQ_MEMORY).items() if v != "0"})
    return h, [h.snapshot.get(n.d["metadata"]["name"]) for n in nodes], pod.obj(version=version)


@pytest.mark.parametrize("release", ["1.30.6", "1.33.2", "1.36.0"])
def test_bulk_scores_are_each_nodes_score(release):
    version = get(release)
    rng = random.Random(release)
    bulk = 0
    for _ in range(150):
        h, infos, pod = _cluster(rng, version)
        plugins = [fit.new(plugin_args(fit.NAME, a, version), h) for a in FIT_ARGS]
        plugins += [ba.new(plugin_args(ba.NAME, a, version), h) for a in BALANCED_ARGS]
        for pl in plugins:
            st = CycleState()
            if not pl.pre_score(st, pod, infos).is_success():
                continue
            expected = []
            for ni in infos:
                s, status = pl.score(st, pod, ni)
                assert status.is_success()
                expected.append(s)
            got = _bulk_scores(pl, st, pod, infos)
            if got is not None:
                bulk += 1
                assert got.tolist() == expected, (pl.NAME, release)
    assert bulk > 600


def test_bulk_scores_leave_what_they_cannot_be_sure_of():
    version = get("1.30.6")
    nodes = [make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj()]
    nodes.append(make_node().name("n2").capacity(cpu="0", memory="8Gi", pods="110").obj())
    h = make_handle(nodes, version=version)
    infos = [h.snapshot.get("n1"), h.snapshot.get("n2")]
    pod = make_pod().name("p").req(cpu="1", memory="1Gi").obj(version=version)
    rtcr = {
        "scoringStrategy": {
            "type": "RequestedToCapacityRatio",
            "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]},
        }
    }
    for pl in (fit.new(plugin_args(fit.NAME, rtcr, version), h), ba.new(plugin_args(ba.NAME, None, version), h)):
        st = CycleState()
        assert pl.pre_score(st, pod, infos).is_success()
        # the shape's broken line, and a node without cpu (fewer fractions than the others)
        assert _bulk_scores(pl, st, pod, infos) is None
    # no PreScore state: the node-by-node path reads its own
    assert _bulk_scores(fit.new(plugin_args(fit.NAME, None, version), h), CycleState(), pod, infos) is None
    huge = [make_node().name("n3").capacity(cpu="4", memory="900Pi", pods="110").obj()] + nodes[:1]
    h = make_handle(huge, version=version)
    pl = fit.new(plugin_args(fit.NAME, None, version), h)
    st = CycleState()
    assert pl.pre_score(st, pod, []).is_success()
    assert _bulk_scores(pl, st, pod, [h.snapshot.get("n3"), h.snapshot.get("n1")]) is None


def test_taint_scores_over_many_nodes_are_each_nodes_score():
    """TaintToleration's scores over many nodes at once: 0 without taints, else the node's Score
    (PreferNoSchedule taints the pod does not tolerate); no PreScore state, node by node."""
    from kwhatif.plugins import taint_toleration as tt

    rng = random.Random(11)
    tainted = 0
    for _ in range(200):
        nodes = []
        for i in range(rng.randrange(2, 12)):
            b = make_node().name(f"n{i}")
            for _ in range(rng.randrange(0, 3)):
                b.taint(rng.choice("abc"), rng.choice(["", "x"]), rng.choice(["PreferNoSchedule", "NoSchedule"]))
            nodes.append(b.obj())
        h = make_handle(nodes)
        infos = [h.snapshot.get(n.name) for n in nodes]
        p = make_pod().name("p")
        for _ in range(rng.randrange(0, 3)):
            op = rng.choice(["Exists", "Equal"])
            p.toleration(rng.choice("abc"), op, "x" if op == "Equal" else "", rng.choice(["", "PreferNoSchedule"]))
        pod = p.obj()
        pl = tt.new(None, h)
        assert _bulk_scores(pl, CycleState(), pod, infos) is None
        st = CycleState()
        assert pl.pre_score(st, pod, infos).is_success()
        got = _bulk_scores(pl, st, pod, infos)
        assert got is not None
        assert got.tolist() == [pl.score(st, pod, ni)[0] for ni in infos]
        tainted += sum(1 for s in got.tolist() if s > 0)
    assert tainted > 100
