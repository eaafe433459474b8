"""--without-node and --add-node: what-if edits of the cluster itself."""

from __future__ import annotations

import json

import pytest
import yaml

from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster
from kwhatif.load.edits import add_nodes, remove_nodes

from builders import make_node


def test_remove_nodes_takes_their_pods():
    state = load_cluster(["samples/cluster.yaml"])
    before = len(state.pods)
    on_node = [p.key for p in state.pods if p.node_name == "general-b-2"]
    removed = remove_nodes(state, ["general-b-2"])
    assert sorted(removed) == sorted(on_node)
    assert "general-b-2" not in state.nodes
    assert len(state.pods) == before - len(on_node)
    with pytest.raises(InputError, match="no node named 'nope'"):
        remove_nodes(state, ["nope"])


def test_add_node_clones(tmp_path):
    state = load_cluster(["samples/cluster.yaml"])
    tmpl = tmp_path / "node.yaml"
    tmpl.write_text(
        yaml.safe_dump(
            make_node().name("big").capacity(cpu="64", memory="256Gi", pods="110").label("pool", "new").dict()
        )
    )
    added = add_nodes(state, [f"{tmpl}:3", str(tmpl)])
    assert added == ["big-1", "big-2", "big-3", "big-4"]
    node = state.nodes["big-2"]
    assert node.labels["kubernetes.io/hostname"] == "big-2"
    assert node.labels["pool"] == "new"
    assert node.allocatable.milli_cpu == 64000
    assert list(state.nodes) == sorted(state.nodes)


def test_add_node_errors(tmp_path):
    state = load_cluster(["samples/cluster.yaml"])
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump_all([make_node().name("a").dict(), make_node().name("b").dict()]))
    with pytest.raises(InputError, match="expected exactly one Node, found 2"):
        add_nodes(state, [str(two)])
    with pytest.raises(InputError, match="count must be at least 1"):
        add_nodes(state, [f"{two}:0"])


@pytest.mark.parametrize(
    "name,problem",
    [
        # "<name>-1" is too long for the hostname label (63 characters), whose value is the name
        pytest.param("n" * 62, "must be no more than 63 characters", id="hostname-label-too-long"),
        # and too long for a node name (253)
        pytest.param("n." + "n" * 250, "must be no more than 253 characters", id="name-too-long"),
    ],
)
def test_add_node_clone_names_must_be_valid(tmp_path, name, problem):
    state = load_cluster(["samples/cluster.yaml"])
    tmpl = tmp_path / "node.yaml"
    body = make_node().name(name).capacity(cpu="4", memory="8Gi", pods="110").dict()
    body["metadata"]["labels"] = {}  # the template itself is a valid node
    tmpl.write_text(yaml.safe_dump(body))
    with pytest.raises(InputError) as ei:
        add_nodes(state, [str(tmpl)])
    assert ei.value.field == "--add-node"
    assert f"clone name '{name}-1' is not a valid node name and hostname label: {problem}" in str(ei.value)
    assert f"{name}-1" not in state.nodes


def test_cli_without_and_add_node(run_cli, tmp_path):
    tmpl = tmp_path / "node.yaml"
    tmpl.write_text(yaml.safe_dump(make_node().name("huge").capacity(cpu="64", memory="512Gi", pods="110").dict()))
    code, out = run_cli(
        "schedule", "samples/pods/analytics-big.yaml", "--cluster", "samples/cluster.yaml", "-o", "json"
    )
    assert code == 1
    # a 512Gi node in zone a: the pod's nodeSelector wants eu-west-1a
    tmpl.write_text(
        yaml.safe_dump(
            make_node()
            .name("huge")
            .capacity(cpu="64", memory="512Gi", pods="110")
            .label("topology.kubernetes.io/zone", "eu-west-1a")
            .dict()
        )
    )
    code, out = run_cli(
        "schedule",
        "samples/pods/analytics-big.yaml",
        "--cluster",
        "samples/cluster.yaml",
        "--add-node",
        f"{tmpl}:2",
        "-o",
        "json",
    )
    res = json.loads(out)["results"][0]
    assert code == 0 and res["node"] == "huge-1"
    code, out = run_cli(
        "schedule",
        "samples/pods/web-canary.yaml",
        "--cluster",
        "samples/cluster.yaml",
        "--without-node",
        "general-c-2",
        "-o",
        "json",
    )
    res = json.loads(out)["results"][0]
    assert code == 0
    assert "general-c-2" not in [n["name"] for n in res["nodes"]]
