"""The BinpackingNodeEstimator: cases of upstream's TestBinpackingEstimate
(estimator/binpacking_estimator_test.go, cluster-autoscaler-release-1.36)."""

from __future__ import annotations

import pytest

from kwhatif.autoscaler.estimator import EstimationContext, Limiter, estimate, node_limit, order
from tests.autoscaler.ca_helpers import ca_node, ca_pod, copies, simulator, template

HIGH = ca_pod("estimatee-high", 500, 1000, app="estimatee")

CASES = [
    # name, template millicores, memory MiB, maxNodes, groups [(pod, count)], nodes, pods
    (
        "simple resource-based binpacking",
        350 * 3 - 50,
        2 * 1000,
        0,
        [(ca_pod("estimatee", 350, 1000, app="estimatee"), 10)],
        5,
        10,
    ),
    ("pods-per-node bound binpacking", 10000, 20000, 0, [(ca_pod("estimatee", 10, 100, app="estimatee"), 20)], 2, 20),
    (
        "hostport conflict forces pod-per-node",
        1000,
        5000,
        0,
        [(ca_pod("estimatee", 200, 1000, host_port=5555, app="estimatee"), 8)],
        8,
        8,
    ),
    ("limiter cuts binpacking", 1000, 5000, 5, [(ca_pod("estimatee", 500, 1000, app="estimatee"), 20)], 5, 10),
    (
        "decreasing ordered pods are processed first",
        1000,
        5000,
        5,
        [(ca_pod("estimatee", 50, 1000, app="estimatee"), 10), (HIGH, 10)],
        5,
        10,
    ),
    (
        "hostname topology spreading with maxSkew=2 forces 2 pods/node",
        1000,
        5000,
        0,
        [(ca_pod("estimatee", 200, 200, spread=(2, "kubernetes.io/hostname", 1), app="estimatee"), 8)],
        4,
        8,
    ),
    (
        "zonal topology spreading with maxSkew=2 only allows 2 pods to schedule",
        1000,
        5000,
        0,
        [(ca_pod("estimatee", 20, 100, spread=(2, "topology.kubernetes.io/zone", 1), app="estimatee"), 8)],
        1,
        2,
    ),
    (
        "hostname topology spreading with maxSkew=1 with a large scaleup handles scheduling pods retroactively",
        1000,
        5000,
        0,
        [(ca_pod("estimatee", 20, 100, spread=(1, "kubernetes.io/hostname", 3), app="estimatee"), 12)],
        3,
        12,
    ),
]


@pytest.mark.parametrize(
    ("name", "cpu", "mem", "max_nodes", "groups", "want_nodes", "want_pods"), CASES, ids=[c[0] for c in CASES]
)
def test_binpacking_estimate(name, cpu, mem, max_nodes, groups, want_nodes, want_pods):
    # upstream adds one node in another zone, to trigger topology spread constraints
    sim = simulator([ca_node("oldnode", 100, 100, 10, "zone-jupiter")])
    pod_groups = []
    for k, (d, n) in enumerate(groups):
        d = dict(d, metadata={**d["metadata"], "name": f"{d['metadata']['name']}-{k}"})
        pod_groups.append(copies(d, n))
    tmpl = template(ca_node("template", cpu, mem, 10, "zone-mars"))
    ctx = EstimationContext(0, None, 1, max_nodes)
    est = estimate(sim, pod_groups, tmpl, ctx, "template-e")
    assert est.node_count == want_nodes
    assert len(est.scheduled) == want_pods
    if name.startswith("decreasing"):
        assert [p.name for p in est.scheduled] == [p.name for p in pod_groups[1]]  # expectProcessedPods
    # the fork is reverted: the snapshot is as before
    assert [ni.name for ni in sim.snapshot.node_infos] == ["oldnode"]
    assert not list(sim.snapshot.pods())


def test_decreasing_pod_orderer():
    """TestPodsSortedByDecreasingResources: the bigger share of the template's cpu and memory first."""
    tmpl = template(ca_node("template", 10, 100))
    small = copies(ca_pod("small", 1, 10 * 2**20), 1)
    big = copies(ca_pod("big", 10, 100 * 2**20), 1)
    mid = copies(ca_pod("mid", 5, 50 * 2**20), 1)
    assert [g[0].name for g in order([small, big, mid], tmpl)] == ["big-0", "mid-0", "small-0"]


@pytest.mark.parametrize(
    ("ctx", "want"),
    [
        # thresholds combine as getMinLimit: the smallest positive, -1 (none) wins, 0 is no limit
        (EstimationContext(0, None, 3, 0), 0),
        (EstimationContext(0, None, 3, 1000), 1000),
        (EstimationContext(0, 7, 3, 1000), 7),
        (EstimationContext(0, 0, 3, 1000), -1),  # sngCapacityThreshold: no room in any group
        (EstimationContext(5, 7, 3, 1000), 2),  # clusterCapacityThreshold: 5 - 3
        (EstimationContext(3, 7, 3, 1000), -1),
    ],
)
def test_node_limit(ctx, want):
    assert node_limit(ctx) == want


def test_limiter_permission():
    """thresholdBasedEstimationLimiter.PermissionToAddNode (TestThresholdBasedLimiter)."""
    lim = Limiter(2)
    assert [lim.permission_to_add_node() for _ in range(3)] == [True, True, False]
    assert not Limiter(-1).permission_to_add_node()
    unlimited = Limiter(0)
    assert all(unlimited.permission_to_add_node() for _ in range(50))
