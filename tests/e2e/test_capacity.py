"""`kwhatif capacity` end to end."""

from __future__ import annotations

import json


def test_capacity_counts_copies(run):
    r = run("capacity", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "-o", "json")
    assert r.code == 0, r.err
    d = json.loads(r.out)
    assert d["kind"] == "CapacityReport"
    assert d["fits"] == sum(d["perNode"].values()) > 0
    assert d["firstFailure"].startswith("0/11 nodes are available: ")
    assert d["stoppedBy"] == "unschedulable"


def test_capacity_minimum_gate(run):
    r = run(
        "capacity", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "--min", "100000", "-o", "json"
    )
    assert r.code == 1
    r = run("capacity", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "--min", "1")
    assert r.code == 0
    assert "meets the minimum of 1" in r.out


def test_capacity_limit(run):
    r = run("capacity", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "--max", "3", "-o", "json")
    d = json.loads(r.out)
    assert d["fits"] == 3 and d["stoppedBy"] == "limit"
