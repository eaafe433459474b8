"""The kinds `check` knows to run no pods, and the pod counts of known operators' resources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kwhatif.report.verdict import WARNINGS, Verdict
from kwhatif.whatif.unevaluated import OPERATOR_PODS, operator_pods, runs_no_pods

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schema" / "schedule-report.schema.json"


@pytest.mark.parametrize(
    "api_version, kind, body, pods, fields",
    [
        pytest.param(
            "postgresql.cnpg.io/v1", "Cluster", {"spec": {"instances": 3}}, 3, ("spec.instances 3",), id="cnpg"
        ),
        pytest.param(
            "kafka.strimzi.io/v1beta2",
            "Kafka",
            {"spec": {"kafka": {"replicas": 3}, "zookeeper": {"replicas": 5}}},
            8,
            ("spec.kafka.replicas 3", "spec.zookeeper.replicas 5"),
            id="kafka-zookeeper",
        ),
        pytest.param("kafka.strimzi.io/v1beta2", "Kafka", {"spec": {"kafka": {}}}, None, (), id="kafka-node-pools"),
        pytest.param(
            "ceph.rook.io/v1",
            "CephCluster",
            {"spec": {"mon": {"count": 3}, "mgr": {"count": 2}}},
            5,
            ("spec.mon.count 3", "spec.mgr.count 2"),
            id="ceph",
        ),
        pytest.param(
            "monitoring.coreos.com/v1",
            "Prometheus",
            {"spec": {"replicas": 2, "shards": 3}},
            6,
            ("spec.replicas 2", "spec.shards 3"),
            id="prometheus-shards",
        ),
        pytest.param(
            "elasticsearch.k8s.elastic.co/v1",
            "Elasticsearch",
            {"spec": {"nodeSets": [{"name": "m", "count": 3}, {"name": "d", "count": 2}, {"name": "x"}]}},
            5,
            ("spec.nodeSets[0].count 3", "spec.nodeSets[1].count 2"),
            id="elasticsearch",
        ),
        pytest.param(
            "minio.min.io/v2",
            "Tenant",
            {"spec": {"pools": [{"servers": 4}]}},
            4,
            ("spec.pools[0].servers 4",),
            id="minio",
        ),
        pytest.param("rabbitmq.com/v1beta1", "RabbitmqCluster", {"spec": {"replicas": True}}, None, (), id="bool"),
        pytest.param("example.com/v1", "Widget", {"spec": {"replicas": 2}}, 2, ("spec.replicas 2",), id="fallback"),
    ],
)
def test_operator_pods(api_version, kind, body, pods, fields):
    got = operator_pods(api_version, kind, body)
    if pods is None:
        assert got is None
    else:
        assert got is not None and (got.pods, got.fields) == (pods, fields)


def test_kinds_that_run_no_pods():
    assert runs_no_pods("v1", "ConfigMap")
    assert runs_no_pods("rbac.authorization.k8s.io/v1", "ClusterRole")
    assert runs_no_pods("monitoring.coreos.com/v1", "ServiceMonitor")
    # those that run pods are never in the list
    assert not runs_no_pods("monitoring.coreos.com/v1", "Prometheus")
    assert not runs_no_pods("example.com/v1", "Widget")
    assert not any(runs_no_pods(f"{group}/v1", kind) for group, kind in OPERATOR_PODS)


def test_unknown_is_a_warning_and_in_the_schema():
    assert Verdict.UNKNOWN in WARNINGS
    schema = json.loads(SCHEMA.read_text())
    assert schema["$defs"]["checkVerdict"]["enum"] == [str(v) for v in Verdict]
