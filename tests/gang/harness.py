"""Run a gang case of the fidelity sample (fidelity-sample/gang/<case>) and express kwhatif's
answer in the sample's schema and canonical form (gang/canon.py)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kwhatif.api.parse import pod as parse_pod
from kwhatif.config.defaults import default_configuration
from kwhatif.framework.types import PodOutcome
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import read_path
from kwhatif.release.versions import SchedulerVersion
from kwhatif.release.versions import get as get_version
from kwhatif.scheduling.scheduler import Attempt, Scheduler


def parse_gates(text: str) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for item in text.strip().split(","):
        if item.strip():
            k, _, v = item.partition("=")
            out[k.strip()] = v.strip().lower() == "true"
    return out


def with_gates(version: str, gates: Mapping[str, bool]) -> SchedulerVersion:
    """The release with ``gates`` over its defaults (what --feature-gates gives)."""
    v = get_version(version)
    text = ",".join(f"{k}={str(on).lower()}" for k, on in gates.items() if v.has_gate(k))
    return v.with_feature_gates(text) if text else v


def load(case: Path, version: str = "1.36.2", gates: Mapping[str, bool] | None = None) -> tuple[Scheduler, list[Any]]:
    if gates is None:
        gates = parse_gates((case / "feature-gates.txt").read_text())
    v = with_gates(version, gates)
    cluster = build_cluster(read_path(str(case / "cluster.yaml")), version=v)
    admission = cluster.admission
    pods = [
        admission.admit(parse_pod(d.body, rules=admission.rules), strict=True, refuse_unlimited=False)
        for d in read_path(str(case / "pods.yaml"))
        if d.kind == "Pod"
    ]
    config = dataclasses.replace(default_configuration(v), percentage_of_nodes_to_score=100)
    return Scheduler(cluster, config, feature_gates=gates), pods


def run(case: Path, version: str = "1.36.2", gates: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """kwhatif's answer in the sample's expected.json schema (the fields canon.py reads)."""
    sched, pods = load(case, version, gates)
    attempts = sched.run(pods, rounds=2)
    return answer(sched, pods, attempts)


def answer(sched: Scheduler, pods: list[Any], attempts: list[Attempt]) -> dict[str, Any]:
    tried = [a for a in attempts if a.result is not PodOutcome.GATED]
    out_attempts = []
    for a in tried:
        out_attempts.append(
            {
                "pod": a.pod.key,
                "round": a.round,
                "cycle": a.cycle,
                "podGroup": a.pod_group,
                "result": str(a.result),
                "node": a.node or "",
                "message": a.message if a.result is not PodOutcome.SCHEDULED else "",
                "failureCode": _failure_code(a),
                "nominatedNodeName": a.nominated_node,
                "victims": sorted(v.key for v in a.victims) if not a.pod_group else [],
            }
        )
    final = {p.key: "" for p in pods}
    for a in tried:
        if a.result is PodOutcome.SCHEDULED and a.node:
            final[a.pod.key] = a.node
    members: dict[str, list[str]] = {}
    for p in pods:
        if p.pod_group and sched.gang.gates.generic_workload:
            members.setdefault(f"{p.namespace}/{p.pod_group}", []).append(p.key)
    group_nodes = {g: sorted(final[k] for k in ks) for g, ks in members.items()}
    pod_groups = {g: {"conditions": [dataclasses.asdict(c)]} for g, c in sched.gang.conditions.items()}
    last: dict[str, Attempt] = {}
    for a in attempts:
        last[a.pod.key] = a
    conditions: dict[str, Any] = {}
    queue: dict[str, Any] = {}
    for key, a in last.items():
        if a.result is PodOutcome.GATED:
            plugin = a.fit.pre_filter.status.plugin if a.fit is not None and a.fit.pre_filter is not None else ""
            queue[key] = {"queue": "unschedulable", "gatingPlugin": plugin, "attempts": 0}
            continue
        if a.result is PodOutcome.SCHEDULED:
            continue
        conditions[key] = {"status": "False", "reason": "Unschedulable", "message": a.message}
        if a.pod_group:
            queue[key] = {"queue": "backoffQ"}
        else:
            plugins = sorted(
                {
                    fr.first.plugin
                    for fr in (a.fit.filters if a.fit else {}).values()
                    if fr.first is not None and fr.first.plugin
                }
            )
            n = sum(1 for b in attempts if b.pod.key == key and b.result is not PodOutcome.GATED)
            queue[key] = {"queue": "unschedulable", "unschedulablePlugins": plugins, "attempts": n}
    cycles = [
        {"cycle": o.cycle, "round": o.round, "podGroup": o.key, "pods": o.members, "victims": o.victims}
        for o in sched.gang.outcomes
    ]
    for a in tried:
        if not a.pod_group:
            cycles.append(
                {
                    "cycle": a.cycle,
                    "round": a.round,
                    "podGroup": "",
                    "pods": [a.pod.key],
                    "victims": sorted(v.key for v in a.victims),
                }
            )
    cycles.sort(key=lambda c: c["cycle"])
    return {
        "attempts": out_attempts,
        "final": final,
        "cycles": cycles,
        "groupNodes": group_nodes,
        "podGroups": pod_groups,
        "podConditions": conditions,
        "queue": queue,
    }


def _failure_code(a: Attempt) -> str:
    if a.result is PodOutcome.SCHEDULED:
        return ""
    if a.result is PodOutcome.ERROR:
        return "Error"
    if a.fit is not None and a.fit.pre_filter is not None and a.fit.at_pre_filter:
        return a.fit.pre_filter.status.code.label
    codes = {fr.first.code.label for fr in (a.fit.filters if a.fit else {}).values() if fr.first is not None}
    return "UnschedulableAndUnresolvable" if codes == {"UnschedulableAndUnresolvable"} else "Unschedulable"


def canon(a: dict[str, Any]) -> dict[str, Any]:
    """canon.py's canonical form of an answer."""
    grp = {t["pod"]: t["podGroup"] for t in a["attempts"] if t.get("podGroup")}
    cyc: dict[Any, list[Any]] = {}
    for t in a["attempts"]:
        k = (t["round"], t["cycle"])
        if t.get("podGroup"):
            cyc.setdefault(k, []).append((t["result"], t["message"], t["failureCode"], t["nominatedNodeName"] != ""))
        else:
            cyc.setdefault(k, []).append(
                (t["pod"], t["result"], t["node"], t["message"], tuple(t["victims"]), t["nominatedNodeName"])
            )
    cyc_s = {str(k): sorted(map(str, v)) for k, v in cyc.items()}
    fin = {k: v for k, v in a["final"].items() if k not in grp}
    pc: dict[str, list[str]] = {}
    for k, v in a["podConditions"].items():
        pc.setdefault(grp.get(k, k), []).append(v["message"])
    q: dict[str, list[str]] = {}
    for k, v in a["queue"].items():
        q.setdefault(grp.get(k, k), []).append(json.dumps(v, sort_keys=True))
    cy = [(c["round"], c["podGroup"], len(c["pods"]), c["victims"]) for c in a["cycles"]]
    return {
        "cycles": cyc_s,
        "final": fin,
        "groupNodes": a["groupNodes"],
        "podGroups": a["podGroups"],
        "pc": {k: sorted(v) for k, v in pc.items()},
        "q": {k: sorted(v) for k, v in q.items()},
        "cy": cy,
    }
