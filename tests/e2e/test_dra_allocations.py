"""The devices of each claim as data in -o json and -o yaml: a claim whose request takes devices
from two pools of one driver, next to the sentence for people."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import yaml

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schema" / "schedule-report.schema.json"

CLUSTER = textwrap.dedent(
    """\
    apiVersion: v1
    kind: List
    items:
    - apiVersion: v1
      kind: Node
      metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
      status:
        allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
        capacity: {cpu: "8", memory: 16Gi, pods: "110"}
    - apiVersion: resource.k8s.io/v1
      kind: DeviceClass
      metadata: {name: class-a}
      spec:
        selectors:
        - cel: {expression: device.driver == 'driver-a'}
    - apiVersion: resource.k8s.io/v1
      kind: ResourceSlice
      metadata: {name: node-a-pool-1}
      spec:
        driver: driver-a
        nodeName: node-a
        pool: {name: pool-1, generation: 1, resourceSliceCount: 1}
        devices:
        - name: device-1
    - apiVersion: resource.k8s.io/v1
      kind: ResourceSlice
      metadata: {name: node-a-pool-2}
      spec:
        driver: driver-a
        nodeName: node-a
        pool: {name: pool-2, generation: 1, resourceSliceCount: 1}
        devices:
        - name: device-1
    """
)

POD = textwrap.dedent(
    """\
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: claim-0, namespace: default}
    spec:
      devices:
        requests:
        - name: req-0
          exactly: {deviceClassName: class-a, count: 2}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: pod-0, namespace: default}
    spec:
      resourceClaims:
      - {name: devices, resourceClaimName: claim-0}
      containers:
      - name: c
        image: registry.k8s.io/pause:3.10
        resources:
          requests: {cpu: 100m}
          claims:
          - name: devices
    """
)

ALLOCATIONS = [
    {
        "claim": {"namespace": "default", "name": "claim-0"},
        "allocated": False,
        "requests": [
            {
                "request": "req-0",
                "devices": [
                    {"driver": "driver-a", "pool": "pool-1", "device": "device-1", "adminAccess": False},
                    {"driver": "driver-a", "pool": "pool-2", "device": "device-1", "adminAccess": False},
                ],
            }
        ],
    }
]


def _files(tmp_path):
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(POD)
    return str(tmp_path / "pod.yaml"), str(tmp_path / "cluster.yaml")


def _dra_filter(doc):
    (node,) = doc["results"][0]["nodes"]
    return next(f for f in node["filters"] if f["plugin"] == "DynamicResources")


def test_json_lists_the_devices_of_a_multi_pool_allocation(run, tmp_path):
    pod, cluster = _files(tmp_path)
    r = run("schedule", pod, "--cluster", cluster, "--scheduler-version", "1.35", "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert _dra_filter(doc) == {
        "plugin": "DynamicResources",
        "code": "Success",
        "reasons": [],
        "details": ["claim default/claim-0: req-0 -> device-1, device-1 [driver-a/pool-1; driver-a/pool-2]"],
        "allocations": ALLOCATIONS,
    }
    (result,) = doc["results"]
    assert result["claims"] == ALLOCATIONS
    assert [a["claims"] for a in result["attempts"]] == [ALLOCATIONS]


def test_yaml_carries_the_same_allocations(run, tmp_path):
    pod, cluster = _files(tmp_path)
    r = run("schedule", pod, "--cluster", cluster, "--scheduler-version", "1.35", "-o", "yaml")
    assert r.code == 0, r.err
    assert _dra_filter(yaml.safe_load(r.out))["allocations"] == ALLOCATIONS


def test_check_results_carry_the_claims_of_their_node(run, tmp_path):
    """check drops the per-node records of its many pods; a placed pod keeps its devices."""
    pod, cluster = _files(tmp_path)
    r = run("check", pod, "--cluster", cluster, "--scheduler-version", "1.35", "-o", "json")
    assert r.code == 0, r.err
    (result,) = json.loads(r.out)["results"]
    assert (result["node"], result["claims"]) == ("node-a", ALLOCATIONS)


def test_a_pod_that_does_not_fit_has_no_claims(run, tmp_path):
    pod, cluster = _files(tmp_path)
    (tmp_path / "pod.yaml").write_text(POD.replace("count: 2", "count: 3"))
    r = run("schedule", pod, "--cluster", cluster, "--scheduler-version", "1.35", "-o", "json")
    assert r.code == 1, r.err
    (result,) = json.loads(r.out)["results"]
    assert "claims" not in result
    assert "allocations" not in _dra_filter(json.loads(r.out))
