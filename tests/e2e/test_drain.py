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
    # a refused eviction is not an eviction: drain keeps retrying it and never finishes
    assert [p["action"] for p in web] == ["evict", "blocked", "blocked"]
    assert [p["node"] for p in web][1:] == [None, None]
    assert d["summary"] == {
        "pods": 7,
        "evicted": 3,
        "placed": 3,
        "notPlaced": 0,
        "lost": 0,
        "pdbBlocked": 2,
        "skipped": 2,
    }


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


def test_drain_a_pdb_refuses_cannot_finish(run):
    # the web PodDisruptionBudget allows one disruption: general-b-2 holds two of its pods
    r = run("drain", "general-b-2", "--cluster", "samples/cluster.yaml", "-o", "json")
    assert r.code == 1
    d = json.loads(r.out)
    actions = {p["name"]: (p["action"], p["pdbBlocked"]) for p in d["pods"]}
    assert actions["web-6f9c7d8b5c-b9c3d"] == ("evict", None)
    assert actions["web-6f9c7d8b5c-w1z4y"] == ("blocked", "web")
    assert d["summary"] == {
        "pods": 4,
        "evicted": 2,
        "placed": 2,
        "notPlaced": 0,
        "lost": 0,
        "pdbBlocked": 1,
        "skipped": 1,
    }
    table = run("drain", "general-b-2", "--cluster", "samples/cluster.yaml")
    assert table.code == 1
    assert "eviction refused by PodDisruptionBudget web: drain cannot finish" in table.out
    # draining a node whose pods the budget lets go completes
    assert run("drain", "general-a-2", "--cluster", "samples/cluster.yaml").code == 0
