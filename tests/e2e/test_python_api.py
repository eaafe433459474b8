"""The Python API, used as a notebook would (public names only): its reports' to_dict() is the
document the installed command prints with -o json, forks leave the original as it was, and
errors are the command line's."""

from __future__ import annotations

import doctest
import json
import textwrap

import pytest
import yaml

import kwhatif

from .conftest import ROOT, SAMPLES

CLUSTER = str(SAMPLES / "cluster.yaml")
WEB = str(SAMPLES / "pods" / "web-canary.yaml")
GPU = str(SAMPLES / "pods" / "gpu-inference.yaml")
FRAUD = str(SAMPLES / "pods" / "fraud-model.yaml")
RELEASE = str(SAMPLES / "workloads" / "release.yaml")

BIG_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "big", "labels": {"kubernetes.io/hostname": "big", "topology.kubernetes.io/zone": "zone-a"}},
    "status": {
        "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
        "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
    },
}


@pytest.fixture(scope="module")
def cluster() -> kwhatif.Cluster:
    return kwhatif.load_cluster(CLUSTER)


def cli_json(run, *args: str) -> tuple[int, dict]:
    r = run(*args, "--cluster", CLUSTER, "-o", "json")
    assert r.out, r.err
    return r.code, json.loads(r.out)


@pytest.mark.parametrize(
    "call,args",
    [
        pytest.param(lambda c: c.schedule(WEB), ["schedule", WEB], id="schedule-fits"),
        pytest.param(lambda c: c.schedule([GPU]), ["schedule", GPU], id="schedule-does-not-fit"),
        pytest.param(lambda c: c.schedule(FRAUD), ["schedule", FRAUD], id="schedule-preempts"),
        pytest.param(
            lambda c: c.schedule(FRAUD, preemption=False), ["schedule", FRAUD, "--no-preemption"], id="no-preemption"
        ),
        pytest.param(
            lambda c: c.schedule(WEB, scheduler_version="1.34", feature_gates={"PodLevelResources": False}),
            ["schedule", WEB, "--scheduler-version", "1.34", "--feature-gates", "PodLevelResources=false"],
            id="schedule-release-and-gates",
        ),
        pytest.param(
            lambda c: c.schedule("data/postgres-0", ignore_node_name=True, scheduler_version="1.36"),
            ["schedule", "data/postgres-0", "--ignore-node-name", "--scheduler-version", "1.36"],
            id="schedule-a-pod-of-the-cluster-anew",
        ),
        pytest.param(lambda c: c.check(RELEASE), ["check", RELEASE], id="check"),
        pytest.param(lambda c: c.check(RELEASE, surge=True), ["check", RELEASE, "--surge"], id="check-surge"),
        pytest.param(lambda c: c.capacity(WEB), ["capacity", WEB], id="capacity"),
        pytest.param(lambda c: c.capacity(WEB, minimum=200), ["capacity", WEB, "--min", "200"], id="capacity-min"),
        pytest.param(
            lambda c: c.drain(["general-a-1"], ignore_daemonsets=True),
            ["drain", "general-a-1", "--ignore-daemonsets"],
            id="drain",
        ),
        pytest.param(lambda c: c.drain("general-a-1"), ["drain", "general-a-1"], id="drain-refused"),
    ],
)
def test_to_dict_is_the_commands_json_document(run, cluster, call, args):
    report = call(cluster)
    code, doc = cli_json(run, *args)
    assert report.to_dict() == doc
    assert int(report.exit_code) == code


def test_diff_is_the_commands_json_document_and_leaves_the_cluster_as_it_was(run, cluster):
    nodes, pods, pending = cluster.nodes, cluster.pods, cluster.pending_pods
    before = cluster.schedule(WEB).to_dict()
    report = cluster.diff(WEB, scheduler_version="1.33", to_scheduler_version="1.36")
    code, doc = cli_json(run, "diff", WEB, "--scheduler-version", "1.33", "--to-scheduler-version", "1.36")
    assert doc["kind"] == "DiffReport" and doc["pods"]
    assert report.to_dict() == doc
    assert int(report.exit_code) == code
    assert isinstance(report, kwhatif.DiffReport)
    # the table too
    r = run("diff", WEB, "--cluster", CLUSTER, "--scheduler-version", "1.33", "--to-scheduler-version", "1.36")
    assert kwhatif.render(report) == r.out
    assert cluster.nodes == nodes and cluster.pods == pods and cluster.pending_pods == pending
    assert cluster.schedule(WEB).to_dict() == before


def test_text_and_dicts_are_read_as_the_file_is(cluster):
    text = (SAMPLES / "pods" / "web-canary.yaml").read_text()
    from_path = cluster.schedule(WEB).to_dict()
    assert cluster.schedule(text).to_dict() == from_path
    assert cluster.schedule([yaml.safe_load(text)]).to_dict() == from_path


def test_render_writes_the_commands_table(run, cluster):
    r = run("schedule", WEB, "--cluster", CLUSTER)
    assert kwhatif.render(cluster.schedule(WEB)) == r.out
    r = run("check", RELEASE, "--cluster", CLUSTER, "-o", "markdown")
    assert kwhatif.render(cluster.check(RELEASE), "markdown") == r.out


def test_a_fork_is_changed_the_original_never(run, cluster):
    before = cluster.capacity(WEB).to_dict()
    nodes, pods = cluster.nodes, cluster.pods
    fork = cluster.fork().add_nodes(BIG_NODE, count=2).remove_nodes(["general-a-1"])
    assert fork.nodes == tuple(sorted({*nodes, "big-1", "big-2"} - {"general-a-1"}))
    assert cluster.nodes == nodes and cluster.pods == pods
    grown = fork.capacity(WEB).to_dict()
    assert grown["fits"] > before["fits"]
    # the same what-if as the command's --add-node and --without-node
    node_file = ROOT / "tests" / "e2e" / "big-node.yaml"
    try:
        node_file.write_text(yaml.safe_dump(BIG_NODE))
        code, doc = cli_json(run, "capacity", WEB, "--add-node", f"{node_file}:2", "--without-node", "general-a-1")
    finally:
        node_file.unlink()
    assert grown == doc
    # asking never changes a cluster either
    cluster.schedule(FRAUD)
    cluster.drain("general-a-1", ignore_daemonsets=True)
    assert cluster.capacity(WEB).to_dict() == before
    assert cluster.nodes == nodes and cluster.pods == pods


def test_apply_places_pods_and_adds_objects(cluster):
    fits = cluster.capacity(WEB).to_dict()["perNode"]["general-c-2"]
    hog = yaml.safe_load((SAMPLES / "pods" / "web-canary.yaml").read_text())
    hog["metadata"]["name"] = "hog"
    hog["spec"]["nodeName"] = "general-c-2"
    hog["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    fork = cluster.fork().apply([hog])
    assert "shop/hog" in fork.pods and "shop/hog" not in cluster.pods
    assert fork.capacity(WEB).to_dict()["perNode"].get("general-c-2", 0) < fits
    pending = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: waiting, namespace: shop}
        spec:
          containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
        """
    )
    fork.apply(pending)
    assert "shop/waiting" in fork.pending_pods
    # a node, and a PriorityClass a pod of the same call names
    urgent = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "urgent"},
        "value": 1000000,
    }
    pod = yaml.safe_load(pending)
    pod["metadata"]["name"] = "first"
    pod["spec"]["priorityClassName"] = "urgent"
    pod["spec"]["nodeName"] = "big"
    fork.apply([BIG_NODE, urgent, pod])
    assert "big" in fork.nodes and "big" not in cluster.nodes
    assert "shop/first" in fork.pods
    with pytest.raises(
        kwhatif.InputError, match='<object 1>: Pod shop/first: spec.nodeName: node "nowhere" is not in the cluster'
    ):
        fork.apply({**pod, "spec": {**pod["spec"], "nodeName": "nowhere"}})
    with pytest.raises(kwhatif.InputError, match="remove_nodes: no node named 'nope' in the cluster"):
        fork.remove_nodes("nope")
    report = fork.schedule(pending=True, namespace="shop").to_dict()
    assert [r["pod"] for r in report["results"]] == [{"namespace": "shop", "name": "waiting"}]
    assert report["summary"]["scheduled"] == 1


@pytest.mark.parametrize(
    "call,error,message",
    [
        pytest.param(
            lambda c: c.drain("no-such-node"), kwhatif.InputError, "no node named 'no-such-node'", id="unknown-node"
        ),
        pytest.param(lambda c: c.schedule(WEB, scheduler_version="1.9"), kwhatif.ConfigError, "1.9", id="bad-release"),
        pytest.param(lambda c: c.schedule("missing.yaml"), kwhatif.InputError, "missing.yaml", id="missing-file"),
        pytest.param(
            lambda c: c.schedule("kind: Pod\nmetadata: {name: [x]}\n"), kwhatif.InputError, "<text 1>", id="bad-text"
        ),
        pytest.param(lambda c: c.schedule(WEB, profile="nope"), kwhatif.InputError, "no profile named", id="profile"),
        pytest.param(lambda c: c.schedule(), kwhatif.InputError, "nothing to schedule", id="nothing"),
        pytest.param(
            lambda c: c.schedule("pod/postgres-0", namespace="data"),
            kwhatif.InputError,
            "pod/postgres-0: pod data/postgres-0 is already bound to node memory-c-1",
            id="bound-pod",
        ),
    ],
)
def test_errors_are_the_command_lines(cluster, call, error, message):
    with pytest.raises(error) as e:
        call(cluster)
    assert message in str(e.value)
    assert e.value.exit_code == kwhatif.ExitCode.BAD_INPUT


def test_load_cluster_errors():
    with pytest.raises(kwhatif.InputError, match="no nodes"):
        kwhatif.load_cluster(WEB)
    with pytest.raises(kwhatif.InputError, match="not both"):
        kwhatif.load_cluster(CLUSTER, context="prod")
    # text and dicts make a cluster too
    text = (SAMPLES / "cluster.yaml").read_text()
    assert kwhatif.load_cluster(text).nodes == kwhatif.load_cluster(CLUSTER).nodes


def test_the_package_is_typed_and_lists_its_public_names():
    import kwhatif as k

    assert (ROOT / "kwhatif" / "py.typed").exists()
    for name in k.__all__:
        assert getattr(k, name) is not None
    with pytest.raises(AttributeError):
        k.no_such_name  # noqa: B018


def test_the_api_page_examples_run(monkeypatch):
    """docs/api.md's examples, as a notebook in the repository's root runs them."""
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(
        str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted >= 20
    assert result.failed == 0


BIN_PACKING = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {"schedulerName": "default-scheduler"},
        {
            "schedulerName": "bin-packing",
            "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
        },
    ],
}


def test_a_configuration_as_a_dict_text_or_file_is_the_commands_config(run, cluster, tmp_path):
    path = tmp_path / "sched.yaml"
    path.write_text(yaml.safe_dump(BIN_PACKING))
    code, doc = cli_json(run, "schedule", WEB, "--config", str(path), "--profile", "bin-packing")
    assert doc["profile"] == "bin-packing"
    for config in (BIN_PACKING, path.read_text(), str(path)):
        assert cluster.schedule(WEB, config=config, profile="bin-packing").to_dict() == doc
    # the profile changes the answer
    assert cluster.schedule(WEB).to_dict()["results"][0]["node"] != doc["results"][0]["node"]
