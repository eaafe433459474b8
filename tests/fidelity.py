"""Load the fidelity-sample cases and express kwhatif's answer in their expected.json schema."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kwhatif.api.parse import pod as parse_pod
from kwhatif.config.defaults import default_configuration
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import read_path
from kwhatif.release.versions import get as get_version
from kwhatif.scheduling.scheduler import Attempt, Scheduler

# The release the sample's own answers (cases/, seq/, volumes/, capacity/, config/) were recorded from;
# releases/<version>/ holds the answers of later releases to the same inputs.
BASE_VERSION = "1.30.6"

DEFAULT_SAMPLE = Path(__file__).resolve().parent.parent.parent / "shared" / "fidelity-sample"
SAMPLE = DEFAULT_SAMPLE
if not SAMPLE.is_dir():
    SAMPLE = Path(os.environ.get("KWHATIF_FIDELITY_SAMPLE", str(DEFAULT_SAMPLE)))


def missing_sample_error(sample: Path, environ: Mapping[str, str]) -> str | None:
    """Outside CI the sample's tests skip when it is not there; in CI (CI set, as CI services set
    it) a missing sample is an error: its cases are the fidelity check and must not pass unseen."""
    ci = environ.get("CI", "").strip().lower()
    if not ci or ci in ("0", "false", "no") or sample.is_dir():
        return None
    return (
        f"the fidelity sample is missing ({sample}): CI runs its cases; put it at ../shared/fidelity-sample "
        "or name it with KWHATIF_FIDELITY_SAMPLE"
    )


def case_dirs(kind: str) -> list[Path]:
    d = SAMPLE / kind
    if not d.is_dir():
        return []
    return sorted(p for p in d.iterdir() if p.is_dir())


def load_config(case: Path, version: str = BASE_VERSION, feature_gates: str = "") -> Any:
    release = get_version(version, feature_gates)
    cfg = case / "sched-config.yaml"
    if cfg.exists():
        from kwhatif.config.load import load_configuration

        return load_configuration(str(cfg), release)
    c = default_configuration(release)
    import dataclasses

    # The sample ran with percentageOfNodesToScore = 100.
    return dataclasses.replace(c, percentage_of_nodes_to_score=100)


def load_case(
    case: Path, pods_file: str = "pod.yaml", version: str = BASE_VERSION, feature_gates: str = ""
) -> tuple[Scheduler, list[Any]]:
    """The case's cluster, pods and scheduler, as kube-scheduler ``version`` (with --feature-gates
    ``feature_gates``) and its API server see them."""
    cluster = build_cluster(read_path(str(case / "cluster.yaml")), version=get_version(version, feature_gates))
    docs = list(read_path(str(case / pods_file)))
    admission = cluster.admission
    pods = [
        admission.admit(parse_pod(d.body, rules=admission.rules), strict=True, refuse_unlimited=False)
        for d in docs
        if d.kind == "Pod"
    ]
    sched = Scheduler(cluster, load_config(case, version, feature_gates))
    return sched, pods


def explain(att: Attempt, compact: bool = False) -> dict[str, Any]:
    """An Attempt in the fidelity schema (only the fields kwhatif is compared on)."""
    fit, prio = att.fit, att.prioritized
    scores = prio.scores if prio is not None else {}
    nodes: dict[str, Any] = {}
    for name, fr in (fit.filters if fit is not None else {}).items():
        first = fr.first
        entry: dict[str, Any] = {
            "filter": {
                "code": first.code.label if first else "Success",
                "plugin": first.plugin if first else "",
                "reasons": list(first.reasons) if first else [],
            }
        }
        if name in scores:
            ns = scores[name]
            if not compact:
                entry["scores"] = {s.plugin: s.weighted for s in ns.scores}
                entry["normalized"] = {s.plugin: s.normalized for s in ns.scores}
                entry["raw"] = {s.plugin: s.raw for s in ns.scores}
            entry["total"] = ns.total
        nodes[name] = entry
    return {
        "pod": att.pod.key,
        "priority": att.pod.priority,
        "nodes": nodes,
        "feasible": sorted(att.feasible),
        "best": prio.best if prio is not None else [],
        "bestScore": prio.best_score if prio is not None else None,
        "result": att.result,
        "message": att.message if att.result != "Scheduled" else "",
        "nominatedNodeName": att.nominated_node,
        "victims": sorted(v.key for v in att.victims),
        "evaluatedNodes": att.evaluated_nodes,
        "feasibleNodes": att.feasible_nodes,
        "excluded": sorted(fit.excluded) if fit is not None else [],
        "skippedFilterPlugins": sorted(fit.pre_filter.skipped) if fit is not None else [],
        "skippedScorePlugins": sorted(att.skipped_score_plugins) if scores else None,
    }


def expected(case: Path) -> dict[str, Any]:
    with open(case / "expected.json") as fh:
        data: dict[str, Any] = json.load(fh)
    return data
