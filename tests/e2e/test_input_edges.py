"""Edge cases of input and options, end to end: every bad input is one line and exit 2, and
what the API server or kubectl accepts is accepted."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import ROOT

CLUSTER = "samples/cluster.yaml"
FIT = "samples/pods/web-canary.yaml"

POD_HEAD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: c, image: x}]\n"
)


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith("kwhatif: note:")]


def deep_flow(depth: int) -> str:
    return POD_HEAD + "  extra: " + "{a: " * depth + "1" + "}" * depth + "\n"


def deep_block(depth: int) -> str:
    lines = [" " * (i + 4) + "a:" for i in range(depth)]
    return POD_HEAD + "  extra:\n" + "\n".join(lines) + "\n" + " " * (depth + 4) + "b\n"


def deep_sequence(depth: int) -> str:
    return POD_HEAD + "  extra:\n   " + "- " * depth + "x\n"


@pytest.mark.parametrize(
    "text,where",
    [
        pytest.param(deep_flow(30000), "line 6 column 40002", id="flow-mappings"),
        pytest.param(deep_block(12000), "line 10005 column 10003", id="block-mappings"),
        pytest.param(deep_sequence(30000), "line 7 column 20000", id="compact-sequences"),
    ],
)
@pytest.mark.parametrize("role", ["pod", "cluster"])
def test_deep_yaml_is_refused_not_a_crash(run, tmp_path, text, where, role):
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    if role == "cluster":
        r = run("schedule", FIT, "--cluster", str(path))
    else:
        r = run("schedule", str(path), "--cluster", CLUSTER)
    assert r.code == 2, r.err
    # kwhatif refuses more than 10000 levels (go-yaml's limit) before the C loader could overflow
    # its stack; PyYAML 6.0.4 and later refuse more than 1000 levels themselves, first.
    (line,) = errors(r.err)
    assert line in (
        f"kwhatif: error: {path}: invalid YAML at {where}: nested too deeply (more than 10000 levels)",
    ) or re.fullmatch(
        rf"kwhatif: error: {re.escape(str(path))}: invalid YAML at line \d+ column \d+: exceeded maximum nesting depth",
        line,
    ), line


def test_deep_yaml_config_is_refused(run, tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nx: "
        + "[" * 30000
        + "]" * 30000
        + "\n"
    )
    r = run("schedule", FIT, "--cluster", CLUSTER, "--config", str(path))
    assert r.code == 2, r.err
    assert errors(r.err)[0].endswith(
        (
            "invalid YAML at line 3 column 10003: nested too deeply (more than 10000 levels)",
            "exceeded maximum nesting depth",
        )
    ), r.err
    assert len(errors(r.err)) == 1


def test_nesting_below_the_limit_is_read(run, tmp_path):
    path = tmp_path / "deep.yaml"
    # below PyYAML 6.0.4's own limit of 1000 too; in managedFields' fieldsV1, a free-form object
    # that strict field validation leaves alone (an unknown field would be refused first)
    deep = "{a: " * 900 + "1" + "}" * 900
    path.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\n  managedFields:\n"
        f"  - {{manager: m, operation: Apply, apiVersion: v1, fieldsType: FieldsV1, fieldsV1: {deep}}}\n"
        "spec:\n  containers: [{name: c, image: x}]\n"
    )
    r = run("schedule", str(path), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["results"][0]["status"] == "Scheduled"


FLOW_POD = (
    "{apiVersion: v1, kind: Pod, metadata: {name: flow, namespace: shop}, spec: {containers: [{name: c, image: x}]}}\n"
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(FLOW_POD, id="flow-mapping"),
        pytest.param("[" + FLOW_POD.strip() + "]\n", id="flow-sequence"),
        pytest.param(FLOW_POD + "---\n" + FLOW_POD.replace("flow,", "flow-2,"), id="two-documents"),
        pytest.param(
            '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "flow", "namespace": "shop"},'
            ' "spec": {"containers": [{"name": "c", "image": "x",}]}}\n',
            id="json-with-a-trailing-comma",
        ),
    ],
)
def test_yaml_manifest_starting_with_a_brace_is_read_as_yaml(run, tmp_path, text):
    path = tmp_path / "flow.yaml"
    path.write_text(text)
    r = run("schedule", str(path), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    names = [res["pod"]["name"] for res in json.loads(r.out)["results"]]
    assert names == (["flow", "flow-2"] if "flow-2" in text else ["flow"])


def test_cluster_file_starting_with_a_brace_is_read_as_yaml(run, tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(
        "{apiVersion: v1, kind: List, items: [\n"
        "  {apiVersion: v1, kind: Node, metadata: {name: n1},"
        " status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}]}\n"
    )
    r = run("schedule", FIT, "--cluster", str(path), "-o", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["results"][0]["node"] == "n1"


def test_neither_json_nor_yaml_reports_the_json_error(run, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"apiVersion": "v1", "kind": "Pod" "metadata": {}}\n')
    r = run("schedule", str(path), "--cluster", CLUSTER)
    assert r.code == 2
    assert errors(r.err) == [
        f"kwhatif: error: {path}: invalid JSON at line 1 column 36: Expecting ',' or '}}' delimiter"
    ]


def test_config_starting_with_a_brace_is_json_as_upstream_decodes_it(run, tmp_path):
    # kube-scheduler's configuration decoder takes a file whose first character is `{` for JSON,
    # so a flow-style YAML configuration fails there (unlike manifests, which kubectl reads as YAML)
    path = tmp_path / "config.yaml"
    path.write_text("{apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration}\n")
    r = run("schedule", FIT, "--cluster", CLUSTER, "--config", str(path))
    assert r.code == 2
    assert errors(r.err) == [
        f"kwhatif: error: {path}: invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes"
    ]


def test_capacity_min_above_max_is_a_usage_error(run):
    r = run("capacity", FIT, "--cluster", CLUSTER, "--max", "5", "--min", "10")
    assert r.code == 2
    assert r.out == ""
    assert r.err.splitlines()[-1] == (
        "Error: --min 10 is more than --max 5: at most --max copies are counted, so the gate could never pass"
    )
    assert run("capacity", FIT, "--cluster", CLUSTER, "--max", "5", "--min", "5").code == 0
    # without --max, counting goes on as far as --min asks
    r = run("capacity", FIT, "--cluster", CLUSTER, "--min", "1200", "-o", "json")
    assert r.code == 1
    assert json.loads(r.out)["stoppedBy"] != "limit"


def test_pods_bound_to_nodes_missing_from_the_dump_are_left_out_with_a_note(run, tmp_path):
    ghost = tmp_path / "ghost.yaml"
    ghost.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: orphan, namespace: shop}\n"
        "spec:\n  nodeName: ghost\n  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n"
    )
    r = run("schedule", FIT, "--cluster", CLUSTER, "--cluster", str(ghost), "-o", "json")
    assert r.code == 0, r.err
    assert "kwhatif: note: 1 pod(s) are bound to nodes that are not in the cluster state; they are left out\n" in r.err
    r = run("drain", "--ignore-daemonsets", "general-a-1", "--cluster", CLUSTER, "--cluster", str(ghost), "-o", "json")
    assert "shop/orphan" not in {f"{p['namespace']}/{p['name']}" for p in json.loads(r.out)["pods"]}


GHOST_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ghost}\n"
    "spec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n"
)
GHOST_DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ghost}\nspec:\n  replicas: 2\n"
    "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
    "    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]}\n"
)


def test_schedule_refuses_a_pod_of_a_namespace_the_cluster_does_not_have(run, tmp_path):
    # samples/cluster.yaml lists its Namespaces: NamespaceLifecycle admission refuses the pod
    pod = tmp_path / "pod.yaml"
    pod.write_text(GHOST_POD)
    r = run("schedule", str(pod), "--cluster", CLUSTER)
    assert r.code == 2
    assert errors(r.err) == [f'kwhatif: error: {pod}: Pod ghost/p: namespaces "ghost" not found']


def test_check_refuses_workloads_of_a_namespace_the_cluster_does_not_have(run, tmp_path):
    m = tmp_path / "m.yaml"
    m.write_text(GHOST_POD + "---\n" + GHOST_DEPLOYMENT)
    r = run("check", str(m), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 1, r.err
    doc = json.loads(r.out)
    got = {(w["kind"], w["verdict"], w["refused"], w["placed"], w["message"]) for w in doc["workloads"]}
    assert got == {
        ("Pod", "refused by NamespaceLifecycle", 1, 0, 'namespaces "ghost" not found'),
        ("Deployment", "refused by NamespaceLifecycle", 2, 0, 'namespaces "ghost" not found'),
    }
    # with the Namespace in the manifests, it is created first
    m.write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ghost}\n---\n" + GHOST_POD + "---\n" + GHOST_DEPLOYMENT
    )
    r = run("check", str(m), "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.out
    assert {w["verdict"] for w in json.loads(r.out)["workloads"]} == {"fits"}


def test_a_cluster_state_without_namespaces_cannot_confirm_a_namespace(run, tmp_path):
    # schedule notes it; check's verdict is unknown (exit 0, 1 with --strict)
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
    )
    pod = tmp_path / "pod.yaml"
    pod.write_text(GHOST_POD)
    note = (
        "kwhatif: note: the cluster state holds no Namespace objects: namespace(s) ghost are taken to exist "
        "(the API server refuses pods of a namespace that does not)"
    )
    r = run("schedule", str(pod), "--cluster", str(cluster))
    assert r.code == 0, r.err
    assert note in r.err.splitlines()
    r = run("check", str(pod), "--cluster", str(cluster), "-o", "json")
    assert r.code == 0, r.err
    (w,) = json.loads(r.out)["workloads"]
    assert (w["verdict"], w["dominantReason"]) == ("unknown", "the cluster state has no Namespaces")
    assert w["message"] == (
        "cannot tell: namespace ghost: the cluster state holds no Namespace objects and no pod of it runs there, so "
        "whether the namespace exists is unknown (the API server refuses objects of one that does not): add them with "
        "--cluster namespaces.yaml (`kubectl get namespaces -o yaml > namespaces.yaml`), or save the whole cluster "
        "state with `kwhatif snapshot`"
    )
    assert run("check", str(pod), "--cluster", str(cluster), "--strict").code == 1


@pytest.mark.parametrize(
    "text,message",
    [
        pytest.param(
            "garbage\n",
            "not a kubeconfig: the file holds a str, not a mapping (apiVersion: v1, kind: Config)",
            id="scalar",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Config\nclusters: x\n",
            "not a kubeconfig: clusters must be a list, not a str",
            id="clusters-not-a-list",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Config\ncontexts: [x]\n",
            "not a kubeconfig: contexts[0] must be a mapping with name and context",
            id="context-not-a-mapping",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Config\nusers: [{name: u, user: 1}]\n",
            "not a kubeconfig: users[0].user must be a mapping",
            id="user-not-a-mapping",
        ),
        pytest.param(
            "apiVersion: v1\nkind: [\n",
            "invalid YAML at line 3 column 1: did not find expected node content",
            id="bad-yaml",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Config\nclusters: [{name: a, cluster: {server: 1}}]\n"
            "contexts: [{name: c, context: {cluster: a, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n",
            "not a valid kubeconfig ('int' object has no attribute 'rstrip')",
            id="server-not-a-string",
        ),
    ],
)
@pytest.mark.parametrize("command", ["snapshot", "schedule"])
def test_malformed_kubeconfig_is_bad_input_naming_the_file(run, tmp_path, text, message, command):
    kc = tmp_path / "kubeconfig"
    kc.write_text(text)
    args = ["snapshot"] if command == "snapshot" else ["schedule", "--pending"]
    r = run(*args, "--kubeconfig", str(kc))
    assert r.code == 2, r.err
    assert errors(r.err) == [f"kwhatif: error: {kc}: {message}"]


def test_a_nul_byte_is_one_line_with_its_position(run, tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\x00b\n")
    r = run("schedule", str(pod), "--cluster", CLUSTER)
    assert r.code == 2
    assert errors(r.err) == [
        f"kwhatif: error: {pod}: invalid YAML at line 4 column 10: unacceptable character #x0000: control characters are not allowed"
    ]
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\x00\n")
    r = run("schedule", FIT, "--cluster", CLUSTER, "--config", str(config))
    assert r.code == 2
    assert errors(r.err) == [
        f"kwhatif: error: {config}: invalid YAML at line 2 column 33: unacceptable character #x0000: control characters are not allowed"
    ]


def test_github_annotations_of_standard_input_name_no_file(run, tmp_path):
    """The same annotations, without the file and line of a file that does not exist (a workflow
    shows them on the run)."""
    manifests = tmp_path / "m.yaml"
    manifests.write_text(
        "# comment\n"
        + (ROOT / "samples/workloads/ml-batch.yaml").read_text()
        + "---\n"
        + GHOST_POD.replace("ghost", "shop")
    )
    from_file = run("check", str(manifests), "--cluster", CLUSTER, "-o", "github")
    from_stdin = run("check", "-", "--cluster", CLUSTER, "-o", "github", stdin=manifests.read_text())
    assert from_file.code == from_stdin.code == 1
    lines = [ln for ln in from_file.out.splitlines() if ln.startswith("::error")]
    assert lines and all(f"file={manifests},line=" in ln for ln in lines)
    assert from_stdin.out == re.sub(rf"file={re.escape(str(manifests))},line=\d+,", "", from_file.out)
    assert "<stdin>" not in from_stdin.out and "line=" not in from_stdin.out


@pytest.mark.parametrize(
    "spec,metadata,message",
    [
        pytest.param(
            "containers: [{name: c, image: x}]",
            "{name: 123, namespace: shop}",
            "Pod: metadata.name: expected a string, got int 123",
            id="name-a-number",
        ),
        pytest.param(
            "containers: [{name: c, image: x, resources: {requests: {cpu: true}}}]",
            "{name: p, namespace: shop}",
            "Pod shop/p: spec.containers[0].resources.requests[cpu]: invalid quantity true: expected a string or a number",
            id="quantity-a-boolean",
        ),
        pytest.param(
            "containers: [{name: c, image: x, resources: {requests: {cpu: [1]}}}]",
            "{name: p, namespace: shop}",
            "Pod shop/p: spec.containers[0].resources.requests[cpu]: invalid quantity an array: expected a string or a number",
            id="quantity-array",
        ),
        pytest.param(
            "containers: [null]",
            "{name: p, namespace: shop}",
            "Pod shop/p: spec.containers[0]: expected an object, got null",
            id="container-null",
        ),
    ],
)
def test_field_errors_say_what_the_value_is(run, tmp_path, spec, metadata, message):
    pod = tmp_path / "pod.yaml"
    pod.write_text(f"apiVersion: v1\nkind: Pod\nmetadata: {metadata}\nspec:\n  {spec}\n")
    r = run("schedule", str(pod), "--cluster", CLUSTER)
    assert r.code == 2
    assert errors(r.err) == [f"kwhatif: error: {pod}: {message}"]


def test_a_key_given_twice_in_yaml_is_refused(run, tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nmetadata: {name: q, namespace: shop}\n"
        "spec:\n  containers: [{name: c, image: x}]\n"
    )
    r = run("schedule", str(pod), "--cluster", CLUSTER)
    assert r.code == 2
    assert errors(r.err) == [
        f'kwhatif: error: {pod}: invalid YAML at line 4 column 1: mapping key "metadata" already defined at line 3'
    ]


@pytest.mark.parametrize(
    "size,message",
    [
        pytest.param(
            "abc",
            "Error: Invalid value for '--max-input-size': 'abc' is not a size such as 500M or 2G",
            id="not-a-size",
        ),
        pytest.param(
            "0",
            "Error: Invalid value for '--max-input-size': 0 would refuse every input; give a size such as 500M or 2G",
            id="zero",
        ),
    ],
)
def test_max_input_size_errors_name_the_option(run, size, message):
    r = run("schedule", FIT, "--cluster", CLUSTER, "--max-input-size", size)
    assert r.code == 2
    assert r.err.splitlines()[-1] == message


def test_yes_without_apply_is_a_usage_error(run):
    r = run("schedule", FIT, "--cluster", CLUSTER, "--yes")
    assert r.code == 2
    assert (
        r.err.splitlines()[-1] == "Error: --yes answers the confirmation of --apply: without --apply nothing is bound"
    )


@pytest.mark.parametrize(
    "args,note",
    [
        pytest.param([FIT], "kwhatif: note: -l app=nothing: no pod matches the selector", id="manifests"),
        pytest.param(["--pending"], "kwhatif: note: -l app=nothing: no pending pod matches the selector", id="pending"),
    ],
)
def test_a_selector_that_matches_nothing_is_noted(run, args, note):
    r = run("schedule", *args, "--cluster", CLUSTER, "-l", "app=nothing", "-o", "json")
    assert r.code == 0, r.err
    assert note in r.err.splitlines()
    assert json.loads(r.out)["results"] == []


def test_ignore_node_name_takes_a_bound_cluster_pod_off_its_node(run, tmp_path):
    # postgres-0 (4 cpu, 64Gi) is bound to memory-c-1, the only node with room for it: it can
    # land there again only if it left that node first
    note = "--ignore-node-name: taken off node memory-c-1, where it is bound, and scheduled anew"
    r = run("schedule", "data/postgres-0", "--ignore-node-name", "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    (res,) = json.loads(r.out)["results"]
    assert (res["status"], res["node"]) == ("Scheduled", "memory-c-1")
    assert note in res["notes"]
    # without the flag it stays an error
    r = run("schedule", "data/postgres-0", "--cluster", CLUSTER)
    assert r.code == 2 and "is already bound to node memory-c-1" in r.err
    # an exported manifest of it (spec.nodeName kept) is the same pod
    import yaml

    items = yaml.safe_load((ROOT / CLUSTER).read_text())["items"]
    exported = next(i for i in items if i["kind"] == "Pod" and i["metadata"]["name"] == "postgres-0")
    manifest = tmp_path / "postgres-0.yaml"
    manifest.write_text(yaml.safe_dump({"apiVersion": "v1", **exported}))
    r = run("schedule", str(manifest), "--ignore-node-name", "--cluster", CLUSTER, "-o", "json")
    assert r.code == 0, r.err
    (res,) = json.loads(r.out)["results"]
    assert (res["status"], res["node"]) == ("Scheduled", "memory-c-1")
    assert note in res["notes"]
