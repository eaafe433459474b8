"""`kwhatif` on real-world manifests and cluster dumps (tests/e2e/realworld, see SOURCES.md):
admission, controllers and CI behaviour that change the answer."""

from __future__ import annotations

import json

RW = "tests/e2e/realworld"
EKS = f"{RW}/eks/cluster-info-dump.txt"


def check_json(run, *args: str) -> tuple[int, dict, str]:
    r = run("check", *args, "-o", "json")
    return r.code, json.loads(r.out) if r.out.strip() else {}, r.err


def test_kubernetes_io_prefixed_resources_are_native(run):
    # v1.30 accepts kubernetes.io/-prefixed container resources (no standard name needed, and
    # overcommit allowed); the scheduler then counts them like any scalar resource
    code, d, err = check_json(run, f"{RW}/derived/job-kubernetes-io-resource.yaml", "--cluster", EKS)
    assert code == 1, err
    (w,) = d["workloads"]
    assert (w["kind"], w["name"], w["desired"], w["placed"]) == ("Job", "j-e2e-1", 1, 0)
    assert w["dominantReason"] == "Insufficient kubernetes.io/something"
    assert w["message"].startswith(
        "0/2 nodes are available: 2 Insufficient kubernetes.io/something, 2 Insufficient subdomain.kubernetes.io/something."
    )
