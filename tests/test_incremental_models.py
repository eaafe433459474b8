"""The engine's models against the plugins' own PreFilter and PreScore: after random pods come
and go, a model kept up to date holds exactly the state the plugin computes from scratch."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

import numpy as np
import pytest
from test_incremental_equivalence import random_cluster, random_template

from kwhatif.api import parse
from kwhatif.api.core import WhenUnsatisfiable
from kwhatif.cache.node_info import shape
from kwhatif.config.defaults import default_configuration
from kwhatif.dra import features as F
from kwhatif.framework.incremental import NodeIndex
from kwhatif.framework.interface import CycleState, NodeScore
from kwhatif.plugins import dynamic_resources as dra
from kwhatif.plugins import inter_pod_affinity as ipa
from kwhatif.plugins import pod_topology_spread as pts
from kwhatif.plugins.inter_pod_affinity.incremental import AffinityFilterModel, AffinityScoreModel
from kwhatif.plugins.pod_topology_spread.incremental import SpreadFilterModel, SpreadScoreModel
from kwhatif.scheduling.scheduler import Scheduler

from builders import make_cluster, make_handle, make_node, make_pod


def _setup(seed: int) -> tuple[random.Random, Scheduler, list[dict[str, Any]]]:
    rng = random.Random(seed)
    objs = random_cluster(rng)
    sched = Scheduler(make_cluster(copy.deepcopy(objs)), default_configuration())
    templates = [random_template(rng, i) for i in range(6)]
    return rng, sched, templates


def _pod(sched: Scheduler, template: dict[str, Any], name: str, node: str = "") -> Any:
    d = copy.deepcopy(template)
    d["metadata"]["name"] = name
    d["metadata"]["uid"] = f"uid-{name}"
    if node:
        d["spec"]["nodeName"] = node
    return sched.cluster.admission.admit(parse.pod(d), strict=True)


def _churn(
    rng: random.Random, sched: Scheduler, templates: list[dict[str, Any]], index: NodeIndex, models: list[Any]
) -> None:
    """Add and remove pods through the snapshot, feeding every change to the models."""
    snapshot = sched.snapshot
    start = len(index.changes)
    added = []
    for i in range(25):
        if added and rng.random() < 0.3:
            snapshot.remove_pod(added.pop(rng.randrange(len(added))))
            continue
        node = rng.choice(index.names)
        p = _pod(sched, rng.choice(templates), f"churn-{i}", node)
        snapshot.add_pod(p)
        added.append(p)
    # some of the cluster's own pods go too (a drain)
    for ni in rng.sample(index.infos, 2):
        for pi in list(ni.pods)[:2]:
            snapshot.remove_pod(pi.pod)
    for ni, pi, sign in index.changes[start:]:
        assert pi is not None
        pos = index.position[ni.name]
        for m in models:
            m.apply(pos, pi if isinstance(m, (AffinityFilterModel, AffinityScoreModel)) else pi.pod, sign)


SEEDS = [pytest.param(seed, id=f"seed-{seed}") for seed in range(25)]


@pytest.mark.parametrize("seed", SEEDS)
def test_spread_filter_model_is_the_prefilter_state(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from kwhatif.plugins.pod_topology_spread import incremental as spread

    monkeypatch.setattr(spread, "_ARRAY_DOMAINS", seed % 3)  # small and large domain counts alike
    rng, sched, templates = _setup(seed)
    fw = sched.frameworks["default-scheduler"]
    plugin = fw.plugins["PodTopologySpread"]
    assert isinstance(plugin, pts.PodTopologySpread)
    index = NodeIndex(sched.snapshot)
    pods = [_pod(sched, t, f"incoming-{i}") for i, t in enumerate(templates)]
    models = []
    for pod in pods:
        constraints = tuple(plugin.constraints_for(pod, WhenUnsatisfiable.DO_NOT_SCHEDULE))
        if constraints:
            models.append((pod, constraints, SpreadFilterModel(index, pod, constraints)))
    _churn(rng, sched, templates, index, [m for _, _, m in models])
    for pod, constraints, m in models:
        got = m.state()
        want = plugin._pre_filter_state(pod, constraints)
        assert got.match_num == want.match_num
        assert got.domains_num == want.domains_num
        assert {k: (p.values, p.nums) for k, p in got.critical_paths.items()} == {
            k: (p.values, p.nums) for k, p in want.critical_paths.items()
        }


@pytest.mark.parametrize("seed", SEEDS)
def test_spread_score_model_scores_as_the_plugin(seed: int) -> None:
    rng, sched, templates = _setup(seed)
    fw = sched.frameworks["default-scheduler"]
    plugin = fw.plugins["PodTopologySpread"]
    assert isinstance(plugin, pts.PodTopologySpread)
    index = NodeIndex(sched.snapshot)
    cases = []
    for i, t in enumerate(templates):
        pod = _pod(sched, t, f"incoming-{i}")
        constraints = tuple(plugin.constraints_for(pod, WhenUnsatisfiable.SCHEDULE_ANYWAY))
        if constraints:
            require_all = bool(pod.topology_spread_constraints) or not plugin.system_defaulted
            cases.append((pod, SpreadScoreModel(index, pod, constraints, require_all)))
    _churn(rng, sched, templates, index, [m for _, m in cases])
    for pod, m in cases:
        # score a random half of the nodes, as the feasible ones of a cycle
        idx = np.array(sorted(rng.sample(range(index.size), max(1, index.size // 2))), dtype=np.int64)
        nodes = [index.infos[p] for p in idx.tolist()]
        state = CycleState()
        assert plugin.pre_score(state, pod, nodes).is_success()
        raw = [plugin.score(state, pod, ni)[0] for ni in nodes]
        scores = [NodeScore(ni.name, s) for ni, s in zip(nodes, raw)]
        plugin.normalize_score(state, pod, scores)
        got_raw, got_norm = m.scores(idx)
        assert got_raw.tolist() == raw
        assert got_norm.tolist() == [s.score for s in scores]


@pytest.mark.parametrize("seed", SEEDS)
def test_affinity_models_are_the_plugin_states(seed: int) -> None:
    rng, sched, templates = _setup(seed)
    fw = sched.frameworks["default-scheduler"]
    plugin = fw.plugins["InterPodAffinity"]
    assert isinstance(plugin, ipa.InterPodAffinity)
    index = NodeIndex(sched.snapshot)
    pods = [_pod(sched, t, f"incoming-{i}") for i, t in enumerate(templates)]
    filters = [AffinityFilterModel(plugin, index, pod) for pod in pods]
    scores = [AffinityScoreModel(plugin, index, pod) for pod in pods]
    _churn(rng, sched, templates, index, filters + scores)
    for pod, fm, sm in zip(pods, filters, scores):
        state = CycleState()
        _, st = plugin.pre_filter(state, pod)
        assert st.is_skip() == fm.skip()
        if not st.is_skip():
            want = state.read(ipa.PRE_FILTER_STATE_KEY)
            got = fm.state()
            assert dict(got.existing_anti_affinity_counts) == dict(want.existing_anti_affinity_counts)
            assert dict(got.affinity_counts) == dict(want.affinity_counts)
            assert dict(got.anti_affinity_counts) == dict(want.anti_affinity_counts)
        nodes = list(index.infos)
        st = plugin.pre_score(state, pod, nodes)
        assert st.is_skip() == (not sm.contributed)
        if st.is_skip():
            continue
        raw = [plugin.score(state, pod, ni)[0] for ni in nodes]
        node_scores = [NodeScore(ni.name, s) for ni, s in zip(nodes, raw)]
        plugin.normalize_score(state, pod, node_scores)
        got_raw, got_norm = sm.scores(np.arange(index.size, dtype=np.int64))
        assert got_raw.tolist() == raw
        assert got_norm.tolist() == [s.score for s in node_scores]


def test_replicas_share_a_template() -> None:
    _, sched, templates = _setup(0)
    a = _pod(sched, templates[0], "a-1")
    b = _pod(sched, templates[0], "a-2")
    assert a != b and shape(a) == shape(b)


_DRA = "resource.k8s.io/v1"
_DRA_OBJS = [
    {"apiVersion": _DRA, "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}},
    {
        "apiVersion": _DRA,
        "kind": "ResourceSlice",
        "metadata": {"name": "n1-drv"},
        "spec": {
            "driver": "drv",
            "nodeName": "n1",
            "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "d"}],
        },
    },
    {
        "apiVersion": _DRA,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default", "uid": "uid-c"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
    },
]


@pytest.mark.parametrize(
    "features,claims,prefilter,want",
    [
        pytest.param(F.for_release("1.35"), False, True, True, id="pod-without-claims"),
        pytest.param(F.for_release("1.35"), True, True, False, id="pod-with-a-claim"),
        pytest.param(F.for_release("1.35"), False, False, False, id="no-prefilter-state"),
        pytest.param(dataclasses.replace(F.for_release("1.35"), enabled=False), True, True, True, id="plugin-off"),
    ],
)
def test_dynamic_resources_scores_zero_everywhere(
    features: F.Features, claims: bool, prefilter: bool, want: bool
) -> None:
    """What the engine asks DynamicResources instead of computing its scores: when the answer is
    yes, Score and NormalizeScore give 0 on every node."""
    handle = make_handle([make_node().name(n).obj() for n in ("n1", "n2")], cluster=make_cluster(_DRA_OBJS))
    plugin = dra.new(None, handle, features)
    assert isinstance(plugin, dra.DynamicResourcesScoring)
    pod_b = make_pod().name("p").uid("uid-p")
    if claims:
        pod_b.set("spec.resourceClaims", [{"name": "r", "resourceClaimName": "c"}])
    pod = pod_b.obj()
    state = CycleState()
    if prefilter:
        plugin.pre_filter(state, pod)
    assert plugin.scores_zero_everywhere(state) is want
    if want:
        scores = [NodeScore(ni.name, plugin.score(state, pod, ni)[0]) for ni in handle.snapshot.node_infos]
        plugin.normalize_score(state, pod, scores)
        assert [s.score for s in scores] == [0, 0]


def _strict_cluster() -> list[dict[str, Any]]:
    """Six nodes, two per zone, and the namespace of the pods below."""
    objs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}]
    for i in range(6):
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"n{i}",
                    "labels": {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i // 2}"},
                },
                "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
            }
        )
    return objs


def _strict_pod(name: str, node: str = "") -> dict[str, Any]:
    selector = {"matchLabels": {"app": "s"}}
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}],
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": selector,
            }
        ],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": "kubernetes.io/hostname", "labelSelector": selector}
                ]
            }
        },
    }
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}", "labels": {"app": "s"}},
        "spec": spec,
    }


def test_spread_filter_model_finds_groups_by_domain() -> None:
    sched = Scheduler(make_cluster(_strict_cluster()), default_configuration())
    plugin = sched.frameworks["default-scheduler"].plugins["PodTopologySpread"]
    assert isinstance(plugin, pts.PodTopologySpread)
    index = NodeIndex(sched.snapshot)
    pod = sched.cluster.admission.admit(parse.pod(_strict_pod("p")), strict=True)
    constraints = tuple(plugin.constraints_for(pod, WhenUnsatisfiable.DO_NOT_SCHEDULE))
    m = SpreadFilterModel(index, pod, constraints)
    zone = "topology.kubernetes.io/zone"
    assert m.groups_with == {(zone, "z0"): [0], (zone, "z1"): [1], (zone, "z2"): [2]}
    assert [m.member_list(g) for g in range(3)] == [[0, 1], [2, 3], [4, 5]]
    m.state()
    assert m.take_affected_groups() is None  # nothing taken yet: every group
    m.state()
    assert m.take_affected_groups() == set()
    # a pod in z1: its count moves, the minimum (0, in z0 and z2) does not
    placed = sched.cluster.admission.admit(parse.pod(_strict_pod("q", "n2")), strict=True)
    m.apply(2, placed, 1)
    m.state()
    assert m.take_affected_groups() == {1}
    # one in each other zone: the minimum moves to 1, every group may answer otherwise
    m.apply(0, placed, 1)
    m.apply(4, placed, 1)
    m.state()
    assert m.take_affected_groups() is None
    assert m.take_affected_groups() == set()


@pytest.mark.parametrize("bulk", [pytest.param(False, id="node-by-node"), pytest.param(True, id="bulk")])
def test_zones_flip_without_refiltering_and_reuse_their_results(bulk: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replicas spread strictly by zone: each placement turns the zones infeasible and feasible
    again as a whole, and a node gets back the very result it had before its zone flipped."""
    from kwhatif.scheduling import incremental as engine

    if bulk:
        monkeypatch.setattr(engine, "_BULK_GROUP", 1)
    state = make_cluster(_strict_cluster())
    sched = Scheduler(state, default_configuration())
    pods = [state.admission.admit(parse.pod(_strict_pod(f"p{i}")), strict=True) for i in range(7)]
    seen: dict[str, list[Any]] = {"n1": []}
    placed = []
    for pod in pods:
        att = sched.schedule_one(pod)
        placed.append(att.node)
        assert att.fit is not None
        for name, results in seen.items():
            results.append(att.fit.filters[name])
    assert placed == ["n0", "n2", "n4", "n1", "n3", "n5", None]
    assert sched.engine is not None
    assert sched.engine.stats["full"] == 1  # every later cycle reused the results
    # n1 (z0): feasible, infeasible by spreading after n0, feasible again once every zone has one
    r = seen["n1"]
    assert [x.first.reasons if x.first else () for x in r[:4]] == [
        (),
        ("node(s) didn't match pod topology spread constraints",),
        ("node(s) didn't match pod topology spread constraints",),
        (),
    ]
    assert r[3] is r[0]
    (template,) = sched.engine.templates
    if bulk:
        # z0 and z1 went from a known answer to the other one: each keeps both answers' results
        # (z2 did not: its first answer after the full pass was not known yet)
        assert sorted(template.groups) == [0, 1]
        assert all(len(g.variants) == 2 for g in template.groups.values())
    else:
        assert template.groups == {}


def test_models_count_the_replicas_that_share_labels_but_not_the_terminating_ones() -> None:
    """Replicas share one labels map (api.parse), and NodeIndex.label_groups groups the pods by
    it: a terminating replica, with the same map, is a group of its own, which spreading leaves
    out and InterPodAffinity counts, as the plugins do."""
    zone = "topology.kubernetes.io/zone"
    selector = {"matchLabels": {"app": "web"}}
    term = {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}
    objs: list[dict[str, Any]] = [
        make_node().name(f"n{i}").label(zone, "ab"[i % 2]).label("kubernetes.io/hostname", f"n{i}").dict()
        for i in range(4)
    ]
    for i, node in enumerate(["n0", "n0", "n1", "n1", "n2", "n0", "n3"]):
        b = make_pod().name(f"web-{i}").label("app", "web").node(node)
        if i in (2, 3, 5):
            b.terminating()
        objs.append(b.dict())
    objs.append(make_pod().name("db-0").label("app", "db").node("n3").dict())
    sched = Scheduler(make_cluster(objs), default_configuration())
    index = NodeIndex(sched.snapshot)
    groups = index.label_groups(frozenset({"default"}))
    by_deleting = {(p.labels.get("app"), p.deleting): sorted(index.names[x] for x in at) for p, at in groups}
    assert by_deleting == {
        ("web", False): ["n0", "n0", "n2", "n3"],
        ("web", True): ["n0", "n1", "n1"],
        ("db", False): ["n3"],
    }
    every = sorted(
        (p.namespace, p.labels.get("app"), p.deleting, index.names[x]) for p, at in index.label_groups(None) for x in at
    )
    assert every == sorted(
        (pi.pod.namespace, pi.pod.labels.get("app"), pi.pod.deleting, pi.pod.node_name) for pi in sched.snapshot.pods()
    )
    fw = sched.frameworks["default-scheduler"]
    spread = fw.plugins["PodTopologySpread"]
    affinity = fw.plugins["InterPodAffinity"]
    assert isinstance(spread, pts.PodTopologySpread) and isinstance(affinity, ipa.InterPodAffinity)
    incoming = (
        make_pod()
        .name("incoming")
        .label("app", "web")
        .spread(1, zone, selector=selector)
        .spread(1, "kubernetes.io/hostname", when="ScheduleAnyway", selector=selector)
        .affinity(
            {
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]},
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 7, "podAffinityTerm": term}]
                },
            }
        )
        .dict()
    )
    pod = _pod(sched, incoming, "incoming")
    strict = tuple(spread.constraints_for(pod, WhenUnsatisfiable.DO_NOT_SCHEDULE))
    got = SpreadFilterModel(index, pod, strict).state()
    want = spread._pre_filter_state(pod, strict)
    assert got.match_num == want.match_num == {(zone, "a"): 3, (zone, "b"): 1}
    anyway = tuple(spread.constraints_for(pod, WhenUnsatisfiable.SCHEDULE_ANYWAY))
    nodes = list(index.infos)
    state = CycleState()
    assert spread.pre_score(state, pod, nodes).is_success()
    raw, _ = SpreadScoreModel(index, pod, anyway, True).scores(np.arange(index.size, dtype=np.int64))
    assert raw.tolist() == [spread.score(state, pod, ni)[0] for ni in nodes]
    # n0 holds two running replicas, n2 one, n1 only terminating ones
    assert raw[0] > raw[2] > raw[1] == 0
    state = CycleState()
    _, st = affinity.pre_filter(state, pod)
    assert st.is_success()
    fm = AffinityFilterModel(affinity, index, pod).state()
    want_aff = state.read(ipa.PRE_FILTER_STATE_KEY)
    assert dict(fm.anti_affinity_counts) == dict(want_aff.anti_affinity_counts)
    # the terminating replicas count for InterPodAffinity
    assert dict(fm.anti_affinity_counts)[("kubernetes.io/hostname", "n1")] == 2
    assert affinity.pre_score(state, pod, nodes).is_success()
    sraw, _ = AffinityScoreModel(affinity, index, pod).scores(np.arange(index.size, dtype=np.int64))
    assert sraw.tolist() == [affinity.score(state, pod, ni)[0] for ni in nodes] == [21, 14, 7, 7]
