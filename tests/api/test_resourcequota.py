"""The ResourceQuota admission plugin's check of new pods: usage, scopes, constraints and the
API server's messages (apiserver's resourcequota CheckRequest with the pod evaluator)."""

from __future__ import annotations

from typing import Any

import pytest

from kwhatif.controlplane.admission.resourcequota import QuotaLedger, pod_usage, resource_quota
from kwhatif.errors import FieldError

from builders import make_pod


def quota(hard: dict[str, str], name: str = "q", **spec: Any) -> Any:
    return resource_quota({"metadata": {"name": name, "namespace": "default"}, "spec": {"hard": hard, **spec}})


def test_pod_count_quota_as_in_the_docs():
    # "Configure a Pod Quota for a Namespace": pods: 2, a Deployment of 3 replicas gets 2
    ledger = QuotaLedger.of([quota({"pods": "2"}, "pod-demo")], [])
    pods = [make_pod().name(f"pod-quota-demo-{i}").obj() for i in range(3)]
    assert [ledger.admit(p) for p in pods] == [
        None,
        None,
        "exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2",
    ]


def test_usage_counts_running_pods_and_release_frees_it():
    running = make_pod().name("old").node("n1").req(cpu="1").obj()
    ledger = QuotaLedger.of([quota({"requests.cpu": "1500m"}, "compute")], [running])
    new = make_pod().name("new").req(cpu="1").obj()
    assert ledger.admit(new) == (
        "exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=1, limited: requests.cpu=1500m"
    )
    ledger.release(running)
    assert ledger.admit(new) is None


@pytest.mark.parametrize(
    "hard,pod,message",
    [
        pytest.param(
            {"requests.cpu": "2", "limits.memory": "1Gi"},
            make_pod().name("p").req(cpu="500m"),
            "failed quota: q: must specify limits.memory for: c0",
            id="must-specify-limit",
        ),
        pytest.param(
            {"cpu": "2", "memory": "1Gi"},
            make_pod().name("p").container("side"),
            "failed quota: q: must specify cpu for: c0,side; memory for: c0,side",
            id="must-specify-per-container",
        ),
        pytest.param(
            {"requests.memory": "1Gi"},
            make_pod().name("p").req(memory="768Mi").container("two", memory="512Mi"),
            "exceeded quota: q, requested: requests.memory=1280Mi, used: requests.memory=0, limited: requests.memory=1Gi",
            id="memory-sum",
        ),
        pytest.param(
            {"requests.example.com/gpu": "1"},
            make_pod().name("p").req(**{"example.com/gpu": "2"}).limits(**{"example.com/gpu": "2"}),
            "exceeded quota: q, requested: requests.example.com/gpu=2, used: requests.example.com/gpu=0, "
            "limited: requests.example.com/gpu=1",
            id="extended",
        ),
        pytest.param({"services": "1"}, make_pod().name("p"), None, id="untracked"),
    ],
)
def test_admit(hard: dict[str, str], pod: Any, message: str | None):
    ledger = QuotaLedger.of([quota(hard)], [])
    assert ledger.admit(pod.obj()) == message


@pytest.mark.parametrize(
    "spec,pod,matches",
    [
        pytest.param({"scopes": ["BestEffort"]}, make_pod().name("p"), True, id="best-effort"),
        pytest.param({"scopes": ["BestEffort"]}, make_pod().name("p").req(cpu="1"), False, id="not-best-effort"),
        pytest.param({"scopes": ["NotBestEffort"]}, make_pod().name("p").req(memory="1Gi"), True, id="burstable"),
        pytest.param(
            {
                "scopeSelector": {
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
                }
            },
            make_pod().name("p").set("spec.priorityClassName", "high").set("spec.priority", 1000),
            True,
            id="priority-class-in",
        ),
        pytest.param(
            {
                "scopeSelector": {
                    "matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]
                }
            },
            make_pod().name("p"),
            False,
            id="priority-class-other",
        ),
        pytest.param(
            {"scopes": ["Terminating"]},
            make_pod().name("p").set("spec.activeDeadlineSeconds", 60),
            True,
            id="terminating",
        ),
        pytest.param(
            {"scopes": ["NotTerminating"]},
            make_pod().name("p").set("spec.activeDeadlineSeconds", 60),
            False,
            id="not-terminating",
        ),
    ],
)
def test_scopes(spec: dict[str, Any], pod: Any, matches: bool):
    ledger = QuotaLedger.of([quota({"pods": "0"}, **spec)], [])
    refused = ledger.admit(pod.obj())
    assert (refused is not None) is matches


def test_usage_of_a_pod():
    pod = make_pod().name("p").req(cpu="250m", memory="64Mi").limits(cpu="500m", memory="128Mi").obj()
    usage = {k: str(v) for k, v in pod_usage(pod).items()}
    assert usage == {
        "count/pods": "1",
        "pods": "1",
        "cpu": "1/4",
        "requests.cpu": "1/4",
        "limits.cpu": "1/2",
        "memory": "67108864",
        "requests.memory": "67108864",
        "limits.memory": "134217728",
    }


def test_bad_scope_is_refused():
    with pytest.raises(FieldError, match='Unsupported value: "Sometimes"'):
        quota({"pods": "1"}, scopes=["Sometimes"])
