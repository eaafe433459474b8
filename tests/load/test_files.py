"""The loader reads every supported input form and rejects bad input with one precise line."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
import yaml

from kwhatif.errors import InputError
from kwhatif.load.cluster import build_cluster, load_cluster
from kwhatif.load.files import Limits, read_path

from builders import make_node, make_pod


def nodes_and_pods() -> list[dict]:
    return [
        make_node().name("n1").dict(),
        make_node().name("n2").dict(),
        make_pod().name("a").node("n1").req(cpu="1").dict(),
        make_pod().name("b").node("n2").dict(),
        make_pod().name("done").node("n1").req(cpu="3").phase("Succeeded").dict(),
        make_pod().name("pending").dict(),
    ]


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def check_state(state) -> None:
    assert list(state.nodes) == ["n1", "n2"]
    assert sorted(p.name for p in state.pods) == ["a", "b"]
    assert [p.name for p in state.pending_pods] == ["pending"]


def test_kubectl_list_yaml(tmp_path):
    path = write(tmp_path, "c.yaml", yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes_and_pods()}))
    check_state(load_cluster([path]))


def test_kubectl_list_json(tmp_path):
    path = write(tmp_path, "c.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes_and_pods()}))
    check_state(load_cluster([path]))


def test_typed_lists_without_item_kinds(tmp_path):
    objs = nodes_and_pods()
    for o in objs:
        del o["kind"], o["apiVersion"]
    text = (
        json.dumps({"apiVersion": "v1", "kind": "NodeList", "items": objs[:2]})
        + "\n"
        + json.dumps({"apiVersion": "v1", "kind": "PodList", "items": objs[2:]})
    )
    check_state(load_cluster([write(tmp_path, "c.json", text)]))


def test_multi_document_yaml(tmp_path):
    path = write(tmp_path, "c.yaml", yaml.safe_dump_all(nodes_and_pods()))
    check_state(load_cluster([path]))


def test_cluster_info_dump_stream(tmp_path):
    objs = nodes_and_pods()
    parts = [
        json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": objs[:2]}, indent=4),
        json.dumps({"kind": "EventList", "apiVersion": "v1", "items": []}, indent=4),
        json.dumps({"kind": "PodList", "apiVersion": "v1", "items": objs[2:]}, indent=4),
        "==== START logs for container main of pod default/a ====\n{ not json } at all\n==== END logs for container main of pod default/a ====",
        json.dumps({"kind": "ReplicationControllerList", "apiVersion": "v1", "items": []}, indent=4),
    ]
    check_state(load_cluster([write(tmp_path, "dump.txt", "\n".join(parts) + "\n")]))


def test_cluster_info_dump_directory(tmp_path):
    objs = nodes_and_pods()
    (tmp_path / "default").mkdir()
    (tmp_path / "nodes.json").write_text(json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": objs[:2]}))
    (tmp_path / "default" / "pods.json").write_text(
        json.dumps({"kind": "PodList", "apiVersion": "v1", "items": objs[2:]})
    )
    (tmp_path / "default" / "events.json").write_text(
        json.dumps({"kind": "EventList", "apiVersion": "v1", "items": []})
    )
    (tmp_path / "default" / "a").mkdir()
    (tmp_path / "default" / "a" / "logs.txt").write_text("not json")
    check_state(load_cluster([str(tmp_path)]))


def test_several_paths_are_merged(tmp_path):
    objs = nodes_and_pods()
    a = write(tmp_path, "nodes.yaml", yaml.safe_dump_all(objs[:2]))
    b = write(tmp_path, "pods.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": objs[2:]}))
    check_state(load_cluster([a, b]))


def test_duplicate_across_files_names_both(tmp_path):
    a = write(tmp_path, "a.yaml", yaml.safe_dump(make_node().name("n1").dict()))
    b = write(tmp_path, "b.yaml", yaml.safe_dump(make_node().name("n1").dict()))
    with pytest.raises(InputError) as ei:
        load_cluster([a, b])
    assert str(ei.value) == f"{b}: Node n1: duplicate object: also defined in {a}"


def test_stdin():
    data = yaml.safe_dump_all(nodes_and_pods()).encode()
    check_state(load_cluster(["-"], stdin=io.BytesIO(data)))


def test_other_kinds_are_counted(tmp_path):
    objs = nodes_and_pods() + [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y", "namespace": "default"}},
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
    ]
    state = load_cluster([write(tmp_path, "c.yaml", yaml.safe_dump_all(objs))])
    assert dict(state.skipped) == {"ConfigMap": 2, "Widget": 1}


# --- bad input -------------------------------------------------------------------------------------

BAD = [
    pytest.param(
        "c.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: [x\n", "invalid YAML at line 4", id="malformed-yaml"
    ),
    # neither JSON nor YAML: the JSON error is the one reported, as kubectl's decoder reports it
    pytest.param(
        "c.json", '{"apiVersion": "v1", "kind": "Node" "x"}', "invalid JSON at line 1 column 37", id="malformed-json"
    ),
    pytest.param(
        "c.json",
        '[{"apiVersion": "v1", "kind": "Node"}, {]',
        "invalid JSON at line 1 column 41",
        id="malformed-json-list",
    ),
    pytest.param("c.yaml", "- 1\n- 2\n", "document 1 is a int, not a Kubernetes object", id="not-a-mapping"),
    pytest.param("c.yaml", "just a string\n", "document 1 is a str, not a Kubernetes object", id="scalar-document"),
    pytest.param(
        "c.yaml",
        "apiVersion: apps/v2\nkind: Deployment\nmetadata: {name: d}\n",
        "Deployment default/d: apiVersion: unknown apiVersion 'apps/v2' for Deployment (expected apps/v1)",
        id="unknown-api-version",
    ),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Pdo\nmetadata: {name: p}\n",
        "Pdo default/p: kind: unknown kind 'Pdo' in apiVersion v1",
        id="unknown-kind",
    ),
    pytest.param("c.yaml", "apiVersion: v1\nmetadata: {name: p}\n", "kind: missing kind", id="missing-kind"),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {}\n",
        "Node: metadata.name: Required value: name or generateName is required",
        id="missing-name",
    ),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 4x}}\n",
        "Node n1: status.allocatable[cpu]: Invalid value: \"4x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        id="bad-quantity",
    ),
    pytest.param("c.yaml", "\n# nothing here\n", "empty input: no Kubernetes objects", id="empty"),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nmetadata: {name: b}\n",
        'invalid YAML at line 4 column 1: mapping key "metadata" already defined at line 3',
        id="duplicate-key",
    ),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: {x: '1', x: '2'}\n",
        'invalid YAML at line 5 column 20: mapping key "x" already defined at line 5',
        id="duplicate-nested-key",
    ),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- \x00\n",
        "invalid YAML at line 4 column 3: unacceptable character #x0000: control characters are not allowed",
        id="nul-byte",
    ),
    pytest.param(
        "c.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: a\x07}\n",
        "invalid YAML at line 3 column 19: unacceptable character #x0007: control characters are not allowed",
        id="control-character",
    ),
    pytest.param("c.yaml", "!!python/object/apply:os.system ['echo pwned']\n", "invalid YAML", id="python-tag"),
]


@pytest.mark.parametrize("fname,text,message", BAD)
def test_bad_input(tmp_path, fname, text, message):
    path = write(tmp_path, fname, text)
    with pytest.raises(InputError) as ei:
        load_cluster([path])
    line = str(ei.value)
    assert line.startswith(path)
    assert message in line
    assert "\n" not in line


def test_pods_of_nodes_missing_from_the_dump_are_left_out(tmp_path):
    objs = [
        make_node().name("n1").dict(),
        make_pod().name("p").node("gone").dict(),
        make_pod().name("q").node("n1").dict(),
    ]
    state = load_cluster([write(tmp_path, "c.yaml", yaml.safe_dump_all(objs))])
    assert [p.name for p in state.pods] == ["q"]
    assert state.orphaned_pods == 1


def test_merge_keys_may_be_overridden(tmp_path):
    # `<<` brings keys in that the mapping may set again; only keys written twice are refused
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: &l {zone: a, disk: ssd}\n"
        "  annotations:\n    <<: *l\n    zone: b\n"
    )
    state = load_cluster([write(tmp_path, "c.yaml", text)])
    assert state.nodes["n1"].labels == {"zone": "a", "disk": "ssd"}


def test_alias_bomb(tmp_path):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}")
    path = write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")
    with pytest.raises(InputError, match="alias bomb"):
        load_cluster([path])


def test_huge_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as fh:
        fh.write(b"apiVersion: v1\n")
        fh.truncate(200 * 1024 * 1024)  # sparse: 200 MB on paper, nothing on disk
    with pytest.raises(InputError) as ei:
        load_cluster([str(path)])
    assert "above the 128 MiB limit for YAML input" in str(ei.value)
    # the limit is a setting
    with pytest.raises(InputError, match="above the 1 MiB limit"):
        load_cluster([str(path)], Limits.uniform(1024 * 1024))


def test_unreadable_paths(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        load_cluster([str(tmp_path / "missing.yaml")])
    (tmp_path / "empty-dir").mkdir()
    with pytest.raises(InputError, match="directory holds no .json or .yaml files"):
        load_cluster([str(tmp_path / "empty-dir")])
    if os.geteuid() != 0:
        p = tmp_path / "secret.yaml"
        p.write_text("x: 1\n")
        p.chmod(0)
        with pytest.raises(InputError, match="permission denied"):
            load_cluster([str(p)])


def test_deep_nesting(tmp_path):
    path = write(tmp_path, "deep.json", "[" * 100000 + "]" * 100000)
    with pytest.raises(InputError, match="nested too deeply"):
        load_cluster([path])


def test_no_nodes(tmp_path):
    path = write(tmp_path, "c.yaml", yaml.safe_dump(make_pod().name("p").dict()))
    with pytest.raises(InputError, match="the cluster has no nodes"):
        load_cluster([path])


def test_yaml_document_lines(tmp_path):
    text = (
        yaml.safe_dump(make_node().name("n1").dict())
        + "---\n"
        + "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: bad}}\n"
    )
    path = write(tmp_path, "c.yaml", text)
    docs = list(read_path(path))
    assert docs[0].source == f"{path}:1"
    with pytest.raises(InputError) as ei:
        build_cluster(docs)
    n = text.count("\n", 0, text.index("---")) + 1
    assert str(ei.value).startswith(f"{path}:{n}: Node n2: status.allocatable[cpu]")


# --- JSON keys given twice: refused as YAML's are, with both positions ------------------------------

JSON_DUPLICATES = [
    pytest.param(
        '{"apiVersion": "v1", "kind": "List", "items": [\n'
        '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a",\n'
        ' "labels": {"x": "1", "x": "2"}}}]}\n',
        'invalid JSON at line 3 column 23: key "x" already defined at line 3 column 13',
        id="in-a-list-item",
    ),
    pytest.param(
        '{"apiVersion": "v1", "kind": "List",\n "kind": "List", "items": []}',
        'invalid JSON at line 2 column 2: key "kind" already defined at line 1 column 22',
        id="of-the-list",
    ),
    pytest.param(
        '{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "a"},\n "metadata": {"name": "b"}}',
        'invalid JSON at line 3 column 2: key "metadata" already defined at line 2 column 2',
        id="of-a-lone-object",
    ),
    pytest.param(
        '[{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "name": "b"}}]',
        'invalid JSON at line 1 column 65: key "name" already defined at line 1 column 52',
        id="in-a-bare-array",
    ),
    pytest.param(
        '{"kind": "NodeList", "apiVersion": "v1", "items": []}\n'
        '{"kind": "PodList", "apiVersion": "v1", "items": [{"metadata": {"name": "p"},\n'
        ' "spec": {"containers": [{"name": "c", "image": "i"}, {"name": "d", "env": [{"name": "A"}, {"name": "B",\n'
        ' "value": "1", "name": "C"}]}]}}]}\n',
        'invalid JSON at line 4 column 16: key "name" already defined at line 3 column 93',
        id="deep-in-a-dump-stream",
    ),
    pytest.param(
        '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "annotations": {"a\\u0000": "", "a\\u0000": ""}}}',
        'invalid JSON at line 1 column 95: key "a\\u0000" already defined at line 1 column 80',
        id="escaped-key-shown-escaped",
    ),
]


@pytest.mark.parametrize("text,message", JSON_DUPLICATES)
def test_json_duplicate_keys_are_refused(tmp_path, text, message):
    path = write(tmp_path, "c.json", text)
    with pytest.raises(InputError) as ei:
        load_cluster([path])
    assert str(ei.value) == f"{path}: {message}"
    assert ei.value.exit_code == 2


def test_json_duplicate_keys_in_a_dump_directory(tmp_path):
    (tmp_path / "ns").mkdir()
    write(tmp_path, "nodes.json", json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": nodes_and_pods()[:2]}))
    pods = write(tmp_path / "ns", "pods.json", '{"kind": "PodList", "apiVersion": "v1", "items": [], "items": []}')
    with pytest.raises(InputError) as ei:
        load_cluster([str(tmp_path)])
    assert str(ei.value) == f'{pods}: invalid JSON at line 1 column 54: key "items" already defined at line 1 column 41'


def test_json_equal_keys_in_different_objects_are_fine(tmp_path):
    objs = nodes_and_pods()
    path = write(tmp_path, "c.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}, indent=1))
    check_state(load_cluster([path]))


def test_a_named_pipe_in_a_dump_directory_is_refused_not_waited_on(tmp_path):
    # opening a FIFO blocks until something writes to it: the walk must not open one
    (tmp_path / "ns").mkdir()
    write(tmp_path, "nodes.json", json.dumps({"kind": "NodeList", "apiVersion": "v1", "items": nodes_and_pods()[:2]}))
    fifo = tmp_path / "ns" / "pods.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as ei:
        load_cluster([str(tmp_path)])
    assert str(ei.value) == f"{fifo}: a named pipe, not a file: a cluster-info dump directory holds regular files"
    assert ei.value.exit_code == 2


def test_a_named_pipe_given_as_the_path_is_read(tmp_path):
    # process substitution (--cluster <(kubectl get nodes -o json)) hands over a pipe: it is read
    import threading

    fifo = tmp_path / "nodes.json"
    os.mkfifo(fifo)
    text = json.dumps({"kind": "List", "apiVersion": "v1", "items": nodes_and_pods()})

    def feed() -> None:
        with open(fifo, "w") as fh:
            fh.write(text)

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    check_state(load_cluster([str(fifo)]))
    t.join(5)
