"""resource.k8s.io objects load from cluster files in v1, v1beta2 and v1beta1, converted to one
shape as the API server converts them, and bad input is refused naming file, object and field."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from kwhatif.errors import InputError
from kwhatif.load.cluster import load_cluster

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"allocatable": {"cpu": "4", "pods": "10"}},
}

SLICE_V1 = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "n1-gpu"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {"model": {"string": "a100"}, "gpu.example.com/index": {"int": 0}},
                "capacity": {"memory": {"value": "40Gi"}},
                "taints": [{"key": "k", "effect": "NoSchedule"}],
            }
        ],
    },
}
SLICE_V1BETA1 = {
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "ResourceSlice",
    "metadata": {"name": "n1-gpu"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
        "devices": [
            {
                "name": "gpu-0",
                "basic": {
                    "attributes": {"model": {"string": "a100"}, "gpu.example.com/index": {"int": 0}},
                    "capacity": {"memory": {"value": "40Gi"}},
                    "taints": [{"key": "k", "effect": "NoSchedule"}],
                },
            }
        ],
    },
}
CLAIM_V1 = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ml"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.example.com",
                        "count": 2,
                        "selectors": [{"cel": {"expression": "true"}}],
                    },
                },
                {
                    "name": "nic",
                    "firstAvailable": [
                        {"name": "fast", "deviceClassName": "nic"},
                        {"name": "slow", "deviceClassName": "nic", "allocationMode": "All"},
                    ],
                },
            ],
            "constraints": [{"requests": ["gpu", "nic/fast"], "matchAttribute": "gpu.example.com/numa"}],
        }
    },
}
CLAIM_V1BETA1 = {
    "apiVersion": "resource.k8s.io/v1beta1",
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ml"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "gpu",
                    "deviceClassName": "gpu.example.com",
                    "count": 2,
                    "selectors": [{"cel": {"expression": "true"}}],
                },
                {
                    "name": "nic",
                    "firstAvailable": [
                        {"name": "fast", "deviceClassName": "nic"},
                        {"name": "slow", "deviceClassName": "nic", "allocationMode": "All"},
                    ],
                },
            ],
            "constraints": [{"requests": ["gpu", "nic/fast"], "matchAttribute": "gpu.example.com/numa"}],
        }
    },
}


def load(tmp_path: Path, *objs: dict[str, Any]) -> Any:
    p = tmp_path / "cluster.yaml"
    p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [NODE, *objs]}))
    return load_cluster([str(p)])


@pytest.mark.parametrize(
    "body",
    [SLICE_V1, SLICE_V1BETA1, {**SLICE_V1, "apiVersion": "resource.k8s.io/v1beta2"}],
    ids=["v1", "v1beta1", "v1beta2"],
)
def test_resource_slice_versions_convert_to_one_shape(tmp_path, body):
    state = load(tmp_path, body)
    (s,) = state.resource_slices
    assert (s.name, s.driver, s.pool, s.node_name, s.generation, s.resource_slice_count) == (
        "n1-gpu",
        "gpu.example.com",
        "n1",
        "n1",
        1,
        1,
    )
    (d,) = s.devices
    assert d.name == "gpu-0"
    assert d.attributes["model"].string_value == "a100"
    assert d.attributes["gpu.example.com/index"].int_value == 0
    assert d.capacity["memory"].value == Fraction(40 * 2**30)
    assert d.taints[0].effect == "NoSchedule"


@pytest.mark.parametrize("body", [CLAIM_V1, CLAIM_V1BETA1], ids=["v1", "v1beta1"])
def test_resource_claim_versions_convert_to_one_shape(tmp_path, body):
    state = load(tmp_path, body)
    c = state.resource_claims["ml/c"]
    gpu, nic = c.spec.requests
    assert gpu.exactly is not None and not gpu.first_available
    assert (gpu.exactly.device_class_name, gpu.exactly.count, gpu.exactly.allocation_mode) == (
        "gpu.example.com",
        2,
        "ExactCount",
    )
    assert nic.exactly is None
    assert [(s.name, s.allocation_mode, s.count) for s in nic.first_available] == [
        ("fast", "ExactCount", 1),
        ("slow", "All", 0),
    ]
    assert c.spec.constraints[0].requests == ("gpu", "nic/fast")


def test_device_class_and_template(tmp_path):
    state = load(
        tmp_path,
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1beta2",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ml"},
            "spec": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}},
            },
        },
    )
    assert state.device_classes["gpu"].selectors[0].expression == 'device.driver == "gpu.example.com"'
    tpl = state.resource_claim_templates["ml/t"]
    assert tpl.labels == {"a": "b"} and tpl.spec.requests[0].exactly.count == 1


def test_allocated_claim_status(tmp_path):
    body = {
        **CLAIM_V1,
        "status": {
            "allocation": {
                "devices": {
                    "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"}],
        },
    }
    c = load(tmp_path, body).resource_claims["ml/c"]
    assert c.allocation is not None and c.allocation.node_name == "n1"
    assert c.allocation.results[0].device_id == ("gpu.example.com", "n1", "gpu-0")
    assert c.reserved_for[0].uid == "u1"


def test_pod_resource_claims(tmp_path):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "resourceClaims": [
                {"name": "gpus", "resourceClaimTemplateName": "t"},
                {"name": "shared", "resourceClaimName": "c"},
            ],
        },
        "status": {"resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": "p-gpus-abcde"}]},
    }
    (p,) = load(tmp_path, pod).pending_pods
    assert [(c.name, c.resource_claim_name, c.resource_claim_template_name) for c in p.resource_claims] == [
        ("gpus", None, "t"),
        ("shared", "c", None),
    ]
    assert p.resource_claim_statuses == {"gpus": "p-gpus-abcde"}


def _with(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    import copy

    out = copy.deepcopy(body)
    cur: Any = out
    keys = path.split(".")
    for k in keys[:-1]:
        cur = cur[int(k)] if k.isdigit() else cur[k]
    last = keys[-1]
    if last.isdigit():
        cur[int(last)] = value
    else:
        cur[last] = value
    return out


@pytest.mark.parametrize(
    "body, message",
    [
        pytest.param(
            _with(SLICE_V1, "spec.devices.0.capacity.memory.value", "40x"),
            "ResourceSlice n1-gpu: spec.devices[0].capacity[memory].value: Invalid value: \"40x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            id="bad-quantity",
        ),
        pytest.param(
            _with(SLICE_V1BETA1, "spec.devices.0.basic.attributes.model", {"string": "a", "int": 1}),
            "ResourceSlice n1-gpu: spec.devices[0].basic.attributes[model]: Invalid value",
            id="two-attribute-values-v1beta1",
        ),
        pytest.param(
            _with(SLICE_V1, "spec.pool.resourceSliceCount", 0),
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
            id="slice-count",
        ),
        pytest.param(
            _with(SLICE_V1, "spec.devices.0.taints.0.effect", "Sometimes"),
            'spec.devices[0].taints[0].effect: Unsupported value: "Sometimes"',
            id="taint-effect",
        ),
        pytest.param(
            _with(CLAIM_V1, "spec.devices.requests.0.exactly.allocationMode", "Some"),
            'ResourceClaim ml/c: spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some"',
            id="allocation-mode",
        ),
        pytest.param(
            _with(CLAIM_V1, "spec.devices.requests.0.exactly.count", 0),
            "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero",
            id="count",
        ),
        pytest.param(
            _with(CLAIM_V1, "spec.devices.requests.0", {"name": "gpu"}),
            'spec.devices.requests[0]: Invalid value: "gpu": exactly one of `exactly` or `firstAvailable` is required',
            id="no-request-kind",
        ),
        pytest.param(
            _with(CLAIM_V1BETA1, "spec.devices.requests.0", {"name": "gpu"}),
            "spec.devices.requests[0].deviceClassName: Required value",
            id="v1beta1-no-class",
        ),
        pytest.param(
            _with(CLAIM_V1, "spec.devices.constraints.0.requests", ["nope"]),
            'spec.devices.constraints[0].requests[0]: Invalid value: "nope"',
            id="constraint-unknown-request",
        ),
        pytest.param(
            {**SLICE_V1, "apiVersion": "resource.k8s.io/v2"},
            "unknown apiVersion 'resource.k8s.io/v2' for ResourceSlice",
            id="unknown-version",
        ),
    ],
)
def test_bad_input(tmp_path, body, message):
    with pytest.raises(InputError) as err:
        load(tmp_path, body)
    assert message in str(err.value), str(err.value)
    assert str(err.value).startswith(str(tmp_path / "cluster.yaml"))
