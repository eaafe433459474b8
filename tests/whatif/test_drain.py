"""kubectl drain's filters (k8s.io/kubectl/pkg/drain/filters.go), in their order: which pods a
drain evicts, which it leaves and which make it refuse the node."""

from __future__ import annotations

import pytest

from kwhatif.api.labels import parse_selector
from kwhatif.whatif.drain import (
    DAEMONSET_FATAL,
    LOCAL_STORAGE_FATAL,
    UNMANAGED_FATAL,
    DrainOptions,
    plan,
)

from builders import make_cluster, make_node, make_pod

MIRROR = {"kubernetes.io/config.mirror": "x"}
EMPTY_DIR = {"name": "tmp", "emptyDir": {}}


def on_a(name: str, phase: str = "Running") -> object:
    return make_pod().name(name).req(cpu="100m").node("a").phase(phase)


CASES = [
    # name, pod, options, (action, refusal)
    (
        "ds-refuses",
        on_a("p").owner("DaemonSet", "ds", api_version="apps/v1"),
        DrainOptions(),
        ("refused", DAEMONSET_FATAL),
    ),
    (
        "ds-ignored",
        on_a("p").owner("DaemonSet", "ds", api_version="apps/v1"),
        DrainOptions(ignore_daemonsets=True),
        ("skip-daemonset", None),
    ),
    (
        "ds-with-emptydir-refuses-as-daemonset-first",
        on_a("p").owner("DaemonSet", "ds", api_version="apps/v1").volume(EMPTY_DIR),
        DrainOptions(),
        ("refused", DAEMONSET_FATAL),
    ),
    (
        "finished-ds-pod-is-deleted",
        on_a("p", "Succeeded").owner("DaemonSet", "ds", api_version="apps/v1"),
        DrainOptions(),
        ("evict", None),
    ),
    (
        "mirror-before-local-storage",
        on_a("p").set("metadata.annotations", MIRROR).volume(EMPTY_DIR),
        DrainOptions(),
        ("skip-mirror", None),
    ),
    (
        "emptydir-refuses",
        on_a("p").owner("ReplicaSet", "rs").volume(EMPTY_DIR),
        DrainOptions(),
        ("refused", LOCAL_STORAGE_FATAL),
    ),
    (
        "emptydir-deleted",
        on_a("p").owner("ReplicaSet", "rs").volume(EMPTY_DIR),
        DrainOptions(delete_emptydir_data=True),
        ("evict", None),
    ),
    (
        "bare-with-emptydir-and-delete-emptydir-data-still-refuses",
        on_a("p").volume(EMPTY_DIR),
        DrainOptions(delete_emptydir_data=True),
        ("refused", UNMANAGED_FATAL),
    ),
    ("bare-refuses", on_a("p"), DrainOptions(), ("refused", UNMANAGED_FATAL)),
    ("bare-forced", on_a("p"), DrainOptions(force=True), ("evict", None)),
    ("finished-bare-pod-is-deleted", on_a("p", "Failed"), DrainOptions(), ("evict", None)),
    ("replicated", on_a("p").owner("ReplicaSet", "rs"), DrainOptions(), ("evict", None)),
]


@pytest.mark.parametrize("pod, opts, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filters(pod, opts, expected):
    state = make_cluster([make_node().name("a").dict(), make_node().name("b").dict(), pod.dict()])
    result = plan(state, ["a"], opts)
    pods = [d for d in result.pods if d.pod.name == "p"]
    if not pods:  # a finished pod does not reach the cluster state
        assert expected == ("evict", None)
        return
    (d,) = pods
    assert (d.action, d.refusal) == expected
    assert [r.reason for r in result.refusals] == ([expected[1]] if expected[1] else [])


def test_refusals_are_grouped_by_message_in_filter_order():
    pods = [
        on_a("z-bare").dict(),
        on_a("cache").owner("ReplicaSet", "rs").volume(EMPTY_DIR).dict(),
        on_a("a-bare").dict(),
        on_a("agent").owner("DaemonSet", "ds", api_version="apps/v1").dict(),
        on_a("web").owner("ReplicaSet", "web").dict(),
    ]
    state = make_cluster([make_node().name("a").dict(), make_node().name("b").dict(), *pods])
    result = plan(state, ["a"])
    assert [r.message for r in result.refusals] == [
        "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/agent",
        "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache",
        "cannot delete Pods that declare no controller (use --force to override): default/a-bare, default/z-bare",
    ]
    assert {d.pod.name: d.action for d in result.pods}["web"] == "not-evicted"


def test_pod_selector_leaves_the_others_out():
    pods = [on_a("web").owner("ReplicaSet", "web").label("app", "web").dict(), on_a("bare").dict()]
    state = make_cluster([make_node().name("a").dict(), *pods])
    result = plan(state, ["a"], DrainOptions(pod_selector=parse_selector("app=web")))
    assert [(d.pod.name, d.action) for d in result.pods] == [("web", "evict")]
    assert result.unselected == 1 and result.refusals == []
