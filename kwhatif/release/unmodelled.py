"""Scheduler-visible upstream changes of the releases answered from sources (1.37 and 1.38) that
kwhatif records but does not model, each with its PRs, why, and the source it was read from. A
recorded change kwhatif models is a versions.Change (changes.py): it sets a behaviour switch and
`kwhatif diff` names it as a cause; these set nothing, so diff never names them. The docs'
provenance table (docs/releases.md) lists both."""

from __future__ import annotations

from dataclasses import dataclass

CHANGELOG_138 = "CHANGELOG-1.38 at 0411cc704533"


@dataclass(frozen=True, slots=True)
class Unmodelled:
    landed: str  # the release it landed in ("1.38.0"), or the patch line ("1.37.x")
    prs: tuple[int, ...]
    summary: str
    why: str  # why kwhatif's answers do not change with it
    source: str
    plugins: tuple[str, ...] = ()


UNMODELLED: tuple[Unmodelled, ...] = (
    Unmodelled(
        "1.38.0",
        (141314,),
        "PlacementFeasible is an extension point out-of-tree plugins can implement",
        "kwhatif runs in-tree plugins only",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, API Change)",
        ("framework",),
    ),
    Unmodelled(
        "1.38.0",
        (141253,),
        "PlacementFeasible's status propagates to the pod's unschedulable plugins; PodGroup statuses reworded",
        "kwhatif does not model PlacementFeasible's cycle (gang_placement_feasible) nor write PodGroup status",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, Bug or Regression)",
        ("GangScheduling", "framework"),
    ),
    Unmodelled(
        "1.38.0",
        (139472,),
        "topology-aware placement selection respects a pod's NominatedNodeName",
        "1.38 places groups by topology domain as 1.36 does; a nominated node does not yet steer the choice",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, API Change)",
        ("framework",),
    ),
    Unmodelled(
        "1.38.0",
        (141864, 141930, 141023, 141021, 140670),
        "CompositePodGroup: name collisions with a PodGroup fixed, priority and preemptionPolicy checked "
        "against the root group, minGroupCount mutable, a deletion finalizer and status",
        "CompositePodGroup is not modelled",
        f"{CHANGELOG_138} (v1.38.0-alpha.1 and alpha.2)",
        ("GangScheduling",),
    ),
    Unmodelled(
        "1.38.0",
        (141648,),
        "a DeviceTaintRule without spec.deviceSelector matches no device (it matched every device)",
        "kwhatif does not read DeviceTaintRules (only taints in ResourceSlices)",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, Bug or Regression)",
        ("DynamicResources",),
    ),
    Unmodelled(
        "1.38.0",
        (141110, 141556),
        "DRA-backed extended resources: the DeviceClass cache keeps the right class across updates and "
        "explicit-name collisions; devices that also contribute node allocatable resources schedule",
        "extended resources backed by DRA are not modelled (and a snapshot has no update history)",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, Bug or Regression); PR #141110 description",
        ("DynamicResources", "NodeResourcesFit"),
    ),
    Unmodelled(
        "1.38.0",
        (141307,),
        "DRA: device counts adding up past the int range no longer wrap (a crash, or a firstAvailable fallback "
        "skipped); back-ported to 1.37 (#141922), 1.36 (#141923) and 1.35 (#141924)",
        "kwhatif's counts are Python integers: they never wrapped, so every release answers as the fixed one",
        f"{CHANGELOG_138} (v1.38.0-alpha.1); PR #141307 and the cherry-picks' descriptions",
        ("DynamicResources",),
    ),
    Unmodelled(
        "1.38.0",
        (141213, 141644),
        "ResourceSlice validation refuses a per-device nodeSelector of more than one term and qualified names "
        "with more than one slash (stored objects keep them)",
        "API validation of ResourceSlices: kwhatif reads the slices a cluster has",
        f"{CHANGELOG_138} (v1.38.0-alpha.1 and alpha.2)",
        ("api",),
    ),
    Unmodelled(
        "1.38.0",
        (135486,),
        "preemption goes on to preemption-capable extenders when a filter extender rejected a pod that the "
        "in-tree filters let fit (candidates with no victims)",
        "kwhatif does not call scheduler extenders",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, API Change); PR #135486 description",
        ("DefaultPreemption",),
    ),
    Unmodelled(
        "1.38.0",
        (141618, 141305, 141349),
        "quantities past the int64 range: PV capacity compared exactly when binding by name, Value() "
        "saturates instead of wrapping, huge integer extended-resource amounts accepted",
        "kwhatif compares quantities exactly (fractions) on every release, the fixed behaviour",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, Bug or Regression)",
        ("VolumeBinding", "api"),
    ),
    Unmodelled(
        "1.38.0",
        (140108, 141348, 142171, 142170),
        "admission: RuntimeClass admits an empty runtimeClassName; LimitRanger compares exactly and checks "
        "only what a resize or PVC update changes",
        "kwhatif's RuntimeClass and LimitRanger admission answer as 1.37's on every release: LimitRanger "
        "compares thousandths, and amounts are rounded up to thousandths when decoded, so the two differ only "
        "past int64's range of thousandths",
        f"{CHANGELOG_138} (v1.38.0-alpha.1, Bug or Regression)",
        ("api",),
    ),
    Unmodelled(
        "1.38.0",
        (139450, 141577, 142118),
        "the scheduling queue no longer loses a pod popped concurrently; faster requeueing of pod groups "
        "waiting for quorum; NominatedPodsForNode takes a logger (out-of-tree plugins)",
        "kwhatif schedules one pod at a time, without a concurrent queue or out-of-tree plugins",
        f"{CHANGELOG_138} (v1.38.0-alpha.1)",
        ("framework",),
    ),
)


def for_release(minor: int) -> tuple[Unmodelled, ...]:
    """The records of changes that landed in ``minor``."""
    return tuple(u for u in UNMODELLED if u.landed.split(".")[1] == str(minor))
