"""Hints agree with the reasons they explain: one case per reason kind the filter plugins emit."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any

import pytest

from kwhatif import plugins
from kwhatif.api import parse
from kwhatif.api.resources import PodRules
from kwhatif.cache.cluster import ClusterState
from kwhatif.config.defaults import default_configuration
from kwhatif.controlplane.admission.pod import Admission
from kwhatif.plugins import inter_pod_affinity as ipa
from kwhatif.plugins import node_affinity as na
from kwhatif.plugins import node_ports as np
from kwhatif.plugins import node_resources_fit as nrf
from kwhatif.plugins import node_unschedulable as nu
from kwhatif.plugins import node_volume_limits as nvl
from kwhatif.plugins import pod_topology_spread as pts
from kwhatif.plugins import taint_toleration as tt
from kwhatif.plugins import volume_binding as vb
from kwhatif.plugins import volume_restrictions as vr
from kwhatif.plugins import volume_zone as vz
from kwhatif.release.versions import get
from kwhatif.scheduling.explain import node_hint
from kwhatif.scheduling.scheduler import Scheduler

from builders import PodBuilder, make_node, make_pod

V = get("1.33")


def _pod(b: PodBuilder) -> Any:
    adm = Admission({}, {}, V, PodRules.of(V))
    b.d["metadata"].setdefault("uid", f"uid-{b.d['metadata']['name']}")
    return adm.admit(parse.pod(b.dict(), rules=adm.rules), strict=True)


PLAIN = make_pod().name("p")
TAINTED = (
    make_node()
    .name("n")
    .taint("dedicated", "db")
    .taint("gpu", effect="NoExecute")
    .taint("soft", effect="PreferNoSchedule")
)

# (plugin, reasons, pod, node, the hint's phrase)
CASES: dict[str, tuple[str, tuple[str, ...], PodBuilder, Any, str]] = {
    "taint-v1.30-names-every-untolerated-taint": (
        "TaintToleration",
        (tt.err_reason_untolerated("dedicated", "db"),),
        make_pod().name("p"),
        TAINTED,
        "would take the pod if it tolerated taints dedicated=db:NoSchedule and gpu:NoExecute",
    ),
    "taint-v1.35-untolerated-taints": (
        "TaintToleration",
        ("node(s) had untolerated taint(s)",),
        make_pod().name("p").toleration("dedicated", "Equal", "db"),
        TAINTED,
        "would take the pod if it tolerated taint gpu:NoExecute",
    ),
    "spread-missing-required-label": (
        "PodTopologySpread",
        (pts.ERR_REASON_NODE_LABEL_NOT_MATCH,),
        make_pod()
        .name("p")
        .label("app", "a")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "a"}}),
        make_node().name("n"),
        "fail only the topology spread constraints: they lack the label topology.kubernetes.io/zone the constraints "
        "spread over (a node without its topologyKey belongs to no domain); label them, or spread over a key they have",
    ),
    "spread-skew-exceeded": (
        "PodTopologySpread",
        (pts.ERR_REASON_CONSTRAINTS_NOT_MATCH,),
        make_pod().name("p").label("app", "a").spread(1, "zone", selector={"matchLabels": {"app": "a"}}),
        make_node().name("n").label("zone", "a"),
        "fail only the topology spread constraints (maxSkew would be exceeded there)",
    ),
    "pod-affinity": (
        "InterPodAffinity",
        (ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH,),
        PLAIN,
        make_node().name("n"),
        "fail only the pod's required pod affinity (no pod it must join runs in their topology domain)",
    ),
    "pod-anti-affinity": (
        "InterPodAffinity",
        (ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,),
        PLAIN,
        make_node().name("n"),
        "fail only the pod's required pod anti-affinity (a pod it must avoid runs in their topology domain)",
    ),
    "existing-anti-affinity": (
        "InterPodAffinity",
        (ipa.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,),
        PLAIN,
        make_node().name("n"),
        "fail only the required anti-affinity of pods running in their topology domain, which this pod matches",
    ),
    "cordoned": (
        "NodeUnschedulable",
        (nu.ERR_REASON_UNSCHEDULABLE,),
        PLAIN,
        make_node().name("n").unschedulable(),
        "fail only because they are cordoned (spec.unschedulable)",
    ),
    "host-port": (
        "NodePorts",
        (np.ERR_REASON,),
        make_pod().name("p").host_port(8080),
        make_node().name("n"),
        "fail only because host port 8080/TCP is taken there",
    ),
    "volume-bind-conflict": (
        "VolumeBinding",
        (vb.ERR_REASON_BIND_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only because no Available PersistentVolume there matches the pod's unbound claims",
    ),
    "volume-node-affinity": (
        "VolumeBinding",
        (vb.ERR_REASON_NODE_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only the node affinity of the PersistentVolumes the pod's claims are bound to",
    ),
    "volume-capacity": (
        "VolumeBinding",
        (vb.ERR_REASON_NOT_ENOUGH_SPACE,),
        PLAIN,
        make_node().name("n"),
        "fail only because their storage capacity (CSIStorageCapacity) is too small for the pod's claims",
    ),
    "volume-missing-pv": (
        "VolumeBinding",
        (vb.ERR_REASON_PV_NOT_EXIST,),
        PLAIN,
        make_node().name("n"),
        "fail only because a claim of the pod is bound to a PersistentVolume that does not exist",
    ),
    "volume-zone": (
        "VolumeZone",
        (vz.ERR_REASON_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only the zone and region labels of the pod's PersistentVolumes (a volume zone conflict)",
    ),
    "disk-conflict": (
        "VolumeRestrictions",
        (vr.ERR_REASON_DISK_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only because a pod there already mounts the same disk",
    ),
    "read-write-once-pod": (
        "VolumeRestrictions",
        (vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only because a pod there already uses the pod's ReadWriteOncePod claim",
    ),
    "volume-count": (
        "NodeVolumeLimits",
        (nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,),
        PLAIN,
        make_node().name("n"),
        "fail only because the pod's volumes would exceed their attachable volume limit",
    ),
    "csi-driver-missing": (
        "NodeVolumeLimits",
        (nvl.err_reason_driver_not_installed("ebs.csi.aws.com"),),
        PLAIN,
        make_node().name("n"),
        "fail only NodeVolumeLimits: ebs.csi.aws.com CSI driver is not installed on the node",
    ),
    "node-affinity-conflict": (
        "NodeAffinity",
        (na.ERR_REASON_CONFLICT,),
        PLAIN,
        make_node().name("n"),
        "fail only NodeAffinity: pod affinity terms conflict",
    ),
    "declared-features": (
        "NodeDeclaredFeatures",
        ("node(s) didn't have the declared features: Foo",),
        PLAIN,
        make_node().name("n"),
        "fail only NodeDeclaredFeatures: node(s) didn't have the declared features: Foo",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_node_hint_follows_the_reason(case: str) -> None:
    plugin, reasons, pod, node, want = CASES[case]
    assert node_hint(plugin, reasons, _pod(pod), node.obj()) == want


# Reasons whose hints are made elsewhere: the amounts a node is short of (NodeResourcesFit), the
# pod's own selector or the profile's addedAffinity (NodeAffinity, below), spec.nodeName, the
# devices (DynamicResources explains itself), and PreFilter's answers (no node hint).
ELSEWHERE = {
    nrf.ERR_REASON_TOO_MANY_PODS,
    na.ERR_REASON_POD,
    na.ERR_REASON_ENFORCED,
    "node(s) didn't match the requested node name",
    vb.ERR_REASON_UNBOUND_IMMEDIATE,
    "resourceclaim in use",
    "cannot allocate all claims",
    "resourceclaim not available on the node",
}


def test_every_reason_the_plugins_emit_has_a_case() -> None:
    emitted = set()
    for info in pkgutil.iter_modules(plugins.__path__):
        module = importlib.import_module(f"kwhatif.plugins.{info.name}")
        for attr, value in vars(module).items():
            if attr.startswith("ERR_REASON") and isinstance(value, str) and "{" not in value:
                emitted.add(value)
    covered = {r for _, reasons, _, _, _ in CASES.values() for r in reasons} | ELSEWHERE
    assert emitted - covered == set()


def _attempt(nodes: list[Any], pod: PodBuilder) -> Any:
    state = ClusterState(version=V)
    state.nodes = {n.name: n for n in (b.obj() for b in nodes)}
    cfg = dataclasses.replace(default_configuration(V), percentage_of_nodes_to_score=100)
    return Scheduler(state, cfg).schedule_one(_pod(pod))


def test_a_node_without_the_topology_key_gets_the_missing_label_hint() -> None:
    pod = (
        make_pod()
        .name("p")
        .label("app", "a")
        .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "a"}})
    )
    a = _attempt([make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="10")], pod)
    assert a.node is None
    assert a.hints == [
        "1 node(s) (n1) fail only the topology spread constraints: they lack the label topology.kubernetes.io/zone "
        "the constraints spread over (a node without its topologyKey belongs to no domain); label them, or spread "
        "over a key they have"
    ]
    assert "maxSkew" not in " ".join(a.hints)


def test_taint_hints_group_nodes_by_all_their_untolerated_taints() -> None:
    nodes = [
        make_node()
        .name("n1")
        .capacity(cpu="4", memory="8Gi", pods="10")
        .taint("a", "1")
        .taint("b", effect="NoExecute"),
        make_node()
        .name("n2")
        .capacity(cpu="4", memory="8Gi", pods="10")
        .taint("a", "1")
        .taint("b", effect="NoExecute"),
        make_node().name("n3").capacity(cpu="4", memory="8Gi", pods="10").taint("a", "1"),
    ]
    a = _attempt(nodes, make_pod().name("p"))
    assert a.hints == [
        "2 node(s) (n1, n2) would take the pod if it tolerated taints a=1:NoSchedule and b:NoExecute",
        "1 node(s) (n3) would take the pod if it tolerated taint a=1:NoSchedule",
    ]


def test_resource_hints_follow_insufficient_and_too_many_pods() -> None:
    nodes = [
        make_node().name("small").capacity(cpu="1", memory="8Gi", pods="10"),
        make_node().name("full").capacity(cpu="8", memory="8Gi", pods="0"),
    ]
    a = _attempt(nodes, make_pod().name("p").req(cpu="2"))
    assert a.hints == [
        "1 node(s) (full) are at their pod limit (status.allocatable.pods)",
        "1 node(s) (small) have less cpu in all than the pod requests",
    ]


def test_node_affinity_hint_names_the_selector_and_the_values_nodes_have() -> None:
    nodes = [make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="10").label("disk", "hdd")]
    a = _attempt(nodes, make_pod().name("p").node_selector(disk="ssd"))
    assert a.hints == ["1 node(s) (n1) fail only the pod's nodeSelector disk=ssd (they have disk=hdd ×1)"]
