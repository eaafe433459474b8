"""Controllers' selectors parsed at load, as helper.DefaultSelector (helper/spread.go) reads them.

The loader parses each ReplicationController's, ReplicaSet's and StatefulSet's spec.selector once;
PodTopologySpread's default constraints read the parsed value. Cases follow helper/spread.go and
its spread_test.go (TestGetPodServices) at v1.30.6.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from kwhatif.api.labels import NOTHING, Op, Requirement, Selector, selector_from_set
from kwhatif.cache.cluster import ClusterState, Workload
from kwhatif.load.cluster import build_cluster
from kwhatif.load.files import Document
from kwhatif.plugins.pod_topology_spread import DefaultSelectorSource

from builders import make_pod


def eq(key: str, value: str) -> Requirement:
    return Requirement(key, Op.IN, frozenset((value,)))


def controller(kind: str, name: str, spec: Any, ns: str = "test") -> dict[str, Any]:
    api = "v1" if kind == "ReplicationController" else "apps/v1"
    body: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}}
    if spec is not None:
        body["spec"] = spec
    return body


def service(name: str, selector: Any, ns: str = "test") -> dict[str, Any]:
    spec = {} if selector is None else {"selector": selector}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns}, "spec": spec}


def load(*objs: dict[str, Any]) -> ClusterState:
    return build_cluster([Document(o, "cluster.yaml", o["kind"], o["apiVersion"]) for o in objs])


def loaded(body: dict[str, Any]) -> Workload:
    (w,) = load(body).workloads.values()
    return w


TEMPLATE = {"metadata": {"labels": {"app": "web", "tier": "front"}}}

# kind, spec, selector_set, selector
PARSE_CASES = [
    pytest.param(
        "ReplicationController",
        {"selector": {"app": "web"}, "template": TEMPLATE},
        {"app": "web"},
        Selector((eq("app", "web"),)),
        id="rc-selector-map",
    ),
    pytest.param(
        "ReplicationController",
        {"template": TEMPLATE},
        {"app": "web", "tier": "front"},
        Selector((eq("app", "web"), eq("tier", "front"))),
        id="rc-no-selector-defaults-to-template-labels",
    ),
    pytest.param(
        "ReplicationController",
        {"selector": {}, "template": TEMPLATE},
        {"app": "web", "tier": "front"},
        Selector((eq("app", "web"), eq("tier", "front"))),
        id="rc-empty-selector-defaults-to-template-labels",
    ),
    pytest.param("ReplicationController", None, {}, Selector(), id="rc-no-spec"),
    pytest.param(
        "ReplicationController", {"selector": {"n": 1}}, {"n": "1"}, Selector((eq("n", "1"),)), id="rc-value-as-text"
    ),
    pytest.param(
        "ReplicaSet",
        {"selector": {"matchLabels": {"app": "web"}}},
        None,
        Selector((eq("app", "web"),)),
        id="rs-match-labels",
    ),
    pytest.param(
        "ReplicaSet",
        {"selector": {"matchLabels": {"tier": "front"}, "matchExpressions": [{"key": "app", "operator": "Exists"}]}},
        None,
        Selector((Requirement("app", Op.EXISTS), eq("tier", "front"))),
        id="rs-match-expressions-sorted-by-key",
    ),
    # LabelSelectorAsSelector: a nil selector is labels.Nothing(), an empty one labels.Everything()
    pytest.param("ReplicaSet", {}, None, NOTHING, id="rs-nil-selector-selects-nothing"),
    pytest.param("ReplicaSet", None, None, NOTHING, id="rs-no-spec-selects-nothing"),
    pytest.param("ReplicaSet", {"selector": {}}, None, Selector(), id="rs-empty-selector-selects-everything"),
    # where LabelSelectorAsSelector fails, DefaultSelector adds nothing: kept as NOTHING
    pytest.param(
        "ReplicaSet",
        {"selector": {"matchExpressions": [{"key": "app", "operator": "Bogus", "values": ["x"]}]}},
        None,
        NOTHING,
        id="rs-invalid-operator",
    ),
    pytest.param(
        "ReplicaSet",
        {"selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
        None,
        NOTHING,
        id="rs-in-without-values",
    ),
    pytest.param(
        "ReplicaSet",
        {"selector": {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]}},
        None,
        NOTHING,
        id="rs-exists-with-values",
    ),
    pytest.param("ReplicaSet", {"selector": "app=web"}, None, NOTHING, id="rs-selector-not-an-object"),
    pytest.param(
        "StatefulSet",
        {"selector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["back"]}]}},
        None,
        Selector((Requirement("tier", Op.NOT_IN, frozenset(("back",))),)),
        id="ss-match-expressions",
    ),
    # DefaultSelector reads no other controller
    pytest.param("Deployment", {"selector": {"matchLabels": {"app": "web"}}}, None, None, id="deployment-not-read"),
    pytest.param("DaemonSet", {"selector": {"matchLabels": {"app": "web"}}}, None, None, id="daemonset-not-read"),
]


@pytest.mark.parametrize("kind,spec,selector_set,selector", PARSE_CASES)
def test_workload_selector_parsed_at_load(kind: str, spec: Any, selector_set: Any, selector: Any) -> None:
    w = loaded(controller(kind, "c", spec))
    assert w.selector_set == selector_set
    assert w.selector == selector


def test_workload_made_directly_parses_its_selector() -> None:
    body = controller("StatefulSet", "ss", {"selector": {"matchLabels": {"app": "db"}}})
    w = Workload("StatefulSet", "test", "ss", "", body, "x.yaml")
    assert w.selector == Selector((eq("app", "db"),))
    assert w.selector_set is None


# --- helper.DefaultSelector over a loaded cluster --------------------------------------------


def default_selector(pod: Any, *objs: dict[str, Any]) -> Selector:
    handle = SimpleNamespace(cluster=load(*objs))
    return DefaultSelectorSource(handle).selector(pod.obj())


def pod(i: int) -> Any:
    """TestGetPodServices' pods: test-pod-<i> labelled app=test-<i>, label=label-<i>."""
    return make_pod().name(f"test-pod-{i}").namespace("test").labels(app=f"test-{i}", label=f"label-{i}")


SERVICES = [service(f"service-{i}", {"app": f"test-{i}"}) for i in range(3)]


@pytest.mark.parametrize(
    "i,expected",
    [
        pytest.param(0, selector_from_set({"app": "test-0"}), id="GetPodServices for pod-0"),
        pytest.param(1, selector_from_set({"app": "test-1"}), id="GetPodServices for pod-1"),
        pytest.param(2, selector_from_set({"app": "test-2"}), id="GetPodServices for pod-2"),
        pytest.param(3, Selector(), id="GetPodServices for pod-3"),
        pytest.param(4, Selector(), id="GetPodServices for pod-4"),
    ],
)
def test_get_pod_services(i: int, expected: Selector) -> None:
    assert default_selector(pod(i), *SERVICES) == expected


def owned(kind: str, name: str, api_version: str = "apps/v1") -> Any:
    ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": f"uid-{name}", "controller": True}
    return pod(0).set("metadata.ownerReferences", [ref])


RC = "ReplicationController"

# pod, objects of the cluster, the requirements of the selector (None: it selects everything)
DEFAULT_SELECTOR_CASES = [
    pytest.param(pod(0), [service("nil", None)], None, id="service-without-selector-adds-nothing"),
    pytest.param(pod(0), [service("empty", {})], None, id="service-empty-selector-adds-nothing"),
    pytest.param(
        pod(0),
        [service("a", {"app": "test-0"}), service("b", {"label": "label-0"})],
        {eq("app", "test-0"), eq("label", "label-0")},
        id="services-merged",
    ),
    pytest.param(pod(0), [service("a", {"app": "test-0"}, ns="other")], None, id="service-other-namespace"),
    pytest.param(
        owned(RC, "rc", "v1"),
        [SERVICES[0], controller(RC, "rc", {"selector": {"label": "label-0"}})],
        {eq("app", "test-0"), eq("label", "label-0")},
        id="rc-merged-into-services-set",
    ),
    pytest.param(
        # labels.Merge: the controller's value replaces the Services' for the same key
        owned(RC, "rc", "v1"),
        [SERVICES[0], controller(RC, "rc", {"selector": {"app": "other"}})],
        {eq("app", "other")},
        id="rc-value-wins-over-service",
    ),
    pytest.param(
        owned(RC, "rc", "v1"),
        [controller(RC, "rc", {"template": {"metadata": {"labels": {"label": "label-0"}}}})],
        {eq("label", "label-0")},
        id="rc-template-labels",
    ),
    pytest.param(owned(RC, "rc", "v1"), [SERVICES[0]], {eq("app", "test-0")}, id="rc-not-found"),
    pytest.param(
        owned(RC, "rc"),
        [SERVICES[0], controller(RC, "rc", {"selector": {"label": "label-0"}})],
        {eq("app", "test-0")},
        id="rc-owner-wrong-api-version",
    ),
    pytest.param(
        owned("ReplicaSet", "rs"),
        [
            SERVICES[0],
            controller(
                "ReplicaSet",
                "rs",
                {
                    "selector": {
                        "matchExpressions": [{"key": "label", "operator": "In", "values": ["label-0", "label-1"]}]
                    }
                },
            ),
        ],
        {eq("app", "test-0"), Requirement("label", Op.IN, frozenset(("label-0", "label-1")))},
        id="rs-requirements-added",
    ),
    pytest.param(
        owned("ReplicaSet", "rs"),
        [SERVICES[0], controller("ReplicaSet", "rs", {})],
        {eq("app", "test-0")},
        id="rs-nil-selector-adds-nothing",
    ),
    pytest.param(
        owned("ReplicaSet", "rs"),
        [SERVICES[0], controller("ReplicaSet", "rs", {"selector": {}})],
        {eq("app", "test-0")},
        id="rs-empty-selector-adds-nothing",
    ),
    pytest.param(
        owned("ReplicaSet", "rs"),
        [
            SERVICES[0],
            controller("ReplicaSet", "rs", {"selector": {"matchExpressions": [{"key": "label", "operator": "Bogus"}]}}),
        ],
        {eq("app", "test-0")},
        id="rs-invalid-selector-adds-nothing",
    ),
    pytest.param(
        owned("ReplicaSet", "rs"),
        [controller("ReplicaSet", "rs", {"selector": {"matchLabels": {"label": "label-0"}}}, ns="other")],
        None,
        id="rs-other-namespace",
    ),
    pytest.param(
        owned("StatefulSet", "ss"),
        [controller("StatefulSet", "ss", {"selector": {"matchLabels": {"label": "label-0"}}})],
        {eq("label", "label-0")},
        id="ss-requirements-added",
    ),
    pytest.param(
        owned("Deployment", "d"),
        [SERVICES[0], controller("Deployment", "d", {"selector": {"matchLabels": {"label": "label-0"}}})],
        {eq("app", "test-0")},
        id="deployment-owner-not-supported",
    ),
]


@pytest.mark.parametrize("p,objs,requirements", DEFAULT_SELECTOR_CASES)
def test_default_selector(p: Any, objs: list[dict[str, Any]], requirements: set[Requirement] | None) -> None:
    sel = default_selector(p, *objs)
    assert not sel.nothing
    if requirements is None:
        assert sel.empty
    else:
        assert set(sel.requirements) == requirements
        assert len(sel.requirements) == len(requirements)
