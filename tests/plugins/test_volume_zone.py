"""VolumeZone: PreFilter errors for missing objects, unbound WaitForFirstConsumer claims skipped,
and the asymmetric matching of GA and beta zone/region labels."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api import storage
from kwhatif.cache.cluster import ClusterState
from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import volume_zone as vz

from builders import make_handle, make_node, make_pod, pre_filter_then_filter

GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"

CONFLICT = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (vz.ERR_REASON_CONFLICT,))
OK = (Code.SUCCESS, ())
SKIP = (Code.SKIP, ())


def unresolvable(msg: str) -> tuple[Code, tuple[str, ...]]:
    return Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)


def cluster_of(pv_labels: dict[str, str] | None = None, **claims: dict[str, Any]) -> ClusterState:
    cluster = ClusterState()
    for name, spec in claims.items():
        c = storage.persistent_volume_claim({"metadata": {"name": name, "namespace": "default"}, "spec": spec})
        cluster.pvcs[c.key] = c
    for name, mode in (("wffc", "WaitForFirstConsumer"), ("immediate", "Immediate")):
        s = storage.storage_class(
            {"metadata": {"name": name}, "provisioner": "csi.example.com", "volumeBindingMode": mode}
        )
        cluster.storage_classes[s.name] = s
    if pv_labels is not None:
        v = storage.persistent_volume(
            {"metadata": {"name": "pv-1", "labels": pv_labels}, "spec": {"csi": {"driver": "d", "volumeHandle": "h"}}}
        )
        cluster.pvs[v.name] = v
    return cluster


BOUND = {"volumeName": "pv-1", "storageClassName": "wffc"}


def run(pod: Any, cluster: ClusterState, node_labels: dict[str, str]) -> Any:
    node = make_node().name("n1").labels(**node_labels).obj()
    h = make_handle([node], [], cluster)
    return pre_filter_then_filter(vz.new(None, h), pod.obj(), h.snapshot.get("n1"))


def data_pod() -> Any:
    return make_pod().name("p").pvc("data")


@pytest.mark.parametrize(
    "pod,cluster,want",
    [
        pytest.param(make_pod().name("p"), cluster_of(), SKIP, id="no-volumes"),
        pytest.param(make_pod().name("p").volume({"name": "t", "emptyDir": {}}), cluster_of(), SKIP, id="no-claims"),
        pytest.param(
            data_pod(), cluster_of(), unresolvable('persistentvolumeclaim "data" not found'), id="missing-claim"
        ),
        pytest.param(data_pod(), cluster_of(data={"storageClassName": "wffc"}), SKIP, id="unbound-wffc"),
        pytest.param(
            data_pod(),
            cluster_of(data={}),
            unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            id="unbound-no-class",
        ),
        pytest.param(
            data_pod(),
            cluster_of(data={"storageClassName": "gone"}),
            unresolvable('storageclass.storage.k8s.io "gone" not found'),
            id="unbound-missing-class",
        ),
        pytest.param(
            data_pod(),
            cluster_of(data={"storageClassName": "immediate"}),
            unresolvable("PersistentVolume had no name"),
            id="unbound-immediate",
        ),
        pytest.param(
            data_pod(),
            cluster_of(data={"volumeName": "pv-gone"}),
            unresolvable('persistentvolume "pv-gone" not found'),
            id="missing-pv",
        ),
        # a bound PV without topology labels: nothing to check
        pytest.param(data_pod(), cluster_of({}, data=BOUND), SKIP, id="pv-without-labels"),
        # a malformed zone list is ignored
        pytest.param(data_pod(), cluster_of({GA_ZONE: "a__"}, data=BOUND), SKIP, id="malformed-label"),
    ],
)
def test_pre_filter(pod: Any, cluster: ClusterState, want: Any) -> None:
    assert run(pod, cluster, {GA_ZONE: "a"}) == want


@pytest.mark.parametrize(
    "pv_labels,node_labels,want",
    [
        pytest.param({GA_ZONE: "a"}, {GA_ZONE: "a"}, OK, id="same-zone"),
        pytest.param({GA_ZONE: "a"}, {GA_ZONE: "b"}, CONFLICT, id="other-zone"),
        # several zones separated by "__", with spaces trimmed
        pytest.param({GA_ZONE: "a__b"}, {GA_ZONE: "b"}, OK, id="multi-zone"),
        pytest.param({GA_ZONE: " a __ b "}, {GA_ZONE: "b"}, OK, id="multi-zone-spaces"),
        pytest.param({GA_ZONE: "a__b"}, {GA_ZONE: "c"}, CONFLICT, id="multi-zone-miss"),
        # a beta PV label also matches the node's GA label ...
        pytest.param({BETA_ZONE: "a"}, {GA_ZONE: "a"}, OK, id="beta-pv-ga-node"),
        pytest.param({BETA_ZONE: "a"}, {GA_ZONE: "b"}, CONFLICT, id="beta-pv-ga-node-miss"),
        pytest.param({BETA_REGION: "r"}, {GA_REGION: "r"}, OK, id="beta-region-ga-node"),
        # ... but the beta node label wins when present
        pytest.param({BETA_ZONE: "a"}, {BETA_ZONE: "b", GA_ZONE: "a"}, CONFLICT, id="beta-node-label-first"),
        # a GA PV label does not match a node with only the beta label
        pytest.param({GA_ZONE: "a"}, {BETA_ZONE: "a"}, CONFLICT, id="ga-pv-beta-node"),
        pytest.param({GA_REGION: "r"}, {BETA_REGION: "r"}, CONFLICT, id="ga-region-beta-node"),
        # nodes without any of the four labels pass
        pytest.param({GA_ZONE: "a"}, {}, OK, id="node-without-topology"),
        pytest.param({GA_ZONE: "a"}, {"zone": "b"}, OK, id="node-other-labels"),
        # a node with only a region label must still carry the zone
        pytest.param({GA_ZONE: "a"}, {GA_REGION: "r"}, CONFLICT, id="node-region-only"),
        pytest.param({GA_ZONE: "a", GA_REGION: "r"}, {GA_ZONE: "a", GA_REGION: "r"}, OK, id="zone-and-region"),
        pytest.param({GA_ZONE: "a", GA_REGION: "r"}, {GA_ZONE: "a", GA_REGION: "s"}, CONFLICT, id="other-region"),
    ],
)
def test_filter(pv_labels: dict[str, str], node_labels: dict[str, str], want: Any) -> None:
    assert run(data_pod(), cluster_of(pv_labels, data=BOUND), node_labels) == want


def test_filter_without_pre_filter_state() -> None:
    """Filter recomputes the topologies when PreFilter did not run."""
    cluster = cluster_of({GA_ZONE: "a"}, data=BOUND)
    node = make_node().name("n1").label(GA_ZONE, "b").obj()
    h = make_handle([node], [], cluster)
    ni = h.snapshot.get("n1")
    assert ni is not None
    st = vz.new(None, h).filter(CycleState(), data_pod().obj(), ni)
    assert (st.code, st.reasons) == CONFLICT


@pytest.mark.parametrize(
    "value,want",
    [
        pytest.param("a", {"a"}, id="one"),
        pytest.param("a__b", {"a", "b"}, id="two"),
        pytest.param(" a__b ", {"a", "b"}, id="trimmed"),
        pytest.param("a____b", None, id="empty-between"),
        pytest.param("", None, id="empty"),
    ],
)
def test_label_zones_to_set(value: str, want: set[str] | None) -> None:
    got = vz.label_zones_to_set(value)
    assert (set(got) if got is not None else None) == want
