"""Replicas share the typed values converted from equal parts of their pods; equal means the same
JSON, so values Python takes as equal (1, 1.0, true) are still told apart."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from kwhatif.api import parse
from kwhatif.api.resources import PodRules
from kwhatif.errors import FieldError

from builders import make_pod


def test_replicas_share_converted_parts():
    a = parse.pod(make_pod().name("a").req(cpu="250m").toleration("k", value="v").label("app", "web").dict())
    b = parse.pod(make_pod().name("b").req(cpu="250m").toleration("k", value="v").label("app", "web").dict())
    assert a.containers is b.containers
    assert a.tolerations is b.tolerations
    assert a.labels is b.labels
    assert a.requests == b.requests and a.non0_cpu == b.non0_cpu == 250


def test_different_parts_are_not_shared():
    a = parse.pod(make_pod().name("a").req(cpu="250m").label("app", "web").dict())
    b = parse.pod(make_pod().name("b").req(cpu="500m").label("app", "api").dict())
    assert a.non0_cpu == 250 and b.non0_cpu == 500
    assert dict(a.labels) == {"app": "web"} and dict(b.labels) == {"app": "api"}


def test_a_shared_map_is_a_copy_of_the_input():
    body = make_pod().name("a").label("app", "web").dict()
    pod = parse.pod(body)
    body["metadata"]["labels"]["app"] = "changed"
    assert dict(pod.labels) == {"app": "web"}
    again = parse.pod(make_pod().name("b").label("app", "web").dict())
    assert dict(again.labels) == {"app": "web"}


def test_host_network_is_part_of_what_containers_are_shared_by():
    ports = [{"name": "c", "image": "x", "ports": [{"containerPort": 8080}]}]
    plain = parse.pod(make_pod().name("a").set("spec.containers", ports).dict())
    host = parse.pod(make_pod().name("b").set("spec.containers", ports).set("spec.hostNetwork", True).dict())
    assert [p.host_port for p in plain.host_port_list] == []
    assert [p.host_port for p in host.host_port_list] == [8080]


@pytest.mark.parametrize("seconds", [True, 300.5, "300"], ids=["true", "fraction", "string"])
def test_a_value_equal_in_python_is_not_taken_for_another(seconds):
    ok = (
        make_pod()
        .name("a")
        .set("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1}])
    )
    parse.pod(ok.dict())  # 1 is converted first and remembered
    bad = (
        make_pod()
        .name("b")
        .set(
            "spec.tolerations",
            [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}],
        )
    )
    with pytest.raises(FieldError) as ei:
        parse.pod(bad.dict())
    assert ei.value.field == "spec.tolerations[0].tolerationSeconds"


def test_an_error_in_a_shared_shape_names_its_own_path():
    good = {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}
    bad = {"name": "d", "image": "x", "resources": {"requests": {"cpu": "1x"}}}
    parse.pod(make_pod().name("a").set("spec.containers", [good]).dict())
    with pytest.raises(FieldError) as ei:
        parse.pod(make_pod().name("b").set("spec.containers", [good, bad]).dict())
    assert (
        str(ei.value)
        == "spec.containers[1].resources.requests[cpu]: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


def test_pods_that_differ_only_in_their_node_share_the_spec():
    a = parse.pod(make_pod().name("a").node("n1").req(cpu="250m").toleration("k", value="v").dict(), validate=False)
    b = parse.pod(make_pod().name("b").node("n2").req(cpu="250m").toleration("k", value="v").dict(), validate=False)
    assert (a.node_name, b.node_name) == ("n1", "n2")
    assert a.containers is b.containers and a.tolerations is b.tolerations


def test_a_nodename_elsewhere_in_the_spec_is_not_taken_for_the_pods():
    """The spec's memo key cuts its nodeName out of the text: a field nested in the spec with the
    same text must not make two different specs one."""
    nested = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}
    one = make_pod().name("a").node("n1").set("spec.affinity", {"nodeAffinity": {"x": {"nodeName": "n1"}}})
    two = make_pod().name("b").node("n2").set("spec.affinity", {"nodeAffinity": {"x": {"nodeName": "n2"}}})
    for p in (one, two):
        p.set("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", nested)
    a, b = parse.pod(one.dict(), validate=False), parse.pod(two.dict(), validate=False)
    assert a.affinity == b.affinity  # the unknown field is not read: equal values, right nodes
    assert (a.node_name, b.node_name) == ("n1", "n2")
    # a spec whose only difference is a nested value equal to its node is not the other spec
    c = parse.pod(make_pod().name("c").node("n3").set("spec.priority", 7).dict(), validate=False)
    d = parse.pod(make_pod().name("d").node("n3").set("spec.priority", 8).dict(), validate=False)
    assert (c.priority, d.priority) == (7, 8)


def test_nan_is_not_taken_for_null():
    """orjson writes NaN as null: a value holding it is keyed by its repr instead."""
    unset = parse.pod(make_pod().name("a").set("spec.priority", None).dict(), validate=False)
    assert unset.priority == 0 and not unset.priority_resolved
    with pytest.raises(FieldError) as e:
        parse.pod(make_pod().name("b").set("spec.priority", float("nan")).dict(), validate=False)
    assert e.value.field == "spec.priority"


def test_status_conditions_and_container_statuses_as_read():
    body = (
        make_pod()
        .name("st")
        .req(cpu="1")
        .set(
            "status.conditions",
            [
                {"type": "Ready", "status": "True"},
                {"type": "PodResizePending", "status": "True", "reason": "Deferred"},
                {"type": "DisruptionTarget", "status": "False", "reason": "First"},
                {"type": "DisruptionTarget", "status": "True", "reason": "Second"},
            ],
        )
        .set("status.initContainerStatuses", [{"name": "init", "ready": True}])
        .set(
            "status.containerStatuses",
            [{"name": "other", "ready": True}, {"name": "c0", "allocatedResources": {"cpu": "2"}}],
        )
        .dict()
    )
    pod = parse.pod(body)
    # the first DisruptionTarget decides; a PodResizePending that is not Infeasible is not
    assert (pod.disruption_target, pod.disruption_reason, pod.resize_infeasible) == (False, "First", False)
    assert list(pod.container_statuses) == ["c0"]
    body["status"]["conditions"].append({"type": "PodResizePending", "status": "True", "reason": "Infeasible"})
    body["metadata"]["name"] = "st2"
    assert parse.pod(body).resize_infeasible is True


def test_a_container_status_that_is_not_an_object_is_refused():
    body = make_pod().name("bad").set("status.containerStatuses", ["c0"]).dict()
    with pytest.raises(FieldError) as e:
        parse.pod(body)
    assert e.value.field == "status.containerStatuses[0]"


def _replica(name: str, node: str, **status: object) -> dict[str, object]:
    """A replica of one spec (a sidecar with a host port, overhead) on ``node``: its own name,
    uid, labels, owner, times, phase and status conditions."""
    b = (
        make_pod()
        .name(name)
        .uid(f"uid-{name}")
        .label("app", "web")
        .label("instance", name)
        .owner("ReplicaSet", "web-1", uid="rs-1")
        .created("2026-11-20T08:00:00Z")
        .req(cpu="250m", memory="64Mi")
        .set(
            "spec.initContainers",
            [
                {
                    "name": "proxy",
                    "image": "envoy",
                    "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "100m"}},
                    "ports": [{"containerPort": 9090, "hostPort": 9090}],
                }
            ],
        )
        .overhead(cpu="10m")
        .node(node)
        .phase("Running")
        .start_time("2026-11-20T08:00:02Z")
        .set("metadata.annotations", {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true", "other": "x"})
    )
    for key, value in status.items():
        b = b.set(f"status.{key}", value)
    return b.dict()


# the releases before sidecars counted (no rule on), and the default release's
_RULES = [PodRules(), parse.DEFAULT_POD_RULES]


@pytest.mark.parametrize("rules", _RULES, ids=["before-sidecars", "default"])
def test_a_replica_built_from_its_specs_template_is_the_pod_built_in_full(monkeypatch, rules):
    # the first replica of a spec leaves a template; the next ones are built from it
    first = parse.pod(_replica("a", "n1"), rules=rules)
    conditions = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
    later = [
        _replica("b", "n2"),
        _replica("c", "n3", conditions=conditions, nominatedNodeName="n9"),
        _replica("d", "n1", phase="Pending"),
    ]
    fast = [parse.pod(d, source=f"f:{i}", rules=rules) for i, d in enumerate(later)]
    assert first.containers is fast[0].containers and first.requests is fast[0].requests
    monkeypatch.setattr(parse, "_MEMO", {})  # no template: each pod is the first of its spec
    full = [parse.pod(d, source=f"f:{i}", rules=rules) for i, d in enumerate(later)]
    for a, b in zip(fast, full):
        assert [(x.name, getattr(a, x.name)) for x in dataclasses.fields(a)] == [
            (x.name, getattr(b, x.name)) for x in dataclasses.fields(b)
        ]
    c = fast[1]
    assert (c.disruption_target, c.disruption_reason, c.nominated_node_name, c.node_name) == (
        True,
        "PreemptionByScheduler",
        "n9",
        "n3",
    )
    assert dict(c.annotations) == {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}
    assert [p.host_port for p in c.host_port_list] == ([9090] if rules.sidecar_host_ports else [])


def test_the_template_is_the_releases_own():
    # one spec, two releases' rules: each derives its own requests and host ports
    old = parse.pod(_replica("a", "n1"), rules=_RULES[0])
    new = parse.pod(_replica("b", "n1"), rules=_RULES[1])
    again_old = parse.pod(_replica("c", "n1"), rules=_RULES[0])
    assert [p.host_port for p in old.host_port_list] == [] == [p.host_port for p in again_old.host_port_list]
    assert [p.host_port for p in new.host_port_list] == [9090]
    assert old.requests == again_old.requests


def test_a_replica_whose_status_reports_resources_is_built_in_full():
    parse.pod(_replica("a", "n1"))
    statuses = [{"name": "c0", "allocatedResources": {"cpu": "300m"}, "resources": {"requests": {"cpu": "300m"}}}]
    resized = parse.pod(_replica("b", "n1", containerStatuses=statuses), rules=PodRules(status_resources=True))
    assert set(resized.container_statuses) == {"c0"}
    assert resized.container_statuses["c0"].actuated == {"cpu": Fraction(3, 10)}
