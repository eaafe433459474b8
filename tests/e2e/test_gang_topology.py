"""The installed command on a gang with TopologyAwareWorkloadScheduling (1.36.2): eight workers
whose PodGroup asks for one zone. zone-a (2 nodes) and zone-c (1 node) hold 4 each, zone-b (3
nodes) holds 6; an unlabelled node would hold them all but is in no placement."""

from __future__ import annotations

import json
from pathlib import Path

GATES = "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true"
ZONE = "topology.kubernetes.io/zone"


def _write(tmp: Path, workers: int, min_count: int) -> tuple[str, str]:
    nodes = [("a-1", "zone-a", 4), ("a-2", "zone-a", 4), ("b-1", "zone-b", 4), ("b-2", "zone-b", 4)]
    nodes += [("b-3", "zone-b", 4), ("c-1", "zone-c", 8), ("x-1", "", 16)]
    items = []
    for n, z, c in nodes:
        labels = f"kubernetes.io/hostname: {n}" + (f", {ZONE}: {z}" if z else "")
        items.append(
            f"- apiVersion: v1\n  kind: Node\n  metadata: {{name: {n}, labels: {{{labels}}}}}\n"
            f"  status: {{allocatable: {{cpu: '{c}', memory: 16Gi, pods: '110'}}}}"
        )
    items.append(
        "- apiVersion: scheduling.k8s.io/v1alpha2\n  kind: PodGroup\n  metadata: {name: train, namespace: ml}\n"
        f"  spec:\n    schedulingPolicy: {{gang: {{minCount: {min_count}}}}}\n"
        f"    schedulingConstraints:\n      topology:\n      - key: {ZONE}"
    )
    cluster = tmp / "cluster.yaml"
    cluster.write_text("apiVersion: v1\nkind: List\nitems:\n" + "\n".join(items) + "\n")
    pods = tmp / "pods.yaml"
    pods.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        + "\n".join(
            f"- apiVersion: v1\n  kind: Pod\n  metadata: {{name: w-{i}, namespace: ml}}\n  spec:\n"
            "    schedulingGroup: {podGroupName: train}\n"
            "    containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]"
            for i in range(workers)
        )
        + "\n"
    )
    return str(pods), str(cluster)


def test_gang_is_placed_in_the_one_zone_that_holds_it(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pods, cluster = _write(tmp_path, 6, 6)
    r = run(
        "schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2", "--feature-gates", GATES, "-o", "json"
    )
    assert r.code == 0, r.err
    rep = json.loads(r.out)
    assert sorted(p["node"] for p in rep["results"]) == ["b-1", "b-1", "b-2", "b-2", "b-3", "b-3"]
    (group,) = rep["groups"]
    assert group["condition"]["status"] == "True"
    assert [(p["name"], p["nodes"], p["feasible"], p["placed"], p["chosen"]) for p in group["placements"]] == [
        ("zone-a", 2, False, 4, False),
        ("zone-b", 3, True, 6, True),
        ("zone-c", 1, False, 4, False),
    ]
    assert not any("TopologyAwareWorkloadScheduling" in n for n in rep["notes"])
    table = run("schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2", "--feature-gates", GATES)
    assert table.code == 0, table.err
    assert (
        "  placements tried: 3\n"
        "      zone-a (2 node(s)): not feasible (4 pod(s) fit): pod group is unschedulable\n"
        "    * zone-b (3 node(s)): feasible, 6 pod(s)\n"
        "      zone-c (1 node(s)): not feasible (4 pod(s) fit): pod group is unschedulable\n"
    ) in table.out


def test_gang_that_fits_in_no_zone(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pods, cluster = _write(tmp_path, 8, 8)
    r = run(
        "schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2", "--feature-gates", GATES, "-o", "json"
    )
    assert r.code == 1, r.err
    rep = json.loads(r.out)
    assert all(p["status"] == "Unschedulable" and p["node"] is None for p in rep["results"])
    (group,) = rep["groups"]
    assert group["condition"] == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "0/3 placements are available, first placement status: pod group is unschedulable",
    }
    assert [p["placed"] for p in group["placements"]] == [4, 6, 4]
    assert sorted({p["message"] for p in rep["results"]}) == [
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/7 nodes are "
        "available: 2 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling.",
        "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or more plugins "
        "asked to wait and no plugin rejected pod",
    ]
    # without the gate the unlabelled node takes the whole gang
    off = run(
        "schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2",
        "--feature-gates", "GenericWorkload=true,GangScheduling=true", "-o", "json",
    )  # fmt: skip
    assert off.code == 0, off.err
    assert "placements" not in json.loads(off.out)["groups"][0]


def test_placement_extension_points_in_the_configuration(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """1.36's v1.Plugins have placementGenerate and placementScore; 1.35's do not. A weight on
    PodGroupPodsCount multiplies its normalized score; disabling the generator leaves one placement
    of every node."""
    pods, cluster = _write(tmp_path, 4, 4)
    weighted = tmp_path / "weighted.yaml"
    weighted.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    placementScore:\n"
        "      enabled:\n      - {name: PodGroupPodsCount, weight: 3}\n"
    )
    old = run("schedule", pods, "--cluster", cluster, "--scheduler-version", "1.35", "--config", str(weighted))
    assert old.code == 2
    assert old.err.strip() == f'kwhatif: error: {weighted}: profiles[0].plugins: unknown field "placementScore"'
    r = run(
        "schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2", "--config", str(weighted),
        "--feature-gates", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true", "-o", "json",
    )  # fmt: skip
    assert r.code == 0, r.err
    # a basic group (no GangScheduling plugin): every zone holds all 4 members, each scores 100 * 3
    placements = json.loads(r.out)["groups"][0]["placements"]
    assert [(p["name"], p["score"], p["chosen"]) for p in placements] == [
        ("zone-a", 300, True),
        ("zone-b", 300, False),
        ("zone-c", 300, False),
    ]
    off = tmp_path / "off.yaml"
    off.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n"
        "      disabled:\n      - {name: TopologyPlacementGenerator}\n"
    )
    r = run(
        "schedule", pods, "--cluster", cluster, "--scheduler-version", "1.36.2", "--config", str(off),
        "--feature-gates", GATES, "-o", "json",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert [(p["name"], p["nodes"]) for p in json.loads(r.out)["groups"][0]["placements"]] == [("", 7)]
