"""The installed `kwhatif` command explaining one pod over every node of a generated cluster
(benchmarks/generate.py): -o yaml is byte for byte what PyYAML writes of the -o json document,
and the table's node rows are tabulate's plain layout of that document's scores."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from tabulate import tabulate

from kwhatif.report.formats.table import SHORT
from kwhatif.report.formats.yaml import _Dumper

from .conftest import ROOT

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: bench-0
  namespace: team-1
  labels: {app: bench}
spec:
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels: {app: bench}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {app: bench}
  containers:
  - name: app
    image: registry.example.com/web:v1
    resources:
      requests: {cpu: 100m, memory: 128Mi}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    out = tmp_path_factory.mktemp("generated") / "c.json"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "generate.py"), "--nodes", "120", "--seed", "3", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture
def pod(tmp_path):
    p = tmp_path / "pod.yaml"
    p.write_text(POD)
    return p


def test_yaml_is_pyyamls_dump_of_the_json_document(run, cluster, pod):
    j = run("schedule", str(pod), "--cluster", str(cluster), "-o", "json")
    y = run("schedule", str(pod), "--cluster", str(cluster), "-o", "yaml")
    assert j.code == y.code == 0, j.err + y.err
    doc = json.loads(j.out)
    nodes = doc["results"][0]["nodes"]
    assert len(nodes) == 120 and any(n["feasible"] for n in nodes) and not all(n["feasible"] for n in nodes)
    assert y.out == yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


def test_table_rows_are_tabulates_layout(run, cluster, pod):
    j = run("schedule", str(pod), "--cluster", str(cluster), "-o", "json")
    t = run("schedule", str(pod), "--cluster", str(cluster), "-o", "table", "--explain", "all")
    assert j.code == t.code == 0, j.err + t.err
    res = json.loads(j.out)["results"][0]
    feasible = sorted((n for n in res["nodes"] if n["feasible"]), key=lambda n: (-n["total"], n["name"]))
    plugins = [s["plugin"] for s in feasible[0]["scores"]]  # every feasible node has the same, in profile order
    assert all([s["plugin"] for s in n["scores"]] == plugins for n in feasible)
    rows = []
    for n in feasible:
        by = {s["plugin"]: s for s in n["scores"]}
        cells = [str(by[p]["weighted"]) if p in by else "-" for p in plugins]
        rows.append([n["name"], "best" if n["name"] == res["node"] else "fits", *cells, str(n["total"])])
    headers = ["NODE", "VERDICT", *(SHORT.get(p, p) for p in plugins), "TOTAL"]
    expected = tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True)
    lines = t.out.splitlines()
    start = lines.index("  " + expected.splitlines()[0])
    assert lines[start : start + len(rows) + 1] == ["  " + line for line in expected.splitlines()]


def test_the_default_table_of_a_large_cluster_shows_the_best_five_and_counts_the_rest(run, cluster, pod):
    """More than 20 nodes: the 5 best feasible nodes (tabulate's layout of those rows), a count of
    the others, and the infeasible nodes grouped; --detail summary writes the same in JSON."""
    j = run("schedule", str(pod), "--cluster", str(cluster), "-o", "json")
    t = run("schedule", str(pod), "--cluster", str(cluster))
    s = run("schedule", str(pod), "--cluster", str(cluster), "-o", "json", "--detail", "summary")
    assert j.code == t.code == s.code == 0, j.err + t.err + s.err
    res = json.loads(j.out)["results"][0]
    feasible = sorted((n for n in res["nodes"] if n["feasible"]), key=lambda n: (-n["total"], n["name"]))
    plugins = [s["plugin"] for s in feasible[0]["scores"]]
    rows = []
    for n in feasible[:5]:
        by = {s["plugin"]: s for s in n["scores"]}
        cells = [str(by[p]["weighted"]) if p in by else "-" for p in plugins]
        rows.append([n["name"], "best" if n["name"] == res["node"] else "fits", *cells, str(n["total"])])
    headers = ["NODE", "VERDICT", *(SHORT.get(p, p) for p in plugins), "TOTAL"]
    expected = tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True).splitlines()
    lines = t.out.splitlines()
    start = lines.index("  " + expected[0])
    assert lines[start : start + 7] == [
        *("  " + line for line in expected),
        f"  ... {len(feasible) - 5} more feasible nodes (--explain all lists every node)",
    ]
    infeasible = sum(1 for n in res["nodes"] if not n["feasible"])
    assert lines[start + 8].startswith(f"  {infeasible} nodes do not fit, grouped by reason")
    doc = json.loads(s.out)
    assert doc["detail"] == "summary"
    summary = doc["results"][0]["nodeSummary"]
    assert summary["feasibleNodes"] == len(feasible) and summary["infeasibleNodes"] == infeasible
    assert summary["best"] == [n["name"] for n in feasible[:5]]
    assert sum(g["nodes"] for g in summary["groups"]) == infeasible
    shown = {n["name"] for n in doc["results"][0]["nodes"]}
    assert shown == {*summary["best"], *(g["node"] for g in summary["groups"])}


def test_detail_summary_is_for_the_streamed_formats(run, cluster, pod):
    r = run("schedule", str(pod), "--cluster", str(cluster), "-o", "markdown", "--detail", "summary")
    assert r.code == 2
    assert "--detail summary is written by -o table, wide, json and yaml, without --apply" in r.err


def test_detail_full_is_explain_all_for_the_table(run, cluster, pod):
    full = run("schedule", str(pod), "--cluster", str(cluster), "--detail", "full")
    every = run("schedule", str(pod), "--cluster", str(cluster), "--explain", "all")
    assert full.code == every.code == 0, full.err + every.err
    assert full.out == every.out
    assert "more feasible node" not in full.out
