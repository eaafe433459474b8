"""VolumeZone: PreFilter errors for missing objects, unbound WaitForFirstConsumer claims skipped,
and the asymmetric matching of GA and beta zone/region labels."""

from __future__ import annotations

from typing import Any

import pytest

from builders import make_handle, make_node, make_pod, pre_filter_then_filter
from kwhatif.api import storage
from kwhatif.framework.interface import Code, CycleState
from kwhatif.load.cluster import ClusterState
from kwhatif.plugins import volume_zone as vz

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
        (make_pod().name("p"), cluster_of(), SKIP),
        (make_pod().name("p").volume({"name": "t", "emptyDir": {}}), cluster_of(), SKIP),
        (data_pod(), cluster_of(), unresolvable('persistentvolumeclaim "data" not found')),
        (data_pod(), cluster_of(data={"storageClassName": "wffc"}), SKIP),
        (
            data_pod(),
            cluster_of(data={}),
            unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
        ),
        (
            data_pod(),
            cluster_of(data={"storageClassName": "gone"}),
            unresolvable('storageclass.storage.k8s.io "gone" not found'),
        ),
        (data_pod(), cluster_of(data={"storageClassName": "immediate"}), unresolvable("PersistentVolume had no name")),
        (data_pod(), cluster_of(data={"volumeName": "pv-gone"}), unresolvable('persistentvolume "pv-gone" not found')),
        # a bound PV without topology labels: nothing to check
        (data_pod(), cluster_of({}, data=BOUND), SKIP),
        # a malformed zone list is ignored
        (data_pod(), cluster_of({GA_ZONE: "a__"}, data=BOUND), SKIP),
    ],
    ids=[
        "no-volumes",
        "no-claims",
        "missing-claim",
        "unbound-wffc",
        "unbound-no-class",
        "unbound-missing-class",
        "unbound-immediate",
        "missing-pv",
        "pv-without-labels",
        "malformed-label",
    ],
)
def test_pre_filter(pod: Any, cluster: ClusterState, want: Any) -> None:
    assert run(pod, cluster, {GA_ZONE: "a"}) == want


@pytest.mark.parametrize(
    "pv_labels,node_labels,want",
    [
        ({GA_ZONE: "a"}, {GA_ZONE: "a"}, OK),
        ({GA_ZONE: "a"}, {GA_ZONE: "b"}, CONFLICT),
        # several zones separated by "__", with spaces trimmed
        ({GA_ZONE: "a__b"}, {GA_ZONE: "b"}, OK),
        ({GA_ZONE: " a __ b "}, {GA_ZONE: "b"}, OK),
        ({GA_ZONE: "a__b"}, {GA_ZONE: "c"}, CONFLICT),
        # a beta PV label also matches the node's GA label ...
        ({BETA_ZONE: "a"}, {GA_ZONE: "a"}, OK),
        ({BETA_ZONE: "a"}, {GA_ZONE: "b"}, CONFLICT),
        ({BETA_REGION: "r"}, {GA_REGION: "r"}, OK),
        # ... but the beta node label wins when present
        ({BETA_ZONE: "a"}, {BETA_ZONE: "b", GA_ZONE: "a"}, CONFLICT),
        # a GA PV label does not match a node with only the beta label
        ({GA_ZONE: "a"}, {BETA_ZONE: "a"}, CONFLICT),
        ({GA_REGION: "r"}, {BETA_REGION: "r"}, CONFLICT),
        # nodes without any of the four labels pass
        ({GA_ZONE: "a"}, {}, OK),
        ({GA_ZONE: "a"}, {"zone": "b"}, OK),
        # a node with only a region label must still carry the zone
        ({GA_ZONE: "a"}, {GA_REGION: "r"}, CONFLICT),
        ({GA_ZONE: "a", GA_REGION: "r"}, {GA_ZONE: "a", GA_REGION: "r"}, OK),
        ({GA_ZONE: "a", GA_REGION: "r"}, {GA_ZONE: "a", GA_REGION: "s"}, CONFLICT),
    ],
    ids=[
        "same-zone",
        "other-zone",
        "multi-zone",
        "multi-zone-spaces",
        "multi-zone-miss",
        "beta-pv-ga-node",
        "beta-pv-ga-node-miss",
        "beta-region-ga-node",
        "beta-node-label-first",
        "ga-pv-beta-node",
        "ga-region-beta-node",
        "node-without-topology",
        "node-other-labels",
        "node-region-only",
        "zone-and-region",
        "other-region",
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
    [("a", {"a"}), ("a__b", {"a", "b"}), (" a__b ", {"a", "b"}), ("a____b", None), ("", None)],
    ids=["one", "two", "trimmed", "empty-between", "empty"],
)
def test_label_zones_to_set(value: str, want: set[str] | None) -> None:
    got = vz.label_zones_to_set(value)
    assert (set(got) if got is not None else None) == want
