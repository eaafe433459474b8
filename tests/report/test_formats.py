"""Every output format on samples/: snapshots (pytest --snapshot-update refreshes them) and the
JSON document validated against docs/schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from builders import PINNED
from kwhatif.framework.profile import default_configuration
from kwhatif.load.cluster import load_cluster
from kwhatif.load.pods import load_pods, prepare_incoming
from kwhatif.report.formatter import RenderOptions, get_formatter
from kwhatif.report.model import schedule_report
from kwhatif.scheduler import Scheduler

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

SCENARIOS = {
    "fit": ["pods/web-canary.yaml"],
    "misfit": ["pods/analytics-big.yaml", "pods/gpu-inference.yaml"],
    "tie": ["pods/tie.yaml"],
    "gated": ["pods/gated.yaml"],
}


def report_for(pod_files: list[str], cluster: str = "cluster.yaml"):
    state = load_cluster([str(SAMPLES / cluster)])
    state.use_version(PINNED)  # the snapshots are kube-scheduler 1.30.6's answers
    pods, _ = load_pods([str(SAMPLES / p) for p in pod_files], state)
    pods = prepare_incoming(pods, state)
    sched = Scheduler(state, default_configuration(PINNED))
    atts = sched.run(pods, skip_unchanged=True)
    return schedule_report(atts, sched.snapshot.num_nodes, "default-scheduler")


@pytest.mark.parametrize("fmt", ["table", "wide", "json", "yaml", "markdown", "junit"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_format_snapshot(snapshot, scenario, fmt):
    snapshot.snapshot_dir = SNAPSHOTS
    out = get_formatter(fmt, RenderOptions(wide=fmt == "wide")).format(report_for(SCENARIOS[scenario]))
    ext = {"json": "json", "yaml": "yaml", "junit": "xml", "markdown": "md"}.get(fmt, "txt")
    snapshot.assert_match(out, f"{scenario}.{fmt}.{ext}")


def test_large_cluster_groups_infeasible_nodes(snapshot, tmp_path):
    """60 nodes, most of them too small: the table groups them by reason unless told otherwise."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generate import generate

    dump = tmp_path / "large.json"
    generate(60, 3, str(dump), seed=7)
    pod = tmp_path / "big.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\nspec:\n  containers:\n"
        "  - name: c\n    image: x\n    resources: {requests: {cpu: '20', memory: 8Gi}}\n"
    )
    state = load_cluster([str(dump)])
    state.use_version(PINNED)
    pods, _ = load_pods([str(pod)], state)
    sched = Scheduler(state, default_configuration(PINNED))
    rep = schedule_report(sched.run(pods, skip_unchanged=True), sched.snapshot.num_nodes, "default-scheduler")
    grouped = get_formatter("table").format(rep)
    assert "grouped by reason" in grouped
    assert "43 x *NodeResourcesFit: Insufficient cpu" in grouped
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(grouped, "large.table.txt")
    every = get_formatter("table", RenderOptions(explain_all=True)).format(rep)
    assert "grouped by reason" not in every
    assert every.count("*NodeResourcesFit: Insufficient cpu") == 43
    only = get_formatter("table", RenderOptions(nodes=("node-00003", "nope"))).format(rep)
    assert "node-00003" in only and "node-00004" not in only
    assert "no such node: nope" in only


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_json_matches_schema(scenario):
    schema = json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())
    doc = json.loads(get_formatter("json").format(report_for(SCENARIOS[scenario])))
    jsonschema.validate(doc, schema)
    assert yaml.safe_load(get_formatter("yaml").format(report_for(SCENARIOS[scenario]))) == doc


def test_color_only_when_asked():
    rep = report_for(SCENARIOS["misfit"])
    assert "\x1b[" not in get_formatter("table").format(rep)
    assert "\x1b[31m" in get_formatter("table", RenderOptions(color=True)).format(rep)


def test_wrapping_follows_width():
    rep = report_for(SCENARIOS["misfit"])
    narrow = get_formatter("table", RenderOptions(width=80)).format(rep)
    assert max(len(line) for line in narrow.splitlines()) <= 80
