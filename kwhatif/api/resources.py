"""Resource amounts as the scheduler counts them (framework.Resource) and pod requests.

Pod requests follow k8s.io/kubernetes/pkg/api/v1/resource PodRequests: the sum of app containers,
restartable (sidecar) init containers added to it and carried into every later init container,
the max with each init container, then the pod overhead. Quantities are summed exactly and rounded
once, as upstream does when it converts a ResourceList into a Resource.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from kwhatif.api import quantity as q

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

DEFAULT_MILLI_CPU_REQUEST = 100  # schedutil.DefaultMilliCPURequest
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest

HUGEPAGES_PREFIX = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
REQUESTS_PREFIX = "requests."
# The compute resources and the pod count a ResourceQuota tracks for pods (the pod evaluator's
# podResources without count/pods); all are standard resource names (helper.standardResources).
QUOTA_POD_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
    }
)

ResourceList = Mapping[str, Fraction]

if TYPE_CHECKING:
    from kwhatif.release.versions import SchedulerVersion


def is_native(name: str) -> bool:
    return "/" not in name or DEFAULT_NAMESPACE_PREFIX in name


def is_extended(name: str) -> bool:
    # v1helper.IsExtendedResourceName; the qualified-name check of "requests.<name>" is applied
    # when the resource name is validated at load.
    return not is_native(name) and not name.startswith(REQUESTS_PREFIX)


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volumes(name: str) -> bool:
    return name.startswith(ATTACHABLE_VOLUMES_PREFIX)


def is_scalar(name: str) -> bool:
    """schedutil.IsScalarResourceName."""
    return is_extended(name) or is_hugepages(name) or DEFAULT_NAMESPACE_PREFIX in name or is_attachable_volumes(name)


@dataclass(slots=True)
class Resource:
    """framework.Resource: integer amounts, cpu in millicores, everything else in units."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, rl: ResourceList) -> Resource:
        r = cls()
        r.add_list(rl)
        return r

    def add_list(self, rl: ResourceList) -> None:
        """Resource.Add(ResourceList)."""
        for name, amount in rl.items():
            if name == CPU:
                self.milli_cpu += q.milli_value(amount)
            elif name == MEMORY:
                self.memory += q.value(amount)
            elif name == PODS:
                self.allowed_pod_number += q.value(amount)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += q.value(amount)
            elif is_scalar(name):
                self.scalar[name] = self.scalar.get(name, 0) + q.value(amount)

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar),
        )

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def as_dict(self) -> dict[str, int]:
        d = {CPU: self.milli_cpu, MEMORY: self.memory}
        if self.ephemeral_storage:
            d[EPHEMERAL_STORAGE] = self.ephemeral_storage
        d.update(sorted(self.scalar.items()))
        return d


def add_lists(into: dict[str, Fraction], rl: ResourceList) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, Fraction(0)) + v


def max_lists(into: dict[str, Fraction], rl: ResourceList) -> None:
    for k, v in rl.items():
        cur = into.get(k)
        if cur is None or v > cur:
            into[k] = v


@dataclass(frozen=True, slots=True)
class ContainerRequests:
    """What PodRequests needs to know of one container."""

    requests: ResourceList
    restartable: bool = False  # an init container with restartPolicy: Always (a sidecar)
    name: str = ""


@dataclass(frozen=True, slots=True)
class ContainerStatusResources:
    """What an in-place resize left in a container's status: status.allocatedResources and
    status.resources.requests (``actuated``; None when status.resources is absent)."""

    allocated: ResourceList | None = None
    actuated: ResourceList | None = None


# Pod-level resources (spec.resources) the PodLevelResources feature supports.
POD_LEVEL_RESOURCES = frozenset({CPU, MEMORY})


def is_pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and hugepages-*."""
    return name in POD_LEVEL_RESOURCES or is_hugepages(name)


def has_pod_level_requests(pod_level: ResourceList | None) -> bool:
    """IsPodLevelRequestsSet."""
    return bool(pod_level) and any(is_pod_level_resource(k) for k in pod_level or ())


def _max_of(*lists: ResourceList | None) -> dict[str, Fraction]:
    """The per-resource maximum of several lists (resourcehelper's max over the union of keys)."""
    out: dict[str, Fraction] = {}
    for rl in lists:
        if rl:
            max_lists(out, rl)
    return out


def pod_requests(
    containers: Iterable[ResourceList | ContainerRequests],
    init_containers: Iterable[ContainerRequests],
    overhead: ResourceList | None,
    non_missing: ResourceList | None = None,
    *,
    statuses: Mapping[str, ContainerStatusResources] | None = None,
    resize_infeasible: bool = False,
    pod_level: ResourceList | None = None,
    pod_level_effective: ResourceList | None = None,
) -> dict[str, Fraction]:
    """resourcehelper.PodRequests, optionally with NonMissingContainerRequests defaults.

    ``statuses`` (UseStatusResources, InPlacePodVerticalScaling): a container whose status has
    resources counts the larger of its spec, actuated and allocated requests (only the latter two
    when the pod's resize is Infeasible); app containers and sidecars only. ``pod_level``
    (PodLevelResources): spec.resources.requests replace the container sum for the resources they
    name (``pod_level_effective``, from the pod's own status, wins when given).
    """

    def fill(rl: ResourceList) -> ResourceList:
        if not non_missing:
            return rl
        out = dict(rl)
        for k, v in non_missing.items():
            if k not in rl:
                out[k] = v
        return out

    def effective(name: str, rl: ResourceList) -> ResourceList:
        if statuses is None:
            return rl
        cs = statuses.get(name)
        if cs is None or cs.actuated is None:
            return rl
        if resize_infeasible:
            return _max_of(cs.actuated, cs.allocated)
        return _max_of(rl, cs.actuated, cs.allocated)

    reqs: dict[str, Fraction] = {}
    for c in containers:
        if isinstance(c, ContainerRequests):
            add_lists(reqs, fill(effective(c.name, c.requests)))
        else:
            add_lists(reqs, fill(c))
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for ic in init_containers:
        creqs = fill(effective(ic.name, ic.requests) if ic.restartable else ic.requests)
        if ic.restartable:
            add_lists(reqs, creqs)
            add_lists(restartable, creqs)
            eff: ResourceList = restartable
        else:
            tmp: dict[str, Fraction] = {}
            add_lists(tmp, creqs)
            add_lists(tmp, restartable)
            eff = tmp
        max_lists(init_max, eff)
    max_lists(reqs, init_max)
    if pod_level is not None and has_pod_level_requests(pod_level):
        for k, v in pod_level.items():
            if is_pod_level_resource(k):
                reqs[k] = pod_level_effective[k] if pod_level_effective and k in pod_level_effective else v
    if overhead:
        add_lists(reqs, overhead)
    return reqs


def non_zero_requests(
    containers: Iterable[ResourceList],
    init_containers: Iterable[ContainerRequests],
    overhead: ResourceList | None,
) -> tuple[int, int]:
    """framework.calculateResource's non-zero cpu (milli) and memory (bytes).

    Each app container counts the default where it requests nothing; init containers contribute
    their max, where a sidecar is seen through the running sum of sidecars (as ContainerFn sees it
    upstream); overhead is added on top.
    """

    def nz(rl: ResourceList) -> tuple[int, int]:
        cpu = rl.get(CPU)
        mem = rl.get(MEMORY)
        return (
            DEFAULT_MILLI_CPU_REQUEST if cpu is None else q.milli_value(cpu),
            DEFAULT_MEMORY_REQUEST if mem is None else q.value(mem),
        )

    cpu = mem = 0
    for c in containers:
        c_cpu, c_mem = nz(c)
        cpu += c_cpu
        mem += c_mem
    init_cpu = init_mem = 0
    restartable: dict[str, Fraction] = {}
    for ic in init_containers:
        if ic.restartable:
            add_lists(restartable, ic.requests)
            effective: ResourceList = restartable
        else:
            tmp: dict[str, Fraction] = {}
            add_lists(tmp, ic.requests)
            add_lists(tmp, restartable)
            effective = tmp
        i_cpu, i_mem = nz(effective)
        init_cpu = max(init_cpu, i_cpu)
        init_mem = max(init_mem, i_mem)
    cpu = max(cpu, init_cpu)
    mem = max(mem, init_mem)
    if overhead:
        if CPU in overhead:
            cpu += q.milli_value(overhead[CPU])
        if MEMORY in overhead:
            mem += q.value(overhead[MEMORY])
    return cpu, mem


@dataclass(frozen=True, slots=True)
class PodRules:
    """What the scheduler release derives from a pod's spec and status: its requests and non-zero
    requests (framework.calculateResource) and its host ports (schedutil.GetHostPorts)."""

    # Non-zero requests via PodRequests with per-container defaults (sidecars counted, 1.32+);
    # before, app containers' defaults were summed and init containers' taken at their max.
    non_zero_counts_sidecars: bool = False
    pod_level_resources: bool = False  # PodLevelResources
    status_resources: bool = False  # InPlacePodVerticalScaling: resized containers' status counts
    pod_level_status_resources: bool = False  # InPlacePodLevelResourcesVerticalScaling
    sidecar_host_ports: bool = False  # restartable init containers' host ports are the pod's too

    @classmethod
    def of(cls, version: SchedulerVersion) -> PodRules:
        b = version.behaviour
        return cls(
            non_zero_counts_sidecars=b.non_zero_requests_count_sidecars,
            pod_level_resources=version.gate("PodLevelResources"),
            status_resources=version.gate("InPlacePodVerticalScaling"),
            pod_level_status_resources=version.gate("InPlacePodLevelResourcesVerticalScaling"),
            sidecar_host_ports=b.node_ports_count_sidecars,
        )


NON_ZERO_DEFAULTS: Mapping[str, Fraction] = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}


def derive_requests(
    containers: Iterable[ContainerRequests],
    init_containers: Iterable[ContainerRequests],
    overhead: ResourceList | None,
    rules: PodRules,
    *,
    pod_level: ResourceList | None = None,
    statuses: Mapping[str, ContainerStatusResources] | None = None,
    resize_infeasible: bool = False,
    pod_level_status: tuple[ResourceList | None, ResourceList | None] | None = None,
) -> tuple[dict[str, Fraction], int, int]:
    """framework.calculateResource under the release's rules: the pod's requests and its non-zero
    cpu (milli) and memory (bytes) used for scoring."""
    apps = list(containers)
    inits = list(init_containers)
    use_pod_level = pod_level if rules.pod_level_resources else None
    effective = None
    if use_pod_level is not None and rules.pod_level_status_resources and rules.status_resources and pod_level_status:
        actuated, allocated = pod_level_status
        if actuated is not None:
            effective = _max_of(actuated, allocated) if resize_infeasible else _max_of(pod_level, actuated, allocated)
    kw = dict(
        statuses=statuses if rules.status_resources else None,
        resize_infeasible=resize_infeasible,
        pod_level=use_pod_level,
        pod_level_effective=effective,
    )
    reqs = pod_requests(apps, inits, overhead, **kw)  # type: ignore[arg-type]
    if not rules.non_zero_counts_sidecars:
        cpu, mem = non_zero_requests([c.requests for c in apps], inits, overhead)
        return reqs, cpu, mem
    if use_pod_level is not None and has_pod_level_requests(use_pod_level):
        # getNonMissingContainerRequests: defaults only where neither level requests the resource
        non_missing = {k: v for k, v in NON_ZERO_DEFAULTS.items() if k not in reqs}
    else:
        non_missing = dict(NON_ZERO_DEFAULTS)
    non0 = pod_requests(apps, inits, overhead, non_missing, **kw) if non_missing else reqs  # type: ignore[arg-type]
    return reqs, q.milli_value(non0.get(CPU, Fraction(0))), q.value(non0.get(MEMORY, Fraction(0)))
