"""`kwhatif check`, the CI gate, end to end on samples/."""

from __future__ import annotations

import json


def test_multi_workload_check(run):
    r = run(
        "check",
        "samples/workloads/release.yaml",
        "samples/workloads/ml-batch.yaml",
        "--cluster",
        "samples/cluster.yaml",
        "-o",
        "json",
    )
    assert r.code == 1
    d = json.loads(r.out)
    assert d["kind"] == "CheckReport"
    rows = {(w["kind"], w["namespace"], w["name"]): w for w in d["workloads"]}
    assert {k: (w["desired"], w["placed"], w["notPlaced"]) for k, w in rows.items()} == {
        ("Deployment", "shop", "web"): (8, 8, 0),
        ("StatefulSet", "data", "search"): (3, 3, 0),
        ("DaemonSet", "kube-system", "log-agent"): (8, 8, 0),
        ("CronJob", "data", "reindex"): (2, 2, 0),
        ("Job", "ml", "train-llm"): (2, 0, 2),
    }
    assert rows[("Job", "ml", "train-llm")]["dominantReason"] == "Insufficient nvidia.com/gpu"
    assert rows[("Deployment", "shop", "web")]["replaced"] == 6
    assert d["summary"] == {
        "workloads": 5,
        "fit": 4,
        "doNotFit": 1,
        "warnings": 0,
        "notChecked": 0,
        "unknown": 0,
        "pods": 23,
        "placed": 21,
        "notPlaced": 2,
        "refused": 0,
        "preempted": 0,
    }
    assert [w["verdict"] for w in d["workloads"]] == ["fits", "fits", "fits", "fits", "DOES NOT FIT"]
    # the search pods spread over the three zones (required anti-affinity per zone)
    search_nodes = [x["node"] for x in d["results"] if x["pod"]["name"].startswith("search-")]
    assert len(search_nodes) == 3


def test_check_fits_exit_0(run):
    r = run("check", "samples/workloads/release.yaml", "--cluster", "samples/cluster.yaml")
    assert r.code == 0, r.out + r.err
    assert "4/4 workloads fit" in r.out


def test_github_annotations(run):
    r = run(
        "check",
        "samples/workloads/release.yaml",
        "samples/workloads/ml-batch.yaml",
        "--cluster",
        "samples/cluster.yaml",
        "-o",
        "github",
    )
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0].startswith(
        "::error file=samples/workloads/ml-batch.yaml,line=2,title=Job ml/train-llm%3A 2 of 2 pods do not fit::0/11 nodes are available: "
    )
    assert lines[-1] == "::notice title=kwhatif check::4/5 workloads fit on 11 nodes"
    assert len(lines) == 2


def test_surge_keeps_the_running_pods(run, tmp_path):
    # 6 web pods (1 cpu each) run; 60 new ones fill the cluster, so keeping the old ones running
    # (surge) leaves exactly 6 fewer places
    big = tmp_path / "web.yaml"
    big.write_text(open("samples/workloads/release.yaml").read().split("---")[0].replace("replicas: 8", "replicas: 60"))
    args = ("check", str(big), "--cluster", "samples/cluster.yaml", "--no-preemption", "-o", "json")
    plain = json.loads(run(*args).out)
    surge = json.loads(run(*args, "--surge").out)
    p, s = plain["workloads"][0], surge["workloads"][0]
    assert p["replaced"] == 6 and s["replaced"] == 0
    assert (p["desired"], p["placed"], p["notPlaced"]) == (60, 50, 10)
    assert (s["desired"], s["placed"], s["notPlaced"]) == (60, 44, 16)


def test_check_markdown_and_junit(run):
    md = run("check", "samples/workloads/ml-batch.yaml", "--cluster", "samples/cluster.yaml", "-o", "markdown")
    assert md.code == 1
    assert md.out.startswith("### kwhatif check: 0/1 workloads fit")
    assert "| ❌ Job `ml/train-llm` | 2 | 0 | 2 | Insufficient nvidia.com/gpu |" in md.out
    ju = run("check", "samples/workloads/ml-batch.yaml", "--cluster", "samples/cluster.yaml", "-o", "junit")
    assert '<testcase classname="Job.ml" name="train-llm" file="samples/workloads/ml-batch.yaml">' in ju.out
    assert '<failure message="2 of 2 pods do not fit: Insufficient nvidia.com/gpu"' in ju.out
