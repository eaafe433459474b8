"""load/cluster.py: every kind it reads goes one way into the ClusterState (the one table of kinds,
cache/kinds.py: the loader keeps pods, nodes and workloads itself, every other kind has its parser)."""

from __future__ import annotations

import pytest

from kwhatif.cache.kinds import KINDS, WORKLOAD_KINDS, Store
from kwhatif.errors import InputError
from kwhatif.load.cluster import READ_KINDS, build_cluster
from kwhatif.load.files import parse_text

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"


def test_every_read_kind_has_exactly_one_reader():
    parsed = {k.kind for k in KINDS if k.parse is not None}
    assert parsed == {k.kind for k in KINDS if k.store is not Store.OWN}
    routes = [{"Pod", "Node"}, set(WORKLOAD_KINDS), parsed]
    assert set().union(*routes) == set(READ_KINDS)
    assert sum(len(r) for r in routes) == len(READ_KINDS)


CASES = [
    pytest.param("apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n", "namespaces", "team", id="Namespace"),
    pytest.param(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n",
        "priority_classes",
        "high",
        id="PriorityClass",
    ),
    pytest.param(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: team}\n"
        "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
        "pvcs",
        "team/data",
        id="PersistentVolumeClaim",
    ),
    pytest.param(
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: team}\nspec: {limits: []}\n",
        "limit_ranges",
        "team/lr",
        id="LimitRange",
    ),
    pytest.param(
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: example.com/csi\n",
        "storage_classes",
        "fast",
        id="StorageClass",
    ),
]


@pytest.mark.parametrize("text,attr,key", CASES)
def test_objects_land_in_their_collection(text, attr, key):
    state = build_cluster(parse_text(NODE + "---\n" + text, "c.yaml"))
    assert list(getattr(state, attr)) == [key]


def test_services_are_listed_in_order():
    svc = "apiVersion: v1\nkind: Service\nmetadata: {{name: {n}, namespace: team}}\nspec: {{selector: {{app: web}}}}\n"
    state = build_cluster(parse_text(NODE + "---\n" + svc.format(n="b") + "---\n" + svc.format(n="a"), "c.yaml"))
    assert [s.name for s in state.services] == ["b", "a"]


def test_a_bad_field_names_file_object_and_field():
    text = NODE + "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: x\n"
    with pytest.raises(InputError) as e:
        build_cluster(parse_text(text, "c.yaml"))
    msg = str(e.value)
    assert "c.yaml" in msg and "PriorityClass" in msg and "value" in msg
