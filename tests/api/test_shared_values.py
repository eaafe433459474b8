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
