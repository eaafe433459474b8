"""The release a run answers as: a SchedulerVersion (a release, its feature gates and the behaviour
switches of the changes in force) resolved from a version string, and the ChosenVersion of a run
(where the release came from). The release package's front door: the numbers and parsing
(releases.py), the recorded changes (changes.py), the default profiles (profiles.py) and the
feature-gate tables (featuregates.py) are re-exported here for the rest of kwhatif.

A release's behaviour is its minor's feature-gate defaults plus every recorded change that had
landed by that patch release. Each change names where it landed on every release line it reached
(``landed=("1.30.7", "1.31.3", "1.32.0")``: back-ported to 1.30.7 and 1.31.3, in every minor from
1.32 on) and the behaviour switches it sets. Plugins, the configuration loader and the pod
admission read the switches of the selected release by name (``version.behaviour.taint_reason``,
``version.gate("PodLevelResources")``); none of them compares version numbers.

A run's feature gates are the release's defaults plus --feature-gates (featuregates.py); every
``gate()`` a plugin or the admission reads is the effective value, so a gate turned on or off
changes the profile, the plugins and the API server's side alike.

Adding a minor is adding data: its newest patch to NEWEST_PATCH, its gates to featuregates.SPECS,
and the changes it brought to CHANGES (each naming the plugins it touches).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kwhatif.release import featuregates, profiles
from kwhatif.release.changes import CHANGES as CHANGES
from kwhatif.release.changes import VOLUME_LIMITS_IN_TREE as VOLUME_LIMITS_IN_TREE
from kwhatif.release.changes import WORKLOAD_API_SERVED as WORKLOAD_API_SERVED
from kwhatif.release.changes import Behaviour as Behaviour
from kwhatif.release.changes import Change as Change
from kwhatif.release.featuregates import FeatureGates
from kwhatif.release.releases import DEFAULT_MINOR as DEFAULT_MINOR
from kwhatif.release.releases import DEFAULT_PATCH as DEFAULT_PATCH
from kwhatif.release.releases import FROM_SOURCES_MINORS as FROM_SOURCES_MINORS
from kwhatif.release.releases import KUBELET_MAX_MINORS_OLDER as KUBELET_MAX_MINORS_OLDER
from kwhatif.release.releases import MAJOR as MAJOR
from kwhatif.release.releases import NEWEST_PATCH as NEWEST_PATCH
from kwhatif.release.releases import SUPPORTED_MINORS as SUPPORTED_MINORS
from kwhatif.release.releases import Release as Release
from kwhatif.release.releases import Skew as Skew
from kwhatif.release.releases import kubelet_skew as kubelet_skew
from kwhatif.release.releases import newest_minor as newest_minor
from kwhatif.release.releases import parse_version as parse_version
from kwhatif.release.releases import supported_text as supported_text

# --- feature gates --------------------------------------------------------------------------------

# The gates whose effect kwhatif models: the scheduler's own (plugins/feature.Features,
# default_plugins.go, calculateResource) and the API server's that decide what the scheduler gets to
# see of a pod. Their per-release specs are featuregates.SPECS; plugins, the configuration loader and
# the admission read them through SchedulerVersion.gate. A gate set with --feature-gates that is not
# here is reported as set but not modelled.
MODELLED_GATES: tuple[str, ...] = (
    "MatchLabelKeysInPodTopologySpread",
    "MatchLabelKeysInPodTopologySpreadSelectorMerge",
    "MatchLabelKeysInPodAffinity",
    "PodDisruptionConditions",
    "InPlacePodVerticalScaling",
    "InPlacePodLevelResourcesVerticalScaling",
    "PodLevelResources",
    "DynamicResourceAllocation",
    "DRAAdminAccess",
    "DRAPrioritizedList",
    "DRAPartitionableDevices",
    "DRADeviceTaints",
    "DRAConsumableCapacity",
    "DRASchedulerFilterTimeout",
    "DRAResourceClaimDeviceStatus",
    "DRADeviceBindingConditions",
    "DRAExtendedResource",
    "VolumeCapacityPriority",
    "StorageCapacityScoring",
    "VolumeLimitScaling",
    "NodeDeclaredFeatures",
    "TaintTolerationComparisonOperators",
    "ContainerRestartRules",
    # the Workload API and gang scheduling (kwhatif.release.workload_gates reads them)
    "GenericWorkload",
    "GangScheduling",
    "WorkloadAwarePreemption",
    "TopologyAwareWorkloadScheduling",
)
# Gates kwhatif answers with as on, whatever they are set to: sidecars, scheduling gates and the
# spreading fields are always honoured (turning them off in 1.30-1.32 is not modelled), and the
# queue's and preemption's asynchrony does not change a dry run's answers.
ASSUMED_ON_GATES: tuple[str, ...] = (
    "SidecarContainers",
    "PodSchedulingReadiness",
    "MinDomainsInPodTopologySpread",
    "NodeInclusionPolicyInPodTopologySpread",
    "SchedulerQueueingHints",
    "SchedulerAsyncPreemption",
)
# Gates of gang scheduling that kwhatif knows but does not model (a note says so when one is set):
# none since TopologyAwareWorkloadScheduling is modelled (kwhatif.scheduling.placement_cycle).
# 1.37 (kube_features.go at ead35706) has no GangScheduling or WorkloadAwarePreemption gate: what
# they switched follows GenericWorkload there (gang_plugin_on, kwhatif.release.workload_gates); its new
# CompositePodGroup and PodGroupPreemptionPolicy are reported as set but not modelled.
GANG_GATES: tuple[str, ...] = ()


def gate_exists(name: str, minor: int) -> bool:
    return name in featuregates.known(minor)


# --- a resolved release ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchedulerVersion:
    """Everything kwhatif needs to answer as one kube-scheduler release."""

    release: Release
    gates: Mapping[str, bool]  # the effective value of every modelled gate
    behaviour: Behaviour
    changes: tuple[Change, ...] = field(default=())  # the recorded changes in force
    feature_gates: FeatureGates = field(default_factory=lambda: featuregates.defaults(DEFAULT_MINOR))

    def __str__(self) -> str:
        return str(self.release)

    @property
    def minor(self) -> int:
        return self.release.minor

    def gate(self, name: str) -> bool:
        """The default of feature gate ``name`` in this release (False when it does not exist)."""
        if not featuregates.ever_known(name):
            raise KeyError(f"feature gate {name} is not in the version table")
        return self.feature_gates.enabled(name)

    def has_gate(self, name: str) -> bool:
        return gate_exists(name, self.minor)

    def gate_is_default(self, name: str) -> bool:
        """Whether gate ``name`` has the release's default value (--feature-gates did not change it)."""
        spec = featuregates.known(self.minor).get(name)
        return spec is None or spec.default == self.gate(name)

    def with_feature_gates(self, text: str) -> SchedulerVersion:
        """This release with --feature-gates ``text`` applied (FeatureGateError when it refuses them)."""
        return for_release(self.release, featuregates.parse(text, self.minor))

    def unmodelled_gates(self) -> tuple[str, ...]:
        """Gates --feature-gates set whose effect kwhatif does not model."""
        modelled = set(MODELLED_GATES) | {featuregates.ALL_ALPHA, featuregates.ALL_BETA}
        specs = featuregates.known(self.minor)
        return tuple(
            sorted(
                n
                for n in self.feature_gates.overrides
                if n not in modelled and not specs[n].locked  # a locked gate set to its value changes nothing
            )
        )

    def feature_gate_notes(self) -> tuple[str, ...]:
        """What kube-scheduler logs while setting the gates, and which set gates kwhatif does not model."""
        notes = [f"--feature-gates: {w}" for w in self.feature_gates.warnings]
        for name in self.unmodelled_gates():
            value = str(self.feature_gates.enabled(name)).lower()
            if name in GANG_GATES:
                notes.append(
                    f"--feature-gates: {name}={value}: topology-aware workload scheduling is not modelled; "
                    "pod groups are placed without it"
                )
            else:
                notes.append(f"--feature-gates: {name}={value} is set, but kwhatif does not model its effect")
        return tuple(notes)

    def feature_gates_in_force(self) -> dict[str, bool]:
        """The gates --feature-gates set or changed through AllAlpha/AllBeta, with their values."""
        fg = self.feature_gates
        out = dict(fg.non_default())
        out.update({k: fg.enabled(k) for k in fg.overrides})
        return dict(sorted(out.items()))

    def default_plugins(self) -> tuple[tuple[str, int | None], ...]:
        """getDefaultPlugins(): the multiPoint list (name, weight) of this release (profiles.py)."""
        return profiles.default_plugins(self)

    def gang_plugin_on(self) -> bool:
        return profiles.gang_plugin_on(self)

    def plugin_registered(self, name: str) -> bool:
        """Whether the release's in-tree registry has the plugin (profiles.py)."""
        return profiles.plugin_registered(self, name)


def for_release(release: Release, gates: FeatureGates | None = None) -> SchedulerVersion:
    """The release with its default feature gates, or with ``gates`` (from featuregates.parse)."""
    if release.minor not in SUPPORTED_MINORS:
        raise ValueError(f"kube-scheduler {release} is not supported (supported: {supported_text()})")
    fg = gates if gates is not None else featuregates.defaults(release.minor)
    if fg.minor != release.minor:
        raise ValueError(f"feature gates of 1.{fg.minor} given for {release}")
    effective = {name: fg.enabled(name) for name in MODELLED_GATES}
    in_force = tuple(c for c in CHANGES if c.applies(release))
    behaviour = Behaviour()
    for c in in_force:
        behaviour = dataclasses.replace(behaviour, **c.sets)
    return SchedulerVersion(release, effective, behaviour, in_force, fg)


@dataclass(frozen=True, slots=True)
class Resolved:
    version: SchedulerVersion
    notes: tuple[str, ...] = ()


def resolve(text: str, *, lenient: bool = False) -> Resolved:
    """The release a version string names: a minor means its newest known patch. With ``lenient``
    (a version a cluster reported), a minor outside the table is answered as the nearest supported
    one, with a note; otherwise it is an error (ValueError)."""
    major, minor, patch = parse_version(text, lenient=lenient)
    notes: list[str] = []
    if major != MAJOR:
        raise ValueError(f"{text!r}: only Kubernetes {MAJOR}.x exists")
    if minor not in SUPPORTED_MINORS:
        if not lenient:
            raise ValueError(f"{text!r}: kwhatif answers as kube-scheduler {supported_text()}")
        nearest = min(max(minor, SUPPORTED_MINORS[0]), SUPPORTED_MINORS[-1])
        notes.append(
            f"kube-scheduler {MAJOR}.{minor} is outside what kwhatif knows ({supported_text()}); "
            f"answering as {MAJOR}.{nearest}.{NEWEST_PATCH[nearest]}"
        )
        minor, patch = nearest, None
    newest = NEWEST_PATCH[minor]
    if patch is None:
        patch = newest
    if minor in FROM_SOURCES_MINORS:
        notes.append(f"{MAJOR}.{minor} (from sources, not checked against the real scheduler)")
    elif patch > newest:
        notes.append(
            f"{MAJOR}.{minor}.{patch} is newer than the newest {MAJOR}.{minor} release kwhatif knows "
            f"({MAJOR}.{minor}.{newest}); answering with what changed up to {MAJOR}.{minor}.{newest}"
        )
    return Resolved(for_release(Release(minor, patch)), tuple(notes))


def default_version() -> SchedulerVersion:
    return for_release(Release(DEFAULT_MINOR, DEFAULT_PATCH))


def get(text: str, feature_gates: str = "") -> SchedulerVersion:
    """A release by its version string (``1.30.6``, ``1.34``), with --feature-gates ``feature_gates``
    applied; for tests and library callers."""
    version = resolve(text).version
    return version.with_feature_gates(feature_gates) if feature_gates else version


# --- the release a run answers as -----------------------------------------------------------------


class VersionSource(enum.StrEnum):
    FLAG = "flag"
    LIVE = "live"
    DUMP = "dump"
    KUBELETS = "kubelets"  # the newest kubelet of the nodes (the control plane is at least as new)
    DEFAULT = "default"


_SOURCE_TEXT = {
    VersionSource.FLAG: "from --scheduler-version",
    VersionSource.LIVE: "from the cluster",
    VersionSource.DUMP: "from the dump",
    VersionSource.KUBELETS: "from the nodes' kubelets",
    VersionSource.DEFAULT: "assumed",
}


@dataclass(frozen=True, slots=True)
class ChosenVersion:
    version: SchedulerVersion
    source: VersionSource
    notes: tuple[str, ...] = ()
    # the release the cluster reported when it is outside the supported ones (answered as the
    # nearest): a summary line must not credit it to the cluster
    outside: str = ""

    @property
    def text(self) -> str:
        return str(self.version)

    def describe(self) -> str:
        """For summary lines: ``kube-scheduler 1.30.6 from the dump``, ``kube-scheduler 1.35.7 assumed``,
        ``kube-scheduler 1.30.14 (the dump's v1.8.15 is older than the releases kwhatif answers as)``."""
        if self.outside:
            whose = {VersionSource.LIVE: "the cluster's", VersionSource.KUBELETS: "the nodes' kubelet"}.get(
                self.source, "the dump's"
            )
            _, minor, _ = parse_version(self.outside, lenient=True)
            than = "older" if minor < SUPPORTED_MINORS[0] else "newer"
            return (
                f"kube-scheduler {self.version} ({whose} {self.outside} is {than} than the releases kwhatif answers as)"
            )
        return f"kube-scheduler {self.version} {_SOURCE_TEXT[self.source]}"

    def with_feature_gates(self, text: str | None) -> ChosenVersion:
        """The chosen release with --feature-gates ``text`` applied; kube-scheduler's warnings and the
        set gates kwhatif does not model become notes."""
        if not text:
            return self
        version = self.version.with_feature_gates(text)
        return dataclasses.replace(self, version=version, notes=self.notes + version.feature_gate_notes())

    def report_fields(self) -> dict[str, Any]:
        """The JSON/YAML fields of every report. ``featureGates`` (only when --feature-gates was
        given): every gate it set, and any AllAlpha/AllBeta changed, with the value in force; the
        rest are the release's defaults, which schedulerVersion names."""
        out: dict[str, Any] = {"schedulerVersion": self.text, "schedulerVersionSource": self.source.value}
        in_force = self.version.feature_gates_in_force()
        if in_force:
            out["featureGates"] = in_force
            unmodelled = self.version.unmodelled_gates()
            if unmodelled:
                out["featureGatesNotModelled"] = list(unmodelled)
        return out


# --- what changes between two releases ------------------------------------------------------------


def diff_lines(a: str, b: str, plugin: str | None = None) -> list[str]:
    """What changes from release ``a`` to release ``b``: the recorded changes in force at one and
    not the other (each with its plugins), and the modelled gates whose default differs."""
    va, vb = get(a), get(b)
    lines = [f"kube-scheduler {va} -> {vb}" + (f" ({plugin})" if plugin else "")]
    added = [c for c in vb.changes if c not in va.changes]
    removed = [c for c in va.changes if c not in vb.changes]
    for sign, group in (("+", added), ("-", removed)):
        for c in group:
            if plugin and plugin not in c.plugins:
                continue
            prs = f" (#{', #'.join(map(str, c.prs))})" if c.prs else ""
            at = next((v for v in c.landed if Release.parse(v).minor == vb.minor), c.landed[-1])
            lines.append(f"  {sign} {at:<7} [{', '.join(c.plugins)}] {c.summary}{prs}")
    if len(lines) == 1:
        lines.append("  no recorded change")
    if plugin is None:
        gates = [
            f"  {n}: {str(va.gate(n)).lower()} -> {str(vb.gate(n)).lower()}"
            for n in MODELLED_GATES
            if va.gate(n) != vb.gate(n)
        ]
        if gates:
            lines.append("feature gate defaults:")
            lines.extend(gates)
        gone = [n for n in MODELLED_GATES if va.has_gate(n) and not vb.has_gate(n)]
        new = [n for n in MODELLED_GATES if vb.has_gate(n) and not va.has_gate(n)]
        if gone or new:
            lines.append("modelled feature gates:")
            lines.extend(f"  - {n} (no longer a gate)" for n in gone)
            lines.extend(f"  + {n}" for n in new)
    return lines
