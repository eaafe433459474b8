"""The pods of a JSON List are decoded into kwhatif.load.typed's schema and built there where
they can be. The cluster must be exactly the one of decoding every item into a dict and reading it
with parse.pod: each input here is loaded both ways (the fast path off: PodRuns answers None),
and the pods compared field by field, the errors word for word."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kwhatif.api.parse import DEFAULT_POD_RULES
from kwhatif.errors import InputError
from kwhatif.load import files, typed
from kwhatif.load.cluster import load_cluster
from kwhatif.load.files import read_path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generate import node as generated_node  # noqa: E402
from generate import pod as generated_pod  # noqa: E402

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
N = 24  # replicas of each shape: several runs, spread over two nodes


def _node(name: str) -> dict[str, Any]:
    import random

    n = generated_node(0, random.Random(1))
    n["metadata"]["name"] = name
    n["metadata"]["labels"]["kubernetes.io/hostname"] = name
    return n


def _replicas(shape: Any, n: int = N) -> list[Any]:
    """``n`` pods of a shape: a function of the replica's index, or a pod every replica copies,
    named after its index and bound to one of two nodes."""
    import random

    out = []
    for i in range(n):
        if callable(shape):
            p = shape(i)
        else:
            p = copy.deepcopy(shape)
            if isinstance(p.get("metadata"), dict) and isinstance(p["metadata"].get("name"), str):
                p["metadata"]["name"] = f"{p['metadata']['name']}-{i}"
            if isinstance(p.get("spec"), dict) and "nodeName" in p["spec"] and p["spec"]["nodeName"]:
                p["spec"]["nodeName"] = f"node-{i % 2}"
        out.append(p)
    del random
    return out


def _base(i: int = 7) -> dict[str, Any]:
    import random

    p = generated_pod(i, "node-0", random.Random(i))
    p["metadata"]["name"] = "web"
    return p


def _with(path: str, value: Any) -> dict[str, Any]:
    """The base pod with the field at a dotted path set (None: removed)."""
    p = _base()
    *parents, last = path.split(".")
    d: Any = p
    for k in parents:
        d = d[int(k)] if isinstance(d, list) else d.setdefault(k, {})
    if value is None and isinstance(d, dict):
        d.pop(last, None)
    elif isinstance(d, list):
        d[int(last)] = value
    else:
        d[last] = value
    return p


# Raw replacements in the JSON text of the base pod (a key given twice, escapes, numbers...):
# (what to find, what to put instead).
RAW_EDITS: dict[str, tuple[str, str]] = {
    "spec key twice": ('"restartPolicy": "Always"', '"restartPolicy": "Always", "restartPolicy": "Never"'),
    "nodeName twice": ('"nodeName": "node-0"', '"nodeName": "node-0", "nodeName": "node-1"'),
    "status key twice": ('"phase": "Running"', '"phase": "Running", "phase": "Pending"'),
    "condition key twice": ('"type": "Ready"', '"type": "Ready", "type": "DisruptionTarget"'),
    "label twice": ('"app": "', '"team": "x", "app": "'),
    "metadata key twice": ('"uid": ', '"name": "other", "uid": '),
    "fieldsV1 key twice": ('"f:generateName": {}', '"f:generateName": {}, "f:generateName": {}'),
    "owner key twice": ('"controller": true', '"controller": true, "controller": false'),
    "top-level key twice": ('"kind": "Pod"', '"kind": "Pod", "kind": "Pod"'),
    "escaped colon": ('restartedAt"', 'restartedAt\\u003a"'),
    "escaped colon and key twice": ('restartedAt": "', 'restartedAt\\u003A": "x", "app": "y", "app": "'),
    "escaped nodeName key": ('"nodeName"', '"node\\u004eame"'),
    "escaped node": ('"nodeName": "node-0"', '"nodeName": "node\\u002d0"'),
    "nested nodeName first": ('"spec": {', '"spec": {"x": {"nodeName": "node-0"}, '),
    "nodeName spaced": ('"nodeName": "node-0"', '"nodeName"  :\n  "node-0"'),
    "big integer in status": ('"restartCount": 0', '"restartCount": 123456789012345678901234567890'),
    "big integer in spec": ('"priority": 0', '"priority": 123456789012345678901234567890'),
    "float in status": ('"restartCount": 0', '"restartCount": 1.5e3'),
    "infinity in status": ('"restartCount": 0', '"restartCount": 1e400'),
    "infinity in spec": ('"terminationGracePeriodSeconds": 30', '"terminationGracePeriodSeconds": 1e400'),
    "nan in fieldsV1": ('"f:generateName": {}', '"f:generateName": NaN'),
    "lone surrogate in a label": ('"app": "', '"s": "\\ud800", "app": "'),
    "lone surrogate in the spec": ('"dnsPolicy": "ClusterFirst"', '"dnsPolicy": "\\udc00"'),
    "control character in the node": ('"nodeName": "node-0"', '"nodeName": "node-\\u00010"'),
    "unknown status field": ('"phase": "Running"', '"phase": "Running", "somethingNew": {"a": 1}'),
    "unknown metadata field": ('"uid": ', '"zone": "a", "uid": '),
    "unknown top-level field": ('"kind": "Pod"', '"kind": "Pod", "extra": [1, 2]'),
    "raw tab in a string": ('"dnsPolicy": "ClusterFirst"', '"dnsPolicy": "Cluster\tFirst"'),
}

SHAPES: dict[str, Any] = {
    "generated": lambda i: __import__("generate").pod(i, f"node-{i % 2}", __import__("random").Random(i)),
    "plain": _base(),
    "pending": _with("spec.nodeName", None),
    "empty node": _with("spec.nodeName", ""),
    "null node": _with("spec.nodeName", None) | {"spec": {**_base()["spec"], "nodeName": None}},
    "terminal": _with("status.phase", "Succeeded"),
    "deleting": _with("metadata.deletionTimestamp", "2026-11-20T09:00:00Z"),
    "deletion null": _with("metadata.deletionTimestamp", None)
    | {"metadata": {**_base()["metadata"], "deletionTimestamp": None}},
    "no namespace": _with("metadata.namespace", None),
    "empty namespace": _with("metadata.namespace", ""),
    "bad namespace": _with("metadata.namespace", "Team_A"),
    "bad name": _with("metadata.name", "Web_1"),
    "generateName only": _with("metadata.name", None),
    "null metadata": {"apiVersion": "v1", "kind": "Pod", "metadata": None, "spec": _base()["spec"]},
    "no spec": _with("spec", None),
    "null spec": _with("spec", None) | {"spec": None},
    "spec an array": _with("spec", None) | {"spec": []},
    "null status": _with("status", None) | {"status": None},
    "no status": _with("status", None),
    "status an array": _with("status", None) | {"status": [1]},
    "no labels": _with("metadata.labels", None),
    "label not a string": _with("metadata.labels", {"app": 5}),
    "mirror pod": _with("metadata.annotations", {"kubernetes.io/config.mirror": "abc", "x": "y"}),
    "null annotations": _with("metadata.annotations", None)
    | {"metadata": {**_base()["metadata"], "annotations": None}},
    "null owners": _with("metadata.ownerReferences", None)
    | {"metadata": {**_base()["metadata"], "ownerReferences": None}},
    "owners not a list": _with("metadata.ownerReferences", {"a": 1}),
    "owner name a number": _with("metadata.ownerReferences", [{"kind": "ReplicaSet", "name": 5, "uid": "u"}]),
    "bad creation time": _with("metadata.creationTimestamp", "yesterday"),
    "null creation time": _with("metadata.creationTimestamp", None)
    | {"metadata": {**_base()["metadata"], "creationTimestamp": None}},
    "bad start time": _with("status.startTime", "soon"),
    "start time a number": _with("status.startTime", 5),
    "phase a number": _with("status.phase", 3),
    "nominated": _with("status.nominatedNodeName", "node-1"),
    "disruption target": _with(
        "status.conditions",
        [
            {"type": "Ready", "status": "True"},
            {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"},
            {"type": "DisruptionTarget", "status": "False", "reason": "Other"},
        ],
    ),
    "disruption target reason a number": _with(
        "status.conditions", [{"type": "DisruptionTarget", "status": "True", "reason": 5}]
    ),
    "resize infeasible": _with(
        "status.conditions", [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]
    ),
    "resized container": _with(
        "status.containerStatuses",
        [{"name": "web", "allocatedResources": {"cpu": "2"}, "resources": {"requests": {"cpu": "2"}}}],
    ),
    "container status resources null": _with("status.containerStatuses", [{"name": "web", "resources": None}]),
    "pod-level status resources": _with("status.resources", {"requests": {"cpu": "1"}}),
    "pod-level allocated": _with("status.allocatedResources", {"cpu": "1"}),
    "resource claims": _with("spec.resourceClaims", [{"name": "gpu", "resourceClaimTemplateName": "gpu"}])
    | {"status": {"phase": "Running", "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "web-gpu"}]}},
    "claim statuses alone": _with("status.resourceClaimStatuses", [{"name": "gpu", "resourceClaimName": "x"}]),
    "gates": _with("spec.schedulingGates", [{"name": "wait"}]),
    "gates pending": _with("spec.schedulingGates", [{"name": "wait"}])
    | {"spec": {**_base()["spec"], "nodeName": "", "schedulingGates": [{"name": "wait"}]}},
    "priority out of range": _with("spec.priority", 1 << 40),
    "no containers": _with("spec.containers", []),
    "bad quantity": _with("spec.containers", [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1x"}}}]),
    "host network ports": _with("spec.hostNetwork", True),
    "priority class": _with("spec.priorityClassName", "system-node-critical")
    | {"spec": {**_base()["spec"], "priority": None, "priorityClassName": "system-node-critical"}},
    "no kind": _with("kind", None),
    "other apiVersion": _with("apiVersion", "v2"),
    "a Service among pods": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "a"}},
}


def _styles(items: list[Any]) -> dict[str, str]:
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [_node("node-0"), _node("node-1"), *items]}
    return {
        "kubectl": json.dumps(doc, indent=4),
        "compact": json.dumps(doc, separators=(",", ":")),
        "one per line": '{"apiVersion": "v1", "kind": "List", "items": [\n'
        + ",\n".join(json.dumps(i) for i in doc["items"])
        + "\n]}",
    }


def _raw(name: str) -> list[str]:
    """The texts of the base pod's replicas with a raw edit in one of them (the 13th)."""
    find, put = RAW_EDITS[name]
    texts = [json.dumps(p) for p in _replicas(_base())]
    assert find in texts[12], name
    texts[12] = texts[12].replace(find, put, 1)
    return texts


def _corpus() -> dict[str, str]:
    out = {}
    for name, shape in SHAPES.items():
        out[name] = _styles(_replicas(shape))["kubectl"]
    # each shape once among plain replicas, in every style
    for name, shape in list(SHAPES.items())[:12]:
        items = _replicas(_base())
        items[10] = _replicas(shape, 11)[10]
        for style, text in _styles(items).items():
            out[f"{name} among others, {style}"] = text
    for name in RAW_EDITS:
        body = ",\n".join(_raw(name))
        nodes = ",\n".join(json.dumps(_node(n)) for n in ("node-0", "node-1"))
        out[f"raw: {name}"] = '{"apiVersion": "v1", "kind": "List", "items": [\n' + nodes + ",\n" + body + "\n]}"
    # a dump stream of PodLists (`kubectl cluster-info dump`)
    out["dump stream"] = (
        json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": [_node("node-0"), _node("node-1")]}, indent=4)
        + "\n"
        + json.dumps({"kind": "PodList", "apiVersion": "v1", "items": _replicas(_base())}, indent=4)
        + "\n==== START logs for container web of pod a/b ====\nlog\n==== END logs for container web of pod a/b ====\n"
        + json.dumps(
            {"kind": "PodList", "apiVersion": "v1", "items": _replicas(_with("metadata.namespace", "b"))}, indent=4
        )
    )
    out["duplicate pods"] = _styles(_replicas(_base()) + _replicas(_base())[3:4])["kubectl"]
    return out


CORPUS = _corpus()


def _state(path: str) -> object:
    try:
        st = load_cluster([path])
    except InputError as e:
        return ("error", str(e))
    return (
        sorted(st.nodes),
        [(p.key, p) for p in st.pods],
        [(p.key, p) for p in st.pending_pods],
        st.orphaned_pods,
        dict(st.skipped),
    )


def _generic(monkeypatch: pytest.MonkeyPatch, path: str) -> object:
    with monkeypatch.context() as m:
        m.setattr(typed.PodRuns, "__call__", lambda self, *args: None)
        return _state(path)


class _Counted:
    """How many pods the fast path built."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built = 0
        call = typed.PodRuns.__call__

        def counted(runs: typed.PodRuns, run: str, *args: Any) -> Any:
            got = call(runs, run, *args)
            self.built += sum(1 for p in got.pods if p is not None) if got is not None else 0
            return got

        monkeypatch.setattr(typed.PodRuns, "__call__", counted)


@pytest.mark.parametrize("run_chars", [1 << 16, 4096])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_typed_pods_answer_as_dicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, run_chars: int) -> None:
    path = tmp_path / "in.json"
    path.write_text(CORPUS[name], encoding="utf-8", errors="surrogatepass")
    expected = _generic(monkeypatch, str(path))
    monkeypatch.setattr(files._Batches, "RUN_CHARS", run_chars)  # a dozen pods, or one or two
    assert _state(str(path)) == expected


def test_the_corpus_goes_through_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Most inputs above have pods the fast path builds (else they would test the dict path
    twice); those it never builds are the ones it must hand back whole."""
    counted = _Counted(monkeypatch)
    path = tmp_path / "in.json"
    none = []
    for name, text in CORPUS.items():
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        before = counted.built
        _state(str(path))
        if counted.built == before:
            none.append(name)
    assert len(none) < len(CORPUS) // 2, none


@pytest.mark.parametrize("window", [0, 5000])
def test_typed_pods_through_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    """A dump read a window at a time: the runs are cut where the window allows."""
    text = "\n".join(CORPUS[n] for n in ("plain", "disruption target", "raw: escaped nodeName key", "dump stream"))
    path = tmp_path / "in.json"
    path.write_text(CORPUS["generated"], encoding="utf-8")
    expected = _generic(monkeypatch, str(path))
    if window:
        monkeypatch.setattr(files, "WINDOW_MIN_BYTES", 0)
        monkeypatch.setattr(files, "WINDOW_CHUNK_BYTES", window)
    assert _state(str(path)) == expected
    path.write_text(text, encoding="utf-8")
    with monkeypatch.context():
        expected = _generic(monkeypatch, str(path))
    assert _state(str(path)) == expected


def _dump(items: list[Any]) -> str:
    """A NodeList, then the pods as a PodList (`kubectl cluster-info dump`)."""
    nodes = {"kind": "NodeList", "apiVersion": "v1", "items": [_node("node-0"), _node("node-1")]}
    return json.dumps(nodes) + "\n" + json.dumps({"kind": "PodList", "apiVersion": "v1", "items": items}, indent=4)


def test_plain_replicas_take_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "in.json"
    path.write_text(_dump(_replicas(SHAPES["generated"])), encoding="utf-8")
    counted = _Counted(monkeypatch)
    state = _state(str(path))
    assert isinstance(state, tuple) and len(state[1]) == N
    # the first pod shows the separator between items, and the last one has none after it: they
    # are read as dicts, every other is built
    assert counted.built == N - 2


@pytest.mark.parametrize(
    ("name", "built"),
    [
        ("plain", N - 2),
        ("disruption target", N - 2),
        ("nominated", N - 2),
        ("deleting", N - 2),
        ("terminal", N - 2),
        ("no namespace", N - 2),
        ("resized container", 0),  # these are read as dicts
        ("pod-level status resources", 0),
        ("generateName only", 0),
        ("resize infeasible", 0),
        ("resource claims", 0),
        ("bad namespace", 0),
        ("owner name a number", 0),
        ("bad start time", 0),
    ],
)
def test_what_the_fast_path_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, built: int) -> None:
    path = tmp_path / "in.json"
    path.write_text(_dump(_replicas(SHAPES[name])), encoding="utf-8")
    expected = _generic(monkeypatch, str(path))
    counted = _Counted(monkeypatch)
    assert _state(str(path)) == expected
    assert counted.built == built


@pytest.mark.parametrize("name", ["spec key twice", "escaped colon", "unknown status field", "big integer in spec"])
def test_a_run_the_schema_cannot_take_is_read_as_dicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The run holding the edited pod is decoded as dicts; the runs before it are built."""
    find, put = RAW_EDITS[name]
    texts = [json.dumps(p, indent=4) for p in _replicas(_base())]
    texts[20] = texts[20].replace(find, put, 1)
    assert texts[20] != json.dumps(_replicas(_base())[20], indent=4)
    path = tmp_path / "in.json"
    nodes = json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": [_node("node-0"), _node("node-1")]})
    pods = '{"kind": "PodList", "apiVersion": "v1", "items": [\n' + ",\n".join(texts) + "\n]}"
    path.write_text(nodes + "\n" + pods, encoding="utf-8")
    expected = _generic(monkeypatch, str(path))
    counted = _Counted(monkeypatch)
    assert _state(str(path)) == expected
    assert 0 < counted.built < N - 2


def test_spec_texts_that_differ_only_in_their_node_share_one_conversion(tmp_path: Path) -> None:
    runs = typed.PodRuns(DEFAULT_POD_RULES)
    texts = [json.dumps(p) for p in _replicas(_base(9001))]
    run = runs(",\n".join(texts), "f", 0, "", "")
    assert run is not None and len(run) == N
    pods = [p for p in run.pods if p is not None]
    assert len(pods) == N
    assert {p.node_name for p in pods} == {"node-0", "node-1"}
    # one spec, converted once: its containers are the same objects in every replica
    assert len({id(p.containers) for p in pods}) == 1
    assert run.sources[:2] == ["f (items[0])", "f (items[1])"]
    assert [p.source for p in pods[:2]] == ["f (items[0])", "f (items[1])"]


@pytest.mark.parametrize("real_key", ['"nodeName"', '"node\\u004eame"'])
def test_a_cut_that_is_not_the_node_is_never_shared(real_key: str) -> None:
    """A spec whose first `"nodeName": ...` is not its own nodeName (a nested key before it, the
    real one written twice or with an escape) is kept under its whole text: a replica whose nested
    key names another node keeps its own node."""
    runs = typed.PodRuns(DEFAULT_POD_RULES)
    text = json.dumps(_base(9002)).replace('"spec": {', '"spec": {"x": {"nodeName": "node-0"}, ', 1)
    text = text.replace('"nodeName": "node-0", "containers"', real_key + ': "node-0", "containers"', 1)
    other = text.replace('{"nodeName": "node-0"}', '{"nodeName": "node-1"}').replace(
        '"name": "web"', '"name": "web2"', 1
    )
    assert other != text
    run = runs(text + ",\n" + other, "f", 0, "", "")
    assert run is not None
    assert [p.node_name for p in run.pods if p is not None] == ["node-0", "node-0"]


def test_the_body_of_a_pod_handed_back_is_the_generic_dict() -> None:
    runs = typed.PodRuns(DEFAULT_POD_RULES)
    items = _replicas(_base(9003), 3)
    items[1]["metadata"].pop("name")  # generateName: handed back
    run = runs(",\n".join(json.dumps(p) for p in items), "f", 5, "", "")
    assert run is not None and len(run) == 3
    assert [p is None for p in run.pods] == [False, True, False]
    docs = [run.document(k) for k in range(3)]
    assert [d.body for d in docs] == items
    assert [d.source for d in docs] == ["f (items[5])", "f (items[6])", "f (items[7])"]
    assert {(d.kind, d.api_version) for d in docs} == {("Pod", "v1")}


# real dumps, and whether the fast path builds some of their pods (runs of a dozen or so pods):
# `kubectl cluster-info dump` writes a PodList's items without kind or apiVersion; the sonobuoy
# List of 2017 interleaves pods with workloads and writes kind last; openshift-gcp holds nodes
REAL_DUMPS = {
    REALWORLD / "sonobuoy-kind": True,
    REALWORLD / "eks-cluster-info" / "cluster-info-dump.txt": True,
    REALWORLD / "openshift-gcp": False,
    REALWORLD / "sonobuoy-aws-2017" / "cluster.json": False,
}


@pytest.mark.parametrize("run_chars", [1 << 16, 8192])
@pytest.mark.parametrize("path", list(REAL_DUMPS), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_dumps_load_alike(monkeypatch: pytest.MonkeyPatch, path: Path, run_chars: int) -> None:
    if not path.exists():
        pytest.skip(f"{path} is not here")
    expected = _generic(monkeypatch, str(path))
    assert isinstance(expected, tuple), expected
    monkeypatch.setattr(files._Batches, "RUN_CHARS", run_chars)
    counted = _Counted(monkeypatch)
    assert _state(str(path)) == expected
    if run_chars == 1 << 16:
        assert (counted.built > 0) == REAL_DUMPS[path]


def test_read_path_without_pod_runs_gives_dicts(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text(CORPUS["plain"], encoding="utf-8")
    assert all(type(d) is files.Document for d in read_path(str(path)))


def test_a_list_of_pods_the_schema_never_takes_stops_being_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pods with a field the schema does not know (a newer release's, say): after three runs in a
    row handed back, the List's items are decoded as dicts without being offered again."""
    pods = _replicas(_with("status.somethingNew", {"a": 1}), 200)
    path = tmp_path / "in.json"
    path.write_text(_dump(pods), encoding="utf-8")
    expected = _generic(monkeypatch, str(path))
    offered = []
    call = typed.PodRuns.__call__

    def counted(runs: typed.PodRuns, run: str, where: str, first: int, *args: Any) -> Any:
        offered.append(first)
        return call(runs, run, where, first, *args)

    monkeypatch.setattr(typed.PodRuns, "__call__", counted)
    assert _state(str(path)) == expected
    assert len(offered) == files._Batches.MAX_MISSES


def _gated(name: str, node: str) -> dict[str, Any]:
    spec = {"nodeName": node, "schedulingGates": [{"name": "g"}], "containers": [{"name": "c", "image": "i"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


def test_a_gated_spec_without_a_node_is_no_template_for_one_with_a_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replicas whose specs differ only in an empty and a set nodeName: the gates are allowed on
    the first and refused on the second, in one load and in a later one."""
    pending = tmp_path / "pending.json"
    bound = tmp_path / "bound.json"
    pending.write_text(_dump([_gated(f"p{i}", "") for i in range(4)]), encoding="utf-8")
    mixed = [_gated("a", ""), _gated("b", ""), _gated("c", "node-1"), _gated("d", "")]
    bound.write_text(_dump(mixed), encoding="utf-8")
    expected = _generic(monkeypatch, str(bound))
    assert expected[0] == "error" and "Pod ns/c: spec.nodeName: Forbidden" in expected[1]  # type: ignore[index]
    assert isinstance(_state(str(pending)), tuple)
    assert _state(str(bound)) == expected


def test_a_nested_node_of_an_unbound_pod_names_no_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods with no nodeName of their own and a nested `"nodeName": ...` (an unknown field): the
    nested value is no node, whichever it is."""
    pods = []
    for i, nested in enumerate(["", "", "node-1", ""]):
        p = _gated(f"n{i}", "")
        p["spec"] = {"x": {"nodeName": nested}, "containers": p["spec"]["containers"]}
        pods.append(p)
    path = tmp_path / "in.json"
    path.write_text(_dump(pods), encoding="utf-8")
    expected = _generic(monkeypatch, str(path))
    assert isinstance(expected, tuple) and not expected[1] and len(expected[2]) == 4
    assert _state(str(path)) == expected


@pytest.mark.parametrize("escape", ["\\u0026", "\\u003c", "\\\\"])
def test_specs_with_go_escapes_still_share_one_conversion(escape: str) -> None:
    """Go's encoder writes &, < and > as escapes (a shell command's `&&`): such a spec is still
    keyed without its node, as no letter of "nodeName" is escaped."""
    runs = typed.PodRuns(DEFAULT_POD_RULES)
    base = _base(9004)
    base["spec"]["containers"][0]["command"] = ["sh", "-c", "a && b"]
    texts = [json.dumps(p).replace(" && ", f" {escape}{escape} ") for p in _replicas(base)]
    run = runs(",\n".join(texts), "f", 0, "", "")
    assert run is not None
    pods = [p for p in run.pods if p is not None]
    assert len(pods) == N and len({id(p.containers) for p in pods}) == 1
    assert {p.node_name for p in pods} == {"node-0", "node-1"}
