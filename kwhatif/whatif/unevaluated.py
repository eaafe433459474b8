"""Objects `check` does not turn into pods: the kinds known to run none, and how many pods the
resources of known operators ask for.

Every object of a kind kwhatif does not evaluate is listed as "not checked" unless its kind is
in RUNS_NO_PODS: a kind that is missing there costs a warning, never a silent pass. The counts of
OPERATOR_PODS are what the manifest says; the operator may add pods of its own (exporters,
entity operators, OSDs, ...), which no manifest field tells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# (API group, kind) of objects that never run a pod themselves. Built-in kinds kwhatif reads
# (Services, PVCs, PriorityClasses, ...) are not here: they join the cluster state.
RUNS_NO_PODS: frozenset[tuple[str, str]] = frozenset(
    {
        # core
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "Endpoints"),
        ("", "Event"),
        ("", "ServiceAccount"),
        ("", "PodTemplate"),
        ("", "ComponentStatus"),
        ("", "Binding"),
        ("apps", "ControllerRevision"),
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("networking.k8s.io", "Ingress"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("discovery.k8s.io", "EndpointSlice"),
        ("coordination.k8s.io", "Lease"),
        ("coordination.k8s.io", "LeaseCandidate"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("events.k8s.io", "Event"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("storage.k8s.io", "VolumeAttributesClass"),
        ("resource.k8s.io", "DeviceTaintRule"),
        ("storagemigration.k8s.io", "StorageVersionMigration"),
        ("internal.apiserver.k8s.io", "StorageVersion"),
        ("authentication.k8s.io", "TokenReview"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "LocalSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
        ("metrics.k8s.io", "NodeMetrics"),
        ("metrics.k8s.io", "PodMetrics"),
        # custom resources of widely used projects that configure, route or secure, and run nothing
        ("monitoring.coreos.com", "ServiceMonitor"),
        ("monitoring.coreos.com", "PodMonitor"),
        ("monitoring.coreos.com", "PrometheusRule"),
        ("monitoring.coreos.com", "Probe"),
        ("monitoring.coreos.com", "ScrapeConfig"),
        ("monitoring.coreos.com", "AlertmanagerConfig"),
        ("cert-manager.io", "Issuer"),
        ("cert-manager.io", "ClusterIssuer"),
        ("gateway.networking.k8s.io", "GatewayClass"),
        ("gateway.networking.k8s.io", "HTTPRoute"),
        ("gateway.networking.k8s.io", "GRPCRoute"),
        ("gateway.networking.k8s.io", "TCPRoute"),
        ("gateway.networking.k8s.io", "TLSRoute"),
        ("gateway.networking.k8s.io", "UDPRoute"),
        ("gateway.networking.k8s.io", "ReferenceGrant"),
        ("networking.istio.io", "VirtualService"),
        ("networking.istio.io", "DestinationRule"),
        ("networking.istio.io", "ServiceEntry"),
        ("security.istio.io", "PeerAuthentication"),
        ("security.istio.io", "AuthorizationPolicy"),
        ("security.istio.io", "RequestAuthentication"),
        ("snapshot.storage.k8s.io", "VolumeSnapshot"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
        ("cilium.io", "CiliumNetworkPolicy"),
        ("cilium.io", "CiliumClusterwideNetworkPolicy"),
        ("crd.projectcalico.org", "NetworkPolicy"),
        ("crd.projectcalico.org", "GlobalNetworkPolicy"),
        ("metallb.io", "IPAddressPool"),
        ("metallb.io", "L2Advertisement"),
        ("metallb.io", "BGPAdvertisement"),
        ("metallb.io", "BGPPeer"),
        ("external-secrets.io", "ExternalSecret"),
        ("external-secrets.io", "SecretStore"),
        ("external-secrets.io", "ClusterSecretStore"),
        ("autoscaling.k8s.io", "VerticalPodAutoscaler"),
        ("keda.sh", "ScaledObject"),
        ("keda.sh", "TriggerAuthentication"),
        ("keda.sh", "ClusterTriggerAuthentication"),
        ("kafka.strimzi.io", "KafkaTopic"),
        ("kafka.strimzi.io", "KafkaUser"),
        ("postgresql.cnpg.io", "ScheduledBackup"),
        ("postgresql.cnpg.io", "Database"),
        ("ceph.rook.io", "CephBlockPool"),
        ("ceph.rook.io", "CephBlockPoolRadosNamespace"),
        ("ceph.rook.io", "CephClient"),
        ("ceph.rook.io", "CephObjectStoreUser"),
        ("ceph.rook.io", "CephFilesystemSubVolumeGroup"),
        # queueing and quota objects: they admit the pods of other objects and run none
        # (sigs.k8s.io/kueue apis/kueue/v1beta1 and v1beta2)
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "LocalQueue"),
        ("kueue.x-k8s.io", "WorkloadPriorityClass"),
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "Cohort"),
        ("kueue.x-k8s.io", "Topology"),
        ("kueue.x-k8s.io", "Workload"),
        ("kueue.x-k8s.io", "MultiKueueCluster"),
        ("kueue.x-k8s.io", "MultiKueueConfig"),
        ("kueue.x-k8s.io", "ProvisioningRequestConfig"),
        ("scheduling.volcano.sh", "Queue"),
        ("scheduling.volcano.sh", "PodGroup"),
        ("scheduling.x-k8s.io", "PodGroup"),
        ("scheduling.x-k8s.io", "ElasticQuota"),
        # templates other objects refer to (Kubeflow Trainer's runtimes run nothing by themselves)
        ("trainer.kubeflow.org", "TrainingRuntime"),
        ("trainer.kubeflow.org", "ClusterTrainingRuntime"),
    }
)

# (API group, kind) of custom resources that are cluster-scoped (their CustomResourceDefinitions
# say `scope: Cluster`): named without a namespace.
CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset(
    {
        ("kueue.x-k8s.io", "ResourceFlavor"),
        ("kueue.x-k8s.io", "ClusterQueue"),
        ("kueue.x-k8s.io", "WorkloadPriorityClass"),
        ("kueue.x-k8s.io", "AdmissionCheck"),
        ("kueue.x-k8s.io", "Cohort"),
        ("kueue.x-k8s.io", "Topology"),
        ("kueue.x-k8s.io", "MultiKueueCluster"),
        ("kueue.x-k8s.io", "MultiKueueConfig"),
        ("kueue.x-k8s.io", "ProvisioningRequestConfig"),
        ("scheduling.volcano.sh", "Queue"),
        ("trainer.kubeflow.org", "ClusterTrainingRuntime"),
        ("cert-manager.io", "ClusterIssuer"),
        ("external-secrets.io", "ClusterSecretStore"),
        ("cilium.io", "CiliumClusterwideNetworkPolicy"),
        ("crd.projectcalico.org", "GlobalNetworkPolicy"),
        ("keda.sh", "ClusterTriggerAuthentication"),
        ("gateway.networking.k8s.io", "GatewayClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
        ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
    }
)

# (API group, kind) -> the fields that say how many pods the operator creates. Each term is a
# count and the fields that multiply it when set (Prometheus: replicas of each of its shards);
# the terms add up. `[]` sums over a list (Elasticsearch's nodeSets, MinIO's pools).
OPERATOR_PODS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("postgresql.cnpg.io", "Cluster"): (("spec.instances",),),
    ("postgresql.cnpg.io", "Pooler"): (("spec.instances",),),
    ("kafka.strimzi.io", "Kafka"): (("spec.kafka.replicas",), ("spec.zookeeper.replicas",)),
    ("kafka.strimzi.io", "KafkaNodePool"): (("spec.replicas",),),
    ("kafka.strimzi.io", "KafkaConnect"): (("spec.replicas",),),
    ("kafka.strimzi.io", "KafkaMirrorMaker2"): (("spec.replicas",),),
    ("kafka.strimzi.io", "KafkaBridge"): (("spec.replicas",),),
    ("ceph.rook.io", "CephCluster"): (("spec.mon.count",), ("spec.mgr.count",)),
    ("monitoring.coreos.com", "Prometheus"): (("spec.replicas", "spec.shards"),),
    ("monitoring.coreos.com", "Alertmanager"): (("spec.replicas",),),
    ("monitoring.coreos.com", "ThanosRuler"): (("spec.replicas",),),
    ("elasticsearch.k8s.elastic.co", "Elasticsearch"): (("spec.nodeSets[].count",),),
    ("kibana.k8s.elastic.co", "Kibana"): (("spec.count",),),
    ("minio.min.io", "Tenant"): (("spec.pools[].servers",),),
    ("rabbitmq.com", "RabbitmqCluster"): (("spec.replicas",),),
    ("mongodbcommunity.mongodb.com", "MongoDBCommunity"): (("spec.members",),),
    ("acid.zalan.do", "postgresql"): (("spec.numberOfInstances",),),
    ("postgres-operator.crunchydata.com", "PostgresCluster"): (("spec.instances[].replicas",),),
    # Kubeflow Trainer: the nodes of the training job (its runtime, which holds the pod templates,
    # is another object)
    ("trainer.kubeflow.org", "TrainJob"): (("spec.trainer.numNodes",),),
    # the Spark operator: the driver pod, then spec.executor.instances executors
    ("sparkoperator.k8s.io", "SparkApplication"): (("=1 driver",), ("spec.executor.instances",)),
    ("sparkoperator.k8s.io", "ScheduledSparkApplication"): (("=1 driver",), ("spec.template.executor.instances",)),
}
# a custom resource of no known operator: its spec.replicas, when it has one
_FALLBACK: tuple[tuple[str, ...], ...] = (("spec.replicas",),)


def group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def runs_no_pods(api_version: str, kind: str) -> bool:
    return (group_of(api_version), kind) in RUNS_NO_PODS


def is_cluster_scoped(api_version: str, kind: str) -> bool:
    """A kind whose objects live in no namespace (built-in, or a known custom resource)."""
    from kwhatif.load.files import CLUSTER_SCOPED_KINDS

    group = group_of(api_version)
    if (group, kind) in CLUSTER_SCOPED:
        return True
    builtin = group == "" or "." not in group or group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")
    return builtin and kind in CLUSTER_SCOPED_KINDS


@dataclass(frozen=True, slots=True)
class PodCount:
    pods: int
    fields: tuple[str, ...]  # "spec.mon.count 3", as read

    def describe(self) -> str:
        return f"the manifest asks for {self.pods} pod(s) ({', '.join(self.fields)})"


def operator_pods(api_version: str, kind: str, body: dict[str, Any]) -> PodCount | None:
    """How many pods the object's operator creates as the manifest tells, or None."""
    terms = OPERATOR_PODS.get((group_of(api_version), kind), _FALLBACK)
    total, read = 0, []
    for count, *factors in terms:
        if count.startswith("="):
            # one pod the operator always makes when the object exists ("=1 driver")
            n_text, _, what = count[1:].partition(" ")
            total += int(n_text)
            read.append(f"{what} {n_text}")
            continue
        values = _values(body, count)
        if not values:
            continue
        n = sum(v for _, v in values)
        read += [f"{path} {v}" for path, v in values]
        for factor in factors:
            got = _values(body, factor)
            if got:
                read += [f"{path} {v}" for path, v in got]
                n *= got[0][1]
        total += n
    return PodCount(total, tuple(read)) if read else None


def _values(body: Any, path: str) -> list[tuple[str, int]]:
    """The non-negative integers at ``path`` (with `[]` over a list), each with its own path."""
    found: list[tuple[Any, str]] = [(body, "")]
    for part in path.split("."):
        many = part.endswith("[]")
        key = part[:-2] if many else part
        nxt: list[tuple[Any, str]] = []
        for obj, where in found:
            val = obj.get(key) if isinstance(obj, dict) else None
            here = f"{where}.{key}" if where else key
            if many:
                if isinstance(val, list):
                    nxt += [(item, f"{here}[{i}]") for i, item in enumerate(val)]
            elif val is not None:
                nxt.append((val, here))
        found = nxt
    return [(where, v) for v, where in found if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
