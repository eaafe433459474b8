"""A StatefulSet's pod management policy: OrderedReady creates one pod at a time, Parallel all."""

from __future__ import annotations

import json

import pytest

_CLUSTER = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
    capacity: {cpu: "4", memory: 16Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
"""

_STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "3"}}}]}
"""


@pytest.fixture
def files(tmp_path):
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(_CLUSTER)

    def manifest(policy: str | None) -> str:
        path = tmp_path / f"db-{policy}.yaml"
        body = _STATEFULSET
        if policy:
            body = body.replace("  serviceName: db\n", f"  serviceName: db\n  podManagementPolicy: {policy}\n")
        path.write_text(body)
        return str(path)

    return str(cluster), manifest


@pytest.mark.parametrize("policy", [None, "OrderedReady"])
def test_ordered_ready_stops_at_the_first_pod_that_does_not_fit(run, files, policy):
    cluster, manifest = files
    path = manifest(policy)
    r = run("check", path, "--cluster", cluster, "--scheduler-version", "1.33", "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    (w,) = d["workloads"]
    assert (w["verdict"], w["desired"], w["placed"], w["notPlaced"], w["neverCreated"]) == ("DOES NOT FIT", 3, 1, 2, 1)
    # db-2 is never created: it is not placed, nor reported as a pod that does not fit
    assert w["pods"] == ["default/db-0", "default/db-1"]
    assert [(x["pod"]["name"], x["status"]) for x in d["results"]] == [("db-0", "Scheduled"), ("db-1", "Unschedulable")]
    assert (
        "StatefulSet: db-1 does not fit, and OrderedReady creates the next pod only once it is Running and Ready: "
        "the 1 pod(s) after it are never created while it is pending"
    ) in w["notes"]
    table = run("check", path, "--cluster", cluster, "--scheduler-version", "1.33")
    assert table.code == 1
    assert (
        f"StatefulSet default/db ({path}:1): db-1 does not fit; the 1 pod(s) after it are never created while it "
        "is pending (OrderedReady)\n"
    ) in table.out
    assert "pods do not fit" not in table.out


def test_parallel_creates_and_places_every_pod(run, files):
    cluster, manifest = files
    path = manifest("Parallel")
    r = run("check", path, "--cluster", cluster, "--scheduler-version", "1.33", "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    (w,) = d["workloads"]
    assert (w["verdict"], w["desired"], w["placed"], w["notPlaced"]) == ("DOES NOT FIT", 3, 1, 2)
    assert "neverCreated" not in w
    assert w["pods"] == ["default/db-0", "default/db-1", "default/db-2"]
    table = run("check", path, "--cluster", cluster, "--scheduler-version", "1.33")
    assert f"StatefulSet default/db ({path}:1): 2 of 3 pods do not fit\n" in table.out


def test_ordered_ready_that_fits_places_every_pod(run, files, tmp_path):
    cluster, manifest = files
    path = manifest(None)
    small = tmp_path / "small.yaml"
    small.write_text(open(path).read().replace('cpu: "3"', 'cpu: "1"'))
    r = run("check", str(small), "--cluster", cluster, "--scheduler-version", "1.33", "-o", "json")
    assert r.code == 0, r.err
    (w,) = json.loads(r.out)["workloads"]
    assert (w["verdict"], w["placed"]) == ("fits", 3)
    assert "neverCreated" not in w
