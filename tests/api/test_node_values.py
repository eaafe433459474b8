"""A node keeps what kwhatif reads of it, once: equal resource lists are one dict, the well-known
label keys and values and the image names one string across nodes, and only the annotations
something reads (a 5,000-node dump held every node's annotations and lists of its own)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from kwhatif.api import parse
from kwhatif.errors import FieldError, InputError
from kwhatif.load.cluster import load_cluster

from builders import make_node, make_pod

SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"


def _node(name: str, cpu: str = "4", capacity_cpu: str = "4") -> dict[str, object]:
    d = make_node().name(name).labels(**{"topology.kubernetes.io/zone": "z1"}).image(100, "reg/app:v1").dict()
    d["status"] = {
        **d["status"],
        "allocatable": {"cpu": cpu, "memory": "8Gi"},
        "capacity": {"cpu": capacity_cpu, "memory": "8Gi"},
    }
    # JSON-decoded, as a dump's strings are: no two nodes share a string object
    return json.loads(json.dumps(d))


def test_equal_resource_lists_are_one_dict():
    a, b = parse.node(_node("a")), parse.node(_node("b"))
    assert a.allocatable_list is b.allocatable_list
    assert a.capacity_list is b.capacity_list
    assert dict(a.capacity_list) == {"cpu": Fraction(4), "memory": Fraction(8 << 30)}


def test_different_resource_lists_are_told_apart():
    a, b = parse.node(_node("a")), parse.node(_node("b", cpu="3", capacity_cpu="3500m"))
    assert a.allocatable_list is not b.allocatable_list
    assert b.allocatable_list["cpu"] == 3 and b.capacity_list["cpu"] == Fraction(7, 2)
    assert a.allocatable.milli_cpu == 4000 and b.allocatable.milli_cpu == 3000


def test_a_node_without_capacity_reports_its_allocatable():
    d = _node("a")
    del d["status"]["capacity"]  # type: ignore[attr-defined]
    n = parse.node(d)
    assert n.capacity_list is n.allocatable_list


def test_label_strings_are_kept_once():
    a, b = parse.node(_node("node-a")), parse.node(_node("node-b"))
    assert dict(a.labels) == {"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "z1"}
    (ka, za), (kb, zb) = a.labels.items(), b.labels.items()
    assert ka[0] is kb[0] and za[0] is zb[0] and za[1] is zb[1]
    assert a.labels["kubernetes.io/hostname"] is a.name
    assert a.images[0].names[0] is b.images[0].names[0]
    assert a.images == b.images


def test_only_the_annotations_kwhatif_reads_are_kept():
    d = _node("a")
    d["metadata"]["annotations"] = {  # type: ignore[index]
        "node.alpha.kubernetes.io/ttl": "0",
        SCALE_DOWN_DISABLED: "true",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    }
    assert dict(parse.node(d).annotations) == {SCALE_DOWN_DISABLED: "true"}
    assert dict(parse.node(_node("b")).annotations) == {}


def test_the_ready_condition_is_read():
    d = _node("a")
    d["status"]["conditions"] = [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "Unknown"}]  # type: ignore[index]
    assert parse.node(d).ready == "Unknown"
    assert parse.node(_node("b")).ready == ""


@pytest.mark.parametrize("os_name", ["", "windows"])
def test_replicas_keep_their_os(os_name):
    """A spec's memo entry names the OS only when the spec does; its replicas keep it."""
    pods = []
    for i in range(3):
        b = make_pod().name(f"p{i}").req(cpu="100m")
        if os_name:
            b = b.set("spec.os", {"name": os_name})
        pods.append(parse.pod(b.dict()))
    assert [p.os_name for p in pods] == [os_name] * 3


def _dump(path: Path, pods: int, extra: list[dict[str, object]]) -> None:
    items: list[dict[str, object]] = [_node("n1")]
    for i in range(pods):
        p = make_pod().name(f"web-{i}").req(cpu="100m").set("spec.nodeName", "n1").dict()
        p["spec"]["priority"] = 0
        items.append(p)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items + extra}, indent=4))


def test_a_pod_given_twice_in_a_dump_names_both_places(tmp_path):
    path = tmp_path / "dump.json"
    again = make_pod().name("web-3").req(cpu="100m").set("spec.nodeName", "n1").dict()
    _dump(path, 200, [again])
    with pytest.raises(InputError) as ei:
        load_cluster([str(path)])
    assert (
        str(ei.value) == f"{path} (items[201]): Pod default/web-3: duplicate object: also defined in {path} (items[4])"
    )


def test_pods_of_a_dump_keep_their_order_and_sources(tmp_path):
    path = tmp_path / "dump.json"
    _dump(path, 200, [])
    st = load_cluster([str(path)])
    assert [p.name for p in st.pods] == [f"web-{i}" for i in range(200)]
    assert [p.source for p in st.pods[:2]] == [f"{path} (items[1])", f"{path} (items[2])"]


@pytest.mark.parametrize("value", [4, True, 4.0, [4]], ids=["int", "bool", "float", "list"])
def test_a_list_of_other_values_than_text_is_converted_on_its_own(value):
    """YAML can give a quantity as a number: equal to "4" in no way that the shared lists could
    mistake, and a value that is no quantity is refused each time."""
    parse.node(_node("a"))  # {"cpu": "4", ...} remembered
    d = _node("b")
    d["status"]["allocatable"] = {"cpu": value, "memory": "8Gi"}  # type: ignore[index]
    if value is True or isinstance(value, list):
        with pytest.raises(FieldError) as ei:
            parse.node(d)
        assert ei.value.field == "status.allocatable[cpu]"
    else:
        assert parse.node(d).allocatable_list["cpu"] == 4
