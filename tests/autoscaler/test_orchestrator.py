"""cluster-autoscaler's scale-up: cases of upstream's orchestrator tests
(core/scaleup/orchestrator/orchestrator_test.go, cluster-autoscaler-release-1.36). Upstream's
tests pick the option with a mock expander (ExpansionOptionToChoose); here the priority
expander's table names it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kwhatif.api import parse
from kwhatif.api.core import Node, Pod
from kwhatif.autoscaler import limits
from kwhatif.autoscaler.expanders import ExpanderName
from kwhatif.autoscaler.nodegroups import NodeGroup
from kwhatif.autoscaler.orchestrator import NO_GROUP, WAITS, ScaleUpOptions, scale_up
from kwhatif.autoscaler.template import build_template
from tests.autoscaler.ca_helpers import make_pod_obj, simulator

from builders import make_pod

MIB = 2**20


def node(name: str, cpu: int, mem: int, gpu: int = 0) -> Node:
    """BuildTestNode (cpu millicores, memory bytes) and AddGpusToNode."""
    res = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "110"}
    spec: dict = {}
    labels = {"kubernetes.io/hostname": name}
    if gpu:
        res["nvidia.com/gpu"] = str(gpu)
        spec["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        labels["GPULabel"] = "nvidia-tesla-k80"
    return parse.node(
        {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": {"capacity": res, "allocatable": res}}
    )


def pod(name: str, cpu: int, mem: int = 0, gpu: int = 0, on: str = "", tolerates_gpu: bool = False) -> Pod:
    """BuildTestPod, RequestGpuForPod, TolerateGpuForPod."""
    b = make_pod().name(name).req(cpu=f"{cpu}m", memory=str(mem), **({"nvidia.com/gpu": str(gpu)} if gpu else {}))
    if tolerates_gpu:
        b = b.toleration("nvidia.com/gpu", "Exists")
    if on:
        b = b.node(on)
    return make_pod_obj(b.dict())


@dataclass
class Outcome:
    chosen: list[tuple[str, int]]
    options: list[tuple[str, int]]
    triggered: list[str]
    verdicts: dict[str, str | None]
    sizes: dict[str, int]
    skipped: dict[str, str]


def run(
    nodes: list[tuple[Node, str]],
    pods: list[Pod],
    extra: list[Pod],
    *,
    choose: str | None = None,
    max_nodes_total: int = 0,
    cores: int = limits.DEFAULT_MAX_CORES,
    memory: int = limits.DEFAULT_MAX_MEMORY,
    balance: bool = False,
    sizes: dict[str, tuple[int, int]] | None = None,
    thresholds: bool = False,
) -> Outcome:
    """simpleScaleUpTest: groups of min 1, max 10 (or ``sizes``: group -> (min, max)) holding the
    nodes, the pods bound to them, ScaleUp over the extra pods."""
    sim = simulator([n for n, _ in nodes], tuple(pods))
    by_group: dict[str, list[str]] = {}
    for n, g in nodes:
        if g:
            by_group.setdefault(g, []).append(n.name)
    groups = [
        NodeGroup(g, (sizes or {}).get(g, (1, 10))[0], (sizes or {}).get(g, (1, 10))[1], tuple(ns), len(ns))
        for g, ns in by_group.items()
    ]
    state = sim.sched.cluster
    pods_on: dict[str, list[Pod]] = {}
    for p in pods:
        pods_on.setdefault(p.node_name, []).append(p)
    templates = {}
    for g in groups:
        t, _ = build_template(g, state, pods_on)
        assert t is not None
        templates[g.name] = t
    chain = (ExpanderName.PRIORITY, ExpanderName.LEAST_WASTE) if choose else (ExpanderName.LEAST_WASTE,)
    opts = ScaleUpOptions(
        expander=chain,
        max_nodes_total=max_nodes_total,
        cores_total=(0, cores),
        memory_total=(0, memory),
        balance_similar_node_groups=balance,
        priorities={100: (f"^{choose}$",)} if choose else None,
        estimator_thresholds=thresholds,
    )
    group_sizes = {g.name: g.target_size for g in groups}
    tracker = limits.Tracker.of(state.nodes.values(), opts.cores_total, opts.memory_total)
    res = scale_up(sim, extra, groups, templates, group_sizes, sim.snapshot.num_nodes, opts, tracker, {})
    best = next((o for o in res.options if o.group == (res.chosen[0].group if res.chosen else None)), None)
    return Outcome(
        [(c.group, c.node_count) for c in res.chosen],
        [(o.group, o.node_count) for o in res.options],
        [p.split("/")[1] for p in best.pods] if best else [],
        {k.split("/")[1]: v.why for k, v in res.pods.items()},
        group_sizes,
        res.skipped,
    )


def test_scale_up_ok():
    """TestScaleUpOK."""
    r = run(
        [(node("n1", 100, 100), "ng1"), (node("n2", 1000, 1000), "ng2")],
        [pod("p1", 80, on="n1"), pod("p2", 800, on="n2")],
        [pod("p-new", 500)],
        choose="ng2",
    )
    assert r.chosen == [("ng2", 1)]
    assert r.triggered == ["p-new"]


def test_scale_up_max_cores_limit_hit():
    """TestScaleUpMaxCoresLimitHit: 9 cores in all, 6 used: one more 2-core node of ng1."""
    r = run(
        [(node("n1", 2000, 100), "ng1"), (node("n2", 4000, 1000), "ng2")],
        [pod("p1", 1000, on="n1"), pod("p2", 3000, on="n2")],
        [pod("p-new-1", 2000), pod("p-new-2", 2000)],
        choose="ng1",
        cores=9,
    )
    assert ("ng1", 2) in r.options
    assert r.chosen == [("ng1", 1)]
    assert r.triggered == ["p-new-1", "p-new-2"]
    # the pod the limit leaves without a node says which limit
    assert sorted(v for v in r.verdicts.values() if v) == ["cut off by --cores-total"]


def test_scale_up_max_memory_limit_hit():
    """TestScaleUpMaxMemoryLimitHit: 1300Mi in all, 1100Mi used: two more 100Mi nodes."""
    r = run(
        [(node("n1", 2000, 100 * MIB), "ng1"), (node("n2", 4000, 1000 * MIB), "ng2")],
        [pod("p1", 1000, on="n1"), pod("p2", 3000, on="n2")],
        [pod("p-new-1", 2000, 100 * MIB), pod("p-new-2", 2000, 100 * MIB), pod("p-new-3", 2000, 100 * MIB)],
        choose="ng1",
        memory=1300 * MIB,
    )
    assert r.chosen == [("ng1", 2)]
    assert r.triggered == ["p-new-1", "p-new-2", "p-new-3"]


def test_scale_up_cap_to_max_total_nodes_limit():
    """TestScaleUpCapToMaxTotalNodesLimit: --max-nodes-total 3 with 2 nodes: one more."""
    r = run(
        [(node("n1", 2000, 100 * MIB), "ng1"), (node("n2", 4000, 1000 * MIB), "ng2")],
        [pod("p1", 1000, on="n1"), pod("p2", 3000, on="n2")],
        [pod("p-new-1", 4000, 100 * MIB), pod("p-new-2", 4000, 100 * MIB), pod("p-new-3", 4000, 100 * MIB)],
        choose="ng2",
        max_nodes_total=3,
    )
    assert r.chosen == [("ng2", 1)]
    assert r.triggered == ["p-new-1", "p-new-2", "p-new-3"]
    assert sorted(v for v in r.verdicts.values() if v) == ["cut off by --max-nodes-total"] * 2


def test_max_total_nodes_limits_the_estimate():
    """With the thresholds cluster-autoscaler runs with (core/autoscaler.go), the estimator itself
    stops at what --max-nodes-total leaves: one node for one pod; the others are cut off."""
    r = run(
        [(node("n1", 2000, 100 * MIB), "ng1"), (node("n2", 4000, 1000 * MIB), "ng2")],
        [pod("p1", 1000, on="n1"), pod("p2", 3000, on="n2")],
        [pod("p-new-1", 4000, 100 * MIB), pod("p-new-2", 4000, 100 * MIB), pod("p-new-3", 4000, 100 * MIB)],
        choose="ng2",
        max_nodes_total=3,
        thresholds=True,
    )
    assert r.options == [("ng2", 1)]
    assert r.chosen == [("ng2", 1)]
    assert r.verdicts == {
        "p-new-1": None,
        "p-new-2": "cut off by --max-nodes-total",
        "p-new-3": "cut off by --max-nodes-total",
    }


def test_will_consider_gpu_and_standard_pool_for_pod_which_does_not_require_gpu():
    """TestWillConsiderGpuAndStandardPoolForPodWhichDoesNotRequireGpu."""
    r = run(
        [(node("gpu-node-1", 2000, 1000 * MIB, 1), "gpu-pool"), (node("std-node-1", 2000, 1000 * MIB), "std-pool")],
        [
            pod("gpu-pod-1", 2000, 1000 * MIB, 1, "gpu-node-1", True),
            pod("std-pod-1", 2000, 1000 * MIB, on="std-node-1"),
        ],
        [pod("extra-std-pod", 2000, 1000 * MIB, tolerates_gpu=True)],
        choose="std-pool",
        max_nodes_total=100,
    )
    assert sorted(r.options) == [("gpu-pool", 1), ("std-pool", 1)]
    assert r.chosen == [("std-pool", 1)]
    assert r.triggered == ["extra-std-pod"]


def test_will_consider_only_gpu_pool_for_pod_which_does_requires_gpu():
    """TestWillConsiderOnlyGpuPoolForPodWhichDoesRequiresGpu."""
    r = run(
        [(node("gpu-node-1", 2000, 1000 * MIB, 1), "gpu-pool"), (node("std-node-1", 2000, 1000 * MIB), "std-pool")],
        [
            pod("gpu-pod-1", 2000, 1000 * MIB, 1, "gpu-node-1", True),
            pod("std-pod-1", 2000, 1000 * MIB, on="std-node-1"),
        ],
        [pod("extra-gpu-pod", 2000, 1000 * MIB, 1, tolerates_gpu=True)],
        choose="gpu-pool",
        max_nodes_total=100,
    )
    assert r.options == [("gpu-pool", 1)]
    assert r.chosen == [("gpu-pool", 1)]


def test_will_consider_all_pools_which_fit_two_pods_requiring_gpus():
    """TestWillConsiderAllPoolsWhichFitTwoPodsRequiringGpus."""
    r = run(
        [
            (node("gpu-1-node-1", 2000, 1000 * MIB, 1), "gpu-1-pool"),
            (node("gpu-2-node-1", 2000, 1000 * MIB, 2), "gpu-2-pool"),
            (node("gpu-4-node-1", 2000, 1000 * MIB, 4), "gpu-4-pool"),
            (node("std-node-1", 2000, 1000 * MIB), "std-pool"),
        ],
        [
            pod("gpu-pod-1", 2000, 1000 * MIB, 1, "gpu-1-node-1", True),
            pod("gpu-pod-2", 2000, 1000 * MIB, 2, "gpu-2-node-1", True),
            pod("gpu-pod-3", 2000, 1000 * MIB, 4, "gpu-4-node-1", True),
            pod("std-pod-1", 2000, 1000 * MIB, on="std-node-1"),
        ],
        [pod(f"extra-gpu-pod-{i}", 1, MIB, 1, tolerates_gpu=True) for i in (1, 2, 3)],
        choose="gpu-1-pool",
        max_nodes_total=100,
    )
    assert sorted(r.options) == [("gpu-1-pool", 3), ("gpu-2-pool", 2), ("gpu-4-pool", 1)]
    assert r.chosen == [("gpu-1-pool", 3)]
    assert r.triggered == ["extra-gpu-pod-1", "extra-gpu-pod-2", "extra-gpu-pod-3"]
    # std-pool's template refuses them, with the filter's reason
    assert r.verdicts == dict.fromkeys(r.triggered)


def test_scale_up_no_help():
    """TestScaleUpNoHelp: a 500m pod and a group of 100m nodes: no scale-up, the group's reason."""
    r = run([(node("n1", 100, 1000), "ng1")], [pod("p1", 80, on="n1")], [pod("p-new", 500)])
    assert r.chosen == [] and r.options == []
    assert r.verdicts == {"p-new": NO_GROUP}


def test_scale_up_balance_groups():
    """TestScaleUpBalanceGroups: ng1 is at its maximum; the two pods' two nodes go to the smallest
    similar groups, ng2 and ng3 (ng4 has 3 nodes already)."""
    sizes = {"ng1": (1, 1), "ng2": (1, 2), "ng3": (1, 5), "ng4": (1, 5)}
    counts = {"ng1": 1, "ng2": 1, "ng3": 1, "ng4": 3}
    nodes = [(node(f"{g}-node-{i}", 100, 1000), g) for g, n in counts.items() for i in range(n)]
    pods = [pod(f"{g}-pod-{i}", 80, on=f"{g}-node-{i}") for g, n in counts.items() for i in range(n)]
    r = run(nodes, pods, [pod(f"test-pod-{i}", 80) for i in range(2)], balance=True, sizes=sizes)
    assert r.skipped == {"ng1": "max node group size reached"}
    assert r.sizes == {"ng1": 1, "ng2": 2, "ng3": 2, "ng4": 3}
    assert sorted(r.chosen) == [("ng2", 1), ("ng3", 1)]


def test_scale_up_two_groups():
    """TestScaleUpTwoGroups: balancing similar groups, one new node each."""
    r = run(
        [(node("ng1-n1", 1500, 1000 * MIB), "ng1"), (node("ng2-n1", 1500, 1000 * MIB), "ng2")],
        [pod("p1", 1400, on="ng1-n1"), pod("p2", 1400, on="ng2-n1")],
        [pod("p3", 1400), pod("p4", 1400)],
        balance=True,
    )
    assert r.sizes == {"ng1": 2, "ng2": 2}
    assert sorted(r.triggered) == ["p3", "p4"]


def test_pods_of_other_groups_wait():
    """GetPodsAwaitingEvaluation: a pod another group could host waits for a later scale-up."""
    r = run(
        [(node("gpu-node-1", 2000, 1000 * MIB, 1), "gpu-pool"), (node("std-node-1", 2000, 1000 * MIB), "std-pool")],
        [
            pod("gpu-pod-1", 2000, 1000 * MIB, 1, "gpu-node-1", True),
            pod("std-pod-1", 2000, 1000 * MIB, on="std-node-1"),
        ],
        [pod("extra-gpu-pod", 2000, 1000 * MIB, 1, tolerates_gpu=True), pod("extra-std", 2000, 1000 * MIB)],
        choose="std-pool",
    )
    assert r.chosen == [("std-pool", 1)]
    assert r.verdicts == {"extra-gpu-pod": WAITS, "extra-std": None}


@pytest.mark.parametrize(
    ("delta", "left", "allowed", "exceeded"),
    [(1, {"cpu": 3}, 1, ()), (2, {"cpu": 3}, 1, ("cpu",)), (3, {"cpu": 8, "memory": 2 * MIB}, 2, ("memory",))],
)
def test_tracker_check(delta, left, allowed, exceeded):
    """resourcequotas Tracker.CheckDelta: the nodes the limits leave room for, and which limit."""
    t = limits.Tracker(dict(left))
    res = t.check(node("n", 2000, MIB), delta)
    assert (res.allowed, res.exceeded) == (allowed, exceeded)
    if exceeded:
        assert res.message == f'exceeded quota: "cluster-wide", resources: {", ".join(exceeded)}'


def test_tracker_consume_and_max_nodes_total():
    """ConsumeQuota takes from the limits only when the whole delta fits; GetCappedNewNodeCount."""
    t = limits.Tracker({"cpu": 6, "memory": 10 * MIB})
    n = node("n", 2000, MIB)
    assert t.consume(n, 2).allowed == 2 and t.left == {"cpu": 2, "memory": 8 * MIB}
    assert t.consume(n, 3).allowed == 1 and t.left == {"cpu": 2, "memory": 8 * MIB}  # not taken
    assert limits.capped_new_node_count(5, 8, 10) == 2
    assert limits.capped_new_node_count(5, 8, 0) == 5
    assert limits.capped_new_node_count(5, 10, 10) == 0
