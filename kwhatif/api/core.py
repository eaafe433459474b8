"""Typed views of core/v1 and friends: the fields the scheduler reads, parsed once.

Collections are tuples; label maps are plain dicts that are never mutated after parsing.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from kwhatif.api.construct import fast_constructor
from kwhatif.api.labels import Selector
from kwhatif.api.resources import ContainerStatusResources, Resource, ResourceList

DEFAULT_SCHEDULER_NAME = "default-scheduler"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"


class TaintEffect(enum.StrEnum):
    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"


class WhenUnsatisfiable(enum.StrEnum):
    DO_NOT_SCHEDULE = "DoNotSchedule"
    SCHEDULE_ANYWAY = "ScheduleAnyway"


class NodeInclusionPolicy(enum.StrEnum):
    HONOR = "Honor"
    IGNORE = "Ignore"


@dataclass(frozen=True, slots=True)
class OwnerReference:
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    def render(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"  # "" is defaulted to Equal when parsed
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint, comparison_operators: bool = False) -> bool:
        """v1.Toleration.ToleratesTaint; Gt and Lt compare the values as integers only with
        ``comparison_operators`` (the TaintTolerationComparisonOperators gate), else match nothing."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Gt", "Lt"):
            if not comparison_operators:
                return False
            mine, theirs = decimal_integer(self.value), decimal_integer(taint.value)
            if mine is None or theirs is None:
                return False
            return theirs > mine if self.operator == "Gt" else theirs < mine
        # Equal (the default)
        return self.value == taint.value


_INT64 = 1 << 63


def decimal_integer(text: str) -> int | None:
    """content.IsDecimalInteger then strconv.ParseInt(text, 10, 64): an int64 in canonical form
    ("0", "12", "-5"; not "+5", "05", "-0"), else None."""
    digits = text[1:] if text.startswith("-") else text
    if not digits or not digits.isascii() or not digits.isdigit() or (digits[0] == "0" and text != "0"):
        return None
    value = int(text)
    return value if -_INT64 <= value < _INT64 else None


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One ORed term of a NodeSelector. ``fields`` holds metadata.name requirements."""

    expressions: Selector | None  # None: no matchExpressions
    fields: Selector | None  # requirements keyed "metadata.name"; None: no matchFields
    # What the scheduler's selector parsing (nodeaffinity.newNodeSelectorTerm) rejects although
    # the API server stores it, such as an In value that is not a valid label value: the term
    # then never matches. Go field errors, with their path inside the selector.
    parse_errors: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        if self.parse_errors:
            return False
        if self.expressions is not None and not self.expressions.matches(labels):
            return False
        if self.fields is not None and node_name and not self.fields.matches({"metadata.name": node_name}):
            return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """Required node affinity: the terms are ORed; empty terms were dropped when parsed."""

    terms: tuple[NodeSelectorTerm, ...]
    # an empty term matches nothing, but NodeAffinity's PreFilter still sees it
    had_empty_term: bool = False

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        for t in self.terms:
            if t.matches(labels, node_name):
                return True
        return False


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()
    # preferredDuringScheduling... was given, even if all its terms were empty and dropped
    preferred_set: bool = False


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: Selector  # NOTHING when absent
    namespaces: tuple[str, ...]
    topology_key: str
    namespace_selector: Selector | None  # None when absent
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: WhenUnsatisfiable
    label_selector: Selector  # NOTHING when absent
    min_domains: int | None = None
    node_affinity_policy: NodeInclusionPolicy | None = None
    node_taints_policy: NodeInclusionPolicy | None = None
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int
    protocol: str
    host_ip: str


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str
    requests: ResourceList
    limits: ResourceList
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None


@dataclass(frozen=True, slots=True)
class Volume:
    """A pod volume. ``kind`` is the source's field name (persistentVolumeClaim, emptyDir, ...);
    the typed fields below hold what the volume plugins read of each source."""

    name: str
    kind: str
    claim_name: str = ""  # persistentVolumeClaim
    read_only: bool = False
    ephemeral_claim: bool = False  # ephemeral.volumeClaimTemplate (claim is "<pod>-<volume>")
    ephemeral_spec: Mapping[str, object] | None = None
    # in-tree disks: gcePersistentDisk.pdName, awsElasticBlockStore.volumeID, azureDisk.diskName,
    # cinder.volumeID; iscsi targetPortal/iqn/lun; rbd monitors/pool/image; csi driver
    disk_id: str = ""
    iscsi: tuple[str, str, int] | None = None
    rbd: tuple[tuple[str, ...], str, str] | None = None
    csi_driver: str = ""
    csi_handle: str = ""
    # azureDisk: diskURI and kind (defaulted to Shared), which CSI migration translates
    disk_uri: str = ""
    disk_kind: str = ""
    image_reference: str = ""  # image volume: image.reference


@dataclass(frozen=True, slots=True)
class PodResourceClaim:
    """An entry of pod.spec.resourceClaims: exactly one of the two names is set by validation."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(frozen=True, slots=True)
class Pod:
    namespace: str
    name: str
    uid: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    owner_references: tuple[OwnerReference, ...]
    creation_timestamp: float  # seconds since the epoch; 0 when unknown
    deleting: bool  # metadata.deletionTimestamp is set
    # spec
    node_name: str
    scheduler_name: str
    priority: int
    priority_class_name: str
    preemption_policy: str  # PreemptLowerPriority | Never
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...]
    overhead: ResourceList | None
    node_selector: Mapping[str, str]
    affinity: Affinity | None
    tolerations: tuple[Toleration, ...]
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...]
    volumes: tuple[Volume, ...]
    scheduling_gates: tuple[str, ...]
    host_network: bool
    runtime_class_name: str
    # status
    phase: str
    nominated_node_name: str
    start_time: float  # 0 when unknown
    disruption_target: bool  # status.conditions has DisruptionTarget=True
    # derived at parse under the release's PodRules (framework.calculateResource, PodRequests,
    # GetHostPorts); a cluster re-derives its pods when another release is selected
    requests: Resource
    non0_cpu: int
    non0_mem: int
    request_list: Mapping[str, Fraction] = field(default_factory=dict)
    host_port_list: tuple[ContainerPort, ...] = ()
    # spec.resources (pod-level resources), after defaulting; None when not set
    pod_requests: ResourceList | None = None
    pod_limits: ResourceList | None = None
    # in-place resize: per container name, what its status reports; the PodResizePending
    # condition says Infeasible; pod-level status.resources.requests and status.allocatedResources
    container_statuses: Mapping[str, ContainerStatusResources] = field(default_factory=dict)
    resize_infeasible: bool = False
    status_pod_requests: ResourceList | None = None
    status_pod_allocated: ResourceList | None = None
    # what the API server of the selected release dropped or changed when the pod was admitted
    admission_notes: tuple[str, ...] = ()
    # node features the pod needs (nodedeclaredfeatures inference of component-helpers v0.36)
    required_node_features: tuple[str, ...] = ()
    # where it came from, for messages: "file" or "file:line"
    source: str = ""
    # False until admission resolved spec.priority from priorityClassName or the global default
    priority_resolved: bool = True
    # spec.resourceClaims (dra.types.PodResourceClaim) and status.resourceClaimStatuses
    # (pod claim name -> generated ResourceClaim name, None when none is needed)
    resource_claims: tuple[PodResourceClaim, ...] = ()
    resource_claim_statuses: Mapping[str, str | None] = field(default_factory=dict)
    # spec.activeDeadlineSeconds (ResourceQuota's Terminating scope)
    active_deadline_seconds: int | None = None
    # the reason of the DisruptionTarget condition (PreemptionByScheduler when a preemption evicts it)
    disruption_reason: str = ""
    # spec.schedulingGroup.podGroupName: the PodGroup of the pod's namespace it belongs to (the
    # Workload API); '' when it is in none
    pod_group: str = ""
    # spec.os.name (linux, windows): the OS the kubelet must run; '' when the pod names none
    os_name: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def controller_ref(self) -> OwnerReference | None:
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None

    @property
    def is_mirror(self) -> bool:
        return MIRROR_POD_ANNOTATION in self.annotations

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    def host_ports(self) -> list[ContainerPort]:
        """Ports with a hostPort, as schedutil.GetHostPorts of the release lists them (restartable
        init containers first from 1.34, then app containers)."""
        return list(self.host_port_list)

    @property
    def derivation_sensitive(self) -> bool:
        """Whether what is derived from this pod differs between releases: it has sidecars,
        pod-level requests or resize status."""
        return (
            any(c.restart_policy == "Always" for c in self.init_containers)
            or self.pod_requests is not None
            or bool(self.container_statuses)
            or self.status_pod_requests is not None
        )


# Pod(...) for the loader, which builds one per pod of a dump (kwhatif.api.construct), and the
# containers of every distinct spec
new_pod = fast_constructor(Pod)
new_container = fast_constructor(Container)
new_container_port = fast_constructor(ContainerPort)


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    uid: str
    labels: Mapping[str, str]
    unschedulable: bool
    taints: tuple[Taint, ...]
    allocatable: Resource
    images: tuple[ContainerImage, ...]
    allocatable_list: Mapping[str, Fraction] = field(default_factory=dict)
    source: str = ""
    kubelet_version: str = ""  # status.nodeInfo.kubeletVersion
    declared_features: tuple[str, ...] = ()  # status.declaredFeatures (NodeDeclaredFeatures)
    # status.capacity (cluster-autoscaler reads it: least-waste, limits, node group similarity) and
    # the Ready condition's status ("" when the node reports none)
    capacity_list: Mapping[str, Fraction] = field(default_factory=dict)
    ready: str = ""
    annotations: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool
    preemption_policy: str | None


@dataclass(frozen=True, slots=True)
class RuntimeClass:
    name: str
    overhead: ResourceList | None
    # scheduling.nodeSelector and scheduling.tolerations, merged into the pods that use the class
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()


@dataclass(frozen=True, slots=True)
class Service:
    namespace: str
    name: str
    selector: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: Selector  # NOTHING when absent
    min_available: int | str | None
    max_unavailable: int | str | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str]
