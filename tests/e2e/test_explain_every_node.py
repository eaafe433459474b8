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
    t = run("schedule", str(pod), "--cluster", str(cluster), "-o", "table")
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
