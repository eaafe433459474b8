"""`kwhatif drain` end to end on samples/."""

from __future__ import annotations

import json

import pytest


def test_drain_plan_and_replacements(run):
    r = run(
        "drain", "--ignore-daemonsets", "general-b-2", "general-a-1", "--cluster", "samples/cluster.yaml", "-o", "json"
    )
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
        "refused": 0,
    }


def test_drain_single_node_fits(run):
    r = run("drain", "--ignore-daemonsets", "memory-c-1", "--cluster", "samples/cluster.yaml", "-o", "json")
    d = json.loads(r.out)
    postgres = next(p for p in d["pods"] if p["name"] == "postgres-0")
    # 4 cpu / 64Gi: only memory-c-1 had room for it
    assert postgres["node"] is None
    assert postgres["message"].startswith("0/11 nodes are available: ")
    assert r.code == 1


def test_drain_unknown_node(run):
    r = run("drain", "--ignore-daemonsets", "nope", "--cluster", "samples/cluster.yaml")
    assert r.code == 2 and "no node named 'nope'" in r.err


def test_drain_a_pdb_refuses_cannot_finish(run):
    # the web PodDisruptionBudget allows one disruption: general-b-2 holds two of its pods
    r = run("drain", "--ignore-daemonsets", "general-b-2", "--cluster", "samples/cluster.yaml", "-o", "json")
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
        "refused": 0,
    }
    table = run("drain", "--ignore-daemonsets", "general-b-2", "--cluster", "samples/cluster.yaml")
    assert table.code == 1
    assert "eviction refused by PodDisruptionBudget web: drain cannot finish" in table.out
    # draining a node whose pods the budget lets go completes
    assert run("drain", "--ignore-daemonsets", "general-a-2", "--cluster", "samples/cluster.yaml").code == 0


# --- kubectl drain's flags -------------------------------------------------------------------------


def _pod(name: str, *, owner: str | None = None, labels: dict[str, str] | None = None, **extra: object) -> dict:
    meta: dict[str, object] = {"name": name, "namespace": "default", "labels": labels or {}}
    if owner:
        kind, oname = owner.split("/")
        meta["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": kind, "name": oname, "uid": f"u-{oname}", "controller": True}
        ]
    meta.update(extra.pop("meta", {}))  # type: ignore[arg-type]
    spec: dict[str, object] = {
        "nodeName": "node-a",
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}],
    }
    spec.update(extra)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running"}}


def _node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


@pytest.fixture
def drain_cluster(tmp_path):
    items = [
        _node("node-a"),
        _node("node-b"),
        _pod("agent", owner="DaemonSet/agent"),
        _pod("cache", owner="ReplicaSet/cache", volumes=[{"name": "tmp", "emptyDir": {}}]),
        _pod("db-0", owner="StatefulSet/db", labels={"app": "db"}),
        _pod("kube-proxy", meta={"annotations": {"kubernetes.io/config.mirror": "x"}}),
        _pod("loner"),
        _pod("web-1", owner="ReplicaSet/web", labels={"app": "web"}),
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
            "status": {"disruptionsAllowed": 0},
        },
    ]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


DS = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/agent"
LOCAL = "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache"
BARE = "cannot delete Pods that declare no controller (use --force to override): default/loner"
ALL = ("--ignore-daemonsets", "--delete-emptydir-data", "--force")


@pytest.mark.parametrize(
    "flags, code, refusals, actions",
    [
        pytest.param(
            (),
            1,
            [DS, LOCAL, BARE],
            {"agent": "refused", "cache": "refused", "loner": "refused", "db-0": "not-evicted", "web-1": "not-evicted"},
            id="kubectl-default-refuses",
        ),
        pytest.param(
            ("--ignore-daemonsets",),
            1,
            [LOCAL, BARE],
            {"agent": "skip-daemonset", "cache": "refused", "loner": "refused", "web-1": "not-evicted"},
            id="ignore-daemonsets",
        ),
        pytest.param(
            ("--ignore-daemonsets", "--delete-emptydir-data"),
            1,
            [BARE],
            {"cache": "not-evicted", "loner": "refused"},
            id="delete-emptydir-data",
        ),
        pytest.param(
            ALL,
            1,
            [],
            {"agent": "skip-daemonset", "cache": "evict", "loner": "evict", "db-0": "blocked", "web-1": "evict"},
            id="force-pdb-blocks",
        ),
        pytest.param(
            (*ALL, "--disable-eviction"),
            0,
            [],
            {"db-0": "evict", "kube-proxy": "skip-mirror"},
            id="disable-eviction-skips-pdbs",
        ),
        pytest.param(
            ("--pod-selector", "app=web"),
            0,
            [],
            {"web-1": "evict"},
            id="pod-selector",
        ),
    ],
)
def test_drain_flags(run, drain_cluster, flags, code, refusals, actions):
    r = run("drain", "node-a", *flags, "--cluster", drain_cluster, "-o", "json")
    assert r.code == code, r.err
    d = json.loads(r.out)
    assert [x["message"] for x in d["refusals"]] == refusals
    got = {p["name"]: p["action"] for p in d["pods"]}
    assert {k: got.get(k) for k in actions} == actions
    if refusals:
        table = run("drain", "node-a", *flags, "--cluster", drain_cluster)
        assert [ln for ln in table.out.splitlines() if ln.startswith("error: ")] == [
            f"error: node node-a: {m}" for m in refusals
        ]


def test_drain_pod_selector_leaves_the_others(run, drain_cluster):
    r = run("drain", "node-a", "--pod-selector", "app=web", "--cluster", drain_cluster, "-o", "json")
    d = json.loads(r.out)
    assert [p["name"] for p in d["pods"]] == ["web-1"]
    assert d["notes"][0] == "--pod-selector app=web: 5 pod(s) on the nodes do not match and stay"


def test_drain_bad_pod_selector(run, drain_cluster):
    r = run("drain", "node-a", "--pod-selector", "a in (", "--cluster", drain_cluster)
    assert r.code == 2 and "\nError: --pod-selector 'a in (': unable to parse requirement" in r.err
    assert "Traceback" not in r.err
