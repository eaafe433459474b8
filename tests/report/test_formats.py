"""Every output format on samples/: snapshots (pytest --snapshot-update refreshes them) and the
JSON document validated against docs/schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from kwhatif.config.defaults import default_configuration
from kwhatif.controlplane.controllers.pods import load_pods, prepare_incoming
from kwhatif.load.cluster import load_cluster
from kwhatif.report.base import ReportKind
from kwhatif.report.formats.formatter import RenderOptions
from kwhatif.report.formats.output import get_formatter
from kwhatif.report.schedule import schedule_report
from kwhatif.scheduling.scheduler import Scheduler
from tests.report import SNAPSHOTS, snapshot_file

from builders import PINNED

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

SCENARIOS = {
    "fit": ["pods/web-canary.yaml"],
    "misfit": ["pods/analytics-big.yaml", "pods/gpu-inference.yaml"],
    "tie": ["pods/tie.yaml"],
    "gated": ["pods/gated.yaml"],
    "preempt": ["pods/fraud-model.yaml"],  # two attempts: the preemption, then the nominated node
}


def report_for(pod_files: list[str], cluster: str = "cluster.yaml"):
    state = load_cluster([str(SAMPLES / cluster)])
    state.use_version(PINNED)  # the snapshots are kube-scheduler 1.30.6's answers
    pods, _ = load_pods([str(SAMPLES / p) for p in pod_files], state)
    pods = prepare_incoming(pods, state)
    sched = Scheduler(state, default_configuration(PINNED))
    atts = sched.run(pods, skip_unchanged=True)
    nodes = [ni.node for ni in sched.snapshot.node_infos]
    return schedule_report(atts, sched.snapshot.num_nodes, "default-scheduler", nodes=nodes)


@pytest.mark.parametrize("fmt", ReportKind.SCHEDULE.formats)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_format_snapshot(snapshot, scenario, fmt):
    snapshot.snapshot_dir = SNAPSHOTS
    out = get_formatter(fmt).format(report_for(SCENARIOS[scenario]))
    # -o sarif points at the pods' files, read here by absolute path
    out = out.replace(ROOT.as_uri() + "/", "")
    snapshot.assert_match(out, snapshot_file(scenario, fmt))


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


def _schema() -> dict:
    return json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())


def test_multi_attempt_json_carries_every_attempt():
    """A preemptor: its FailedScheduling attempt with the nomination and the victims, then the
    retry that binds on the nominated node without looking at other nodes; the result's own
    fields stay those of the final attempt (with the preemption carried over), as before."""
    doc = json.loads(get_formatter("json").format(report_for(SCENARIOS["preempt"])))
    jsonschema.validate(doc, _schema())
    (r,) = doc["results"]
    first, second = r["attempts"]
    victim = {"namespace": "data", "name": "postgres-0", "node": "memory-c-1", "priority": 0, "pdbViolation": False}
    assert (first["attempt"], first["status"], first["nominatedNodeName"], first["node"]) == (
        1,
        "Unschedulable",
        None,
        None,
    )
    assert first["message"] == (
        "0/11 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 node(s) had untolerated taint {nvidia.com/gpu: present}, 8 Insufficient memory."
    )
    assert first["preemption"] == {"nominatedNode": "memory-c-1", "victims": [victim]}
    assert (first["evaluatedNodes"], first["feasibleNodes"]) == (0, 0)
    mem = next(n for n in first["nodes"] if n["name"] == "memory-c-1")
    assert (
        not mem["feasible"]
        and {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": ["Insufficient memory"]}
        in mem["filters"]
    )
    assert first["hints"] and first["binding"] is None
    assert (second["attempt"], second["status"], second["nominatedNodeName"], second["node"]) == (
        2,
        "Scheduled",
        "memory-c-1",
        "memory-c-1",
    )
    assert (second["evaluatedNodes"], second["feasibleNodes"]) == (1, 1)
    assert second["message"] is None and second["preemption"] is None
    assert second["binding"]["node"] == "memory-c-1"
    top = {k: v for k, v in r.items() if k != "attempts"}
    assert top["status"] == "Scheduled" and top["node"] == "memory-c-1" and top["attempt"] == 2
    assert top["preemption"] == first["preemption"]
    assert top["nodes"] == second["nodes"] and top["binding"] == second["binding"]
    assert doc["summary"] == {"pods": 1, "scheduled": 1, "unschedulable": 0, "errors": 0, "gated": 0, "preempted": 1}
    assert yaml.safe_load(get_formatter("yaml").format(report_for(SCENARIOS["preempt"]))) == doc


def test_single_attempt_results_list_themselves_as_their_only_attempt():
    doc = json.loads(get_formatter("json").format(report_for(SCENARIOS["fit"] + SCENARIOS["tie"])))
    for r in doc["results"]:
        (only,) = r["attempts"]
        assert {k: only[k] for k in ("status", "node", "message", "nodes", "preemption")} == {
            k: r[k] for k in ("status", "node", "message", "nodes", "preemption")
        }


def test_a_pod_that_does_not_fit_is_attempted_again_with_the_same_answer():
    # round 2 re-activates every pod left unscheduled; nothing changed, so it answers the same
    doc = json.loads(get_formatter("json").format(report_for(SCENARIOS["misfit"])))
    for r in doc["results"]:
        first, second = r["attempts"]
        assert (r["status"], r["attempt"], first["attempt"], second["attempt"]) == ("Unschedulable", 2, 1, 2)
        assert {**second, "attempt": 1} == first
        assert {k: second[k] for k in ("status", "node", "message", "nodes", "preemption")} == {
            k: r[k] for k in ("status", "node", "message", "nodes", "preemption")
        }
    table = get_formatter("table").format(report_for(SCENARIOS["misfit"]))
    assert "DOES NOT FIT ml/inference (attempt 2 of 2)\n" in table
    assert table.count("the same answer as attempt 1") == 2


@pytest.mark.parametrize(
    "fmt,first,final",
    [
        pytest.param(
            "table",
            "DOES NOT FIT ml/fraud-model (attempt 1 of 2)",
            "FITS ml/fraud-model (attempt 2 of 2) -> memory-c-1",
            id="table",
        ),
        pytest.param(
            "wide",
            "DOES NOT FIT ml/fraud-model (attempt 1 of 2)",
            "FITS ml/fraud-model (attempt 2 of 2) -> memory-c-1",
            id="wide",
        ),
        pytest.param(
            "markdown",
            "1. ❌ does not fit: 0/11 nodes are available",
            "2. ✅ fits on `memory-c-1`, its nominated node",
            id="markdown",
        ),
        pytest.param(
            "junit",
            "attempt 1 of 2: Unschedulable: 0/11 nodes are available",
            "attempt 2 of 2: Scheduled (nominated node memory-c-1",
            id="junit",
        ),
    ],
)
def test_text_formats_show_the_first_attempt_before_the_final_verdict(fmt, first, final):
    out = get_formatter(fmt).format(report_for(SCENARIOS["preempt"]))
    assert first in out and final in out
    assert out.index(first) < out.index(final)
    assert "data/postgres-0" in out[: out.index(final)]  # the victims come with the first attempt


def test_nodes_with_the_same_records_share_them_in_the_report_and_its_document():
    """Nodes whose filter (or score) records are the same records share one tuple of them, and the
    dict form one list: JSON and YAML are written as for unshared lists, once per node."""
    from kwhatif.report.formats.yaml import _Dumper, dump_block

    rep = report_for(["pods/web-canary.yaml"])
    nodes = rep.results[0].nodes
    by_ids: dict[tuple[int, ...], list[int]] = {}
    for i, n in enumerate(nodes):
        by_ids.setdefault(tuple(map(id, n.filters)), []).append(i)
    shared = [ix for ix in by_ids.values() if len(ix) > 1]
    assert shared, "the sample has nodes that pass every filter alike"
    for ix in by_ids.values():
        assert len({id(nodes[i].filters) for i in ix}) == 1
    doc = rep.to_dict()
    doc_nodes = doc["results"][0]["nodes"]
    for ix in shared:
        assert len({id(doc_nodes[i]["filters"]) for i in ix}) == 1
    distinct = {id(n.filters) for n in nodes}
    assert len({id(d["filters"]) for d in doc_nodes}) == len(distinct)
    plain = json.loads(json.dumps(doc))  # every list its own
    assert json.loads(get_formatter("json").format(rep)) == plain
    assert dump_block(doc) == yaml.dump(plain, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


def test_a_node_s_empty_records_are_lists_of_its_own():
    from kwhatif.report.schedule import NodeEntry, node_dicts

    docs = node_dicts([NodeEntry("a", False, ()), NodeEntry("b", False, ())])
    lists = [d[k] for d in docs for k in ("filters", "scores")]
    assert lists == [[], [], [], []] and len({id(x) for x in lists}) == 4
