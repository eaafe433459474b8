"""Karpenter's provisioning scheduler, with cases transcribed from kubernetes-sigs/karpenter v1.14.1
pkg/controllers/provisioning/scheduling/suite_test.go (each case names its Describe/Context/It),
over the fake cloud provider's instance types (tests/autoscaler/karpenter/fake.py).

A scheduled pod's node is the claim it lands on; the node's instance type is the claim's cheapest
candidate (the fake cloud provider launches the cheapest), its zone the claim's only zone when the
requirements narrow it to one."""

from __future__ import annotations

from typing import Any

import pytest
from autoscaler.karpenter import fake

from kwhatif.api.core import Pod
from kwhatif.autoscaler.karpenter.instancetypes import InstanceType
from kwhatif.autoscaler.karpenter.provisioner import (
    MinValuesPolicy,
    ProvisionOptions,
    Results,
    provision,
    summarize,
)
from kwhatif.autoscaler.karpenter.requirements import WELL_KNOWN_LABELS

from builders import make_pod

ZONE = "topology.kubernetes.io/zone"
ARCH = "kubernetes.io/arch"
IT = "node.kubernetes.io/instance-type"
CT = "karpenter.sh/capacity-type"
# suite_test.go's BeforeEach: the NodePool allows every capacity type
ALL_CAPACITY = {"key": CT, "operator": "In", "values": ["spot", "on-demand", "reserved"]}


def req(key: str, op: str, *values: str, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    d.update(extra)
    return d


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]
            }
        }
    }


def preferred(*terms: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "preference": {"matchExpressions": t}} for w, t in terms
            ]
        }
    }


_n = iter(range(10**6))
DEFAULT = ProvisionOptions()


def pod(**kw: Any) -> Pod:
    """test.UnschedulablePod: no requests unless given."""
    i = next(_n)
    b = make_pod().name(f"p{i}").uid(f"uid-{i:06d}")
    if "requests" in kw:
        b = b.req(**kw["requests"])
    if "selector" in kw:
        b = b.node_selector(**kw["selector"])
    if "affinity" in kw:
        b = b.affinity(kw["affinity"])
    for t in kw.get("tolerations", ()):
        b = b.toleration(**t)
    if "labels" in kw:
        b = b.labels(**kw["labels"])
    for s in kw.get("spread", ()):
        b = b.spread(**s)
    return b.obj()


def solve(
    pods: list[Pod],
    its: list[InstanceType] | None = None,
    pools: list[dict[str, Any]] | None = None,
    options: ProvisionOptions = DEFAULT,
    **pool: Any,
) -> Results:
    if pools is None:
        pool.setdefault("requirements", [ALL_CAPACITY])
        pool.setdefault("limits", {"cpu": "2000"})
        pools = [pool]
    nps = [fake.nodepool(p.pop("name", f"pool-{i}"), **p) for i, p in enumerate(pools)]
    return provision(nps, its or fake.default_instance_types(), pods, options=options, well_known=fake.FAKE_WELL_KNOWN)


def claim_of(results: Results, p: Pod) -> Any:
    for r in results.pods:
        if r.pod is p:
            return r.claim
    raise AssertionError("pod not in results")


def zone_of(results: Results, p: Pod) -> str | None:
    c = claim_of(results, p)
    s = summarize(c, WELL_KNOWN_LABELS | fake.FAKE_WELL_KNOWN)
    return s.zones[0] if len(s.zones) == 1 else None


# (It, pool requirements (None: the default), pool labels, pod, expected zone or label or None for not scheduled)
CONSTRAINT_CASES = [
    # Custom Constraints / NodePool with Labels
    (
        "should schedule unconstrained pods that don't have matching node selectors",
        None,
        {"test-key": "test-value"},
        {},
        ("label", "test-key", "test-value"),
    ),
    (
        "should not schedule pods that have conflicting node selectors",
        None,
        {"test-key": "test-value"},
        {"selector": {"test-key": "different-value"}},
        None,
    ),
    (
        "should not schedule pods that have node selectors with undefined key",
        None,
        {},
        {"selector": {"test-key": "test-value"}},
        None,
    ),
    (
        "should schedule pods that have matching requirements",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "In", "test-value", "another-value")])},
        ("label", "test-key", "test-value"),
    ),
    (
        "should not schedule pods that have conflicting requirements",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "In", "another-value")])},
        None,
    ),
    # Custom Constraints / Well Known Labels
    ("should use NodePool constraints", [req(ZONE, "In", "test-zone-2")], {}, {}, ("zone", "test-zone-2")),
    (
        "should use node selectors",
        [req(ZONE, "In", "test-zone-1", "test-zone-2")],
        {},
        {"selector": {ZONE: "test-zone-2"}},
        ("zone", "test-zone-2"),
    ),
    (
        "should not schedule nodes with a hostname selector",
        None,
        {},
        {"selector": {"kubernetes.io/hostname": "red-node"}},
        None,
    ),
    (
        "should not schedule the pod if nodeselector unknown",
        [req(ZONE, "In", "test-zone-1")],
        {},
        {"selector": {ZONE: "unknown"}},
        None,
    ),
    (
        "should not schedule if node selector outside of NodePool constraints",
        [req(ZONE, "In", "test-zone-1")],
        {},
        {"selector": {ZONE: "test-zone-2"}},
        None,
    ),
    (
        "should schedule compatible requirements with Operator=In",
        None,
        {},
        {"affinity": required([req(ZONE, "In", "test-zone-3")])},
        ("zone", "test-zone-3"),
    ),
    (
        "should schedule compatible requirements with Operator=Gt",
        None,
        {},
        {"affinity": required([req(fake.INTEGER_INSTANCE_LABEL, "Gt", "8")])},
        ("type", "arm-instance-type"),
    ),
    (
        "should schedule compatible requirements with Operator=Lt",
        None,
        {},
        {"affinity": required([req(fake.INTEGER_INSTANCE_LABEL, "Lt", "8")])},
        ("type", "small-instance-type"),
    ),
    (
        "should not schedule incompatible preferences and requirements with Operator=In",
        None,
        {},
        {"affinity": required([req(ZONE, "In", "unknown")])},
        None,
    ),
    (
        "should schedule compatible requirements with Operator=NotIn",
        None,
        {},
        {"affinity": required([req(ZONE, "NotIn", "test-zone-1", "test-zone-2", "unknown")])},
        ("zone", "test-zone-3"),
    ),
    (
        "should not schedule incompatible preferences and requirements with Operator=NotIn",
        None,
        {},
        {"affinity": required([req(ZONE, "NotIn", "test-zone-1", "test-zone-2", "test-zone-3", "unknown")])},
        None,
    ),
    # Custom Constraints / Scheduling Logic
    (
        "should not schedule pods that have node selectors with In operator and undefined key",
        None,
        {},
        {"affinity": required([req("test-key", "In", "test-value")])},
        None,
    ),
    (
        "should schedule pods that have node selectors with NotIn operator and undefined key",
        None,
        {},
        {"affinity": required([req("test-key", "NotIn", "test-value")])},
        ("scheduled",),
    ),
    (
        "should not schedule pods that have node selectors with Exists operator and undefined key",
        None,
        {},
        {"affinity": required([req("test-key", "Exists")])},
        None,
    ),
    (
        "should schedule pods that with DoesNotExists operator and undefined key",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key-2", "DoesNotExist")])},
        ("scheduled",),
    ),
    (
        "should not schedule pods that have node selectors with matching value and NotIn operator",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "NotIn", "test-value")])},
        None,
    ),
    (
        "should schedule the pod with Exists operator and defined key",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "Exists")])},
        ("label", "test-key", "test-value"),
    ),
    (
        "should not schedule the pod with DoesNotExists operator and defined key",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "DoesNotExist")])},
        None,
    ),
    (
        "should schedule pods that have node selectors with different value and NotIn operator",
        None,
        {"test-key": "test-value"},
        {"affinity": required([req("test-key", "NotIn", "another-value")])},
        ("label", "test-key", "test-value"),
    ),
    # Preferential Fallback
    (
        "Required: should not relax the final term",
        [req(ZONE, "In", "test-zone-1"), req(IT, "In", "default-instance-type")],
        {},
        {"affinity": required([req(ZONE, "In", "invalid")])},
        None,
    ),
    (
        "Required: should relax multiple terms",
        None,
        {},
        {
            "affinity": required(
                [req(ZONE, "In", "invalid")],
                [req(ZONE, "In", "invalid")],
                [req(ZONE, "In", "test-zone-1")],
                [req(ZONE, "In", "test-zone-2")],
            )
        },
        ("zone", "test-zone-1"),
    ),
    (
        "Preferred: should relax all terms",
        None,
        {},
        {"affinity": preferred((1, [req(ZONE, "In", "invalid")]), (1, [req(IT, "In", "invalid")]))},
        ("scheduled",),
    ),
    (
        "Preferred: should relax to use lighter weights",
        [req(ZONE, "In", "test-zone-1", "test-zone-2")],
        {},
        {
            "affinity": preferred(
                (100, [req(IT, "In", "test-zone-3")]),
                (50, [req(ZONE, "In", "test-zone-2")]),
                (1, [req(ZONE, "In", "test-zone-1")]),
            )
        },
        ("zone", "test-zone-2"),
    ),
    (
        "Preferred: should schedule even if preference is conflicting with requirement",
        None,
        {},
        {
            "affinity": {
                "nodeAffinity": {
                    **preferred((1, [req(ZONE, "NotIn", "test-zone-3")]))["nodeAffinity"],
                    **required([req(ZONE, "In", "test-zone-3")])["nodeAffinity"],
                }
            }
        },
        ("zone", "test-zone-3"),
    ),
    (
        "Preferred: should schedule even if preference requirements are conflicting",
        None,
        {},
        {"affinity": preferred((1, [req(ZONE, "In", "invalid"), req(ZONE, "NotIn", "invalid")]))},
        ("scheduled",),
    ),
    # Instance Type Compatibility
    (
        "should not schedule if requesting more resources than any instance type has",
        None,
        {},
        {"requests": {"cpu": "512"}},
        None,
    ),
    (
        "should exclude instance types that are not supported by the pod constraints (node affinity/instance type)",
        [req(ARCH, "In", "amd64")],
        {},
        {"affinity": required([req(IT, "In", "arm-instance-type")])},
        None,
    ),
    (
        "should exclude instance types that are not supported by the provider constraints (arch)",
        [req(ARCH, "In", "arm64")],
        {},
        {"requests": {"cpu": "2"}},
        ("type", "arm-instance-type"),
    ),
    # Binpacking
    (
        "should schedule a small pod on the smallest instance",
        None,
        {},
        {"requests": {"memory": "100M"}},
        ("type", "small-instance-type"),
    ),
    (
        "should schedule a small pod on the smallest possible instance type",
        None,
        {},
        {"requests": {"memory": "2000M"}},
        ("type", "small-instance-type"),
    ),
]


@pytest.mark.parametrize(
    ("it", "reqs", "labels", "spec", "want"), CONSTRAINT_CASES, ids=[c[0] for c in CONSTRAINT_CASES]
)
def test_constraints(it: str, reqs: Any, labels: dict[str, str], spec: dict[str, Any], want: Any) -> None:
    p = pod(**spec)
    res = solve([p], requirements=[ALL_CAPACITY] if reqs is None else reqs, labels=labels)
    claim = claim_of(res, p)
    if want is None:
        assert claim is None
        assert res.pods[0].error
        return
    assert claim is not None, res.pods[0].error
    if want[0] == "zone":
        assert zone_of(res, p) == want[1]
    elif want[0] == "label":
        s = summarize(claim, WELL_KNOWN_LABELS | fake.FAKE_WELL_KNOWN)
        assert dict(s.labels)[want[1]] == want[2]
    elif want[0] == "type":
        assert claim.instance_types[0].name == want[1]


def test_different_archs_on_different_instances() -> None:
    """Instance Type Compatibility: should launch pods with different archs on different instances."""
    pods = [pod(selector={ARCH: "amd64"}), pod(selector={ARCH: "arm64"})]
    res = solve(pods, requirements=[req(ARCH, "In", "arm64", "amd64")])
    claims = {claim_of(res, p).name for p in pods}
    assert len(claims) == 2


def test_filter_instance_types_that_match_labels() -> None:
    """Provider Specific Labels: should filter instance types that match labels."""
    pods = [pod(selector={fake.LABEL_INSTANCE_SIZE: "large"}), pod(selector={fake.LABEL_INSTANCE_SIZE: "small"})]
    res = solve(pods, fake.instance_types(5))
    assert claim_of(res, pods[0]).instance_types[0].name == "fake-it-4"
    assert claim_of(res, pods[1]).instance_types[0].name == "fake-it-0"


def test_not_schedule_with_incompatible_labels() -> None:
    """Provider Specific Labels: should not schedule with incompatible labels."""
    its = fake.instance_types(5)
    pods = [
        pod(selector={fake.LABEL_INSTANCE_SIZE: "large", IT: its[0].name}),
        pod(selector={fake.LABEL_INSTANCE_SIZE: "small", IT: its[4].name}),
    ]
    res = solve(pods, its)
    assert claim_of(res, pods[0]) is None and claim_of(res, pods[1]) is None


def test_optional_labels() -> None:
    """Provider Specific Labels: should schedule optional labels / without optional labels if disallowed."""
    its = fake.instance_types(5)
    p = pod(affinity=required([req(fake.EXOTIC_INSTANCE_LABEL, "Exists")]))
    assert claim_of(solve([p], its), p).instance_types[0].name == "fake-it-4"
    q = pod(affinity=required([req(fake.EXOTIC_INSTANCE_LABEL, "DoesNotExist")]))
    res = solve([q], its, requirements=[])
    assert claim_of(res, q).instance_types[0].name == "fake-it-0"


def test_multiple_small_pods_one_node() -> None:
    """Binpacking: should schedule multiple small pods on the smallest possible instance type."""
    pods = [pod(requests={"memory": "10M"}) for _ in range(5)]
    res = solve(pods)
    assert len(res.claims) == 1
    assert res.claims[0].instance_types[0].name == "small-instance-type"


def test_new_nodes_when_at_capacity() -> None:
    """Binpacking: should create new nodes when a node is at capacity (40 pods of 1.8G: 20 nodes)."""
    pods = [pod(selector={ARCH: "amd64"}, requests={"memory": "1.8G"}) for _ in range(40)]
    res = solve(pods)
    assert len(res.claims) == 20
    assert {c.instance_types[0].name for c in res.claims} == {"default-instance-type"}
    assert all(len(c.pods) == 2 for c in res.claims)


def test_error_messages_in_karpenters_words() -> None:
    p = pod(requests={"cpu": "512"})
    res = solve([p])
    assert res.pods[0].error == (
        "no instance type has enough resources, requirements=karpenter.sh/capacity-type In [on-demand reserved spot], "
        "karpenter.sh/initialized In [true], karpenter.sh/nodepool In [pool-0], karpenter.sh/registered In [true], "
        'karpenter.test.sh/testnodeclass In [default], resources={"cpu":"512","pods":"1"}'
    )
    q = pod(selector={"test-key": "test-value"})
    assert solve([q]).pods[0].error == 'incompatible requirements, label "test-key" does not have known values'


def test_taints_and_weights() -> None:
    """The heaviest NodePool that accepts a pod takes it; a tainted pool only tolerating pods."""
    pools = [
        {"name": "light", "weight": 1, "requirements": [ALL_CAPACITY]},
        {
            "name": "heavy",
            "weight": 90,
            "requirements": [ALL_CAPACITY],
            "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
        },
    ]
    plain, tolerant = (
        pod(),
        pod(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]),
    )
    res = solve([tolerant], pools=[dict(p) for p in pools])
    assert claim_of(res, tolerant).template.pool.name == "heavy"
    # together: the plain pod (first in queue order) opens a claim of "light", and the tolerant
    # one joins that planned claim before any new one is considered
    res = solve([plain, tolerant], pools=[dict(p) for p in pools])
    assert claim_of(res, plain).template.pool.name == "light"
    assert claim_of(res, tolerant) is claim_of(res, plain)


def test_limits() -> None:
    """Karpenter launches while the pool's limits allow the largest candidate; then it refuses."""
    pods = [pod(requests={"cpu": "3"}) for _ in range(3)]
    res = solve(pods, fake.instance_types(4), requirements=[ALL_CAPACITY], limits={"cpu": "8"})
    placed = [r for r in res.pods if r.claim is not None]
    assert len(placed) == 2
    refused = [r for r in res.pods if r.claim is None]
    assert refused[0].error == "all available instance types exceed limits for nodepool (NodePool=pool-0)"
    res = solve([pod()], requirements=[ALL_CAPACITY], limits={"nodes": "0"})
    assert res.pods[0].error == "node limits have been exhausted for nodepool (NodePool=pool-0)"


def test_min_values() -> None:
    """minValues: a claim keeps at least that many instance types; Strict refuses when too few remain,
    BestEffort relaxes the minimum."""
    its = fake.instance_types(5)
    reqs = [ALL_CAPACITY, req(IT, "In", *[it.name for it in its], minValues=3)]
    p = pod(requests={"cpu": "2500m"})
    res = solve([p], its, requirements=reqs)
    assert [it.name for it in claim_of(res, p).instance_types] == ["fake-it-2", "fake-it-3", "fake-it-4"]
    q = pod(requests={"cpu": "3500m"})
    res = solve([q], its, requirements=reqs)
    assert claim_of(res, q) is None
    assert res.pods[0].error.startswith(
        "minValues requirement is not met for label(s) (label(s)=[node.kubernetes.io/instance-type]), requirements="
    )
    res = solve([q], its, requirements=reqs, options=ProvisionOptions(min_values_policy=MinValuesPolicy.BEST_EFFORT))
    c = claim_of(res, q)
    assert c is not None and c.min_values_relaxed
    assert [it.name for it in c.instance_types] == ["fake-it-3", "fake-it-4"]


def test_topology_spread_zones() -> None:
    """Topology: zonal spread with maxSkew 1 balances new claims over the pool's zones."""
    labels = {"app": "web"}
    spread = [{"max_skew": 1, "key": ZONE, "selector": {"matchLabels": labels}}]
    pods = [pod(labels=labels, spread=spread, requests={"cpu": "3"}) for _ in range(6)]
    res = solve(pods)
    zones = sorted(zone_of(res, p) or "" for p in pods)
    assert zones == ["test-zone-1", "test-zone-1", "test-zone-2", "test-zone-2", "test-zone-3", "test-zone-3"]


def test_hostname_anti_affinity() -> None:
    """Topology: required pod anti-affinity on the hostname puts each pod on its own claim."""
    labels = {"app": "db"}
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": labels}}
            ]
        }
    }
    pods = [pod(labels=labels, affinity=anti) for _ in range(3)]
    res = solve(pods)
    assert len(res.claims) == 3


def test_daemonset_overhead() -> None:
    """DaemonSet overhead counts on every new claim: a 1.5 CPU DaemonSet leaves small types out."""
    ds = make_pod().name("ds").uid("ds").req(cpu="1500m").owner("DaemonSet", "agent").obj()
    p = pod(requests={"cpu": "1"})
    nps = [fake.nodepool("default", requirements=[ALL_CAPACITY])]
    res = provision(nps, fake.default_instance_types(), [p], daemonsets=[ds], well_known=fake.FAKE_WELL_KNOWN)
    c = res.claims[0]
    assert "small-instance-type" not in [it.name for it in c.instance_types]
    assert c.daemon_overhead["cpu"] == 1500  # thousandths


def _node(name: str, cpu: str, requested: str = "0", **kw: Any) -> Any:
    from kwhatif.autoscaler.karpenter.provisioner import NodeInput

    labels = {"kubernetes.io/hostname": name, ZONE: "test-zone-1", "karpenter.sh/nodepool": "default"}
    return NodeInput(
        name=name,
        labels=labels,
        taints=(),
        allocatable={"cpu": int(float(cpu) * 1000), "memory": 8 << 40, "pods": 110_000},
        requested={"cpu": int(float(requested) * 1000)},
        daemon_requested={},
        host_ports=frozenset(),
        nodepool="default",
        **kw,
    )


def test_existing_and_in_flight_nodes_first() -> None:
    """scheduler.go add: existing nodes (initialized first, then by name), then in-flight ones,
    before any new NodeClaim; a full node is passed over."""
    nps = [fake.nodepool("default", requirements=[ALL_CAPACITY])]
    nodes = [
        _node("b-full", "4", "3.9"),
        _node("z-ready", "4", "1"),
        _node("a-launching", "4", in_flight=True, initialized=False),
    ]
    p1, p2, p3 = pod(requests={"cpu": "2"}), pod(requests={"cpu": "2"}), pod(requests={"cpu": "2"})
    res = provision(nps, fake.default_instance_types(), [p1, p2, p3], nodes=nodes, well_known=fake.FAKE_WELL_KNOWN)
    where = [(r.node, r.in_flight, r.claim is not None) for r in res.pods]
    assert where == [("z-ready", False, False), ("a-launching", True, False), ("a-launching", True, False)]
    assert res.claims == []


def test_pool_limits_count_existing_nodes() -> None:
    """updateRemainingResources and filterByRemainingResources: the pool's existing nodes use up its
    limits first; only types whose capacity fits what is left may launch."""
    nps = [fake.nodepool("default", requirements=[ALL_CAPACITY], limits={"cpu": "10"})]
    nodes = [_node("n1", "4", "4", capacity={"cpu": 8000})]
    its = fake.default_instance_types()
    res = provision(nps, its, [pod(requests={"cpu": "1"})], nodes=nodes, well_known=fake.FAKE_WELL_KNOWN)
    claim = res.pods[0].claim
    assert claim is not None and [it.name for it in claim.instance_types] == ["small-instance-type"]
    nps = [fake.nodepool("default", requirements=[ALL_CAPACITY], limits={"cpu": "8"})]
    res = provision(nps, its, [pod(requests={"cpu": "1"})], nodes=nodes, well_known=fake.FAKE_WELL_KNOWN)
    assert res.pods[0].error == "all available instance types exceed limits for nodepool (NodePool=default)"


def _ds(name: str, cpu: str, memory: str, **kw: Any) -> Pod:
    b = make_pod().name(name).uid(name).req(cpu=cpu, memory=memory).owner("DaemonSet", name)
    if "host_port" in kw:
        b = b.host_port(kw["host_port"])
    if "selector" in kw:
        b = b.node_selector(**kw["selector"])
    return b.obj()


def _solve_with_daemonsets(daemonsets: list[Pod], p: Pod, **pool: Any) -> Results:
    """pkg/controllers/provisioning/suite_test.go's Daemonsets context: test.NodePool() (no
    requirements) over the fake cloud provider's default types."""
    nps = [fake.nodepool("default", **pool)]
    return provision(nps, fake.default_instance_types(), [p], daemonsets=daemonsets, well_known=fake.FAKE_WELL_KNOWN)


def _capacity(res: Results) -> tuple[int, int]:
    it = res.pods[0].claim.instance_types[0]
    return it.capacity["cpu"] // 1000, it.capacity["memory"] // 1000 // (1 << 30)


def test_daemonsets_are_accounted_for() -> None:
    """Daemonsets: should account for daemonsets (a 4 CPU, 4Gi type, not the 2Gi one)."""
    res = _solve_with_daemonsets([_ds("ds", "2", "2Gi")], pod(requests={"cpu": "1", "memory": "1Gi"}))
    assert _capacity(res) == (4, 4)


def test_daemonset_hostports() -> None:
    """Daemonsets: should account for daemonset hostports (the pod's port is the DaemonSet's)."""
    p = make_pod().name("hp").uid("hp").req(cpu="1", memory="1Gi").host_port(8080).obj()
    res = _solve_with_daemonsets([_ds("ds", "2", "2Gi", host_port=8080)], p)
    assert res.pods[0].claim is None


def test_daemonset_overhead_too_large() -> None:
    """Daemonsets: should not schedule if daemonset overhead is too large."""
    res = _solve_with_daemonsets([_ds("ds", "10000", "10000Gi")], pod())
    assert res.pods[0].claim is None
    assert res.pods[0].error.startswith("no instance type has enough resources, ")
    assert res.pods[0].error.endswith('resources={"cpu":"10k","memory":"10000Gi","pods":"2"}')


def test_daemonsets_without_matching_tolerations_are_ignored() -> None:
    """Daemonsets: should ignore daemonsets without matching tolerations."""
    p = pod(requests={"cpu": "1", "memory": "1Gi"}, tolerations=[{"operator": "Exists"}])
    res = _solve_with_daemonsets(
        [_ds("ds", "2", "2Gi")], p, taints=[{"key": "foo", "value": "bar", "effect": "NoSchedule"}]
    )
    assert _capacity(res) == (2, 2)


def test_daemonsets_with_an_unmatched_selector_are_ignored() -> None:
    """Daemonsets: should ignore daemonsets with an invalid selector."""
    res = _solve_with_daemonsets(
        [_ds("ds", "2", "2Gi", selector={"node": "invalid"})], pod(requests={"cpu": "1", "memory": "1Gi"})
    )
    assert _capacity(res) == (2, 2)
