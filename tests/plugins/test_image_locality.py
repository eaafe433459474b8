"""ImageLocality: the size of the pod's images already on a node, scaled by how many nodes hold
each image, mapped between the 23MB floor and the 1000MB-per-container ceiling."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.framework.interface import CycleState
from kwhatif.plugins import image_locality as il

from builders import NodeBuilder, PodBuilder, make_handle, make_node, make_pod

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
SINGLE = [
    pytest.param(pod("nginx"), node(), 0, id="no-image"),
    pytest.param(pod("nginx"), node((250 * MB, "nginx:latest")), 23, id="latest-appended"),
    pytest.param(pod("nginx"), node((250 * MB, "nginx")), 0, id="untagged-node-entry"),
    pytest.param(pod("nginx:1.25"), node((250 * MB, "nginx:1.25")), 23, id="tag-kept"),
    pytest.param(pod("nginx:1.25"), node((250 * MB, "nginx:latest")), 0, id="other-tag"),
    pytest.param(pod("nginx"), node((250 * MB, "docker.io/library/nginx:latest")), 0, id="no-library-prefix"),
    pytest.param(
        pod("docker.io/library/nginx"), node((250 * MB, "docker.io/library/nginx:latest")), 23, id="full-name"
    ),
    pytest.param(pod(DIGEST), node((250 * MB, DIGEST)), 23, id="digest"),
    pytest.param(pod(DIGEST), node((250 * MB, DIGEST + ":latest")), 0, id="digest-gets-no-tag"),
    pytest.param(pod("reg:5000/app"), node((250 * MB, "reg:5000/app:latest")), 23, id="registry-port"),
    pytest.param(pod("reg:5000/app"), node((250 * MB, "reg:5000/app")), 0, id="registry-port-untagged-entry"),
    pytest.param(pod("reg:5000/app:v1"), node((250 * MB, "reg:5000/app:v1")), 23, id="registry-port-tag"),
    pytest.param(pod("small"), node((20 * MB, "small:latest")), 0, id="below-floor"),
    pytest.param(pod("small"), node((23 * MB, "small:latest")), 0, id="at-floor"),
    pytest.param(pod("small"), node((24 * MB, "small:latest")), 0, id="just-above-floor"),
    pytest.param(pod("big"), node((2000 * MB, "big:latest")), 100, id="ceiling"),
    pytest.param(pod("big"), node((1000 * MB, "big:latest")), 100, id="at-ceiling"),
    # 300 + 300 of a 2000MB ceiling: 100 * 577 / 1977 = 29
    pytest.param(
        pod("app", init=("setup",)),
        node((300 * MB, "app:latest"), (300 * MB, "setup:latest")),
        29,
        id="init-container-counted",
    ),
    # the ceiling grows with every container, init containers included: 100 * 977 / 1977 = 49
    pytest.param(pod("app", "sidecar"), node((1000 * MB, "app:latest")), 49, id="ceiling-per-container"),
    pytest.param(pod("app", "app"), node((1000 * MB, "app:latest")), 100, id="same-image-twice"),
    # one image entry can carry several names; either one matches
    pytest.param(
        pod("nginx:1.25"),
        make_node().image(250 * MB, "docker.io/library/nginx:1.25", "nginx:1.25"),
        23,
        id="image-with-several-names",
    ),
]


@pytest.mark.parametrize("pod,node,expected", SINGLE)
def test_score_single_node(pod: PodBuilder, node: NodeBuilder, expected: int) -> None:
    assert score(pod, {"n1": node}, "n1") == expected


SPREAD = [
    # 900MB on 2 of 3 nodes counts 600MB: 100 * 577 / 977 = 59
    pytest.param(
        pod("app"),
        {"n1": node((900 * MB, "app:latest")), "n2": node((900 * MB, "app:latest")), "n3": node()},
        {"n1": 59, "n2": 59, "n3": 0},
        id="two-of-three",
    ),
    # 300MB on 1 of 3 nodes counts 100MB: 100 * 77 / 977 = 7
    pytest.param(
        pod("app"),
        {"n1": node((300 * MB, "app:latest")), "n2": node(), "n3": node()},
        {"n1": 7, "n2": 0, "n3": 0},
        id="one-of-three",
    ),
    # n1: int(1000MB / 3) + int(600MB * 2 / 3) = 349525333 + 419430400 of a 2000MB ceiling = 35;
    # n2: 419430400 alone = 19
    pytest.param(
        pod("a", "b"),
        {
            "n1": node((1000 * MB, "a:latest"), (600 * MB, "b:latest")),
            "n2": node((600 * MB, "b:latest")),
            "n3": node(),
        },
        {"n1": 35, "n2": 19, "n3": 0},
        id="truncated-per-image",
    ),
]


@pytest.mark.parametrize("pod,nodes,expected", SPREAD)
def test_score_spread(pod: PodBuilder, nodes: dict[str, NodeBuilder], expected: dict[str, int]) -> None:
    assert {n: score(pod, nodes, n) for n in nodes} == expected


@pytest.mark.parametrize("pod,nodes,expected", SPREAD)
def test_bulk_scores_are_each_node_s_score(
    pod: PodBuilder, nodes: dict[str, NodeBuilder], expected: dict[str, int]
) -> None:
    """scores() (the first cycle's, over every node at once, worked out once per distinct set of
    image summaries) answers what score() answers on each node."""
    h = make_handle([b.name(n).obj() for n, b in nodes.items()])
    plugin = il.new(None, h)
    infos = [h.snapshot.get(n) for n in nodes]
    assert dict(zip(nodes, plugin.scores(pod.obj(), infos))) == expected
    # every node twice, in another order: the answers that were worked out once are reused
    again = infos[::-1] + infos
    assert plugin.scores(pod.obj(), again) == [expected[ni.name] for ni in again]


@pytest.mark.parametrize(
    "name,expected",
    [
        pytest.param("nginx", "nginx:latest", id="bare"),
        pytest.param("nginx:1.25", "nginx:1.25", id="tagged"),
        pytest.param("library/nginx", "library/nginx:latest", id="path"),
        pytest.param("docker.io/library/nginx", "docker.io/library/nginx:latest", id="registry"),
        pytest.param(DIGEST, DIGEST, id="digest"),
        pytest.param("reg:5000/app", "reg:5000/app:latest", id="registry-port"),
        pytest.param("reg:5000/app:v1", "reg:5000/app:v1", id="registry-port-tag"),
        pytest.param("reg:5000/team/app", "reg:5000/team/app:latest", id="registry-port-path"),
    ],
)
def test_normalized_image_name(name: str, expected: str) -> None:
    assert il.normalized_image_name(name) == expected


@pytest.mark.parametrize(
    "total,containers,expected",
    [
        pytest.param(0, 1, 0, id="zero"),
        pytest.param(23 * MB, 1, 0, id="floor"),
        pytest.param(500 * MB, 1, 48, id="half"),
        pytest.param(1000 * MB, 1, 100, id="ceiling"),
        pytest.param(5000 * MB, 1, 100, id="over"),
        pytest.param(1500 * MB, 2, 74, id="two-containers"),
    ],
)
def test_calculate_priority(total: int, containers: int, expected: Any) -> None:
    assert il.calculate_priority(total, containers) == expected
