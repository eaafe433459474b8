"""NodePorts: host port conflicts by (hostIP, protocol, port), with 0.0.0.0 (or no hostIP)
binding every address, and PreFilter Skip for pods without host ports."""

from __future__ import annotations

import pytest

from builders import PodBuilder, make_handle, make_node, make_pod
from kwhatif.framework.interface import Code, CycleState
from kwhatif.plugins import node_ports as np

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


CASES: list[tuple[str, PodBuilder, list[PodBuilder], tuple[Code, tuple[str, ...]]]] = [
    ("no-ports", pod(), [existing().host_port(80)], SKIP),
    (
        "container-port-without-host-port",
        pod().set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]),
        [existing().host_port(80)],
        SKIP,
    ),
    ("free-node", pod().host_port(80), [], OK),
    ("same-port", pod().host_port(80), [existing().host_port(80)], CONFLICT),
    ("other-port", pod().host_port(80), [existing().host_port(8080)], OK),
    ("other-protocol", pod().host_port(53, "UDP"), [existing().host_port(53, "TCP")], OK),
    ("same-udp", pod().host_port(53, "UDP"), [existing().host_port(53, "UDP")], CONFLICT),
    ("same-sctp", pod().host_port(9, "SCTP"), [existing().host_port(9, "SCTP")], CONFLICT),
    ("wildcard-wants-specific-used", pod().host_port(80), [existing().host_port(80, host_ip="10.0.0.1")], CONFLICT),
    ("specific-wants-wildcard-used", pod().host_port(80, host_ip="10.0.0.1"), [existing().host_port(80)], CONFLICT),
    (
        "explicit-wildcard-wants",
        pod().host_port(80, host_ip="0.0.0.0"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        CONFLICT,
    ),
    (
        "explicit-wildcard-used",
        pod().host_port(80, host_ip="10.0.0.1"),
        [existing().host_port(80, host_ip="0.0.0.0")],
        CONFLICT,
    ),
    (
        "same-specific-ip",
        pod().host_port(80, host_ip="10.0.0.1"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        CONFLICT,
    ),
    (
        "different-specific-ips",
        pod().host_port(80, host_ip="10.0.0.2"),
        [existing().host_port(80, host_ip="10.0.0.1")],
        OK,
    ),
    (
        "wildcard-other-protocol",
        pod().host_port(80, "UDP"),
        [existing().host_port(80, "TCP", host_ip="10.0.0.1")],
        OK,
    ),
    (
        "second-port-conflicts",
        pod().host_port(80).host_port(443),
        [existing(0).host_port(8080), existing(1).host_port(443)],
        CONFLICT,
    ),
    (
        "second-container",
        pod().set(
            "spec.containers",
            [
                {"name": "a", "image": "nginx"},
                {"name": "b", "image": "nginx", "ports": [{"containerPort": 9000, "hostPort": 9000}]},
            ],
        ),
        [existing().host_port(9000)],
        CONFLICT,
    ),
    # init containers' host ports are not counted, neither on the pod nor on the node
    (
        "init-container-port-ignored",
        pod().set(
            "spec.initContainers",
            [{"name": "i", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 80}]}],
        ),
        [existing().host_port(80)],
        SKIP,
    ),
    (
        "existing-init-container-port-ignored",
        pod().host_port(80),
        [
            existing().set(
                "spec.initContainers",
                [{"name": "i", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 80}]}],
            )
        ],
        OK,
    ),
    # hostNetwork: the API server defaults hostPort to containerPort
    (
        "host-network-pod",
        pod()
        .set("spec.hostNetwork", True)
        .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]),
        [existing().host_port(80)],
        CONFLICT,
    ),
    (
        "host-network-existing",
        pod().host_port(80),
        [
            existing()
            .set("spec.hostNetwork", True)
            .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}])
        ],
        CONFLICT,
    ),
    (
        "host-network-other-port",
        pod().host_port(80),
        [
            existing()
            .set("spec.hostNetwork", True)
            .set("spec.containers", [{"name": "c", "image": "nginx", "ports": [{"containerPort": 81}]}])
        ],
        OK,
    ),
]


@pytest.mark.parametrize("pod,pods,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
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
