"""Strings from a hostile cluster file and manifest, through every command and output format of the
installed command: no raw control character anywhere, no line that a GitHub Actions log would run
as a workflow command (except -o github's own), one line per message on standard error, and the
exact values in -o json and -o yaml."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

EVIL_NODE = "evil\x1b]0;title\x07node"  # an OSC sequence that retitles a terminal
MARKUP_NODE = "small|*x*`y`<b>[l](http://e.vil)"
C1_NODE = "big\x9b31m"  # CSI as one C1 character
TAINT_VALUE = "x\n::error file=a::forged ##[error]legacy"
LABEL_KEY = "zone\x1b[31m"
LABEL_VALUE = "a\r\nb\x00"
ODD_KIND = "Weird\n::error::kind"

CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _node(name: str, cpu: str, labels: dict[str, str] | None = None, taints: list[dict] | None = None) -> dict:
    res = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"taints": taints or []},
        "status": {
            "allocatable": res,
            "capacity": res,
            "conditions": [{"type": "Ready", "status": "True", "message": "ok\n::warning::forged"}],
        },
    }


def _cluster(tmp_path: Path, big: bool) -> str:
    items = [
        _node(
            EVIL_NODE,
            "4",
            labels={LABEL_KEY: LABEL_VALUE},
            taints=[{"key": "dedicated", "value": TAINT_VALUE, "effect": "NoSchedule"}],
        ),
        _node(MARKUP_NODE, "100m"),
        {"apiVersion": "example.com/v1", "kind": ODD_KIND, "metadata": {"name": "w"}},
    ]
    if big:
        items.append(_node(C1_NODE, "8"))
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": "running",
                    "namespace": "default",
                    "ownerReferences": [
                        {
                            "apiVersion": "apps/v1",
                            "kind": "ReplicaSet",
                            "name": "rs\n::error::owner",
                            "uid": "u1",
                            "controller": True,
                        }
                    ],
                },
                "spec": {
                    "nodeName": EVIL_NODE,
                    "tolerations": [{"operator": "Exists"}],
                    "containers": [{"name": "m", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                },
                "status": {"phase": "Running"},
            }
        )
    path = tmp_path / ("cluster-big.json" if big else "cluster.json")
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _pod(tmp_path: Path) -> str:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "annotations": {"note": "::error::annotation"}},
        "spec": {"containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}]},
    }
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(pod))
    return str(path)


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: nginx, resources: {requests: {cpu: 500m}}}]
"""
MANIFEST_NAME = "dep\n::error file=b::forged\x1b[2J.yaml"


def _rows(table: str) -> list[list[str]]:
    """The cells of each line of a table (cells are at least two spaces apart)."""
    return [re.split(r"\s{2,}", ln.strip()) for ln in table.splitlines()]


def _assert_safe(out: str, fmt: str) -> None:
    assert not CONTROL.search(out), repr(CONTROL.findall(out))
    if fmt != "github":
        forged = [ln for ln in out.splitlines() if ln.lstrip().startswith("::")]
        assert not forged, forged
    if fmt not in ("github", "yaml"):
        assert "##[" not in out  # the runner's legacy form, read anywhere in a line


def _assert_stderr(err: str) -> None:
    assert not CONTROL.search(err), repr(err)
    assert "Traceback" not in err
    for line in err.splitlines():
        assert line.startswith("kwhatif: "), line
    assert "kwhatif: note: skipped objects kwhatif does not read: 1 Weird\\n::error::kind" in err.splitlines()


SCHEDULE_FORMATS = ["table", "wide", "markdown", "junit", "html", "json", "yaml"]


@pytest.mark.parametrize("fmt", SCHEDULE_FORMATS)
def test_schedule(run, tmp_path, fmt):
    r = run(
        "schedule", _pod(tmp_path), "--cluster", _cluster(tmp_path, big=False), "-o", fmt, "--scheduler-version", "1.33"
    )
    assert r.code == 1, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    reason = f"node(s) had untolerated taint {{dedicated: {TAINT_VALUE}}}"
    if fmt in ("table", "wide"):
        rows = _rows(r.out)
        assert [
            "evil^[]0;title\\x07node",
            "no",
            "*TaintToleration: node(s) had untolerated taint {dedicated: x\\n::error file=a::forged #\\#[error]legacy}",
        ] in rows
        assert ["small|*x*`y`<b>[l](http://e.vil)", "no", "*NodeResourcesFit: Insufficient cpu"] in rows
    elif fmt == "markdown":
        assert (
            "TaintToleration: node(s) had untolerated taint {dedicated: x\\\\n::error file=a::forged #\\#[error]legacy}"
            in r.out
        )
        assert "(small\\|\\*x\\*\\`y\\`\\<b\\>[l\\](http\\://e.vil))" in r.out
        assert not re.search(r"(?<!\\)(<b>|\]\()", r.out), r.out  # no HTML, no link
    elif fmt == "junit":
        root = ET.fromstring(r.out)
        failure = root.find("testsuite/testcase/failure")
        assert failure is not None
        assert "evil^[]0;title\\x07node: TaintToleration: node(s) had untolerated taint {dedicated: x\\n" in (
            failure.text or ""
        )
        assert "small|*x*`y`<b>[l](http://e.vil): NodeResourcesFit: Insufficient cpu" in (failure.text or "")
    elif fmt == "json":
        doc = json.loads(r.out)
        res = doc["results"][0]
        nodes = {n["name"]: n for n in res["nodes"]}
        assert set(nodes) == {EVIL_NODE, MARKUP_NODE}
        taint = next(f for f in nodes[EVIL_NODE]["filters"] if f["plugin"] == "TaintToleration")
        assert taint["reasons"] == [reason]
        assert reason in res["message"]
        assert doc["nodeLabels"][EVIL_NODE][LABEL_KEY] == LABEL_VALUE
    elif fmt == "yaml":
        doc = yaml.safe_load(r.out)
        res = doc["results"][0]
        taint = next(
            f for n in res["nodes"] if n["name"] == EVIL_NODE for f in n["filters"] if f["plugin"] == "TaintToleration"
        )
        assert taint["reasons"] == [reason]
        assert doc["nodeLabels"][EVIL_NODE][LABEL_KEY] == LABEL_VALUE
    elif fmt == "html":
        m = re.search(r'<script type="application/json" id="kwhatif-report">(.*?)</script>', r.out, re.S)
        assert m is not None
        doc = json.loads(m.group(1))
        assert {n["name"] for n in doc["results"][0]["nodes"]} == {EVIL_NODE, MARKUP_NODE}


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "github", "html", "json", "yaml"])
def test_check(run, tmp_path, fmt):
    manifest = tmp_path / MANIFEST_NAME
    manifest.write_text(DEPLOYMENT)
    r = run(
        "check", str(manifest), "--cluster", _cluster(tmp_path, big=False), "-o", fmt, "--scheduler-version", "1.33"
    )
    assert r.code == 1, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    message = (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: "
        f"{TAINT_VALUE}}}. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling."
    )
    if fmt == "github":
        file = str(tmp_path).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
        file += "/dep%0A%3A%3Aerror file=b%3A%3Aforged^[[2J.yaml"
        assert r.out.splitlines() == [
            f"::error file={file},line=1,title=Deployment default/web%3A 2 of 2 pods do not fit::"
            + message.replace("\n", "%0A"),
            "::notice title=kwhatif check::0/1 workloads fit on 2 nodes",
        ]
    elif fmt == "table":
        assert "Deployment default/web (" in r.out
        assert "/dep\\n::error file=b::forged^[[2J.yaml): 2 of 2 pods do not fit" in r.out
        assert "  " + message.replace("\n", "\\n").replace("##[", "#\\#[") in r.out.splitlines()
    elif fmt == "markdown":
        assert message.replace("\n", "\\\\n").replace("##[", "#\\#[") in r.out
    elif fmt == "junit":
        case = ET.fromstring(r.out).find("testsuite/testcase")
        assert case is not None
        assert case.get("file") == str(manifest).replace("\n", "\\n").replace("\x1b", "^[")
    elif fmt == "json":
        doc = json.loads(r.out)
        assert doc["workloads"][0]["message"] == message
        assert doc["workloads"][0]["source"].startswith(str(manifest))
    elif fmt == "yaml":
        assert yaml.safe_load(r.out)["workloads"][0]["message"] == message


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "html", "json", "yaml"])
def test_drain(run, tmp_path, fmt):
    r = run("drain", EVIL_NODE, "--cluster", _cluster(tmp_path, big=True), "-o", fmt, "--scheduler-version", "1.33")
    assert r.code == 0, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    if fmt == "table":
        assert r.out.startswith("drain evil^[]0;title\\x07node: 1 pods evicted, 1 replacements placed")
        rows = _rows(r.out)
        assert [
            "default/running",
            "evil^[]0;title\\x07node",
            "ReplicaSet/rs\\n::error::owner",
            "-> big\\x9b31m",
        ] in rows
        assert ["big\\x9b31m", "+1 pod"] in [row[:2] for row in rows]
    elif fmt == "markdown":
        assert "### kwhatif drain `evil^[]0;title\\x07node`" in r.out
        assert "| `default/running` | evict | `big\\x9b31m` |  |" in r.out
    elif fmt == "json":
        doc = json.loads(r.out)
        assert doc["nodes"] == [EVIL_NODE]
        assert doc["pods"][0]["node"] == C1_NODE
        assert doc["pods"][0]["controller"]["name"] == "rs\n::error::owner"
    elif fmt == "yaml":
        doc = yaml.safe_load(r.out)
        assert doc["nodes"] == [EVIL_NODE]
        assert doc["pods"][0]["node"] == C1_NODE


@pytest.mark.parametrize("fmt", ["table", "markdown", "junit", "html", "json", "yaml"])
def test_capacity(run, tmp_path, fmt):
    r = run(
        "capacity", _pod(tmp_path), "--cluster", _cluster(tmp_path, big=True), "-o", fmt, "--scheduler-version", "1.33"
    )
    assert r.code == 0, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    if fmt == "table":
        rows = _rows(r.out)
        assert ["big\\x9b31m", "16"] in [row[:2] for row in rows]
        assert ["evil^[]0;title\\x07node", "0"] in [row[:2] for row in rows]
        assert ["1", "node(s) had untolerated taint {dedicated: x\\n::error file=a::forged #\\#[error]legacy}"] in rows
    elif fmt == "markdown":
        assert "| `big\\x9b31m` | 16 |" in r.out
    elif fmt == "json":
        doc = json.loads(r.out)
        assert doc["perNode"][C1_NODE] == 16
        assert f"node(s) had untolerated taint {{dedicated: {TAINT_VALUE}}}" in doc["reasons"]


def test_errors_quote_names_on_one_line(run, tmp_path):
    """A name the API server would refuse is refused in one line of standard error, its control
    characters visible."""
    pod = tmp_path / "pod.json"
    pod.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a\n::error::x\x1b[2J"}}))
    r = run("schedule", str(pod), "--cluster", _cluster(tmp_path, big=False))
    assert r.code == 2
    assert r.out == ""
    note, error = r.err.splitlines()  # the note on the odd kind of the cluster file, and the error
    assert note.startswith("kwhatif: note: skipped objects kwhatif does not read: ")
    assert error.startswith(f"kwhatif: error: {pod}: Pod default/a\\n::error::x^[[2J: metadata.name: Invalid value: ")
    assert not CONTROL.search(r.err)
