"""Strings from a hostile cluster file and manifest, through every command and output format of the
installed command: no raw control character anywhere, no line that a GitHub Actions log would run
as a workflow command (except -o github's own), one line per message on standard error, and the
exact values in -o json and -o yaml. A node's name, which every API server checks, is refused in one
line when it holds what none accepts."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

NODE_A = "node-a"  # tainted
NODE_B = "node-b"  # too small
NODE_C = "node-c"  # the roomy one (the big cluster only)
TAINT_VALUE = "x\n::error file=a::forged ##[error]legacy"
LABEL_KEY = "zone\x1b[31m"
LABEL_VALUE = "a\r\nb\x00"
OWNER = "rs\n::error::owner"
CONDITION = "ok\n::warning::forged\x1b]0;title\x07"
ODD_KIND = "Weird\n::error::kind"

# node names ValidateNodeName refuses
EVIL_NODE = "evil\x1b]0;title\x07node"  # an OSC sequence that retitles a terminal
MARKUP_NODE = "small|*x*`y`<b>[l](http://e.vil)"

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
            "conditions": [{"type": "Ready", "status": "True", "message": CONDITION}],
        },
    }


def _write(tmp_path: Path, name: str, items: list[dict]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _cluster(tmp_path: Path, big: bool) -> str:
    items = [
        _node(
            NODE_A,
            "4",
            labels={LABEL_KEY: LABEL_VALUE},
            taints=[{"key": "dedicated", "value": TAINT_VALUE, "effect": "NoSchedule"}],
        ),
        _node(NODE_B, "100m"),
        {"apiVersion": "example.com/v1", "kind": ODD_KIND, "metadata": {"name": "w"}},
    ]
    if big:
        items.append(_node(NODE_C, "8"))
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": "running",
                    "namespace": "default",
                    "ownerReferences": [
                        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": OWNER, "uid": "u1", "controller": True}
                    ],
                },
                "spec": {
                    "nodeName": NODE_A,
                    "tolerations": [{"operator": "Exists"}],
                    "containers": [{"name": "m", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                },
                "status": {"phase": "Running"},
            }
        )
    return _write(tmp_path, "cluster-big.json" if big else "cluster.json", items)


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
REASON = f"node(s) had untolerated taint {{dedicated: {TAINT_VALUE}}}"  # 1.33 names the taint
SHOWN = "node(s) had untolerated taint {dedicated: x\\n::error file=a::forged #\\#[error]legacy}"  # in a table


@pytest.mark.parametrize("fmt", SCHEDULE_FORMATS)
def test_schedule(run, tmp_path, fmt):
    r = run(
        "schedule", _pod(tmp_path), "--cluster", _cluster(tmp_path, big=False), "-o", fmt, "--scheduler-version", "1.33"
    )
    assert r.code == 1, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    assert "::warning::forged" not in r.out  # condition messages are not reported
    if fmt in ("table", "wide"):
        rows = _rows(r.out)
        assert [NODE_A, "no", f"*TaintToleration: {SHOWN}"] in rows
        assert [NODE_B, "no", "*NodeResourcesFit: Insufficient cpu"] in rows
    elif fmt == "markdown":
        assert "TaintToleration: " + SHOWN.replace("\\n", "\\\\n") in r.out
    elif fmt == "junit":
        root = ET.fromstring(r.out)
        failure = root.find("testsuite/testcase/failure")
        assert failure is not None
        assert f"{NODE_A}: TaintToleration: node(s) had untolerated taint {{dedicated: x\\n" in (failure.text or "")
        assert f"{NODE_B}: NodeResourcesFit: Insufficient cpu" in (failure.text or "")
    elif fmt == "json":
        doc = json.loads(r.out)
        res = doc["results"][0]
        nodes = {n["name"]: n for n in res["nodes"]}
        assert set(nodes) == {NODE_A, NODE_B}
        taint = next(f for f in nodes[NODE_A]["filters"] if f["plugin"] == "TaintToleration")
        assert taint["reasons"] == [REASON]
        assert REASON in res["message"]
        assert doc["nodeLabels"][NODE_A][LABEL_KEY] == LABEL_VALUE
    elif fmt == "yaml":
        doc = yaml.safe_load(r.out)
        res = doc["results"][0]
        taint = next(
            f for n in res["nodes"] if n["name"] == NODE_A for f in n["filters"] if f["plugin"] == "TaintToleration"
        )
        assert taint["reasons"] == [REASON]
        assert doc["nodeLabels"][NODE_A][LABEL_KEY] == LABEL_VALUE
    elif fmt == "html":
        m = re.search(r'<script type="application/json" id="kwhatif-report">(.*?)</script>', r.out, re.S)
        assert m is not None
        doc = json.loads(m.group(1))
        assert {n["name"] for n in doc["results"][0]["nodes"]} == {NODE_A, NODE_B}


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
        f"0/2 nodes are available: 1 Insufficient cpu, 1 {REASON}. preemption: 0/2 nodes are available: "
        "1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
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
    r = run("drain", NODE_A, "--cluster", _cluster(tmp_path, big=True), "-o", fmt, "--scheduler-version", "1.33")
    assert r.code == 0, r.err
    _assert_safe(r.out, fmt)
    _assert_stderr(r.err)
    if fmt == "table":
        assert r.out.startswith(f"drain {NODE_A}: 1 pods evicted, 1 replacements placed")
        rows = _rows(r.out)
        assert ["default/running", NODE_A, "ReplicaSet/rs\\n::error::owner", f"-> {NODE_C}"] in rows
        assert [NODE_C, "+1 pod"] in [row[:2] for row in rows]
    elif fmt == "markdown":
        assert f"### kwhatif drain `{NODE_A}`" in r.out
        assert f"| `default/running` | evict | `{NODE_C}` |  |" in r.out
    elif fmt == "json":
        doc = json.loads(r.out)
        assert doc["nodes"] == [NODE_A]
        assert doc["pods"][0]["node"] == NODE_C
        assert doc["pods"][0]["controller"]["name"] == OWNER
    elif fmt == "yaml":
        doc = yaml.safe_load(r.out)
        assert doc["nodes"] == [NODE_A]
        assert doc["pods"][0]["controller"]["name"] == OWNER


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
        assert [NODE_C, "16"] in [row[:2] for row in rows]
        assert [NODE_A, "0"] in [row[:2] for row in rows]
        assert ["1", SHOWN] in rows
    elif fmt == "markdown":
        assert f"| `{NODE_C}` | 16 |" in r.out
    elif fmt == "json":
        doc = json.loads(r.out)
        assert doc["perNode"][NODE_C] == 16
        assert REASON in doc["reasons"]


# A node no API server could have served: refused by every command, in one line naming the file,
# the item, the node and the field, the control characters visible.
REFUSED = [
    pytest.param(
        _node(EVIL_NODE, "4"),
        "Node evil^[]0;title\\x07node: metadata.name: Invalid value: "
        '"evil\\x1b]0;title\\anode": a lowercase RFC 1123 subdomain must consist of',
        id="control-in-name",
    ),
    pytest.param(
        _node(MARKUP_NODE, "4"),
        'Node small|*x*`y`<b>[l](http://e.vil): metadata.name: Invalid value: "small|*x*`y`<b>[l](http://e.vil)": ',
        id="markup-in-name",
    ),
]


@pytest.mark.parametrize("command", ["schedule", "check", "capacity", "drain"])
@pytest.mark.parametrize("bad,error", REFUSED)
def test_invalid_nodes_are_refused(run, tmp_path, command, bad, error):
    cluster = _write(tmp_path, "cluster.json", [_node(NODE_B, "4"), bad])
    manifest = tmp_path / "dep.yaml"
    manifest.write_text(DEPLOYMENT)
    target = {"schedule": _pod(tmp_path), "capacity": _pod(tmp_path), "check": str(manifest), "drain": NODE_B}
    r = run(command, target[command], "--cluster", cluster)
    assert r.code == 2, r.err
    assert r.out == ""
    assert r.err.splitlines() == [r.err.splitlines()[0]]  # one line
    assert r.err.startswith(f"kwhatif: error: {cluster} (items[1]): {error}"), r.err
    assert not CONTROL.search(r.err)
    assert "Traceback" not in r.err


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
    assert error.startswith(
        f"kwhatif: error: {pod}: Pod default/a\\n::error::x^[[2J: metadata.name: "
        'Invalid value: "a\\n::error::x\\x1b[2J": '
    )
    assert not CONTROL.search(r.err)
