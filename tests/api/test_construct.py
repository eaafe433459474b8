"""kwhatif.api.construct: the fast constructor builds what the dataclass's own __init__ builds."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from kwhatif.api import parse
from kwhatif.api.construct import fast_constructor, template_constructor
from kwhatif.api.core import Pod, new_pod


@dataclass(frozen=True, slots=True)
class Record:
    a: int
    b: str = "b"
    c: dict[str, int] = field(default_factory=dict)


def test_same_object_as_init_with_defaults_and_factories() -> None:
    make = fast_constructor(Record)
    got = make(1)
    assert type(got) is Record
    assert got == Record(1) and repr(got) == "Record(a=1, b='b', c={})"
    assert make(2, c={"x": 1}) == Record(2, "b", {"x": 1})
    assert make(a=3, b="z") == Record(3, "z")
    # a default factory is called for each object, as __init__ calls it
    assert make(1).c is not make(1).c


def test_result_is_frozen_pickles_and_replaces() -> None:
    got = fast_constructor(Record)(1, "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.a = 2  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(got)) == got
    assert dataclasses.replace(got, a=5) == Record(5, "x")


def test_argument_errors_are_the_init_s() -> None:
    make = fast_constructor(Record)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        make()
    with pytest.raises(TypeError, match="unexpected keyword argument 'd'"):
        make(1, d=2)


def test_refuses_what_it_cannot_build() -> None:
    @dataclass(slots=True)
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True)
    class NamedLikeTheCode:
        a: int
        o: int

    @dataclass(frozen=True, slots=True)
    class Private:
        _a: int

    @dataclass(frozen=True, slots=True)
    class InitOnly:
        a: int
        b: dataclasses.InitVar[int] = 0

    for cls in (Mutable, NoSlots, Post, NamedLikeTheCode, Private, InitOnly):
        with pytest.raises(TypeError):
            fast_constructor(cls)


def test_parsed_pod_equals_the_dataclass_built_one() -> None:
    raw = {
        "metadata": {"name": "p", "namespace": "ns", "labels": {"app": "a"}},
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
        },
        "status": {"phase": "Running"},
    }
    got = parse.pod(raw)
    assert type(got) is Pod
    fields = {f.name: getattr(got, f.name) for f in dataclasses.fields(Pod)}
    assert Pod(**fields) == got == new_pod(**fields)
    assert got.requests.milli_cpu == 1000 and got.node_name == "n1" and got.labels == {"app": "a"}


def test_template_constructor_builds_what_init_builds() -> None:
    rest, build = template_constructor(Record, ("b",))
    assert rest == ("a", "c")
    template = (1, {"x": 1})
    got = build(template, "own")
    assert type(got) is Record and got == Record(1, "own", {"x": 1})
    assert got.c is template[1]  # the template's values are shared, not copied
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.b = "z"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(got)) == got
    with pytest.raises(TypeError):
        template_constructor(Record, ("missing",))


def test_replicas_of_a_spec_share_its_template_and_equal_full_builds() -> None:
    """The second pod of a spec is built from the first one's template: the same Pod as the
    dataclass makes of all its fields."""
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "250m"}}}]}
    first = parse.pod({"metadata": {"name": "a", "namespace": "ns"}, "spec": {**spec, "nodeName": "n1"}})
    second = parse.pod({"metadata": {"name": "b", "namespace": "ns"}, "spec": {**spec, "nodeName": "n2"}})
    assert second.containers is first.containers and second.requests is first.requests
    for pod in (first, second):
        fields = {f.name: getattr(pod, f.name) for f in dataclasses.fields(Pod)}
        assert Pod(**fields) == pod
    assert (second.name, second.node_name, second.requests.milli_cpu) == ("b", "n2", 250)
