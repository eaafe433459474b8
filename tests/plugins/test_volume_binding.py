"""VolumeBinding: PreFilter statuses and the local-PV PreFilterResult, Filter reasons for bound
and unbound claims (static matching, provisioning, allowed topologies, storage capacity), and
the assume cache that Reserve fills, Unreserve reverts and later cycles read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.api import storage
from kwhatif.cache.cluster import ClusterState
from kwhatif.errors import ConfigError
from kwhatif.framework.handle import Handle
from kwhatif.framework.interface import Code, CycleState, PreFilterResult
from kwhatif.plugins import volume_binding as vb

from builders import make_cluster, make_handle, make_node, make_pod, plugin_args

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
DRIVER = "csi.example.com"

NODE_CONFLICT = vb.ERR_REASON_NODE_CONFLICT
BIND_CONFLICT = vb.ERR_REASON_BIND_CONFLICT
NO_SPACE = vb.ERR_REASON_NOT_ENOUGH_SPACE
PV_GONE = vb.ERR_REASON_PV_NOT_EXIST


# --- storage objects ----------------------------------------------------------------------------


def claim(
    name: str,
    sc: str | None = "wffc",
    size: str = "10Gi",
    volume: str = "",
    bound: bool = True,
    modes: Sequence[str] = ("ReadWriteOnce",),
    annotations: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    ann = dict(annotations or {})
    if volume and bound:
        ann["pv.kubernetes.io/bind-completed"] = "yes"
    spec: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    spec.update(extra.pop("spec", {}))
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": ann}
    meta.update(extra.pop("meta", {}))
    return {"kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec, "status": extra.pop("status", {})}


def volume(
    name: str,
    size: str = "10Gi",
    sc: str = "wffc",
    phase: str | None = "Available",
    hosts: Sequence[str] = (),
    zone: str = "",
    claim_ref: str = "",
    modes: Sequence[str] = ("ReadWriteOnce",),
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    s: dict[str, Any] = {
        "accessModes": list(modes),
        "capacity": {"storage": size},
        "storageClassName": sc,
        "csi": {"driver": DRIVER, "volumeHandle": f"vh-{name}"},
    }
    exprs = []
    if hosts:
        exprs.append({"key": HOST, "operator": "In", "values": list(hosts)})
    if zone:
        exprs.append({"key": ZONE, "operator": "In", "values": [zone]})
    if exprs:
        s["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}
    if claim_ref:
        s["claimRef"] = {"namespace": "default", "name": claim_ref}
    s.update(spec)
    d: dict[str, Any] = {"kind": "PersistentVolume", "metadata": {"name": name, "labels": labels or {}}, "spec": s}
    if phase is not None:
        d["status"] = {"phase": phase}
    return d


def sc(
    name: str, provisioner: str = DRIVER, mode: str = "WaitForFirstConsumer", zones: Sequence[str] = ()
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "volumeBindingMode": mode,
    }
    if zones:
        d["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": list(zones)}]}]
    return d


CLASSES = [
    sc("wffc"),
    sc("immediate", mode="Immediate"),
    sc("static", "kubernetes.io/no-provisioner"),
    sc("zonal", zones=["a"]),
]


def cluster_of(objs: Sequence[dict[str, Any]]) -> ClusterState:
    return make_cluster(list(CLASSES) + list(objs))


NODES = [
    make_node().name("n1").label(ZONE, "a"),
    make_node().name("n2").label(ZONE, "b"),
    make_node().name("n3").label(ZONE, "a"),
]


def handle_for(objs: Sequence[dict[str, Any]]) -> Handle:
    return make_handle([n.obj() for n in NODES], [], cluster_of(objs))


def pre_filter(pod: Any, objs: Sequence[dict[str, Any]]) -> tuple[PreFilterResult | None, Code, tuple[str, ...]]:
    pl = vb.new(plugin_args(vb.NAME), handle_for(objs))
    r, st = pl.pre_filter(CycleState(), pod.obj())
    return r, st.code, st.reasons


def filter_all(pl: vb.VolumeBinding, pod: Any) -> tuple[CycleState, dict[str, tuple[str, ...]]]:
    """Run PreFilter (which must succeed) and Filter on every node: the reasons per node."""
    st = CycleState()
    p = pod.obj()
    _, pre = pl.pre_filter(st, p)
    assert pre.is_success(), pre
    out = {}
    for ni in pl.handle.snapshot.node_infos:
        s = pl.filter(st, p, ni)
        assert s.code in (Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE), s
        out[ni.name] = s.reasons
    return st, out


def reasons(pod: Any, objs: Sequence[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    return filter_all(vb.new(plugin_args(vb.NAME), handle_for(objs)), pod)[1]


def pod_with(*claims: str, name: str = "p") -> Any:
    b = make_pod().name(name)
    for c in claims:
        b.pvc(c)
    return b


EPHEMERAL = {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}


def owned_by(uid: str) -> dict[str, Any]:
    return {
        "meta": {"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": uid, "controller": True}]}
    }


# --- PreFilter ----------------------------------------------------------------------------------


def unresolvable(msg: str) -> tuple[None, Code, tuple[str, ...]]:
    return None, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)


@pytest.mark.parametrize(
    "pod,objs,want",
    [
        pytest.param(make_pod().name("p"), [], (None, Code.SKIP, ()), id="no-volumes"),
        pytest.param(
            make_pod().name("p").volume({"name": "t", "emptyDir": {}}), [], (None, Code.SKIP, ()), id="no-claims"
        ),
        pytest.param(pod_with("data"), [], unresolvable('persistentvolumeclaim "data" not found'), id="missing-claim"),
        pytest.param(
            make_pod().name("p").volume(EPHEMERAL),
            [],
            unresolvable('waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"'),
            id="ephemeral-not-created",
        ),
        pytest.param(
            make_pod().name("p").uid("uid-p").volume(EPHEMERAL),
            [claim("p-scratch", **owned_by("uid-other"))],
            unresolvable("PVC default/p-scratch was not created for pod default/p (pod is not owner)"),
            id="ephemeral-not-owner",
        ),
        pytest.param(
            make_pod().name("p").uid("uid-p").volume(EPHEMERAL),
            [claim("p-scratch", **owned_by("uid-p"))],
            (None, Code.SUCCESS, ()),
            id="ephemeral-owned",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-x", status={"phase": "Lost"})],
            unresolvable('persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-x"'),
            id="claim-lost",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", meta={"deletionTimestamp": "2024-01-01T00:00:00Z"})],
            unresolvable('persistentvolumeclaim "data" is being deleted'),
            id="claim-deleting",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="immediate")],
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="unbound-immediate",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="missing")],
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="missing-class",
        ),
        pytest.param(
            pod_with("data"), [claim("data", sc=None)], unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE), id="no-class"
        ),
        pytest.param(
            pod_with("data"), [claim("data", sc="")], unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE), id="empty-class"
        ),
        # pre-bound through spec.volumeName but not marked complete: still waiting for the PV controller
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-1", bound=False), volume("pv-1")],
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="volume-name-not-complete",
        ),
        # the beta annotation wins over spec.storageClassName, both ways
        pytest.param(
            pod_with("data"),
            [claim("data", sc="immediate", annotations={"volume.beta.kubernetes.io/storage-class": "wffc"})],
            (None, Code.SUCCESS, ()),
            id="beta-annotation-wffc",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="wffc", annotations={"volume.beta.kubernetes.io/storage-class": "immediate"})],
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="beta-annotation-immediate",
        ),
        pytest.param(pod_with("data"), [claim("data")], (None, Code.SUCCESS, ()), id="unbound-wffc"),
        # bound claims: local PVs restrict the nodes
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-1"), volume("pv-1", hosts=["n1"])],
            (PreFilterResult(frozenset({"n1"})), Code.SUCCESS, ()),
            id="local-pv",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-1"), volume("pv-1", zone="a")],
            (None, Code.SUCCESS, ()),
            id="zonal-pv-no-subset",
        ),
        # nodes that do not exist stay in the subset
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-1"), volume("pv-1", hosts=["n1", "ghost"])],
            (PreFilterResult(frozenset({"n1", "ghost"})), Code.SUCCESS, ()),
            id="local-pv-unknown-node",
        ),
        pytest.param(
            pod_with("a", "b"),
            [
                claim("a", volume="pv-a"),
                claim("b", volume="pv-b"),
                volume("pv-a", hosts=["n1", "n2"]),
                volume("pv-b", hosts=["n2", "n3"]),
            ],
            (PreFilterResult(frozenset({"n2"})), Code.SUCCESS, ()),
            id="local-pvs-intersect",
        ),
        # disjoint subsets: empty, which the framework reports as "didn't satisfy plugin"
        pytest.param(
            pod_with("a", "b"),
            [
                claim("a", volume="pv-a"),
                claim("b", volume="pv-b"),
                volume("pv-a", hosts=["n1"]),
                volume("pv-b", hosts=["n2"]),
            ],
            (PreFilterResult(frozenset()), Code.SUCCESS, ()),
            id="local-pvs-disjoint",
        ),
        # a missing bound PV gives up the reduction (Filter reports it)
        pytest.param(
            pod_with("a", "b"),
            [claim("a", volume="pv-a"), claim("b", volume="pv-gone"), volume("pv-a", hosts=["n1"])],
            (None, Code.SUCCESS, ()),
            id="missing-bound-pv",
        ),
    ],
)
def test_pre_filter(pod: Any, objs: list[dict[str, Any]], want: Any) -> None:
    assert pre_filter(pod, objs) == want


@pytest.mark.parametrize(
    "terms,want",
    [
        pytest.param(
            [{"matchExpressions": [{"key": HOST, "operator": "In", "values": ["n1", "n2"]}]}],
            ["n1", "n2"],
            id="one-term",
        ),
        # several hostname expressions in one term intersect
        pytest.param(
            [
                {
                    "matchExpressions": [
                        {"key": HOST, "operator": "In", "values": ["n1", "n2"]},
                        {"key": HOST, "operator": "In", "values": ["n2", "n3"]},
                    ]
                }
            ],
            ["n2"],
            id="intersect",
        ),
        # terms unite; a term without a hostname expression adds nothing
        pytest.param(
            [
                {"matchExpressions": [{"key": HOST, "operator": "In", "values": ["n1"]}]},
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["b"]}]},
            ],
            ["n1"],
            id="union",
        ),
        pytest.param([{"matchExpressions": [{"key": HOST, "operator": "NotIn", "values": ["n1"]}]}], [], id="not-in"),
        pytest.param([{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a"]}]}], [], id="no-hostname"),
    ],
)
def test_local_pv_node_names(terms: list[dict[str, Any]], want: list[str]) -> None:
    pv = storage.persistent_volume(volume("pv", nodeAffinity={"required": {"nodeSelectorTerms": terms}}))
    assert vb.local_pv_node_names(pv) == want


# --- Filter -------------------------------------------------------------------------------------


def everywhere(*rs: str) -> dict[str, tuple[str, ...]]:
    return {"n1": rs, "n2": rs, "n3": rs}


ONLY_N1 = {"n1": (), "n2": (BIND_CONFLICT,), "n3": (BIND_CONFLICT,)}
ZONE_A = {"n1": (), "n2": (BIND_CONFLICT,), "n3": ()}


@pytest.mark.parametrize(
    "pod,objs,want",
    [
        # bound claims: the PV's node affinity
        pytest.param(
            pod_with("data"),
            [claim("data", volume="pv-1"), volume("pv-1", zone="a")],
            {"n1": (), "n2": (NODE_CONFLICT,), "n3": ()},
            id="bound-affinity",
        ),
        pytest.param(pod_with("data"), [claim("data", volume="pv-gone")], everywhere(PV_GONE), id="bound-pv-missing"),
        # static PVs for an unbound claim of a class without provisioner
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="static", hosts=["n1"])],
            ONLY_N1,
            id="static-match",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="static", phase=None, hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-pending-default",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="static", phase="Released", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-released",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="wffc", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-other-class",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="static", size="5Gi", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-too-small",
        ),
        pytest.param(
            pod_with("data"),
            [
                claim("data", sc="static", modes=["ReadWriteOnce", "ReadOnlyMany"]),
                volume("pv-1", sc="static", hosts=["n1"]),
            ],
            everywhere(BIND_CONFLICT),
            id="static-access-modes",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static", spec={"volumeMode": "Block"}), volume("pv-1", sc="static", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-volume-mode",
        ),
        pytest.param(
            pod_with("data"),
            [
                claim("data", sc="static", spec={"selector": {"matchLabels": {"tier": "fast"}}}),
                volume("pv-1", sc="static", hosts=["n1"]),
            ],
            everywhere(BIND_CONFLICT),
            id="static-selector-miss",
        ),
        pytest.param(
            pod_with("data"),
            [
                claim("data", sc="static", spec={"selector": {"matchLabels": {"tier": "fast"}}}),
                volume("pv-1", sc="static", hosts=["n1"], labels={"tier": "fast"}),
            ],
            ONLY_N1,
            id="static-selector-match",
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="static", claim_ref="other", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-claimed-by-other",
        ),
        # a PV pre-bound to the claim is taken whatever its phase or labels ...
        pytest.param(
            pod_with("data"),
            [
                claim("data", sc="static", spec={"selector": {"matchLabels": {"tier": "fast"}}}),
                volume("pv-1", sc="static", phase=None, claim_ref="data", hosts=["n1"]),
            ],
            ONLY_N1,
            id="static-prebound",
        ),
        # ... but only within the claim's class
        pytest.param(
            pod_with("data"),
            [claim("data", sc="static"), volume("pv-1", sc="other", claim_ref="data", hosts=["n1"])],
            everywhere(BIND_CONFLICT),
            id="static-prebound-other-class",
        ),
        # dynamic provisioning
        pytest.param(pod_with("data"), [claim("data")], everywhere(), id="provision"),
        pytest.param(pod_with("data"), [claim("data", sc="zonal")], ZONE_A, id="provision-allowed-topologies"),
        pytest.param(pod_with("data"), [claim("data", sc="static")], everywhere(BIND_CONFLICT), id="no-provisioner"),
        # a static PV wins over provisioning on its node; the others provision
        pytest.param(
            pod_with("data"), [claim("data"), volume("pv-1", hosts=["n2"])], everywhere(), id="static-or-provision"
        ),
        pytest.param(
            pod_with("data"),
            [claim("data", annotations={"volume.kubernetes.io/selected-node": "n3"})],
            {"n1": (BIND_CONFLICT,), "n2": (BIND_CONFLICT,), "n3": ()},
            id="selected-node",
        ),
        # bound and unbound reasons together, in upstream's order
        pytest.param(
            pod_with("a", "b"),
            [claim("a", volume="pv-a"), volume("pv-a", zone="c"), claim("b", sc="zonal")],
            {"n1": (NODE_CONFLICT,), "n2": (NODE_CONFLICT, BIND_CONFLICT), "n3": (NODE_CONFLICT,)},
            id="bound-and-unbound",
        ),
        # one PV cannot serve two claims
        pytest.param(
            pod_with("a", "b"),
            [claim("a", sc="static"), claim("b", sc="static"), volume("pv-1", sc="static", hosts=["n1", "n2"])],
            everywhere(BIND_CONFLICT),
            id="one-pv-two-claims",
        ),
    ],
)
def test_filter(pod: Any, objs: list[dict[str, Any]], want: dict[str, tuple[str, ...]]) -> None:
    assert reasons(pod, objs) == want


def test_deleting_pv_is_not_matched() -> None:
    pv = volume("pv-1", sc="static", hosts=["n1"])
    pv["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    assert reasons(pod_with("data"), [claim("data", sc="static"), pv]) == everywhere(BIND_CONFLICT)


def test_smallest_pv_wins() -> None:
    objs = [
        claim("data", size="5Gi", sc="static"),
        volume("pv-big", size="100Gi", sc="static"),
        volume("pv-small", size="8Gi", sc="static"),
        volume("pv-tiny", size="1Gi", sc="static"),
        volume("pv-mid", size="20Gi", sc="static"),
    ]
    pl = vb.new(plugin_args(vb.NAME), handle_for(objs))
    st, _ = filter_all(pl, pod_with("data"))
    state = st.read(vb.STATE_KEY)
    assert [b.pv.name for b in state.pod_volumes_by_node["n1"].static_bindings] == ["pv-small"]


def test_smaller_claims_choose_first() -> None:
    objs = [
        claim("big", size="10Gi", sc="static"),
        claim("small", size="1Gi", sc="static"),
        volume("pv-1", size="1Gi", sc="static"),
        volume("pv-10", size="10Gi", sc="static"),
    ]
    pl = vb.new(plugin_args(vb.NAME), handle_for(objs))
    st, got = filter_all(pl, pod_with("big", "small"))
    assert got == everywhere()
    bindings = st.read(vb.STATE_KEY).pod_volumes_by_node["n1"].static_bindings
    assert [(b.pvc.name, b.pv.name) for b in bindings] == [("small", "pv-1"), ("big", "pv-10")]


def capacity(
    name: str, size: str | None, zone: str | None, max_size: str | None = None, cls: str = "wffc"
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "kind": "CSIStorageCapacity",
        "metadata": {"name": name, "namespace": "kube-system"},
        "storageClassName": cls,
    }
    if size is not None:
        d["capacity"] = size
    if max_size is not None:
        d["maximumVolumeSize"] = max_size
    if zone is not None:
        d["nodeTopology"] = {"matchLabels": {ZONE: zone}}
    return d


def driver(storage_capacity: bool) -> dict[str, Any]:
    return {"kind": "CSIDriver", "metadata": {"name": DRIVER}, "spec": {"storageCapacity": storage_capacity}}


@pytest.mark.parametrize(
    "objs,want",
    [
        # no CSIDriver, or one that does not track capacity: no check
        pytest.param([capacity("c", "1Gi", "a")], everywhere(), id="no-driver"),
        pytest.param([driver(False), capacity("c", "1Gi", "a")], everywhere(), id="driver-without-tracking"),
        pytest.param([driver(True)], everywhere(NO_SPACE), id="no-capacity-objects"),
        pytest.param(
            [driver(True), capacity("c", "20Gi", "a")], {"n1": (), "n2": (NO_SPACE,), "n3": ()}, id="enough-in-zone"
        ),
        pytest.param([driver(True), capacity("c", "5Gi", "a")], everywhere(NO_SPACE), id="too-small"),
        pytest.param(
            [driver(True), capacity("c", "10Gi", "a")], {"n1": (), "n2": (NO_SPACE,), "n3": ()}, id="exactly-enough"
        ),
        # maximumVolumeSize is preferred over capacity
        pytest.param(
            [driver(True), capacity("c", "100Gi", "a", max_size="5Gi")],
            everywhere(NO_SPACE),
            id="max-volume-size-too-small",
        ),
        pytest.param(
            [driver(True), capacity("c", "1Gi", "a", max_size="50Gi")],
            {"n1": (), "n2": (NO_SPACE,), "n3": ()},
            id="max-volume-size-enough",
        ),
        # another class, no size, no topology: unusable
        pytest.param([driver(True), capacity("c", "20Gi", "a", cls="zonal")], everywhere(NO_SPACE), id="other-class"),
        pytest.param([driver(True), capacity("c", None, "a")], everywhere(NO_SPACE), id="no-size"),
        pytest.param([driver(True), capacity("c", "20Gi", None)], everywhere(NO_SPACE), id="no-topology"),
    ],
)
def test_storage_capacity(objs: list[dict[str, Any]], want: dict[str, tuple[str, ...]]) -> None:
    assert reasons(pod_with("data"), [claim("data")] + objs) == want


def test_translated_pv_affinity_on_migrated_node() -> None:
    """A GCE PD PV is checked in its CSI form on nodes whose CSINode lists the plugin as
    migrated: its zone key becomes topology.gke.io/zone."""
    gce_pv = volume("pv-g", zone="a")
    del gce_pv["spec"]["csi"]
    gce_pv["spec"]["gcePersistentDisk"] = {"pdName": "pd-1"}
    migrated = {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs,kubernetes.io/gce-pd"}
    objs = [
        claim("data", volume="pv-g"),
        gce_pv,
        {"kind": "CSINode", "metadata": {"name": "n1", "annotations": migrated}, "spec": {"drivers": []}},
        {"kind": "CSINode", "metadata": {"name": "n3"}, "spec": {"drivers": []}},
    ]
    assert reasons(pod_with("data"), objs) == {"n1": (NODE_CONFLICT,), "n2": (NODE_CONFLICT,), "n3": ()}


def test_filter_without_state_is_an_error() -> None:
    pl = vb.new(plugin_args(vb.NAME), handle_for([]))
    ni = pl.handle.snapshot.node_infos[0]
    st = pl.filter(CycleState(), pod_with("data").obj(), ni)
    assert st.code is Code.ERROR


# --- Score, Reserve, Unreserve, PreBind ---------------------------------------------------------


def test_score_is_skipped() -> None:
    pl = vb.new(plugin_args(vb.NAME), handle_for([claim("data")]))
    st, _ = filter_all(pl, pod_with("data"))
    assert pl.pre_score(st, pod_with("data").obj(), pl.handle.snapshot.node_infos).code is Code.SKIP


def schedule(pl: vb.VolumeBinding, pod: Any, node: str) -> CycleState:
    st, got = filter_all(pl, pod)
    assert got[node] == ()
    p = pod.obj()
    assert pl.reserve(st, p, node).is_success()
    assert pl.pre_bind(st, p, node).is_success()
    return st


def test_assumed_static_binding_persists_across_cycles() -> None:
    objs = [claim("a", sc="static"), claim("b", sc="static"), volume("pv-1", sc="static")]
    pl = vb.new(plugin_args(vb.NAME), handle_for(objs))
    schedule(pl, pod_with("a", name="first"), "n1")
    assumed = pl.cache.pv("pv-1")
    assert assumed is not None and assumed.claim_ref is not None
    assert (assumed.claim_ref.name, assumed.claim_ref.uid) == ("a", "uid-a")
    assert assumed.annotations[vb.ANN_BOUND_BY_CONTROLLER] == "yes"
    assert [b.pv.name for b in pl.prebound["default/first"].static_bindings] == ["pv-1"]
    # the next pod cannot take the same PV ...
    assert filter_all(pl, pod_with("b", name="second"))[1] == everywhere(BIND_CONFLICT)
    # ... while a pod of the first claim still finds it, pre-bound to its claim
    assert filter_all(pl, pod_with("a", name="again"))[1] == everywhere()
    # the cluster's own objects are untouched
    assert pl.handle.cluster.pvs["pv-1"].claim_ref is None


def test_unreserve_reverts() -> None:
    objs = [claim("a", sc="static"), claim("b", sc="static"), volume("pv-1", sc="static")]
    pl = vb.new(plugin_args(vb.NAME), handle_for(objs))
    first = pod_with("a", name="first")
    st, _ = filter_all(pl, first)
    assert pl.reserve(st, first.obj(), "n1").is_success()
    assert filter_all(pl, pod_with("b", name="second"))[1] == everywhere(BIND_CONFLICT)
    pl.unreserve(st, first.obj(), "n1")
    assert pl.cache.assumed_pvs == {}
    assert filter_all(pl, pod_with("b", name="second"))[1] == everywhere()


def test_assumed_provisioning_selects_the_node() -> None:
    pl = vb.new(plugin_args(vb.NAME), handle_for([claim("shared")]))
    schedule(pl, pod_with("shared", name="first"), "n3")
    assumed = pl.cache.pvc("default/shared")
    assert assumed is not None and assumed.annotations["volume.kubernetes.io/selected-node"] == "n3"
    assert "volume.kubernetes.io/selected-node" not in pl.handle.cluster.pvcs["default/shared"].annotations
    got = filter_all(pl, pod_with("shared", name="second"))[1]
    assert got == {"n1": (BIND_CONFLICT,), "n2": (BIND_CONFLICT,), "n3": ()}


def test_all_bound_pod_records_nothing() -> None:
    pl = vb.new(
        plugin_args(vb.NAME),
        handle_for([claim("data", volume="pv-1"), volume("pv-1", phase="Bound", claim_ref="data")]),
    )
    schedule(pl, pod_with("data"), "n1")
    assert pl.prebound == {}
    assert pl.cache.assumed_pvs == {} and pl.cache.assumed_pvcs == {}


def test_pod_without_claims_reserves() -> None:
    pl = vb.new(plugin_args(vb.NAME), handle_for([]))
    st = CycleState()
    p = make_pod().name("p").obj()
    _, pre = pl.pre_filter(st, p)
    assert pre.code is Code.SKIP
    assert pl.reserve(st, p, "n1").is_success()
    assert pl.pre_bind(st, p, "n1").is_success()
    assert pl.prebound == {}


# --- args ---------------------------------------------------------------------------------------


# Decoded, defaulted and validated by the configuration (kwhatif.config), under the pluginConfig
# entry's args.
@pytest.mark.parametrize(
    "args,field",
    [
        pytest.param({"bindTimeoutSeconds": -1}, "bindTimeoutSeconds", id="negative-timeout"),
        pytest.param({"bindTimeoutSeconds": "10"}, "bindTimeoutSeconds", id="string-timeout"),
        pytest.param({"shape": [{"utilization": 0, "score": 0}]}, "shape", id="shape-without-feature"),
        pytest.param({"bindTimeout": 10}, "", id="unknown-field"),
    ],
)
def test_bad_args(args: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as e:
        plugin_args(vb.NAME, args)
    assert e.value.field == "profiles[0].pluginConfig[0].args" + (f".{field}" if field else "")


def test_args() -> None:
    assert vb.new(plugin_args(vb.NAME, {"bindTimeoutSeconds": 0}), handle_for([])).bind_timeout_seconds == 0
    assert vb.new(plugin_args(vb.NAME, {"bindTimeoutSeconds": 600}), handle_for([])).bind_timeout_seconds == 600


def test_scheduler_run_keeps_bindings_between_pods() -> None:
    """Through the scheduler: the second pod cannot bind the static PV the first one took."""
    from kwhatif.config.defaults import default_args
    from kwhatif.config.types import PLUGIN_SET_FIELDS, PluginRef, PluginSet, Profile, SchedulerConfiguration
    from kwhatif.scheduling.scheduler import Scheduler

    plugins = {f: PluginSet() for f in PLUGIN_SET_FIELDS}
    plugins["multiPoint"] = PluginSet(
        (PluginRef("PrioritySort"), PluginRef("VolumeBinding"), PluginRef("DefaultBinder"))
    )
    config = SchedulerConfiguration((Profile("default-scheduler", plugins, default_args()),), 100)
    cluster = cluster_of([claim("a", sc="static"), claim("b", sc="static"), volume("pv-1", sc="static", hosts=["n2"])])
    cluster.nodes = {n.obj().name: n.obj() for n in NODES}
    sched = Scheduler(cluster, config)
    first, second = pod_with("a", name="first").obj(), pod_with("b", name="second").obj()
    attempts = sched.run([first, second], rounds=1)
    assert [(a.result, a.node) for a in attempts] == [("Scheduled", "n2"), ("Unschedulable", None)]
    assert attempts[1].message == f"0/3 nodes are available: 3 {BIND_CONFLICT}."
