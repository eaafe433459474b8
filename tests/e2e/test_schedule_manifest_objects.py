"""`kwhatif schedule` creates a manifest's Namespaces, PriorityClasses, LimitRanges and
ResourceQuotas before its pods, as `kubectl apply -f` does."""

from __future__ import annotations

import json

CLUSTER = "samples/cluster.yaml"

_OWN = """\
apiVersion: v1
kind: Namespace
metadata: {name: brand-new}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: launch-critical}
value: 500000
---
apiVersion: v1
kind: Pod
metadata: {name: launcher, namespace: brand-new}
spec:
  priorityClassName: launch-critical
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
"""


def test_schedule_takes_the_manifests_namespace_and_priority_class(run, tmp_path):
    manifest = tmp_path / "launch.yaml"
    manifest.write_text(_OWN)
    r = run("schedule", str(manifest), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    (result,) = json.loads(r.out)["results"]
    assert result["pod"] == {"namespace": "brand-new", "name": "launcher"}
    assert (result["status"], result["priority"]) == ("Scheduled", 500000)


def test_without_its_namespace_the_pod_is_refused(run, tmp_path):
    manifest = tmp_path / "launch.yaml"
    manifest.write_text(_OWN.split("---\n", 1)[1])
    r = run("schedule", str(manifest), "--cluster", CLUSTER)
    assert r.code == 2
    assert (
        r.err.splitlines()[-1]
        == f'kwhatif: error: {manifest}:5: Pod brand-new/launcher: namespaces "brand-new" not found'
    )


def test_the_manifests_limit_range_and_quota_apply_to_its_pods(run, tmp_path):
    manifest = tmp_path / "quota.yaml"
    manifest.write_text(
        """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: shop}
spec:
  limits: [{type: Container, defaultRequest: {cpu: 300m}, default: {cpu: 300m}}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: two-pods, namespace: shop}
spec:
  hard: {pods: "2"}
---
apiVersion: v1
kind: Pod
metadata: {name: extra, namespace: shop}
spec:
  containers: [{name: c, image: i}]
"""
    )
    # shop already runs pods: the quota of 2 is used up
    r = run("schedule", str(manifest), "--cluster", CLUSTER)
    assert r.code == 2
    assert r.err.splitlines()[-1].startswith(
        f'kwhatif: error: {manifest}:12: Pod shop/extra: pods "extra" is forbidden: exceeded quota: two-pods, '
        "requested: pods=1, used: pods=9, limited: pods=2"
    )
    roomy = manifest.read_text().replace('pods: "2"', 'pods: "100"')
    manifest.write_text(roomy)
    r = run("schedule", str(manifest), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    (result,) = json.loads(r.out)["results"]
    assert result["status"] == "Scheduled"
