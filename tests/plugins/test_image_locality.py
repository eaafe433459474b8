"""ImageLocality: the size of the pod's images already on a node, scaled by how many nodes hold
each image, mapped between the 23MB floor and the 1000MB-per-container ceiling."""

from __future__ import annotations

from typing import Any

import pytest

from builders import NodeBuilder, PodBuilder, make_handle, make_node, make_pod
from kwhatif.framework.interface import CycleState
from kwhatif.plugins import image_locality as il

MB = 1024 * 1024
DIGEST = "nginx@sha256:" + "a" * 64


def pod(*images: str, init: tuple[str, ...] = ()) -> PodBuilder:
    b = make_pod().name("p").set("spec.containers", [{"name": f"c{i}", "image": img} for i, img in enumerate(images)])
    if init:
        b = b.set("spec.initContainers", [{"name": f"i{i}", "image": img} for i, img in enumerate(init)])
    return b


def node(*images: tuple[int, str]) -> NodeBuilder:
    b = make_node()
    for size, name in images:
        b = b.image(size, name)
    return b


def score(pod: PodBuilder, nodes: dict[str, NodeBuilder], on: str) -> int:
    h = make_handle([b.name(n).obj() for n, b in nodes.items()])
    s, status = il.new(None, h).score(CycleState(), pod.obj(), h.snapshot.get(on))
    assert status.is_success()
    return s


# 250MB on the only node: 100 * (250 - 23) / (1000 - 23) = 23 (integer division)
SINGLE: list[tuple[str, PodBuilder, NodeBuilder, int]] = [
    ("no-image", pod("nginx"), node(), 0),
    ("latest-appended", pod("nginx"), node((250 * MB, "nginx:latest")), 23),
    ("untagged-node-entry", pod("nginx"), node((250 * MB, "nginx")), 0),
    ("tag-kept", pod("nginx:1.25"), node((250 * MB, "nginx:1.25")), 23),
    ("other-tag", pod("nginx:1.25"), node((250 * MB, "nginx:latest")), 0),
    ("no-library-prefix", pod("nginx"), node((250 * MB, "docker.io/library/nginx:latest")), 0),
    ("full-name", pod("docker.io/library/nginx"), node((250 * MB, "docker.io/library/nginx:latest")), 23),
    ("digest", pod(DIGEST), node((250 * MB, DIGEST)), 23),
    ("digest-gets-no-tag", pod(DIGEST), node((250 * MB, DIGEST + ":latest")), 0),
    ("registry-port", pod("reg:5000/app"), node((250 * MB, "reg:5000/app:latest")), 23),
    ("registry-port-untagged-entry", pod("reg:5000/app"), node((250 * MB, "reg:5000/app")), 0),
    ("registry-port-tag", pod("reg:5000/app:v1"), node((250 * MB, "reg:5000/app:v1")), 23),
    ("below-floor", pod("small"), node((20 * MB, "small:latest")), 0),
    ("at-floor", pod("small"), node((23 * MB, "small:latest")), 0),
    ("just-above-floor", pod("small"), node((24 * MB, "small:latest")), 0),
    ("ceiling", pod("big"), node((2000 * MB, "big:latest")), 100),
    ("at-ceiling", pod("big"), node((1000 * MB, "big:latest")), 100),
    # 300 + 300 of a 2000MB ceiling: 100 * 577 / 1977 = 29
    ("init-container-counted", pod("app", init=("setup",)), node((300 * MB, "app:latest"), (300 * MB, "setup:latest")), 29),
    # the ceiling grows with every container, init containers included: 100 * 977 / 1977 = 49
    ("ceiling-per-container", pod("app", "sidecar"), node((1000 * MB, "app:latest")), 49),
    ("same-image-twice", pod("app", "app"), node((1000 * MB, "app:latest")), 100),
    # one image entry can carry several names; either one matches
    (
        "image-with-several-names",
        pod("nginx:1.25"),
        make_node().image(250 * MB, "docker.io/library/nginx:1.25", "nginx:1.25"),
        23,
    ),
]


@pytest.mark.parametrize("pod,node,expected", [c[1:] for c in SINGLE], ids=[c[0] for c in SINGLE])
def test_score_single_node(pod: PodBuilder, node: NodeBuilder, expected: int) -> None:
    assert score(pod, {"n1": node}, "n1") == expected


SPREAD: list[tuple[str, PodBuilder, dict[str, NodeBuilder], dict[str, int]]] = [
    # 900MB on 2 of 3 nodes counts 600MB: 100 * 577 / 977 = 59
    (
        "two-of-three",
        pod("app"),
        {"n1": node((900 * MB, "app:latest")), "n2": node((900 * MB, "app:latest")), "n3": node()},
        {"n1": 59, "n2": 59, "n3": 0},
    ),
    # 300MB on 1 of 3 nodes counts 100MB: 100 * 77 / 977 = 7
    (
        "one-of-three",
        pod("app"),
        {"n1": node((300 * MB, "app:latest")), "n2": node(), "n3": node()},
        {"n1": 7, "n2": 0, "n3": 0},
    ),
    # n1: int(1000MB / 3) + int(600MB * 2 / 3) = 349525333 + 419430400 of a 2000MB ceiling = 35;
    # n2: 419430400 alone = 19
    (
        "truncated-per-image",
        pod("a", "b"),
        {
            "n1": node((1000 * MB, "a:latest"), (600 * MB, "b:latest")),
            "n2": node((600 * MB, "b:latest")),
            "n3": node(),
        },
        {"n1": 35, "n2": 19, "n3": 0},
    ),
]


@pytest.mark.parametrize("pod,nodes,expected", [c[1:] for c in SPREAD], ids=[c[0] for c in SPREAD])
def test_score_spread(pod: PodBuilder, nodes: dict[str, NodeBuilder], expected: dict[str, int]) -> None:
    assert {n: score(pod, nodes, n) for n in nodes} == expected


@pytest.mark.parametrize(
    "name,expected",
    [
        ("nginx", "nginx:latest"),
        ("nginx:1.25", "nginx:1.25"),
        ("library/nginx", "library/nginx:latest"),
        ("docker.io/library/nginx", "docker.io/library/nginx:latest"),
        (DIGEST, DIGEST),
        ("reg:5000/app", "reg:5000/app:latest"),
        ("reg:5000/app:v1", "reg:5000/app:v1"),
        ("reg:5000/team/app", "reg:5000/team/app:latest"),
    ],
    ids=["bare", "tagged", "path", "registry", "digest", "registry-port", "registry-port-tag", "registry-port-path"],
)
def test_normalized_image_name(name: str, expected: str) -> None:
    assert il.normalized_image_name(name) == expected


@pytest.mark.parametrize(
    "total,containers,expected",
    [(0, 1, 0), (23 * MB, 1, 0), (500 * MB, 1, 48), (1000 * MB, 1, 100), (5000 * MB, 1, 100), (1500 * MB, 2, 74)],
    ids=["zero", "floor", "half", "ceiling", "over", "two-containers"],
)
def test_calculate_priority(total: int, containers: int, expected: Any) -> None:
    assert il.calculate_priority(total, containers) == expected
