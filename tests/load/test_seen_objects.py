"""A load tells each object read twice (kind, namespace and name) from objects that share a name
only: pods are found by name, then namespace, in a dump's typed runs and in any other input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster

from builders import make_node, make_pod


def _pod(name: str, ns: str) -> dict[str, object]:
    p = make_pod().name(name).namespace(ns).req(cpu="100m").set("spec.nodeName", "n1").dict()
    p["spec"]["priority"] = 0
    return p


def _dump(path: Path, items: list[dict[str, object]]) -> str:
    body = [make_node().name("n1").dict(), *[_pod(f"filler-{i}", "f") for i in range(50)], *items]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": body}, indent=4))
    return str(path)


def test_one_name_in_several_namespaces_is_no_duplicate(tmp_path):
    path = _dump(tmp_path / "d.json", [_pod("web", "a"), _pod("web", "b"), _pod("web", "c")])
    st = load_cluster([path])
    assert [p.key for p in st.pods if p.name == "web"] == ["a/web", "b/web", "c/web"]


@pytest.mark.parametrize("again", [0, 1, 2])
def test_a_pod_read_twice_names_where_it_was_first(tmp_path, again):
    """The first of the name, a later one, and after the name's entry holds several namespaces."""
    items = [_pod("web", "a"), _pod("web", "b"), _pod("web", "c"), _pod("web", "abc"[again])]
    path = _dump(tmp_path / "d.json", items)
    with pytest.raises(InputError) as ei:
        load_cluster([path])
    ns = "abc"[again]
    assert str(ei.value) == (
        f"{path} (items[54]): Pod {ns}/web: duplicate object: also defined in {path} (items[{51 + again}])"
    )


def test_a_pod_of_a_yaml_file_read_again_in_a_dump(tmp_path):
    first = tmp_path / "a.yaml"
    first.write_text(yaml.safe_dump(_pod("web", "a")))
    path = _dump(tmp_path / "d.json", [_pod("web", "b"), _pod("web", "a")])
    with pytest.raises(InputError) as ei:
        load_cluster([str(first), path])
    assert str(ei.value) == f"{path} (items[52]): Pod a/web: duplicate object: also defined in {first}"
