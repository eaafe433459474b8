"""The one table of the kinds kwhatif reads of a cluster. Each row says which apiVersions a file
may give the kind in, whether it is namespaced, how a live cluster lists it (and what is lost
when it cannot), which ClusterState collection holds it, how it is keyed there, and how the
objects of a manifest join the cluster's. The loader, the live reader and snapshots, the merge
of manifests into the cluster and ClusterState.fork() all read this table, so a kind added here
is added everywhere."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kwhatif.api import autoscaling, parse, storage, workload
from kwhatif.controlplane.admission import limitranger, resourcequota
from kwhatif.dra import parse as dra_parse

# A parser of one object: (body, apiVersion, source) -> the typed object.
Parser = Callable[[dict[str, Any], str, str], Any]


class Store(enum.Enum):
    """How a ClusterState collection holds a kind's objects."""

    BY_NAME = "name"  # dict by metadata.name (cluster-scoped kinds)
    BY_KEY = "key"  # dict by the object's own key ("namespace/name" or its kind's key)
    BY_NAMESPACED_NAME = "namespace/name"  # dict by "namespace/name" of objects without a key
    LISTED = "list"  # a list, in the order read
    OWN = "own"  # the loader keeps it in its own way (nodes, pods, workloads)


class Merge(enum.Enum):
    """What happens to the objects of this kind a manifest holds, when it is applied to a cluster
    (`check`, `schedule` of a manifest): kubectl apply's outcome as the scheduler would see it."""

    REPLACE = "replace"  # the manifest's object replaces the cluster's of the same name
    KEEP = "keep"  # one already there keeps its state (a bound PersistentVolume); new ones join
    ADMIT = "admit"  # new ones are admitted first (claims: LimitRanger, DefaultStorageClass)
    NONE = "none"  # not taken from manifests (node-side objects, the pods and workloads themselves)


def _body(fn: Callable[[dict[str, Any]], Any]) -> Parser:
    """A parser of the body alone (one apiVersion, no source kept)."""
    return lambda body, _version, _source: fn(body)


@dataclass(frozen=True, slots=True)
class Kind:
    kind: str
    versions: frozenset[str]  # the apiVersions a file may give it in
    namespaced: bool
    resource: str  # the plural resource name of its list
    list_version: str  # the group/version a live cluster is listed at
    required: bool  # a live read that cannot list it ends the run
    affects: str  # the answers that depend on it (named when a live list is left out)
    field: str  # the ClusterState collection that holds it
    store: Store
    merge: Merge
    parse: Parser | None = None  # None: the loader builds it (OWN)
    # other group/versions serving the same list, tried in order when list_version is not served
    older: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The API path of its list."""
        if "/" not in self.list_version:
            return f"/api/{self.list_version}/{self.resource}"
        return f"/apis/{self.list_version}/{self.resource}"


_V1 = frozenset({"v1"})
_DRA_OLDER = ("resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")
_WORKLOAD_OLDER = ("scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha2")
_SPREAD = "default topology spreading and checks of running workloads"
_VOLUMES = "pods with volumes (VolumeBinding, VolumeZone, volume limits)"
_DRA = "pods with resource claims (DynamicResources)"
_GANG = "gang scheduling of Workload pod groups"

# Nodes come before pods: a snapshot leaves out the pods of nodes that are gone, as the live
# loader does. The README's "Reliability" section lists the live reads.
KINDS: tuple[Kind, ...] = (
    Kind("Node", _V1, False, "nodes", "v1", True, "every answer", "nodes", Store.OWN, Merge.NONE),
    Kind("Pod", _V1, True, "pods", "v1", True, "every answer", "pods", Store.OWN, Merge.NONE),
    Kind(
        "Namespace",
        _V1,
        False,
        "namespaces",
        "v1",
        True,
        "NamespaceLifecycle admission and namespace selectors of pod affinity",
        "namespaces",
        Store.BY_NAME,
        Merge.REPLACE,
        _body(parse.namespace),
    ),
    Kind(
        "Service",
        _V1,
        True,
        "services",
        "v1",
        False,
        "default topology spreading of the pods a Service selects",
        "services",
        Store.LISTED,
        Merge.REPLACE,
        _body(parse.service),
    ),
    Kind(
        "ReplicationController",
        _V1,
        True,
        "replicationcontrollers",
        "v1",
        False,
        _SPREAD,
        "workloads",
        Store.OWN,
        Merge.NONE,
    ),
    Kind(
        "PersistentVolume",
        _V1,
        False,
        "persistentvolumes",
        "v1",
        True,
        _VOLUMES,
        "pvs",
        Store.BY_NAME,
        Merge.KEEP,
        _body(storage.persistent_volume),
    ),
    Kind(
        "PersistentVolumeClaim",
        _V1,
        True,
        "persistentvolumeclaims",
        "v1",
        True,
        _VOLUMES,
        "pvcs",
        Store.BY_KEY,
        Merge.ADMIT,
        _body(storage.persistent_volume_claim),
    ),
    Kind(
        "LimitRange",
        _V1,
        True,
        "limitranges",
        "v1",
        False,
        "LimitRange defaults and limits of new pods",
        "limit_ranges",
        Store.BY_NAMESPACED_NAME,
        Merge.REPLACE,
        _body(limitranger.limit_range),
    ),
    Kind(
        "ResourceQuota",
        _V1,
        True,
        "resourcequotas",
        "v1",
        False,
        "ResourceQuota admission of new pods",
        "resource_quotas",
        Store.BY_NAMESPACED_NAME,
        Merge.REPLACE,
        _body(resourcequota.resource_quota),
    ),
    Kind(
        "PriorityClass",
        frozenset({"scheduling.k8s.io/v1"}),
        False,
        "priorityclasses",
        "scheduling.k8s.io/v1",
        True,
        "priorities, queue order and preemption",
        "priority_classes",
        Store.BY_NAME,
        Merge.REPLACE,
        _body(parse.priority_class),
    ),
    Kind(
        "PodDisruptionBudget",
        frozenset({"policy/v1"}),
        True,
        "poddisruptionbudgets",
        "policy/v1",
        False,
        "preemption victims (PodDisruptionBudget violations) and drain evictions",
        "pdbs",
        Store.LISTED,
        Merge.REPLACE,
        _body(parse.pod_disruption_budget),
    ),
    Kind(
        "StorageClass",
        frozenset({"storage.k8s.io/v1"}),
        False,
        "storageclasses",
        "storage.k8s.io/v1",
        True,
        "pods with volumes (VolumeBinding)",
        "storage_classes",
        Store.BY_NAME,
        Merge.REPLACE,
        _body(storage.storage_class),
    ),
    Kind(
        "CSINode",
        frozenset({"storage.k8s.io/v1"}),
        False,
        "csinodes",
        "storage.k8s.io/v1",
        False,
        "CSI volume limits per node (NodeVolumeLimits)",
        "csi_nodes",
        Store.BY_NAME,
        Merge.NONE,
        _body(storage.csi_node),
    ),
    Kind(
        "CSIDriver",
        frozenset({"storage.k8s.io/v1"}),
        False,
        "csidrivers",
        "storage.k8s.io/v1",
        False,
        "CSI volume limits and storage capacity checks",
        "csi_drivers",
        Store.BY_NAME,
        Merge.REPLACE,
        _body(storage.csi_driver),
    ),
    Kind(
        "VolumeAttachment",
        frozenset({"storage.k8s.io/v1"}),
        False,
        "volumeattachments",
        "storage.k8s.io/v1",
        False,
        "CSI volume limits (NodeVolumeLimits)",
        "volume_attachments",
        Store.LISTED,
        Merge.NONE,
        _body(storage.volume_attachment),
    ),
    Kind(
        "CSIStorageCapacity",
        frozenset({"storage.k8s.io/v1", "storage.k8s.io/v1beta1"}),
        True,
        "csistoragecapacities",
        "storage.k8s.io/v1",
        False,
        "storage capacity checks (VolumeBinding)",
        "csi_capacities",
        Store.LISTED,
        Merge.NONE,
        _body(storage.csi_storage_capacity),
    ),
    Kind(
        "RuntimeClass",
        frozenset({"node.k8s.io/v1"}),
        False,
        "runtimeclasses",
        "node.k8s.io/v1",
        False,
        "pod overhead and RuntimeClass scheduling of new pods",
        "runtime_classes",
        Store.BY_NAME,
        Merge.REPLACE,
        _body(parse.runtime_class),
    ),
    *(
        Kind(kind, frozenset({gv}), True, resource, gv, False, affects, "workloads", Store.OWN, Merge.NONE)
        for kind, gv, resource, affects in (
            ("ReplicaSet", "apps/v1", "replicasets", _SPREAD),
            ("StatefulSet", "apps/v1", "statefulsets", _SPREAD),
            ("Deployment", "apps/v1", "deployments", "checks of running Deployments"),
            ("DaemonSet", "apps/v1", "daemonsets", "checks of running DaemonSets"),
            ("Job", "batch/v1", "jobs", "checks of running Jobs"),
            ("CronJob", "batch/v1", "cronjobs", "checks of running CronJobs"),
        )
    ),
    Kind(
        "HorizontalPodAutoscaler",
        frozenset({"autoscaling/v1", "autoscaling/v2"}),
        True,
        "horizontalpodautoscalers",
        "autoscaling/v2",
        False,
        "check --hpa-max",
        "hpas",
        Store.BY_KEY,
        Merge.REPLACE,
        _body(autoscaling.horizontal_pod_autoscaler),
    ),
    # dynamic resource allocation (resource.k8s.io/v1 is served from 1.34, a beta before; a
    # cluster that serves no version of it has no such objects, so its absence loses nothing)
    Kind(
        "DeviceClass",
        dra_parse.API_VERSIONS,
        False,
        "deviceclasses",
        "resource.k8s.io/v1",
        False,
        _DRA,
        "device_classes",
        Store.BY_NAME,
        Merge.REPLACE,
        dra_parse.device_class,
        _DRA_OLDER,
    ),
    Kind(
        "ResourceSlice",
        dra_parse.API_VERSIONS,
        False,
        "resourceslices",
        "resource.k8s.io/v1",
        False,
        _DRA,
        "resource_slices",
        Store.LISTED,
        Merge.REPLACE,
        dra_parse.resource_slice,
        _DRA_OLDER,
    ),
    Kind(
        "ResourceClaim",
        dra_parse.API_VERSIONS,
        True,
        "resourceclaims",
        "resource.k8s.io/v1",
        False,
        _DRA,
        "resource_claims",
        Store.BY_KEY,
        Merge.REPLACE,
        lambda body, version, source: dra_parse.resource_claim(body, version, "default", source),
        _DRA_OLDER,
    ),
    Kind(
        "ResourceClaimTemplate",
        dra_parse.API_VERSIONS,
        True,
        "resourceclaimtemplates",
        "resource.k8s.io/v1",
        False,
        _DRA,
        "resource_claim_templates",
        Store.BY_KEY,
        Merge.REPLACE,
        lambda body, version, source: dra_parse.resource_claim_template(body, version, "default", source),
        _DRA_OLDER,
    ),
    # scheduling.k8s.io (gang scheduling): v1alpha2 in 1.36, v1beta1 and v1alpha3 in 1.37, each
    # served only while its gates are on; whether the release serves a file's apiVersion is checked
    # once the release is known (workload.refuse_unserved)
    Kind(
        "Workload",
        workload.API_VERSIONS,
        True,
        "workloads",
        "scheduling.k8s.io/v1beta1",
        False,
        _GANG,
        "scheduling_workloads",
        Store.BY_KEY,
        Merge.REPLACE,
        lambda body, _version, source: workload.workload(body, source),
        _WORKLOAD_OLDER,
    ),
    Kind(
        "PodGroup",
        workload.API_VERSIONS,
        True,
        "podgroups",
        "scheduling.k8s.io/v1beta1",
        False,
        _GANG,
        "pod_groups",
        Store.BY_KEY,
        Merge.REPLACE,
        lambda body, _version, source: workload.pod_group(body, source),
        _WORKLOAD_OLDER,
    ),
)

BY_KIND: dict[str, Kind] = {k.kind: k for k in KINDS}
BY_RESOURCE: dict[str, Kind] = {k.resource: k for k in KINDS}
# the controllers' kinds load/ keeps as Workloads, in the order the engines take them
WORKLOAD_KINDS: tuple[str, ...] = (
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
)
