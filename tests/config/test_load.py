"""Reading configuration files: unreadable paths, and the fidelity sample's configurations."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from kwhatif.config.load import load_configuration
from kwhatif.errors import ConfigError

from .util import CPU_MEMORY, DEFAULT_SCORE, FIT_DEFAULT_STRATEGY, HEADER, framework
from builders import PINNED
from fidelity import SAMPLE as FIDELITY_SAMPLE

SAMPLE = FIDELITY_SAMPLE / "config"


def test_load_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_configuration(str(tmp_path / "missing.yaml"), PINNED)
    assert str(info.value) == f"{tmp_path / 'missing.yaml'}: no such file or directory"
    with pytest.raises(ConfigError) as info:
        load_configuration(str(tmp_path), PINNED)
    assert str(info.value) == f"{tmp_path}: is a directory"
    bad = tmp_path / "bad.yaml"
    prefix = HEADER + "profiles:\n- schedulerName: "
    bad.write_bytes(prefix.encode() + b"\xff\n")
    with pytest.raises(ConfigError) as info:
        load_configuration(str(bad), PINNED)
    assert str(info.value) == f"{bad}: not UTF-8 text (byte {len(prefix)})"
    good = tmp_path / "good.yaml"
    good.write_text(HEADER)
    assert load_configuration(str(good), PINNED).source == str(good)


# --- the sample configurations -------------------------------------------------------------------


def _sample_dirs() -> list[Path]:
    return sorted(SAMPLE.glob("k*")) if SAMPLE.is_dir() else []


def _names(listed: str) -> list[str]:
    return listed.split(",")


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="fidelity sample not present")
@pytest.mark.parametrize("case", _sample_dirs(), ids=lambda p: p.name)
def test_sample_configuration(case: Path) -> None:
    meta = json.loads((case / "meta.json").read_text())
    raw = yaml.safe_load((case / "sched-config.yaml").read_text())
    cfg = load_configuration(str(case / "sched-config.yaml"), PINNED)
    assert [p.scheduler_name for p in cfg.profiles] == meta["profiles"]
    pod_profile = "second-scheduler" if "spec.schedulerName: second-scheduler" in meta["edits"] else "default-scheduler"
    prof = cfg.profile(pod_profile)
    assert prof is not None
    raw_prof = next(p for p in raw["profiles"] if p.get("schedulerName", "default-scheduler") == pod_profile)
    raw_plugins = raw_prof.get("plugins") or {}
    fw = framework(prof)
    args = prof.plugin_config
    for note in meta["notes"]:
        if m := re.fullmatch(r"(\w+) weight (\d+) via multiPoint", note):
            assert fw.score_weights[m[1]] == int(m[2])
        elif note == "weights via multiPoint (default entries replaced in place)":
            assert fw.names("score") == DEFAULT_SCORE
            for e in raw_plugins["multiPoint"]["enabled"]:
                assert fw.score_weights[e["name"]] == e["weight"]
        elif note == "weights via score.enabled (override the multiPoint entry)":
            given = raw_plugins["score"]["enabled"]
            assert fw.names("score")[: len(given)] == [e["name"] for e in given]
            for e in given:
                assert fw.score_weights[e["name"]] == e["weight"]
        elif m := re.fullmatch(r"score\.disabled (\w+)", note):
            assert m[1] not in fw.names("score")
        elif m := re.fullmatch(r"score '\*' disabled, then ([\w,]+) enabled", note):
            assert fw.names("score") == _names(m[1])
            for e in raw_plugins["score"]["enabled"]:
                assert fw.score_weights[e["name"]] == (e.get("weight") or 1)
        elif m := re.fullmatch(r"filter\.disabled (\w+)", note):
            assert m[1] not in fw.names("filter") and m[1] in fw.names("preFilter") and m[1] in fw.names("score")
        elif m := re.fullmatch(r"filter '\*' disabled, then ([\w,]+) enabled", note):
            assert fw.names("filter") == _names(m[1])
        elif m := re.fullmatch(r"hardPodAffinityWeight (\d+)", note):
            assert args["InterPodAffinity"].hard_pod_affinity_weight == int(m[1])
        elif note == "resources omitted: defaults to cpu:1, memory:1":
            assert args["NodeResourcesFit"].scoring_strategy.resources == CPU_MEMORY
        elif note == "partial NodeResourcesFit args: scoringStrategy still defaults to LeastAllocated cpu/memory":
            assert args["NodeResourcesFit"].scoring_strategy == FIT_DEFAULT_STRATEGY
        elif note == "ignoredResourceGroups matches the prefix before '/'":
            assert args["NodeResourcesFit"].ignored_resource_groups
        elif m := re.fullmatch(r"List defaultConstraints (.+)", note):
            spread = args["PodTopologySpread"]
            assert spread.defaulting_type == "List"
            assert len(spread.default_constraints) == len(m[1].split(","))
        elif m := re.fullmatch(r"addedAffinity required .+", note):
            assert args["NodeAffinity"].added_affinity.required is not None
        elif m := re.fullmatch(r"addedAffinity preferred (\d+) term\(s\)", note):
            added = args["NodeAffinity"].added_affinity
            assert len(added.preferred) == int(m[1])
        elif note == "two profiles; pod uses second-scheduler":
            assert len(cfg.profiles) == 2 and pod_profile == "second-scheduler"
        else:
            pytest.fail(f"note not checked: {note!r}")
