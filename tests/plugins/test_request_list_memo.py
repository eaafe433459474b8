"""pod_request_list (resource_allocation.go's calculatePodResourceRequestList) worked out once per
the request maps it reads: pods of one template share the answer, pods that differ do not."""

from __future__ import annotations

from kwhatif.config.types import ResourceSpec
from kwhatif.plugins import resource_allocation as ra

from builders import make_pod

RESOURCES = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]


def test_replicas_share_the_answer_and_other_pods_get_theirs() -> None:
    ra._REQUEST_LISTS.clear()
    a = make_pod().name("a").req(cpu="100m", memory="128Mi").obj()
    b = make_pod().name("b").req(cpu="100m", memory="128Mi").obj()
    c = make_pod().name("c").req(cpu="250m").obj()
    empty = make_pod().name("empty").obj()
    assert ra.pod_request_list(a, RESOURCES, False) == [100, 128 * 1024 * 1024]
    assert ra.pod_request_list(b, RESOURCES, False) == [100, 128 * 1024 * 1024]
    # no memory request: the non-zero default (200 MB) without useRequested, nothing with it
    assert ra.pod_request_list(c, RESOURCES, False) == [250, 200 * 1024 * 1024]
    assert ra.pod_request_list(c, RESOURCES, True) == [250, 0]
    assert ra.pod_request_list(empty, RESOURCES, False) == [100, 200 * 1024 * 1024]
    assert ra.pod_request_list(empty, RESOURCES, True) == [0, 0]
    assert ra.pod_request_list(a, RESOURCES[:1], False) == [100]
    # the answer is a list of its own: changing it changes no later answer
    got = ra.pod_request_list(a, RESOURCES, False)
    got[0] = 0
    assert ra.pod_request_list(a, RESOURCES, False) == [100, 128 * 1024 * 1024]


def test_the_answers_kept_are_bounded() -> None:
    ra._REQUEST_LISTS.clear()
    for i in range(ra._REQUEST_LISTS_LIMIT + 10):
        p = make_pod().name(f"p{i}").req(cpu=f"{i + 1}m").obj()
        assert ra.pod_request_list(p, RESOURCES, False)[0] == i + 1
    assert len(ra._REQUEST_LISTS) <= ra._REQUEST_LISTS_LIMIT + 1
