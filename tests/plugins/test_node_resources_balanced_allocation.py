"""NodeResourcesBalancedAllocation: 100 * (1 - the spread of the resource fractions) after
placing the pod, from actual requests (no non-zero defaults), fractions capped at 1, and
scalar resources the pod does not request left out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kwhatif.errors import ConfigError
from kwhatif.framework.interface import CycleState
from kwhatif.plugins import node_resources_balanced_allocation as ba

from builders import PodBuilder, make_handle, make_node, make_pod, plugin_args

GPU = "example.com/gpu"
WITH_GPU = {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]}


def pod() -> PodBuilder:
    return make_pod().name("p")


def existing(i: int = 0) -> PodBuilder:
    return make_pod().name(f"e{i}").node("n1")


def score(pod: PodBuilder, pods: Sequence[PodBuilder] = (), args: dict[str, Any] | None = None, **capacity: str) -> int:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110", GPU: "4"}
    alloc.update(capacity)
    node = make_node().name("n1").capacity(**alloc).obj()
    h = make_handle([node], [e.obj() for e in pods])
    pl = ba.new(plugin_args(ba.NAME, args), h)
    p = pod.obj()
    st = CycleState()
    ni = h.snapshot.get("n1")
    assert pl.pre_score(st, p, [ni]).is_success()
    s, status = pl.score(st, p, ni)
    assert status.is_success()
    return s


CASES: list[tuple[str, PodBuilder, list[PodBuilder], dict[str, Any] | None, dict[str, str], int]] = [
    # two resources: 100 * (1 - |f1 - f2| / 2)
    ("balanced", pod().req(cpu="1", memory="2Gi"), [], None, {}, 100),
    ("two-resources", pod().req(cpu="2", memory="2Gi"), [], None, {}, 87),  # 0.5 vs 0.25
    ("existing-pods-count", pod().req(cpu="1", memory="2Gi"), [existing().req(cpu="1")], None, {}, 87),
    # no requests: actual zeros, not the 100m/200Mi defaults (those would give 99)
    ("no-requests-empty-node", pod(), [], None, {}, 100),
    # 0.5 vs 0: with the defaults it would be 0.525 vs 0.024, i.e. 74
    ("no-requests-busy-node", pod(), [existing().req(cpu="2")], None, {}, 75),
    # fractions are capped at 1: min(1, 1.5) vs 0 gives 50, not 25
    ("fraction-capped", pod().req(cpu="2"), [existing().req(cpu="4")], None, {}, 50),
    ("both-capped", pod().req(cpu="8", memory="16Gi"), [], None, {}, 100),
    # a resource the node does not have (allocatable 0) is left out
    ("no-cpu-on-node", pod().req(cpu="1", memory="2Gi"), [], None, {"cpu": "0"}, 100),
    # three or more resources: the standard deviation (0.25, 0.5, 0.75)
    ("three-resources", pod().req(cpu="1", memory="4Gi", **{GPU: "3"}), [], WITH_GPU, {}, 79),
    # a scalar resource the pod does not request is skipped even when the node has it in use
    (
        "extended-not-requested",
        pod().req(cpu="1", memory="2Gi"),
        [existing().req(**{GPU: "2"})],
        WITH_GPU,
        {},
        100,
    ),
    # requested: (0.25, 0.25, 0.5)
    (
        "extended-requested",
        pod().req(cpu="1", memory="2Gi", **{GPU: "1"}),
        [existing().req(**{GPU: "1"})],
        WITH_GPU,
        {},
        88,
    ),
    # requested but absent from the node: left out
    ("extended-not-on-node", pod().req(cpu="2", memory="2Gi", **{GPU: "1"}), [], WITH_GPU, {GPU: "0"}, 87),
    # cpu and memory are never skipped, even when the pod does not request them: (0, 0.5)
    ("native-not-requested", pod().req(memory="4Gi"), [], None, {}, 75),
    (
        "ephemeral-storage",
        pod().req(cpu="1", ephemeral_storage="5Gi"),
        [],
        {"resources": [{"name": "cpu"}, {"name": "ephemeral-storage"}]},
        {"ephemeral-storage": "10Gi"},
        87,  # 0.25 vs 0.5
    ),
    # (0.1, 0.19995, 0.3, 0.5): standard deviation 0.1480
    (
        "four-resources",
        pod().req(cpu="400m", memory="1638Mi", ephemeral_storage="3Gi", **{GPU: "2"}),
        [],
        {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "ephemeral-storage"}, {"name": GPU}]},
        {"ephemeral-storage": "10Gi"},
        85,
    ),
    ("single-resource", pod().req(cpu="3"), [], {"resources": [{"name": "cpu"}]}, {}, 100),
    # a restartable init container (sidecar) adds to the app containers: 0.5 vs 0.25
    ("sidecar", pod().req(cpu="1", memory="2Gi").init_container("side", sidecar=True, cpu="1"), [], None, {}, 87),
    # the pod overhead is part of its requests: 0.5 vs 0.25
    (
        "overhead",
        pod().req(cpu="1", memory="2Gi").overhead(cpu="1"),
        [],
        None,
        {},
        87,
    ),
]


@pytest.mark.parametrize("pod,pods,args,capacity,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_score(
    pod: PodBuilder,
    pods: list[PodBuilder],
    args: dict[str, Any] | None,
    capacity: dict[str, str],
    expected: int,
) -> None:
    assert score(pod, pods, args, **capacity) == expected


@pytest.mark.parametrize(
    "requested,allocatable,expected",
    [
        pytest.param([1, 1], [2, 4], 87, id="two"),
        pytest.param([0, 0], [0, 0], 100, id="nothing"),
        pytest.param([3, 0], [4, 0], 100, id="one-left"),
        pytest.param([5, 0], [4, 4], 50, id="capped"),
        pytest.param([1, 2, 3], [4, 4, 4], 79, id="three"),
        pytest.param([1, 2, 3, 4], [10, 10, 10, 10], 88, id="four"),
        pytest.param([3, 6], [10, 10], 85, id="exact"),
        # float64 as upstream: 0.6 - 0.8 is not exactly -0.2, so 100 * 0.9 truncates to 89
        pytest.param([6, 8], [10, 10], 89, id="float-truncation"),
        pytest.param([1, 8], [10, 10], 64, id="float-truncation-2"),
    ],
)
def test_balanced_resource_scorer(requested: list[int], allocatable: list[int], expected: int) -> None:
    assert ba.balanced_resource_scorer(requested, allocatable) == expected


def test_score_without_pre_score_state() -> None:
    node = make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj()
    h = make_handle([node])
    s, status = ba.new(plugin_args(ba.NAME), h).score(
        CycleState(), pod().req(cpu="2", memory="2Gi").obj(), h.snapshot.get("n1")
    )
    assert (s, status.is_success()) == (87, True)


# --- args ---------------------------------------------------------------------------------------


def test_default_resources() -> None:
    assert [(r.name, r.weight) for r in ba.new(plugin_args(ba.NAME), make_handle([])).resources] == [
        ("cpu", 1),
        ("memory", 1),
    ]
    assert [(r.name, r.weight) for r in ba.new(plugin_args(ba.NAME, {"resources": []}), make_handle([])).resources] == [
        ("cpu", 1),
        ("memory", 1),
    ]


def test_weight_defaults_to_one() -> None:
    pl = ba.new(plugin_args(ba.NAME, {"resources": [{"name": "cpu", "weight": 0}, {"name": GPU}]}), make_handle([]))
    assert [(r.name, r.weight) for r in pl.resources] == [("cpu", 1), (GPU, 1)]


# Decoded, defaulted and validated by the configuration (kwhatif.config), under the pluginConfig
# entry's args.
@pytest.mark.parametrize(
    "args,field,message",
    [
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 2}]},
            "resources[0].weight",
            "Invalid value: 2: must be 1",
            id="weight-2",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": -1}]},
            "resources[0].weight",
            "Invalid value: -1: must be 1",
            id="weight-negative",
        ),
        pytest.param(
            {
                "resources": [
                    {"name": "cpu", "weight": 1},
                    {"name": "memory", "weight": 1},
                    {"name": "cpu", "weight": 1},
                ]
            },
            "resources[2].name",
            'Duplicate value: "cpu"',
            id="duplicate",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 1, "extra": True}]},
            "resources[0]",
            'unknown field "extra"',
            id="unknown-resource-field",
        ),
        pytest.param({"bogus": []}, "", 'unknown field "bogus"', id="unknown-field"),
        pytest.param(
            {"resources": {"name": "cpu"}},
            "resources",
            "cannot unmarshal object into Go value of type []v1.ResourceSpec",
            id="not-a-list",
        ),
    ],
)
def test_bad_args(args: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        plugin_args(ba.NAME, args)
    assert e.value.field == "profiles[0].pluginConfig[0].args" + (f".{field}" if field else "")
    assert e.value.message == message
