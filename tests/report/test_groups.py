"""The report's group level: a pod group's verdict, where its pods went, and for a group that
cannot start, per node why its members did not fit and what the closest placement lacks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from gang.harness import load, with_gates

from kwhatif.config.defaults import default_configuration
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import read_path
from kwhatif.report.check import check_report
from kwhatif.report.formats.table import group_lines
from kwhatif.report.groups import group_entries
from kwhatif.report.schedule import schedule_report
from kwhatif.scheduling.scheduler import Scheduler
from kwhatif.whatif.check import check

from fidelity import SAMPLE

ROOT = Path(__file__).resolve().parents[2]
GANG_ON = {"GenericWorkload": True, "GangScheduling": True}
REJECTED = SAMPLE / "gang" / "rejected-gang-frees-room"


@pytest.mark.skipif(not REJECTED.is_dir(), reason="the fidelity sample's gang/ cases are not here")
def test_group_that_cannot_start() -> None:
    sched, pods = load(REJECTED)
    attempts = sched.run(pods, rounds=2)
    [g] = group_entries(attempts, sched.gang)
    assert (g.pod_group, g.workload, g.template, g.policy, g.min_count) == (
        "default/train-workers",
        "default/train",
        "workers",
        "gang",
        4,
    )
    assert (g.verdict, g.pods, g.placed, g.nodes, g.fit_together) == ("Unschedulable", 4, 0, (), 1)
    assert g.message == "pod group is unschedulable"
    # round 2: web-0 and web-1 hold 3 cpu on node-2 and node-1, so only w-0 fits (node-0)
    assert g.why == (
        ("node-0", (("Insufficient cpu", 3),)),
        ("node-1", (("Insufficient cpu", 3),)),
        ("node-2", (("Insufficient cpu", 3),)),
    )
    assert g.lacks == (
        "3 more pod(s) running at once: 1 of minCount 4 fit together, 3 fit on no node (Insufficient cpu on 3 node(s))"
    )
    assert group_lines(g) == [
        "pod group default/train-workers (Workload default/train, template workers): Unschedulable "
        "[gang, minCount 4], 0/4 pods placed",
        "  pod group is unschedulable",
        "  closest placement lacks: 3 more pod(s) running at once: 1 of minCount 4 fit together, 3 fit on no node "
        "(Insufficient cpu on 3 node(s))",
        "  why, per node (members that did not fit):",
        "    node-0: Insufficient cpu (3 pods)",
        "    node-1: Insufficient cpu (3 pods)",
        "    node-2: Insufficient cpu (3 pods)",
    ]
    d = schedule_report(attempts, 3, "default-scheduler", groups=[g]).to_dict()
    assert d["groups"][0]["verdict"] == "Unschedulable"
    assert d["groups"][0]["condition"] == {
        "type": "PodGroupScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "pod group is unschedulable",
    }


@pytest.mark.skipif(not (SAMPLE / "gang" / "partial-above-min").is_dir(), reason="gang/ cases are not here")
def test_group_that_started_with_a_member_left_over() -> None:
    sched, pods = load(SAMPLE / "gang" / "partial-above-min")
    [g] = group_entries(sched.run(pods, rounds=2), sched.gang)
    assert (g.verdict, g.placed, g.pods, g.nodes, g.lacks) == (
        "Scheduled",
        3,
        4,
        (("node-0", 1), ("node-1", 1), ("node-2", 1)),
        "",
    )
    assert group_lines(g)[:2] == [
        "pod group default/train-workers (Workload default/train, template workers): Scheduled "
        "[gang, minCount 2], 3/4 pods placed",
        "  placed: node-0 (1), node-1 (1), node-2 (1)",
    ]


def test_check_of_a_job_gives_its_group_verdict() -> None:
    """samples/gang: 8 workers of 3500m cpu, minCount 8, 3 nodes of 8 cpu: 6 fit together, the
    group cannot start, so none is placed, not even the 6 that fit."""
    v = with_gates("1.36.2", GANG_ON)
    state = build_cluster(read_path(str(ROOT / "samples" / "gang" / "cluster.yaml")), version=v)
    docs = list(read_path(str(ROOT / "samples" / "gang" / "train.yaml")))
    cfg = default_configuration(v)
    result, sched = check(state, docs, lambda st: Scheduler(st, cfg, feature_gates=GANG_ON))
    groups = group_entries(result.attempts, sched.gang)
    rep = check_report(result, schedule_report(result.attempts, 3, "default-scheduler", groups=groups))
    [job] = rep.workloads
    assert (job.kind, job.name, job.placed, job.not_placed, str(job.verdict)) == ("Job", "train", 0, 8, "DOES NOT FIT")
    assert job.group is not None and job.group.verdict == "Unschedulable"
    assert job.message == (
        "pod group ml/train-workers is Unschedulable: 2 more pod(s) running at once: 6 of minCount 8 fit together, "
        "2 fit on no node (Insufficient cpu on 3 node(s))"
    )
    d = rep.to_dict()["workloads"][0]["podGroup"]
    assert (d["fitTogether"], d["placed"], d["minCount"]) == (6, 0, 8)


def test_gates_off_no_group_level() -> None:
    v = with_gates("1.36.2", {})
    state = build_cluster(read_path(str(ROOT / "samples" / "gang" / "cluster.yaml")), version=v)
    docs = list(read_path(str(ROOT / "samples" / "gang" / "train.yaml")))
    cfg = dataclasses.replace(default_configuration(v))
    result, sched = check(state, docs, lambda st: Scheduler(st, cfg))
    assert group_entries(result.attempts, sched.gang) == []
    assert sum(1 for a in result.attempts if a.node) == 6


@pytest.mark.skipif(not REJECTED.is_dir(), reason="the fidelity sample's gang/ cases are not here")
def test_groups_follow_the_report_schema() -> None:
    import json

    import jsonschema

    sched, pods = load(REJECTED)
    attempts = sched.run(pods, rounds=2)
    d = schedule_report(attempts, 3, "default-scheduler", groups=group_entries(attempts, sched.gang)).to_dict()
    jsonschema.validate(d, json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text()))
    assert [g["podGroup"] for g in d["groups"]] == ["default/train-workers"]
