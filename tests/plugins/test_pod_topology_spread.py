"""PodTopologySpread: filter reasons, skew with minDomains and inclusion policies, the PreFilter
extensions, scores with topology weights, default constraints and args validation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.api.core import Node, Pod, Service
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.errors import ConfigError
from kwhatif.framework.handle import Handle
from kwhatif.framework.interface import Code, CycleState, NodeScore
from kwhatif.plugins import pod_topology_spread as pts

from builders import make_handle, make_node, make_pod, plugin_args

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
WEB = {"matchLabels": {"app": "web"}}

NOT_MATCH = (Code.UNSCHEDULABLE, (pts.ERR_REASON_CONSTRAINTS_NOT_MATCH,))
MISSING_LABEL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (pts.ERR_REASON_NODE_LABEL_NOT_MATCH,))
OK = (Code.SUCCESS, ())


def node(name: str, zone: str | None = None, **labels: str) -> Any:
    b = make_node().name(name)
    if zone is not None:
        b.label(ZONE, zone)
    return b.labels(**labels)


def web(name: str, on: str, ns: str = "default", **labels: str) -> Any:
    return make_pod().name(name).namespace(ns).node(on).label("app", "web").labels(**labels)


def handle_for(
    nodes: list[Node],
    pods: Sequence[Pod] = (),
    services: tuple[Service, ...] = (),
    workloads: tuple[Workload, ...] = (),
) -> Handle:
    cluster = ClusterState()
    cluster.services = list(services)
    cluster.workloads = {w.key: w for w in workloads}
    h: Handle = make_handle(nodes, pods, cluster)
    return h


# Two zones of two nodes and a node without a zone label.
BASE_NODES = [node("a1", "a"), node("a2", "a"), node("b1", "b"), node("b2", "b"), node("x1")]


def filter_all(
    pod: Pod, nodes: list[Node], pods: list[Pod], args: dict[str, Any] | None = None
) -> dict[str, tuple[Code, tuple[str, ...]]] | str:
    h = handle_for(nodes, pods)
    pl = pts.new(plugin_args(pts.NAME, args), h)
    st = CycleState()
    _, status = pl.pre_filter(st, pod)
    if status.is_skip():
        return "skip"
    assert status.is_success()
    out = {}
    for ni in h.snapshot.node_infos:
        s = pl.filter(st, pod, ni)
        out[ni.name] = (s.code, s.reasons)
    return out


FILTER_CASES: list[tuple[str, Any, list[Any], list[Any], Any]] = [
    ("no-constraints", make_pod().name("p").label("app", "web"), BASE_NODES, [], "skip"),
    (
        "only-schedule-anyway",
        make_pod().name("p").label("app", "web").spread(1, ZONE, "ScheduleAnyway", WEB),
        BASE_NODES,
        [],
        "skip",
    ),
    (
        "zone-skew",
        # zone a holds 2 matching pods, zone b none: 2 + 1 - 0 > 1 in zone a
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB),
        BASE_NODES,
        [web("e1", "a1"), web("e2", "a2")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "b2": OK, "x1": MISSING_LABEL},
    ),
    (
        "self-match-counts",
        # 1 + 1 - 0 > 1 only because the incoming pod matches its own selector
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB),
        BASE_NODES,
        [web("e1", "a1")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "b2": OK, "x1": MISSING_LABEL},
    ),
    (
        "no-self-match",
        make_pod().name("p").label("app", "db").spread(1, ZONE, selector=WEB),
        BASE_NODES,
        [web("e1", "a1")],
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK, "x1": MISSING_LABEL},
    ),
    (
        "max-skew-2",
        make_pod().name("p").label("app", "web").spread(2, ZONE, selector=WEB),
        BASE_NODES,
        [web("e1", "a1")],
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK, "x1": MISSING_LABEL},
    ),
    (
        "other-namespace-and-terminating-not-counted",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB),
        BASE_NODES,
        [web("e1", "a1", ns="other"), web("e2", "a2").terminating(), web("e3", "b1")],
        {"a1": OK, "a2": OK, "b1": NOT_MATCH, "b2": NOT_MATCH, "x1": MISSING_LABEL},
    ),
    (
        "empty-selector-counts-nothing",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector={}),
        BASE_NODES,
        [web("e1", "a1"), web("e2", "a2")],
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK, "x1": MISSING_LABEL},
    ),
    (
        "hostname-then-zone",
        # hostname passes on a2 (0 + 1 - 0), zone fails there (2 + 1 - 0)
        make_pod().name("p").label("app", "web").spread(1, HOST, selector=WEB).spread(1, ZONE, selector=WEB),
        BASE_NODES[:4],
        [web("e1", "a1"), web("e2", "a1")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "b2": OK},
    ),
    (
        "min-domains-unset",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB),
        BASE_NODES[:4],
        [web("e1", "a1"), web("e2", "b1")],
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK},
    ),
    (
        "min-domains-not-reached",
        # only 2 zones < minDomains 3: the global minimum is taken as 0, so 1 + 1 - 0 > 1
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB, minDomains=3),
        BASE_NODES[:4],
        [web("e1", "a1"), web("e2", "b1")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": NOT_MATCH, "b2": NOT_MATCH},
    ),
    (
        "min-domains-reached",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB, minDomains=2),
        BASE_NODES[:4],
        [web("e1", "a1"), web("e2", "b1")],
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK},
    ),
    (
        "match-label-keys",
        # only version=v2 pods count: zone a 0, zone b 1
        make_pod().name("p").labels(app="web", version="v2").spread(1, ZONE, selector=WEB, matchLabelKeys=["version"]),
        BASE_NODES[:4],
        [web("e1", "a1", version="v1"), web("e2", "a2", version="v1"), web("e3", "b1", version="v2")],
        {"a1": OK, "a2": OK, "b1": NOT_MATCH, "b2": NOT_MATCH},
    ),
    (
        "without-match-label-keys",
        make_pod().name("p").labels(app="web", version="v2").spread(1, ZONE, selector=WEB),
        BASE_NODES[:4],
        [web("e1", "a1", version="v1"), web("e2", "a2", version="v1"), web("e3", "b1", version="v2")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "b2": OK},
    ),
    (
        "match-label-key-absent-on-pod",
        make_pod().name("p").labels(app="web").spread(1, ZONE, selector=WEB, matchLabelKeys=["version"]),
        BASE_NODES[:4],
        [web("e1", "a1", version="v1"), web("e2", "a2", version="v1"), web("e3", "b1", version="v2")],
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "b2": OK},
    ),
]

# Zone c is outside the pod's node selector and tainted: whether it is a domain (with 0 pods)
# decides the global minimum.
POLICY_NODES = [
    node("a1", "a", pool="main"),
    node("a2", "a", pool="main"),
    node("b1", "b", pool="main"),
    make_node().name("c1").label(ZONE, "c").label("pool", "other").taint("dedicated", "x"),
]
POLICY_PODS = [web("e1", "a1"), web("e2", "a2"), web("e3", "b1")]


def policy_pod(**extra: str) -> Any:
    return make_pod().name("p").label("app", "web").node_selector(pool="main").spread(1, ZONE, selector=WEB, **extra)


FILTER_CASES += [
    (
        "affinity-honor-by-default",
        policy_pod(),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "c1": OK},
    ),
    (
        "affinity-ignore",
        policy_pod(nodeAffinityPolicy="Ignore"),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": NOT_MATCH, "c1": OK},
    ),
    (
        # the second term's value is not a valid label value: the scheduler's parsing rejects the
        # term, so zone c (which it would otherwise admit) is no domain and the minimum stays 1
        "affinity-honor-unparsable-term",
        make_pod()
        .name("p")
        .label("app", "web")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["main"]}]},
                            {
                                "matchExpressions": [
                                    {"key": "pool", "operator": "NotIn", "values": ["invalid value: ___@#$%^"]}
                                ]
                            },
                        ]
                    }
                }
            }
        )
        .spread(1, ZONE, selector=WEB),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "c1": OK},
    ),
    (
        "taints-ignore-by-default",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": NOT_MATCH, "c1": OK},
    ),
    (
        "taints-honor",
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB, nodeTaintsPolicy="Honor"),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "c1": OK},
    ),
    (
        "taints-honor-tolerated",
        make_pod()
        .name("p")
        .label("app", "web")
        .toleration("dedicated", "Exists")
        .spread(1, ZONE, selector=WEB, nodeTaintsPolicy="Honor"),
        POLICY_NODES,
        POLICY_PODS,
        {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": NOT_MATCH, "c1": OK},
    ),
    (
        "no-eligible-domain-skips-constraint",
        # every node with the key is tainted and excluded: upstream finds no domain count for
        # the key and does not check the constraint
        make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB, nodeTaintsPolicy="Honor"),
        [make_node().name("t1").label(ZONE, "a").taint("k"), make_node().name("t2").label(ZONE, "b").taint("k")],
        [web("e1", "t1"), web("e2", "t1")],
        {"t1": OK, "t2": OK},
    ),
]


@pytest.mark.parametrize("pod,nodes,pods,expected", [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES])
def test_filter(pod: Any, nodes: list[Any], pods: list[Any], expected: Any) -> None:
    got = filter_all(pod.obj(), [n.obj() for n in nodes], [p.obj() for p in pods])
    assert got == expected


def test_filter_without_pre_filter_state_is_an_error() -> None:
    h = handle_for([node("a1", "a").obj()])
    pl = pts.new(plugin_args(pts.NAME), h)
    st = pl.filter(CycleState(), make_pod().name("p").obj(), h.snapshot.node_infos[0])
    assert st.code is Code.ERROR
    assert st.reasons == ('reading "PreFilterPodTopologySpread" from cycleState: not found',)


# --- PreFilter extensions --------------------------------------------------------------------


def test_add_and_remove_pod_update_a_clone() -> None:
    nodes = [n.obj() for n in BASE_NODES[:4]]
    pods = [web("e1", "a1").obj()]
    h = handle_for(nodes, pods)
    pl = pts.new(plugin_args(pts.NAME), h)
    pod = make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB).obj()
    st = CycleState()
    pl.pre_filter(st, pod)
    b1 = h.snapshot.get("b1")
    a1 = h.snapshot.get("a1")
    assert b1 is not None and a1 is not None
    assert pl.filter(st, pod, b1).is_success()
    assert pl.filter(st, pod, a1).code is Code.UNSCHEDULABLE

    # a nominated pod on b1: zone b now holds one, like zone a
    added = st.clone()
    ext = pl.pre_filter_extensions()
    info = b1.clone()
    to_add = info.add_pod(web("n1", "b1").obj())
    assert ext.add_pod(added, pod, to_add, info).is_success()
    assert pl.filter(added, pod, info).is_success()  # 1 + 1 - 1
    assert pl.filter(added, pod, a1).is_success()
    # the original state is untouched
    assert pl.filter(st, pod, a1).code is Code.UNSCHEDULABLE

    # preemption removes the pod on a1: both zones at 0 again
    removed = st.clone()
    victim = a1.pods[0]
    assert ext.remove_pod(removed, pod, victim, a1).is_success()
    assert pl.filter(removed, pod, a1).is_success()
    assert pl.filter(st, pod, a1).code is Code.UNSCHEDULABLE


def test_add_pod_of_other_namespace_or_not_matching_is_ignored() -> None:
    nodes = [n.obj() for n in BASE_NODES[:4]]
    h = handle_for(nodes, [web("e1", "a1").obj()])
    pl = pts.new(plugin_args(pts.NAME), h)
    pod = make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB).obj()
    st = CycleState()
    pl.pre_filter(st, pod)
    ext = pl.pre_filter_extensions()
    b1 = h.snapshot.get("b1")
    assert b1 is not None
    for other in (web("o1", "b1", ns="other"), make_pod().name("o2").node("b1").label("app", "db")):
        info = b1.clone()
        assert ext.add_pod(st, pod, info.add_pod(other.obj()), info).is_success()
    s = st.read(pts.PRE_FILTER_STATE_KEY)
    assert s.match_num == {(ZONE, "a"): 1, (ZONE, "b"): 0}
    assert s.critical_paths[ZONE].nums[0] == 0


def test_critical_paths_keep_the_minimum() -> None:
    p = pts.CriticalPaths()
    for value, num in (("a", 3), ("b", 1), ("c", 2)):
        p.update(value, num)
    assert (p.values, p.nums) == (["b", "c"], [1, 2])
    p.update("b", 4)  # the minimum grows past the second
    assert (p.values[0], p.nums[0]) == ("c", 2)
    p.update("a", 0)
    assert (p.values, p.nums) == (["a", "c"], [0, 2])


# --- Score -----------------------------------------------------------------------------------


def scores(
    pod: Pod, nodes: list[Node], pods: list[Pod], args: dict[str, Any] | None = None, **cluster: Any
) -> tuple[dict[str, int], dict[str, int]] | str:
    h = handle_for(nodes, pods, **cluster)
    pl = pts.new(plugin_args(pts.NAME, args), h)
    st = CycleState()
    status = pl.pre_score(st, pod, list(h.snapshot.node_infos))
    if status.is_skip():
        return "skip"
    assert status.is_success()
    raw = []
    for ni in h.snapshot.node_infos:
        s, ss = pl.score(st, pod, ni)
        assert ss.is_success()
        raw.append(NodeScore(ni.name, s))
    normalized = [NodeScore(s.name, s.score) for s in raw]
    assert pl.normalize_score(st, pod, normalized).is_success()
    return {s.name: s.score for s in raw}, {s.name: s.score for s in normalized}


SCORE_NODES = [node("a1", "a"), node("a2", "a"), node("b1", "b")]
SCORE_PODS = [web("e1", "a1"), web("e2", "a1"), web("e3", "a2")]

SCORE_CASES: list[tuple[str, Any, list[Any], list[Any], Any]] = [
    (
        "zone",
        # 2 zones: weight ln 4; zone a holds 3 -> 4.16 -> 4, zone b 0
        make_pod().name("p").label("app", "web").spread(1, ZONE, "ScheduleAnyway", WEB),
        SCORE_NODES,
        SCORE_PODS,
        ({"a1": 4, "a2": 4, "b1": 0}, {"a1": 0, "a2": 0, "b1": 100}),
    ),
    (
        "hostname",
        # 3 candidate nodes: weight ln 5; maxSkew 2 adds 1: 2*1.61+1=4.22, 1.61+1=2.61, 1
        make_pod().name("p").label("app", "web").spread(2, HOST, "ScheduleAnyway", WEB),
        SCORE_NODES,
        SCORE_PODS,
        # 100 * (4 + 1 - s) / 4
        ({"a1": 4, "a2": 3, "b1": 1}, {"a1": 25, "a2": 50, "b1": 100}),
    ),
    (
        "missing-key-ignored",
        # x1 lacks the zone label: scored 0; it also makes no domain (weight ln 4)
        make_pod().name("p").label("app", "web").spread(1, ZONE, "ScheduleAnyway", WEB),
        SCORE_NODES + [node("x1")],
        SCORE_PODS,
        ({"a1": 4, "a2": 4, "b1": 0, "x1": 0}, {"a1": 0, "a2": 0, "b1": 100, "x1": 0}),
    ),
    (
        "all-zero",
        make_pod().name("p").label("app", "web").spread(1, ZONE, "ScheduleAnyway", WEB),
        SCORE_NODES + [node("x1")],
        [],
        ({"a1": 0, "a2": 0, "b1": 0, "x1": 0}, {"a1": 100, "a2": 100, "b1": 100, "x1": 0}),
    ),
    (
        "only-do-not-schedule",
        make_pod().name("p").label("app", "web").spread(1, ZONE, "DoNotSchedule", WEB),
        SCORE_NODES,
        SCORE_PODS,
        "skip",
    ),
    (
        "no-constraints-no-services",
        make_pod().name("p").label("app", "web"),
        SCORE_NODES,
        SCORE_PODS,
        "skip",
    ),
]


@pytest.mark.parametrize("pod,nodes,pods,expected", [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_score(pod: Any, nodes: list[Any], pods: list[Any], expected: Any) -> None:
    assert scores(pod.obj(), [n.obj() for n in nodes], [p.obj() for p in pods]) == expected


def test_pre_score_skips_without_nodes() -> None:
    h = handle_for([])
    pl = pts.new(plugin_args(pts.NAME), h)
    pod = make_pod().name("p").label("app", "web").spread(1, ZONE, "ScheduleAnyway", WEB).obj()
    assert pl.pre_score(CycleState(), pod, []).is_skip()


# --- default constraints ---------------------------------------------------------------------

WEB_SERVICE = Service("default", "web", {"app": "web"})
DEFAULT_NODES = [node("a1", "a"), node("a2", "a"), node("b1", "b"), node("x1")]
DEFAULT_PODS = [web("e1", "a1"), web("e2", "a1"), web("e3", "b1")]
LIST_ZONE = {
    "defaultingType": "List",
    "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}],
}


def test_system_defaults_score_hostname_and_zone() -> None:
    # hostname: 4 candidates, ln 6, maxSkew 3 adds 2; zone: domains a, b and "" (x1), ln 5,
    # maxSkew 5 adds 4; x1 has no zone label, so only hostname scores there.
    # a1: 2*1.79+2 + 2*1.61+4 = 12.80; a2: 2 + 7.22 = 9.22; b1: 3.79 + 5.61 = 9.40; x1: 2
    got = scores(
        make_pod().name("p").label("app", "web").obj(),
        [n.obj() for n in DEFAULT_NODES],
        [p.obj() for p in DEFAULT_PODS],
        services=(WEB_SERVICE,),
    )
    # 100 * (13 + 2 - s) / 13
    assert got == ({"a1": 13, "a2": 9, "b1": 9, "x1": 2}, {"a1": 15, "a2": 46, "b1": 46, "x1": 100})


def test_system_defaults_do_not_filter() -> None:
    got = filter_all(
        make_pod().name("p").label("app", "web").obj(),
        [n.obj() for n in DEFAULT_NODES],
        [p.obj() for p in DEFAULT_PODS],
    )
    assert got == "skip"


def test_list_defaults_require_every_key() -> None:
    got = scores(
        make_pod().name("p").label("app", "web").obj(),
        [n.obj() for n in DEFAULT_NODES],
        [p.obj() for p in DEFAULT_PODS],
        args=LIST_ZONE,
        services=(WEB_SERVICE,),
    )
    # zones a (2 pods) and b (1 pod), ln 4: 2.77 -> 3, 1.39 -> 1; x1 is ignored
    assert got == ({"a1": 3, "a2": 3, "b1": 1, "x1": 0}, {"a1": 33, "a2": 33, "b1": 100, "x1": 0})


def test_own_constraints_replace_defaults() -> None:
    # a DoNotSchedule constraint of its own: no ScheduleAnyway constraint and no defaults
    pod = make_pod().name("p").label("app", "web").spread(1, ZONE, selector=WEB).obj()
    got = scores(pod, [n.obj() for n in DEFAULT_NODES], [p.obj() for p in DEFAULT_PODS], services=(WEB_SERVICE,))
    assert got == "skip"


def test_list_default_do_not_schedule_filters() -> None:
    args = {
        "defaultingType": "List",
        "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}],
    }
    nodes = [n.obj() for n in DEFAULT_NODES]
    pods = [p.obj() for p in DEFAULT_PODS]
    h = handle_for(nodes, pods, services=(WEB_SERVICE,))
    pl = pts.new(plugin_args(pts.NAME, args), h)
    pod = make_pod().name("p").label("app", "web").obj()
    st = CycleState()
    assert pl.pre_filter(st, pod)[1].is_success()
    got = {ni.name: (s.code, s.reasons) for ni in h.snapshot.node_infos for s in [pl.filter(st, pod, ni)]}
    assert got == {"a1": NOT_MATCH, "a2": NOT_MATCH, "b1": OK, "x1": MISSING_LABEL}
    # without a Service selecting it the pod has no default constraints at all
    assert pts.new(plugin_args(pts.NAME, args), handle_for(nodes, pods)).pre_filter(CycleState(), pod)[1].is_skip()


def workload(kind: str, name: str, spec: dict[str, Any], ns: str = "default") -> Workload:
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    body = {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}, "spec": spec}
    return Workload(kind, ns, name, f"uid-{name}", body, "test")


def owned(kind: str, name: str, controller: bool = True, api_version: str = "apps/v1") -> Any:
    ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}", "controller": controller}
    return make_pod().name("p").labels(app="web", tier="front").set("metadata.ownerReferences", [ref])


RS_SPEC = {"selector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "edge"]}]}}

# (labels a matching pod must have, labels it must not have); None: the selector is empty
SELECTOR_CASES: list[tuple[str, Any, tuple[Service, ...], tuple[Workload, ...], Any]] = [
    ("nothing", make_pod().name("p").labels(app="web"), (), (), None),
    ("service", make_pod().name("p").labels(app="web"), (WEB_SERVICE,), (), ({"app": "web"}, {"app": "db"})),
    (
        "service-not-selecting-pod",
        make_pod().name("p").labels(app="db"),
        (WEB_SERVICE,),
        (),
        None,
    ),
    (
        "service-other-namespace",
        make_pod().name("p").namespace("team").labels(app="web"),
        (WEB_SERVICE,),
        (),
        None,
    ),
    (
        "services-merged",
        make_pod().name("p").labels(app="web", tier="front"),
        (WEB_SERVICE, Service("default", "front", {"tier": "front"})),
        (),
        ({"app": "web", "tier": "front"}, {"app": "web"}),
    ),
    (
        "replica-set",
        owned("ReplicaSet", "rs"),
        (WEB_SERVICE,),
        (workload("ReplicaSet", "rs", RS_SPEC),),
        ({"app": "web", "tier": "edge"}, {"app": "web", "tier": "back"}),
    ),
    (
        "replica-set-alone",
        owned("ReplicaSet", "rs"),
        (),
        (workload("ReplicaSet", "rs", RS_SPEC),),
        ({"tier": "edge"}, {"app": "web"}),
    ),
    (
        "replica-set-not-controller",
        owned("ReplicaSet", "rs", controller=False),
        (),
        (workload("ReplicaSet", "rs", RS_SPEC),),
        None,
    ),
    (
        "replica-set-other-namespace",
        owned("ReplicaSet", "rs"),
        (),
        (workload("ReplicaSet", "rs", RS_SPEC, ns="team"),),
        None,
    ),
    (
        "replica-set-wrong-api-version",
        owned("ReplicaSet", "rs", api_version="extensions/v1beta1"),
        (),
        (workload("ReplicaSet", "rs", RS_SPEC),),
        None,
    ),
    (
        "stateful-set",
        owned("StatefulSet", "ss"),
        (),
        (workload("StatefulSet", "ss", {"selector": {"matchLabels": {"tier": "front"}}}),),
        ({"tier": "front"}, {"tier": "edge"}),
    ),
    (
        "replication-controller",
        owned("ReplicationController", "rc", api_version="v1"),
        (WEB_SERVICE,),
        (workload("ReplicationController", "rc", {"selector": {"tier": "front"}}),),
        ({"app": "web", "tier": "front"}, {"tier": "front"}),
    ),
    (
        "replication-controller-template-labels",
        owned("ReplicationController", "rc", api_version="v1"),
        (),
        (workload("ReplicationController", "rc", {"template": {"metadata": {"labels": {"tier": "front"}}}}),),
        ({"tier": "front"}, {"app": "web"}),
    ),
    (
        "deployment-owner-unsupported",
        owned("Deployment", "d"),
        (),
        (workload("Deployment", "d", RS_SPEC),),
        None,
    ),
]


@pytest.mark.parametrize(
    "pod,services,workloads,expected",
    [c[1:] for c in SELECTOR_CASES],
    ids=[c[0] for c in SELECTOR_CASES],
)
def test_default_selector(
    pod: Any, services: tuple[Service, ...], workloads: tuple[Workload, ...], expected: Any
) -> None:
    h = handle_for([node("a1", "a").obj()], services=services, workloads=workloads)
    sel = pts.DefaultSelectorSource(h).selector(pod.obj())
    if expected is None:
        assert sel.empty
        return
    match, other = expected
    assert not sel.empty
    assert sel.matches(match)
    assert not sel.matches(other)


# --- args ------------------------------------------------------------------------------------


def c(key: str = ZONE, when: str = "ScheduleAnyway", skew: int = 1, **extra: Any) -> dict[str, Any]:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}


_QNAME = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

# Decoded, defaulted and validated by the configuration (kwhatif.config), which reports the first
# error under the pluginConfig entry's args.
ARGS_ERRORS = [
    pytest.param(
        {"defaultingType": "Sometimes"},
        'defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"',
        id="defaulting-type",
    ),
    pytest.param(
        {"defaultingType": "System", "defaultConstraints": [c()]},
        'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
        id="system-with-constraints",
    ),
    pytest.param(
        {"defaultConstraints": [c()]},
        'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
        id="constraints-default-to-system",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(skew=0)]},
        "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
        id="max-skew",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(key="")]},
        "defaultConstraints[0].topologyKey: Required value: can not be empty",
        id="topology-key-empty",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(key="a/b/c")]},
        'defaultConstraints[0].topologyKey: Invalid value: "a/b/c": a qualified name '
        + _QNAME
        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        id="topology-key-invalid",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(key="zone-")]},
        'defaultConstraints[0].topologyKey: Invalid value: "zone-": name part ' + _QNAME,
        id="topology-key-bad-name",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(key="Example.com/zone")]},
        'defaultConstraints[0].topologyKey: Invalid value: "Example.com/zone": prefix part a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        id="topology-key-bad-prefix",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(when="")]},
        "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
        id="when-unsatisfiable-empty",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(when="Maybe")]},
        'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
        '"DoNotSchedule", "ScheduleAnyway"',
        id="when-unsatisfiable-unknown",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(labelSelector=WEB)]},
        "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
        "deduced for each pod",
        id="label-selector-forbidden",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(), c(skew=2)]},
        f'defaultConstraints[1]: Duplicate value: "{{{ZONE}, ScheduleAnyway}}"',
        id="repeated",
    ),
    pytest.param(
        # every error, aggregated as upstream prints them
        {"defaultingType": "List", "defaultConstraints": [c(skew=0, when="")]},
        "[profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range "
        "(0, inf), profiles[0].pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: Required value: can "
        "not be empty]",
        id="several-errors",
    ),
    pytest.param(
        {"defaultingType": "List", "defaultConstraints": [c(weight=1)]},
        'defaultConstraints[0]: unknown field "weight"',
        id="unknown-field",
    ),
]


@pytest.mark.parametrize("args,message", ARGS_ERRORS)
def test_args_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as e:
        plugin_args(pts.NAME, args)
    if message.startswith("["):
        assert str(e.value) == message
        return
    assert str(e.value) == f"profiles[0].pluginConfig[0].args.{message}"


@pytest.mark.parametrize(
    "args,system,count",
    [
        pytest.param(None, True, 2, id="none"),
        pytest.param({"defaultingType": "System", "defaultConstraints": []}, True, 2, id="system"),
        pytest.param({"defaultingType": "List"}, False, 0, id="list-empty"),
        pytest.param(LIST_ZONE, False, 1, id="list"),
        pytest.param(
            {
                "defaultingType": "List",
                "defaultConstraints": [c(), c(key=HOST, when="DoNotSchedule", minDomains=2, nodeTaintsPolicy="Honor")],
            },
            False,
            2,
            id="list-two",
        ),
    ],
)
def test_args_accepted(args: dict[str, Any] | None, system: bool, count: int) -> None:
    pl = pts.new(plugin_args(pts.NAME, args), handle_for([]))
    assert pl.system_defaulted is system
    assert len(pl.default_constraints) == count
