"""The API server's admission of a new object, as one ordered chain: NamespaceLifecycle, LimitRanger,
Priority (with RuntimeClass and the release's field drops and validation, api/admission.py),
ResourceQuota, and DefaultStorageClass for claims.

Every command admits the objects it creates through one chain: `schedule` and `capacity` their
manifests' pods, `check` its workloads, pods and claims (and their quota). A refusal is a value
(``Refused``), not an exception: the caller decides whether it is an error (schedule) or a
verdict (check); so is Priority's refusal of a PriorityClass that does not exist. An object that
is invalid whatever admission says (a field the release rejects) is an error: FieldError, as before.

The fields a new pod loses are dropped, and pod (anti-)affinity keys merged, before ResourceQuota
(which charges the requests the pod keeps).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from kwhatif.api.core import Pod
from kwhatif.api.storage import PersistentVolumeClaim, StorageClass
from kwhatif.controlplane.admission import limitranger
from kwhatif.controlplane.admission.limitranger import LimitRange
from kwhatif.controlplane.admission.pod import Admission, PriorityClassNotFound
from kwhatif.controlplane.admission.resourcequota import QuotaLedger
from kwhatif.errors import FieldError

T = TypeVar("T")

NAMESPACE_LIFECYCLE = "NamespaceLifecycle"
LIMIT_RANGER = "LimitRanger"
PRIORITY = "Priority"
RESOURCE_QUOTA = "ResourceQuota"

# Namespaces the API server always has: it recreates default, kube-system and kube-public (the
# NamespaceLifecycle plugin refuses to delete them) and kube-node-lease at start.
SYSTEM_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


@dataclass(frozen=True, slots=True)
class Admitted(Generic[T]):
    obj: T
    notes: tuple[str, ...] = ()  # what mutating plugins set ("LimitRanger (LimitRange x) sets ...")


@dataclass(frozen=True, slots=True)
class Refused(Generic[T]):
    """The API server's answer to the creation of ``obj`` (as far as admission got with it)."""

    obj: T
    plugin: str  # the admission plugin that refuses it
    message: str  # the API server's words
    notes: tuple[str, ...] = ()


Outcome = Admitted[T] | Refused[T]


class Cluster(Protocol):
    """What admission reads of the cluster (its current state: a check changes it as it goes)."""

    @property
    def namespaces(self) -> Mapping[str, Any]: ...
    @property
    def pods(self) -> Sequence[Pod]: ...
    @property
    def pending_pods(self) -> Sequence[Pod]: ...
    @property
    def storage_classes(self) -> Mapping[str, StorageClass]: ...
    @property
    def admission(self) -> Admission: ...
    def limit_ranges_in(self, namespace: str) -> list[LimitRange]: ...


def default_class(classes: Iterable[StorageClass]) -> str | None:
    """storageutil.GetDefaultClass: the newest class marked default, then the first by name."""
    best: tuple[float, str] | None = None
    for sc in classes:
        if not sc.is_default:
            continue
        key = (-sc.creation_timestamp, sc.name)
        if best is None or key < best:
            best = key
    return best[1] if best else None


@dataclass(slots=True)
class AdmissionChain:
    """The admission plugins in their order, over ``cluster``.

    ``namespaces_listed``: whether the cluster state lists its Namespace objects (None: it holds
    some), the only way NamespaceLifecycle can tell a namespace does not exist. `check` decides it
    before its manifests' own Namespaces join the cluster (they then exist, and a state that listed
    none still cannot tell about the others); `schedule` does the same with its manifests'.
    ``quota``: the ResourceQuota ledger the pods are charged to; None (capacity, or no
    ResourceQuota at all): no quota is enforced."""

    cluster: Cluster
    namespaces_listed: bool | None = None
    quota: QuotaLedger | None = None
    # An extended resource requested without a limit: refused, as the API server refuses it (the
    # gate, workloads); False (`schedule` of a bare Pod): answered as the scheduler answers such a
    # pod, with a note that the API server refuses it (the real schedulers' recorded answers take
    # such pods, never validated, as input).
    refuse_unlimited: bool = True

    # --- NamespaceLifecycle ---------------------------------------------------------------------

    def namespace_lifecycle(self, namespace: str) -> str | None:
        """The API server's answer when an object is created in a namespace that does not
        exist, or None."""
        cluster = self.cluster
        if not self._listed() or namespace in cluster.namespaces or namespace in SYSTEM_NAMESPACES:
            return None
        if any(p.namespace == namespace for p in cluster.pods) or any(
            p.namespace == namespace for p in cluster.pending_pods
        ):
            return None  # its pods show it exists (a state read without all of its Namespaces)
        return f'namespaces "{namespace}" not found'

    def _listed(self) -> bool:
        """Whether the state lists the cluster's Namespaces (else a namespace cannot be refused)."""
        return bool(self.cluster.namespaces) if self.namespaces_listed is None else self.namespaces_listed

    def unverified_namespaces(self, namespaces: set[str]) -> list[str]:
        """The namespaces of new objects that a cluster state without Namespace objects cannot
        confirm (no pod of the state runs there either)."""
        cluster = self.cluster
        if self._listed():
            return []
        seen = {p.namespace for p in cluster.pods} | {p.namespace for p in cluster.pending_pods}
        return sorted(namespaces - seen - SYSTEM_NAMESPACES - set(cluster.namespaces))

    # --- pods -----------------------------------------------------------------------------------

    def admit_pod(
        self,
        body: dict[str, Any],
        pod: Pod,
        parse: Callable[[dict[str, Any]], Pod],
        *,
        lifecycle: bool = True,
        shown_name: str | None = None,
        field: str | None = None,
        validate_refused: bool = True,
    ) -> Outcome[Pod]:
        """A new pod of document ``body`` (``pod``: as parsed, ``parse`` parses the body again
        after LimitRanger's defaults). ``lifecycle`` False: its namespace was admitted with its
        controller. ``shown_name``: the name a refusal names (a controller's generateName).
        ``field``: the path of the pod inside its document, for errors. A refused pod is still
        admitted as far as Priority; Priority refuses a pod whose PriorityClass does not exist.
        ResourceQuota comes last, when the pod is created (resource_quota). ``validate_refused``
        False: a refused pod is answered at once (the caller stops at the refusal)."""
        refusal: tuple[str, str] | None = None
        msg = self.namespace_lifecycle(pod.namespace) if lifecycle else None
        notes: tuple[str, ...] = ()
        if msg is not None:
            refusal = (NAMESPACE_LIFECYCLE, msg)
        else:
            ranges = self.cluster.limit_ranges_in(pod.namespace)
            if ranges:
                pod, msg, notes = self._limit_ranger(body, pod, parse, ranges, shown_name)
                if msg is not None:
                    refusal = (LIMIT_RANGER, msg)
        if refusal is not None and not validate_refused:
            return Refused(pod, refusal[0], refusal[1], notes)
        try:
            pod = self.cluster.admission.admit(pod, strict=True, refuse_unlimited=self.refuse_unlimited)
        except PriorityClassNotFound as e:
            if refusal is None:
                refusal = (PRIORITY, limitranger.forbidden("pods", shown_name or pod.name, e.message))
            return Refused(pod, refusal[0], refusal[1], notes)
        except FieldError as e:
            if field is None:
                raise
            raise e.under(field) from None
        if refusal is not None:
            return Refused(pod, refusal[0], refusal[1], notes)
        return Admitted(pod, notes)

    def resource_quota(self, pod: Pod, shown_name: str | None = None) -> Outcome[Pod]:
        """ResourceQuota, the last plugin, for a pod the earlier ones admitted, when it is
        created: pods are charged one after another, in the order they are created."""
        err = self.quota.admit(pod) if self.quota is not None else None
        if err is None:
            return Admitted(pod)
        return Refused(pod, RESOURCE_QUOTA, limitranger.forbidden("pods", shown_name or pod.name, err))

    def release(self, pod: Pod) -> None:
        """A pod that leaves (an update's old pods) gives its quota back."""
        if self.quota is not None:
            self.quota.release(pod)

    @staticmethod
    def _limit_ranged_note(ranges: list[LimitRange], changed: list[str]) -> tuple[str, ...]:
        if not changed:
            return ()
        names = ", ".join(lr.name for lr in ranges)
        return (f"LimitRanger (LimitRange {names}) sets " + "; ".join(changed),)

    def _limit_ranger(
        self,
        body: dict[str, Any],
        pod: Pod,
        parse: Callable[[dict[str, Any]], Pod],
        ranges: list[LimitRange],
        shown_name: str | None,
    ) -> tuple[Pod, str | None, tuple[str, ...]]:
        """The pod after LimitRanger's defaults, its refusal if any (what it sets can make the
        pod invalid; what it checks can refuse it), and what it set."""
        mutated, changed = limitranger.mutate_pod(body, ranges)
        notes = self._limit_ranged_note(ranges, changed)
        try:
            pod = parse(mutated)
        except FieldError as e:
            return pod, f'Pod "{pod.name}" is invalid: {e.detail}', notes
        err = limitranger.validate_pod(mutated, ranges)
        refusal = limitranger.forbidden("pods", shown_name or pod.name, err) if err is not None else None
        return pod, refusal, notes

    # --- claims ---------------------------------------------------------------------------------

    def claim_refusal(self, body: dict[str, Any], namespace: str, name: str) -> str | None:
        """LimitRanger on a new PersistentVolumeClaim (min and max storage), or None."""
        ranges = self.cluster.limit_ranges_in(namespace)
        if not ranges:
            return None
        err = limitranger.validate_claim(body, ranges)
        return limitranger.forbidden("persistentvolumeclaims", name, err) if err is not None else None

    def default_storage_class(self, pvc: PersistentVolumeClaim) -> PersistentVolumeClaim:
        """DefaultStorageClass: a claim without a class gets the default one, if any."""
        if pvc.storage_class_name is not None:
            return pvc
        default = default_class(self.cluster.storage_classes.values())
        if default is None:
            return pvc
        return dataclasses.replace(pvc, storage_class_name=default, spec_storage_class_name=default)
