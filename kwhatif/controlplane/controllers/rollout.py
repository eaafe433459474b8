"""What the workload controllers do when a running workload is updated, for `kwhatif check`.

A manifest that names a workload the cluster already runs is an update. Which of the running pods
make room first, and which stay beside the new ones, is decided here, as the controllers that own
each rule decide it upstream (kubernetes/kubernetes, pkg/controller/):

- every kind, without --surge: the running pods leave first (the moment after a recreate);
- with --surge, Deployments, ReplicaSets and the other kinds keep all their running pods while the
  new ones are placed (the worst moment of a rolling update: an upper bound of what
  deployment/rolling.go's maxSurge lets the controller run at once);
- a StatefulSet never surges: stateful_set_control.go's updateStatefulSet deletes each pod whose
  revision differs before it creates the replacement;
- a DaemonSet surges only with a rolling update whose maxSurge is above zero
  (daemon/update.go rollingUpdate, daemon/util SurgeCount): the new pod starts next to the old
  one on its node; with maxSurge 0 (or OnDelete) the old pod is deleted first;
- a StatefulSet with podManagementPolicy OrderedReady (the default: apps/v1 defaults.go) creates
  its pods one at a time, each once the one before is Running and Ready;
- the HorizontalPodAutoscaler controller keeps its target's replicas within its bounds
  (podautoscaler/horizontal.go reconcileAutoscaler).

A template that re-applying leaves as it runs is no change (``template_unchanged``): the update
then replaces nothing in a DaemonSet or StatefulSet under --surge.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from kwhatif.api.autoscaling import HorizontalPodAutoscaler
from kwhatif.api.quantity import QuantityError, parse_quantity
from kwhatif.cache.cluster import Workload

# The kinds a HorizontalPodAutoscaler scales through their scale subresource.
SCALED_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})

# Fields of a pod template that decide where its pods go (a template that drops one of them
# changes the pods, even when everything it still sets is as before).
SCHEDULING_FIELDS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "topologySpreadConstraints",
    "priorityClassName",
    "runtimeClassName",
    "hostNetwork",
    "nodeName",
    "overhead",
    "volumes",
    "initContainers",
    "schedulingGates",
)

ORDERED_READY = "OrderedReady"


@dataclass(frozen=True, slots=True)
class Rollout:
    """How the update of a running workload treats its running pods."""

    leave_first: bool  # the running pods are deleted before the new ones are created
    stale: frozenset[str] = frozenset()  # running pods (keys) that stay next to their replacements
    notes: tuple[str, ...] = ()


def plan_rollout(new: Workload, current: Workload | None, running: frozenset[str], *, surge: bool) -> Rollout:
    """The update of ``current`` (None: the cluster state holds no such object, only pods matched
    to it) to ``new``, whose ``running`` pods run now; ``surge``: the worst moment of a rolling
    update rather than the moment after the old pods are gone."""
    if not surge:
        return Rollout(leave_first=True)
    if not running or new.kind not in ("DaemonSet", "StatefulSet"):
        # a Deployment's (or ReplicaSet's, Job's ...) running pods all stay while the new ones come
        return Rollout(leave_first=False)
    changed = current is None or not template_unchanged(current, new)
    notes: list[str] = []
    leave_first, stale = False, frozenset[str]()
    if changed and new.kind == "StatefulSet":
        leave_first = True
        notes.append(
            "StatefulSet: its template changes and a StatefulSet never surges: the controller deletes "
            "each pod before it creates its replacement, so --surge replaces them as without it"
        )
    elif changed:
        surge_n = daemonset_max_surge(new)
        if surge_n > 0:
            stale = running
            notes.append(
                f"DaemonSet: its template changes and its rolling update (maxSurge {surge_n}) starts each "
                "new pod next to the old one: both are placed"
            )
        else:
            leave_first = True
            notes.append(
                "DaemonSet: its template changes and its update (maxSurge 0, or OnDelete) deletes each old "
                "pod before it creates the new one, so --surge replaces them as without it"
            )
    if current is None and changed:
        notes.append(
            f"{new.kind}: the cluster state has no {new.kind} object to compare its template with: taken as changed"
        )
    return Rollout(leave_first, stale, tuple(notes))


def daemonset_max_surge(w: Workload) -> int:
    """spec.updateStrategy.rollingUpdate.maxSurge (0 by default, and for OnDelete); a
    percentage counts as 1 or more when it is above zero (daemon/util SurgeCount scales it by
    the number of nodes and rounds up)."""
    spec = w.body.get("spec")
    strategy = spec.get("updateStrategy") if isinstance(spec, dict) else None
    if not isinstance(strategy, dict):
        return 0
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return 0
    rolling = strategy.get("rollingUpdate")
    raw = rolling.get("maxSurge") if isinstance(rolling, dict) else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return max(raw, 0)
    if isinstance(raw, str) and raw.endswith("%") and raw[:-1].isdigit():
        return 1 if int(raw[:-1]) > 0 else 0
    return 0


def pod_management_policy(w: Workload) -> str:
    """A StatefulSet's spec.podManagementPolicy, OrderedReady when unset (apps/v1 defaults.go)."""
    spec = w.body.get("spec")
    policy = spec.get("podManagementPolicy") if isinstance(spec, dict) else None
    return policy if isinstance(policy, str) and policy else ORDERED_READY


def ordered_ready(w: Workload) -> bool:
    """A StatefulSet that creates its pods one at a time, each once the one before is Running
    and Ready (stateful_set_control.go: monotonic unless Parallel)."""
    return w.kind == "StatefulSet" and pod_management_policy(w) == ORDERED_READY


def created_in_order(placed: Iterable[bool]) -> int:
    """How many of an OrderedReady StatefulSet's pods are created, given whether each, in ordinal
    order, is placed: every one up to the first that stays pending, which blocks the rest."""
    n = 0
    for ok in placed:
        n += 1
        if not ok:
            break
    return n


def autoscaled(w: Workload, hpas: Iterable[HorizontalPodAutoscaler], hpa_max: bool, notes: list[str]) -> Workload:
    """The replicas the HorizontalPodAutoscaler controller keeps a target at: spec.replicas
    (1 when unset) raised to minReplicas and lowered to maxReplicas at once; with ``hpa_max``,
    maxReplicas (the peak a rollout must survive). A target scaled to 0 is not autoscaled
    (horizontal.go reconcileAutoscaler: "scaling is disabled for this resource")."""
    if w.kind not in SCALED_KINDS:
        return w
    hpa = next(
        (
            h
            for h in sorted(hpas, key=lambda h: h.name)
            if h.namespace == (w.namespace or "default") and h.target_kind == w.kind and h.target_name == w.name
        ),
        None,
    )
    if hpa is None:
        return w
    spec = w.body.get("spec")
    raw = spec.get("replicas") if isinstance(spec, dict) else None
    replicas = raw if isinstance(raw, int) and not isinstance(raw, bool) else 1
    bounds = f"HorizontalPodAutoscaler {hpa.name} (minReplicas {hpa.min_replicas}, maxReplicas {hpa.max_replicas})"
    if replicas == 0:
        notes.append(f"{bounds}: the target has 0 replicas, so autoscaling is disabled")
        return w
    if hpa_max:
        want = hpa.max_replicas
        notes.append(f"{bounds}: checked at maxReplicas {want} (--hpa-max)")
    elif replicas < hpa.min_replicas:
        want = hpa.min_replicas
        notes.append(f"{bounds}: {replicas} replica(s) are raised to minReplicas {want} at once")
    elif replicas > hpa.max_replicas:
        want = hpa.max_replicas
        notes.append(f"{bounds}: {replicas} replicas are lowered to maxReplicas {want} at once")
    else:
        notes.append(
            f"{bounds}: {replicas} replica(s), within its bounds (it may scale up to {hpa.max_replicas}; see --hpa-max)"
        )
        return w
    body = copy.deepcopy(w.body)
    body.setdefault("spec", {})["replicas"] = want
    return dataclasses.replace(w, body=body)


def _template_of(body: dict[str, object]) -> dict[str, object]:
    spec = body.get("spec")
    tmpl = spec.get("template") if isinstance(spec, dict) else None
    return tmpl if isinstance(tmpl, dict) else {}


def subset(new: object, old: object) -> bool:
    """Every field ``new`` sets has that value in ``old`` (which the API server defaulted, and
    whose quantities it wrote in canonical form)."""
    if isinstance(new, dict):
        return isinstance(old, dict) and all(k in old and subset(v, old[k]) for k, v in new.items())
    if isinstance(new, list):
        return isinstance(old, list) and len(new) == len(old) and all(subset(a, b) for a, b in zip(new, old))
    if new == old:
        return True
    try:
        return parse_quantity(new) == parse_quantity(old)
    except QuantityError:
        return False


def template_unchanged(current: Workload, new: Workload) -> bool:
    """Whether re-applying ``new`` leaves the running template as it is: what it sets is what
    runs, and it drops none of the fields that decide scheduling (nor a container's requests
    or limits). A defaulted field the manifest leaves out does not count as a change."""
    old_t, new_t = _template_of(current.body), _template_of(new.body)
    if not subset(new_t, old_t):
        return False
    old_spec, new_spec = _dict(old_t.get("spec")), _dict(new_t.get("spec"))
    if any(k in old_spec and k not in new_spec for k in SCHEDULING_FIELDS):
        return False
    for old_c, new_c in zip(_list(old_spec.get("containers")), _list(new_spec.get("containers"))):
        old_r, new_r = _dict(_dict(old_c).get("resources")), _dict(_dict(new_c).get("resources"))
        for key in ("requests", "limits"):
            if set(_dict(old_r.get(key))) - set(_dict(new_r.get(key))):
                return False
    return True


def _dict(v: object) -> dict[str, object]:
    return v if isinstance(v, dict) else {}


def _list(v: object) -> list[object]:
    return v if isinstance(v, list) else []
