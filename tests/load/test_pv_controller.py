"""What the PV controller does with new claims before their pods are scheduled."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api import storage
from kwhatif.cache.cluster import ClusterState
from kwhatif.controlplane.controllers.pv_controller import available_new_volumes, find_best_match, sync_claims


def pv(
    name: str,
    size: str = "10Gi",
    cls: str = "manual",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    phase: str | None = None,
    claim: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
) -> Any:
    spec: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": list(modes),
        "storageClassName": cls,
        "hostPath": {"path": f"/mnt/{name}"},
    }
    if claim:
        spec["claimRef"] = claim
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
    }
    if phase:
        body["status"] = {"phase": phase}
    return storage.persistent_volume(body)


def pvc(
    name: str,
    size: str = "3Gi",
    cls: str | None = "manual",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    volume_name: str = "",
    selector: dict[str, Any] | None = None,
) -> Any:
    spec: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}
    if cls is not None:
        spec["storageClassName"] = cls
    if volume_name:
        spec["volumeName"] = volume_name
    if selector:
        spec["selector"] = selector
    return storage.persistent_volume_claim(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }
    )


def sc(name: str, provisioner: str = "ebs.csi.aws.com", mode: str = "Immediate") -> Any:
    return storage.storage_class(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": name},
            "provisioner": provisioner,
            "volumeBindingMode": mode,
        }
    )


def state_with(pvs: list[Any] = (), pvcs: list[Any] = (), classes: list[Any] = ()) -> ClusterState:
    st = ClusterState()
    st.pvs = {p.name: p for p in pvs}
    st.pvcs = {c.key: c for c in pvcs}
    st.storage_classes = {c.name: c for c in classes}
    available_new_volumes(st, list(st.pvs))
    return st


def test_docs_tutorial_claim_binds_to_the_hostpath_volume():
    # "Configure a Pod to Use a PersistentVolume for Storage": a PV without status, a claim of the
    # class "manual" that no StorageClass defines (so binding is Immediate)
    st = state_with([pv("task-pv-volume")], [pvc("task-pv-claim")])
    (out,) = sync_claims(st, ["default/task-pv-claim"])
    assert (out.bound_to, out.note) == (
        "task-pv-volume",
        "the PV controller binds it to Available PersistentVolume task-pv-volume (Immediate binding)",
    )
    claim, volume = st.pvcs["default/task-pv-claim"], st.pvs["task-pv-volume"]
    assert (claim.volume_name, claim.phase, claim.annotations) == (
        "task-pv-volume",
        "Bound",
        {"pv.kubernetes.io/bound-by-controller": "yes", "pv.kubernetes.io/bind-completed": "yes"},
    )
    assert volume.phase == "Bound" and volume.claim_ref is not None and volume.claim_ref.name == "task-pv-claim"
    assert volume.annotations == {"pv.kubernetes.io/bound-by-controller": "yes"}


@pytest.mark.parametrize(
    "pvs,claim,bound_to",
    [
        # the smallest volume that is large enough wins
        pytest.param([pv("big", "100Gi"), pv("small", "5Gi"), pv("tiny", "1Gi")], pvc("c"), "small", id="smallest"),
        # access-mode sets are searched with the fewest modes first, whatever the sizes
        pytest.param(
            [pv("rwo-rox", "5Gi", modes=("ReadWriteOnce", "ReadOnlyMany")), pv("rwo", "50Gi")],
            pvc("c"),
            "rwo",
            id="fewest-modes",
        ),
        pytest.param([pv("rox", modes=("ReadOnlyMany",))], pvc("c"), None, id="modes-missing"),
        pytest.param([pv("other", cls="fast")], pvc("c"), None, id="other-class"),
        pytest.param(
            [pv("bound", phase="Bound", claim={"namespace": "x", "name": "y", "uid": "u"})], pvc("c"), None, id="taken"
        ),
        pytest.param([pv("released", phase="Released")], pvc("c"), None, id="not-available"),
        pytest.param(
            [pv("a", labels={"tier": "gold"}), pv("b", "5Gi", labels={"tier": "bronze"})],
            pvc("c", selector={"matchLabels": {"tier": "gold"}}),
            "a",
            id="selector",
        ),
        # a volume reserved for the claim (claimRef without uid) is taken whatever its class
        pytest.param(
            [pv("reserved", cls="other", claim={"namespace": "default", "name": "c"})],
            pvc("c"),
            "reserved",
            id="claim-ref",
        ),
    ],
)
def test_find_best_match(pvs: list[Any], claim: Any, bound_to: str | None):
    st = state_with(pvs, [claim])
    best = find_best_match(claim, st.pvs.values())
    assert (best.name if best else None) == bound_to


@pytest.mark.parametrize(
    "pvs,claim,classes,bound_to,note",
    [
        pytest.param(
            [pv("pv1")],
            pvc("c", volume_name="pv1"),
            [],
            "pv1",
            "the PV controller binds it to PersistentVolume pv1, which it names",
            id="pre-bound",
        ),
        pytest.param(
            [],
            pvc("c", volume_name="gone"),
            [],
            None,
            "stays Pending: it names PersistentVolume gone, which does not exist",
            id="pre-bound-missing",
        ),
        pytest.param(
            [pv("pv1", "1Gi")],
            pvc("c", volume_name="pv1"),
            [],
            None,
            'stays Pending: Cannot bind to requested volume "pv1": requested PV is too small',
            id="pre-bound-too-small",
        ),
        pytest.param(
            [pv("pv1", cls="fast")],
            pvc("c", volume_name="pv1"),
            [],
            None,
            'stays Pending: Cannot bind to requested volume "pv1": storageClassName does not match',
            id="pre-bound-class",
        ),
        pytest.param(
            [pv("pv1", phase="Bound", claim={"namespace": "default", "name": "other", "uid": "u"})],
            pvc("c", volume_name="pv1"),
            [],
            None,
            'stays Pending: volume "pv1" already bound to a different claim.',
            id="pre-bound-taken",
        ),
        pytest.param(
            [],
            pvc("c", cls="gp3"),
            [sc("gp3")],
            "pvc-default-c",
            "provisioned by ebs.csi.aws.com as PersistentVolume pvc-default-c (Immediate binding; the new volume has no topology)",
            id="provisioned",
        ),
        pytest.param(
            [],
            pvc("c", cls="local"),
            [sc("local", "kubernetes.io/no-provisioner")],
            None,
            "stays Pending: no Available PersistentVolume matches it, and StorageClass local has no provisioner "
            "(kubernetes.io/no-provisioner)",
            id="no-provisioner",
        ),
        pytest.param(
            [],
            pvc("c", cls="gone"),
            [sc("gp3")],
            None,
            'stays Pending: no Available PersistentVolume matches it, and provisioning fails: storageclass.storage.k8s.io "gone" not found',
            id="missing-class",
        ),
        pytest.param(
            [],
            pvc("c", cls=""),
            [sc("gp3")],
            None,
            "stays Pending: no persistent volumes available for this claim and no storage class is set",
            id="no-class",
        ),
    ],
)
def test_sync_claims(pvs: list[Any], claim: Any, classes: list[Any], bound_to: str | None, note: str):
    st = state_with(pvs, [claim], classes)
    (out,) = sync_claims(st, [claim.key])
    assert (out.bound_to, out.note) == (bound_to, note)
    assert (st.pvcs[claim.key].volume_name if bound_to else "") == (bound_to or "")


def test_wait_for_first_consumer_is_left_to_volume_binding():
    st = state_with([pv("pv1", cls="wffc")], [pvc("c", cls="wffc")], [sc("wffc", mode="WaitForFirstConsumer")])
    assert sync_claims(st, ["default/c"]) == []
    assert st.pvcs["default/c"].volume_name == ""
