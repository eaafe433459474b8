"""1.38 from the installed command: `kwhatif diff` from 1.37 to 1.38 of a pod whose spread
constraint has `labelSelector: {}` (#141340), with the release named as the cause and the note
that 1.38 is answered from sources."""

from __future__ import annotations

import json
from pathlib import Path

# two zones; node-b has too little cpu for the pod; two pods of the namespace run on node-a
CLUSTER = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b
    labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: z2}
  status:
    allocatable: {cpu: 150m, memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, labels: {app: web}}
  spec:
    nodeName: node-a
    containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: default, labels: {app: web}}
  spec:
    nodeName: node-a
    containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
  status: {phase: Running}
"""

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: spread, namespace: default}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 200m, memory: 64Mi}}}]
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {}
"""


def test_diff_1_37_to_1_38_empty_spread_selector(run, tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(POD)
    args = ("diff", str(tmp_path / "pod.yaml"), "--cluster", str(tmp_path / "cluster.yaml"))
    r = run(*args, "--scheduler-version", "1.37", "--to-scheduler-version", "1.38", "-o", "json")
    assert r.code == 1, r.err  # the pod's status changes
    assert "1.38 (from sources, not checked against the real scheduler)" in r.err
    doc = json.loads(r.out)
    assert (doc["from"]["schedulerVersion"], doc["to"]["schedulerVersion"]) == ("1.37.2", "1.38.0")
    (p,) = doc["pods"]
    assert p["changed"] == ["status", "node", "message", "filters", "scores"]
    assert (p["from"]["status"], p["from"]["node"], p["to"]["status"]) == ("Scheduled", "node-a", "Unschedulable")
    assert p["to"]["message"] == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints. "
        "no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for "
        "incoming pod, 1 Preemption is not helpful for scheduling."
    )
    assert p["plugins"] == ["PodTopologySpread"]  # node-b fails NodeResourcesFit on both sides
    assert [c.get("pr") for c in p["causes"]] == [["#141340"]]
    # back to 1.37: the same change, in force on the first side only
    back = json.loads(run(*args, "--scheduler-version", "1.38", "--to-scheduler-version", "1.37", "-o", "json").out)
    assert [(c["release"], c["inForce"]) for c in back["pods"][0]["causes"]] == [("1.38.0", "from")]


# node-a's pool says two slices but one is published (incomplete); node-b's pool is complete
DRA_CLUSTER = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels: {kubernetes.io/hostname: node-a}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b
    labels: {kubernetes.io/hostname: node-b}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec:
    selectors:
    - cel: {expression: "device.driver == 'gpu.example.com'"}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: node-a-gpu-1}
  spec:
    driver: gpu.example.com
    nodeName: node-a
    pool: {name: node-a, generation: 1, resourceSliceCount: 2}
    devices:
    - name: gpu-0
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: node-b-gpu-1}
  spec:
    driver: gpu.example.com
    nodeName: node-b
    pool: {name: node-b, generation: 1, resourceSliceCount: 1}
    devices:
    - name: gpu-0
    - name: gpu-1
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: all-gpus, namespace: default}
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu, allocationMode: All}
"""

DRA_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  containers: [{name: c, image: trainer, resources: {claims: [{name: gpus}]}}]
  resourceClaims: [{name: gpus, resourceClaimName: all-gpus}]
"""


def test_diff_1_37_to_1_38_all_devices_past_an_incomplete_pool(run, tmp_path: Path) -> None:
    """#141898: 1.37 ends the filter pass with an Error at node-a's incomplete pool; 1.38 fails only
    node-a (the same text) and places the pod on node-b with both of its devices."""
    (tmp_path / "cluster.yaml").write_text(DRA_CLUSTER)
    (tmp_path / "pod.yaml").write_text(DRA_POD)
    args = ("diff", str(tmp_path / "pod.yaml"), "--cluster", str(tmp_path / "cluster.yaml"))
    r = run(*args, "--scheduler-version", "1.37", "--to-scheduler-version", "1.38", "-o", "json")
    assert r.code == 1, r.err
    (p,) = json.loads(r.out)["pods"]
    assert p["changed"] == ["status", "node", "message", "filters"]
    text = (
        "claim default/all-gpus, request gpus: asks for all devices, but resource pool gpu.example.com/node-a "
        "is currently being updated"
    )
    assert (p["from"]["status"], p["from"]["message"]) == ("Error", f'running "DynamicResources" filter plugin: {text}')
    assert (p["to"]["status"], p["to"]["node"]) == ("Scheduled", "node-b")
    assert p["plugins"] == ["DynamicResources"]
    assert ["#141898"] in [c.get("pr") for c in p["causes"]]


def test_an_unset_spread_selector_still_counts_nothing_in_1_38(run, tmp_path: Path) -> None:
    """#141340 changes `labelSelector: {}` only: a constraint without a selector (labels.Nothing)
    counts no pod, so the pod still goes to node-a under 1.38."""
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(POD.replace("    labelSelector: {}\n", ""))
    r = run(
        "schedule",
        str(tmp_path / "pod.yaml"),
        "--cluster",
        str(tmp_path / "cluster.yaml"),
        "--scheduler-version",
        "1.38",
    )
    assert r.code == 0, r.err
    assert r.out.startswith("FITS default/spread -> node-a")
