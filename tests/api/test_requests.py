"""Pod requests as upstream computes them (PodRequests and calculateResource)."""

from __future__ import annotations

import pytest

from kwhatif.api.core import RuntimeClass
from kwhatif.api.quantity import parse_quantity
from kwhatif.controlplane.admission.pod import Admission

from builders import make_pod

Mi = 1024 * 1024


@pytest.mark.parametrize(
    "builder,cpu,mem,non0_cpu,non0_mem",
    [
        pytest.param(make_pod().name("p").req(cpu="1", memory="1Gi"), 1000, 1024 * Mi, 1000, 1024 * Mi, id="plain"),
        pytest.param(make_pod().name("p"), 0, 0, 100, 200 * Mi, id="nothing"),
        pytest.param(
            make_pod().name("p").req(cpu="500m").container("c2", memory="100Mi"),
            500,
            100 * Mi,
            600,
            300 * Mi,
            id="two-containers",
        ),
        # SetDefaults_ResourceList rounds each container's amounts up to thousandths before they
        # are summed: 0.4m twice is 2m, not 1m (and 0.0004 bytes twice 0.002, which Value() makes 1;
        # the pinned release's non-zero requests take Value() of each container, 1 + 1)
        pytest.param(
            make_pod().name("p").req(cpu="0.4m", memory="0.0004").container("c2", cpu="0.4m", memory="0.0004"),
            2,
            1,
            2,
            2,
            id="rounded-to-milli-before-the-sum",
        ),
        # init container larger than the app containers wins
        pytest.param(
            make_pod().name("p").req(cpu="1").init_container("i", cpu="3"), 3000, 0, 3000, 200 * Mi, id="init-wins"
        ),
        # a sidecar adds to the app containers and to every later init container
        pytest.param(
            make_pod()
            .name("p")
            .req(cpu="1")
            .init_container("side", sidecar=True, cpu="500m")
            .init_container("i", cpu="1"),
            1500,
            0,
            # non-zero: app 1000 vs init max(sidecar sum 500, init 1000+500) = 1500
            1500,
            200 * Mi,
            id="sidecar",
        ),
        pytest.param(
            make_pod().name("p").limits(cpu="2", memory="1Gi"),
            2000,
            1024 * Mi,
            2000,
            1024 * Mi,
            id="limits-default-requests",
        ),
        pytest.param(
            make_pod().name("p").req(cpu="1").overhead(cpu="250m", memory="120Mi"),
            1250,
            120 * Mi,
            1250,
            320 * Mi,
            id="overhead",
        ),
    ],
)
def test_requests(builder, cpu, mem, non0_cpu, non0_mem):
    pod = builder.obj()
    assert pod.requests.milli_cpu == cpu
    assert pod.requests.memory == mem
    assert (pod.non0_cpu, pod.non0_mem) == (non0_cpu, non0_mem)


def test_runtime_class_overhead_is_admitted():
    adm = Admission(
        {}, {"kata": RuntimeClass("kata", {"cpu": parse_quantity("250m"), "memory": parse_quantity("120Mi")})}
    )
    pod = adm.admit(make_pod().name("p").req(cpu="1").set("spec.runtimeClassName", "kata").obj(), strict=True)
    assert pod.requests.milli_cpu == 1250
    assert pod.requests.memory == 120 * Mi


def test_extended_and_hugepages_are_scalar():
    pod = (
        make_pod()
        .name("p")
        .req(**{"example.com/gpu": "2", "hugepages-2Mi": "4Mi"})
        .limits(**{"example.com/gpu": "2", "hugepages-2Mi": "4Mi"})
        .obj()
    )
    assert pod.requests.scalar == {"example.com/gpu": 2, "hugepages-2Mi": 4 * Mi}


def test_runtime_class_scheduling_is_merged():
    from kwhatif.api.core import Toleration
    from kwhatif.errors import FieldError

    rc = RuntimeClass("gvisor", None, {"sandbox": "gvisor"}, (Toleration("sandbox", "Exists", "", "NoSchedule"),))
    adm = Admission({}, {"gvisor": rc})
    pod = adm.admit(
        make_pod().name("p").node_selector(zone="a").set("spec.runtimeClassName", "gvisor").obj(), strict=True
    )
    assert dict(pod.node_selector) == {"zone": "a", "sandbox": "gvisor"}
    assert pod.tolerations == (Toleration("sandbox", "Exists", "", "NoSchedule"),)
    with pytest.raises(
        FieldError,
        match=r"conflict: runtimeClass.scheduling.nodeSelector\[sandbox\] = gvisor; pod.spec.nodeSelector\[sandbox\] = kata",
    ):
        adm.admit(
            make_pod().name("p").node_selector(sandbox="kata").set("spec.runtimeClassName", "gvisor").obj(), strict=True
        )
