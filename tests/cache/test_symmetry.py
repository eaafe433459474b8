"""Adding then removing a pod, and assuming then forgetting it, leave the cache as it was: every
NodeInfo aggregate (requested, non-zero requested, host ports, the pods with (anti-)affinity,
image states, PVC reference counts) and the Snapshot's own indexes. Only the generation moves on:
it counts changes (two here), so a caller can tell something happened in between."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.cache.node_info import NodeInfo
from kwhatif.cache.snapshot import Snapshot

from builders import PodBuilder, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
GPU = "nvidia.com/gpu"

REQUIRED_AFFINITY = {
    "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}
        ]
    }
}
REQUIRED_ANTI_AFFINITY = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
        ]
    }
}
PREFERRED_ANTI_AFFINITY = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE}}
        ]
    }
}


def _node(name: str) -> Any:
    return (
        make_node()
        .name(name)
        .label(ZONE, "a")
        .capacity(cpu="16", memory="64Gi", pods="110", **{GPU: "4"})
        .image(500_000_000, "nginx:1.27", "docker.io/library/nginx:1.27")
        .image(100_000_000, "busybox")
        .obj()
    )


def _existing() -> list[Any]:
    """Pods already on n1 and n2: requests, ports, affinity, a claim, a GPU."""
    return [
        make_pod().name("web-0").label("app", "web").node("n1").req(cpu="500m", memory="1Gi").host_port(8080).obj(),
        make_pod()
        .name("db-0")
        .label("app", "db")
        .node("n1")
        .req(cpu="2", memory="4Gi")
        .pvc("data-db-0")
        .affinity(REQUIRED_ANTI_AFFINITY)
        .obj(),
        make_pod().name("gpu-0").node("n1").req(cpu="1", **{GPU: "1"}).obj(),
        make_pod().name("cache-0").node("n2").req(memory="512Mi").affinity(PREFERRED_ANTI_AFFINITY).obj(),
    ]


def _resource(r: Any) -> tuple[Any, ...]:
    # A scalar resource brought back to 0 keeps its key, as upstream's ScalarResources map does;
    # 0 and absent mean the same to every reader.
    return (
        r.milli_cpu,
        r.memory,
        r.ephemeral_storage,
        r.allowed_pod_number,
        sorted((k, v) for k, v in r.scalar.items() if v),
    )


def _node_state(ni: NodeInfo) -> dict[str, Any]:
    return {
        "pods": [(pi.pod.key, pi.pod.uid) for pi in ni.pods],
        "pods_with_affinity": [pi.pod.key for pi in ni.pods_with_affinity],
        "pods_with_required_anti_affinity": [pi.pod.key for pi in ni.pods_with_required_anti_affinity],
        "used_ports": {ip: sorted(pp) for ip, pp in ni.used_ports.ports.items()},
        "requested": _resource(ni.requested),
        "non_zero_requested": _resource(ni.non_zero_requested),
        "image_states": {k: (id(v), v.size, v.num_nodes) for k, v in ni.image_states.items()},
        "pvc_ref_counts": dict(ni.pvc_ref_counts),
    }


def _state(s: Snapshot) -> dict[str, Any]:
    return {
        "nodes": {ni.name: _node_state(ni) for ni in s.node_infos},
        "where": {p.pod.key: s.node_of(p.pod) for p in s.pods()},
        "with_affinity": [ni.name for ni in s.have_pods_with_affinity()],
        "with_required_anti_affinity": [ni.name for ni in s.have_pods_with_required_anti_affinity()],
        "affinity_term_groups": _groups(s),
        "pvcs_in_use": {k: s.is_pvc_used_by_pods(k) for k in ("default/data-db-0", "default/data-new")},
    }


INCOMING = [
    pytest.param(make_pod().name("plain").req(cpu="250m", memory="256Mi"), id="requests"),
    pytest.param(make_pod().name("best-effort"), id="no-requests-non-zero-defaults"),
    pytest.param(
        make_pod().name("ports").req(cpu="100m").host_port(9090).host_port(53, "UDP", "10.0.0.1"), id="host-ports"
    ),
    pytest.param(make_pod().name("same-port").host_port(8080, "UDP"), id="port-used-with-another-protocol"),
    pytest.param(make_pod().name("affine").label("app", "api").affinity(REQUIRED_AFFINITY), id="required-affinity"),
    pytest.param(
        make_pod().name("anti").label("app", "web").affinity(REQUIRED_ANTI_AFFINITY), id="required-anti-affinity"
    ),
    pytest.param(make_pod().name("soft").affinity(PREFERRED_ANTI_AFFINITY), id="preferred-anti-affinity"),
    pytest.param(make_pod().name("gpu").req(cpu="1", **{GPU: "2"}), id="extended-resource"),
    pytest.param(make_pod().name("new-gpu").container("cuda", **{GPU: "1"}), id="extended-resource-new-key"),
    pytest.param(make_pod().name("claims").pvc("data-new").pvc("data-db-0", name="shared"), id="claims"),
    pytest.param(
        make_pod().name("sidecar").req(cpu="100m").init_container("proxy", sidecar=True, cpu="50m", memory="64Mi"),
        id="sidecar",
    ),
    pytest.param(make_pod().name("heavy").req(cpu="1").overhead(cpu="250m", memory="120Mi"), id="overhead"),
]


@pytest.fixture
def snapshot() -> Snapshot:
    return Snapshot([_node("n1"), _node("n2"), _node("n3")], _existing())


@pytest.mark.parametrize("pod", INCOMING)
@pytest.mark.parametrize("node", ["n1", "n3"], ids=["busy-node", "empty-node"])
def test_add_then_remove_leaves_no_trace(snapshot: Snapshot, pod: PodBuilder, node: str) -> None:
    before, generation = _state(snapshot), snapshot.generation
    p = pod.node(node).obj()
    snapshot.add_pod(p)
    assert _state(snapshot) != before  # the pod was there
    assert snapshot.remove_pod(p)
    assert _state(snapshot) == before
    assert snapshot.generation == generation + 2


@pytest.mark.parametrize("pod", INCOMING)
@pytest.mark.parametrize("node", ["n1", "n3"], ids=["busy-node", "empty-node"])
def test_assume_then_forget_leaves_no_trace(snapshot: Snapshot, pod: PodBuilder, node: str) -> None:
    before, generation = _state(snapshot), snapshot.generation
    assumed = snapshot.assume(pod.obj(), node)
    assert assumed.node_name == node and snapshot.node_of(assumed) == node
    snapshot.forget(assumed)
    assert snapshot.node_of(assumed) is None
    assert _state(snapshot) == before
    assert snapshot.generation == generation + 2


def test_removing_an_existing_pod_and_adding_it_back_restores_the_aggregates(snapshot: Snapshot) -> None:
    """The order of a node's pods changes (RemovePod moves the last pod into the gap, the pod comes
    back last), every aggregate does not."""
    before = _state(snapshot)
    db = next(pi.pod for pi in snapshot.pods() if pi.pod.name == "db-0")
    assert snapshot.remove_pod(db)
    snapshot.add_pod(db)
    after = _state(snapshot)
    for field in ("pods", "pods_with_affinity", "pods_with_required_anti_affinity"):
        assert sorted(after["nodes"]["n1"][field]) == sorted(before["nodes"]["n1"][field])
        after["nodes"]["n1"][field] = before["nodes"]["n1"][field]
    assert after == before


def test_forgetting_a_pod_that_is_not_there_changes_nothing(snapshot: Snapshot) -> None:
    before, generation = _state(snapshot), snapshot.generation
    snapshot.forget(make_pod().name("ghost").node("n1").obj())
    assert _state(snapshot) == before and snapshot.generation == generation


def test_node_info_clone_is_independent(snapshot: Snapshot) -> None:
    """What preemption's dry runs rely on: adding to and removing from a clone leaves the original
    untouched."""
    ni = snapshot.get("n1")
    assert ni is not None
    before = _node_state(ni)
    clone = ni.clone()
    clone.add_pod(make_pod().name("extra").node("n1").req(cpu="1", **{GPU: "1"}).host_port(7070).obj())
    web = next(pi.pod for pi in clone.pods if pi.pod.name == "web-0")
    assert clone.remove_pod(web)
    assert _node_state(ni) == before


def _groups(s: Snapshot) -> dict[tuple[int, int, int], dict[str, int]]:
    return {(id(req), id(pref), id(anti)): dict(on) for req, pref, anti, on in s.affinity_term_groups()}


def _recount(s: Snapshot) -> dict[tuple[int, int, int], dict[str, int]]:
    out: dict[tuple[int, int, int], dict[str, int]] = {}
    for ni in s.node_infos:
        for pi in ni.pods_with_affinity:
            k = (id(pi.required_affinity_terms), id(pi.preferred_affinity_terms), id(pi.preferred_anti_affinity_terms))
            on = out.setdefault(k, {})
            on[ni.name] = on.get(ni.name, 0) + 1
    return out


def test_affinity_term_groups_count_the_pods_with_affinity_by_their_terms(snapshot: Snapshot) -> None:
    """Replicas share their terms: one group of them, counted per node; a group, and a node of
    it, go when their last pod does."""
    replicas = [make_pod().name(f"cache-{i}").node("n2").affinity(PREFERRED_ANTI_AFFINITY).obj() for i in (1, 2, 3)]
    elsewhere = make_pod().name("cache-9").node("n1").affinity(PREFERRED_ANTI_AFFINITY).obj()
    for p in [*replicas, elsewhere]:
        snapshot.add_pod(p)
    snapshot.add_pod(make_pod().name("affine").node("n2").affinity(REQUIRED_AFFINITY).obj())
    counts = sorted(sorted(on.items()) for *_, on in snapshot.affinity_term_groups())
    assert counts == [[("n1", 1)], [("n1", 1), ("n2", 4)], [("n2", 1)]]  # db-0, the replicas, affine
    assert _groups(snapshot) == _recount(snapshot)
    snapshot.remove_pod(replicas[0])
    snapshot.remove_pod(elsewhere)
    assert sorted(sorted(on.items()) for *_, on in snapshot.affinity_term_groups()) == [
        [("n1", 1)],
        [("n2", 1)],
        [("n2", 3)],
    ]
    for p in replicas[1:]:
        snapshot.remove_pod(p)
    snapshot.remove_pod(make_pod().name("affine").node("n2").obj())
    assert _groups(snapshot) == _recount(snapshot)
    assert sorted(sorted(on.items()) for *_, on in snapshot.affinity_term_groups()) == [[("n1", 1)], [("n2", 1)]]
    snapshot.remove_pod(make_pod().name("cache-0").node("n2").obj())
    snapshot.remove_pod(make_pod().name("db-0").node("n1").obj())
    assert list(snapshot.affinity_term_groups()) == []
