"""NodePorts: host port conflicts by (hostIP, protocol, port), with 0.0.0.0 (or no hostIP)
binding every address, and PreFilter Skip for pods without host ports."""

from __future__ import annotations

import pytest

from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_ports as np

from builders import PodBuilder, make_handle, make_node, make_pod

CONFLICT = (Code.UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))
OK = (Code.SUCCESS, ())
SKIP = (Code.SKIP, ())


def pod() -> PodBuilder:
    return make_pod().name("p")


def existing(i: int = 0) -> PodBuilder:
    return make_pod().name(f"e{i}").node("n1")


def run(pod: PodBuilder, pods: list[PodBuilder]) -> tuple[Code, tuple[str, ...]]:
    h = make_handle([make_node().name("n1").obj()], [e.obj() for e in pods])
    pl = np.new(None, h)
    st = CycleState()
    p = pod.obj()
    _, pre = pl.pre_filter(st, p)
    if not pre.is_success():
        return pre.code, pre.reasons
    status = pl.filter(st, p, h.snapshot.get("n1"))
    return status.code, status.reasons


CASES = [
    pytest.param(pod(), [existing().host_port(80)], SKIP, id="no-ports"),
    pytest.param(
        pod().set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]),
        [existing().host_port(80)],
        SKIP,
        id="container-port-without-host-port",
    ),
    pytest.param(pod().host_port(80), [], OK, id="free-node"),
    pytest.param(pod().host_port(80), [existing().host_port(80)], CONFLICT, id="same-port"),
    pytest.param(pod().host_port(80), [existing().host_port(8080)], OK, id="other-port"),
    pytest.param(pod().host_port(53, "UDP"), [existing().host_port(53, "TCP")], OK, id="other-protocol"),
    pytest.param(pod().host_port(53, "UDP"), [existing().host_port(53, "UDP")], CONFLICT, id="same-udp"),
    pytest.param(pod().host_port(9, "SCTP"), [existing().host_port(9, "SCTP")], CONFLICT, id="same-sctp"),
    pytest.param(
        pod().host_port(80), [existing().host_port(80, host_ip="10.0.0.1")], CONFLICT, id="wildcard-wants-specific-used"
    ),
    pytest.param(
        pod().host_port(80, host_ip="10.0.0.1"), [existing().host_port(80)], CONFLICT, id="specific-wants-wildcard-used"
    ),
    pytest.param(
        pod().host_port(80, host_ip="0.0.0.0"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        CONFLICT,
        id="explicit-wildcard-wants",
    ),
    pytest.param(
        pod().host_port(80, host_ip="10.0.0.1"),
        [existing().host_port(80, host_ip="0.0.0.0")],
        CONFLICT,
        id="explicit-wildcard-used",
    ),
    pytest.param(
        pod().host_port(80, host_ip="10.0.0.1"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        CONFLICT,
        id="same-specific-ip",
    ),
    pytest.param(
        pod().host_port(80, host_ip="10.0.0.2"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        OK,
        id="different-specific-ips",
    ),
    pytest.param(
        pod().host_port(80, "UDP"),
        [existing().host_port(80, "TCP", host_ip="10.0.0.1")],
        OK,
        id="wildcard-other-protocol",
    ),
    pytest.param(
        pod().host_port(80).host_port(443),
        [existing(0).host_port(8080), existing(1).host_port(443)],
        CONFLICT,
        id="second-port-conflicts",
    ),
    pytest.param(
        pod().set(
            "spec.containers",
            [
                {"name": "a", "image": "nginx"},
                {"name": "b", "image": "nginx", "ports": [{"containerPort": 9000, "hostPort": 9000}]},
            ],
        ),
        [existing().host_port(9000)],
        CONFLICT,
        id="second-container",
    ),
    # init containers' host ports are not counted, neither on the pod nor on the node
    pytest.param(
        pod().set(
            "spec.initContainers",
            [{"name": "i", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 80}]}],
        ),
        [existing().host_port(80)],
        SKIP,
        id="init-container-port-ignored",
    ),
    pytest.param(
        pod().host_port(80),
        [
            existing().set(
                "spec.initContainers",
                [{"name": "i", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 80}]}],
            )
        ],
        OK,
        id="existing-init-container-port-ignored",
    ),
    # hostNetwork: the API server defaults hostPort to containerPort
    pytest.param(
        pod()
        .set("spec.hostNetwork", True)
        .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]),
        [existing().host_port(80)],
        CONFLICT,
        id="host-network-pod",
    ),
    pytest.param(
        pod().host_port(80),
        [
            existing()
            .set("spec.hostNetwork", True)
            .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}])
        ],
        CONFLICT,
        id="host-network-existing",
    ),
    pytest.param(
        pod().host_port(80),
        [
            existing()
            .set("spec.hostNetwork", True)
            .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 81}]}])
        ],
        OK,
        id="host-network-other-port",
    ),
]


@pytest.mark.parametrize("pod,pods,expected", CASES)
def test_filter(pod: PodBuilder, pods: list[PodBuilder], expected: tuple[Code, tuple[str, ...]]) -> None:
    assert run(pod, pods) == expected


def test_pre_filter_state_holds_the_wanted_ports() -> None:
    pl = np.new(None, make_handle([]))
    st = CycleState()
    p = pod().host_port(80).host_port(53, "UDP", "10.0.0.1").obj()
    result, status = pl.pre_filter(st, p)
    assert result is None and status.code is Code.SUCCESS
    ports = st.read(np.PRE_FILTER_STATE_KEY)
    assert [(c.host_ip, c.protocol, c.host_port) for c in ports] == [("", "TCP", 80), ("10.0.0.1", "UDP", 53)]


def test_host_network_defaulting_as_parsed() -> None:
    p = (
        pod()
        .set("spec.hostNetwork", True)
        .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 8080}]}])
        .obj()
    )
    assert [(c.container_port, c.host_port) for c in p.host_ports()] == [(8080, 8080)]
