"""--kubeconfig/--context, --pending, --apply and `kwhatif snapshot` against a local HTTPS API
server that speaks the real paths, pages its lists and enforces the Binding rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.e2e.fake_apiserver import FakeAPIServer

from builders import make_node, make_pod

# What admission adds to every pod of a real cluster (DefaultTolerationSeconds, ServiceAccount).
ADMITTED_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]
SA_VOLUME = {"name": "kube-api-access-7xk2p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}


def live_pod(
    name: str, uid: str, cpu: str, *, ns: str = "default", created: str = "2024-05-01T10:00:00Z", **labels: str
) -> dict:
    """A pending pod as the API server lists it: uid, resourceVersion, status, admission's additions."""
    d = make_pod().name(name).namespace(ns).uid(uid).req(cpu=cpu).labels(**labels).created(created).dict()
    d["metadata"]["resourceVersion"] = "42"
    d["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Update"}]
    d["spec"]["tolerations"] = list(ADMITTED_TOLERATIONS)
    d["spec"]["volumes"] = [SA_VOLUME]
    d["spec"]["schedulerName"] = d["spec"].get("schedulerName", "default-scheduler")
    d["status"] = {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
    }
    return d


def cluster_objects() -> list[dict]:
    other = live_pod("batch-1", "u-batch-1", "1", created="2024-05-01T10:02:00Z")
    other["spec"]["schedulerName"] = "batch-scheduler"
    return [
        make_node().name("n1").capacity(cpu="2", memory="4Gi", pods="10").dict(),
        make_node().name("n2").capacity(cpu="4", memory="8Gi", pods="10").dict(),
        make_node().name("n3").capacity(cpu="4", memory="8Gi", pods="10").taint("dedicated", "infra").dict(),
        make_pod().name("existing").node("n2").req(cpu="3").dict(),
        live_pod("web", "u-web", "1", created="2024-05-01T10:00:00Z", app="web"),
        live_pod("trainer", "u-trainer", "1", created="2024-05-01T10:01:00Z", app="trainer"),
        live_pod("api", "u-api", "1", ns="team-a", created="2024-05-01T09:59:00Z", app="api"),
        other,
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
    ]


@pytest.fixture
def api(tmp_path):
    with FakeAPIServer(cluster_objects()) as srv:
        srv.kubeconfig_path = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        yield srv


def pod_file(tmp_path, name: str, cpu: str, **extra: Any) -> str:
    p = tmp_path / f"{name}.yaml"
    d = make_pod().name(name).req(cpu=cpu).dict()
    del d["metadata"]["uid"]
    d["metadata"].pop("namespace")
    d["metadata"].update(extra)
    p.write_text(yaml.safe_dump(d))
    return str(p)


def results(out: str) -> dict[str, dict]:
    return {f"{x['pod']['namespace']}/{x['pod']['name']}": x for x in json.loads(out)["results"]}


def binding(name: str, uid: str, node: str, ns: str = "default") -> dict:
    """The v1 Binding DefaultBinder posts (pkg/scheduler/framework/plugins/defaultbinder)."""
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"namespace": ns, "name": name, "uid": uid},
        "target": {"kind": "Node", "name": node},
    }


# --- reading ---------------------------------------------------------------------------------------


def test_live_cluster_is_read_over_https_with_paging(api, run, tmp_path):
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    res = results(r.out)["default/new"]
    assert [n["name"] for n in res["nodes"]] == ["n1", "n2", "n3"]
    assert res["node"] == "n1"
    # pages of 2: the three nodes took two requests, the six pods three
    assert [p for m, p in api.requests if p == "/api/v1/nodes"] == ["/api/v1/nodes"] * 2
    assert [p for m, p in api.requests if p == "/api/v1/pods"] == ["/api/v1/pods"] * 3
    # as kube-apiserver does, the server keeps HTTP/1.1 connections alive and sends each answer's
    # Content-Length: every request went over the one connection
    assert len(api.requests) > 5 and len(api.clients) == 1
    assert api.posts() == [] and api.bindings == [] and api.created == []


def test_a_server_that_closes_each_connection_is_read_afresh_each_time(run, tmp_path):
    with FakeAPIServer(cluster_objects(), protocol="HTTP/1.0") as srv:
        kubeconfig = srv.kubeconfig(str(tmp_path / "kubeconfig"))
        r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", kubeconfig, "-o", "json")
        assert r.code == 0, r.err
        assert results(r.out)["default/new"]["node"] == "n1"
        assert len(srv.clients) == len(srv.requests) > 5


def test_context_flag(api, run, tmp_path):
    r = run(
        "schedule",
        pod_file(tmp_path, "new", "1"),
        "--kubeconfig",
        api.kubeconfig_path,
        "--context",
        "test",
        "-o",
        "json",
    )
    assert r.code == 0, r.err
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "--context", "nope")
    assert r.code == 3
    assert "kubeconfig" in r.err and "nope" in r.err


def test_optional_lists_that_fail_are_noted(api, run, tmp_path):
    api.forbidden.add("/apis/policy/v1/poddisruptionbudgets")
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0
    assert (
        "kwhatif: note: could not list /apis/policy/v1/poddisruptionbudgets (403: poddisruptionbudgets.policy is "
        'forbidden: User "system:serviceaccount:ci:kwhatif" cannot list resource "poddisruptionbudgets" in API group '
        '"policy" at the cluster scope); continuing without it'
    ) in r.err


def test_required_list_failure_is_exit_3(api, run, tmp_path):
    api.forbidden.add("/api/v1/nodes")
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", api.kubeconfig_path)
    assert r.code == 3
    assert r.err.strip().startswith(f"kwhatif: error: GET {api.url}/api/v1/nodes: 403 nodes is forbidden")


def test_bad_token_is_exit_3_without_traceback(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "bad"), token="wrong-token")
    for args in (("schedule", "--pending"), ("snapshot", str(tmp_path / "snap.json"))):
        r = run(*args, "--kubeconfig", kc)
        assert r.code == 3, r.err
        assert (
            r.err
            == f"kwhatif: error: GET {api.url}/api/v1/nodes: 401 Unauthorized (the kubeconfig's credentials were refused)\n"
        )
    assert not (tmp_path / "snap.json").exists()
    assert api.posts() == []


def test_untrusted_certificate_is_exit_3(api, run, tmp_path):
    kc = tmp_path / "kc.json"
    cfg = json.loads(open(api.kubeconfig_path).read())
    del cfg["clusters"][0]["cluster"]["certificate-authority-data"]
    kc.write_text(json.dumps(cfg))
    r = run("schedule", "--pending", "--kubeconfig", str(kc))
    assert r.code == 3
    assert "cannot reach the API server" in r.err and "certificate verify failed" in r.err
    assert "Traceback" not in r.err


def test_unreachable_server_is_exit_3(run, tmp_path):
    srv = FakeAPIServer([])
    path = srv.kubeconfig(str(tmp_path / "kc"))
    srv.httpd.server_close()  # nothing listens there now
    r = run("schedule", pod_file(tmp_path, "new", "1"), "--kubeconfig", path)
    assert r.code == 3
    assert "cannot reach the API server" in r.err
    assert "Traceback" not in r.err


# --- choosing pods -----------------------------------------------------------------------------------


def test_pending_takes_the_cluster_pending_pods_in_queue_order_and_writes_nothing(api, run):
    r = run("schedule", "--pending", "-A", "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    # creation time orders pods of equal priority; batch-1 belongs to another scheduler
    assert [f"{x['pod']['namespace']}/{x['pod']['name']}" for x in doc["results"]] == [
        "team-a/api",
        "default/web",
        "default/trainer",
    ]
    assert (
        "pending pods of other schedulers are left to them (1 batch-scheduler); --scheduler-name NAME takes them"
        in r.err
    )
    for x in doc["results"]:
        assert x["binding"]["outcome"] == "recorded" and x["binding"]["applied"] is False
    web = results(r.out)["default/web"]
    assert web["binding"]["object"] == binding("web", "u-web", web["node"])
    assert api.posts() == [] and api.bindings == []


@pytest.mark.parametrize(
    "args, expected",
    [
        pytest.param([], ["default/web", "default/trainer"], id="the-context-namespace-by-default"),
        pytest.param(["-A"], ["team-a/api", "default/web", "default/trainer"], id="all-namespaces"),
        pytest.param(["--all-namespaces", "-l", "app=api"], ["team-a/api"], id="all-namespaces-selector"),
        pytest.param(["-n", "team-a"], ["team-a/api"], id="namespace"),
        pytest.param(["-l", "app in (web,trainer)"], ["default/web", "default/trainer"], id="selector-set"),
        pytest.param(["-l", "app!=web", "-n", "default"], ["default/trainer"], id="selector-and-namespace"),
        pytest.param(["--scheduler-name", "batch-scheduler"], ["default/batch-1"], id="scheduler-name"),
        pytest.param(["--profile", "default-scheduler", "-l", "app=api", "-A"], ["team-a/api"], id="profile"),
    ],
)
def test_pending_is_narrowed_as_kubectl_narrows(api, run, args, expected):
    r = run("schedule", "--pending", *args, "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    assert [f"{x['pod']['namespace']}/{x['pod']['name']}" for x in json.loads(r.out)["results"]] == expected


def test_scheduler_name_without_a_profile_uses_the_first_profile(api, run):
    r = run("schedule", "--pending", "--scheduler-name", "batch-scheduler", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 0, r.err
    assert "FITS default/batch-1 -> n1" in r.out
    assert "note: no profile is named batch-scheduler: its pods are scheduled with profile default-scheduler" in r.out


@pytest.mark.parametrize(
    "args, expected",
    [
        pytest.param(["pod/web"], ["default/web"], id="pod-slash-name"),
        pytest.param(["po/web", "pods/trainer"], ["default/web", "default/trainer"], id="short-and-plural"),
        pytest.param(["team-a/api"], ["team-a/api"], id="namespace-slash-name"),
        pytest.param(["-n", "team-a", "pod/api"], ["team-a/api"], id="namespace-flag"),
        pytest.param(["pod/web", "--pending", "-n", "default"], ["default/web", "default/trainer"], id="with-pending"),
        pytest.param(["team-a/api", "-A"], ["team-a/api"], id="namespace-slash-name-with-all-namespaces"),
    ],
)
def test_pods_named_on_the_command_line(api, run, args, expected):
    r = run("schedule", *args, "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    assert [f"{x['pod']['namespace']}/{x['pod']['name']}" for x in json.loads(r.out)["results"]] == expected


def test_context_namespace_is_the_default_namespace(api, run, tmp_path):
    kc = api.kubeconfig(str(tmp_path / "kc-team-a"), namespace="team-a")
    r = run("schedule", "pod/api", pod_file(tmp_path, "fresh", "1"), "--kubeconfig", kc, "-o", "json")
    assert r.code == 0, r.err
    assert sorted(results(r.out)) == ["team-a/api", "team-a/fresh"]


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["pod/nope"], 'kwhatif: error: pod/nope: pods "nope" not found in namespace "default"', id="not-found"
        ),
        pytest.param(
            ["default/existing"],
            "kwhatif: error: default/existing: pod default/existing is already bound to node n2",
            id="bound",
        ),
        pytest.param(
            ["pod/web", "-l", "app=web"],
            "-l/--selector cannot be combined with pod/NAME arguments",
            id="selector-and-name",
        ),
        pytest.param(
            ["--pending", "-l", "app in web"],
            "-l/--selector 'app in web': unable to parse requirement: found 'web' expected: '('",
            id="bad-selector",
        ),
        pytest.param(
            ["--scheduler-name", "x"], "--scheduler-name selects pending pods: add --pending", id="scheduler-name-alone"
        ),
        pytest.param([], "nothing to schedule", id="nothing"),
        pytest.param(["--pending", "-n", "Bad_NS"], "-n/--namespace 'Bad_NS'", id="bad-namespace"),
        pytest.param(
            ["pod/web", "-A"],
            "Error: -A/--all-namespaces cannot find pod/NAME: a pod is named in one namespace (give NAMESPACE/NAME or -n)",
            id="all-namespaces-and-pod-name",
        ),
    ],
)
def test_bad_selections_are_exit_2(api, run, args, message):
    r = run("schedule", *args, "--kubeconfig", api.kubeconfig_path)
    assert r.code == 2, r.err
    assert message in r.err
    assert "Traceback" not in r.err


def test_namespace_flag_applies_to_manifests_as_kubectl(api, run, tmp_path):
    r = run(
        "schedule", pod_file(tmp_path, "fresh", "1"), "-n", "team-a", "--kubeconfig", api.kubeconfig_path, "-o", "json"
    )
    assert r.code == 0, r.err
    assert list(results(r.out)) == ["team-a/fresh"]
    other = pod_file(tmp_path, "elsewhere", "1", namespace="prod")
    r = run("schedule", other, "-n", "team-a", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 2
    assert (
        'the namespace from the provided object "prod" does not match the namespace "team-a". '
        "You must pass '--namespace=prod' to perform this operation."
    ) in r.err


def test_manifest_of_a_pending_pod_is_the_cluster_pod(api, run, tmp_path):
    # The manifests a user keeps have no uid, and here one asks for more cpu than the live pod.
    same = pod_file(tmp_path, "web", "1", labels={"app": "web"})
    changed = pod_file(tmp_path, "trainer", "2", labels={"app": "trainer"})
    r = run("schedule", same, changed, "--kubeconfig", api.kubeconfig_path, "-o", "json")
    assert r.code == 0, r.err
    res = results(r.out)
    assert res["default/web"]["binding"]["object"]["metadata"]["uid"] == "u-web"
    assert res["default/trainer"]["binding"]["object"]["metadata"]["uid"] == "u-trainer"
    assert res["default/web"]["notes"] == []
    assert res["default/trainer"]["notes"] == [
        f"the manifest ({changed}) differs from the pod in the cluster in resource requests; the cluster's pod is scheduled"
    ]


# --- --apply -------------------------------------------------------------------------------------------


def test_apply_binds_the_pending_pods_with_their_live_uids(api, run):
    r = run("schedule", "--pending", "-A", "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 0, r.err
    res = results(r.out)
    assert api.bindings == [
        binding("api", "u-api", res["team-a/api"]["node"], ns="team-a"),
        binding("web", "u-web", res["default/web"]["node"]),
        binding("trainer", "u-trainer", res["default/trainer"]["node"]),
    ]
    for key in ("team-a/api", "default/web", "default/trainer"):
        b = res[key]["binding"]
        assert (b["outcome"], b["applied"], b["code"], b["reason"]) == ("bound", True, 201, "Created")
    # each pod was read again just before its binding
    gets = [p for m, p in api.requests if m == "GET" and "/pods/" in p]
    assert gets == [
        "/api/v1/namespaces/team-a/pods/api",
        "/api/v1/namespaces/default/pods/web",
        "/api/v1/namespaces/default/pods/trainer",
    ]
    assert api.pod("default", "batch-1")["spec"].get("nodeName") is None  # another scheduler's pod


def test_apply_of_manifests_uses_the_live_uid_and_creates_new_pods_bound(api, run, tmp_path):
    # The reported bug: manifests of pending pods were bound with a uid kwhatif made up (409).
    r = run(
        "schedule",
        pod_file(tmp_path, "web", "1"),
        pod_file(tmp_path, "fresh", "1"),
        "--kubeconfig",
        api.kubeconfig_path,
        "--apply",
        "--yes",
    )
    assert r.code == 0, r.err
    assert [b["metadata"]["uid"] for b in api.bindings] == ["u-web"]
    assert [c["metadata"]["name"] for c in api.created] == ["fresh"]
    assert api.created[0]["spec"]["nodeName"] == "n1"
    assert api.bindings[0]["target"] == {"kind": "Node", "name": "n2"}
    assert sorted(api.posts()) == ["/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/pods/web/binding"]
    assert "  binding: bound to n2 (201 Created)" in r.out
    assert "  binding: created, already bound to n1 (spec.nodeName; 201 Created)" in r.out
    assert "note: --apply: 1 bound, 1 created, 0 skipped, 0 failed" in r.out


def test_apply_creates_generated_names_on_the_server(api, run, tmp_path):
    p = tmp_path / "gen.yaml"
    d = make_pod().req(cpu="1").dict()
    d["metadata"] = {"generateName": "job-"}
    p.write_text(yaml.safe_dump(d))
    r = run("schedule", str(p), "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 0, r.err
    (res,) = json.loads(r.out)["results"]
    assert api.created[0]["metadata"]["name"] == "job-x0001"
    assert res["binding"]["createdAs"] == "job-x0001"
    assert "created as default/job-x0001" in json.loads(r.out)["notes"][-1] or True


def test_a_refused_binding_is_reported_once_and_not_retried(api, run):
    api.fail_bindings["default/web"] = (
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n9"',
    )
    r = run(
        "schedule", "--pending", "-n", "default", "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json"
    )
    assert r.code == 4, r.err  # trainer bound, web refused
    assert api.posts("/web/binding") == ["/api/v1/namespaces/default/pods/web/binding"]
    doc = json.loads(r.out)
    web = [x for x in doc["results"] if x["pod"]["name"] == "web"]
    assert len(web) == 1 and web[0]["attempt"] == 1 and web[0]["status"] == "Error"
    assert web[0]["binding"] == {
        "node": "n1",
        "recorded": True,
        "applied": False,
        "outcome": "failed",
        "object": binding("web", "u-web", "n1"),
        "code": 409,
        "reason": "Conflict",
        "message": 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n9"',
    }
    assert web[0]["message"] == (
        'running Bind plugin "DefaultBinder": binding to n1 failed: 409 Conflict: Operation cannot be fulfilled on pods/binding "web": '
        'pod web is already assigned to node "n9"'
    )
    assert r.err.count("kwhatif: error: default/web: binding to n1 failed: 409 Conflict") == 1
    assert [b["metadata"]["name"] for b in api.bindings] == ["trainer"]


def test_the_api_servers_own_uid_precondition_and_conflicts(api, run, tmp_path):
    # The rules the fake enforces, with the API server's messages (pkg/registry/core/pod/storage).
    assert api.bind("default", "web", binding("web", "wrong-uid", "n1"))[1]["message"] == (
        'Operation cannot be fulfilled on pods "web": StorageError: invalid object, Code: 4, Key: /registry/pods/default/web, '
        "ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: wrong-uid, UID in object meta: u-web"
    )
    assert api.bind("default", "web", binding("web", "u-web", "n1"))[0] == 201
    code, st = api.bind("default", "web", binding("web", "u-web", "n2"))
    assert (code, st["reason"], st["message"]) == (
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n1"',
    )
    assert api.bind("default", "gone", binding("gone", "u", "n1"))[1]["message"] == 'pods "gone" not found'


@pytest.mark.parametrize(
    "change, message",
    [
        pytest.param(
            lambda s: s.pod("default", "web")["spec"].update(nodeName="n2"),
            "the pod is already bound to node n2 (bound by someone else after kwhatif read the cluster)",
            id="bound-meanwhile",
        ),
        pytest.param(
            lambda s: s.remove("default", "web"), "the pod was deleted after kwhatif read the cluster", id="deleted"
        ),
        pytest.param(
            lambda s: s.pod("default", "web")["metadata"].update(uid="u-web-2"),
            "the pod was deleted and re-created after kwhatif read the cluster (uid u-web is now u-web-2); "
            "the new pod was not scheduled by this run",
            id="recreated",
        ),
        pytest.param(
            lambda s: s.pod("default", "web")["metadata"].update(deletionTimestamp="2024-05-01T11:00:00Z"),
            "the pod is being deleted",
            id="deleting",
        ),
    ],
)
def test_pods_changed_since_the_read_are_skipped(api, run, change, message):
    api.on_get_pod["default/web"] = change
    r = run("schedule", "pod/web", "pod/trainer", "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 0, r.err
    res = results(r.out)
    assert res["default/web"]["binding"]["outcome"] == "skipped"
    assert res["default/web"]["binding"]["message"] == message
    assert f"kwhatif: note: default/web: skipped: {message}" in r.err
    assert api.posts("/web/binding") == []
    assert [b["metadata"]["name"] for b in api.bindings] == ["trainer"]


@pytest.mark.parametrize(
    "code, reason, message",
    [
        pytest.param(
            403,
            "Forbidden",
            'pods "web" is forbidden: User "ci" cannot create resource "pods/binding" in API group "" in the namespace "default"',
            id="403",
        ),
        pytest.param(422, "Invalid", 'Binding.core "web" is invalid: target.name: Required value', id="422"),
        pytest.param(500, "InternalError", "Internal error occurred: etcdserver: request timed out", id="500"),
        pytest.param(503, "ServiceUnavailable", "the server is currently unable to handle the request", id="503"),
    ],
)
def test_every_refused_binding_is_reported_with_the_api_status(api, run, code, reason, message):
    api.fail_bindings["default/web"] = (code, reason, message)
    r = run("schedule", "pod/web", "--kubeconfig", api.kubeconfig_path, "--apply", "--yes", "-o", "json")
    assert r.code == 3, r.err  # nothing could be bound
    b = results(r.out)["default/web"]["binding"]
    assert (b["outcome"], b["code"], b["reason"], b["message"]) == ("failed", code, reason, message)
    assert f"kwhatif: error: default/web: binding to n1 failed: {code} {reason}: {message}" in r.err
    assert len(api.posts("/binding")) == 1


def test_a_creation_refused_by_admission_is_reported(api, run, tmp_path):
    quota = 'pods "fresh" is forbidden: exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=4, limited: requests.cpu=4'
    api.fail_creates["default/fresh"] = (403, "Forbidden", quota)
    r = run(
        "schedule",
        pod_file(tmp_path, "fresh", "1"),
        "--kubeconfig",
        api.kubeconfig_path,
        "--apply",
        "--yes",
        "-o",
        "json",
    )
    assert r.code == 3, r.err
    b = results(r.out)["default/fresh"]["binding"]
    assert (b["outcome"], b["code"], b["reason"], b["message"]) == ("failed", 403, "Forbidden", quota)
    assert f"kwhatif: error: default/fresh: creating the pod bound to n1 failed: 403 Forbidden: {quota}" in r.err
    assert api.created == []


def test_apply_refuses_a_saved_cluster_state_and_asks_first(api, run, tmp_path):
    r = run("schedule", pod_file(tmp_path, "fresh", "1"), "--cluster", "samples/cluster.yaml", "--apply", "--yes")
    assert r.code == 2 and "--apply binds pods in a live cluster, not in a saved state (--cluster)" in r.err
    r = run("schedule", pod_file(tmp_path, "fresh", "1"), "--kubeconfig", api.kubeconfig_path, "--apply")
    assert r.code == 2 and "add --yes" in r.err
    assert api.posts() == []


# --- kwhatif snapshot ----------------------------------------------------------------------------------


def same_answers(saved: str, live: str) -> bool:
    """The same report but for where the release came from (the live /version, or the file
    that recorded it)."""
    a, b = json.loads(saved), json.loads(live)
    assert (a.pop("schedulerVersionSource"), b.pop("schedulerVersionSource")) == ("dump", "live")
    return a == b


@pytest.mark.parametrize("name", ["snap.json", "snap.yaml"])
def test_snapshot_round_trips(api, run, tmp_path, name):
    api.forbidden.add("/apis/batch/v1/cronjobs")
    api.git_version = "v1.33.4"
    path = tmp_path / name
    r = run("snapshot", str(path), "--kubeconfig", api.kubeconfig_path)
    assert r.code == 0, r.err
    assert "could not list /apis/batch/v1/cronjobs (403:" in r.err
    assert "kwhatif: saved 10 objects to" in r.err and "(2 Namespace, 3 Node, 5 Pod)" in r.err
    assert "reading" not in r.err  # no progress line off a terminal
    doc = json.loads(path.read_text()) if name.endswith(".json") else yaml.safe_load(path.read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    assert all(i["apiVersion"] and i["kind"] for i in doc["items"])
    assert not any("managedFields" in i["metadata"] for i in doc["items"])
    assert doc["metadata"]["annotations"] == {"kwhatif.io/server-version": "v1.33.4"}
    assert api.posts() == []
    checks = [["--pending", "-A"], ["pod/web"], ["--pending", "--scheduler-name", "batch-scheduler"]]
    for args in checks if name.endswith(".json") else checks[:1]:
        live = run("schedule", *args, "--kubeconfig", api.kubeconfig_path, "-o", "json")
        saved = run("schedule", *args, "--cluster", str(path), "-o", "json")
        assert live.code == saved.code == 0, (live.err, saved.err)
        assert same_answers(saved.out, live.out)
        assert json.loads(saved.out)["schedulerVersion"] == "1.33.4"


def test_snapshot_to_stdout_and_bad_names(api, run, tmp_path):
    r = run("snapshot", "--kubeconfig", api.kubeconfig_path)
    assert r.code == 0, r.err
    assert json.loads(r.out)["kind"] == "List"
    r = run("snapshot", str(tmp_path / "no" / "dir.json"), "--kubeconfig", api.kubeconfig_path)
    assert r.code == 2 and "cannot write the snapshot" in r.err


@pytest.mark.parametrize(
    "args, name, fmt",
    [
        pytest.param(["{d}/s.json"], "s.json", "json", id="positional-json"),
        pytest.param(["{d}/s.yml"], "s.yml", "yaml", id="positional-yml"),
        pytest.param(["--output-file", "{d}/s.yaml"], "s.yaml", "yaml", id="output-file-yaml"),
        pytest.param(["{d}/s.txt"], "s.txt", "json", id="other-extension-is-json"),
        pytest.param(["{d}/s.json", "-o", "yaml"], "s.json", "yaml", id="o-chooses-the-format"),
        pytest.param(["-o", "yaml"], None, "yaml", id="stdout-yaml"),
        pytest.param(["-"], None, "json", id="dash-is-stdout"),
    ],
)
def test_snapshot_file_and_format(api, run, tmp_path, args, name, fmt):
    argv = [a.format(d=tmp_path) for a in args]
    r = run("snapshot", *argv, "--kubeconfig", api.kubeconfig_path)
    assert r.code == 0, r.err
    text = (tmp_path / name).read_text() if name else r.out
    if name:
        assert r.out == "" and f"saved 10 objects to {tmp_path / name}" in r.err
    assert text.startswith("{") == (fmt == "json")
    doc = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    assert doc["kind"] == "List" and len(doc["items"]) == 10


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["-o", "{d}/s.json"],
            "is not a format (json, yaml); give the file as an argument (kwhatif snapshot {d}/s.json) or with --output-file",
            id="o-with-a-file-name",
        ),
        pytest.param(
            ["{d}/a.json", "--output-file", "{d}/b.json"],
            "Error: give the file either as FILE or with --output-file, not both",
            id="file-twice",
        ),
    ],
)
def test_snapshot_usage_errors(api, run, tmp_path, args, message):
    r = run("snapshot", *[a.format(d=tmp_path) for a in args], "--kubeconfig", api.kubeconfig_path)
    assert r.code == 2 and message.format(d=tmp_path) in r.err
    assert api.requests == []  # nothing read


def test_snapshot_leaves_out_pods_of_vanished_nodes(run, tmp_path):
    objs = cluster_objects() + [make_pod().name("ghost").node("gone").dict()]
    with FakeAPIServer(objs) as srv:
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        r = run("snapshot", str(tmp_path / "s.json"), "--kubeconfig", kc)
        assert r.code == 0, r.err
        assert "1 pod(s) are bound to nodes that no longer exist; they are left out" in r.err
        r = run("schedule", "--pending", "--cluster", str(tmp_path / "s.json"))
        assert r.code == 0, r.err


def test_snapshot_shows_progress_on_a_terminal(api, tmp_path):
    import os
    import pty
    import subprocess

    from tests.e2e.conftest import ROOT, kwhatif_command

    master, slave = pty.openpty()
    p = subprocess.run(
        [kwhatif_command(), "snapshot", str(tmp_path / "s.json"), "--kubeconfig", api.kubeconfig_path],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=str(ROOT),
        timeout=120,
    )
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert p.returncode == 0, err
    text = err.decode()
    assert "\rkwhatif: reading nodes: 2" in text and "\rkwhatif: reading pods: 5" in text
    assert text.rstrip().endswith("(2 Namespace, 3 Node, 5 Pod)")


def test_the_sample_cluster_gives_the_same_answers_live_and_from_its_snapshot(run, tmp_path):
    objs: list[dict] = []
    for d in yaml.safe_load_all(open("samples/cluster.yaml")):
        if d:
            objs.extend(d["items"] if d.get("kind") == "List" else [d])
    with FakeAPIServer(objs, page_size=7) as srv:
        srv.git_version = "v1.30.6"
        kc = srv.kubeconfig(str(tmp_path / "kc"))
        snap = str(tmp_path / "cluster.json")
        r = run("snapshot", snap, "--kubeconfig", kc)
        assert r.code == 0, r.err
        for args in (
            ["check", "samples/workloads/release.yaml", "samples/workloads/ml-batch.yaml"],
            ["drain", "--ignore-daemonsets", "general-a-1"],
            ["capacity", "samples/pods/web-canary.yaml"],
        ):
            live = run(*args, "--kubeconfig", kc, "-o", "json")
            saved = run(*args, "--cluster", snap, "-o", "json")
            assert saved.code == live.code, args
            assert same_answers(saved.out, live.out), args
            assert json.loads(saved.out)["schedulerVersion"] == "1.30.6"


# --- $KUBECONFIG, merged as kubectl merges it ------------------------------------------------------


@pytest.fixture
def kubeconfigs(api, tmp_path):
    """a: the fake cluster, context "shared" in team-a (current). b: a cluster of the same name that
    is unreachable, "shared" again (in default) and "b-only" in team-a (current)."""
    a = api.kubeconfig(str(tmp_path / "a"), "shared", namespace="team-a")
    doc = json.loads(open(a).read())
    doc["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:9"
    doc["contexts"] = [
        {"name": "shared", "context": {"cluster": "fake", "user": "tester"}},
        {"name": "b-only", "context": {"cluster": "fake", "user": "tester", "namespace": "team-a"}},
    ]
    doc["current-context"] = "b-only"
    doc.pop("users")
    (tmp_path / "b").write_text(json.dumps(doc))
    return {"a": a, "b": str(tmp_path / "b"), "missing": str(tmp_path / "missing")}


@pytest.mark.parametrize(
    "spec, extra, code, message",
    [
        pytest.param("a:b", [], 0, None, id="first-file-sets-cluster-context-and-current"),
        pytest.param("b:a", [], 3, "127.0.0.1:9", id="other-order-takes-b-s-cluster"),
        pytest.param("a:b", ["--context", "b-only"], 0, None, id="context-of-the-second-file"),
        pytest.param("missing::a", [], 0, None, id="missing-and-empty-entries-skipped"),
        pytest.param("missing", [], 3, "kwhatif: error: kubeconfig: no configuration found in ", id="nothing-found"),
    ],
)
def test_kubeconfig_env_is_merged_as_kubectl_merges_it(run, kubeconfigs, spec, extra, code, message):
    env = {"KUBECONFIG": ":".join(kubeconfigs[p] if p else "" for p in spec.split(":"))}
    # no --kubeconfig, no --context: $KUBECONFIG alone makes the read live
    r = run("schedule", "pod/api", *extra, "-o", "json", "--request-timeout", "5s", env=env)
    assert r.code == code, r.err
    if code == 0:
        assert sorted(results(r.out)) == ["team-a/api"]  # the context's namespace, from the merge
    else:
        assert message in r.err and "Traceback" not in r.err


@pytest.mark.parametrize("command", [["check"], ["capacity"], ["drain", "n1", "--ignore-daemonsets"]])
def test_kubeconfig_env_reaches_every_live_command(api, run, tmp_path, command):
    env = {"KUBECONFIG": api.kubeconfig_path}
    args = [*command]
    if command[0] in ("check", "capacity"):
        args.append(pod_file(tmp_path, "new", "1"))
    r = run(*args, "-o", "json", env=env)
    assert r.code in (0, 1), r.err
    assert [p for m, p in api.requests if p == "/api/v1/nodes"]


def test_cluster_files_win_over_kubeconfig_env(run, tmp_path):
    r = run(
        "schedule",
        "samples/pods/web-canary.yaml",
        "--cluster",
        "samples/cluster.yaml",
        "-o",
        "json",
        env={"KUBECONFIG": str(tmp_path / "nowhere")},
    )
    assert r.code == 0, r.err
