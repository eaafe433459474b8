"""--kubeconfig/--context and --apply against a local API server that speaks the real paths."""

from __future__ import annotations

import json

import pytest
import yaml

from builders import make_node, make_pod
from tests.e2e.fake_apiserver import FakeAPIServer


def cluster_objects() -> list[dict]:
    return [
        make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="10").dict(),
        make_node().name("n2").capacity(cpu="4", memory="8Gi", pods="10").dict(),
        make_node().name("n3").capacity(cpu="4", memory="8Gi", pods="10").taint("dedicated", "infra").dict(),
        make_pod().name("existing").node("n2").req(cpu="3").dict(),
        make_pod().name("waiting").req(cpu="1").dict(),  # pending in the cluster
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    ]


@pytest.fixture
def api(tmp_path):
    with FakeAPIServer(cluster_objects()) as srv:
        srv.kubeconfig_path = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        yield srv


def pod_file(tmp_path, name: str, cpu: str) -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(yaml.safe_dump(make_pod().name(name).req(cpu=cpu).dict()))
    return str(p)


def test_live_cluster_is_read_with_paging(api, run, tmp_path):
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    res = json.loads(r.out)["results"][0]
    assert [n["name"] for n in res["nodes"]] == ["n1", "n2", "n3"]
    assert res["node"] == "n1"
    # pages of 2: the three nodes needed two requests
    assert [p for m, p in api.requests if p == "/api/v1/nodes"] == ["/api/v1/nodes", "/api/v1/nodes"]
    # nothing is written without --apply
    assert not any(m == "POST" for m, _ in api.requests)
    assert api.bindings == [] and api.created == []


def test_context_flag(api, run, tmp_path):
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "--context", "test", "-o", "json")
    assert r.code == 0, r.err
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "--context", "nope")
    assert r.code == 3
    assert "kubeconfig" in r.err and "nope" in r.err


def test_optional_lists_that_fail_are_noted(api, run, tmp_path):
    api.forbidden.add("/apis/policy/v1/poddisruptionbudgets")
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0
    assert "could not list /apis/policy/v1/poddisruptionbudgets (403: cannot list resource" in r.err


def test_required_list_failure_is_exit_3(api, run, tmp_path):
    api.forbidden.add("/api/v1/nodes")
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert r.err.strip().startswith("kwhatif: error: GET http://127.0.0.1:")
    assert "/api/v1/nodes: 403" in r.err


def test_unreachable_server_is_exit_3(run, tmp_path):
    srv = FakeAPIServer([])
    path = srv.kubeconfig(str(tmp_path / "kc"))
    srv.httpd.server_close()  # nothing listens there now
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", path)
    assert r.code == 3
    assert "cannot reach the API server" in r.err
    assert "Traceback" not in r.err


def test_apply_binds_pending_pod_and_creates_new_one(api, run, tmp_path):
    waiting = tmp_path / "waiting.yaml"
    waiting.write_text(yaml.safe_dump(make_pod().name("waiting").req(cpu="1").dict()))
    r = run("schedule", str(waiting), pod_file(tmp_path, "fresh", "1"), "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 0, r.err
    res = {x["pod"]["name"]: x for x in json.loads(r.out)["results"]}
    assert {k: v for k, v in res["waiting"]["binding"].items() if k != "object"} == {"node": res["waiting"]["node"], "recorded": True, "applied": True}
    assert api.bindings == [
        {"apiVersion": "v1", "kind": "Binding", "metadata": {"namespace": "default", "name": "waiting", "uid": "uid-waiting"},
         "target": {"apiVersion": "v1", "kind": "Node", "name": res["waiting"]["node"]}}
    ]
    assert [c["metadata"]["name"] for c in api.created] == ["fresh"]
    assert api.created[0]["spec"]["nodeName"] == res["fresh"]["node"]


def test_apply_partial_failure_is_exit_4(api, run, tmp_path):
    api.fail_bindings["default/waiting"] = 409
    waiting = tmp_path / "waiting.yaml"
    waiting.write_text(yaml.safe_dump(make_pod().name("waiting").req(cpu="1").dict()))
    r = run("schedule", str(waiting), pod_file(tmp_path, "fresh", "1"), "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 4
    assert "binding default/waiting failed: 409 Conflict" in r.err
    assert [c["metadata"]["name"] for c in api.created] == ["fresh"]


def test_apply_needs_a_live_cluster_and_confirmation(api, run, tmp_path):
    r = run("schedule", pod_file(tmp_path, "fresh", "1"), "--cluster", "samples/cluster.yaml", "--apply", "--yes")
    assert r.code == 2 and "--apply binds pods in a live cluster" in r.err
    r = run("schedule", pod_file(tmp_path, "fresh", "1"), "--kubeconfig", api.kubeconfig_path, "--apply")
    assert r.code == 2 and "add --yes" in r.err
    assert api.created == [] and api.bindings == []
