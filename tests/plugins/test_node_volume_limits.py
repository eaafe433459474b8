"""NodeVolumeLimits (CSI) and the in-tree EBSLimits / GCEPDLimits / AzureDiskLimits / CinderLimits:
unique volumes per driver, unbound claims through their class, CSI migration of in-tree volumes,
node allocatable and default limits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.framework.handle import Handle
from kwhatif.framework.interface import Code
from kwhatif.plugins import node_volume_limits as nvl
from kwhatif.plugins import node_volume_limits_in_tree as intree

from builders import make_cluster, make_handle, make_node, make_pod, pre_filter_then_filter

DRIVER = "csi.example.com"
EXCEEDED = (Code.UNSCHEDULABLE, (nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
OK = (Code.SUCCESS, ())


# --- storage objects ----------------------------------------------------------------------------


def pvc(name: str, volume: str = "", sc: str | None = "csi", owner_uid: str = "", beta_sc: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-pvc-{name}"}
    if volume:
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    if beta_sc:
        meta.setdefault("annotations", {})["volume.beta.kubernetes.io/storage-class"] = beta_sc
    if owner_uid:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}
        ]
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    return {"kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def pv(name: str, source: dict[str, Any], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, **source},
        "status": {"phase": "Bound"},
    }


def csi_pv(name: str, handle: str | None = None) -> dict[str, Any]:
    return pv(name, {"csi": {"driver": DRIVER, "volumeHandle": handle or f"vh-{name}"}})


def sc(name: str, provisioner: str) -> dict[str, Any]:
    return {
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def csi_node(name: str, annotations: dict[str, str] | None = None, **counts: int) -> dict[str, Any]:
    drivers = [
        {"name": d.replace("_", "."), "nodeID": f"{name}-{d}", "allocatable": {"count": c}} for d, c in counts.items()
    ]
    return {
        "kind": "CSINode",
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {"drivers": drivers},
    }


def handle_for(existing: Sequence[Any], objs: Sequence[dict[str, Any]], node: Any = None) -> Handle:
    n = (node or make_node().name("n1")).obj()
    return make_handle([n], [e.obj() for e in existing], make_cluster(objs))


def gce(pd: str, name: str = "disk") -> dict[str, Any]:
    return {"name": name, "gcePersistentDisk": {"pdName": pd}}


def on_n1(name: str) -> Any:
    return make_pod().name(name).node("n1")


def run(plugin_new: Any, pod: Any, existing: Sequence[Any], objs: Sequence[dict[str, Any]], node: Any = None) -> Any:
    h = handle_for(existing, objs, node)
    return pre_filter_then_filter(plugin_new(None, h), pod.obj(), h.snapshot.get("n1"))


BASE = [sc("csi", DRIVER), csi_node("n1", csi_example_com=2), csi_pv("pv-1"), csi_pv("pv-2"), csi_pv("pv-3")]
BOUND = [pvc("c1", "pv-1"), pvc("c2", "pv-2"), pvc("c3", "pv-3")]


# --- NodeVolumeLimits ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pod,existing,objs,want",
    [
        pytest.param(make_pod().name("p"), [], BASE, (Code.SKIP, ()), id="no-volumes"),
        pytest.param(
            make_pod().name("p").volume({"name": "t", "emptyDir": {}}),
            [],
            BASE,
            (Code.SKIP, ()),
            id="no-counted-volume",
        ),
        pytest.param(make_pod().name("p").pvc("c3"), [on_n1("e1").pvc("c1")], BASE + BOUND, OK, id="under-limit"),
        pytest.param(
            make_pod().name("p").pvc("c3"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND,
            EXCEEDED,
            id="over-limit",
        ),
        # the same volume already attached for another pod is not new
        pytest.param(
            make_pod().name("p").pvc("c2"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND,
            OK,
            id="already-attached",
        ),
        # two claims of one PV handle count once
        pytest.param(
            make_pod().name("p").pvc("c3"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("x")],
            BASE + BOUND + [csi_pv("pv-x", "vh-pv-1"), pvc("x", "pv-x")],
            OK,
            id="same-handle",
        ),
        # an unbound claim counts through its class's provisioner
        pytest.param(
            make_pod().name("p").pvc("new"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND + [pvc("new")],
            EXCEEDED,
            id="unbound-through-class",
        ),
        # a claim whose PV is missing counts through its class as well
        pytest.param(
            make_pod().name("p").pvc("gone"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND + [pvc("gone", "pv-gone")],
            EXCEEDED,
            id="missing-pv-through-class",
        ),
        # no class at all: immediate binding, not counted
        pytest.param(
            make_pod().name("p").pvc("new"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND + [pvc("new", sc=None)],
            OK,
            id="unbound-without-class",
        ),
        # the beta annotation names the class too
        pytest.param(
            make_pod().name("p").pvc("new"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            BASE + BOUND + [pvc("new", sc=None, beta_sc="csi")],
            EXCEEDED,
            id="unbound-beta-class",
        ),
        # an existing pod's missing claim is not counted
        pytest.param(
            make_pod().name("p").pvc("c3"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("nope")],
            BASE + BOUND,
            OK,
            id="existing-missing-claim",
        ),
        pytest.param(
            make_pod().name("p").pvc("nope"),
            [],
            BASE,
            (
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                ('looking up PVC default/nope: persistentvolumeclaim "nope" not found',),
            ),
            id="missing-claim",
        ),
        # a node without CSINode has no CSI limit
        pytest.param(
            make_pod().name("p").pvc("c3"),
            [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")],
            [o for o in BASE + BOUND if o["kind"] != "CSINode"],
            OK,
            id="no-csinode",
        ),
    ],
)
def test_csi_limits(pod: Any, existing: list[Any], objs: list[dict[str, Any]], want: Any) -> None:
    assert run(nvl.new, pod, existing, objs) == want


def test_csi_limit_from_node_allocatable() -> None:
    node = (
        make_node()
        .name("n1")
        .capacity(cpu="4", memory="8Gi", pods="110", **{"attachable-volumes-csi-csi.example.com": "1"})
    )
    objs = [o for o in BASE + BOUND if o["kind"] != "CSINode"]
    assert run(nvl.new, make_pod().name("p").pvc("c3"), [on_n1("e1").pvc("c1")], objs, node) == EXCEEDED


GCE_DRIVER_NODE = csi_node("n1", pd_csi_storage_gke_io=1)


@pytest.mark.parametrize(
    "pod,existing,objs,want",
    [
        # inline in-tree disks count under their CSI driver once the node has a CSINode
        pytest.param(
            make_pod().name("p").volume(gce("pd-2")),
            [on_n1("e").volume(gce("pd-1"))],
            [GCE_DRIVER_NODE],
            EXCEEDED,
            id="inline-migrated-over",
        ),
        pytest.param(
            make_pod().name("p").volume(gce("pd-1")),
            [on_n1("e").volume(gce("pd-1"))],
            [GCE_DRIVER_NODE],
            OK,
            id="inline-migrated-same-disk",
        ),
        # without a CSINode the in-tree plugin counts them
        pytest.param(
            make_pod().name("p").volume(gce("pd-2")), [on_n1("e").volume(gce("pd-1"))], [], OK, id="inline-not-migrated"
        ),
        # in-tree PVs are translated: pd-1 inline and pd-1 through a PV are the same volume
        pytest.param(
            make_pod().name("p").pvc("g"),
            [on_n1("e").volume(gce("pd-1"))],
            [GCE_DRIVER_NODE, pv("pv-g", {"gcePersistentDisk": {"pdName": "pd-1"}}), pvc("g", "pv-g")],
            OK,
            id="translated-pv-same-handle",
        ),
        # ... unless the PV's zone label gives the handle a zone
        pytest.param(
            make_pod().name("p").pvc("g"),
            [on_n1("e").volume(gce("pd-1"))],
            [
                GCE_DRIVER_NODE,
                pv("pv-g", {"gcePersistentDisk": {"pdName": "pd-1"}}, {"topology.kubernetes.io/zone": "us-a"}),
                pvc("g", "pv-g"),
            ],
            EXCEEDED,
            id="translated-pv-zonal-handle",
        ),
        # an unbound claim of an in-tree class counts under the migrated driver
        pytest.param(
            make_pod().name("p").pvc("g"),
            [on_n1("e").volume(gce("pd-1"))],
            [GCE_DRIVER_NODE, sc("gce", "kubernetes.io/gce-pd"), pvc("g", sc="gce")],
            EXCEEDED,
            id="in-tree-class-provisioner",
        ),
        # an Azure disk without kind defaults to Shared, which cannot be migrated
        pytest.param(
            make_pod().name("p").volume({"name": "az", "azureDisk": {"diskName": "d", "diskURI": "uri"}}),
            [],
            [csi_node("n1", disk_csi_azure_com=1)],
            (Code.ERROR, ("converting volume(az) from inline to csi: kind(Shared) is not supported in csi migration",)),
            id="azure-shared-error",
        ),
        pytest.param(
            make_pod()
            .name("p")
            .volume({"name": "az", "azureDisk": {"diskName": "d", "diskURI": "uri-2", "kind": "Managed"}}),
            [on_n1("e").volume({"name": "az", "azureDisk": {"diskName": "d", "diskURI": "uri-1", "kind": "Managed"}})],
            [csi_node("n1", disk_csi_azure_com=1)],
            EXCEEDED,
            id="azure-managed-over",
        ),
        # EBS handles drop the aws://zone/ prefix
        pytest.param(
            make_pod().name("p").volume({"name": "e", "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-1"}}),
            [on_n1("e").volume({"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1"}})],
            [csi_node("n1", ebs_csi_aws_com=1)],
            OK,
            id="ebs-handle",
        ),
    ],
)
def test_csi_migration(pod: Any, existing: list[Any], objs: list[dict[str, Any]], want: Any) -> None:
    assert run(nvl.new, pod, existing, objs) == want


def test_ephemeral_volumes() -> None:
    eph = {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}}
    pod = make_pod().name("p").uid("uid-p").volume(eph)
    objs = BASE + BOUND
    existing = [on_n1("e1").pvc("c1"), on_n1("e2").pvc("c2")]
    assert run(nvl.new, pod, existing, objs + [pvc("p-scratch", owner_uid="uid-p")]) == EXCEEDED
    assert run(nvl.new, pod, existing, objs + [pvc("p-scratch", owner_uid="someone-else")]) == (
        Code.ERROR,
        ("PVC default/p-scratch was not created for pod default/p (pod is not owner)",),
    )


@pytest.mark.parametrize(
    "driver,key",
    [
        pytest.param("csi.example.com", "attachable-volumes-csi-csi.example.com", id="short"),
        # 23 + 40 characters reach the 63-character limit: 23 of the name and 16 of its SHA-1
        pytest.param(
            "a-very-long-csi-driver-name.storage.example.com",
            "attachable-volumes-csi-a-very-long-csi-driver-86bf5f46bc6f1680",
            id="hashed",
        ),
    ],
)
def test_attach_limit_key(driver: str, key: str) -> None:
    assert nvl.csi_attach_limit_key(driver) == key


# --- in-tree limits -----------------------------------------------------------------------------


def gce_node(limit: str | None = None) -> Any:
    res = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    if limit is not None:
        res["attachable-volumes-gce-pd"] = limit
    return make_node().name("n1").capacity(**res)


GCE_OBJS = [
    sc("gce", "kubernetes.io/gce-pd"),
    sc("csi", DRIVER),
    pv("pv-g", {"gcePersistentDisk": {"pdName": "pd-9"}}),
    pvc("bound-g", "pv-g", sc="gce"),
    pvc("unbound-g", sc="gce"),
    pvc("unbound-beta", sc=None, beta_sc="gce"),
    pvc("unbound-csi", sc="csi"),
    pvc("missing-pv", "pv-none", sc="gce"),
]


@pytest.mark.parametrize(
    "pod,existing,limit,objs,want",
    [
        pytest.param(
            make_pod().name("p").volume(gce("pd-2")),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            [],
            EXCEEDED,
            id="over-allocatable",
        ),
        pytest.param(
            make_pod().name("p").volume(gce("pd-1")), [on_n1("e").volume(gce("pd-1"))], "1", [], OK, id="same-disk"
        ),
        pytest.param(
            make_pod().name("p").volume(gce("pd-2")),
            [on_n1("e").volume(gce("pd-1"))],
            "2",
            [],
            OK,
            id="under-allocatable",
        ),
        # without allocatable the GCE default is 16
        pytest.param(
            make_pod().name("p").volume(gce("pd-new")),
            [on_n1(f"e{i}").volume(gce(f"pd-{i}")) for i in range(16)],
            None,
            [],
            EXCEEDED,
            id="default-16-over",
        ),
        pytest.param(
            make_pod().name("p").volume(gce("pd-new")),
            [on_n1(f"e{i}").volume(gce(f"pd-{i}")) for i in range(15)],
            None,
            [],
            OK,
            id="default-16-under",
        ),
        # a CSINode means the plugin is migrated: NodeVolumeLimits counts instead
        pytest.param(
            make_pod().name("p").volume(gce("pd-2")),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            [csi_node("n1")],
            OK,
            id="migrated",
        ),
        # claims: bound to a GCE PV, unbound in a GCE class, PV missing in a GCE class
        pytest.param(
            make_pod().name("p").pvc("bound-g"),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            GCE_OBJS,
            EXCEEDED,
            id="bound-claim",
        ),
        pytest.param(
            make_pod().name("p").pvc("bound-g"),
            [on_n1("e").volume(gce("pd-9"))],
            "1",
            GCE_OBJS,
            OK,
            id="bound-claim-same-disk",
        ),
        pytest.param(
            make_pod().name("p").pvc("unbound-g"),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            GCE_OBJS,
            EXCEEDED,
            id="unbound-claim",
        ),
        pytest.param(
            make_pod().name("p").pvc("missing-pv"),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            GCE_OBJS,
            EXCEEDED,
            id="missing-pv",
        ),
        # only spec.storageClassName is read, and other provisioners do not count
        pytest.param(
            make_pod().name("p").pvc("unbound-beta"),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            GCE_OBJS,
            OK,
            id="beta-class-ignored",
        ),
        pytest.param(
            make_pod().name("p").pvc("unbound-csi"),
            [on_n1("e").volume(gce("pd-1"))],
            "1",
            GCE_OBJS,
            OK,
            id="other-provisioner",
        ),
        pytest.param(
            make_pod().name("p").pvc("nope"),
            [],
            "1",
            [],
            (
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                ('looking up PVC default/nope: persistentvolumeclaim "nope" not found',),
            ),
            id="missing-claim",
        ),
        pytest.param(
            make_pod().name("p").volume({"name": "t", "emptyDir": {}}),
            [],
            "0",
            [],
            (Code.SKIP, ()),
            id="skip-no-volumes",
        ),
        pytest.param(
            make_pod().name("p").volume({"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1"}}),
            [],
            "0",
            [],
            (Code.SKIP, ()),
            id="skip-other-disk-kind",
        ),
    ],
)
def test_gce_pd_limits(pod: Any, existing: list[Any], limit: str | None, objs: list[dict[str, Any]], want: Any) -> None:
    assert run(intree.new_gce_pd, pod, existing, objs, gce_node(limit)) == want


@pytest.mark.parametrize(
    "plugin_new,volume,key",
    [
        pytest.param(
            intree.new_ebs, {"awsElasticBlockStore": {"volumeID": "vol-%d"}}, "attachable-volumes-aws-ebs", id="ebs"
        ),
        pytest.param(
            intree.new_azure_disk,
            {"azureDisk": {"diskName": "d-%d", "diskURI": "u-%d"}},
            "attachable-volumes-azure-disk",
            id="azure-disk",
        ),
        pytest.param(intree.new_cinder, {"cinder": {"volumeID": "c-%d"}}, "attachable-volumes-cinder", id="cinder"),
    ],
)
def test_other_in_tree_limits(plugin_new: Any, volume: dict[str, Any], key: str) -> None:
    def vol(i: int) -> dict[str, Any]:
        ((kind, src),) = volume.items()
        return {"name": "v", kind: {k: v % i if "%d" in v else v for k, v in src.items()}}

    node = make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110", **{key: "1"})
    assert run(plugin_new, make_pod().name("p").volume(vol(2)), [on_n1("e").volume(vol(1))], [], node) == EXCEEDED
    assert run(plugin_new, make_pod().name("p").volume(vol(1)), [on_n1("e").volume(vol(1))], [], node) == OK


@pytest.mark.parametrize(
    "labels,want",
    [
        pytest.param({}, 39, id="no-type"),
        pytest.param({"node.kubernetes.io/instance-type": "m5.large"}, 25, id="m5"),
        pytest.param({"beta.kubernetes.io/instance-type": "c5.xlarge"}, 25, id="beta-c5"),
        pytest.param({"node.kubernetes.io/instance-type": "t3.micro"}, 25, id="t3"),
        pytest.param({"node.kubernetes.io/instance-type": "z1d.large"}, 25, id="z1d"),
        pytest.param({"node.kubernetes.io/instance-type": "t2.micro"}, 39, id="t2"),
        pytest.param({"node.kubernetes.io/instance-type": "a5.large"}, 39, id="a5"),
    ],
)
def test_default_ebs_limit(labels: dict[str, str], want: int) -> None:
    node = make_node().name("n1").labels(**labels).obj()
    assert intree.EBS_FILTER.default_max(node) == want
