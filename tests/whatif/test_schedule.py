"""Which pods `kwhatif schedule` takes: names on the command line, manifests of pods the cluster
already has, --pending, -n and -l."""

from __future__ import annotations

import pytest

from kwhatif.api import parse
from kwhatif.api.labels import parse_selector
from kwhatif.errors import InputError
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import Document
from kwhatif.whatif.schedule import PodName, pod_name, select_pods, spec_differences, unbound_claims

from builders import make_node, make_pod


@pytest.mark.parametrize(
    "arg, expected",
    [
        pytest.param("pod/web", PodName("pod/web", "web"), id="pod"),
        pytest.param("pods/web", PodName("pods/web", "web"), id="pods"),
        pytest.param("po/web-1.a", PodName("po/web-1.a", "web-1.a"), id="po"),
        pytest.param("team-a/web", PodName("team-a/web", "web", "team-a"), id="namespace"),
        pytest.param("samples/pods/web-canary.yaml", None, id="path"),
        pytest.param("samples/cluster.yaml", None, id="existing-file"),
        pytest.param("Team/web", None, id="not-a-namespace"),
        pytest.param("pod/Web", None, id="not-a-pod-name"),
        pytest.param("-", None, id="stdin"),
        pytest.param("web", None, id="bare-name-is-a-path"),
        pytest.param("pods/missing.yaml", None, id="missing-manifest"),
    ],
)
def test_pod_name_arguments(arg, expected):
    assert pod_name(arg) == expected


def state(*pods):
    docs = [
        Document(d, "cluster.yaml", d["kind"], d["apiVersion"])
        for d in (make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="10").dict(), *pods)
    ]
    return build_cluster(docs)


def pending(name, ns="default", sched="default-scheduler", **labels):
    return (
        make_pod().name(name).namespace(ns).scheduler_name(sched).labels(**labels).req(cpu="1").phase("Pending").dict()
    )


def test_pending_pods_are_narrowed_and_leave_the_pending_list():
    st = state(
        pending("a", app="x"),
        pending("b", app="y"),
        pending("c", ns="team"),
        pending("d", sched="other"),
        make_pod().name("e").terminating().dict(),
        make_pod().name("bound").node("n1").dict(),
    )
    sel = select_pods(st, [], [], namespace="default", pending=True, scheduler_names=frozenset({"default-scheduler"}))
    assert [p.key for p in sel.pods] == ["default/a", "default/b", "team/c"]
    assert sel.existing == {"default/a": "uid-a", "default/b": "uid-b", "team/c": "uid-c"}
    assert sel.notes == [
        "pending pods of other schedulers are left to them (1 other); --scheduler-name NAME takes them",
        "1 pending pod(s) being deleted are left out, as kube-scheduler leaves them",
    ]
    assert [p.key for p in st.pending_pods] == ["default/d", "default/e"]


def test_namespace_and_selector_narrow_pending():
    st = state(pending("a", app="x"), pending("b", app="y"), pending("c", ns="team", app="x"))
    sel = select_pods(
        st,
        [],
        [],
        namespace="default",
        pending=True,
        all_namespaces=False,
        selector=parse_selector("app=x"),
        scheduler_names=frozenset({"default-scheduler"}),
    )
    assert [p.key for p in sel.pods] == ["default/a"]


def test_named_pods_and_errors():
    st = state(pending("a"), make_pod().name("bound").node("n1").dict())
    sel = select_pods(st, [], [PodName("pod/a", "a"), PodName("default/a", "a", "default")], namespace="default")
    assert [p.key for p in sel.pods] == ["default/a"]
    with pytest.raises(InputError, match='pod/zz: pods "zz" not found in namespace "team"'):
        select_pods(st, [], [PodName("pod/zz", "zz")], namespace="team")
    with pytest.raises(InputError, match="pod default/bound is already bound to node n1"):
        select_pods(st, [], [PodName("pod/bound", "bound")], namespace="default")


def test_a_manifest_of_a_pending_pod_is_that_pod():
    live = pending("a", app="x")
    live["spec"]["tolerations"] = [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    ]
    live["spec"]["volumes"] = [{"name": "kube-api-access-abcde", "projected": {"sources": []}}]
    st = state(live)
    same = parse.pod(make_pod().name("a").uid("").labels(app="x").req(cpu="1").dict(), source="a.yaml")
    sel = select_pods(st, [same], [], namespace="default")
    (p,) = sel.pods
    assert p.uid == "uid-a" and sel.existing == {"default/a": "uid-a"} and sel.pod_notes == {}
    other = parse.pod(make_pod().name("a").uid("").req(cpu="2").toleration("gpu", "Exists").dict(), source="b.yaml")
    assert spec_differences(other, p) == ["metadata.labels", "resource requests", "spec.tolerations"]


def test_new_manifest_pods_get_a_uid_and_the_selector_applies():
    st = state()
    pods = [parse.pod(make_pod().name(n).uid("").labels(app=n).dict()) for n in ("x", "y")]
    sel = select_pods(st, pods, [], namespace="default", selector=parse_selector("app=y"))
    assert [(p.key, p.uid) for p in sel.pods] == [("default/y", "kwhatif-default-y")]
    assert sel.existing == {}


def test_unbound_claims():
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    bound = {**pvc, "metadata": {"name": "logs", "namespace": "default"}, "spec": {**pvc["spec"], "volumeName": "pv-1"}}
    docs = [Document(d, "c.yaml", d["kind"], d["apiVersion"]) for d in (make_node().name("n1").dict(), pvc, bound)]
    st = build_cluster(docs)
    p = parse.pod(make_pod().name("a").pvc("data").pvc("logs", name="logs").dict())
    assert unbound_claims(st)(p) == ["data"]
