"""`kwhatif check` of a Deployment spread strictly over zones (DoNotSchedule, maxSkew 1) with a
required anti-affinity per node: zones turn infeasible and feasible again as the minimum moves,
and the command places the replicas exactly as a from-scratch evaluation does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
STRICT = ROOT / "benchmarks" / "spread-strict-deployment.yaml"


def _cluster(tmp_path: Path, zones: list[str], taint_every: int = 0) -> Path:
    objs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-1"}}]
    for i, zone in enumerate(zones):
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"n{i:02d}",
                "labels": {"kubernetes.io/hostname": f"n{i:02d}", "topology.kubernetes.io/zone": zone},
            },
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}},
        }
        if taint_every and i % taint_every == taint_every - 1:
            node["spec"]["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
        objs.append(node)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    return path


def _deployment(tmp_path: Path, replicas: int) -> Path:
    path = tmp_path / "deployment.yaml"
    path.write_text(STRICT.read_text().replace("replicas: 1000", f"replicas: {replicas}"))
    return path


def test_strict_spreading_places_until_the_zones_are_full(run, tmp_path):
    cluster = _cluster(tmp_path, ["z1"] * 4 + ["z2", "z3"])
    deployment = _deployment(tmp_path, 6)
    r = run("check", str(deployment), "--cluster", str(cluster), "--scheduler-version", "1.35", "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    # one per zone, then a second one in z1; then z1 exceeds the skew and z2, z3 hold one each
    assert [(x["status"], x["node"]) for x in d["results"]] == [
        ("Scheduled", "n00"),
        ("Scheduled", "n04"),
        ("Scheduled", "n05"),
        ("Scheduled", "n01"),
        ("Unschedulable", None),
        ("Unschedulable", None),
    ]
    (w,) = d["workloads"]
    assert (w["desired"], w["placed"], w["notPlaced"]) == (6, 4, 2)
    assert w["dominantReason"] == "node(s) didn't match pod topology spread constraints"
    assert w["message"] == (
        "0/6 nodes are available: 2 node(s) didn't match pod anti-affinity rules, 4 node(s) didn't match pod"
        " topology spread constraints. no new claims to deallocate, preemption: 0/6 nodes are available: 6 No"
        " preemption victims found for incoming pod."
    )


def _from_scratch(cluster: Path, deployment: Path) -> dict[str, Any]:
    """The check report's workloads and results with the incremental engine off."""
    from kwhatif.config.defaults import default_configuration
    from kwhatif.config.options import Options
    from kwhatif.load.cluster import load_cluster
    from kwhatif.load.files import read_path
    from kwhatif.report.check import check_report
    from kwhatif.report.schedule import schedule_report
    from kwhatif.scheduling.scheduler import Scheduler
    from kwhatif.whatif.check import check

    state = load_cluster([str(cluster)])
    options = Options(filter_excluded=False, compact=True, incremental=False)
    result, sched = check(
        state, list(read_path(str(deployment))), lambda st: Scheduler(st, default_configuration(), options=options)
    )
    report = check_report(result, schedule_report(result.attempts, sched.snapshot.num_nodes, "default-scheduler"))
    d: dict[str, Any] = json.loads(json.dumps(report.to_dict(), default=str))
    return d


def test_strict_spreading_on_uneven_zones_matches_from_scratch(run, tmp_path):
    """Uneven zones and tainted nodes: the skew moves the zones in and out many times."""
    zones = ["z1"] * 9 + ["z2"] * 6 + ["z3"] * 4
    cluster = _cluster(tmp_path, zones, taint_every=5)
    deployment = _deployment(tmp_path, 20)
    r = run("check", str(deployment), "--cluster", str(cluster), "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    want = _from_scratch(cluster, deployment)
    assert d["results"] == want["results"]
    # the same rows, but for where the command read the Deployment (file and line)
    assert [w.pop("source") for w in d["workloads"]] == [f"{deployment}:3"]
    assert [w.pop("source") for w in want["workloads"]] == [str(deployment)]
    assert d["workloads"] == want["workloads"]
    got = [(x["status"], x["node"]) for x in d["results"]]
    placed = [node for status, node in got if status == "Scheduled"]
    # z2 and z3 have 4 untainted nodes each (n09 and n14 are tainted, as n04): with maxSkew 1
    # z1 gets one more than they do
    per_zone = {z: sum(1 for n in placed if zones[int(n[1:])] == z) for z in ("z1", "z2", "z3")}
    assert per_zone == {"z1": 5, "z2": 4, "z3": 4}
    assert len(set(placed)) == len(placed)
