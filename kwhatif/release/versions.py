"""The kube-scheduler releases kwhatif answers as: one profile per minor (1.30 … 1.37), as data.

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
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kwhatif.release import featuregates
from kwhatif.release.featuregates import FeatureGates

MAJOR = 1
SUPPORTED_MINORS: tuple[int, ...] = (30, 31, 32, 33, 34, 35, 36, 37)
# What kwhatif answers as when nothing says which release a cluster runs: the newest release whose
# answers are checked exactly against the real scheduler's (the fidelity sample's releases/1.36.2).
DEFAULT_MINOR = 36
DEFAULT_PATCH = 2

# The newest patch release of each minor that this table knows (k8s.io/api tags v0.MINOR.PATCH).
# "1.34" means 1.34.10. 1.37 has no patch release yet.
NEWEST_PATCH: Mapping[int, int] = {30: 14, 31: 14, 32: 13, 33: 13, 34: 10, 35: 7, 36: 3, 37: 0}

# Version skew policy: a kubelet may be up to three minors older than the control plane, never newer.
KUBELET_MAX_MINORS_OLDER = 3


@dataclass(frozen=True, slots=True, order=True)
class Release:
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"{MAJOR}.{self.minor}.{self.patch}"

    @classmethod
    def parse(cls, text: str) -> Release:
        m = re.fullmatch(r"1\.(\d+)\.(\d+)", text)
        if not m:
            raise ValueError(f"not a release: {text!r}")
        return cls(int(m.group(1)), int(m.group(2)))


_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")
_GIT_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+.].*)?")


def parse_version(text: str, *, lenient: bool = False) -> tuple[int, int, int | None]:
    """``1.34``, ``v1.34``, ``1.34.2`` or ``v1.34.2`` (the flag); with ``lenient``, also what a
    cluster reports: ``v1.34.2-eks-1a2b3c``, ``v1.33.5-gke.1000``, ``v1.35.0+k3s1``."""
    pattern = _GIT_VERSION if lenient else _VERSION
    m = pattern.fullmatch(text.strip())
    if not m:
        raise ValueError(f"{text!r} is not a Kubernetes version such as 1.34 or 1.34.2")
    major, minor = int(m.group(1)), int(m.group(2))
    patch = int(m.group(3)) if m.group(3) is not None else None
    return major, minor, patch


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
# Gates of gang scheduling that kwhatif knows but does not model (a note says so when one is set).
# 1.37 (kube_features.go at ead35706) has no GangScheduling or WorkloadAwarePreemption gate: what
# they switched follows GenericWorkload there (gang_plugin_on, kwhatif.release.workload_gates); its new
# CompositePodGroup and PodGroupPreemptionPolicy are reported as set but not modelled.
GANG_GATES: tuple[str, ...] = ("TopologyAwareWorkloadScheduling",)


def gate_exists(name: str, minor: int) -> bool:
    return name in featuregates.known(minor)


class Skew(enum.StrEnum):
    """Where a kubelet's minor stands against the control plane's under the version skew policy."""

    WITHIN = "within"
    NEWER = "newer"  # a kubelet may never be newer than the API server
    TOO_OLD = "too-old"  # more than KUBELET_MAX_MINORS_OLDER minors older


def kubelet_skew(kubelet_minor: int, control_plane_minor: int) -> Skew:
    if kubelet_minor > control_plane_minor:
        return Skew.NEWER
    if control_plane_minor - kubelet_minor > KUBELET_MAX_MINORS_OLDER:
        return Skew.TOO_OLD
    return Skew.WITHIN


def newest_minor(versions: Iterable[tuple[str, int]]) -> tuple[str, int] | None:
    """The first of some (version text, 1.x minor) pairs with the newest minor (the nodes'
    kubelets: the control plane is at least as new)."""
    return max(versions, key=lambda v: v[1], default=None)


# --- behaviour switches ---------------------------------------------------------------------------


VOLUME_LIMITS_IN_TREE = ("EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")


@dataclass(frozen=True, slots=True)
class Behaviour:
    """Named switches for what changed between releases, at their v1.30.0 values. CHANGES sets them."""

    # --- the default profile and the plugin registry
    # AzureDiskLimits, EBSLimits and GCEPDLimits in the default multiPoint list.
    volume_limits_in_tree_default: bool = True
    # The in-tree volume-limit plugins exist in the registry (a configuration may enable them).
    volume_limits_in_tree_registered: bool = True
    # DynamicResources is a Score plugin (with this default weight) besides its other points.
    dynamic_resources_score_weight: int | None = None

    # --- KubeSchedulerConfiguration v1
    # Plugin names validation refuses in plugin sets and pluginConfig (invalidPluginsByVersion).
    config_invalid_plugins: frozenset[str] = frozenset()
    queue_sort_mismatch_detail: str = "queueSort must be the same for all profiles"
    shape_order_detail: str = "utilization values must be sorted in increasing order"
    # DynamicResourcesArgs is a registered args kind (filterTimeout), and bindingTimeout a field of it.
    dynamic_resources_args: bool = False
    dynamic_resources_binding_timeout: bool = False

    # --- scheduleOne and the framework
    # Nodes outside a PreFilterResult count in the FitError histogram as
    # "node(s) didn't satisfy plugin(s) [<plugins>]".
    fit_error_counts_excluded_nodes: bool = False
    # DefaultPreemption sorts each node's victims by importance again after reprieving, when both
    # PDB-violating and non-violating victims were found (the candidate choice reads victims[0]).
    preemption_resorts_victims: bool = False

    # --- plugins
    taint_reason: str = "node(s) had untolerated taint {{{key}: {value}}}"
    volume_binding_prefilter_result: bool = True  # node subset from bound local PVs' hostname affinity
    volume_binding_node_conflict_reason: str = "node(s) had volume node affinity conflict"
    volume_restrictions_rwop_reason: str = (
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
    )
    # Non-zero (scoring) requests via PodRequests with per-container defaults, so restartable init
    # containers add their requests as they do to the real requests.
    non_zero_requests_count_sidecars: bool = False
    # NodeResourcesBalancedAllocation's PreScore skips pods that request none of its resources.
    balanced_allocation_skips_best_effort: bool = False
    # NodeResourcesFit: a request above the node's allocatable is UnschedulableAndUnresolvable.
    fit_unresolvable_above_allocatable: bool = False
    # NodePorts counts the host ports of restartable init (sidecar) containers.
    node_ports_count_sidecars: bool = False
    # NodeVolumeLimits: limits also from the node's attachable-volumes-csi-* allocatable (until 1.31),
    # and the node's VolumeAttachments count as attached volumes (1.32+).
    volume_limits_from_node_allocatable: bool = True
    volume_limits_count_volume_attachments: bool = False
    # NodeVolumeLimits rejects a node whose CSINode lacks a driver of the pod's new volumes, while
    # VolumeLimitScaling is on (1.35+); from 1.36 only for CSIDrivers with preventPodSchedulingIfMissing.
    volume_limits_check_csi_driver: bool = False
    csi_driver_check_needs_opt_in: bool = False
    # ImageLocality also sums image volumes' images (1.36), and counts them in its maximum (1.37).
    image_locality_counts_image_volumes: bool = False
    image_locality_threshold_counts_image_volumes: bool = False
    # NodeResourcesBalancedAllocation scores the change of balance: 50 + (50 + with - without) / 2.
    balanced_allocation_with_and_without_pod: bool = False
    # DefaultPreemption's message when it found a node (1.37); None: no message.
    preemption_success_message: str | None = None
    # NodeDeclaredFeatures is in the registry (1.35+; in the default profile while its gate is on).
    node_declared_features_registered: bool = False
    gang_scheduling_registered: bool = False
    # The GangScheduling and WorkloadAwarePreemption gates are gone (1.37): what they switched
    # follows GenericWorkload (the plugin in the default profile, workload-aware preemption).
    gang_follows_generic_workload: bool = False
    # GangScheduling's PreEnqueue reason while a pod's PodGroup is not there ({} is its name).
    gang_missing_pod_group_reason: str = 'waiting for pods\'s pod group "{}" to appear in scheduling queue'
    # The pod-group cycle decides a gang's quorum with GangScheduling's PlacementFeasible (1.37),
    # which kwhatif does not model: it answers with the Permit-based cycle and says so.
    gang_placement_feasible: bool = False
    # The versions of the scheduling.k8s.io Workload API the API server serves, by kind (none
    # before 1.35).
    # (kind, versions) pairs: hashable, as every switch is
    workload_api_served: tuple[tuple[str, frozenset[str]], ...] = ()
    # NodeDeclaredFeatures' Filter reason (the plugin exists from 1.35, its gate is on from 1.36).
    node_declared_features_reason: str = "node declared features check failed - unsatisfied requirements: {features}"
    # DynamicResources PostFilter answers a pod without claims Unschedulable with no reason before
    # reading its PreFilter state (1.33 only). Elsewhere it reads the state first: without it (an
    # earlier PreFilter rejected the pod) it fails with "not found", and with it, a pod without
    # claims gets "no new claims to deallocate".
    dynamic_resources_post_filter_no_claims_fast_path: bool = False
    # field.Error prints a value that is not a number, bool or string as encoding/json's text of
    # it (1.34+), where it printed fmt's %#v (or its String())
    field_error_values_as_json: bool = False
    # The structured allocator's resource pool rules, named by the minor release that set them:
    # 31 uses every pool (incomplete ones too) and knows no invalid pools; 32 fails the pod when
    # a device it would take is in an invalid pool (duplicate device names); 33 fails it when the
    # search reaches an invalid pool; 34 as 33, its experimental allocator (DRADeviceBindingConditions,
    # DRAResourceClaimDeviceStatus or DRAConsumableCapacity) trying slices and pools with binding
    # conditions last; 35 skips incomplete and invalid pools (an invalid one fails only the node)
    # and judges completeness over the whole pool; 36 tries a pool's slices in name order.
    dra_pool_rules: int = 31


@dataclass(frozen=True, slots=True)
class Change:
    """One upstream change: where it landed on each release line it reached, its PRs, what it does
    to the behaviour switches, and the source it was checked against."""

    landed: tuple[str, ...]
    prs: tuple[int, ...]
    summary: str
    sets: Mapping[str, Any]
    source: str = ""
    # the plugins whose behaviour it changes, by upstream name; "framework" for scheduleOne and
    # the framework, "config" for KubeSchedulerConfiguration, "api" for the API server's side
    plugins: tuple[str, ...] = ()

    def applies(self, release: Release) -> bool:
        pins = [Release.parse(v) for v in self.landed]
        for pin in pins:
            if pin.minor == release.minor:
                return release.patch >= pin.patch
        return release.minor > max(pins).minor


_VENDOR = "openshift-kni/scheduler-plugins vendor/k8s.io/kubernetes"

# In the order they landed upstream.
CHANGES: tuple[Change, ...] = (
    Change(
        ("1.31.0",),
        (124500,),
        "in-tree volume-limit plugins (AzureDiskLimits, EBSLimits, GCEPDLimits) leave the default profile",
        {"volume_limits_in_tree_default": False},
        f"{_VENDOR} v1.31.8 pkg/scheduler/apis/config/v1/default_plugins.go",
        plugins=("AzureDiskLimits", "EBSLimits", "GCEPDLimits"),
    ),
    Change(
        ("1.31.0",),
        (124003,),
        "configurations naming AzureDiskLimits, CinderLimits, EBSLimits or GCEPDLimits in a plugin set or "
        "pluginConfig are refused",
        {"config_invalid_plugins": frozenset({"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"})},
        f"{_VENDOR} v1.31.8 pkg/scheduler/apis/config/validation/validation.go",
        plugins=("config",),
    ),
    Change(
        ("1.30.7", "1.31.3", "1.32.0"),
        (125398, 127585, 127584),
        "VolumeBinding no longer narrows the nodes to the hostname affinity of bound local PVs (PreFilterResult)",
        {"volume_binding_prefilter_result": False},
        f"{_VENDOR} v1.31.8 volumebinding/volume_binding.go; CHANGELOG-1.30 (1.30.7), CHANGELOG-1.31 (1.31.3)",
        plugins=("VolumeBinding",),
    ),
    Change(
        ("1.30.7", "1.31.3", "1.32.0"),
        (128307, 128434, 128431),
        "preemption keeps each node's victims sorted by importance after reprieving PDB-violating ones first",
        {"preemption_resorts_victims": True},
        f"{_VENDOR} v1.31.8 defaultpreemption/default_preemption.go; CHANGELOG-1.30 (1.30.7), CHANGELOG-1.31 (1.31.3)",
        plugins=("DefaultPreemption",),
    ),
    Change(
        ("1.32.0",),
        (124003,),
        "the in-tree volume-limit plugins are removed from the registry",
        {"volume_limits_in_tree_registered": False},
        f"{_VENDOR} v1.32.5 pkg/scheduler/framework/plugins/registry.go",
        plugins=("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"),
    ),
    Change(
        ("1.32.0",),
        (),
        "NodeVolumeLimits takes limits from CSINode only and counts the node's VolumeAttachments (issue #126502)",
        {"volume_limits_from_node_allocatable": False, "volume_limits_count_volume_attachments": True},
        f"{_VENDOR} v1.32.5 nodevolumelimits/csi.go (absent from v1.31.8)",
        plugins=("NodeVolumeLimits",),
    ),
    Change(
        ("1.32.0",),
        (126022,),
        "the FitError histogram counts the nodes a PreFilterResult excluded",
        {"fit_error_counts_excluded_nodes": True},
        f"{_VENDOR} v1.32.5 pkg/scheduler/schedule_one.go (findNodesThatFitPod), framework/types.go (FitError)",
        plugins=("framework",),
    ),
    Change(
        ("1.32.0",),
        (127878,),
        "restartable init (sidecar) containers count in the non-zero requests used for scoring",
        {"non_zero_requests_count_sidecars": True},
        f"{_VENDOR} v1.32.5 pkg/scheduler/framework/types.go (calculateResource)",
        plugins=("NodeResourcesBalancedAllocation", "NodeResourcesFit"),
    ),
    Change(
        ("1.32.0",),
        (),
        "DRA: a resource pool with duplicate device names is invalid; allocating one of its devices fails the pod",
        {"dra_pool_rules": 32},
        "openshift-kni/scheduler-plugins v1.32.5 vendor/k8s.io/dynamic-resource-allocation/structured/pools.go, "
        "allocator.go (absent from v1.31.8)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.33.0",),
        (),
        "DRA: the device search fails the pod as soon as it reaches an invalid resource pool",
        {"dra_pool_rules": 33},
        "openshift-kni/scheduler-plugins v1.33.3 vendor/k8s.io/dynamic-resource-allocation/structured/allocator.go "
        "(allocateOne)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.33.0",),
        (130260,),
        "NodeResourcesBalancedAllocation skips best-effort pods (PreScore Skip)",
        {"balanced_allocation_skips_best_effort": True},
        f"{_VENDOR} v1.33.3 noderesources/balanced_allocation.go",
        plugins=("NodeResourcesBalancedAllocation",),
    ),
    Change(
        ("1.33.0",),
        (129887,),
        "VolumeBinding's node-affinity reason becomes \"node(s) didn't match PersistentVolume's node affinity\"",
        {"volume_binding_node_conflict_reason": "node(s) didn't match PersistentVolume's node affinity"},
        f"{_VENDOR} v1.33.3 volumebinding/binder.go",
        plugins=("VolumeBinding",),
    ),
    Change(
        ("1.33.0",),
        (),
        "DynamicResources' PostFilter answers a pod without claims before reading its PreFilter state, "
        "Unschedulable with no reason",
        {"dynamic_resources_post_filter_no_claims_fast_path": True},
        f"{_VENDOR} v1.33.3 dynamicresources/dynamicresources.go (absent from v1.32.5)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.33.6", "1.34.0"),
        (132040, 133390),
        "NodePorts counts the host ports of restartable init (sidecar) containers",
        {"node_ports_count_sidecars": True},
        f"{_VENDOR} v1.34.7 nodeports/node_ports.go; CHANGELOG-1.33 (1.33.6)",
        plugins=("NodePorts",),
    ),
    Change(
        ("1.34.0",),
        (131345,),
        "NodeResourcesFit: a request above the node's allocatable is UnschedulableAndUnresolvable",
        {"fit_unresolvable_above_allocatable": True},
        f"{_VENDOR} v1.34.7 noderesources/fit.go (absent from v1.33.3)",
        plugins=("NodeResourcesFit",),
    ),
    Change(
        ("1.34.0",),
        (),
        "VolumeRestrictions' ReadWriteOncePod reason is reworded",
        {
            "volume_restrictions_rwop_reason": "node(s) unavailable due to PersistentVolumeClaim with "
            "ReadWriteOncePod access mode already in-use by another pod"
        },
        f"{_VENDOR} v1.34.7 volumerestrictions/volume_restrictions.go (absent from v1.33.3)",
        plugins=("VolumeRestrictions",),
    ),
    Change(
        ("1.34.0",),
        (),
        "KubeSchedulerConfiguration: DynamicResourcesArgs (filterTimeout); shape order and queueSort mismatch "
        "messages reworded; field errors print structured values as JSON",
        {
            "dynamic_resources_args": True,
            "shape_order_detail": "values must be sorted in increasing order",
            "queue_sort_mismatch_detail": "must be the same for all profiles",
            "field_error_values_as_json": True,
        },
        f"{_VENDOR} v1.34.7 pkg/scheduler/apis/config (types_pluginargs.go, validation_pluginargs.go, "
        "validation.go; v1.33.3's validation.go has the old queueSort text); apimachinery "
        "util/validation/field/errors.go ErrorBody of v1.34.7 against v1.33.3",
        plugins=("config", "DynamicResources"),
    ),
    Change(
        ("1.34.0",),
        (132706,),
        "DynamicResources' PostFilter reads its PreFilter state before the no-claims check again",
        {"dynamic_resources_post_filter_no_claims_fast_path": False},
        f"{_VENDOR} v1.34.7 dynamicresources/dynamicresources.go",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.34.0",),
        (),
        "DRA: the experimental allocator tries ResourceSlices and pools with binding conditions last",
        {"dra_pool_rules": 34},
        "openshift-kni/scheduler-plugins v1.34.7 vendor/k8s.io/dynamic-resource-allocation/structured/internal/"
        "experimental/pools_experimental.go",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.34.2", "1.35.0"),
        (134740, 135023),
        "TaintToleration's reason no longer names the taint",
        {"taint_reason": "node(s) had untolerated taint(s)"},
        f"{_VENDOR} v1.34.7 and v1.35.7 tainttoleration/taint_toleration.go; CHANGELOG-1.34 (1.34.2)",
        plugins=("TaintToleration",),
    ),
    Change(
        ("1.35.0",),
        (),
        "DRA: incomplete and invalid resource pools are skipped (an invalid one fails only the node: "
        '"invalid resource pools were encountered"); completeness counts the pool\'s slices on every node',
        {"dra_pool_rules": 35},
        "openshift-kni/scheduler-plugins v1.35.7 vendor/k8s.io/dynamic-resource-allocation/structured/internal/"
        "stable (allocator_stable.go, pools_stable.go)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.35.0",),
        (),
        "NodeDeclaredFeatures (alpha) joins the registry; the default profile has it while its gate is on",
        {"node_declared_features_registered": True},
        f"{_VENDOR} v1.35.7 pkg/scheduler/framework/plugins/registry.go",
        plugins=("NodeDeclaredFeatures",),
    ),
    Change(
        ("1.35.0",),
        (),
        "GangScheduling (alpha) joins the registry; the default profile has it while its gate is on",
        {"gang_scheduling_registered": True},
        f"{_VENDOR} v1.35.7 pkg/scheduler/framework/plugins/registry.go",
        plugins=("GangScheduling",),
    ),
    Change(
        ("1.35.0",),
        (135012,),
        "NodeVolumeLimits rejects nodes lacking the CSI driver of the pod's volumes (gate VolumeLimitScaling, "
        "off by default until 1.37)",
        {"volume_limits_check_csi_driver": True},
        f"{_VENDOR} v1.35.7 nodevolumelimits/csi.go",
        plugins=("NodeVolumeLimits",),
    ),
    Change(
        ("1.35.0",),
        (),
        "DynamicResources scores nodes (default weight 2); bindingTimeout in DynamicResourcesArgs",
        {"dynamic_resources_score_weight": 2, "dynamic_resources_binding_timeout": True},
        f"{_VENDOR} v1.35.7 apis/config/v1/default_plugins.go, dynamicresources.go",
        plugins=("DynamicResources", "config"),
    ),
    Change(
        ("1.36.0",),
        (),
        "DRA: a pool's ResourceSlices are tried in name order and pools in driver and pool name order",
        {"dra_pool_rules": 36},
        "openshift/kubernetes-autoscaler 70920d3c (v1.36.2) cluster-autoscaler/vendor/k8s.io/dynamic-resource-allocation/structured/internal/"
        "incubating/pools_incubating.go (buildPool, GatherPools)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.36.0",),
        (136042,),
        "NodeDeclaredFeatures (beta, on) joins the default profile; its reason no longer lists the features",
        {"node_declared_features_reason": "node(s) didn't match Pod's required features"},
        "CHANGELOG-1.36 (v1.36.0); upstream nodedeclaredfeatures plugin tests (1.35 and 1.37)",
        plugins=("NodeDeclaredFeatures",),
    ),
    Change(
        ("1.36.0",),
        (137343,),
        "the CSI-driver presence check applies only to CSIDrivers with preventPodSchedulingIfMissing",
        {"csi_driver_check_needs_opt_in": True},
        "CHANGELOG-1.36 (v1.36.0); k8s.io/api v0.36.0 CSIDriverSpec",
        plugins=("NodeVolumeLimits",),
    ),
    Change(
        ("1.36.0",),
        (135573,),
        "NodeResourcesBalancedAllocation scores the balance with and without the pod",
        {"balanced_allocation_with_and_without_pod": True},
        "CHANGELOG-1.36 (v1.36.0); PR #135573 description (formula; rounding not read from source)",
        plugins=("NodeResourcesBalancedAllocation",),
    ),
    Change(
        ("1.36.0",),
        (130231,),
        "ImageLocality counts the images of image volumes",
        {"image_locality_counts_image_volumes": True},
        "CHANGELOG-1.36 (v1.36.0)",
        plugins=("ImageLocality",),
    ),
    Change(
        ("1.37.0",),
        (138951,),
        "ImageLocality's maximum counts image volumes",
        {"image_locality_threshold_counts_image_volumes": True},
        "CHANGELOG-1.37 (v1.37.0-alpha.1)",
        plugins=("ImageLocality",),
    ),
    Change(
        ("1.37.0",),
        (140180,),
        "a pod that preempts carries DefaultPreemption's message in its FitError",
        {
            "preemption_success_message": "found a potential placement for pod on node {node}, preempting {count} victims"
        },
        "PR #140180 (merged after v1.37.0-alpha.1; release not pinned exactly)",
        plugins=("DefaultPreemption", "framework"),
    ),
    # The Workload API: 1.35 served only the v1alpha1 Workload (podGroups inside it, pods joining
    # by spec.workloadRef); 1.36 replaced it with v1alpha2 and the PodGroup object. 1.37 drops
    # v1alpha2 for v1alpha3 (k8s.io/api v0.37.0-alpha.1, Kubernetes-commit of its
    # scheduling/v1alpha3/register.go; CHANGELOG-1.37 #138572) and serves Workload and PodGroup in
    # v1beta1 too (k8s.io/api "Graduate WAS APIs to beta", c5d632090, after v0.37.0-beta.0;
    # scheduling/v1beta1/register.go at the k8s.io/api commit of Kubernetes-commit ae5d4d35 lists
    # Workload and PodGroup). v1alpha3 also has CompositePodGroup, which kwhatif does not read.
    Change(
        ("1.35.0",),
        (),
        "the API server serves the Workload API: Workload v1alpha1",
        {"workload_api_served": (("Workload", frozenset({"v1alpha1"})),)},
        "openshift-kni/scheduler-plugins v1.35.7 vendor/k8s.io/api/scheduling/v1alpha1/register.go",
        plugins=("api",),
    ),
    Change(
        ("1.36.0",),
        (),
        "the Workload API moves to v1alpha2 with the PodGroup object",
        {"workload_api_served": (("Workload", frozenset({"v1alpha2"})), ("PodGroup", frozenset({"v1alpha2"})))},
        "openshift/kubernetes-autoscaler 70920d3c vendor/k8s.io/api/scheduling/v1alpha2/register.go (v1.36.2)",
        plugins=("api",),
    ),
    Change(
        ("1.37.0",),
        (138572,),
        "the Workload API is served as v1alpha3 and v1beta1 (v1alpha2 dropped)",
        {
            "workload_api_served": (
                ("Workload", frozenset({"v1alpha3", "v1beta1"})),
                ("PodGroup", frozenset({"v1alpha3", "v1beta1"})),
            )
        },
        "k8s.io/api v0.37.0-alpha.1 scheduling/v1alpha3/register.go; c5d632090 scheduling/v1beta1/register.go",
        plugins=("api",),
    ),
    Change(
        ("1.37.0",),
        (),
        "the GangScheduling and WorkloadAwarePreemption gates are removed: the GangScheduling plugin and "
        "workload-aware preemption follow GenericWorkload; the pod-group cycle checks PlacementFeasible",
        {"gang_follows_generic_workload": True, "gang_placement_feasible": True},
        "kubernetes/kubernetes ead35706 pkg/features/kube_features.go, 008b3652 plugins/registry.go, "
        "metrics.go (1.37 development)",
        plugins=("GangScheduling", "framework"),
    ),
    Change(
        ("1.37.0",),
        (),
        'GangScheduling\'s PreEnqueue says "pod\'s pod group" where it said "pods\'s pod group"',
        {"gang_missing_pod_group_reason": 'waiting for pod\'s pod group "{}" to appear in scheduling queue'},
        "kubernetes/kubernetes 037891575693 gangscheduling/gangscheduling.go (after v1.36)",
        plugins=("GangScheduling",),
    ),
)


# Every table of served Workload API versions a release has (the loader accepts them all in a
# file; the selected release's own table decides).
WORKLOAD_API_SERVED: tuple[Mapping[str, frozenset[str]], ...] = tuple(
    dict(c.sets["workload_api_served"]) for c in CHANGES if "workload_api_served" in c.sets
)


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
        """getDefaultPlugins(): the multiPoint list (name, weight) of this release, after
        applyFeatureGates."""
        b = self.behaviour
        refs: list[tuple[str, int | None]] = [
            ("SchedulingGates", None),
            ("PrioritySort", None),
            ("NodeUnschedulable", None),
            ("NodeName", None),
            ("TaintToleration", 3),
            ("NodeAffinity", 2),
            ("NodePorts", None),
            ("NodeResourcesFit", 1),
            ("VolumeRestrictions", None),
        ]
        if b.volume_limits_in_tree_default:
            refs += [("EBSLimits", None), ("GCEPDLimits", None), ("NodeVolumeLimits", None), ("AzureDiskLimits", None)]
        else:
            refs.append(("NodeVolumeLimits", None))
        refs += [
            ("VolumeBinding", None),
            ("VolumeZone", None),
            ("PodTopologySpread", 2),
            ("InterPodAffinity", 2),
            ("DefaultPreemption", None),
            ("NodeResourcesBalancedAllocation", 1),
            ("ImageLocality", 1),
            ("DefaultBinder", None),
        ]
        if self.gate("NodeDeclaredFeatures"):
            refs.append(("NodeDeclaredFeatures", None))
        if self.gate("DynamicResourceAllocation"):
            # Before DefaultPreemption: deallocating an idle claim beats evicting a pod.
            i = next(i for i, (n, _) in enumerate(refs) if n == "DefaultPreemption")
            refs.insert(i, ("DynamicResources", b.dynamic_resources_score_weight))
        if self.gang_plugin_on():
            refs.append(("GangScheduling", None))  # applyGangScheduling
        return tuple(refs)

    def gang_plugin_on(self) -> bool:
        """Whether the default profile has GangScheduling: its gate, or from 1.37 (which has no
        such gate) GenericWorkload (kwhatif.release.workload_gates)."""
        if self.has_gate("GangScheduling"):
            return self.gate("GangScheduling")
        return self.behaviour.gang_follows_generic_workload and self.gate("GenericWorkload")

    def plugin_registered(self, name: str) -> bool:
        """Whether the release's in-tree registry has the plugin."""
        if name in VOLUME_LIMITS_IN_TREE:
            return self.behaviour.volume_limits_in_tree_registered
        if name == "NodeDeclaredFeatures":
            return self.behaviour.node_declared_features_registered
        if name == "GangScheduling":
            return self.behaviour.gang_scheduling_registered
        return True


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


def supported_text() -> str:
    return f"{MAJOR}.{SUPPORTED_MINORS[0]} to {MAJOR}.{SUPPORTED_MINORS[-1]}"


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
