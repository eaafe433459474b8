"""InterPodAffinity: args, PreFilter skip, Filter reasons and codes, AddPod/RemovePod, PreScore
skip rules, raw scores and the float64 normalization."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api.core import Namespace
from kwhatif.cache.cluster import ClusterState
from kwhatif.cache.node_info import PodInfo
from kwhatif.config.types import InterPodAffinityArgs
from kwhatif.errors import ConfigError
from kwhatif.framework.interface import Code, CycleState, NodeScore
from kwhatif.plugins import inter_pod_affinity as ipa

from builders import PodBuilder, make_handle, make_node, make_pod, plugin_args

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"

AFF = "node(s) didn't match pod affinity rules"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules"
OK = (Code.SUCCESS, ())
AFF_FAIL = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (AFF,))
ANTI_FAIL = (Code.UNSCHEDULABLE, (ANTI,))
EXISTING_FAIL = (Code.UNSCHEDULABLE, (EXISTING,))

# n1, n2 in zone a; n3 in zone b; n4 has no zone label.
NODES = (
    make_node().name("n1").label(ZONE, "a"),
    make_node().name("n2").label(ZONE, "a"),
    make_node().name("n3").label(ZONE, "b"),
    make_node().name("n4"),
)
NODE_NAMES = ("n1", "n2", "n3", "n4")


def term(
    key: str, ns: list[str] | None = None, ns_selector: dict[str, Any] | None = None, **labels: str
) -> dict[str, Any]:
    t: dict[str, Any] = {"labelSelector": {"matchLabels": labels}, "topologyKey": key}
    if ns is not None:
        t["namespaces"] = ns
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


def affinity(
    req: tuple[dict[str, Any], ...] = (),
    pref: tuple[dict[str, Any], ...] = (),
    anti_req: tuple[dict[str, Any], ...] = (),
    anti_pref: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if req or pref:
        out["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(req),
            "preferredDuringSchedulingIgnoredDuringExecution": list(pref),
        }
    if anti_req or anti_pref:
        out["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti_req),
            "preferredDuringSchedulingIgnoredDuringExecution": list(anti_pref),
        }
    return out


def incoming(**labels: str) -> PodBuilder:
    return make_pod().name("incoming").labels(**labels)


def existing(name: str, node: str, ns: str = "default", **labels: str) -> PodBuilder:
    return make_pod().name(name).namespace(ns).node(node).labels(**labels)


def cluster_with_namespaces(**ns_labels: dict[str, str]) -> ClusterState:
    c = ClusterState()
    for name, labels in ns_labels.items():
        c.namespaces[name] = Namespace(name, {"kubernetes.io/metadata.name": name, **labels})
    return c


def setup(
    pods: list[PodBuilder], cluster: ClusterState | None = None, args: dict[str, Any] | None = None
) -> tuple[Any, Any]:
    h = make_handle([n.obj() for n in NODES], [p.obj() for p in pods], cluster)
    return h, ipa.new(plugin_args(ipa.NAME, args), h)


def filter_all(
    pod: PodBuilder, pods: list[PodBuilder], cluster: ClusterState | None = None
) -> dict[str, tuple[Code, tuple[str, ...]]] | Code:
    """Every node's Filter status, or the PreFilter code when it was not a success."""
    h, pl = setup(pods, cluster)
    state = CycleState()
    p = pod.obj()
    _, st = pl.pre_filter(state, p)
    if not st.is_success():
        return st.code
    out = {}
    for name in NODE_NAMES:
        s = pl.filter(state, p, h.snapshot.get(name))
        out[name] = (s.code, s.reasons)
    return out


# --- args ---------------------------------------------------------------------------------------


def test_default_args() -> None:
    pl = ipa.new(plugin_args(ipa.NAME), None)
    assert pl.args == InterPodAffinityArgs(1, False)
    assert plugin_args(ipa.NAME, {"hardPodAffinityWeight": 0}) == InterPodAffinityArgs(0, False)
    args = plugin_args(ipa.NAME, {"hardPodAffinityWeight": 100, "ignorePreferredTermsOfExistingPods": True})
    assert ipa.new(args, None).args == InterPodAffinityArgs(100, True)


# Decoded, defaulted and validated by the configuration (kwhatif.config), under the pluginConfig
# entry's args.
@pytest.mark.parametrize(
    "args,field,message",
    [
        pytest.param(
            {"hardPodAffinityWeight": 101},
            "hardPodAffinityWeight",
            "Invalid value: 101: not in valid range [0, 100]",
            id="above-100",
        ),
        pytest.param(
            {"hardPodAffinityWeight": -1},
            "hardPodAffinityWeight",
            "Invalid value: -1: not in valid range [0, 100]",
            id="negative",
        ),
        pytest.param(
            {"hardPodAffinityWeight": "5"},
            "hardPodAffinityWeight",
            "cannot unmarshal string into Go value of type int32",
            id="not-int",
        ),
        pytest.param(
            {"ignorePreferredTermsOfExistingPods": "yes"},
            "ignorePreferredTermsOfExistingPods",
            "cannot unmarshal string into Go value of type bool",
            id="not-bool",
        ),
        pytest.param({"hardPodAffinityWeigth": 1}, "", 'unknown field "hardPodAffinityWeigth"', id="unknown-field"),
    ],
)
def test_invalid_args(args: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        plugin_args(ipa.NAME, args)
    assert e.value.field == "profiles[0].pluginConfig[0].args" + (f".{field}" if field else "")
    assert e.value.message == message


# --- PreFilter and Filter -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "pod,pods,expected",
    [
        pytest.param(incoming(app="web"), [existing("db", "n1", app="db")], Code.SKIP, id="no-affinity-skip"),
        pytest.param(
            # preferred terms alone do not take part in filtering
            incoming(app="web").affinity(affinity(pref=(weighted(5, term(ZONE, app="db")),))),
            [existing("db", "n1", app="db")],
            Code.SKIP,
            id="preferred-only-skip",
        ),
        pytest.param(
            # an existing pod's anti-affinity that does not select the pod: still nothing to do
            incoming(app="web"),
            [existing("db", "n1", app="db").affinity(affinity(anti_req=(term(HOST, app="cache"),)))],
            Code.SKIP,
            id="existing-anti-not-matching-skip",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="db"),))),
            [existing("db", "n1", app="db")],
            {"n1": OK, "n2": OK, "n3": AFF_FAIL, "n4": AFF_FAIL},
            id="affinity-zone",
        ),
        pytest.param(
            # only pods matching every term count
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="db"), term(HOST, tier="be")))),
            [
                existing("db", "n1", app="db"),
                existing("be", "n3", tier="be"),
                existing("both", "n2", app="db", tier="be"),
            ],
            {"n1": AFF_FAIL, "n2": OK, "n3": AFF_FAIL, "n4": AFF_FAIL},
            id="affinity-all-terms",
        ),
        pytest.param(
            # first of its kind: nothing matches anywhere and the pod matches its own term
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="web"),))),
            [existing("db", "n1", app="db")],
            {"n1": OK, "n2": OK, "n3": OK, "n4": AFF_FAIL},
            id="self-affinity",
        ),
        pytest.param(
            # nothing matches anywhere, but the pod does not match its own term
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="db"),))),
            [existing("other", "n1", app="other")],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": AFF_FAIL, "n4": AFF_FAIL},
            id="no-match-not-self",
        ),
        pytest.param(
            # self-affinity does not apply once a matching pod exists somewhere (zone a only)
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="web"),))),
            [existing("web-0", "n1", app="web")],
            {"n1": OK, "n2": OK, "n3": AFF_FAIL, "n4": AFF_FAIL},
            id="self-affinity-not-first",
        ),
        pytest.param(
            # a matching pod on a node without the topology key is not counted, so the
            # self-affinity rule applies
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="web"),))),
            [existing("web-0", "n4", app="web")],
            {"n1": OK, "n2": OK, "n3": OK, "n4": AFF_FAIL},
            id="match-on-node-without-key",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(anti_req=(term(HOST, app="web"),))),
            [existing("web-0", "n1", app="web")],
            {"n1": ANTI_FAIL, "n2": OK, "n3": OK, "n4": OK},
            id="anti-affinity-host",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(anti_req=(term(ZONE, app="web"),))),
            [existing("web-0", "n1", app="web"), existing("web-1", "n4", app="web")],
            {"n1": ANTI_FAIL, "n2": ANTI_FAIL, "n3": OK, "n4": OK},
            id="anti-affinity-zone",
        ),
        pytest.param(
            # the existing pod's zone anti-affinity selects the incoming pod
            incoming(app="web"),
            [existing("db", "n1", app="db").affinity(affinity(anti_req=(term(ZONE, app="web"),)))],
            {"n1": EXISTING_FAIL, "n2": EXISTING_FAIL, "n3": OK, "n4": OK},
            id="existing-anti-affinity",
        ),
        pytest.param(
            # terminating pods are still in the snapshot and still count, as upstream
            incoming(app="web"),
            [existing("db", "n3", app="db").terminating().affinity(affinity(anti_req=(term(HOST, app="web"),)))],
            {"n1": OK, "n2": OK, "n3": EXISTING_FAIL, "n4": OK},
            id="existing-terminating",
        ),
        pytest.param(
            # affinity is checked first, then the pod's anti-affinity, then the existing pods'
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="db"),), anti_req=(term(HOST, app="cache"),))),
            [
                existing("db", "n3", app="db"),
                existing("cache", "n3", app="cache").affinity(affinity(anti_req=(term(HOST, app="web"),))),
                existing("x", "n1", app="x").affinity(affinity(anti_req=(term(HOST, app="web"),))),
            ],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": ANTI_FAIL, "n4": AFF_FAIL},
            id="order-affinity-first",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(anti_req=(term(HOST, app="cache"),))),
            [
                existing("cache", "n2", app="cache").affinity(affinity(anti_req=(term(HOST, app="web"),))),
                existing("x", "n1", app="x").affinity(affinity(anti_req=(term(HOST, app="web"),))),
            ],
            {"n1": EXISTING_FAIL, "n2": ANTI_FAIL, "n3": OK, "n4": OK},
            id="order-anti-before-existing",
        ),
        pytest.param(
            # a term without namespaces looks in the pod's own namespace only
            incoming(app="web").affinity(affinity(req=(term(ZONE, app="db"),))),
            [existing("db-a", "n3", ns="team-a", app="db"), existing("other", "n1", ns="default", app="other")],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": AFF_FAIL, "n4": AFF_FAIL},
            id="own-namespace",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(req=(term(ZONE, ns=["team-a"], app="db"),))),
            [existing("db-a", "n3", ns="team-a", app="db"), existing("db2", "n1", ns="default", app="db")],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": OK, "n4": AFF_FAIL},
            id="namespaces-list",
        ),
    ],
)
def test_filter(pod: PodBuilder, pods: list[PodBuilder], expected: Any) -> None:
    assert filter_all(pod, pods) == expected


NS_CLUSTER = {"team-a": {"team": "a"}, "team-b": {"team": "b"}, "default": {}}


@pytest.mark.parametrize(
    "pod,pods,expected",
    [
        pytest.param(
            incoming(app="web").affinity(
                affinity(req=(term(ZONE, ns_selector={"matchLabels": {"team": "a"}}, app="db"),))
            ),
            [existing("db-a", "n3", ns="team-a", app="db"), existing("db-b", "n1", ns="team-b", app="db")],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": OK, "n4": AFF_FAIL},
            id="selector",
        ),
        pytest.param(
            # namespaces and namespaceSelector add up
            incoming(app="web").affinity(
                affinity(anti_req=(term(HOST, ns=["team-b"], ns_selector={"matchLabels": {"team": "a"}}, app="db"),))
            ),
            [
                existing("db-a", "n3", ns="team-a", app="db"),
                existing("db-b", "n1", ns="team-b", app="db"),
                existing("db-default", "n2", ns="default", app="db"),
            ],
            {"n1": ANTI_FAIL, "n2": OK, "n3": ANTI_FAIL, "n4": OK},
            id="namespaces-and-selector",
        ),
        pytest.param(
            # an empty namespaceSelector selects every namespace
            incoming(app="web").affinity(affinity(anti_req=(term(HOST, ns_selector={}, app="db"),))),
            [existing("db-a", "n3", ns="team-a", app="db"), existing("db-b", "n1", ns="team-b", app="db")],
            {"n1": ANTI_FAIL, "n2": OK, "n3": ANTI_FAIL, "n4": OK},
            id="empty-selector",
        ),
        pytest.param(
            # a namespace missing from the input still exists where its pods run
            incoming(app="web").affinity(
                affinity(
                    req=(term(ZONE, ns_selector={"matchLabels": {"kubernetes.io/metadata.name": "ghost"}}, app="db"),)
                )
            ),
            [existing("db", "n3", ns="ghost", app="db")],
            {"n1": AFF_FAIL, "n2": AFF_FAIL, "n3": OK, "n4": AFF_FAIL},
            id="missing-namespace",
        ),
        pytest.param(
            # the existing pod's selector is matched against the incoming pod's namespace labels
            incoming(app="web").namespace("team-a"),
            [
                existing("db-b", "n1", ns="team-b", app="db").affinity(
                    affinity(anti_req=(term(HOST, ns_selector={"matchLabels": {"team": "a"}}, app="web"),))
                ),
                existing("db2", "n3", ns="team-b", app="db").affinity(
                    affinity(anti_req=(term(HOST, ns_selector={"matchLabels": {"team": "b"}}, app="web"),))
                ),
            ],
            {"n1": EXISTING_FAIL, "n2": OK, "n3": OK, "n4": OK},
            id="existing-selector",
        ),
    ],
)
def test_filter_namespace_selector(pod: PodBuilder, pods: list[PodBuilder], expected: Any) -> None:
    assert filter_all(pod, pods, cluster_with_namespaces(**NS_CLUSTER)) == expected


def test_filter_without_pre_filter_state_is_an_error() -> None:
    h, pl = setup([])
    st = pl.filter(CycleState(), incoming().obj(), h.snapshot.get("n1"))
    assert st.code is Code.ERROR


# --- AddPod / RemovePod -------------------------------------------------------------------------


def test_add_and_remove_pod_anti_affinity() -> None:
    h, pl = setup([])
    pod = incoming(app="web").affinity(affinity(anti_req=(term(ZONE, app="db"),))).obj()
    state = CycleState()
    _, st = pl.pre_filter(state, pod)
    assert st.is_success()
    n1, n2 = h.snapshot.get("n1"), h.snapshot.get("n2")
    db = PodInfo.of(existing("db", "n2", app="db").obj())

    added = state.clone()
    assert pl.pre_filter_extensions().add_pod(added, pod, db, n2).is_success()
    assert pl.filter(added, pod, n1).reasons == (ANTI,)  # same zone as n2
    assert pl.filter(state, pod, n1).is_success()  # the original state is untouched

    assert pl.pre_filter_extensions().remove_pod(added, pod, db, n2).is_success()
    assert pl.filter(added, pod, n1).is_success()


def test_add_pod_with_anti_affinity_to_the_incoming_pod() -> None:
    h, pl = setup([existing("x", "n3", app="x").affinity(affinity(anti_req=(term(HOST, app="web"),)))])
    pod = incoming(app="web").obj()
    state = CycleState()
    _, st = pl.pre_filter(state, pod)
    assert st.is_success()
    n1, n3 = h.snapshot.get("n1"), h.snapshot.get("n3")
    guard = PodInfo.of(existing("guard", "n1", app="g").affinity(affinity(anti_req=(term(ZONE, app="web"),))).obj())
    added = state.clone()
    pl.pre_filter_extensions().add_pod(added, pod, guard, n1)
    assert pl.filter(added, pod, h.snapshot.get("n2")).reasons == (EXISTING,)
    assert pl.filter(state, pod, h.snapshot.get("n2")).is_success()
    # removing the pod that was there at PreFilter clears its node
    x = h.snapshot.get("n3").pods[0]
    removed = state.clone()
    pl.pre_filter_extensions().remove_pod(removed, pod, x, n3)
    assert pl.filter(removed, pod, n3).is_success()
    assert pl.filter(state, pod, n3).reasons == (EXISTING,)


def test_remove_last_affinity_match_enables_self_affinity() -> None:
    h, pl = setup([existing("web-0", "n1", app="web")])
    pod = incoming(app="web").affinity(affinity(req=(term(ZONE, app="web"),))).obj()
    state = CycleState()
    pl.pre_filter(state, pod)
    n1, n3 = h.snapshot.get("n1"), h.snapshot.get("n3")
    assert pl.filter(state, pod, n3).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    removed = state.clone()
    pl.pre_filter_extensions().remove_pod(removed, pod, n1.pods[0], n1)
    # nothing matches anywhere any more and the pod matches its own term
    assert pl.filter(removed, pod, n3).is_success()


# --- PreScore, Score, NormalizeScore ------------------------------------------------------------


def run_score(
    pod: PodBuilder, pods: list[PodBuilder], args: dict[str, Any] | None = None, nodes: tuple[str, ...] = NODE_NAMES
) -> tuple[dict[str, int], dict[str, int]] | Code:
    h, pl = setup(pods, cluster_with_namespaces(**NS_CLUSTER), args)
    p = pod.obj()
    state = CycleState()
    infos = [h.snapshot.get(n) for n in nodes]
    st = pl.pre_score(state, p, infos)
    if not st.is_success():
        return st.code
    raw: dict[str, int] = {}
    for ni in infos:
        s, st = pl.score(state, p, ni)
        assert st.is_success()
        raw[ni.name] = s
    scores = [NodeScore(n, raw[n]) for n in nodes]
    assert pl.normalize_score(state, p, scores).is_success()
    return raw, {s.name: s.score for s in scores}


ANCHOR_REQ = affinity(req=(term(ZONE, app="web"),))  # an existing pod requiring the incoming pod's zone


@pytest.mark.parametrize(
    "pod,pods,args,expected",
    [
        pytest.param(incoming(app="web"), [existing("db", "n1", app="db")], None, Code.SKIP, id="no-affinity-skip"),
        pytest.param(
            incoming(app="web").affinity(affinity(pref=(weighted(10, term(ZONE, app="db")),))),
            [existing("db-0", "n1", app="db"), existing("db-1", "n2", app="db"), existing("db-2", "n3", app="db")],
            None,
            ({"n1": 20, "n2": 20, "n3": 10, "n4": 0}, {"n1": 100, "n2": 100, "n3": 50, "n4": 0}),
            id="preferred-affinity",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(anti_pref=(weighted(5, term(HOST, app="web")),))),
            [existing("web-0", "n1", app="web"), existing("web-1", "n1", app="web")],
            None,
            ({"n1": -10, "n2": 0, "n3": 0, "n4": 0}, {"n1": 0, "n2": 100, "n3": 100, "n4": 100}),
            id="preferred-anti-affinity-negative",
        ),
        pytest.param(
            incoming(app="web").affinity(
                affinity(pref=(weighted(4, term(ZONE, app="db")),), anti_pref=(weighted(7, term(HOST, app="web")),))
            ),
            [existing("db", "n3", app="db"), existing("web-0", "n1", app="web"), existing("web-1", "n3", app="web")],
            None,
            # n1 -7, n3 4 - 7 = -3; min -7, max 0: 100*4/7 = 57.14, 100*7/7
            ({"n1": -7, "n2": 0, "n3": -3, "n4": 0}, {"n1": 0, "n2": 100, "n3": 57, "n4": 100}),
            id="mixed-negative",
        ),
        pytest.param(
            # existing pods' preferred terms that select the incoming pod
            incoming(app="web"),
            [
                existing("a", "n1", app="a").affinity(affinity(pref=(weighted(30, term(ZONE, app="web")),))),
                existing("b", "n3", app="b").affinity(affinity(anti_pref=(weighted(20, term(ZONE, app="web")),))),
            ],
            None,
            ({"n1": 30, "n2": 30, "n3": -20, "n4": 0}, {"n1": 100, "n2": 100, "n3": 0, "n4": 40}),
            id="existing-preferred",
        ),
        pytest.param(
            # an existing pod's required affinity counts with hardPodAffinityWeight (default 1)
            incoming(app="web"),
            [existing("anchor", "n3", app="anchor").affinity(ANCHOR_REQ)],
            None,
            ({"n1": 0, "n2": 0, "n3": 1, "n4": 0}, {"n1": 0, "n2": 0, "n3": 100, "n4": 0}),
            id="hard-weight-default",
        ),
        pytest.param(
            incoming(app="web"),
            [existing("anchor", "n3", app="anchor").affinity(ANCHOR_REQ)],
            {"hardPodAffinityWeight": 7},
            ({"n1": 0, "n2": 0, "n3": 7, "n4": 0}, {"n1": 0, "n2": 0, "n3": 100, "n4": 0}),
            id="hard-weight-7",
        ),
        pytest.param(
            # weight 0 turns it off; nothing else contributes, so PreScore skips
            incoming(app="web"),
            [existing("anchor", "n3", app="anchor").affinity(ANCHOR_REQ)],
            {"hardPodAffinityWeight": 0},
            Code.SKIP,
            id="hard-weight-0-skip",
        ),
        pytest.param(
            incoming(app="web").affinity(affinity(pref=(weighted(3, term(ZONE, app="db")),))),
            [existing("anchor", "n3", app="anchor").affinity(ANCHOR_REQ), existing("db", "n1", app="db")],
            {"hardPodAffinityWeight": 0},
            ({"n1": 3, "n2": 3, "n3": 0, "n4": 0}, {"n1": 100, "n2": 100, "n3": 0, "n4": 0}),
            id="hard-weight-0-with-preferences",
        ),
        pytest.param(
            # without preferences of its own, ignorePreferredTermsOfExistingPods skips PreScore
            incoming(app="web"),
            [existing("anchor", "n3", app="anchor").affinity(ANCHOR_REQ)],
            {"ignorePreferredTermsOfExistingPods": True},
            Code.SKIP,
            id="ignore-existing-skip",
        ),
        pytest.param(
            # with preferences of its own, the existing pods' terms still count
            incoming(app="web").affinity(affinity(pref=(weighted(3, term(ZONE, app="db")),))),
            [
                existing("db", "n1", app="db"),
                existing("a", "n3", app="a").affinity(affinity(pref=(weighted(9, term(HOST, app="web")),))),
            ],
            {"ignorePreferredTermsOfExistingPods": True},
            ({"n1": 3, "n2": 3, "n3": 9, "n4": 0}, {"n1": 33, "n2": 33, "n3": 100, "n4": 0}),
            id="ignore-existing-with-preferences",
        ),
        pytest.param(
            # contributions that cancel out still make PreScore run; every node then scores 0
            incoming(app="web").affinity(
                affinity(pref=(weighted(5, term(ZONE, app="db")),), anti_pref=(weighted(5, term(ZONE, app="db")),))
            ),
            [existing("db", "n1", app="db")],
            None,
            ({"n1": 0, "n2": 0, "n3": 0, "n4": 0}, {"n1": 0, "n2": 0, "n3": 0, "n4": 0}),
            id="cancelled-out",
        ),
        pytest.param(
            # namespaceSelector of a preferred term
            incoming(app="web").affinity(
                affinity(pref=(weighted(8, term(ZONE, ns_selector={"matchLabels": {"team": "a"}}, app="db")),))
            ),
            [existing("db-a", "n3", ns="team-a", app="db"), existing("db-b", "n1", ns="team-b", app="db")],
            None,
            ({"n1": 0, "n2": 0, "n3": 8, "n4": 0}, {"n1": 0, "n2": 0, "n3": 100, "n4": 0}),
            id="preferred-namespace-selector",
        ),
    ],
)
def test_score(pod: PodBuilder, pods: list[PodBuilder], args: dict[str, Any] | None, expected: Any) -> None:
    assert run_score(pod, pods, args) == expected


def test_pre_score_without_nodes_skips() -> None:
    h, pl = setup([existing("db", "n1", app="db")])
    pod = incoming(app="web").affinity(affinity(pref=(weighted(1, term(ZONE, app="db")),))).obj()
    assert pl.pre_score(CycleState(), pod, []).code is Code.SKIP


def test_pods_on_nodes_without_labels_do_not_contribute() -> None:
    node = make_node().name("bare")
    node.d["metadata"]["labels"] = {}
    h = make_handle([node.obj()], [existing("db", "bare", app="db").obj()])
    pl = ipa.new(plugin_args(ipa.NAME), h)
    pod = incoming(app="web").affinity(affinity(pref=(weighted(1, term(ZONE, app="db")),))).obj()
    assert pl.pre_score(CycleState(), pod, [h.snapshot.get("bare")]).code is Code.SKIP


@pytest.mark.parametrize(
    "raw,normalized",
    [
        pytest.param(
            [0, 29, 100], [0, 28, 100], id="float64-truncation"
        ),  # 100 * (29/100) is 28.999999999999996 in float64
        pytest.param([-3, 0, 4], [0, 42, 100], id="negative-min"),
        pytest.param([5, 5], [0, 0], id="all-equal"),
        pytest.param([-10, -10, -4], [0, 0, 100], id="all-negative"),
    ],
)
def test_normalize_score(raw: list[int], normalized: list[int]) -> None:
    pl = ipa.new(plugin_args(ipa.NAME), None)
    state = CycleState()
    state.write(ipa.PRE_SCORE_STATE_KEY, ipa.PreScoreState({ZONE: {"a": 1}}))
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    assert pl.normalize_score(state, incoming().obj(), scores).is_success()
    assert [s.score for s in scores] == normalized
