"""The API server's admission as one chain: each plugin's answer is a value (Admitted or Refused,
naming the plugin), in upstream's order, and the chain reads the cluster as it is now."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.api import parse
from kwhatif.api.core import Pod
from kwhatif.api.storage import persistent_volume_claim
from kwhatif.controlplane.admission.chain import (
    LIMIT_RANGER,
    NAMESPACE_LIFECYCLE,
    PRIORITY,
    RESOURCE_QUOTA,
    AdmissionChain,
    Admitted,
    Refused,
)
from kwhatif.controlplane.admission.resourcequota import QuotaLedger

from builders import make_cluster

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
LIMITS = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "caps", "namespace": "shop"},
    "spec": {
        "limits": [
            {"type": "Container", "max": {"cpu": "1"}, "default": {"cpu": "500m"}},
            {"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}},
        ]
    },
}
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "small", "namespace": "shop"},
    "spec": {"hard": {"pods": "1"}},
}


def pod_body(ns: str = "shop", cpu: str | None = None, priority_class: str | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "nginx"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    spec: dict[str, Any] = {"containers": [container]}
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": ns}, "spec": spec}


def admit(chain: AdmissionChain, body: dict[str, Any], **kw: Any) -> Admitted[Pod] | Refused[Pod]:
    rules = chain.cluster.admission.rules

    def again(b: dict[str, Any]) -> Pod:
        return parse.pod(b, "default", "test", rules=rules)

    return chain.admit_pod(body, again(body), again, **kw)


def test_an_admitted_pod_carries_what_limitranger_set() -> None:
    out = admit(AdmissionChain(make_cluster([NS, LIMITS])), pod_body())
    assert isinstance(out, Admitted)
    assert out.notes == ("LimitRanger (LimitRange caps) sets cpu request for container c; cpu limit for container c",)
    assert out.obj.containers[0].requests["cpu"] == pytest.approx(0.5)
    assert out.obj.priority_resolved


@pytest.mark.parametrize(
    "objs,body,plugin,message",
    [
        pytest.param([NS], pod_body(ns="gone"), NAMESPACE_LIFECYCLE, 'namespaces "gone" not found', id="no-namespace"),
        pytest.param(
            [NS, LIMITS],
            pod_body(cpu="2"),
            LIMIT_RANGER,
            'Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or '
            "equal to cpu limit of 500m",
            id="limitranger-default-makes-it-invalid",
        ),
    ],
)
def test_a_refusal_is_a_value_naming_its_plugin(
    objs: list[dict[str, Any]], body: dict[str, Any], plugin: str, message: str
) -> None:
    out = admit(AdmissionChain(make_cluster(objs)), body)
    assert isinstance(out, Refused)
    assert (out.plugin, out.message, out.obj.name) == (plugin, message, "web")


def test_a_state_without_namespace_objects_cannot_refuse_one() -> None:
    chain = AdmissionChain(make_cluster([]))
    assert isinstance(admit(chain, pod_body(ns="anything")), Admitted)
    assert chain.unverified_namespaces({"anything", "default"}) == ["anything"]
    # decided before the manifests' own Namespaces join: then a state that listed none still cannot tell
    assert AdmissionChain(make_cluster([NS]), namespaces_listed=False).namespace_lifecycle("gone") is None


def test_priority_refuses_a_pod_whose_priority_class_does_not_exist() -> None:
    # plugin/pkg/admission/priority: admission.NewForbidden(..., "no PriorityClass with name %v was found")
    chain = AdmissionChain(make_cluster([NS]))
    out = admit(chain, pod_body(priority_class="missing"))
    assert isinstance(out, Refused) and out.plugin == PRIORITY
    assert out.message == 'pods "web" is forbidden: no PriorityClass with name missing was found'
    # an earlier plugin's refusal is the answer (NamespaceLifecycle runs first)
    for validate in (True, False):
        out = admit(chain, pod_body(ns="gone", priority_class="missing"), validate_refused=validate)
        assert isinstance(out, Refused) and out.plugin == NAMESPACE_LIFECYCLE


def test_resource_quota_charges_pods_one_after_another() -> None:
    state = make_cluster([NS, QUOTA])
    chain = AdmissionChain(state, quota=QuotaLedger.of(state.resource_quotas.values(), []))
    first = admit(chain, pod_body())
    assert isinstance(first, Admitted)
    assert isinstance(chain.resource_quota(first.obj), Admitted)
    second = chain.resource_quota(first.obj, "web-")
    assert isinstance(second, Refused)
    assert (second.plugin, second.message) == (
        RESOURCE_QUOTA,
        'pods "web-" is forbidden: exceeded quota: small, requested: pods=1, used: pods=1, limited: pods=1',
    )
    chain.release(first.obj)
    assert isinstance(chain.resource_quota(first.obj), Admitted)
    assert isinstance(AdmissionChain(state).resource_quota(first.obj), Admitted)  # no ledger: no quota


def test_claims_meet_limitranger_and_default_storage_class() -> None:
    default_sc = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "x",
    }
    chain = AdmissionChain(make_cluster([NS, LIMITS, default_sc]))
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "shop"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}},
    }
    assert chain.claim_refusal(claim, "shop", "data") == (
        'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, '
        "but request is 2Gi"
    )
    assert chain.claim_refusal(claim, "default", "data") is None
    pvc = chain.default_storage_class(persistent_volume_claim(claim))
    assert (pvc.storage_class_name, pvc.spec_storage_class_name) == ("fast", "fast")
