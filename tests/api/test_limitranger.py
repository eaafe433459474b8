"""The LimitRanger admission plugin: upstream's tables (plugin/pkg/admission/limitranger
admission_test.go), its messages, and the LimitRange defaulting and validation."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kwhatif.api import quantity as q
from kwhatif.controlplane.admission.limitranger import (
    Amount,
    LimitRange,
    LimitRangeItem,
    limit_range,
    mutate_pod,
    validate_claim,
    validate_pod,
)
from kwhatif.errors import FieldError


def amounts(**kv: str) -> dict[str, Amount]:
    return {k.replace("_", "-"): Amount(q.parse_quantity(v), q.format_of(v)) for k, v in kv.items() if v}


def compute(cpu: str = "", memory: str = "") -> dict[str, str]:
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


def storage(ephemeral: str = "") -> dict[str, str]:
    return {"ephemeral-storage": ephemeral} if ephemeral else {}


def create_limit_range(
    kind: str, min: Any = None, max: Any = None, default: Any = None, default_request: Any = None, ratio: Any = None
) -> LimitRange:
    """createLimitRange: one item, as given (the tests convert it without defaulting it)."""

    def a(d: dict[str, str] | None) -> dict[str, Amount]:
        return {k: Amount(q.parse_quantity(v), q.format_of(v)) for k, v in (d or {}).items()}

    return LimitRange("test", "abc", (LimitRangeItem(kind, a(max), a(min), a(default), a(default_request), a(ratio)),))


def valid_pod(
    name: str,
    containers: int,
    requests: dict[str, str],
    limits: dict[str, str],
    init: list[tuple[dict[str, str], dict[str, str]]] = (),
    sidecar: tuple[dict[str, str], dict[str, str]] | None = None,
) -> dict[str, Any]:
    """validPod / validPodInit / withRestartableInitContainer."""

    def ctr(i: int, req: dict[str, str], lim: dict[str, str]) -> dict[str, Any]:
        return {"name": f"foo-{i}", "image": f"foo:V{i}", "resources": {"requests": dict(req), "limits": dict(lim)}}

    spec: dict[str, Any] = {"containers": [ctr(i, requests, limits) for i in range(containers)]}
    inits = [ctr(i, r, lim) for i, (r, lim) in enumerate(init)]
    if sidecar is not None:
        inits.append({**ctr(len(inits), *sidecar), "restartPolicy": "Always"})
    if inits:
        spec["initContainers"] = inits
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "test"}, "spec": spec}


C, P = "Container", "Pod"

SUCCESS_CASES = [
    pytest.param(
        valid_pod("ctr-min-cpu-request", 1, compute("100m"), {}),
        create_limit_range(C, min=compute("50m")),
        id="ctr-min-cpu-request",
    ),
    pytest.param(
        valid_pod("ctr-min-cpu-request-limit", 1, compute("100m"), compute("200m")),
        create_limit_range(C, min=compute("50m")),
        id="ctr-min-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-min-memory-request", 1, compute("", "60Mi"), {}),
        create_limit_range(C, min=compute("", "50Mi")),
        id="ctr-min-memory-request",
    ),
    pytest.param(
        valid_pod("ctr-min-memory-request-limit", 1, compute("", "60Mi"), compute("", "100Mi")),
        create_limit_range(C, min=compute("", "50Mi")),
        id="ctr-min-memory-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-request-limit", 1, compute("500m"), compute("1")),
        create_limit_range(C, max=compute("2")),
        id="ctr-max-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-limit", 1, {}, compute("1")),
        create_limit_range(C, max=compute("2")),
        id="ctr-max-cpu-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-mem-request-limit", 1, compute("", "250Mi"), compute("", "500Mi")),
        create_limit_range(C, max=compute("", "1Gi")),
        id="ctr-max-mem-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-ratio", 1, compute("500m"), compute("750m")),
        create_limit_range(C, ratio=compute("1.5")),
        id="ctr-max-cpu-ratio",
    ),
    pytest.param(
        valid_pod("ctr-max-mem-limit", 1, {}, compute("", "500Mi")),
        create_limit_range(C, max=compute("", "1Gi")),
        id="ctr-max-mem-limit",
    ),
    pytest.param(
        valid_pod("pod-min-cpu-request", 2, compute("75m"), {}),
        create_limit_range(P, min=compute("100m")),
        id="pod-min-cpu-request",
    ),
    pytest.param(
        valid_pod("pod-min-cpu-request-limit", 2, compute("75m"), compute("200m")),
        create_limit_range(P, min=compute("100m")),
        id="pod-min-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("pod-min-memory-request", 2, compute("", "60Mi"), {}),
        create_limit_range(P, min=compute("", "100Mi")),
        id="pod-min-memory-request",
    ),
    pytest.param(
        valid_pod("pod-min-memory-request-limit", 2, compute("", "60Mi"), compute("", "100Mi")),
        create_limit_range(P, min=compute("", "100Mi")),
        id="pod-min-memory-request-limit",
    ),
    pytest.param(
        valid_pod("pod-init-min-memory-request", 2, compute("", "60Mi"), {}, init=[(compute("", "100Mi"), {})]),
        create_limit_range(P, min=compute("", "100Mi")),
        id="pod-init-min-memory-request",
    ),
    pytest.param(
        valid_pod(
            "pod-init-min-memory-request-limit",
            2,
            compute("", "60Mi"),
            compute("", "100Mi"),
            init=[(compute("", "80Mi"), compute("", "100Mi"))],
        ),
        create_limit_range(P, min=compute("", "100Mi")),
        id="pod-init-min-memory-request-limit",
    ),
    pytest.param(
        valid_pod("pod-max-cpu-request-limit", 2, compute("500m"), compute("1")),
        create_limit_range(P, max=compute("2")),
        id="pod-max-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("pod-max-cpu-limit", 2, {}, compute("1")),
        create_limit_range(P, max=compute("2")),
        id="pod-max-cpu-limit",
    ),
    pytest.param(
        valid_pod(
            "pod-init-max-cpu-request-limit",
            2,
            compute("500m"),
            compute("1"),
            init=[(compute("1"), compute("2")), (compute("1"), compute("1"))],
        ),
        create_limit_range(P, max=compute("2")),
        id="pod-init-max-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("pod-init-max-cpu-limit", 2, {}, compute("1"), init=[({}, compute("2")), ({}, compute("2"))]),
        create_limit_range(P, max=compute("2")),
        id="pod-init-max-cpu-limit",
    ),
    pytest.param(
        valid_pod("pod-max-mem-request-limit", 2, compute("", "250Mi"), compute("", "500Mi")),
        create_limit_range(P, max=compute("", "1Gi")),
        id="pod-max-mem-request-limit",
    ),
    pytest.param(
        valid_pod("pod-max-mem-limit", 2, {}, compute("", "500Mi")),
        create_limit_range(P, max=compute("", "1Gi")),
        id="pod-max-mem-limit",
    ),
    pytest.param(
        valid_pod("pod-max-mem-ratio", 3, compute("", "300Mi"), compute("", "450Mi")),
        create_limit_range(P, max=compute("", "2Gi"), ratio=compute("", "1.5")),
        id="pod-max-mem-ratio",
    ),
    pytest.param(
        valid_pod("ctr-1-min-local-ephemeral-storage-request", 1, storage("60Mi"), {}),
        create_limit_range(C, min=storage("50Mi")),
        id="ctr-1-min-local-ephemeral-storage-request",
    ),
    pytest.param(
        valid_pod("ctr-2-max-local-ephemeral-storage-limit", 2, {}, storage("500Mi")),
        create_limit_range(C, max=storage("600Mi")),
        id="ctr-2-max-local-ephemeral-storage-limit",
    ),
    pytest.param(
        valid_pod("pod-max-local-ephemeral-storage-limit", 2, {}, storage("500Mi")),
        create_limit_range(P, max=storage("1Gi")),
        id="pod-max-local-ephemeral-storage-limit",
    ),
    pytest.param(
        valid_pod("pod-max-local-ephemeral-storage-ratio", 3, storage("300Mi"), storage("450Mi")),
        create_limit_range(P, max=storage("2Gi"), ratio=storage("1.5")),
        id="pod-max-local-ephemeral-storage-ratio",
    ),
]

ERROR_CASES = [
    pytest.param(
        valid_pod("ctr-min-cpu-request", 1, compute("40m"), {}),
        create_limit_range(C, min=compute("50m")),
        "minimum cpu usage per Container is 50m, but request is 40m",
        id="ctr-min-cpu-request",
    ),
    pytest.param(
        valid_pod("ctr-min-cpu-request-limit", 1, compute("40m"), compute("200m")),
        create_limit_range(C, min=compute("50m")),
        "minimum cpu usage per Container is 50m, but request is 40m",
        id="ctr-min-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-min-cpu-no-request-limit", 1, {}, {}),
        create_limit_range(C, min=compute("50m")),
        "minimum cpu usage per Container is 50m.  No request is specified",
        id="ctr-min-cpu-no-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-min-memory-request", 1, compute("", "40Mi"), {}),
        create_limit_range(C, min=compute("", "50Mi")),
        "minimum memory usage per Container is 50Mi, but request is 40Mi",
        id="ctr-min-memory-request",
    ),
    pytest.param(
        valid_pod("ctr-min-memory-no-request-limit", 1, {}, {}),
        create_limit_range(C, min=compute("", "50Mi")),
        "minimum memory usage per Container is 50Mi.  No request is specified",
        id="ctr-min-memory-no-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-request-limit", 1, compute("500m"), compute("2500m")),
        create_limit_range(C, max=compute("2")),
        "maximum cpu usage per Container is 2, but limit is 2500m",
        id="ctr-max-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-limit", 1, {}, compute("2500m")),
        create_limit_range(C, max=compute("2")),
        "maximum cpu usage per Container is 2, but limit is 2500m",
        id="ctr-max-cpu-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-no-request-limit", 1, {}, {}),
        create_limit_range(C, max=compute("2")),
        "maximum cpu usage per Container is 2.  No limit is specified",
        id="ctr-max-cpu-no-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-cpu-ratio", 1, compute("1250m"), compute("2500m")),
        create_limit_range(C, ratio=compute("1")),
        "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000",
        id="ctr-max-cpu-ratio",
    ),
    pytest.param(
        valid_pod("ctr-max-mem-request-limit", 1, compute("", "250Mi"), compute("", "2Gi")),
        create_limit_range(C, max=compute("", "1Gi")),
        "maximum memory usage per Container is 1Gi, but limit is 2Gi",
        id="ctr-max-mem-request-limit",
    ),
    pytest.param(
        valid_pod("ctr-max-mem-no-request-limit", 1, {}, {}),
        create_limit_range(C, max=compute("", "1Gi")),
        "maximum memory usage per Container is 1Gi.  No limit is specified",
        id="ctr-max-mem-no-request-limit",
    ),
    pytest.param(
        valid_pod("pod-min-cpu-request", 1, compute("75m"), {}),
        create_limit_range(P, min=compute("100m")),
        "minimum cpu usage per Pod is 100m, but request is 75m",
        id="pod-min-cpu-request",
    ),
    pytest.param(
        valid_pod("pod-min-memory-request-limit", 1, compute("", "60Mi"), compute("", "100Mi")),
        create_limit_range(P, min=compute("", "100Mi")),
        "minimum memory usage per Pod is 100Mi, but request is 60Mi",
        id="pod-min-memory-request-limit",
    ),
    pytest.param(
        valid_pod("pod-max-cpu-request-limit", 3, compute("500m"), compute("1")),
        create_limit_range(P, max=compute("2")),
        "maximum cpu usage per Pod is 2, but limit is 3",
        id="pod-max-cpu-request-limit",
    ),
    pytest.param(
        valid_pod("pod-max-mem-limit", 3, {}, compute("", "500Mi")),
        create_limit_range(P, max=compute("", "1Gi")),
        "maximum memory usage per Pod is 1Gi, but limit is 1500Mi",
        id="pod-max-mem-limit",
    ),
    pytest.param(
        valid_pod("pod-init-max-mem-limit", 1, {}, compute("", "500Mi"), init=[({}, compute("", "1.5Gi"))]),
        create_limit_range(P, max=compute("", "1Gi")),
        "maximum memory usage per Pod is 1Gi, but limit is 1536Mi",
        id="pod-init-max-mem-limit",
    ),
    pytest.param(
        valid_pod("pod-max-mem-ratio", 3, compute("", "250Mi"), compute("", "500Mi")),
        create_limit_range(P, max=compute("", "2Gi"), ratio=compute("", "1.5")),
        "memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000",
        id="pod-max-mem-ratio",
    ),
    pytest.param(
        valid_pod("ctr-1-max-local-ephemeral-storage-limit", 1, {}, storage("2Gi")),
        create_limit_range(C, max=storage("1Gi")),
        "maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi",
        id="ctr-1-max-local-ephemeral-storage-limit",
    ),
    pytest.param(
        valid_pod("pod-min-local-ephemeral-storage-request", 1, storage("60Mi"), {}),
        create_limit_range(P, min=storage("100Mi")),
        "minimum ephemeral-storage usage per Pod is 100Mi, but request is 60Mi",
        id="pod-min-local-ephemeral-storage-request",
    ),
    pytest.param(
        valid_pod(
            "ctr-max-cpu-limit-restartable-init-container",
            1,
            compute("1000m"),
            compute("1500m"),
            sidecar=(compute("1500m"), {}),
        ),
        create_limit_range(P, max=compute("2")),
        "maximum cpu usage per Pod is 2, but request is 2500m",
        id="ctr-max-cpu-limit-restartable-init-container",
    ),
]


@pytest.mark.parametrize("pod,lr", SUCCESS_CASES)
def test_pod_limit_func_success(pod: dict[str, Any], lr: LimitRange) -> None:
    # the tables call PodMutateLimitFunc then PodValidateLimitFunc on pods that were not defaulted
    assert validate_pod(pod, [lr]) is None


@pytest.mark.parametrize("pod,lr,message", ERROR_CASES)
def test_pod_limit_func_error(pod: dict[str, Any], lr: LimitRange, message: str) -> None:
    # upstream's table only asks for an error; the message is the one its constraint functions
    # build (each container that breaks the constraint adds the same one: the aggregate drops
    # duplicates)
    assert validate_pod(pod, [lr]) == message


def valid_limit_range() -> LimitRange:
    """validLimitRange: Pod min/max and Container min/max/default/defaultRequest."""
    return LimitRange(
        "test",
        "abc",
        (
            LimitRangeItem(P, amounts(cpu="200m", memory="4Gi"), amounts(cpu="50m", memory="2Mi"), {}, {}, {}),
            LimitRangeItem(
                C,
                amounts(cpu="100m", memory="2Gi"),
                amounts(cpu="25m", memory="1Mi"),
                amounts(cpu="75m", memory="10Mi"),
                amounts(cpu="50m", memory="5Mi"),
                {},
            ),
        ),
    )


def test_merge_pod_resource_requirements() -> None:
    # TestMergePodResourceRequirements: what is set, and the annotation saying so
    lr = valid_limit_range()
    pod, changed = mutate_pod(valid_pod("empty-resources", 1, {}, {}), [lr])
    assert pod["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "50m", "memory": "5Mi"},
        "limits": {"cpu": "75m", "memory": "10Mi"},
    }
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0"
    )
    pod, _ = mutate_pod(valid_pod("limit-memory", 1, compute("", "512Mi"), {}, init=[(compute("", "512Mi"), {})]), [lr])
    for c in pod["spec"]["containers"] + pod["spec"]["initContainers"]:
        assert c["resources"] == {
            "requests": {"cpu": "50m", "memory": "512Mi"},
            "limits": {"cpu": "75m", "memory": "10Mi"},
        }
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; "
        "cpu request for init container foo-0; cpu, memory limit for init container foo-0"
    )
    full = valid_pod(
        "limit-memory",
        1,
        compute("100m", "512Mi"),
        compute("200m", "1G"),
        init=[(compute("200m", "1G"), compute("400m", "2G"))],
    )
    pod, changed = mutate_pod(full, [lr])
    assert changed == [] and "annotations" not in pod["metadata"]
    assert pod["spec"] == full["spec"]


def test_pod_limit_func_apply_default() -> None:
    # TestPodLimitFuncApplyDefault: containers and init containers get the Container defaults
    pod, _ = mutate_pod(valid_pod("foo", 1, {}, {}, init=[({}, {})]), [valid_limit_range()])
    for c in pod["spec"]["containers"] + pod["spec"]["initContainers"]:
        res = c["resources"]
        assert (res["limits"]["memory"], res["limits"]["cpu"], res["requests"]["memory"], res["requests"]["cpu"]) == (
            "10Mi",
            "75m",
            "5Mi",
            "50m",
        )


def test_limits_become_requests_before_the_plugin_runs() -> None:
    # the API server's defaulting (requests from limits) comes before admission: a container
    # with only a limit keeps it as its request instead of getting the default request
    lr = valid_limit_range()
    pod, _ = mutate_pod(valid_pod("p", 1, {}, compute("80m")), [lr])
    assert pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "80m"


@pytest.mark.parametrize(
    "item,defaults,default_requests",
    [
        # SetDefaults_LimitRangeItem: max -> default -> defaultRequest; min -> defaultRequest
        pytest.param({"type": "Container", "max": {"cpu": "1"}}, {"cpu": "1"}, {"cpu": "1"}, id="max"),
        pytest.param({"type": "Container", "min": {"cpu": "100m"}}, {}, {"cpu": "100m"}, id="min"),
        pytest.param(
            {"type": "Container", "default": {"cpu": "1"}, "min": {"cpu": "100m"}},
            {"cpu": "1"},
            {"cpu": "1"},
            id="default-before-min",
        ),
        pytest.param({"type": "Pod", "max": {"cpu": "1"}}, {}, {}, id="pod-not-defaulted"),
    ],
)
def test_limit_range_defaulting(
    item: dict[str, Any], defaults: dict[str, str], default_requests: dict[str, str]
) -> None:
    lr = limit_range({"metadata": {"name": "lr", "namespace": "ns"}, "spec": {"limits": [item]}})
    (got,) = lr.items
    assert {k: str(v) for k, v in got.default.items()} == defaults
    assert {k: str(v) for k, v in got.default_request.items()} == default_requests


@pytest.mark.parametrize(
    "item,field,message",
    [
        pytest.param(
            {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}},
            "spec.limits[0].min[cpu]",
            'Invalid value: "2": min value 2 is greater than max value 1',
            id="min-above-max",
        ),
        pytest.param(
            {"type": "Container", "defaultRequest": {"cpu": "2"}, "default": {"cpu": "1"}},
            "spec.limits[0].defaultRequest[cpu]",
            'Invalid value: "2": default request value 2 is greater than default limit value 1',
            id="request-above-limit",
        ),
        pytest.param(
            {"type": "Pod", "default": {"cpu": "1"}},
            "spec.limits[0].default",
            "Forbidden: may not be specified when `type` is 'Pod'",
            id="pod-default",
        ),
        pytest.param(
            {"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}},
            "spec.limits[0].maxLimitRequestRatio[cpu]",
            'Invalid value: "500m": ratio 500m is less than 1',
            id="ratio-below-1",
        ),
        pytest.param(
            {"type": "Container", "max": {"pods": "1"}},
            "spec.limits[0].max[pods]",
            'Invalid value: "pods": must be a standard resource for containers',
            id="not-a-container-resource",
        ),
        pytest.param(
            {"type": "PersistentVolumeClaim", "default": {"storage": "1Gi"}},
            "spec.limits[0].limits",
            "Required value: either minimum or maximum storage value is required, but neither was provided",
            id="pvc-min-max",
        ),
        pytest.param(
            {"type": "Node"},
            "spec.limits[0].type",
            'Invalid value: "Node": must be a standard limit type or fully qualified',
            id="type",
        ),
    ],
)
def test_limit_range_validation(item: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(FieldError) as ei:
        limit_range({"metadata": {"name": "lr", "namespace": "ns"}, "spec": {"limits": [item]}})
    assert ei.value.field == field
    assert ei.value.message == message


@pytest.mark.parametrize(
    "request_size,lr,message",
    [
        # TestPersistentVolumeClaimLimitFunc
        pytest.param(
            "1Gi",
            create_limit_range("PersistentVolumeClaim", min={"storage": "1Gi"}),
            None,
            id="pvc-is-min-storage-request",
        ),
        pytest.param(
            "1Gi",
            create_limit_range("PersistentVolumeClaim", max={"storage": "1Gi"}),
            None,
            id="pvc-is-max-storage-request",
        ),
        pytest.param(
            "5Gi",
            create_limit_range("PersistentVolumeClaim", min={"storage": "1Gi"}, max={"storage": "10Gi"}),
            None,
            id="pvc-within-minmax-storage-request",
        ),
        pytest.param(
            "512Mi",
            create_limit_range("PersistentVolumeClaim", min={"storage": "1Gi"}),
            "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 512Mi",
            id="pvc-below-min-storage-request",
        ),
        pytest.param(
            "20Gi",
            create_limit_range("PersistentVolumeClaim", max={"storage": "10Gi"}),
            "maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi",
            id="pvc-exceeds-max-storage-request",
        ),
    ],
)
def test_persistent_volume_claim_limit_func(request_size: str, lr: LimitRange, message: str | None) -> None:
    pvc = {"metadata": {"name": "pvc"}, "spec": {"resources": {"requests": {"storage": request_size}}}}
    assert validate_claim(pvc, [lr]) == message


def test_amounts_keep_their_format() -> None:
    a = Amount(Fraction(3 << 29), q.BINARY_SI)
    assert str(a) == "1536Mi"
