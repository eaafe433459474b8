"""Replicas share the typed values converted from equal parts of their pods; equal means the same
JSON, so values Python takes as equal (1, 1.0, true) are still told apart."""

from __future__ import annotations

import pytest

from kwhatif.api import parse
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
