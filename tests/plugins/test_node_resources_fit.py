"""NodeResourcesFit: filter reasons and LeastAllocated/MostAllocated/RTCR scores."""

from __future__ import annotations

import pytest

from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_resources_fit as fit

from builders import make_handle, make_node, make_pod, plugin_args

NODE = make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="3", **{"example.com/gpu": "2"})


def run_filter(pod, node, existing=(), args=None):
    h = make_handle([node], existing)
    pl = fit.new(plugin_args(fit.NAME, args), h)
    st = CycleState()
    pl.pre_filter(st, pod)
    return pl.filter(st, pod, h.snapshot.get(node.name))


@pytest.mark.parametrize(
    "pod,existing,code,reasons",
    [
        pytest.param(make_pod().name("p").req(cpu="1", memory="1Gi"), [], Code.SUCCESS, (), id="fits"),
        pytest.param(make_pod().name("p").req(cpu="5"), [], Code.UNSCHEDULABLE, ("Insufficient cpu",), id="cpu"),
        pytest.param(
            make_pod().name("p").req(cpu="5", memory="9Gi"),
            [],
            Code.UNSCHEDULABLE,
            ("Insufficient cpu", "Insufficient memory"),
            id="cpu-and-memory",
        ),
        pytest.param(
            make_pod().name("p").req(**{"example.com/gpu": "3"}),
            [],
            Code.UNSCHEDULABLE,
            ("Insufficient example.com/gpu",),
            id="extended",
        ),
        pytest.param(
            make_pod().name("p").req(cpu="3"),
            [make_pod().name("e1").node("n1").req(cpu="2")],
            Code.UNSCHEDULABLE,
            ("Insufficient cpu",),
            id="used-cpu",
        ),
        pytest.param(
            make_pod().name("p"),
            [make_pod().name(f"e{i}").node("n1") for i in range(3)],
            Code.UNSCHEDULABLE,
            ("Too many pods",),
            id="too-many-pods",
        ),
        pytest.param(
            make_pod().name("p").req(cpu="4"),
            [make_pod().name(f"e{i}").node("n1").req(cpu="1") for i in range(3)],
            Code.UNSCHEDULABLE,
            ("Too many pods", "Insufficient cpu"),
            id="pods-then-cpu",
        ),
        pytest.param(
            make_pod().name("p").req(ephemeral_storage="1Gi"),
            [],
            Code.UNSCHEDULABLE,
            ("Insufficient ephemeral-storage",),
            id="ephemeral",
        ),
        pytest.param(
            # the API server wants cpu or memory with hugepages ("HugePages require cpu or memory")
            make_pod().name("p").req(cpu="1m", hugepages_2Mi="2Mi").limits(hugepages_2Mi="2Mi"),
            [],
            Code.UNSCHEDULABLE,
            ("Insufficient hugepages-2Mi",),
            id="hugepages",
        ),
    ],
)
def test_filter(pod, existing, code, reasons):
    st = run_filter(pod.obj(), NODE.obj(), [e.obj() for e in existing])
    assert st.code is code
    assert st.reasons == reasons


@pytest.mark.parametrize(
    "args,pod,code",
    [
        pytest.param(
            {"ignoredResources": ["example.com/gpu"]},
            make_pod().name("p").req(**{"example.com/gpu": "3"}),
            Code.SUCCESS,
            id="ignored-resource",
        ),
        pytest.param(
            {"ignoredResourceGroups": ["example.com"]},
            make_pod().name("p").req(**{"example.com/gpu": "3"}),
            Code.SUCCESS,
            id="ignored-group",
        ),
        pytest.param(
            {"ignoredResourceGroups": ["other.io"]},
            make_pod().name("p").req(**{"example.com/gpu": "3"}),
            Code.UNSCHEDULABLE,
            id="other-group",
        ),
    ],
)
def test_filter_ignored(args, pod, code):
    assert run_filter(pod.obj(), NODE.obj(), args=args).code is code


def test_sidecar_and_init_requests():
    # app 1 cpu + sidecar 500m; a regular init container of 2 cpu runs after the sidecar
    pod = (
        make_pod()
        .name("p")
        .req(cpu="1")
        .init_container("side", sidecar=True, cpu="500m")
        .init_container("init", cpu="2")
    )
    p = pod.obj()
    # max(1 + 0.5, 2 + 0.5) = 2.5
    assert p.requests.milli_cpu == 2500


def score(pod, node, existing=(), args=None):
    h = make_handle([node], existing)
    pl = fit.new(plugin_args(fit.NAME, args), h)
    st = CycleState()
    pl.pre_score(st, pod, [h.snapshot.get(node.name)])
    s, status = pl.score(st, pod, h.snapshot.get(node.name))
    assert status.is_success()
    return s


@pytest.mark.parametrize(
    "args,pod,expected",
    [
        pytest.param(None, make_pod().name("p").req(cpu="1", memory="2Gi"), 62, id="least"),  # (75 + 50) / 2
        pytest.param(
            None, make_pod().name("p"), 96, id="least-defaults"
        ),  # non-zero defaults 100m, 200Mi: (97 + 95) / 2
        pytest.param(
            {"scoringStrategy": {"type": "MostAllocated"}},
            make_pod().name("p").req(cpu="1", memory="2Gi"),
            37,
            id="most",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "LeastAllocated",
                    "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
                }
            },
            make_pod().name("p").req(cpu="1", memory="2Gi"),
            68,  # (75*3 + 50) / 4,
            id="least-weighted",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
                    },
                }
            },
            make_pod().name("p").req(cpu="1", memory="2Gi"),
            63,  # cpu 25% -> 75, memory 50% -> 50, round(62.5) = 63,
            id="rtcr",
        ),
    ],
)
def test_score(args, pod, expected):
    node = make_node().name("n1").capacity(cpu="4", memory="4Gi", pods="110").obj()
    assert score(pod.obj(), node, args=args) == expected


def test_rtcr_without_shape_is_rejected():
    from kwhatif.errors import ConfigError

    with pytest.raises(ConfigError, match="requestedToCapacityRatio"):
        fit.new(plugin_args(fit.NAME, {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}), make_handle([]))


# Upstream's TestEnoughRequests (noderesources/fit_test.go, v1.30) on its node of
# makeAllocatableResources(10, 20, 32, 5, 20, 5): 10m cpu, 20 bytes, 32 pods, 5 example.com/aaa,
# 20 bytes of ephemeral storage, 5 bytes of hugepages-2Mi. Resources with a kubernetes.io/ prefix
# are native, not extended: ignoredResourceGroups never skips them.
UPSTREAM_NODE = (
    make_node()
    .name("n1")
    .capacity(cpu="10m", memory="20", pods="32", ephemeral_storage="20", hugepages_2Mi="5", **{"example.com/aaa": "5"})
)
KUBERNETES_IO_A = "kubernetes.io/something"
KUBERNETES_IO_B = "subdomain.kubernetes.io/something"


@pytest.mark.parametrize(
    "pod,args,reasons",
    [
        pytest.param(
            make_pod().name("p").req(cpu="1m", memory="1", **{KUBERNETES_IO_A: "10"}),
            None,
            ("Insufficient kubernetes.io/something",),
            id="kubernetes.io resource capacity enforced",
        ),
        pytest.param(
            make_pod().name("p").init_container("init", cpu="1m", memory="1", **{KUBERNETES_IO_B: "10"}),
            None,
            ("Insufficient subdomain.kubernetes.io/something",),
            id="kubernetes.io resource capacity enforced for init container",
        ),
        pytest.param(
            make_pod().name("p").req(cpu="1m", memory="1", **{"example.com/bbb": "1", KUBERNETES_IO_A: "1"}),
            {"ignoredResourceGroups": ["example.com"]},
            ("Insufficient kubernetes.io/something",),
            id="skip checking ignored extended resource via resource groups",
        ),
        pytest.param(
            make_pod().name("p").req(cpu="1m", memory="1", **{"example.com/bbb": "1"}),
            {"ignoredResources": ["example.com/bbb"]},
            (),
            id="skip checking ignored extended resource",
        ),
    ],
)
def test_enough_requests_upstream(pod, args, reasons):
    st = run_filter(pod.obj(), UPSTREAM_NODE.obj(), args=args)
    assert st.reasons == reasons
    assert st.code is (Code.UNSCHEDULABLE if reasons else Code.SUCCESS)
