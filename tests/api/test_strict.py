"""Strict field validation (api/strict.py): the unknown fields of a built-in object, named as the
API server's strict decoder names them, against the Kubernetes client's schema."""

from __future__ import annotations

import pytest

from kwhatif.api import strict
from kwhatif.release.schema import newer_than_schema
from kwhatif.release.versions import default_version


@pytest.mark.parametrize(
    "api_version,kind,model",
    [
        ("v1", "Pod", "V1Pod"),
        ("apps/v1", "Deployment", "V1Deployment"),
        ("batch/v1", "CronJob", "V1CronJob"),
        ("autoscaling/v2", "HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler"),
        ("policy/v1", "PodDisruptionBudget", "V1PodDisruptionBudget"),
        # custom resources and unknown kinds have no schema here: nothing is refused
        ("example.com/v1", "Widget", None),
        ("apps/v1", "Widget", None),
    ],
)
def test_model_of(api_version, kind, model):
    assert strict.model_of(api_version, kind) == model


def test_unknown_fields_are_named_by_their_path():
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"any-key": "v"}, "lables": {}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {
                    "containers": [
                        {"name": "a", "image": "x", "resources": {"requests": {"cpu": "1"}}},
                        {"name": "b", "image": "x", "resource": {}, "ports": [{"containerPort": 1, "hostport": 2}]},
                    ],
                    "nodeSelector": {"disk": "ssd"},
                    "volumes": [{"name": "v", "emptyDir": {"sizelimit": "1Gi"}}],
                },
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
        },
        "status": {},
    }
    assert strict.unknown_fields(body, "V1Deployment") == [
        "metadata.lables",
        "spec.template.spec.containers[1].resource",
        "spec.template.spec.containers[1].ports[0].hostport",
        "spec.template.spec.volumes[0].emptyDir.sizelimit",
    ]
    assert strict.strict_decoding_error("apps/v1", "Deployment", ["metadata.lables", "spec.x"]) == (
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field '
        '"metadata.lables", unknown field "spec.x"'
    )


def test_a_release_newer_than_the_schema_is_not_refused():
    known = strict.client_release()
    assert known is not None and known >= 30
    version = default_version()
    assert newer_than_schema(version, None) is False
    assert newer_than_schema(version, version.minor - 1) is True
    assert newer_than_schema(version, version.minor) is False
