"""Karpenter's provisioning scheduler: which existing or in-flight node, which planned NodeClaim,
or which new NodeClaim of which NodePool each pending pod gets, with the instance types each
claim may launch as (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling:
scheduler.go Solve/trySchedule/add, queue.go, existingnode.go, nodeclaim.go CanAdd and
filterInstanceTypesByRequirements, nodeclaimtemplate.go, preferences.go).

Every decision is a function of explicit inputs: the NodePools (heaviest first), the instance
types, the existing nodes with what is left on them, the DaemonSet pods and the pending pods.
Karpenter evaluates candidates in parallel and keeps the lowest index that succeeds: here they
are tried in order, which gives the same answer.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from kwhatif.api.core import Pod, Taint
from kwhatif.autoscaler.karpenter.instancetypes import (
    InstanceType,
    ResourceList,
    fits,
    max_resources,
    merge,
    milli,
    min_resources,
    order_by_price,
    resources_text,
    satisfies_min_values,
    subtract,
)
from kwhatif.autoscaler.karpenter.nodepools import NodePool
from kwhatif.autoscaler.karpenter.podview import PREFER_NO_SCHEDULE_TOLERATION, PodView
from kwhatif.autoscaler.karpenter.requirements import (
    CAPACITY_TYPE_LABEL,
    HOSTNAME_LABEL,
    NODEPOOL_LABEL,
    RESTRICTED_LABELS,
    WELL_KNOWN_LABELS,
    ZONE_LABEL,
    Requirement,
    Requirements,
    tolerates,
)
from kwhatif.autoscaler.karpenter.topology import ExistingPod, Topology

# nodeclaimtemplate.go MaxInstanceTypes: the most instance types a claim is launched with
MAX_INSTANCE_TYPES = 600

ERR_NO_TEMPLATES = "nodepool requirements filtered out all available instance types"


class MinValuesPolicy(enum.StrEnum):
    """--min-values-policy (operator option MinValuesPolicy)."""

    STRICT = "Strict"
    BEST_EFFORT = "BestEffort"


class PreferencePolicy(enum.StrEnum):
    """--preference-policy (operator option PreferencePolicy)."""

    RESPECT = "Respect"
    IGNORE = "Ignore"


@dataclass(frozen=True, slots=True)
class ProvisionOptions:
    preference_policy: PreferencePolicy = PreferencePolicy.RESPECT
    min_values_policy: MinValuesPolicy = MinValuesPolicy.STRICT


def _add_requests(out: ResourceList, pod: Pod) -> None:
    """The pod's effective requests (resourcehelper.PodRequests, as kwhatif derived them for the
    release: containers, init containers, overhead, pod-level resources) in thousandths."""
    r = pod.requests
    if r.milli_cpu:
        out["cpu"] = out.get("cpu", 0) + r.milli_cpu
    if r.memory:
        out["memory"] = out.get("memory", 0) + 1000 * r.memory
    if r.ephemeral_storage:
        out["ephemeral-storage"] = out.get("ephemeral-storage", 0) + 1000 * r.ephemeral_storage
    for k, v in r.scalar.items():
        if v:
            out[k] = out.get(k, 0) + 1000 * v


def pod_requests(pod: Pod) -> ResourceList:
    """resources.RequestsForPods of one pod: its effective requests and one pod."""
    rl: ResourceList = {}
    _add_requests(rl, pod)
    rl["pods"] = 1000
    return rl


def requests_for_pods(pods: Iterable[Pod]) -> ResourceList:
    out: ResourceList = {}
    n = 0
    for p in pods:
        n += 1
        _add_requests(out, p)
    out["pods"] = 1000 * n
    return out


def _ports(pod: Pod) -> set[tuple[str, str, int]]:
    return {(p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port) for p in pod.host_port_list if p.host_port}


def _ports_conflict(used: set[tuple[str, str, int]], mine: set[tuple[str, str, int]]) -> str | None:
    """HostPortUsage.Conflicts: the same port and protocol on the same or a wildcard address."""
    for ip, proto, port in sorted(mine):
        for uip, uproto, uport in used:
            if port == uport and proto == uproto and (ip == uip or "0.0.0.0" in (ip, uip)):
                return f"host port {port}/{proto} is already in use"
    return None


# --- instance type filtering (nodeclaim.go) ------------------------------------------------------


@dataclass(slots=True)
class DaemonOverheadGroup:
    instance_types: list[InstanceType]
    overhead: ResourceList
    host_ports: set[tuple[str, str, int]]
    members: set[int] = field(default_factory=set)  # ids of instance_types (filled by Scheduler)


@dataclass(slots=True)
class _FilterError:
    requirements_met: bool = False
    fits: bool = False
    has_offering: bool = False
    requirements_and_fits: bool = False
    requirements_and_offering: bool = False
    fits_and_offering: bool = False
    min_values_err: str | None = None
    requirements: str = ""
    pod_requests: ResourceList = field(default_factory=dict)
    min_daemon: ResourceList | None = None
    max_daemon: ResourceList | None = None

    def track(self, overhead: ResourceList) -> None:
        if self.max_daemon is None:
            self.min_daemon = self.max_daemon = overhead
            return
        assert self.min_daemon is not None
        self.min_daemon = min_resources(self.min_daemon, overhead)
        self.max_daemon = max_resources([self.max_daemon, overhead])

    def resources(self) -> str:
        if not self.min_daemon:
            return resources_text(self.pod_requests)
        low = resources_text(merge(self.min_daemon, self.pod_requests))
        high = resources_text(merge(self.max_daemon or {}, self.pod_requests))
        return low if low == high else f"min={low}, max={high}"

    def message(self) -> str:
        """InstanceTypeFilterError.Error, verbatim."""
        tail = f", requirements={self.requirements}, resources={self.resources()}"
        if self.min_values_err is not None:
            return f"{self.min_values_err}{tail}"
        r, fi, o = self.requirements_met, self.fits, self.has_offering
        if not r and not fi and not o:
            return (
                "no instance type met the scheduling requirements or had enough resources or had a required offering"
                + tail
            )
        if not r and not fi:
            return "no instance type met the scheduling requirements or had enough resources" + tail
        if not r and not o:
            return "no instance type met the scheduling requirements or had a required offering" + tail
        if not fi and not o:
            return "no instance type had enough resources or had a required offering" + tail
        if not r:
            return "no instance type met all requirements" + tail
        if not fi:
            msg = "no instance type has enough resources" + tail
            if self.pod_requests.get("cpu", 0) >= 1_000_000_000:
                msg += " (CPU request >= 1 Million, m vs M typo?)"
            return msg
        if not o:
            return "no instance type has the required offering" + tail
        if self.requirements_and_fits:
            return (
                "no instance type which met the scheduling requirements and had enough resources, had a required offering"
                + tail
            )
        if self.fits_and_offering:
            return (
                "no instance type which had enough resources and the required offering met the scheduling requirements"
                + tail
            )
        if self.requirements_and_offering:
            return (
                "no instance type which met the scheduling requirements and the required offering had the required resources"
                + tail
            )
        return "no instance type met the requirements/resources/offering tuple" + tail


def _has_offering(it: InstanceType, zones: Requirement | None, cts: Requirement | None) -> bool:
    """An available offering the requirements allow. An offering's requirements are its zone and
    capacity type (both well-known keys): Requirements.IsCompatible reduces to both values being
    allowed by the requirements' zone and capacity-type keys, where those are defined."""
    for o in it.offerings:
        if o.available and (zones is None or zones.has(o.zone)) and (cts is None or cts.has(o.capacity_type)):
            return True
    return False


# Per requirements (less the placeholder hostname, so that the claims of one pool share their
# entries): per instance type, whether its requirements intersect them and whether it has an
# offering they allow (neither depends on the requests; no type defines a hostname).
CompatCache = dict[frozenset[Requirement], dict[int, tuple[bool, bool]]]


def filter_instance_types(
    its: Sequence[InstanceType],
    reqs: Requirements,
    pod_ports: set[tuple[str, str, int]],
    pod_reqs: ResourceList,
    groups: Sequence[DaemonOverheadGroup],
    total: ResourceList,
    relax_min_values: bool,
    allow: frozenset[str],
    cache: CompatCache | None = None,
) -> tuple[list[InstanceType], dict[str, int], str | None]:
    """filterInstanceTypesByRequirements: the types (of ``its``) that meet the requirements, fit
    the requests plus their DaemonSet overhead and have an offering; the minValues keys still
    short; Karpenter's error when none remain."""
    eligible = {id(it) for it in its}
    known = cache.setdefault(reqs.signature(HOSTNAME_LABEL), {}) if cache is not None else {}
    zones = reqs.get(ZONE_LABEL) if reqs.has(ZONE_LABEL) else None
    cts = reqs.get(CAPACITY_TYPE_LABEL) if reqs.has(CAPACITY_TYPE_LABEL) else None
    # the groups the pod's host ports leave, each with what its types must fit
    usable: list[tuple[DaemonOverheadGroup, list[tuple[str, int]]]] = []
    for group in groups:
        if _ports_conflict(group.host_ports, pod_ports) is None:
            need = merge(total, group.overhead) if group.overhead else total
            usable.append((group, list(need.items())))
    remaining: list[InstanceType] = []
    for group, need_items in usable:
        members = group.instance_types if len(group.instance_types) <= len(its) else None
        for it in members if members is not None else its:
            if members is not None:
                if id(it) not in eligible:
                    continue
            elif id(it) not in group.members:
                continue
            got = known.get(id(it))
            if got is None:
                got = known[id(it)] = (it.requirements.intersects(reqs) is None, _has_offering(it, zones, cts))
            if got[0] and got[1] and _fits_items(need_items, it.allocatable):
                remaining.append(it)
    err: _FilterError | None = None
    if not remaining:
        # which criteria ruled the types out, for Karpenter's message (computed on failure only)
        err = _FilterError(requirements=str(reqs), pod_requests=dict(pod_reqs))
        for group, need_items in usable:
            if group.overhead:
                err.track(group.overhead)
            for it in group.instance_types:
                if id(it) not in eligible:
                    continue
                compat, offering = known[id(it)]
                # nodeclaim.go fits: a type fits only with an offering the requirements allow
                it_fits = offering and _fits_items(need_items, it.allocatable)
                err.requirements_met |= compat
                err.fits |= it_fits
                err.has_offering |= offering
                err.requirements_and_fits |= compat and it_fits and not offering
                err.requirements_and_offering |= compat and offering and not it_fits
                err.fits_and_offering |= it_fits and offering and not compat
    short: dict[str, int] = {}
    if remaining and reqs.has_min_values():
        _, short, min_err = satisfies_min_values(remaining, reqs)
        if min_err is not None and not relax_min_values:
            err = _FilterError(requirements=str(reqs), pod_requests=dict(pod_reqs), min_values_err=min_err)
            for group, _ in usable:
                if group.overhead:
                    err.track(group.overhead)
            remaining = []
    if not remaining:
        assert err is not None
        return [], short, err.message()
    return remaining, short, None


def _fits_items(need: list[tuple[str, int]], allocatable: Mapping[str, int]) -> bool:
    """resources.Fits over a type's allocatable (a negative allocatable, which fits nothing, is
    below every request: InstanceType keeps none, see instancetypes.py)."""
    get = allocatable.get
    for k, v in need:
        if v > get(k, 0):
            return False
    return True


# --- NodeClaim templates, planned claims and existing nodes --------------------------------------


@dataclass(slots=True)
class Template:
    """NodeClaimTemplate: a NodePool's requirements, taints and the instance types they allow."""

    pool: NodePool
    requirements: Requirements
    instance_types: list[InstanceType]
    daemon_groups: list[DaemonOverheadGroup] = field(default_factory=list)


@dataclass(slots=True)
class PlannedClaim:
    """A NodeClaim Karpenter would create: its pool, requirements, candidate types and pods."""

    name: str
    hostname: str
    template: Template
    requirements: Requirements
    instance_types: list[InstanceType]
    daemon_groups: list[DaemonOverheadGroup]
    pods: list[Pod] = field(default_factory=list)
    requests: ResourceList = field(default_factory=dict)
    daemon_overhead: ResourceList = field(default_factory=dict)
    min_values_relaxed: bool = False

    @property
    def taints(self) -> tuple[Taint, ...]:
        return self.template.pool.taints


@dataclass(slots=True)
class ExistingNode:
    """An existing node, or an in-flight NodeClaim's node, with what is left on it."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    remaining: ResourceList
    requirements: Requirements
    host_ports: set[tuple[str, str, int]]
    nodepool: str
    initialized: bool
    in_flight: bool  # a NodeClaim whose node has not registered yet
    pods: list[Pod] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NodeInput:
    """What the scheduler needs of one existing (or in-flight) node."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    allocatable: ResourceList
    requested: ResourceList  # the requests of the pods bound to it (RequestsForPods)
    daemon_requested: ResourceList  # of those, the DaemonSet pods'
    host_ports: frozenset[tuple[str, str, int]]
    nodepool: str = ""
    capacity: ResourceList | None = None  # for the NodePool's limits (allocatable when unknown)
    initialized: bool = True
    in_flight: bool = False


@dataclass(slots=True)
class PodResult:
    pod: Pod
    node: str = ""  # an existing or in-flight node
    in_flight: bool = False
    claim: PlannedClaim | None = None
    error: str = ""  # Karpenter's error when it schedules nowhere
    pool_errors: dict[str, str] = field(default_factory=dict)  # per NodePool, its last reason
    relaxed: tuple[str, ...] = ()


@dataclass(slots=True)
class Results:
    pods: list[PodResult]
    claims: list[PlannedClaim]
    existing: list[ExistingNode]
    skipped_pools: dict[str, str]  # NodePools with no instance type left, and static ones


def _daemon_compatible(
    template_reqs: Requirements, taints: tuple[Taint, ...], it: InstanceType, ds: Pod, allow: frozenset[str]
) -> bool:
    """isDaemonPodCompatible: the pool's taints tolerated (PreferNoSchedule ignored), and the
    pool's and the type's requirements meet the pod's, trying each required term in turn."""
    view = PodView.of(ds)
    view.tolerations.append(PREFER_NO_SCHEDULE_TOLERATION)
    if tolerates(taints, view.tolerations) is not None:
        return False
    while True:
        reqs = view.requirements(strict=True)
        if template_reqs.is_compatible(reqs, allow) and it.requirements.intersects(reqs) is None:
            return True
        if len(view.required_terms) <= 1:
            return False
        view.required_terms.pop(0)


def _daemon_groups(template: Template, daemonsets: Sequence[Pod], allow: frozenset[str]) -> list[DaemonOverheadGroup]:
    """buildDaemonOverheadGroups: the pool's types grouped by the DaemonSet pods they would run."""
    groups: dict[tuple[str, ...], DaemonOverheadGroup] = {}
    cache: dict[tuple[int, frozenset[Requirement]], bool] = {}
    for it in template.instance_types:
        compatible = []
        for i, ds in enumerate(daemonsets):
            # the result depends on the type only through its requirements
            k = (i, it.requirements.signature())
            if k not in cache:
                cache[k] = _daemon_compatible(template.requirements, template.pool.taints, it, ds, allow)
            if cache[k]:
                compatible.append(ds)
        key = tuple(sorted(f"{p.namespace}/{p.name}" for p in compatible))
        g = groups.get(key)
        if g is not None:
            g.instance_types.append(it)
            continue
        ports: set[tuple[str, str, int]] = set()
        for p in compatible:
            ports |= _ports(p)
        groups[key] = DaemonOverheadGroup([it], requests_for_pods(compatible) if compatible else {}, ports)
    return list(groups.values())


def subtract_max(remaining: ResourceList, its: Sequence[InstanceType]) -> ResourceList:
    """subtractMax: the pool's room less the largest capacity among the claim's types."""
    if not its:
        return remaining
    biggest = max_resources(it.capacity for it in its)
    return {k: v - biggest.get(k, 0) for k, v in remaining.items()}


def filter_by_remaining(its: Sequence[InstanceType], remaining: ResourceList) -> list[InstanceType]:
    """filterByRemainingResources: the types whose capacity fits in the pool's remaining limits."""
    return [it for it in its if all(it.capacity.get(k, 0) <= v for k, v in remaining.items())]


class Scheduler:
    def __init__(
        self,
        pools: Sequence[NodePool],
        instance_types: Mapping[str, Sequence[InstanceType]],
        nodes: Sequence[NodeInput],
        daemonsets: Sequence[Pod],
        topology: Topology,
        options: ProvisionOptions,
        allow: frozenset[str] = WELL_KNOWN_LABELS,
    ) -> None:
        self.options = options
        self.allow = allow
        self.topology = topology
        self.relax_min_values = options.min_values_policy is MinValuesPolicy.BEST_EFFORT
        self.tolerate_prefer_no_schedule = any(t.effect == "PreferNoSchedule" for p in pools for t in p.taints)
        self.templates: list[Template] = []
        self.skipped: dict[str, str] = {}
        for pool in pools:
            if pool.static:
                self.skipped[pool.name] = "static NodePool (spec.replicas): not provisioned for pods"
                continue
            reqs = pool.template_requirements()
            its = list(instance_types.get(pool.name, ()))
            every = [DaemonOverheadGroup(its, {}, set())]
            kept, _, err = filter_instance_types(its, reqs, set(), {}, every, {}, self.relax_min_values, allow)
            if not kept:
                self.skipped[pool.name] = f"skipping, nodepool requirements filtered out all instance types ({err})"
                continue
            self.templates.append(Template(pool, reqs, kept))
        for t in self.templates:
            t.daemon_groups = _daemon_groups(t, daemonsets, allow)
            for g in t.daemon_groups:
                g.members = {id(it) for it in g.instance_types}
        self.remaining: dict[str, ResourceList] = {p.name: milli(dict(p.limits)) for p in pools}
        self.compat_cache: CompatCache = {}
        # per pod signature (no topology), the existing nodes it may still fit (see _existing_for)
        self._maybe: dict[tuple[object, ...], list[int]] = {}
        self.claims: list[PlannedClaim] = []
        self._claim_seq: dict[str, int] = {}
        self._hostnames = 0
        self.existing: list[ExistingNode] = []
        for n in nodes:
            self.existing.append(self._existing(n, daemonsets))
            if n.nodepool in self.remaining:
                self.remaining[n.nodepool] = subtract(self.remaining[n.nodepool], n.capacity or n.allocatable)
        # sortExistingNodes: initialized nodes first, then by name
        self.existing.sort(key=lambda e: (not e.initialized, e.name))

    def _existing(self, n: NodeInput, daemonsets: Sequence[Pod]) -> ExistingNode:
        compatible = []
        labels_reqs = Requirements.from_labels(n.labels)
        for ds in daemonsets:
            view = PodView.of(ds)
            if tolerates(n.taints, view.tolerations) is None and labels_reqs.is_compatible(
                view.requirements(strict=True)
            ):
                compatible.append(ds)
        daemon = requests_for_pods(compatible) if compatible else {}
        daemon = {k: max(0, v - n.daemon_requested.get(k, 0)) for k, v in daemon.items()}
        available = subtract(n.allocatable, n.requested)
        reqs = Requirements.from_labels(n.labels)
        reqs.add(Requirement.new(HOSTNAME_LABEL, "In", (n.labels.get(HOSTNAME_LABEL, n.name),)))
        self.topology.register(HOSTNAME_LABEL, n.labels.get(HOSTNAME_LABEL, n.name))
        return ExistingNode(
            n.name,
            n.labels,
            n.taints,
            subtract(available, daemon),
            reqs,
            set(n.host_ports),
            n.nodepool,
            n.initialized,
            n.in_flight,
        )

    # -- Solve ------------------------------------------------------------------------------------

    def solve(self, pods: Sequence[Pod]) -> Results:
        views = {id(p): PodView.of(p) for p in pods}
        data: dict[int, tuple[ResourceList, Requirements, Requirements]] = {}
        for p in pods:
            self._cache(data, p, views[id(p)])
            self.topology.update(views[id(p)])
        results = {id(p): PodResult(p) for p in pods}
        queue = sorted(pods, key=lambda p: self._queue_key(data[id(p)][0], p))
        last_len: dict[int, int] = {}
        while queue:
            pod = queue[0]
            if last_len.get(id(pod)) == len(queue):
                break
            queue.pop(0)
            original = views[id(pod)]
            trial = _copy(original)
            ok = self._try_schedule(trial, data, results[id(pod)])
            if ok:
                results[id(pod)].error = ""
                results[id(pod)].pool_errors = {}
                results[id(pod)].relaxed = tuple(trial.relaxed)
                continue
            # keep the original (with its preferences) for another try later in this run
            self.topology.update(original)
            self._cache(data, pod, original)
            queue.append(pod)
            last_len[id(pod)] = len(queue)
        for c in self.claims:
            self._finalize(c)
        self._truncate(results)
        return Results([results[id(p)] for p in pods], self.claims, self.existing, self.skipped)

    @staticmethod
    def _queue_key(req: ResourceList, pod: Pod) -> tuple[int, int, float, str]:
        """byCPUAndMemoryDescending, then creation time and uid."""
        return (-req.get("cpu", 0), -req.get("memory", 0), pod.creation_timestamp, pod.uid)

    def _cache(self, data: dict[int, tuple[ResourceList, Requirements, Requirements]], pod: Pod, view: PodView) -> None:
        """updateCachedPodData."""
        if self.options.preference_policy is PreferencePolicy.IGNORE:
            reqs = view.requirements(strict=True)
        else:
            reqs = view.requirements(strict=False)
        strict = view.requirements(strict=True) if view.preferred_terms else reqs
        data[id(pod)] = (pod_requests(pod), reqs, strict)

    def _try_schedule(
        self, view: PodView, data: dict[int, tuple[ResourceList, Requirements, Requirements]], result: PodResult
    ) -> bool:
        while True:
            err = self._add(view, data[id(view.pod)], result)
            if err is None:
                return True
            result.error = err
            if not view.relax(self.tolerate_prefer_no_schedule):
                return False
            self.topology.update(view)
            self._cache(data, view.pod, view)

    def _add(self, view: PodView, pd: tuple[ResourceList, Requirements, Requirements], result: PodResult) -> str | None:
        requests, reqs, strict = pd
        for node in self._existing_for(view, requests, reqs, strict):
            r = self._existing_can_add(node, view, requests, reqs, strict)
            if r is not None:
                node.pods.append(view.pod)
                node.remaining = subtract(node.remaining, requests)
                node.requirements = r
                self.topology.record(view, node.taints, r)
                node.host_ports |= _ports(view.pod)
                result.node, result.in_flight, result.claim = node.name, node.in_flight, None
                return None
        self.claims.sort(key=lambda c: len(c.pods))  # stable, as a heap would not be
        for claim in self.claims:
            got = self._claim_can_add(claim, view, requests, reqs, strict, relax=False)
            if isinstance(got, tuple):
                self._claim_add(claim, view, requests, *got)
                result.claim, result.node = claim, ""
                return None
        if not self.templates:
            return ERR_NO_TEMPLATES
        errs: list[str] = []
        pool_errors: dict[str, str] = {}
        for t in self.templates:
            name = t.pool.name
            its = t.instance_types
            remaining = self.remaining.get(name)
            if remaining:
                if "nodes" in remaining and remaining["nodes"] == 0:
                    e = f"node limits have been exhausted for nodepool (NodePool={name})"
                    errs.append(e)
                    pool_errors[name] = e
                    continue
                its = filter_by_remaining(its, remaining)
                if not its:
                    e = f"all available instance types exceed limits for nodepool (NodePool={name})"
                    errs.append(e)
                    pool_errors[name] = e
                    continue
            claim = self._new_claim(t, its)
            got = self._claim_can_add(claim, view, requests, reqs, strict, relax=self.relax_min_values)
            if isinstance(got, str):
                errs.append(got)
                pool_errors[name] = got
                continue
            new_reqs, new_its = got
            relaxed = any(
                (o := claim.requirements.get(k).min_values) is not None
                and (u := new_reqs.get(k).min_values) is not None
                and u < o
                for k in claim.requirements
            )
            claim.min_values_relaxed = relaxed
            self._claim_seq[name] = self._claim_seq.get(name, 0) + 1
            claim.name = f"{name}-{self._claim_seq[name]}"
            self._claim_add(claim, view, requests, new_reqs, new_its)
            self.claims.append(claim)
            self.remaining[name] = subtract_max(self.remaining.get(name, {}), claim.instance_types)
            result.claim, result.node = claim, ""
            return None
        result.pool_errors = pool_errors
        return "; ".join(errs)

    def _existing_for(
        self, view: PodView, requests: ResourceList, reqs: Requirements, strict: Requirements
    ) -> Iterator[ExistingNode]:
        """The existing nodes in order, less those a pod of the same constraints and requests
        failed on before in this run. Without topology, every reason ExistingNode.CanAdd gives is
        monotonic over a run (taints fixed, host ports and requests only added, requirements only
        narrowed), so a node that refused such a pod refuses the next one too; pods with topology
        groups are tried on every node."""
        if self.topology.affects(view):
            yield from self.existing
            return
        key = (reqs.signature(), tuple(view.tolerations), tuple(sorted(requests.items())), frozenset(_ports(view.pod)))
        maybe = self._maybe.get(key)
        if maybe is None:
            maybe = self._maybe[key] = list(range(len(self.existing)))
        i = 0
        while i < len(maybe):
            node = self.existing[maybe[i]]
            if self._existing_can_add(node, view, requests, reqs, strict) is None:
                del maybe[i]
                continue
            yield node
            i += 1

    def _existing_can_add(
        self, node: ExistingNode, view: PodView, requests: ResourceList, reqs: Requirements, strict: Requirements
    ) -> Requirements | None:
        """ExistingNode.CanAdd (volume limits are kube-scheduler's to judge)."""
        if tolerates(node.taints, view.tolerations) is not None:
            return None
        if _ports_conflict(node.host_ports, _ports(view.pod)) is not None:
            return None
        if not fits(requests, node.remaining):
            return None
        if node.requirements.compatible(reqs) is not None:
            return None
        base = node.requirements.copy()
        base.add_all(reqs)
        topo, _ = self.topology.add_requirements(view, node.taints, strict, base)
        if topo is None or base.compatible(topo) is not None:
            return None
        base.add_all(topo)
        return base

    def _new_claim(self, t: Template, its: list[InstanceType]) -> PlannedClaim:
        self._hostnames += 1
        hostname = f"hostname-placeholder-{self._hostnames:04d}"
        reqs = t.requirements.copy()
        reqs.add(Requirement.new(HOSTNAME_LABEL, "In", (hostname,)))
        groups = [
            DaemonOverheadGroup(g.instance_types, g.overhead, set(g.host_ports), g.members) for g in t.daemon_groups
        ]
        return PlannedClaim("", hostname, t, reqs, its, groups)

    def _claim_can_add(
        self,
        claim: PlannedClaim,
        view: PodView,
        requests: ResourceList,
        reqs: Requirements,
        strict: Requirements,
        relax: bool,
    ) -> tuple[Requirements, list[InstanceType]] | str:
        """NodeClaim.CanAdd: the claim's narrowed requirements and types, or Karpenter's error."""
        err = tolerates(claim.taints, view.tolerations)
        if err is not None:
            return err
        base = claim.requirements.copy()
        err = base.compatible(reqs, self.allow)
        if err is not None:
            return f"incompatible requirements, {err}"
        base.add_all(reqs)
        topo, err = self.topology.add_requirements(view, claim.taints, strict, base, self.allow)
        if topo is None:
            return err or ""
        err = base.compatible(topo, self.allow)
        if err is not None:
            return err
        base.add_all(topo)
        total = merge(claim.requests, requests)
        kept, short, err = filter_instance_types(
            claim.instance_types,
            base,
            _ports(view.pod),
            requests,
            claim.daemon_groups,
            total,
            relax,
            self.allow,
            self.compat_cache,
        )
        if relax:
            for key, n in short.items():
                base.set(base.get(key).with_min_values(n))
        if err is not None:
            return err
        return base, kept

    def _claim_add(
        self, claim: PlannedClaim, view: PodView, requests: ResourceList, reqs: Requirements, its: list[InstanceType]
    ) -> None:
        claim.pods.append(view.pod)
        claim.instance_types = its
        claim.requests = merge(claim.requests, requests)
        claim.requirements = reqs
        self.topology.register(HOSTNAME_LABEL, claim.hostname)
        self.topology.record(view, claim.taints, reqs, self.allow)
        ports = _ports(view.pod)
        for g in claim.daemon_groups:
            g.host_ports |= ports

    def _finalize(self, claim: PlannedClaim) -> None:
        """FinalizeScheduling: the placeholder hostname dropped, the smallest DaemonSet overhead
        among the groups that still have a type added to the requests."""
        claim.requirements.remove(HOSTNAME_LABEL)
        left = {id(it) for it in claim.instance_types}
        low: ResourceList | None = None
        for g in claim.daemon_groups:
            if not any(id(it) in left for it in g.instance_types):
                continue
            low = dict(g.overhead) if low is None or not low else min_resources(low, g.overhead)
        if low:
            claim.daemon_overhead = low
            claim.requests = merge(claim.requests, low)

    def _truncate(self, results: dict[int, PodResult]) -> None:
        """Results.TruncateInstanceTypes: at most MAX_INSTANCE_TYPES types, cheapest first; a
        claim whose truncated list breaks minValues is dropped (its pods schedule nowhere)."""
        kept: list[PlannedClaim] = []
        for c in self.claims:
            ordered = order_by_price(c.instance_types, c.requirements, self.allow)[:MAX_INSTANCE_TYPES]
            if c.requirements.has_min_values() and not self.relax_min_values:
                _, _, err = satisfies_min_values(ordered, c.requirements)
                if err is not None:
                    for p in c.pods:
                        r = results[id(p)]
                        r.claim = None
                        r.error = (
                            "pod didn’t schedule because NodePool couldn’t meet minValues requirements, "
                            f"validating minValues, {err} (NodePool={c.template.pool.name})"
                        )
                    continue
            c.instance_types = ordered
            kept.append(c)
        self.claims = kept


def _copy(view: PodView) -> PodView:
    return PodView(
        view.pod,
        view.uid,
        dict(view.node_selector),
        list(view.required_terms),
        list(view.preferred_terms),
        list(view.tolerations),
        list(view.tscs),
        list(view.affinity_required),
        list(view.affinity_preferred),
        list(view.anti_required),
        list(view.anti_preferred),
    )


# --- what a planned claim would be launched as ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClaimSummary:
    zones: tuple[str, ...]
    capacity_types: tuple[str, ...]
    labels: tuple[tuple[str, str], ...]
    price: float  # the cheapest compatible offering of the cheapest type
    zone: str  # of that offering
    capacity_type: str


def summarize(claim: PlannedClaim, allow: frozenset[str]) -> ClaimSummary:
    """ToNodeClaim's view of a claim: the zones and capacity types its types' available,
    compatible offerings span, the labels with one known value, the launch price."""
    zones: set[str] = set()
    cts: set[str] = set()
    best: tuple[float, str, str] | None = None
    for it in claim.instance_types:
        for o in it.offerings:
            if o.available and claim.requirements.is_compatible(o.requirements, allow):
                zones.add(o.zone)
                cts.add(o.capacity_type)
                cand = (o.price, o.zone, o.capacity_type)
                if best is None or cand < best:
                    best = cand
    # the labels the NodeClaim is created with: the template's (pool label included) and the
    # custom keys with one known value (resolveCustomLabelsFromRequirements)
    labels = dict(claim.template.pool.labels)
    for key in claim.requirements:
        if key in allow or key in RESTRICTED_LABELS or key.startswith("karpenter.sh/"):
            continue
        r = claim.requirements.get(key)
        if r.operator == "In" and len(r) == 1:
            labels[key] = r.any()
    labels[NODEPOOL_LABEL] = claim.template.pool.name
    price, zone, ct = best if best is not None else (0.0, "", "")
    return ClaimSummary(tuple(sorted(zones)), tuple(sorted(cts)), tuple(sorted(labels.items())), price, zone, ct)


def host_ports(pods: Iterable[Pod]) -> frozenset[tuple[str, str, int]]:
    """The host ports the pods use (HostPortUsage)."""
    out: set[tuple[str, str, int]] = set()
    for pod in pods:
        if pod.host_port_list:
            out |= _ports(pod)
    return frozenset(out)


def provision(
    pools: Sequence[NodePool],
    instance_types: Sequence[InstanceType],
    pending: Sequence[Pod],
    *,
    nodes: Sequence[NodeInput] = (),
    daemonsets: Sequence[Pod] = (),
    existing_pods: Sequence[ExistingPod] = (),
    namespace_labels: Mapping[str, Mapping[str, str]] | None = None,
    options: ProvisionOptions = ProvisionOptions(),
    well_known: frozenset[str] = frozenset(),
) -> Results:
    """One provisioning pass (Provisioner.Schedule then Scheduler.Solve): the NodePools by
    weight, every pool offered the whole catalog (the cloud provider filters it per pool only
    through the pool's requirements), the pending pods."""
    from kwhatif.autoscaler.karpenter.nodepools import order_by_weight
    from kwhatif.autoscaler.karpenter.topology import domain_groups

    ordered = order_by_weight(pools)
    allow = WELL_KNOWN_LABELS | well_known
    pool_reqs = []
    for p in ordered:
        r = Requirements(p.requirements)
        r.add(*Requirements.from_labels(dict(p.labels)).values())
        pool_reqs.append((r, p.taints))
    domains = domain_groups(pool_reqs, [[it.requirements for it in instance_types] for _ in ordered])
    topology = Topology(
        domains,
        [(n.name, n.labels, n.taints) for n in nodes],
        list(existing_pods),
        namespace_labels or {},
        options.preference_policy is PreferencePolicy.RESPECT,
        allow,
    )
    sched = Scheduler(ordered, {p.name: instance_types for p in ordered}, nodes, daemonsets, topology, options, allow)
    return sched.solve(pending)
