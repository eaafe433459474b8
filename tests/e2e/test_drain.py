"""`kwhatif drain` end to end on samples/."""

from __future__ import annotations

import json


def test_drain_plan_and_replacements(run):
    r = run("drain", "general-b-2", "general-a-1", "--cluster", "samples/cluster.yaml", "-o", "json")
    assert r.code == 1  # the web PodDisruptionBudget allows a single disruption
    d = json.loads(r.out)
    assert d["kind"] == "DrainReport" and d["nodes"] == ["general-b-2", "general-a-1"]
    pods = {p["name"]: p for p in d["pods"]}
    assert pods["kube-proxy-general-a-1"]["action"] == "skip-daemonset"
    assert pods["kube-proxy-general-a-1"]["node"] is None
    assert pods["postgres-1"]["controller"] == {"kind": "StatefulSet", "name": "postgres"}
    assert pods["postgres-1"]["node"] not in (None, "general-b-2", "general-a-1")
    web = [p for p in d["pods"] if p["name"].startswith("web-")]
    # one disruption allowed: the first web pod is evicted, the next two are refused
    assert [p["pdbBlocked"] for p in web] == [None, "web", "web"]
    assert d["summary"] == {"pods": 7, "evicted": 3, "placed": 3, "notPlaced": 0, "lost": 0, "pdbBlocked": 2, "skipped": 2}


def test_drain_single_node_fits(run):
    r = run("drain", "memory-c-1", "--cluster", "samples/cluster.yaml", "-o", "json")
    d = json.loads(r.out)
    postgres = next(p for p in d["pods"] if p["name"] == "postgres-0")
    # 4 cpu / 64Gi: only memory-c-1 had room for it
    assert postgres["node"] is None
    assert postgres["message"].startswith("0/11 nodes are available: ")
    assert r.code == 1


def test_drain_unknown_node(run):
    r = run("drain", "nope", "--cluster", "samples/cluster.yaml")
    assert r.code == 2 and "no node named 'nope'" in r.err
