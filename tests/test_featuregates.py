"""kube-scheduler's --feature-gates as component-base's featuregate applies it, per release: the
cases of upstream's feature_gate_test.go (TestFeatureGateFlag, TestFeatureGateSetFromMap) on the
real gates of each release, and the release data around it (every switch read, every gate kwhatif
models read, every change naming its plugins)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kwhatif.plugins.registry import _IN_TREE
from kwhatif.release import featuregates as fg
from kwhatif.release import versions
from kwhatif.release.featuregates import FeatureGateError, Stage, known, parse

ROOT = Path(versions.__file__).resolve().parent.parent

# At 1.35.7: an alpha gate off, a beta gate on, a GA gate locked to true, a deprecated gate.
ALPHA, BETA = "TaintTolerationComparisonOperators", "PodLevelResources"
OTHER_ALPHA = "GangScheduling"
GA_LOCKED = "SidecarContainers"
DEPRECATED = "AllowDNSOnlyNodeCSR"


def test_the_gates_of_1_35_have_the_states_the_cases_assume() -> None:
    s = known(35)
    assert (s[ALPHA].stage, s[ALPHA].default) == (Stage.ALPHA, False)
    assert (s[BETA].stage, s[BETA].default) == (Stage.BETA, True)
    assert (s[GA_LOCKED].stage, s[GA_LOCKED].default, s[GA_LOCKED].locked) == (Stage.GA, True, True)
    assert s[DEPRECATED].stage is Stage.DEPRECATED


@pytest.mark.parametrize(
    "arg,want",
    [
        pytest.param("", {ALPHA: False, BETA: True}, id="no-values"),
        pytest.param("AllAlpha=false", {ALPHA: False, OTHER_ALPHA: False, BETA: True}, id="all-alpha-off"),
        pytest.param("AllAlpha=true", {ALPHA: True, OTHER_ALPHA: True, BETA: True}, id="all-alpha-on"),
        pytest.param(f"AllAlpha=false,{ALPHA}=true", {ALPHA: True, OTHER_ALPHA: False}, id="alpha-over-all-alpha-off"),
        pytest.param(f"{ALPHA}=true,AllAlpha=false", {ALPHA: True, OTHER_ALPHA: False}, id="alpha-before-all-alpha"),
        pytest.param(f"AllAlpha=true,{ALPHA}=false", {ALPHA: False, OTHER_ALPHA: True}, id="alpha-off-over-all-on"),
        pytest.param(f"{ALPHA}=false,AllAlpha=true", {ALPHA: False, OTHER_ALPHA: True}, id="alpha-off-before-all"),
        pytest.param(f"{BETA}=true,AllAlpha=false", {ALPHA: False, BETA: True}, id="beta-and-all-alpha-off"),
        pytest.param("AllBeta=false", {ALPHA: False, BETA: False}, id="all-beta-off"),
        pytest.param("AllBeta=true", {ALPHA: False, BETA: True}, id="all-beta-on"),
        pytest.param(f"AllBeta=false,{BETA}=true", {BETA: True}, id="beta-over-all-beta-off"),
        pytest.param(f"{BETA}=true,AllBeta=false", {BETA: True}, id="beta-before-all-beta"),
        pytest.param(f"AllBeta=true,{BETA}=false", {BETA: False}, id="beta-off-over-all-beta"),
        pytest.param(f"{ALPHA}=true,AllBeta=false", {ALPHA: True, BETA: False}, id="alpha-and-all-beta-off"),
        pytest.param(f" {ALPHA} = true ,,", {ALPHA: True}, id="spaces-and-empty-items"),
        pytest.param(f"{ALPHA}=true,{ALPHA}=false", {ALPHA: False}, id="the-last-value-wins"),
        pytest.param(f"{ALPHA}=1,{BETA}=F", {ALPHA: True, BETA: False}, id="strconv-parsebool-forms"),
    ],
)
def test_feature_gate_flag(arg: str, want: dict[str, bool]) -> None:
    gates = parse(arg, 35)
    assert {k: gates.enabled(k) for k in want} == want
    assert gates.enabled(GA_LOCKED) is True


@pytest.mark.parametrize(
    "minor,arg,message",
    [
        pytest.param(35, "fooBarBaz=true", "unrecognized feature gate: fooBarBaz", id="unknown"),
        pytest.param(
            35,
            "AllAlpha=banana",
            'invalid value of AllAlpha=banana, err: strconv.ParseBool: parsing "banana": invalid syntax',
            id="all-alpha-banana",
        ),
        pytest.param(
            35,
            "AllBeta=banana",
            'invalid value of AllBeta=banana, err: strconv.ParseBool: parsing "banana": invalid syntax',
            id="all-beta-banana",
        ),
        pytest.param(35, ALPHA, f"missing bool value for {ALPHA}", id="missing-value"),
        pytest.param(
            35,
            f"{GA_LOCKED}=false",
            f"cannot set feature gate {GA_LOCKED} to false, feature is locked to true",
            id="locked",
        ),
        pytest.param(
            36,
            "DynamicResourceAllocation=false,SidecarContainers=false",
            "[cannot set feature gate DynamicResourceAllocation to false, feature is locked to true, "
            "cannot set feature gate SidecarContainers to false, feature is locked to true]",
            id="locked-errors-aggregate",
        ),
        pytest.param(
            30,
            "PodSchedulingReadiness=false,MinDomainsInPodTopologySpread=false",
            "cannot set feature gate PodSchedulingReadiness to false, feature is locked to true",
            id="1.30-stops-at-the-first-error",
        ),
        pytest.param(
            35,
            f"{GA_LOCKED}=false,nope=true,{GA_LOCKED}=false",
            f"[cannot set feature gate {GA_LOCKED} to false, feature is locked to true, unrecognized feature gate: nope]",
            id="unknown-ends-the-parse",
        ),
        pytest.param(34, ALPHA + "=true", f"unrecognized feature gate: {ALPHA}", id="not-yet-in-1.34"),
        pytest.param(
            35,
            "MatchLabelKeysInPodTopologySpread=false",
            "MatchLabelKeysInPodTopologySpreadSelectorMerge is enabled, but depends on features that are disabled: "
            "[MatchLabelKeysInPodTopologySpread]",
            id="dependency",
        ),
        pytest.param(
            35,
            "GangScheduling=true",
            "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]",
            id="gang-needs-generic-workload",
        ),
    ],
)
def test_feature_gate_refused(minor: int, arg: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as ei:
        parse(arg, minor)
    assert str(ei.value) == f"feature-gates: {message}"
    assert ei.value.exit_code == 2


def test_dependencies_are_enforced_from_1_35() -> None:
    """1.34 has no dependency table: the same gate set is accepted."""
    assert parse("MatchLabelKeysInPodTopologySpread=false", 34).enabled("MatchLabelKeysInPodTopologySpread") is False
    gates = parse("GangScheduling=true,GenericWorkload=true", 35)
    assert gates.enabled("GangScheduling") and gates.enabled("GenericWorkload")


@pytest.mark.parametrize(
    "arg,warnings",
    [
        pytest.param(
            f"{GA_LOCKED}=true",
            [f"Setting GA feature gate {GA_LOCKED}=true. It will be removed in a future release."],
            id="ga",
        ),
        pytest.param(
            f"{DEPRECATED}=true",
            [f"Setting deprecated feature gate {DEPRECATED}=true. It will be removed in a future release."],
            id="deprecated",
        ),
        pytest.param(f"{ALPHA}=true,{BETA}=false", [], id="alpha-and-beta-say-nothing"),
    ],
)
def test_feature_gate_warnings(arg: str, warnings: list[str]) -> None:
    assert list(parse(arg, 35).warnings) == warnings


def test_set_from_map() -> None:
    """TestFeatureGateSetFromMap: a locked gate may be set to its value, not to the other."""
    gates = fg.from_map({ALPHA: True, BETA: True, GA_LOCKED: True}, 35)
    assert gates.enabled(ALPHA) and gates.enabled(BETA) and gates.enabled(GA_LOCKED)
    assert gates.non_default() == {ALPHA: True}
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: Unknown"):
        fg.from_map({"Unknown": True}, 35)


def test_release_tables() -> None:
    """The gates each release knows, from its vendored sources (1.37: a 1.37 development commit)."""
    assert ALPHA not in known(34) and ALPHA in known(35)
    assert "PodLevelResources" not in known(31) and known(32)["PodLevelResources"].stage is Stage.ALPHA
    assert known(36)["NodeDeclaredFeatures"] == fg.FeatureSpec(True, Stage.BETA)
    assert "MinDomainsInPodTopologySpread" in known(31) and "MinDomainsInPodTopologySpread" not in known(32)
    assert known(37)["StorageCapacityScoring"].default and not known(36)["StorageCapacityScoring"].default
    assert "AnyVolumeDataSource" in known(36) and "AnyVolumeDataSource" not in known(37)
    with pytest.raises(FeatureGateError, match="DeclarativeValidationTakeover to true, feature is locked to false"):
        parse("DeclarativeValidationTakeover=true", 37)
    assert parse("DeclarativeValidationTakeover=true", 36).enabled("DeclarativeValidationTakeover")
    assert known(30)["ContextualLogging"].default  # component-base's logging gates are registered
    assert "WatchListClient" in known(30)  # and client-go's
    assert "CustomCPUCFSQuotaPeriod" in known(35) and "CPUCFSQuotaPeriod" not in known(
        35
    )  # the gate's string, not its Go name
    for minor in versions.SUPPORTED_MINORS:
        assert {"AllAlpha", "AllBeta"} <= set(known(minor))
        assert len(known(minor)) > 150


def test_a_gate_removed_after_ga_stays_on() -> None:
    v = versions.get("1.34")
    assert not v.has_gate("PodDisruptionConditions")
    assert v.gate("PodDisruptionConditions") is True
    assert versions.get("1.33").gate("VolumeCapacityPriority") is False  # renamed while alpha


# --- release data ---------------------------------------------------------------------------------


def _sources(exclude: tuple[str, ...]) -> str:
    return "\n".join(p.read_text() for p in sorted(ROOT.rglob("*.py")) if p.name not in exclude)


def test_every_behaviour_switch_is_read() -> None:
    """A switch no plugin, loader or admission reads is dead data."""
    text = _sources(("changes.py",))
    own = (ROOT / "release" / "changes.py").read_text().split("class Change", 1)[1]
    unread = [
        f
        for f in versions.Behaviour.__dataclass_fields__
        if not re.search(rf"\.{f}\b", text) and not re.search(rf"\.{f}\b", own)
    ]
    assert unread == []


def test_every_modelled_gate_is_read() -> None:
    text = _sources(("versions.py", "featuregates.py"))
    dra = (ROOT / "dra" / "features.py").read_text() + (ROOT / "release" / "workload_gates.py").read_text()
    unread = [g for g in versions.MODELLED_GATES if f'"{g}"' not in text and f'"{g}"' not in dra]
    assert unread == []
    for g in versions.MODELLED_GATES + versions.GANG_GATES:
        assert fg.ever_known(g), g


def test_every_change_names_the_plugins_it_touches() -> None:
    allowed = set(_IN_TREE) | {"framework", "config", "api"}
    for c in versions.CHANGES:
        assert c.plugins, c.summary
        assert set(c.plugins) <= allowed, (c.summary, c.plugins)


def test_diff() -> None:
    lines = versions.diff_lines("1.35", "1.36", plugin="NodeVolumeLimits")
    assert lines == [
        "kube-scheduler 1.35.7 -> 1.36.3 (NodeVolumeLimits)",
        "  + 1.36.0  [NodeVolumeLimits] the CSI-driver presence check applies only to CSIDrivers with "
        "preventPodSchedulingIfMissing (#137343)",
    ]
    lines = versions.diff_lines("1.30.6", "1.30.7")
    assert [ln.split("]")[0] for ln in lines[1:3]] == ["  + 1.30.7  [VolumeBinding", "  + 1.30.7  [DefaultPreemption"]
    assert "feature gate defaults:" not in lines
    assert "  NodeDeclaredFeatures: false -> true" in versions.diff_lines("1.35", "1.36")
    assert versions.diff_lines("1.36", "1.36", plugin="TaintToleration")[1:] == ["  no recorded change"]


def test_report_fields_record_the_gates_in_force() -> None:
    chosen = versions.ChosenVersion(versions.get("1.35"), versions.VersionSource.FLAG)
    assert "featureGates" not in chosen.report_fields()
    with_gates = chosen.with_feature_gates(
        "TaintTolerationComparisonOperators=true,ComponentFlagz=true,PodLevelResources=true"
    )
    fields = with_gates.report_fields()
    assert fields["featureGates"] == {
        "ComponentFlagz": True,
        "PodLevelResources": True,
        "TaintTolerationComparisonOperators": True,
    }
    assert fields["featureGatesNotModelled"] == ["ComponentFlagz"]
    assert with_gates.notes == ("--feature-gates: ComponentFlagz=true is set, but kwhatif does not model its effect",)


# --- 1.37, transcribed from upstream ---------------------------------------------------------------
# defaultVersionedKubernetesFeatureGates of pkg/features/kube_features.go at kubernetes/kubernetes
# ead35706ec68f83822a56d53b1577fa8a185ca14 (1.37 development), read at emulation version 1.37:
# (gate, default, stage, locked).
V137 = [
    ("CompositePodGroup", False, Stage.ALPHA, False),
    ("GenericWorkload", False, Stage.BETA, False),
    ("TopologyAwareWorkloadScheduling", False, Stage.ALPHA, False),
    ("PodGroupPreemptionPolicy", False, Stage.ALPHA, False),
    ("DRAWorkloadResourceClaims", False, Stage.BETA, False),
    ("WorkloadWithJob", False, Stage.ALPHA, False),
    ("DRAExtendedResource", True, Stage.GA, True),
    ("DRAPrioritizedList", True, Stage.GA, True),
    ("DRAResourceClaimDeviceStatus", True, Stage.GA, True),
    ("DRADeviceTaints", True, Stage.GA, False),
    ("DRADeviceTaintRules", True, Stage.GA, False),
    ("DRAFractionalCapacityRange", False, Stage.BETA, False),  # its "on" spec needs min compatibility 1.37
    ("DRADerivedAttributes", False, Stage.ALPHA, False),
    ("DRADeviceCompatibilityGroups", False, Stage.ALPHA, False),
    ("DRAConsumableCapacity", True, Stage.BETA, False),
    ("DynamicResourceAllocation", True, Stage.GA, True),
    ("NodeDeclaredFeatures", True, Stage.GA, True),
    ("StorageCapacityScoring", True, Stage.BETA, False),
    ("VolumeLimitScaling", True, Stage.BETA, False),
    ("VolumeAttributesClass", True, Stage.GA, True),
    ("InPlacePodVerticalScalingInitContainers", True, Stage.GA, True),
    ("InPlacePodVerticalScalingSchedulerPreemption", False, Stage.ALPHA, False),
    ("InterPodAffinityHostnameFastPath", False, Stage.ALPHA, False),
    ("SchedulerPreQueueingHints", False, Stage.ALPHA, False),
    ("SchedulerAsyncAPICalls", False, Stage.BETA, False),
    ("OpportunisticBatching", True, Stage.BETA, False),
    ("TaintTolerationComparisonOperators", False, Stage.ALPHA, False),
    ("MatchLabelKeysInPodTopologySpread", True, Stage.BETA, False),
    ("PodLevelResources", True, Stage.BETA, False),
    ("PodLevelResourcesFixDefaulting", True, Stage.BETA, False),
    ("MaxUnavailableStatefulSet", True, Stage.BETA, False),
    ("ClusterTrustBundle", True, Stage.GA, False),
    ("PodCertificateRequest", True, Stage.GA, False),
    ("SELinuxMount", True, Stage.GA, False),
    ("HPAConfigurableTolerance", True, Stage.GA, True),
    ("HPAScaleToZero", True, Stage.BETA, False),
    ("KubeProxyIPVS", True, Stage.DEPRECATED, False),
    ("DisableCPUQuotaWithExclusiveCPUs", True, Stage.DEPRECATED, True),
    ("PodAndContainerStatsFromCRI", False, Stage.BETA, False),
    ("PodsAPI", True, Stage.BETA, False),
    ("DeclarativeValidationTakeover", False, Stage.DEPRECATED, True),
    ("WatchCacheInitializationPostStartHook", True, Stage.GA, True),
    ("ConcurrentWatchObjectDecode", True, Stage.BETA, False),
    ("ConsistentListFromCacheSkipTimeoutFallback", False, Stage.ALPHA, False),
    ("ManifestBasedAdmissionControlConfig", True, Stage.BETA, False),
    ("AllowUnsafeMalformedObjectDeletion", True, Stage.BETA, False),
]
# Gates of 1.36 the 1.37 map no longer has.
REMOVED_137 = [
    "GangScheduling",
    "WorkloadAwarePreemption",
    "AnyVolumeDataSource",
    "SidecarContainers",
    "SchedulerQueueingHints",
    "JobManagedBy",
    "PodLifecycleSleepAction",
    "AuthorizeNodeWithSelectors",
]
# Registered from outside that map (client-go, component-base, the generic API server's own file):
# no 1.37 version stored, so they keep their 1.36 specs.
UNPINNED_137 = ["AtomicFIFO", "WatchListClient", "ContextualLogging", "APIServerTracing", "ConsistentListFromCache"]


@pytest.mark.parametrize("name,default,stage,locked", V137, ids=[r[0] for r in V137])
def test_1_37_gate_specs_are_upstream_s(name: str, default: bool, stage: Stage, locked: bool) -> None:
    assert known(37)[name] == fg.FeatureSpec(default, stage, locked)


@pytest.mark.parametrize("name", REMOVED_137)
def test_1_37_refuses_a_gate_it_no_longer_has(name: str) -> None:
    assert name in known(36) and name not in known(37)
    with pytest.raises(FeatureGateError) as ei:
        parse(f"{name}=true", 37)
    assert str(ei.value) == f"feature-gates: unrecognized feature gate: {name}"


@pytest.mark.parametrize("name", UNPINNED_137)
def test_1_37_keeps_the_unpinned_gates_of_1_36(name: str) -> None:
    assert known(37)[name] == known(36)[name]


@pytest.mark.parametrize(
    "arg,message",
    [
        pytest.param(
            "DRAExtendedResource=false",
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true",
            id="locked-ga",
        ),
        pytest.param(
            "NodeDeclaredFeatures=false",
            "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true",
            id="locked-ga-scheduler",
        ),
        pytest.param(
            "DisableCPUQuotaWithExclusiveCPUs=false",
            "cannot set feature gate DisableCPUQuotaWithExclusiveCPUs to false, feature is locked to true",
            id="locked-deprecated",
        ),
        pytest.param(
            "CompositePodGroup=true",
            "CompositePodGroup is enabled, but depends on features that are disabled: "
            "[GenericWorkload TopologyAwareWorkloadScheduling]",
            id="composite-needs-workload-and-topology",
        ),
        pytest.param(
            "GenericWorkload=true,CompositePodGroup=true",
            "CompositePodGroup is enabled, but depends on features that are disabled: "
            "[TopologyAwareWorkloadScheduling]",
            id="composite-needs-topology",
        ),
        pytest.param(
            "PodGroupPreemptionPolicy=true",
            "PodGroupPreemptionPolicy is enabled, but depends on features that are disabled: [GenericWorkload]",
            id="pod-group-preemption-policy",
        ),
        pytest.param(
            "DRAFractionalCapacityRange=true,DRAConsumableCapacity=false",
            "DRAFractionalCapacityRange is enabled, but depends on features that are disabled: [DRAConsumableCapacity]",
            id="fractional-capacity",
        ),
    ],
)
def test_1_37_refusals(arg: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as ei:
        parse(arg, 37)
    assert str(ei.value) == f"feature-gates: {message}"


def test_1_37_accepts() -> None:
    g = parse("GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true", 37)
    assert g.enabled("CompositePodGroup")
    # no longer dependent in 1.37: PodCertificateRequest on AuthorizeNodeWithSelectors (gone)
    assert parse("PodCertificateRequest=true", 37).enabled("PodCertificateRequest")
    assert parse("DRAExtendedResource=true", 37).warnings == (
        "Setting GA feature gate DRAExtendedResource=true. It will be removed in a future release.",
    )


def test_1_37_dependencies_of_removed_gates_are_gone() -> None:
    deps36, deps37 = fg.dependencies(36), fg.dependencies(37)
    assert deps36["GangScheduling"] == ("GenericWorkload",) and "GangScheduling" not in deps37
    assert deps36["WorkloadAwarePreemption"] == ("GangScheduling",) and "WorkloadAwarePreemption" not in deps37
    assert deps37["CompositePodGroup"] == ("GenericWorkload", "TopologyAwareWorkloadScheduling")
    assert deps37["EventedPLEG"] == ("PLEGOnDemandRelist",) and "EventedPLEG" not in deps36
    assert deps37["WindowsCPUAndMemoryAffinity"] == () and deps36["WindowsCPUAndMemoryAffinity"] == ("MemoryManager",)


def test_1_37_diff_names_the_gates_that_went() -> None:
    lines = versions.diff_lines("1.36", "1.37")
    i = lines.index("modelled feature gates:")
    assert lines[i + 1 :] == ["  - GangScheduling (no longer a gate)", "  - WorkloadAwarePreemption (no longer a gate)"]
    assert "  StorageCapacityScoring: false -> true" in lines
