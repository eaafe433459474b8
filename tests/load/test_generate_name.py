"""generateName: the loader names such objects, and the names depend only on what that load read."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kwhatif.controlplane.controllers.pods import load_pods
from kwhatif.load.cluster import load_cluster

from builders import make_node, make_pod


def _generated(name: str, node: str = "") -> dict:
    d = make_pod().name(name).node(node).dict() if node else make_pod().name(name).dict()
    meta = d["metadata"]
    del meta["name"]
    meta["generateName"] = name
    return d


def _write(tmp_path: Path, name: str, items: list[dict]) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(p)


@pytest.fixture
def cluster_file(tmp_path: Path) -> str:
    return _write(
        tmp_path, "cluster.yaml", [make_node().name("n1").dict(), _generated("web-", "n1"), _generated("web-", "n1")]
    )


def test_two_independent_loads_give_the_same_names(cluster_file: str) -> None:
    first = load_cluster([cluster_file])
    second = load_cluster([cluster_file])
    assert [p.name for p in first.pods] == ["web-bbbbb", "web-bbbbc"]
    assert [p.name for p in second.pods] == ["web-bbbbb", "web-bbbbc"]


def test_manifests_read_with_a_cluster_continue_its_names(cluster_file: str, tmp_path: Path) -> None:
    manifests = _write(tmp_path, "pods.yaml", [_generated("web-"), _generated("api-")])
    for _ in range(2):  # the same answer however many times the pair is loaded
        state = load_cluster([cluster_file])
        pods, _ = load_pods([manifests], state)
        assert [p.name for p in pods] == ["web-bbbbd", "api-bbbbb"]
