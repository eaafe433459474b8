"""--scheduler-version and the release detected from the cluster, end to end: the answers, the
JSON/YAML fields, the summary lines and the notes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.e2e.conftest import SAMPLES
from tests.e2e.fake_apiserver import FakeAPIServer

from builders import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())


def _tainted_cluster(tmp_path: Path, image: str | None = None, kubelet: str = "") -> str:
    items = []
    for name, key in (("n1", "a"), ("n2", "b")):
        n = make_node().name(name).capacity(cpu="4", memory="8Gi", pods="110").taint(key, "1").dict()
        if kubelet:
            n["status"]["nodeInfo"] = {"kubeletVersion": kubelet}
        items.append(n)
    if image:
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": "kube-scheduler-n1",
                    "namespace": "kube-system",
                    "annotations": {"kubernetes.io/config.mirror": "x"},
                    "ownerReferences": [
                        {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "u", "controller": True}
                    ],
                },
                "spec": {
                    "nodeName": "n1",
                    "containers": [{"name": "kube-scheduler", "image": image}],
                    "tolerations": [{"operator": "Exists"}],
                },
                "status": {"phase": "Running"},
            }
        )
    p = tmp_path / "cluster.yaml"
    p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(p)


def _pod(tmp_path: Path) -> str:
    p = tmp_path / "pod.yaml"
    p.write_text(yaml.safe_dump(make_pod().name("p").req(cpu="1").dict()))
    return str(p)


@pytest.mark.parametrize(
    "args,image,version,source,reason",
    [
        pytest.param(
            ["--scheduler-version", "1.34.1"],
            None,
            "1.34.1",
            "flag",
            "node(s) had untolerated taint {a: 1}",
            id="flag-exact",
        ),
        pytest.param(
            ["--scheduler-version", "v1.34"],
            None,
            "1.34.10",
            "flag",
            "node(s) had untolerated taint(s)",
            id="flag-minor",
        ),
        pytest.param(
            [],
            "registry.k8s.io/kube-scheduler:v1.31.4",
            "1.31.4",
            "dump",
            "node(s) had untolerated taint {a: 1}",
            id="dump-image",
        ),
        pytest.param(
            ["--scheduler-version", "1.35"],
            "registry.k8s.io/kube-scheduler:v1.31.4",
            "1.35.7",
            "flag",
            "node(s) had untolerated taint(s)",
            id="flag-beats-dump",
        ),
        pytest.param([], None, "1.36.2", "default", "node(s) had untolerated taint(s)", id="default"),
    ],
)
def test_release_choice(run, tmp_path, args, image, version, source, reason):
    r = run("schedule", _pod(tmp_path), "--cluster", _tainted_cluster(tmp_path, image), "-o", "json", *args)
    assert r.code == 1, r.err
    doc = json.loads(r.out)
    jsonschema.validate(doc, SCHEMA)
    assert (doc["schedulerVersion"], doc["schedulerVersionSource"]) == (version, source)
    assert doc["results"][0]["nodes"][0]["filters"][2]["reasons"] == [reason]
    assert any("assumed" in n for n in doc["notes"]) is (source == "default")


def test_summary_line_names_the_release(run):
    r = run("schedule", str(SAMPLES / "pods/web-canary.yaml"), "--cluster", str(SAMPLES / "cluster.yaml"))
    assert r.code == 0, r.err
    assert r.out.rstrip().endswith("(profile default-scheduler, 11 nodes, kube-scheduler 1.30.6 from the dump)")


def test_apiserver_image_when_no_scheduler_pod(run, tmp_path):
    cluster = _tainted_cluster(tmp_path, "registry.k8s.io/kube-apiserver:v1.33.2")
    r = run("schedule", _pod(tmp_path), "--cluster", cluster, "-o", "yaml")
    assert r.code == 1, r.err
    doc = yaml.safe_load(r.out)
    assert (doc["schedulerVersion"], doc["schedulerVersionSource"]) == ("1.33.2", "dump")


@pytest.mark.parametrize("command", ["check", "capacity", "drain"])
def test_every_command_that_schedules_takes_the_flag(run, tmp_path, command):
    cluster = _tainted_cluster(tmp_path)
    target = {"check": _pod(tmp_path), "capacity": _pod(tmp_path), "drain": "n1"}[command]
    r = run(command, target, "--cluster", cluster, "-o", "json", "--scheduler-version", "1.32.3")
    assert r.code in (0, 1), r.err
    doc = json.loads(r.out)
    assert (doc["schedulerVersion"], doc["schedulerVersionSource"]) == ("1.32.3", "flag")
    table = run(command, target, "--cluster", cluster, "--scheduler-version", "1.32.3")
    assert "kube-scheduler 1.32.3 from --scheduler-version" in table.out


@pytest.mark.parametrize("value", ["1.29", "2.1", "one"])
def test_bad_flag_is_exit_2(run, tmp_path, value):
    r = run("schedule", _pod(tmp_path), "--cluster", _tainted_cluster(tmp_path), "--scheduler-version", value)
    assert r.code == 2
    assert r.err.startswith("kwhatif: error: --scheduler-version: ") and len(r.err.strip().splitlines()) == 1


def test_kubelet_skew_notes(run, tmp_path):
    newer = run(
        "schedule",
        _pod(tmp_path),
        "--cluster",
        _tainted_cluster(tmp_path, kubelet="v1.35.1"),
        "-o",
        "json",
        "--scheduler-version",
        "1.34",
    )
    assert any("2 node(s) run a kubelet newer than kube-scheduler 1.34.10" in n for n in json.loads(newer.out)["notes"])
    older = run(
        "schedule",
        _pod(tmp_path),
        "--cluster",
        _tainted_cluster(tmp_path, kubelet="v1.30.2"),
        "-o",
        "json",
        "--scheduler-version",
        "1.34",
    )
    assert any("more than 3 minor releases older" in n for n in json.loads(older.out)["notes"])
    within = run(
        "schedule",
        _pod(tmp_path),
        "--cluster",
        _tainted_cluster(tmp_path, kubelet="v1.31.0"),
        "-o",
        "json",
        "--scheduler-version",
        "1.34",
    )
    assert not any("kubelet" in n for n in json.loads(within.out)["notes"])


def test_live_cluster_version(run, tmp_path):
    objs = [make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="10").taint("a", "1").dict()]
    with FakeAPIServer(objs) as srv:
        kubeconfig = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        srv.git_version = "v1.33.4-eks-0a1b2c"
        r = run("schedule", _pod(tmp_path), "--kubeconfig", kubeconfig, "-o", "json")
        doc = json.loads(r.out)
        assert (doc["schedulerVersion"], doc["schedulerVersionSource"]) == ("1.33.4", "live")
        srv.git_version = None
        r = run("schedule", _pod(tmp_path), "--kubeconfig", kubeconfig, "-o", "json")
        doc = json.loads(r.out)
        assert (doc["schedulerVersion"], doc["schedulerVersionSource"]) == ("1.36.2", "default")
        assert any("could not be read" in n for n in doc["notes"])


def test_a_dump_of_an_older_release_is_not_credited_with_the_answer(run):
    # a 2017 sonobuoy dump: v1.8.4 control plane, answered as the oldest supported release
    so = "tests/e2e/realworld/sonobuoy-aws"
    r = run("check", f"{so}/kube-dns-deployment.json", "--cluster", f"{so}/nodes-and-pods.json")
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1].endswith(
        "kube-scheduler 1.30.14 (the dump's v1.8.4 is older than the releases kwhatif answers as))"
    )
    assert "from the dump" not in r.out
    r = run("check", f"{so}/kube-dns-deployment.json", "--cluster", f"{so}/nodes-and-pods.json", "-o", "json")
    d = json.loads(r.out)
    assert (d["schedulerVersion"], d["schedulerVersionSource"]) == ("1.30.14", "dump")
