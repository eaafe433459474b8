"""Karpenter's Balanced consolidation policy (kubernetes-sigs/karpenter v1.14.1
pkg/controllers/disruption/balanced.go): ScoreMove's cases of balanced_test.go and scenarios of
balanced_integration_test.go, each named by its Ginkgo text, on the suite's setting
(upstream_disruption.World)."""

from __future__ import annotations

import math

import pytest
from autoscaler.karpenter.upstream_disruption import LEAST_EXPENSIVE, MOST_EXPENSIVE, World, pool, shape

from kwhatif.autoscaler.karpenter.consolidation import BALANCED_K, score_move
from kwhatif.autoscaler.karpenter.nodepools import parse_nodepool

# balanced_test.go: the RFC's example pool, eight m7i.xlarge ($4.84/day) and two m7i.2xlarge
# ($9.68/day), 80 pods: a cost of 58.08 and a disruption cost of 90
TOTALS = (58.08, 90.0)


@pytest.mark.parametrize(
    ("name", "savings", "disruption", "totals", "k", "approved"),
    [
        ("should approve an oversized node consolidation", 7.26, 4.0, TOTALS, 2, True),
        ("should approve a spare capacity delete", 4.84, 5.0, TOTALS, 2, True),
        ("should reject a marginal move", 2.42, 9.0, TOTALS, 2, False),
        ("should reject a well-packed node with zero savings", 0.0, 11.0, TOTALS, 2, False),
        ("should approve a replace in a uniform pool", 2.42, 9.0, (48.40, 90.0), 2, True),
        (
            "should approve low-disruption nodes and reject high-disruption nodes (A)",
            4.84,
            5.0,
            (58.08, 117.0),
            2,
            True,
        ),
        (
            "should approve low-disruption nodes and reject high-disruption nodes (B)",
            4.84,
            32.0,
            (58.08, 117.0),
            2,
            False,
        ),
        ("should reject when nodepool cost is zero", 4.84, 5.0, (0.0, 90.0), 2, False),
        ("should reject when both savings and disruption are zero", 0.0, 0.0, TOTALS, 2, False),
        ("should reject at k=2 for a marginal move", 2.42, 9.0, TOTALS, 2, False),
        ("should approve at k=3 for the same move", 2.42, 9.0, TOTALS, 3, True),
        ("should reject at k=1 for the same move", 2.42, 9.0, TOTALS, 1, False),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_score_move(
    name: str, savings: float, disruption: float, totals: tuple[float, float], k: int, approved: bool
) -> None:
    """balanced_test.go Describe("ScoreMove")."""
    s = score_move(savings, disruption, totals[0], totals[1], k)
    assert s.approved() is approved
    if totals[0] > 0 and savings > 0:
        want = (savings / totals[0]) / (disruption / totals[1])
        assert s.score() == pytest.approx(want)
        assert s.savings_fraction == pytest.approx(savings / totals[0])
        assert s.disruption_fraction == pytest.approx(disruption / totals[1])
    else:
        assert s.score() == 0.0


def test_score_move_zero_disruption_is_infinite() -> None:
    """ "should approve with +Inf score when move disruption is zero and savings positive" and
    "should approve when move disruption is zero (division by zero guard)"."""
    s = score_move(4.84, 0.0, *TOTALS, BALANCED_K)
    assert math.isinf(s.score()) and s.approved()


def test_score_move_is_scale_invariant() -> None:
    """ "should produce the same score regardless of pool size"; and "cross-NodePool scoring
    should produce identical scores for proportionally equivalent moves"."""
    assert score_move(7.26, 4.0, *TOTALS, 2).score() == pytest.approx(score_move(7.26, 4.0, 580.80, 900.0, 2).score())
    od, spot = score_move(4.84, 4.0, 48.40, 90.0, 2), score_move(1.45, 4.0, 14.50, 90.0, 2)
    assert od.score() == pytest.approx(spot.score()) and od.approved() and spot.approved()


def test_score_message_is_the_events() -> None:
    """events.go consolidationScoreMessage (a rejection says <)."""
    assert score_move(7.26, 4.0, *TOTALS, 2).message() == (
        "score 2.81 >= threshold 0.50 (k: 2, savings 12.5%, disruption 4.4%)"
    )
    assert score_move(2.42, 9.0, *TOTALS, 2).message() == (
        "score 0.42 < threshold 0.50 (k: 2, savings 4.2%, disruption 10.0%)"
    )


BALANCED = {"consolidationPolicy": "Balanced", "budgets": [{"nodes": "100%"}], "consolidateAfter": "0s"}


def test_approves_replacing_an_oversized_node() -> None:
    """balanced_integration_test.go "Single-Node should approve replacing an oversized node": the
    dearest type running one pod of 500m; the replacement (a 1-CPU type) saves 99% of the pool's
    cost for all of its disruption."""
    w = World(pools=[pool(disruption=BALANCED)])
    w.node("node", MOST_EXPENSIVE)
    w.pod("pod", "node", cpu="500m", labels={"app": "balanced-test"})
    res = w.run()
    assert [shape(c) for c in res.commands] == [("single-node", "underutilized", "replace", ["node"])]
    claim = res.commands[0].replacement
    assert claim is not None and claim.instance_types[0].name.startswith("1-cpu-1-mem-")


def test_rejects_replacing_a_well_packed_node() -> None:
    """balanced_integration_test.go "Single-Node should reject replacing a well-packed node": the
    cheapest type running eight pods of 3.5 CPUs (the fake types take five pods at most: two
    claims would be needed)."""
    w = World(pools=[pool(disruption=BALANCED)])
    w.node("node", LEAST_EXPENSIVE)
    for i in range(8):
        w.pod(f"p{i}", "node", cpu="3500m", labels={"app": "balanced-test"})
    res = w.run()
    assert res.commands == []
    assert res.stays["node"] == "Can't remove without creating 2 candidates"


def test_scores_balanced_pools_only() -> None:
    """balanced_integration_test.go "Mixed-Policy NodePools should apply scoring to Balanced pools
    while non-Balanced pools consolidate normally": one oversized node in each pool, both go (one
    multi-node command, the Balanced pool's share of the savings approved)."""
    balanced = parse_nodepool(
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {"name": "balanced"},
            "spec": {"template": {"spec": {"requirements": []}}, "disruption": BALANCED},
        },
        "test",
    )
    w = World(pools=[balanced, pool("default")])
    w.node("balanced-node", MOST_EXPENSIVE, nodepool="balanced")
    w.node("default-node", MOST_EXPENSIVE)
    w.pod("bp", "balanced-node", cpu="500m")
    w.pod("dp", "default-node", cpu="500m")
    res = w.run()
    assert [shape(c) for c in res.commands] == [
        ("multi-node", "underutilized", "replace", ["balanced-node", "default-node"])
    ]


def _pool_with_two_held_nodes(policy: str) -> World:
    """Three nodes of the cheapest type; two held by karpenter.sh/do-not-disrupt (no candidates,
    but in the pool's totals), the third runs 20 pods that fit on the others."""
    w = World(pools=[pool(disruption={**BALANCED, "consolidationPolicy": policy})])
    for name in ("busy", "held-1", "held-2"):
        w.node(name, LEAST_EXPENSIVE)
    w.do_not_disrupt |= {"held-1", "held-2"}
    for i in range(20):
        w.pod(f"p{i}", "busy")
    return w


def test_balanced_keeps_a_node_whose_move_disrupts_too_much() -> None:
    """(kwhatif's scenario) deleting the busy node saves a third of the pool's cost for 21 of its
    23 units of disruption: a score of 0.37, under Balanced's threshold of 1/2; under
    WhenEmptyOrUnderutilized the node goes."""
    res = _pool_with_two_held_nodes("Balanced").run()
    assert res.commands == []
    assert res.stays["busy"] == (
        'NodePool "default" has consolidation policy Balanced, and even deleting the node scores too low: '
        "score 0.37 < threshold 0.50 (k: 2, savings 33.3%, disruption 91.3%)"
    )
    res = _pool_with_two_held_nodes("WhenEmptyOrUnderutilized").run()
    assert [shape(c) for c in res.commands] == [("single-node", "underutilized", "delete", ["busy"])]
