"""Dynamic resource allocation end to end: the installed command on samples/dra (a GPU cluster
with NVIDIA's DRA driver), claims from templates per pod and per replica, explanations and hints,
bad input, and live clusters that serve resource.k8s.io v1 or only v1beta1."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from kwhatif.dra.claims import generate_claim_name
from tests.e2e.fake_apiserver import FakeAPIServer

CLUSTER = "samples/dra/cluster.yaml"
NOTEBOOK_CLAIM = generate_claim_name("notebook", "gpu", "ml")


def test_schedule_notebook_shows_the_devices_per_node(run):
    r = run("schedule", "samples/dra/pods/notebook.yaml", "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    res = json.loads(r.out)["results"][0]
    assert (res["status"], res["node"]) == ("Scheduled", "h100-a-2")
    nodes = {n["name"]: n for n in res["nodes"]}
    dra = {name: next(f for f in n["filters"] if f["plugin"] == "DynamicResources") for name, n in nodes.items()}
    assert dra["h100-a-2"]["details"] == [f"claim ml/{NOTEBOOK_CLAIM}: gpu -> gpu-0 [gpu.nvidia.com/h100-a-2]"]
    # gpu-0 and gpu-1 of h100-a-1 are the inference server's
    assert dra["h100-a-1"]["details"] == [f"claim ml/{NOTEBOOK_CLAIM}: gpu -> gpu-2 [gpu.nvidia.com/h100-a-1]"]
    assert dra["l4-c-1"] == {
        "plugin": "DynamicResources",
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["cannot allocate all claims"],
        "details": [
            f"claim ml/{NOTEBOOK_CLAIM}, request gpu: none of the node's 4 device(s) of class gpu.nvidia.com matches the request's selectors"
        ],
    }
    assert dra["cpu-c-1"]["details"] == [
        f"claim ml/{NOTEBOOK_CLAIM}, request gpu: the node has no devices of any DRA driver"
    ]
    # 1.35's DynamicResources scores (weight 2), 0 without prioritized lists
    assert {s["plugin"]: s["weight"] for s in nodes["h100-a-2"]["scores"]}["DynamicResources"] == 2


def test_schedule_notebook_table(run):
    r = run("schedule", "samples/dra/pods/notebook.yaml", "--cluster", CLUSTER)
    assert r.code == 0
    assert "FITS ml/notebook -> h100-a-2" in r.out
    assert f"h100-a-2: claim ml/{NOTEBOOK_CLAIM}: gpu -> gpu-0 [gpu.nvidia.com/h100-a-2]" in r.out
    assert "*DynamicResources: cannot allocate all claims (claim ml/" in r.out


def test_check_training_job_replica_by_replica(run):
    r = run("check", "samples/dra/training.yaml", "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    d = json.loads(r.out)
    rows = {w["name"]: w for w in d["workloads"]}
    assert (rows["train-llm"]["placed"], rows["train-llm"]["notPlaced"]) == (1, 1)
    assert rows["train-llm"]["dominantReason"] == "cannot allocate all claims"
    assert (rows["finetune"]["placed"], rows["finetune"]["notPlaced"]) == (2, 0)
    placed = {x["pod"]["name"]: x["node"] for x in d["results"] if x["status"] == "Scheduled"}
    # the first worker takes all 8 H100s of h100-a-2; h100-a-1 has only 6 free
    assert [n for p, n in placed.items() if p.startswith("train-llm")] == ["h100-a-2"]
    # each finetune replica gets its own claim: the first takes 4 A100-80GB, the second the L4s
    assert sorted(n for p, n in placed.items() if p.startswith("finetune")) == ["a100-b-2", "l4-c-1"]
    failed = next(x for x in d["results"] if x["status"] != "Scheduled")
    assert failed["message"].startswith("0/6 nodes are available: ")
    assert "4 cannot allocate all claims. still not schedulable, preemption: " in failed["message"]
    assert any(
        "needs 8 device(s) of class gpu.nvidia.com on one node; at most 6 are free on any node" in h
        for h in failed["hints"]
    )


def test_check_table_has_the_hint(run):
    r = run("check", "samples/dra/training.yaml", "--cluster", CLUSTER)
    assert r.code == 1
    assert "Job     ml/train-llm  2          1         1             DOES NOT FIT  cannot allocate all claims" in r.out
    assert "at most 6 are free on any node" in r.out


def _write(tmp_path: Path, name: str, *objs: dict) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump_all(objs))
    return str(p)


def _notebook(**claim: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "nb", "namespace": "ml"},
        "spec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "resourceClaims": [{"name": "gpu", **claim}],
            "containers": [{"name": "c", "image": "i"}],
        },
    }


def _template(name: str, cls: str = "gpu.nvidia.com", expression: str | None = None, ns: str = "ml") -> dict:
    exactly: dict = {"deviceClassName": cls}
    if expression:
        exactly["selectors"] = [{"cel": {"expression": expression}}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}},
    }


@pytest.mark.parametrize(
    "objs, code, out",
    [
        pytest.param(
            [_template("t", cls="tpu.example.com"), _notebook(resourceClaimTemplateName="t")],
            1,
            [
                "PreFilter DynamicResources: UnschedulableAndUnresolvable: request gpu: device class tpu.example.com does not exist",
                "device classes in the cluster: gpu.nvidia.com",
            ],
            id="unknown-class",
        ),
        pytest.param(
            [_notebook(resourceClaimTemplateName="nope")],
            1,
            [
                'pod "ml/nb": ResourceClaim not created yet',
                'resource claim template "nope": resourceclaimtemplate.resource.k8s.io "nope" not found',
            ],
            id="missing-template",
        ),
        pytest.param(
            [_notebook(resourceClaimName="llm-serving-gpus")],
            1,
            [
                'could not find ResourceClaim "ml/llm-serving-gpus"',
                "a ResourceClaim named 'llm-serving-gpus' exists in namespace inference; a pod can only use those of its own namespace (ml)",
            ],
            id="claim-in-another-namespace",
        ),
        pytest.param(
            [
                _template("t", expression='device.attributes["gpu.nvidia.com"].nosuch == 1'),
                _notebook(resourceClaimTemplateName="t"),
            ],
            1,
            [
                'ERROR ml/nb (attempt 1 of 2): running "DynamicResources" filter plugin: claim ml/',
                ": selector #0: CEL runtime error: no such key: nosuch",
            ],
            id="cel-runtime-error",
        ),
        pytest.param(
            [
                _template("t", expression='device.attributes["gpu.nvidia.com"].productName == "B200"'),
                _notebook(resourceClaimTemplateName="t"),
            ],
            1,
            ["hint: no node has a device of class gpu.nvidia.com that matches claim ml/"],
            id="selector-no-node-satisfies",
        ),
    ],
)
def test_bad_claims(run, tmp_path, objs, code, out):
    r = run("schedule", _write(tmp_path, "pod.yaml", *objs), "--cluster", CLUSTER)
    assert r.code == code, r.out + r.err
    for text in out:
        assert text in r.out, r.out
    assert "Traceback" not in r.err


@pytest.mark.parametrize(
    "expression, message",
    [
        pytest.param(
            "device.driver ==",
            'spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error:',
            id="syntax",
        ),
        pytest.param("x" * 10241, "must have at most 10240 bytes", id="too-long"),
    ],
)
def test_malformed_cel_is_refused_in_one_line(run, tmp_path, expression, message):
    r = run(
        "schedule",
        _write(tmp_path, "pod.yaml", _template("t", expression=expression), _notebook(resourceClaimTemplateName="t")),
        "--cluster",
        CLUSTER,
    )
    assert r.code == 2
    assert r.err.startswith(f"kwhatif: error: {tmp_path}/pod.yaml:1: ResourceClaimTemplate ml/t: ")
    assert message in r.err
    assert len(r.err.strip().splitlines()) == 1


def _v1beta1(obj: dict) -> dict:
    """The same object as a 1.32/1.33 cluster serves it."""
    o = copy.deepcopy(obj)
    o["apiVersion"] = "resource.k8s.io/v1beta1"
    if o["kind"] == "ResourceSlice":
        for d in o["spec"].get("devices", []):
            basic = {k: d.pop(k) for k in list(d) if k != "name"}
            d["basic"] = basic
    if o["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
        spec = o["spec"]["spec"] if o["kind"] == "ResourceClaimTemplate" else o["spec"]
        for req in spec["devices"]["requests"]:
            req.update(req.pop("exactly", {}))
    return o


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_live_cluster_with_dra(run, tmp_path, version):
    objs = yaml.safe_load(Path(CLUSTER).read_text())["items"]
    if version == "v1beta1":
        objs = [_v1beta1(o) if o["apiVersion"].startswith("resource.k8s.io/") else o for o in objs]
    with FakeAPIServer(objs, page_size=50) as srv:
        if version == "v1beta1":
            srv.not_served.update(
                p
                for p in ("deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates")
                for p in [f"/apis/resource.k8s.io/v1/{p}"]
            )
        kubeconfig = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        r = run("schedule", "samples/dra/pods/notebook.yaml", "--kubeconfig", kubeconfig, "-o", "json")
    assert r.code == 0, r.err
    assert "could not list" not in r.err
    res = json.loads(r.out)["results"][0]
    assert res["node"] == "h100-a-2"


def test_live_cluster_without_dra_is_quiet(run, tmp_path):
    objs = [o for o in yaml.safe_load(Path(CLUSTER).read_text())["items"] if o["kind"] in ("Node", "Namespace")]
    with FakeAPIServer(objs, page_size=50) as srv:
        srv.not_served.update(
            p
            for p in list(__import__("tests.e2e.fake_apiserver", fromlist=["LIST_PATHS"]).LIST_PATHS)
            if "resource.k8s.io" in p
        )
        kubeconfig = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        pod = _write(
            tmp_path,
            "p.yaml",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
        )
        r = run("schedule", pod, "--kubeconfig", kubeconfig)
    assert r.code == 0, r.err
    assert "resource.k8s.io" not in r.err


def test_every_format_explains_the_devices(run, tmp_path):
    import jsonschema

    from tests.e2e.conftest import ROOT

    pod = _write(
        tmp_path,
        "pod.yaml",
        _template("t", expression='device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4"'),
        {**_notebook(resourceClaimTemplateName="t"), "metadata": {"name": "nb", "namespace": "ml"}},
    )
    r = run("schedule", pod, "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0
    jsonschema.validate(
        json.loads(r.out), json.loads((ROOT / "docs" / "schema" / "schedule-report.schema.json").read_text())
    )
    claim = generate_claim_name("nb", "gpu", "ml")
    r = run("schedule", pod, "--cluster", CLUSTER, "-o", "yaml")
    assert f"claim ml/{claim}: gpu -> gpu-0 [gpu.nvidia.com/l4-c-1]" in r.out
    # five nodes have no L4: markdown and junit carry the explanation of the ones that fail
    five = _template("t", expression='device.attributes["gpu.nvidia.com"].productName == "NVIDIA L4"')
    five["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 5
    big = _write(tmp_path, "big.yaml", five, _notebook(resourceClaimTemplateName="t"))
    md = run("schedule", big, "--cluster", CLUSTER, "-o", "markdown")
    assert md.code == 1
    assert "DynamicResources: claim ml/" in md.out and "needs 5 device(s)" in md.out
    ju = run("schedule", big, "--cluster", CLUSTER, "-o", "junit")
    assert "cannot allocate all claims (claim ml/" in ju.out


@pytest.mark.parametrize(
    "version,node,feasible,dra_weight",
    [
        # DynamicResourceAllocation off by default: the API server drops spec.resourceClaims, the
        # profile has no DynamicResources, the nodes without a free GPU fit too
        pytest.param("1.33", "h100-a-2", 6, None, id="1.33-gate-off"),
        pytest.param("1.34", "h100-a-2", 4, None, id="1.34-filters-only"),
        pytest.param("1.35", "h100-a-2", 4, 2, id="1.35-scores"),
    ],
)
def test_the_release_decides_dra(run, version, node, feasible, dra_weight):
    r = run(
        "schedule", "samples/dra/pods/notebook.yaml", "--cluster", CLUSTER, "--scheduler-version", version, "-o", "json"
    )
    assert r.code == 0, r.err
    res = json.loads(r.out)["results"][0]
    assert (res["status"], res["node"]) == ("Scheduled", node)
    assert sum(1 for n in res["nodes"] if n["feasible"]) == feasible
    plugins = {f["plugin"] for n in res["nodes"] for f in n["filters"]}
    weights = {s["plugin"]: s["weight"] for s in res["nodes"][0]["scores"]}
    dropped = [n for n in res["notes"] if n.startswith("spec.resourceClaims:")]
    if version == "1.33":
        assert "DynamicResources" not in plugins
        assert dropped == [
            "spec.resourceClaims: the DynamicResourceAllocation feature gate is off by default in 1.33.13; its API "
            "server drops the field (the pod is scheduled without its ResourceClaims)"
        ]
    else:
        assert "DynamicResources" in plugins and not dropped
    assert weights.get("DynamicResources") == dra_weight


def test_check_before_1_34_keeps_the_dra_objects_and_drops_the_claims(run):
    r = run("check", "samples/dra/training.yaml", "--cluster", CLUSTER, "--scheduler-version", "1.33", "-o", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert [(w["name"], w["verdict"]) for w in out["workloads"]] == [("train-llm", "fits"), ("finetune", "fits")]
    assert all(any(n.startswith("spec.resourceClaims:") for n in res["notes"]) for res in out["results"])


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_snapshot_keeps_the_dra_objects(run, tmp_path, version):
    """kwhatif snapshot lists the resource.k8s.io objects (in the version the cluster serves) and
    the file gives the answers the live cluster gives."""
    objs = yaml.safe_load(Path(CLUSTER).read_text())["items"]
    if version == "v1beta1":
        objs = [_v1beta1(o) if o["apiVersion"].startswith("resource.k8s.io/") else o for o in objs]
    with FakeAPIServer(objs, page_size=50) as srv:
        srv.git_version = "v1.35.7"
        if version == "v1beta1":
            srv.not_served.update(
                f"/apis/resource.k8s.io/v1/{p}"
                for p in ("deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates")
            )
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        snap = str(tmp_path / "cluster.json")
        r = run("snapshot", snap, "--kubeconfig", kc)
        assert r.code == 0, r.err
        kinds = [
            i["kind"]
            for i in json.loads(Path(snap).read_text())["items"]
            if i["apiVersion"].startswith("resource.k8s.io/")
        ]
        assert sorted(set(kinds)) == ["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"]
        live = run("check", "samples/dra/training.yaml", "--kubeconfig", kc, "-o", "json")
    saved = run("check", "samples/dra/training.yaml", "--cluster", snap, "-o", "json")
    assert saved.code == live.code == 1, saved.err
    assert json.loads(saved.out)["results"] == json.loads(live.out)["results"]
