"""The recorded upstream changes between releases and the Behaviour switches they set. Each change
names where it landed on every release line it reached (``landed=("1.30.7", "1.31.3", "1.32.0")``:
back-ported to 1.30.7 and 1.31.3, in every minor from 1.32 on), its pull requests, the plugins it
touches and the source it was checked against. Plugins, the configuration loader and the admission
read the switches of the selected release by name (``version.behaviour.taint_reason``); none of
them compares version numbers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kwhatif.release.releases import Release

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
    # DynamicResources looks the pod's claims up in its assume cache (1.31+): a missing one is
    # `could not find ResourceClaim "ns/name"`; before, the lister's `... "name" not found`.
    dra_claim_lookup_in_assume_cache: bool = False
    # PodTopologySpread: a constraint's empty labelSelector ({}) counts every pod of the namespace
    # (1.38); before, an empty selector counted nothing (the constraint was ignored).
    spread_empty_selector_matches_all: bool = False
    # DefaultPreemption: a PodDisruptionBudget with an empty selector ({}) covers every pod of its
    # namespace, unlabeled ones too (1.38); before, it and unlabeled pods were skipped.
    preemption_pdb_empty_selector_matches_all: bool = False
    # GangScheduling has a Permit extension point (until 1.37; 1.38 leaves it to PlacementFeasible).
    gang_scheduling_permit: bool = True
    # DefaultPreemption's message when it found a node (1.37); None: no message.
    preemption_success_message: str | None = None
    # NodeDeclaredFeatures is in the registry (1.35+; in the default profile while its gate is on).
    node_declared_features_registered: bool = False
    gang_scheduling_registered: bool = False
    # TopologyPlacementGenerator and PodGroupPodsCount are in the registry and the v1 Plugins have
    # placementGenerate and placementScore (1.36; the default profile has both plugins while
    # TopologyAwareWorkloadScheduling is on).
    placement_plugins: bool = False
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
    # and judges completeness over the whole pool; 36 tries a pool's slices in name order; 38 fails
    # only the node when an AllocationMode All request meets an incomplete or invalid pool there,
    # keeps a device with a live share from dedicated use, and compares capacity names as
    # fully-qualified names.
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

    def landed_on(self, release: Release) -> str:
        """Where the change landed on ``release``'s line: its pin on that minor, else the first
        minor it reached (in force on every minor after)."""
        return next((v for v in self.landed if Release.parse(v).minor == release.minor), self.landed[-1])

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
        ("1.31.0",),
        (),
        "DynamicResources reads a pod's claims from its assume cache: a missing claim is "
        '`could not find ResourceClaim "ns/name"`',
        {"dra_claim_lookup_in_assume_cache": True},
        "openshift-kni/scheduler-plugins 4d80e29f1 (v1.31.2) vendor/k8s.io/kubernetes/pkg/scheduler/framework/plugins/"
        "dynamicresources/dynamicresources.go (claimAssumeCache.Get), util/assumecache/assume_cache.go (NotFoundError), "
        'scheduler.go (description "ResourceClaim"); the same through claimTracker.Get in v1.32.5 to v1.35.7 and in '
        "openshift/kubernetes-autoscaler 70920d3c (v1.36.2); 1.30 not read (kept the lister's text)",
        plugins=("DynamicResources",),
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
        (),
        "TopologyPlacementGenerator and PodGroupPodsCount (alpha) join the registry and the v1 Plugins gain "
        "placementGenerate and placementScore; the default profile has both plugins (PodGroupPodsCount weight 1) "
        "while TopologyAwareWorkloadScheduling is on, and the pod-group cycle then tries one placement per "
        "topology domain",
        {"placement_plugins": True},
        "openshift/kubernetes-autoscaler 70920d3c (v1.36.2) cluster-autoscaler/vendor/k8s.io/kubernetes/pkg/"
        "scheduler/ apis/config/v1/default_plugins.go, framework/plugins/topologyaware/topology_placement.go, "
        "framework/plugins/podgrouppodscount/podgroup_pods_count.go, schedule_one_podgroup.go",
        plugins=("TopologyPlacementGenerator", "PodGroupPodsCount", "framework"),
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
    # 1.38: from CHANGELOG-1.38 (kubernetes/kubernetes CHANGELOG/CHANGELOG-1.38.md at 0411cc704533,
    # v1.38.0-alpha.1 and alpha.2) and the PRs' descriptions; not checked against the real scheduler.
    Change(
        ("1.38.0",),
        (141340,),
        "PodTopologySpread: a constraint's empty labelSelector ({}) matches every pod of the namespace "
        "instead of being ignored",
        {"spread_empty_selector_matches_all": True},
        "CHANGELOG-1.38 (v1.38.0-alpha.1) at 0411cc704533",
        plugins=("PodTopologySpread",),
    ),
    Change(
        ("1.38.0",),
        (141785,),
        "DefaultPreemption no longer ignores a PodDisruptionBudget with an empty selector: it covers every pod "
        "of its namespace, unlabeled pods too",
        {"preemption_pdb_empty_selector_matches_all": True},
        "CHANGELOG-1.38 (v1.38.0-alpha.1) at 0411cc704533; PR #141785 description (both checks removed)",
        plugins=("DefaultPreemption",),
    ),
    Change(
        ("1.38.0",),
        (141898,),
        "DRA: an AllocationMode All request that meets an incomplete or invalid resource pool fails only that "
        "node (Unschedulable there, the same message), so other nodes are tried",
        {"dra_pool_rules": 38},
        "CHANGELOG-1.38 (v1.38.0-alpha.1) at 0411cc704533; PR #141898 description (ErrFailedAllocationOnNode)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.38.0",),
        (140798,),
        "DRA: a device that no longer allows multiple allocations is not allocated for dedicated use while a "
        "persisted share of it is live",
        {"dra_pool_rules": 38},
        "CHANGELOG-1.38 (v1.38.0-alpha.1) at 0411cc704533; PR #140798 description (deviceCapacityInUse guards "
        "the non-admin dedicated allocation)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.38.0",),
        (142202,),
        "DRA consumable capacity: capacity names compare as fully-qualified names (an unqualified one in the "
        "driver's domain), so a request may name a capacity with or without the driver's prefix",
        {"dra_pool_rules": 38},
        "CHANGELOG-1.38 (v1.38.0-alpha.2, API Change) at 0411cc704533; PR #142202 description (normalized "
        "names, the fully-qualified one wins)",
        plugins=("DynamicResources",),
    ),
    Change(
        ("1.38.0",),
        (141182,),
        "GangScheduling has no Permit: PlacementFeasible alone decides whether a pod group's minCount is met",
        {"gang_scheduling_permit": False},
        "CHANGELOG-1.38 (v1.38.0-alpha.1) at 0411cc704533",
        plugins=("GangScheduling", "framework"),
    ),
)


# Every table of served Workload API versions a release has (the loader accepts them all in a
# file; the selected release's own table decides).
WORKLOAD_API_SERVED: tuple[Mapping[str, frozenset[str]], ...] = tuple(
    dict(c.sets["workload_api_served"]) for c in CHANGES if "workload_api_served" in c.sets
)
