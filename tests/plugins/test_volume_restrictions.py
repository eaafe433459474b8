"""VolumeRestrictions: missing claims, ReadWriteOncePod conflicts counted cluster-wide (with the
PreFilter extensions preemption uses) and disk conflicts of GCE PD, AWS EBS, iSCSI and RBD."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.cache.node_info import PodInfo
from kwhatif.framework.handle import Handle
from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import volume_restrictions as vr

from builders import make_cluster, make_handle, make_node, make_pod

DISK = (Code.UNSCHEDULABLE, (vr.ERR_REASON_DISK_CONFLICT,))
RWOP = (Code.UNSCHEDULABLE, (vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))
OK = (Code.SUCCESS, ())


def pvc(name: str, *modes: str, ns: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"accessModes": list(modes or ("ReadWriteOnce",)), "resources": {"requests": {"storage": "1Gi"}}},
    }


def gce(pd: str, ro: bool = False, name: str = "v") -> dict[str, Any]:
    return {"name": name, "gcePersistentDisk": {"pdName": pd, "readOnly": ro}}


def ebs(vid: str, ro: bool = False, name: str = "v") -> dict[str, Any]:
    return {"name": name, "awsElasticBlockStore": {"volumeID": vid, "readOnly": ro}}


def iscsi(iqn: str, ro: bool = False, name: str = "v") -> dict[str, Any]:
    return {"name": name, "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": iqn, "lun": 0, "readOnly": ro}}


def rbd(monitors: list[str], image: str, ro: bool = False, pool: str | None = None) -> dict[str, Any]:
    src: dict[str, Any] = {"monitors": monitors, "image": image, "readOnly": ro}
    if pool is not None:
        src["pool"] = pool
    return {"name": "v", "rbd": src}


def handle_for(existing: list[Any], claims: Sequence[dict[str, Any]] = ()) -> Handle:
    nodes = [make_node().name("n1").obj(), make_node().name("n2").obj()]
    return make_handle(nodes, [e.obj() for e in existing], make_cluster(claims))


def run(pod: Any, existing: list[Any], claims: Sequence[dict[str, Any]] = ()) -> Any:
    """The PreFilter status when it is not Success, else every node's Filter status."""
    h = handle_for(existing, claims)
    pl = vr.new(None, h)
    st = CycleState()
    p = pod.obj()
    _, pre = pl.pre_filter(st, p)
    if not pre.is_success():
        return pre.code, pre.reasons
    out = {}
    for ni in h.snapshot.node_infos:
        s = pl.filter(st, p, ni)
        out[ni.name] = (s.code, s.reasons)
    return out


@pytest.mark.parametrize(
    "pod,existing,claims,want",
    [
        pytest.param(make_pod().name("p"), [], [], (Code.SKIP, ()), id="no-volumes"),
        pytest.param(
            make_pod().name("p").volume({"name": "tmp", "emptyDir": {}}), [], [], (Code.SKIP, ()), id="empty-dir"
        ),
        pytest.param(
            make_pod().name("p").pvc("data"),
            [],
            [],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ('persistentvolumeclaim "data" not found',)),
            id="missing-claim",
        ),
        pytest.param(
            make_pod().name("p").pvc("data").volume(gce("pd-1")),
            [],
            [pvc("data", ns="other")],
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ('persistentvolumeclaim "data" not found',)),
            id="claim-in-other-namespace",
        ),
        # a RWO claim used elsewhere and no disk: nothing to check
        pytest.param(
            make_pod().name("p").pvc("data"),
            [make_pod().name("e").node("n1").pvc("data")],
            [pvc("data")],
            (Code.SKIP, ()),
            id="rwo-in-use",
        ),
        # a RWOP claim nobody uses yet
        pytest.param(
            make_pod().name("p").pvc("data"), [], [pvc("data", "ReadWriteOncePod")], (Code.SKIP, ()), id="rwop-unused"
        ),
        # a RWOP claim of the same name in another namespace does not conflict
        pytest.param(
            make_pod().name("p").pvc("data"),
            [make_pod().name("e").namespace("other").node("n1").pvc("data")],
            [pvc("data", "ReadWriteOncePod"), pvc("data", "ReadWriteOncePod", ns="other")],
            (Code.SKIP, ()),
            id="rwop-other-namespace",
        ),
        # the holder runs on n1: every node fails, as the count is cluster-wide
        pytest.param(
            make_pod().name("p").pvc("data"),
            [make_pod().name("e").node("n1").pvc("data")],
            [pvc("data", "ReadWriteOnce", "ReadWriteOncePod")],
            {"n1": RWOP, "n2": RWOP},
            id="rwop-in-use",
        ),
        pytest.param(make_pod().name("p").volume(gce("pd-1")), [], [], {"n1": OK, "n2": OK}, id="disk-no-conflict"),
    ],
)
def test_pre_filter_and_rwop(pod: Any, existing: list[Any], claims: list[dict[str, Any]], want: Any) -> None:
    assert run(pod, existing, claims) == want


@pytest.mark.parametrize(
    "vol,other,want",
    [
        pytest.param(gce("pd-1"), gce("pd-1"), DISK, id="gce-rw-rw"),
        pytest.param(gce("pd-1", ro=True), gce("pd-1"), DISK, id="gce-ro-rw"),
        pytest.param(gce("pd-1"), gce("pd-1", ro=True), DISK, id="gce-rw-ro"),
        pytest.param(gce("pd-1", ro=True), gce("pd-1", ro=True), OK, id="gce-ro-ro"),
        pytest.param(gce("pd-1"), gce("pd-2"), OK, id="gce-other-disk"),
        pytest.param(ebs("vol-1"), ebs("vol-1"), DISK, id="ebs-rw-rw"),
        pytest.param(ebs("vol-1", ro=True), ebs("vol-1", ro=True), DISK, id="ebs-ro-ro"),
        pytest.param(ebs("vol-1"), ebs("vol-2"), OK, id="ebs-other-volume"),
        pytest.param(iscsi("iqn.a"), iscsi("iqn.a"), DISK, id="iscsi-rw-rw"),
        pytest.param(iscsi("iqn.a", ro=True), iscsi("iqn.a", ro=True), OK, id="iscsi-ro-ro"),
        pytest.param(iscsi("iqn.a"), iscsi("iqn.b"), OK, id="iscsi-other-iqn"),
        pytest.param(rbd(["m1", "m2"], "img"), rbd(["m2", "m3"], "img"), DISK, id="rbd-monitor-overlap"),
        pytest.param(
            rbd(["m1"], "img"), rbd(["m1"], "img", pool="rbd"), DISK, id="rbd-default-pool"
        ),  # pool defaults to rbd
        pytest.param(rbd(["m1"], "img"), rbd(["m1"], "img", pool="other"), OK, id="rbd-other-pool"),
        pytest.param(rbd(["m1"], "img"), rbd(["m2"], "img"), OK, id="rbd-no-monitor-overlap"),
        pytest.param(rbd(["m1"], "img", ro=True), rbd(["m1"], "img", ro=True), OK, id="rbd-ro-ro"),
        pytest.param(gce("same"), ebs("same"), OK, id="different-sources"),
    ],
)
def test_disk_conflict(vol: dict[str, Any], other: dict[str, Any], want: Any) -> None:
    pod = make_pod().name("p").volume(vol)
    existing = [make_pod().name("e").node("n1").volume(other)]
    assert run(pod, existing) == {"n1": want, "n2": OK}


def test_disk_conflict_before_rwop() -> None:
    pod = make_pod().name("p").pvc("data").volume(gce("pd-1", name="disk"))
    existing = [make_pod().name("e").node("n1").pvc("data").volume(gce("pd-1", name="disk"))]
    assert run(pod, existing, [pvc("data", "ReadWriteOncePod")]) == {"n1": DISK, "n2": RWOP}


def test_extensions_track_the_holder() -> None:
    """Removing the holder (a preemption victim) clears the conflict; adding it back restores it."""
    holder = make_pod().name("e").node("n1").pvc("data").obj()
    h = handle_for([], [pvc("data", "ReadWriteOncePod")])
    h.snapshot.add_pod(holder)
    pl = vr.new(None, h)
    pod = make_pod().name("p").pvc("data").obj()
    st = CycleState()
    _, pre = pl.pre_filter(st, pod)
    assert pre.is_success()
    n1 = h.snapshot.get("n1")
    assert n1 is not None
    assert pl.filter(st, pod, n1).reasons == (vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,)
    trial = st.clone()
    ext = pl.pre_filter_extensions()
    assert ext.remove_pod(trial, pod, PodInfo.of(holder), n1).is_success()
    assert pl.filter(trial, pod, n1).code is Code.SUCCESS
    # the original state is untouched by the clone's update
    assert pl.filter(st, pod, n1).code is Code.UNSCHEDULABLE
    assert ext.add_pod(trial, pod, PodInfo.of(holder), n1).is_success()
    assert pl.filter(trial, pod, n1).code is Code.UNSCHEDULABLE


def test_missing_state_is_an_error() -> None:
    h = handle_for([])
    pl = vr.new(None, h)
    n1 = h.snapshot.get("n1")
    assert n1 is not None
    st = pl.filter(CycleState(), make_pod().name("p").obj(), n1)
    assert st.code is Code.ERROR
    assert st.reasons == ('cannot read "PreFilterVolumeRestrictions" from cycleState',)
