"""Topology spread and pod (anti-)affinity across planned NodeClaims, with cases transcribed from
kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/topology_test.go (each
case names its It). ExpectSkew counts the scheduled pods per domain of the constraint's key."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from autoscaler.karpenter import fake
from autoscaler.karpenter.test_provisioner import ZONE, claim_of, pod, req, solve

from kwhatif.autoscaler.karpenter.provisioner import Results
from kwhatif.autoscaler.karpenter.requirements import WELL_KNOWN_LABELS

HOST = "kubernetes.io/hostname"
CT = "karpenter.sh/capacity-type"
LABELS = {"test": "test"}


def skew(res: Results, key: str) -> list[int]:
    counts: Counter[str] = Counter()
    for r in res.pods:
        if r.claim is None:
            continue
        if key == HOST:
            counts[r.claim.name] += 1
            continue
        allowed = r.claim.requirements.get(key)
        values = {
            v
            for it in r.claim.instance_types
            for o in it.offerings
            if o.available
            and r.claim.requirements.is_compatible(o.requirements, WELL_KNOWN_LABELS | fake.FAKE_WELL_KNOWN)
            for v in ((o.zone,) if key == ZONE else (o.capacity_type,))
            if allowed.has(v)
        }
        assert len(values) == 1, values
        counts[values.pop()] += 1
    return sorted(counts.values(), reverse=True)


def spread(key: str, max_skew: int = 1, **extra: Any) -> dict[str, Any]:
    return {"max_skew": max_skew, "key": key, "selector": {"matchLabels": LABELS}, **extra}


# topology_test.go's BeforeEach: the NodePool allows any capacity type
DEFAULT = [req(CT, "Exists")]

# (It, pool requirements or None for the suite's default, pool labels, constraint, pods, expected skew)
SPREAD_CASES = [
    ("Zonal: should balance pods across zones (match labels)", None, {}, spread(ZONE), 4, [2, 1, 1]),
    (
        "Zonal: should respect NodePool zonal constraints",
        [req(ZONE, "In", "test-zone-1", "test-zone-2", "test-zone-3")],
        {},
        spread(ZONE),
        4,
        [2, 1, 1],
    ),
    (
        "Zonal: should respect NodePool zonal constraints (subset) with requirements",
        [req(ZONE, "In", "test-zone-1", "test-zone-2")],
        {},
        spread(ZONE),
        4,
        [2, 2],
    ),
    (
        "Zonal: should respect NodePool zonal constraints (subset) with labels",
        None,
        {ZONE: "test-zone-1"},
        spread(ZONE),
        4,
        [4],
    ),
    (
        "Zonal: should respect NodePool zonal constraints (subset) with requirements and labels",
        [req(ZONE, "In", "test-zone-1", "test-zone-2")],
        {ZONE: "test-zone-1"},
        spread(ZONE),
        4,
        [4],
    ),
    (
        "Zonal: should respect minDomains constraints",
        [req(ZONE, "In", "test-zone-1", "test-zone-2")],
        {},
        spread(ZONE, minDomains=3),
        3,
        [1, 1],
    ),
    (
        "Zonal: satisfied minDomains constraints (equal) should allow expected pod scheduling",
        [req(ZONE, "In", "test-zone-1", "test-zone-2", "test-zone-3")],
        {},
        spread(ZONE, minDomains=3),
        11,
        [4, 4, 3],
    ),
    ("Hostname: should balance pods across nodes", None, {}, spread(HOST), 4, [1, 1, 1, 1]),
    ("Hostname: should balance pods on the same hostname up to maxskew", None, {}, spread(HOST, 4), 4, [4]),
    ("CapacityType: should balance pods across capacity types", None, {}, spread(CT), 4, [2, 2]),
    (
        "CapacityType: should respect NodePool capacity type constraints",
        [req(CT, "In", "spot", "on-demand")],
        {},
        spread(CT),
        4,
        [2, 2],
    ),
]


@pytest.mark.parametrize(("it", "reqs", "labels", "tsc", "n", "want"), SPREAD_CASES, ids=[c[0] for c in SPREAD_CASES])
def test_spread(it: str, reqs: Any, labels: dict[str, str], tsc: dict[str, Any], n: int, want: list[int]) -> None:
    pods = [pod(labels=LABELS, spread=[tsc]) for _ in range(n)]
    res = solve(pods, requirements=DEFAULT if reqs is None else reqs, labels=labels)
    assert skew(res, tsc["key"]) == want


def _term(key: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"topologyKey": key, "labelSelector": {"matchLabels": labels}}


def test_pod_affinity_hostname() -> None:
    """Pod Affinity: should respect pod affinity (hostname)."""
    aff = {"security": "s2"}
    spreaders = [pod(labels=LABELS, spread=[spread(HOST)]) for _ in range(10)]
    p1 = pod(labels=aff)
    p2 = pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(HOST, aff)]}})
    res = solve([*spreaders, p1, p2], requirements=DEFAULT)
    assert claim_of(res, p1) is not None and claim_of(res, p1) is claim_of(res, p2)


def test_pod_anti_affinity_hostname() -> None:
    """Pod Anti-Affinity: should separate nodes using simple pod anti-affinity on hostname (either order)."""
    aff = {"security": "s2"}
    for _ in range(3):
        p1 = pod(labels=aff)
        p2 = pod(affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(HOST, aff)]}})
        res = solve([p2, p1], requirements=DEFAULT)
        assert claim_of(res, p1) is not None and claim_of(res, p2) is not None
        assert claim_of(res, p1) is not claim_of(res, p2)


def test_affinity_to_a_non_existent_pod() -> None:
    """Pod Affinity: should not schedule pods with affinity to a non-existent pod."""
    aff = {"security": "s2"}
    pods = [
        pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(ZONE, aff)]}})
        for _ in range(10)
    ]
    res = solve(pods, requirements=DEFAULT)
    assert all(r.claim is None for r in res.pods)
    assert res.pods[0].error.startswith(
        "unsatisfiable topology constraint for pod affinity, key=topology.kubernetes.io/zone"
    )


def test_preferred_anti_affinity_is_relaxed() -> None:
    """Pod Anti-Affinity: should allow violation of preferred pod anti-affinity (relaxation)."""
    aff = {"security": "s2"}
    term = {"weight": 10, "podAffinityTerm": _term(ZONE, aff)}
    pods = [
        pod(labels=aff, affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [term]}})
        for _ in range(5)
    ]
    res = solve(pods, requirements=DEFAULT)
    assert all(r.claim is not None for r in res.pods)
    assert any(r.relaxed for r in res.pods)
