"""-o sarif from the installed command: a valid SARIF 2.1.0 log whose results point at the lines
-o json's sources name, the gate's exit status, and no file location for standard input."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from .conftest import ROOT

SCHEMA = json.loads((ROOT / "tests" / "report" / "sarif-schema-2.1.0.json").read_text())
ARGS = ("check", "samples/workloads/release.yaml", "samples/dra/training.yaml", "--cluster", "samples/cluster.yaml")


def test_check_sarif_points_at_the_manifest_lines(run):
    r = run(*ARGS, "-o", "sarif")
    assert r.code == 1, r.err
    doc = json.loads(r.out)
    jsonschema.validate(doc, SCHEMA)
    report = json.loads(run(*ARGS, "-o", "json").out)
    failing = {
        f"{w['kind']}/{w['namespace']}/{w['name']}": w["source"] for w in report["workloads"] if w["verdict"] != "fits"
    }
    (sarif_run,) = doc["runs"]
    located = {}
    for res in sarif_run["results"]:
        if res["level"] == "note":
            continue
        loc = res["locations"][0]
        phys = loc["physicalLocation"]
        located[loc["logicalLocations"][0]["fullyQualifiedName"]] = (
            f"{phys['artifactLocation']['uri']}:{phys['region']['startLine']}"
        )
    assert located == {k: v.split(" (")[0] for k, v in failing.items()}


def test_schedule_sarif(run):
    r = run("schedule", "samples/pods/gpu-inference.yaml", "--cluster", "samples/cluster.yaml", "-o", "sarif")
    assert r.code == 1
    doc = json.loads(r.out)
    jsonschema.validate(doc, SCHEMA)
    (res,) = doc["runs"][0]["results"]
    assert res["ruleId"] == "does-not-fit/NodeResourcesFit"
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "samples/pods/gpu-inference.yaml"
    assert res["message"]["text"].startswith("Pod ml/inference: 0/11 nodes are available: ")


def test_standard_input_has_no_file_location(run):
    text = (ROOT / "samples/workloads/release.yaml").read_text()
    r = run("check", "-", "--cluster", "samples/cluster.yaml", "-o", "sarif", stdin=text)
    doc = json.loads(r.out)
    jsonschema.validate(doc, SCHEMA)
    results = doc["runs"][0]["results"]
    assert results
    assert all("physicalLocation" not in res["locations"][0] for res in results)


def test_sarif_is_not_a_format_of_capacity(run):
    r = run("capacity", "samples/pods/web-canary.yaml", "--cluster", "samples/cluster.yaml", "-o", "sarif")
    assert r.code == 2
    assert "Invalid value for '-o' / '--output': 'sarif' is not one of" in r.err


def test_absolute_paths_are_file_uris(run, tmp_path: Path):
    manifest = tmp_path / "my deploy.yaml"
    manifest.write_text((ROOT / "samples/dra/training.yaml").read_text())
    r = run("check", str(manifest), "--cluster", "samples/dra/cluster.yaml", "-o", "sarif")
    assert r.code == 1
    uris = {
        res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for res in json.loads(r.out)["runs"][0]["results"]
    }
    assert uris == {manifest.as_uri()}
