"""The installed command on a training Job whose 8 workers form a gang (samples/gang): at 1.36
the Workload API's gates are off by default, so the API server drops spec.schedulingGroup and
the pods are scheduled one by one; 1.35 does not serve the v1alpha2 objects at all. With the
gates on (--feature-gates, where the command has it) the Job gets the group's verdict."""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import SAMPLES, kwhatif_command

TRAIN = str(SAMPLES / "gang" / "train.yaml")
CLUSTER = str(SAMPLES / "gang" / "cluster.yaml")


def test_gates_off_schedules_the_workers_one_by_one(run) -> None:  # type: ignore[no-untyped-def]
    r = run("check", TRAIN, "--cluster", CLUSTER, "--scheduler-version", "1.36", "-o", "json")
    assert r.code == 1, r.err
    rep = json.loads(r.out)
    job = rep["workloads"][0]
    assert (job["kind"], job["placed"], job["notPlaced"], job["verdict"]) == ("Job", 6, 2, "DOES NOT FIT")
    assert "podGroup" not in job
    assert "groups" not in rep
    assert any("GenericWorkload feature gate is off" in n for n in rep["notes"])


def test_release_that_does_not_serve_v1alpha2_refuses_it(run) -> None:  # type: ignore[no-untyped-def]
    r = run("check", TRAIN, "--cluster", CLUSTER, "--scheduler-version", "1.35")
    assert r.code == 2
    assert r.out == ""
    assert r.err.strip() == (
        f"kwhatif: error: {TRAIN}:2: Workload ml/train: apiVersion: unknown apiVersion 'scheduling.k8s.io/v1alpha2' "
        "for Workload (the API server of 1.35.7 serves scheduling.k8s.io/v1alpha1)"
    )
    assert "Traceback" not in r.err


def _has_feature_gates_flag() -> bool:
    out = subprocess.run([kwhatif_command(), "check", "--help"], capture_output=True, text=True, timeout=60).stdout
    return "--feature-gates" in out


def test_gates_on_gives_the_group_verdict(run) -> None:  # type: ignore[no-untyped-def]
    if not _has_feature_gates_flag():
        pytest.skip("this build of the command has no --feature-gates")
    r = run(
        "check",
        TRAIN,
        "--cluster",
        CLUSTER,
        "--scheduler-version",
        "1.36",
        "--feature-gates",
        "GenericWorkload=true,GangScheduling=true",
        "-o",
        "json",
    )
    assert r.code == 1, r.err
    job = json.loads(r.out)["workloads"][0]
    assert (job["placed"], job["notPlaced"], job["verdict"]) == (0, 8, "DOES NOT FIT")
    g = job["podGroup"]
    assert (g["podGroup"], g["workload"], g["verdict"], g["placed"], g["minCount"], g["fitTogether"]) == (
        "ml/train-workers",
        "ml/train",
        "Unschedulable",
        0,
        8,
        6,
    )
    assert g["condition"]["message"] == "pod group is unschedulable"


def test_live_cluster_pod_groups_are_read_and_validated(run, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The live reader lists v1alpha2 PodGroups; one the API server of the release would refuse
    is bad input naming the object and field."""
    from tests.e2e import fake_apiserver
    from tests.e2e.fake_apiserver import FakeAPIServer

    from builders import make_node, make_pod

    path = "/apis/scheduling.k8s.io/v1alpha2/podgroups"
    monkeypatch.setitem(fake_apiserver.LIST_PATHS, path, ("scheduling.k8s.io/v1alpha2", "PodGroupList", "PodGroup"))
    pg = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}},
    }
    objects = [make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="10").dict(), pg]
    pod = tmp_path / "p.yaml"
    pod.write_text(json.dumps(make_pod().name("p").req(cpu="1").dict()))
    with FakeAPIServer(objects) as srv:
        kubeconfig = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        r = run("schedule", str(pod), "--kubeconfig", kubeconfig, "--scheduler-version", "1.36")
        assert path in [p for _, p in srv.requests]
    # an object no API server would have accepted: the server's fault, exit 3
    assert r.code == 3, r.err
    assert r.err.strip().endswith(
        "PodGroup default/pg: spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"
    )
    assert "Traceback" not in r.err


# --- 1.37: v1alpha3/v1beta1, no GangScheduling gate ---------------------------------------------


def _train_v1beta1(tmp_path) -> str:  # type: ignore[no-untyped-def]
    """samples/gang with the Workload API objects in scheduling.k8s.io/v1beta1 (served by 1.37)."""
    text = (SAMPLES / "gang" / "train.yaml").read_text()
    assert "scheduling.k8s.io/v1alpha2" in text
    path = tmp_path / "train.yaml"
    path.write_text(text.replace("scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1beta1"))
    return str(path)


def test_1_37_does_not_serve_v1alpha2(run) -> None:  # type: ignore[no-untyped-def]
    r = run("check", TRAIN, "--cluster", CLUSTER, "--scheduler-version", "1.37")
    assert r.code == 2
    assert r.out == ""
    assert r.err.strip() == (
        f"kwhatif: error: {TRAIN}:2: Workload ml/train: apiVersion: unknown apiVersion 'scheduling.k8s.io/v1alpha2' "
        "for Workload (the API server of 1.37.2 serves scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1beta1)"
    )


def test_1_37_refuses_the_gang_scheduling_gate(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    train = _train_v1beta1(tmp_path)
    for gate in ("GangScheduling", "WorkloadAwarePreemption"):
        r = run("check", train, "--cluster", CLUSTER, "--scheduler-version", "1.37", "--feature-gates", f"{gate}=true")
        assert r.code == 2
        assert r.out == ""
        assert r.err.strip() == f"kwhatif: error: feature-gates: unrecognized feature gate: {gate}"


def test_1_37_generic_workload_alone_gives_the_group_verdict(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    train = _train_v1beta1(tmp_path)
    base = ("check", train, "--cluster", CLUSTER, "--scheduler-version", "1.37", "-o", "json")
    off = json.loads(run(*base).out)
    assert "podGroup" not in off["workloads"][0]  # GenericWorkload is beta in 1.37, still off by default
    r = run(*base, "--feature-gates", "GenericWorkload=true")
    assert r.code == 1, r.err
    rep = json.loads(r.out)
    assert rep["featureGates"] == {"GenericWorkload": True}
    job = rep["workloads"][0]
    assert (job["placed"], job["notPlaced"], job["verdict"]) == (0, 8, "DOES NOT FIT")
    g = job["podGroup"]
    assert (g["podGroup"], g["verdict"], g["placed"], g["minCount"], g["fitTogether"]) == (
        "ml/train-workers",
        "Unschedulable",
        0,
        8,
        6,
    )
    # workload-aware preemption ran (it follows GenericWorkload in 1.37) and found no victims
    assert g["condition"]["message"] == "pod group is unschedulable, No preemption victims found for incoming preemptor"
    assert rep["notes"] == [
        "kube-scheduler 1.37 has no GangScheduling or WorkloadAwarePreemption feature gate: kwhatif runs the "
        "GangScheduling plugin and workload-aware preemption whenever GenericWorkload is on",
        "kube-scheduler 1.37 decides a gang's quorum with GangScheduling's PlacementFeasible inside the pod-group "
        "cycle (and its messages differ); kwhatif answers with 1.36's Permit-based cycle",
    ]
    r38 = run(*base[:-4], "--scheduler-version", "1.38", "-o", "json", "--feature-gates", "GenericWorkload=true")
    assert r38.code == 1, r38.err
    notes38 = json.loads(r38.out)["notes"]
    assert notes38[0] == "1.38 (from sources, not checked against the real scheduler)"
    assert notes38[-1:] == [
        "GangScheduling has no Permit from 1.38 (#141182): PlacementFeasible decides a gang's quorum inside the "
        "pod-group cycle (and its messages differ); kwhatif answers with the Permit-based cycle of the releases "
        "before it",
    ]


def test_1_37_unmodelled_gang_gates_are_reported(run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    train = _train_v1beta1(tmp_path)
    gates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"
    r = run("check", train, "--cluster", CLUSTER, "--scheduler-version", "1.37", "--feature-gates", gates, "-o", "json")
    assert r.code == 1, r.err
    notes = json.loads(r.out)["notes"]
    assert "--feature-gates: CompositePodGroup=true is set, but kwhatif does not model its effect" in notes
    # TopologyAwareWorkloadScheduling is modelled (1.37's generator is 1.36's: topology_placement.go at 008b3652)
    assert not any("TopologyAwareWorkloadScheduling" in n for n in notes)
    bad = run(
        "check", train, "--cluster", CLUSTER, "--scheduler-version", "1.37", "--feature-gates", "CompositePodGroup=true"
    )
    assert bad.code == 2
    assert bad.err.strip() == (
        "kwhatif: error: feature-gates: CompositePodGroup is enabled, but depends on features that are disabled: "
        "[GenericWorkload TopologyAwareWorkloadScheduling]"
    )
