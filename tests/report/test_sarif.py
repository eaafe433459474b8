"""-o sarif: every log kwhatif writes is valid against the SARIF 2.1.0 schema, and its rules and
results say what the report says.

sarif-schema-2.1.0.json beside this file is the SARIF 2.1.0 JSON schema as OASIS published it
(its final working draft, 2.1.0-rtm.5, as npm's @microsoft/jest-sarif ships it), stored so that
the tests run offline.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from kwhatif import __version__
from kwhatif.report.base import OutputFormat
from kwhatif.report.formats.sarif import artifact_uri
from tests.report.test_formats import SCENARIOS, report_for
from tests.report.test_reports import CHECK_MANIFESTS, check_of, render

SCHEMA = json.loads((Path(__file__).resolve().parent / "sarif-schema-2.1.0.json").read_text())


def sarif_of(report) -> dict:
    doc = json.loads(render(report, OutputFormat.SARIF))
    jsonschema.validate(doc, SCHEMA)
    return doc


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_schedule_logs_are_valid(scenario):
    (run,) = sarif_of(report_for(SCENARIOS[scenario]))["runs"]
    assert run["tool"]["driver"]["name"] == "kwhatif"


def test_the_schema_refuses_what_sarif_does_not_allow():
    doc = sarif_of(check_of(CHECK_MANIFESTS))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_check_rules_and_results():
    doc = sarif_of(check_of(CHECK_MANIFESTS))
    assert (doc["version"], doc["$schema"]) == ("2.1.0", "https://json.schemastore.org/sarif-2.1.0.json")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert (driver["version"], driver["informationUri"]) == (__version__, "https://kwhatif.dev")
    ids = [r["id"] for r in driver["rules"]]
    assert ids == [
        "does-not-fit/NodeResourcesFit",
        "no-eligible-nodes",
        "not-checked",
        "note",
        "refused-by-quota",
        "unknown",
    ]
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
    failures = [
        (
            r["ruleId"],
            ids[r["ruleIndex"]],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        )
        for r in run["results"]
        if r["level"] != "note"
    ]
    assert failures == [
        (
            "does-not-fit/NodeResourcesFit",
            "does-not-fit/NodeResourcesFit",
            "error",
            "release.yaml",
            20,
            "Deployment/default/batch",
        ),
        ("refused-by-quota", "refused-by-quota", "error", "release.yaml", 39, "Deployment/team/api"),
        ("no-eligible-nodes", "no-eligible-nodes", "warning", "release.yaml", 58, "DaemonSet/default/agent"),
        ("unknown", "unknown", "warning", "release.yaml", 90, "StatefulSet/default/db"),
        ("not-checked", "not-checked", "warning", "release.yaml", 77, "Prometheus/default/main"),
    ]
    quota = next(r for r in run["results"] if r["ruleId"] == "refused-by-quota")
    assert quota["message"]["text"] == (
        'Deployment team/api: 1 of 2 pods refused by quota: pods "api-f58647495-" is forbidden: exceeded quota: pods,'
        " requested: pods=1, used: pods=1, limited: pods=1"
    )
    assert quota["partialFingerprints"] == {"kwhatifObject/v1": "Deployment/team/api/refused-by-quota"}
    assert run["properties"] == {
        "summary": "2/4 workloads fit, 1 with no eligible nodes, 1 not checked, 1 unknown on 3 nodes"
    }
    # a note that is the warning's own message is not repeated as a note
    agent = [r["message"]["text"] for r in run["results"] if "DaemonSet/default/agent" in json.dumps(r)]
    assert len(agent) == len(set(t.split(": ", 1)[1] for t in agent))


def test_strict_makes_the_warnings_errors():
    (run,) = sarif_of(check_of(CHECK_MANIFESTS, strict=True))["runs"]
    levels = {r["ruleId"]: r["level"] for r in run["results"] if r["ruleId"] != "note"}
    assert levels == {
        "does-not-fit/NodeResourcesFit": "error",
        "refused-by-quota": "error",
        "no-eligible-nodes": "error",
        "not-checked": "error",
        "unknown": "error",
    }


def test_schedule_results_name_the_failing_plugin():
    (run,) = sarif_of(report_for(SCENARIOS["misfit"]))["runs"]
    assert [
        (r["ruleId"], r["level"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])
        for r in run["results"]
    ] == [
        ("does-not-fit/NodeAffinity", "error", "Pod/data/analytics-big"),
        ("does-not-fit/NodeResourcesFit", "error", "Pod/ml/inference"),
    ]
    (gated,) = sarif_of(report_for(SCENARIOS["gated"]))["runs"][0]["results"]
    assert (gated["ruleId"], gated["level"]) == ("scheduling-gated", "warning")
    assert sarif_of(report_for(SCENARIOS["fit"]))["runs"][0]["results"] == []


@pytest.mark.parametrize(
    "file,uri",
    [
        ("deploy/web.yaml", "deploy/web.yaml"),
        ("deploy/my app.yaml", "deploy/my%20app.yaml"),
        ("/srv/repo/deploy/web.yaml", "file:///srv/repo/deploy/web.yaml"),
        ("deploy\\web.yaml", "deploy/web.yaml"),
    ],
)
def test_artifact_uri(file, uri):
    assert artifact_uri(file) == uri
