"""kube-scheduler's --feature-gates: the gates each release knows, and Set/SetFromMap as
component-base's featuregate applies them (k8s.io/component-base/featuregate/feature_gate.go).

A release knows every gate kube-scheduler registers on its feature gate: Kubernetes' own
(pkg/features/kube_features.go, with the generic API server's copies), component-base's logging
and zpages gates, client-go's, and AllAlpha/AllBeta. SPECS holds them as data: per gate, the state
at the first minor of each change, ``"30:B+ 33:GA+!"`` = beta and on from 1.30, GA and locked to on
from 1.33; ``x`` = no longer known. States: A alpha, B beta, GA, D deprecated; ``+``/``-`` the
default; ``!`` locked to it. 1.30 to 1.36 are transcribed from each release's vendored sources
(1.36.2 included); 1.37 is 1.36 with the changes of V1_37_CHANGES, transcribed from the stored
upstream pkg/features/kube_features.go at a development commit (see there for which gates
could not be pinned); 1.38 is 1.37 with the changes CHANGELOG-1.38 lists (V1_38_CHANGES).

Behaviour across releases, as upstream's:
* 1.30: the first error ends the parse (no aggregate).
* 1.31 to 1.34: errors are aggregated; a gate not yet introduced at the emulated version is PreAlpha.
* 1.35 on: gate dependencies are enforced after the values are set, and the PreAlpha message names
  the minimum compatibility version.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kwhatif.errors import InputError
from kwhatif.gocompat import aggregate

FIRST_MINOR, LAST_MINOR = 30, 38
FLAG = "feature-gates"

ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"


class Stage(enum.StrEnum):
    ALPHA = "ALPHA"
    BETA = "BETA"
    GA = ""
    DEPRECATED = "DEPRECATED"
    PRE_ALPHA = "PRE-ALPHA"


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    default: bool
    stage: Stage
    locked: bool = False


_STAGES = {"A": Stage.ALPHA, "B": Stage.BETA, "GA": Stage.GA, "D": Stage.DEPRECATED}

# fmt: off
SPECS: Mapping[str, str] = {
    "APIListChunking": "30:GA+! 33:x",
    "APIPriorityAndFairness": "30:GA+! 31:x",
    "APIResponseCompression": "30:B+",
    "APIServerIdentity": "30:B+",
    "APIServerTracing": "30:B+ 34:GA+!",
    "APIServingWithRoutine": "30:A-",
    "AdmissionWebhookMatchConditions": "30:GA+! 33:x",
    "AggregatedDiscoveryEndpoint": "30:GA+! 33:x",
    "AggregatedDiscoveryRemoveBetaType": "33:D+ 35:D+!",
    "AllowDNSOnlyNodeCSR": "31:D-",
    "AllowInsecureKubeletCertificateSigningRequests": "31:D-",
    "AllowOverwriteTerminationGracePeriodSeconds": "32:D- 35:D-!",
    "AllowParsingUserUIDFromCertAuth": "33:B+",
    "AllowServiceExternalIPs": "36:GA+",
    "AllowServiceLBStatusOnNonLB": "30:D- 32:D-! 35:x",
    "AllowUnsafeMalformedObjectDeletion": "32:A-",
    "AnonymousAuthConfigurableEndpoints": "31:A- 32:B+ 34:GA+!",
    "AnyVolumeDataSource": "30:B+ 33:GA+!",
    "AppArmor": "30:B+ 31:GA+! 33:x",
    "AppArmorFields": "30:B+ 31:GA+! 33:x",
    "AtomicFIFO": "36:B+",
    "AuthorizeNodeWithSelectors": "31:A- 32:B+ 34:GA+!",
    "AuthorizePodWebsocketUpgradeCreatePermission": "35:B+",
    "AuthorizeWithSelectors": "31:A- 32:B+ 34:GA+!",
    "BtreeWatchCache": "32:B+ 33:GA+!",
    "CBORServingAndStorage": "32:A-",
    "CPUManager": "30:GA+! 33:x",
    "CPUManagerPolicyAlphaOptions": "30:A-",
    "CPUManagerPolicyBetaOptions": "30:B+",
    "CPUManagerPolicyOptions": "30:B+ 33:GA+!",
    "CRDObservedGenerationTracking": "35:B- 36:B+",
    "CRDValidationRatcheting": "30:B+ 33:GA+!",
    "CRIListStreaming": "36:A-",
    "CSIMigrationPortworx": "30:B- 31:B+ 33:GA+! 36:x",
    "CSIMigrationRBD": "30:D- 31:x",
    "CSINodeExpandSecret": "30:GA+! 31:x",
    "CSIServiceAccountTokenSecrets": "35:B+ 36:GA+!",
    "CSIVolumeHealth": "30:A-",
    "ChangeContainerStatusOnKubeletRestart": "35:D-",
    "ClearingNominatedNodeNameAfterBinding": "34:A- 35:B+",
    "ClientsAllowCARotation": "36:B+",
    "ClientsAllowCBOR": "32:A-",
    "ClientsAllowTLSCacheGC": "36:B+",
    "ClientsPreferCBOR": "32:A-",
    "CloudControllerManagerWatchBasedRoutesReconciliation": "35:A-",
    "CloudControllerManagerWebhook": "30:A-",
    "CloudDualStackNodeIPs": "30:GA+! 32:x",
    "ClusterTrustBundle": "30:A- 33:B-",
    "ClusterTrustBundleProjection": "30:A- 33:B-",
    "ComponentFlagz": "32:A- 36:B+",
    "ComponentStatusz": "32:A- 36:B+",
    "ConcurrentWatchObjectDecode": "31:B-",
    "ConsistentHTTPGetHandlers": "30:GA+! 31:x",
    "ConsistentListFromCache": "30:A- 31:B+ 34:GA+!",
    "ConstrainedImpersonation": "35:A- 36:B+",
    "ContainerCheckpoint": "30:B+",
    "ContainerRestartRules": "34:A- 35:B+",
    "ContainerStopSignals": "33:A-",
    "ContextualLogging": "30:B+",
    "CoordinatedLeaderElection": "31:A- 33:B-",
    "CronJobsScheduledAnnotation": "30:B+ 32:GA+! 35:x",
    "CrossNamespaceVolumeDataSource": "30:A-",
    "CustomCPUCFSQuotaPeriod": "30:A- 36:GA+",
    "CustomResourceFieldSelectors": "30:A- 31:B+ 32:GA+!",
    "CustomResourceValidationExpressions": "30:GA+! 31:x",
    "DRAAdminAccess": "32:A- 34:B+ 36:GA+!",
    "DRAConsumableCapacity": "34:A- 36:B+",
    "DRAControlPlaneController": "31:A- 32:x",
    "DRADeviceBindingConditions": "34:A- 36:B+",
    "DRADeviceTaintRules": "35:A- 36:B-",
    "DRADeviceTaints": "33:A- 36:B+",
    "DRAExtendedResource": "34:A- 36:B+",
    "DRAListTypeAttributes": "36:A-",
    "DRANodeAllocatableResources": "36:A-",
    "DRAPartitionableDevices": "33:A- 36:B+",
    "DRAPrioritizedList": "33:A- 34:B+ 36:GA+",
    "DRAResourceClaimDeviceStatus": "32:A- 33:B+",
    "DRAResourceClaimGranularStatusAuthorization": "36:B+",
    "DRAResourcePoolStatus": "36:A-",
    "DRASchedulerFilterTimeout": "34:B+",
    "DRAWorkloadResourceClaims": "36:A-",
    "DeclarativeValidation": "33:B+ 36:GA+!",
    "DeclarativeValidationBeta": "36:B+",
    "DeclarativeValidationTakeover": "33:B- 36:D-",
    "DefaultHostNetworkHostPortsInPodTemplates": "30:D- 31:x",
    "DeploymentReplicaSetTerminatingReplicas": "33:A- 35:B+",
    "DetectCacheInconsistency": "34:B+",
    "DevicePluginCDIDevices": "30:B+ 31:GA+! 34:x",
    "DisableAllocatorDualWrite": "31:A- 33:B- 34:GA+ 35:GA+!",
    "DisableCPUQuotaWithExclusiveCPUs": "33:B+ 36:D+",
    "DisableCloudProviders": "30:B+ 31:GA+! 33:x",
    "DisableKubeletCloudCredentialProviders": "30:B+ 31:GA+! 33:x",
    "DisableNodeKubeProxyVersion": "30:A- 31:D- 33:D+ 36:D+!",
    "DynamicResourceAllocation": "30:A- 32:B- 34:GA+ 35:GA+!",
    "EfficientWatchResumption": "30:GA+! 33:x",
    "ElasticIndexedJob": "30:B+ 31:GA+! 34:x",
    "EnvFiles": "34:A- 35:B+",
    "EventedPLEG": "30:A-",
    "ExecProbeTimeout": "30:GA+ 35:GA+!",
    "ExtendWebSocketsToKubelet": "36:B+",
    "ExternalServiceAccountTokenSigner": "32:A- 34:B+ 36:GA+!",
    "GangScheduling": "35:A-",
    "GenericWorkload": "35:A-",
    "GitRepoVolumeDriver": "33:D- 36:D-!",
    "GracefulNodeShutdown": "30:B+",
    "GracefulNodeShutdownBasedOnPodPriority": "30:B+",
    "HPAConfigurableTolerance": "33:A- 35:B+",
    "HPAContainerMetrics": "30:GA+! 32:x",
    "HPAScaleToZero": "30:A-",
    "HonorPVReclaimPolicy": "30:A- 31:B+ 33:GA+! 36:x",
    "HostnameOverride": "34:A- 35:B+",
    "ImageMaximumGCAge": "30:B+ 35:GA+!",
    "ImageVolume": "31:A- 33:B- 35:B+ 36:GA+!",
    "ImageVolumeWithDigest": "36:A-",
    "InOrderInformers": "33:B+ 36:GA+!",
    "InOrderInformersBatchProcess": "35:B+",
    "InPlacePodLevelResourcesVerticalScaling": "35:A- 36:B+",
    "InPlacePodVerticalScaling": "30:A- 33:B+ 35:GA+!",
    "InPlacePodVerticalScalingAllocatedStatus": "32:A- 33:D- 36:x",
    "InPlacePodVerticalScalingExclusiveCPUs": "32:A-",
    "InPlacePodVerticalScalingExclusiveMemory": "34:A-",
    "InPlacePodVerticalScalingInitContainers": "36:B+",
    "InTreePluginAWSUnregister": "30:A- 31:x",
    "InTreePluginAzureDiskUnregister": "30:A- 31:x",
    "InTreePluginAzureFileUnregister": "30:A- 31:x",
    "InTreePluginGCEUnregister": "30:A- 31:x",
    "InTreePluginOpenStackUnregister": "30:A- 31:x",
    "InTreePluginPortworxUnregister": "30:A- 36:x",
    "InTreePluginRBDUnregister": "30:D- 31:x",
    "InTreePluginvSphereUnregister": "30:A- 31:x",
    "InformerResourceVersion": "30:A- 35:GA+",
    "JobBackoffLimitPerIndex": "30:B+ 33:GA+!",
    "JobManagedBy": "30:A- 32:B+ 35:GA+!",
    "JobPodFailurePolicy": "30:B+ 31:GA+! 33:x",
    "JobPodReplacementPolicy": "30:B+ 34:GA+!",
    "JobReadyPods": "30:GA+! 31:x",
    "JobSuccessPolicy": "30:A- 31:B+ 33:GA+!",
    "KMSv1": "30:D-",
    "KMSv2": "30:GA+! 32:x",
    "KMSv2KDF": "30:GA+! 32:x",
    "KubeProxyDrainingTerminatingNodes": "30:B+ 31:GA+! 33:x",
    "KubeletCgroupDriverFromCRI": "30:A- 31:B+ 34:GA+!",
    "KubeletCrashLoopBackOffMax": "32:A- 35:B+",
    "KubeletEnsureSecretPulledImages": "33:A- 35:B+",
    "KubeletFineGrainedAuthz": "32:A- 33:B+ 36:GA+!",
    "KubeletInUserNamespace": "30:A-",
    "KubeletPSI": "33:A- 34:B+ 36:GA+!",
    "KubeletPodResourcesDynamicResources": "30:A- 34:B+ 36:GA+!",
    "KubeletPodResourcesGet": "30:A- 34:B+ 36:GA+!",
    "KubeletPodResourcesListUseActivePods": "34:D+",
    "KubeletRegistrationGetOnExistsOnly": "32:D-",
    "KubeletSeparateDiskGC": "30:A- 31:B+",
    "KubeletServiceAccountTokenForCredentialProviders": "33:A- 34:B+",
    "KubeletTracing": "30:B+ 34:GA+!",
    "LegacyServiceAccountTokenCleanUp": "30:GA+! 32:x",
    "LegacySidecarContainers": "33:D- 34:x",
    "ListFromCacheSnapshot": "33:A- 34:B+",
    "LoadBalancerIPMode": "30:B+ 32:GA+! 35:x",
    "LocalStorageCapacityIsolationFSQuotaMonitoring": "30:A- 31:B-",
    "LogarithmicScaleDown": "30:B+ 31:GA+!",
    "LoggingAlphaOptions": "30:A-",
    "LoggingBetaOptions": "30:B+",
    "ManifestBasedAdmissionControlConfig": "36:A-",
    "MatchLabelKeysInPodAffinity": "30:A- 31:B+ 33:GA+!",
    "MatchLabelKeysInPodTopologySpread": "30:B+",
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": "34:B+",
    "MaxUnavailableStatefulSet": "30:A- 35:B-",
    "MemoryManager": "30:B+ 32:GA+! 36:x",
    "MemoryQoS": "30:A-",
    "MinDomainsInPodTopologySpread": "30:GA+! 32:x",
    "MultiCIDRServiceAllocator": "30:A- 31:B- 33:GA+ 34:GA+!",
    "MutableCSINodeAllocatableCount": "33:A- 34:B- 35:B+ 36:GA+!",
    "MutablePVNodeAffinity": "35:A-",
    "MutablePodResourcesForSuspendedJobs": "35:A- 36:B+",
    "MutableSchedulingDirectivesForSuspendedJobs": "35:A- 36:B+",
    "MutatingAdmissionPolicy": "30:A- 34:B- 36:GA+",
    "NFTablesProxyMode": "30:A- 31:B+ 33:GA+!",
    "NewVolumeManagerReconstruction": "30:GA+! 32:x",
    "NodeDeclaredFeatures": "35:A- 36:B+",
    "NodeInclusionPolicyInPodTopologySpread": "30:B+ 33:GA+!",
    "NodeLogQuery": "30:B- 36:GA+!",
    "NodeOutOfServiceVolumeDetach": "30:GA+! 32:x",
    "NodeSwap": "30:B+ 34:GA+!",
    "NominatedNodeNameForExpectation": "34:A- 35:B+",
    "OpenAPIEnums": "30:B+",
    "OpportunisticBatching": "35:B+",
    "OrderedNamespaceDeletion": "31:B- 33:B+ 34:GA+!",
    "PDBUnhealthyPodEvictionPolicy": "30:B+ 31:GA+! 33:x",
    "PLEGOnDemandRelist": "36:B+",
    "PersistentVolumeClaimUnusedSinceTime": "36:A-",
    "PersistentVolumeLastPhaseTransitionTime": "30:B+ 31:GA+! 33:x",
    "PodAndContainerStatsFromCRI": "30:A-",
    "PodCertificateRequest": "34:A- 35:B-",
    "PodDeletionCost": "30:B+",
    "PodDisruptionConditions": "30:B+ 31:GA+! 34:x",
    "PodHostIPs": "30:GA+! 32:x",
    "PodIndexLabel": "30:B+ 32:GA+! 35:x",
    "PodLevelResourceManagers": "36:A-",
    "PodLevelResources": "32:A- 34:B+",
    "PodLifecycleSleepAction": "30:B+ 34:GA+!",
    "PodLifecycleSleepActionAllowZero": "32:A- 33:B+ 34:GA+!",
    "PodLogsQuerySplitStreams": "32:A-",
    "PodObservedGenerationTracking": "33:A- 34:B+ 35:GA+!",
    "PodReadyToStartContainersCondition": "30:B+",
    "PodSchedulingReadiness": "30:GA+!",
    "PodTopologyLabelsAdmission": "33:A- 35:B+",
    "PodsAPI": "36:A-",
    "PortForwardWebsockets": "30:A- 31:B+",
    "PreferSameTrafficDistribution": "33:A- 34:B+ 35:GA+!",
    "PreventStaticPodAPIReferences": "34:B+",
    "ProbeHostPodSecurityStandards": "34:GA+! 35:x",
    "ProcMountType": "30:A- 31:B- 33:B+ 36:GA+!",
    "QOSReserved": "30:A-",
    "ReadWriteOncePod": "30:GA+! 31:x",
    "RecoverVolumeExpansionFailure": "30:A- 32:B+ 34:GA+!",
    "RecursiveReadOnlyMounts": "30:A- 31:B+ 33:GA+!",
    "ReduceDefaultCrashLoopBackOffDecay": "33:A-",
    "RelaxedDNSSearchValidation": "32:A- 33:B+ 34:GA+!",
    "RelaxedEnvironmentVariableValidation": "30:A- 32:B+ 34:GA+!",
    "RelaxedServiceNameValidation": "34:A- 36:B+",
    "ReloadKubeletClientCAFile": "36:B+",
    "ReloadKubeletServerCertificateFile": "31:B+",
    "RemainingItemCount": "30:GA+! 33:x",
    "RemoteRequestHeaderUID": "32:A- 33:B+",
    "ResilientWatchCacheInitialization": "31:B+ 34:GA+!",
    "ResourceHealthStatus": "31:A- 36:B+",
    "ResourceHealthStatusMessage": "36:B+",
    "RestartAllContainersOnContainerExits": "35:A- 36:B+",
    "RetryGenerateName": "30:A- 31:B+ 32:GA+!",
    "RotateKubeletServerCertificate": "30:B+",
    "RuntimeClassInImageCriApi": "30:A-",
    "SELinuxChangePolicy": "32:A- 33:B+ 36:GA+!",
    "SELinuxMount": "30:A- 33:B-",
    "SELinuxMountReadWriteOncePod": "30:B+ 36:GA+!",
    "SchedulerAsyncAPICalls": "34:B-",
    "SchedulerAsyncPreemption": "32:A- 33:B+",
    "SchedulerPopFromBackoffQ": "33:B+",
    "SchedulerQueueingHints": "30:B- 32:B+ 34:GA+!",
    "SeparateCacheWatchRPC": "30:B+ 33:D- 36:D-!",
    "SeparateTaintEvictionController": "30:B+ 34:GA+!",
    "ServerSideApply": "30:GA+! 32:x",
    "ServerSideFieldValidation": "30:GA+! 32:x",
    "ServiceAccountNodeAudienceRestriction": "32:B- 33:B+",
    "ServiceAccountTokenJTI": "30:B+ 32:GA+!",
    "ServiceAccountTokenNodeBinding": "30:A- 31:B+ 33:GA+!",
    "ServiceAccountTokenNodeBindingValidation": "30:B+ 32:GA+!",
    "ServiceAccountTokenPodNodeInfo": "30:B+ 32:GA+!",
    "ServiceCIDRStatusFieldWiping": "36:D+",
    "ServiceNodePortStaticSubrange": "30:GA+! 31:x",
    "ServiceTrafficDistribution": "30:A- 31:B+ 33:GA+! 36:x",
    "ShardedListAndWatch": "36:A-",
    "SidecarContainers": "30:B+ 33:GA+!",
    "SizeBasedListCostEstimate": "34:B+",
    "SizeMemoryBackedVolumes": "30:B+ 32:GA+! 35:x",
    "SkipReadOnlyValidationGCE": "30:D+ 31:x",
    "StableLoadBalancerNodeSet": "30:GA+! 32:x",
    "StaleControllerConsistencyDaemonSet": "36:B+",
    "StaleControllerConsistencyJob": "36:B+",
    "StaleControllerConsistencyReplicaSet": "36:B+",
    "StaleControllerConsistencyStatefulSet": "36:B+",
    "StatefulSetAutoDeletePVC": "30:B+ 32:GA+! 35:x",
    "StatefulSetSemanticRevisionComparison": "34:B+",
    "StatefulSetStartOrdinal": "30:B+ 31:GA+! 34:x",
    "StorageCapacityScoring": "33:A-",
    "StorageNamespaceIndex": "30:B+ 33:D+",
    "StorageVersionAPI": "30:A-",
    "StorageVersionHash": "30:B+",
    "StorageVersionMigrator": "30:A- 35:B-",
    "StreamingCollectionEncodingToJSON": "33:B+ 34:GA+!",
    "StreamingCollectionEncodingToProtobuf": "33:B+ 34:GA+!",
    "StrictCostEnforcementForVAP": "30:B- 32:GA+! 35:x",
    "StrictCostEnforcementForWebhooks": "30:B- 32:GA+! 35:x",
    "StrictIPCIDRValidation": "33:A- 36:B+",
    "StructuredAuthenticationConfiguration": "30:B+ 34:GA+!",
    "StructuredAuthenticationConfigurationEgressSelector": "34:B+",
    "StructuredAuthenticationConfigurationJWKSMetrics": "35:B+",
    "StructuredAuthorizationConfiguration": "30:B+ 32:GA+! 36:x",
    "SupplementalGroupsPolicy": "31:A- 33:B+ 35:GA+!",
    "SystemdWatchdog": "32:B+ 35:GA+!",
    "TaintTolerationComparisonOperators": "35:A-",
    "TokenRequestServiceAccountUIDValidation": "34:B+",
    "TopologyAwareHints": "30:B+ 33:GA+! 36:x",
    "TopologyAwareWorkloadScheduling": "36:A-",
    "TopologyManagerPolicyAlphaOptions": "30:A-",
    "TopologyManagerPolicyBetaOptions": "30:B+",
    "TopologyManagerPolicyOptions": "30:B+ 32:GA+ 36:GA+!",
    "TranslateStreamCloseWebsocketRequests": "30:B+",
    "UnauthenticatedHTTP2DOSMitigation": "30:B+",
    "UnknownVersionInteroperabilityProxy": "30:A- 36:B+",
    "UnlockWhileProcessingFIFO": "36:B+",
    "UserNamespacesHostNetworkSupport": "35:A-",
    "UserNamespacesPodSecurityStandards": "30:A- 35:x",
    "UserNamespacesSupport": "30:B- 33:B+ 36:GA+!",
    "ValidatingAdmissionPolicy": "30:GA+! 32:x",
    "VolumeAttributesClass": "30:A- 31:B- 34:GA+ 36:GA+!",
    "VolumeCapacityPriority": "30:A- 33:x",
    "VolumeLimitScaling": "35:A-",
    "WatchBookmark": "30:GA+! 33:x",
    "WatchCacheInitializationPostStartHook": "31:B- 36:B+",
    "WatchFromStorageWithoutResourceVersion": "30:B- 33:D-! 36:x",
    "WatchList": "30:A- 32:B+ 33:B- 34:B+",
    "WatchListClient": "30:B- 35:B+",
    "WinDSR": "30:A- 33:B+ 34:GA+!",
    "WinOverlay": "30:B+ 34:GA+!",
    "WindowsCPUAndMemoryAffinity": "32:A-",
    "WindowsGracefulNodeShutdown": "32:A- 34:B+",
    "WindowsHostNetwork": "30:A+ 33:D-",
    "WorkloadAwarePreemption": "36:A-",
    "WorkloadWithJob": "36:A-",
    "ZeroLimitedNominalConcurrencyShares": "30:GA+! 32:x",
}
# fmt: on

# 1.37 is 1.36 with these changes, transcribed gate by gate from the stored upstream file
# pkg/features/kube_features.go of kubernetes/kubernetes at commit
# ead35706ec68f83822a56d53b1577fa8a185ca14 (1.37 development, after v1.37.0-beta.0): its
# defaultVersionedKubernetesFeatureGates, at emulation version 1.37 and minimum compatibility
# version 1.36 (DRAFractionalCapacityRange's on-by-default spec needs minimum compatibility 1.37,
# so it is beta and off). The scheduler's own gates were checked against the copy in
# staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go at the same commit; they agree.
# "x": a gate of 1.36 that map no longer has (Kubernetes' own gates, removed in 1.37).
# That commit is on the main line after the release-1.37 branch was cut: three removals it has
# (KubeletTracing #141714, PodSchedulingReadiness #141741, ServiceAccountTokenPodNodeInfo #135338)
# are listed by CHANGELOG-1.38 (v1.38.0-alpha.1, "changelog since v1.37.0") and so are 1.38's: they
# are in V1_38_CHANGES, and 1.37.x keeps those gates.
# Not pinned: the gates kube-scheduler registers from outside that map (client-go's AtomicFIFO,
# Clients*, InOrderInformers*, InformerResourceVersion, UnlockWhileProcessingFIFO,
# WatchListClient; component-base's ContextualLogging and Logging*Options; and the generic API
# server's gates the map no longer lists: APIServerTracing, AnonymousAuthConfigurableEndpoints,
# AuthorizeWithSelectors, BtreeWatchCache, ConsistentListFromCache, OrderedNamespaceDeletion,
# ResilientWatchCacheInitialization, RetryGenerateName, StreamingCollectionEncodingTo*,
# StructuredAuthenticationConfiguration). No stored 1.37 version of their own files was found,
# so they keep their 1.36 specs.
# fmt: off
V1_37_CHANGES: Mapping[str, str] = {
    "APIServerWebhookAuthenticationToken": "A-",
    "AllowUnsafeMalformedObjectDeletion": "B+",
    "AnyVolumeDataSource": "x",
    "AtomicWriteVolumeUserFields": "A-",
    "AuthorizeNodeWithSelectors": "x",
    "ClusterTrustBundle": "GA+",
    "ClusterTrustBundleProjection": "GA+",
    "CompositePodGroup": "A-",
    "ConcurrentWatchObjectDecode": "B+",
    "ConsistentListFromCacheSkipTimeoutFallback": "A-",
    "DRADerivedAttributes": "A-",
    "DRADeviceCompatibilityGroups": "A-",
    "DRADeviceTaintRules": "GA+",
    "DRADeviceTaints": "GA+",
    "DRAExtendedResource": "GA+!",
    "DRAFractionalCapacityRange": "B-",
    "DRAOptionalNodeOperations": "A-",
    "DRAPartitionableDevicesType": "A-",
    "DRAPrioritizedList": "GA+!",
    "DRAResourceClaimDeviceStatus": "GA+!",
    "DRAWorkloadResourceClaims": "B-",
    "DeclarativeValidationTakeover": "D-!",
    "DefaultPodSysctls": "A-",
    "DisableCPUQuotaWithExclusiveCPUs": "D+!",
    "EmptyDirVolumeMode": "A-",
    "EtcdRangeStream": "B+",
    "EvictionRequestAPI": "A-",
    "ExcludeAdmissionWebhookVirtualResources": "B+",
    "GRPCContainerProbeTLS": "A-",
    "GangScheduling": "x",
    "GenericWorkload": "B-",
    "H2CContainerProbe": "A-",
    "HPAConfigurableTolerance": "GA+!",
    "HPAGeneration": "B+",
    "HPAOptimizedSelectorStore": "B+",
    "HPAScaleToZero": "B+",
    "HostnameOverride": "GA+!",
    "HugepageAwareEviction": "B+",
    "InPlacePodVerticalScalingInitContainers": "GA+!",
    "InPlacePodVerticalScalingMemoryBackedVolumes": "A-",
    "InPlacePodVerticalScalingSchedulerPreemption": "A-",
    "InterPodAffinityHostnameFastPath": "A-",
    "JobBackoffLimitPerIndex": "x",
    "JobManagedBy": "x",
    "JobPodReplacementPolicy": "x",
    "JobSuccessPolicy": "x",
    "KubeProxyIPVS": "D+",
    "KubeProxyNFTablesLocalhostNodePorts": "A-",
    "KubeletAllocatedPodsEndpoint": "A-",
    "KubeletInUserNamespace": "B+",
    "LogarithmicScaleDown": "x",
    "ManifestBasedAdmissionControlConfig": "B+",
    "MaxUnavailableStatefulSet": "B+",
    "MemoryQoS": "B+",
    "NFTablesNetlink": "B+",
    "NFTablesProxyMode": "x",
    "NodeControllerLeaseCircuitBreaker": "B+",
    "NodeDeclaredFeatures": "GA+!",
    "NodeLifecycleConditions": "A-",
    "PLEGOnDemandRelist": "GA+!",
    "PersistentVolumeClaimUnusedSinceTime": "B+",
    "PodAndContainerStatsFromCRI": "B-",
    "PodCertificateRequest": "GA+",
    "PodGroupPreemptionPolicy": "A-",
    "PodLevelResourceManagers": "B-",
    "PodLevelResourcesFixDefaulting": "B+",
    "PodLevelResourcesFixKubeletQOSClass": "B+",
    "PodLifecycleSleepAction": "x",
    "PodLifecycleSleepActionAllowZero": "x",
    "PodReadyToStartContainersCondition": "GA+!",
    "PodsAPI": "B+",
    "PreferSameTrafficDistribution": "x",
    "PreventStaticPodAPIReferences": "x",
    "RelaxedDNSSearchValidation": "x",
    "RelaxedServiceNameValidation": "GA+!",
    "SELinuxMount": "GA+",
    "SchedulerPreQueueingHints": "A-",
    "SchedulerQueueingHints": "x",
    "SidecarContainers": "x",
    "StaleControllerConsistencyHPA": "B+",
    "StatefulSetRecreateStrategy": "A-",
    "StorageCapacityScoring": "B+",
    "StorageVersionMigrator": "GA+",
    "VolumeBindMountOptions": "A-",
    "VolumeLimitScaling": "B+",
    "WatchCacheInitializationPostStartHook": "GA+!",
    "WatchListCompression": "B+",
    "WebhookRoundTripLoadBalancing": "B+",
    "WorkloadAwarePreemption": "x",
}
# fmt: on

# 1.38 is 1.37 with these changes: the gates CHANGELOG-1.38 (kubernetes/kubernetes
# CHANGELOG/CHANGELOG-1.38.md at 0411cc704533, v1.38.0-alpha.1 and v1.38.0-alpha.2) removes, locks,
# promotes or adds, with the PR of each (the whole changelog read again; it is the newest stored
# version, no beta or rc). No kube_features.go of the 1.38 line is stored (the stored versions are
# b0b89d3bd251, the 1.33 line, and ead35706, 1.37 development): gates the changelog does not
# mention keep their 1.37 specs, and gates it adds without their stage
# (CertificateSigningRequestMLDSA) are left out.
# fmt: off
V1_38_CHANGES: Mapping[str, str] = {
    "AggregatedDiscoveryRemoveBetaType": "x",  # #141208
    "CRDValidationRatcheting": "x",  # #141207
    "CustomResourceFieldSelectors": "x",  # #141207
    "DRADeviceTaintRules": "GA+!",  # #140256
    "DRADeviceTaints": "GA+!",  # #140256
    "DynamicResourceAllocation": "x",  # #141946
    "EnvFiles": "GA+!",  # #139115
    "HPAGeneration": "GA+!",  # #142386
    "KubeProxyNFTablesLocalhostNodePorts": "B+",  # #142490
    "KubeletTracing": "x",  # #141714
    "ManagedFieldsOptOut": "A-",  # #139561
    "MatchLabelKeysInPodAffinity": "x",  # #141744 (v1.38.0-alpha.2)
    "PodSchedulingReadiness": "x",  # #141741
    "SeparateTaintEvictionController": "x",  # #141789
    "ServiceAccountTokenPodNodeInfo": "x",  # #135338
    "StrictIPCIDRValidation": "GA+!",  # #141979 (KEP-4858 GA: the stricter rules always in effect)
    "WindowsCPUAndMemoryAffinity": "B+",  # #142500 (v1.38.0-alpha.2)
    "WindowsHostNetwork": "x",  # #142018
}
# fmt: on

# The changes of each minor after the last one transcribed whole (1.36), applied in order.
DELTAS: Mapping[int, Mapping[str, str]] = {37: V1_37_CHANGES, 38: V1_38_CHANGES}

# defaultKubernetesFeatureGateDependencies (1.35 on): a gate that is on needs these on.
DEPENDENCIES: Mapping[str, tuple[tuple[int, tuple[str, ...]], ...]] = {
    "AuthorizeNodeWithSelectors": ((35, ("AuthorizeWithSelectors",)),),
    "ClusterTrustBundleProjection": ((35, ("ClusterTrustBundle",)),),
    "DRAAdminAccess": ((35, ("DynamicResourceAllocation",)),),
    "DRAConsumableCapacity": ((35, ("DynamicResourceAllocation",)),),
    "DRADeviceBindingConditions": ((35, ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus")),),
    "DRADeviceTaintRules": ((35, ("DRADeviceTaints",)),),
    "DRADeviceTaints": ((35, ("DynamicResourceAllocation",)),),
    "DRAExtendedResource": ((35, ("DynamicResourceAllocation",)),),
    "DRAListTypeAttributes": ((36, ("DynamicResourceAllocation",)),),
    "DRANodeAllocatableResources": ((36, ("DynamicResourceAllocation",)),),
    "DRAPartitionableDevices": ((35, ("DynamicResourceAllocation",)),),
    "DRAPrioritizedList": ((35, ("DynamicResourceAllocation",)),),
    "DRAResourceClaimGranularStatusAuthorization": (
        (36, ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus")),
    ),
    "DRAResourcePoolStatus": ((36, ("DynamicResourceAllocation",)),),
    "DRASchedulerFilterTimeout": ((35, ("DynamicResourceAllocation",)),),
    "DRAWorkloadResourceClaims": ((36, ("DynamicResourceAllocation", "GenericWorkload")),),
    "DeclarativeValidationBeta": ((36, ("DeclarativeValidation",)),),
    "DeclarativeValidationTakeover": ((35, ("DeclarativeValidation",)),),
    "DisableAllocatorDualWrite": ((35, ("MultiCIDRServiceAllocator",)),),
    "ExtendWebSocketsToKubelet": ((36, ("NodeDeclaredFeatures",)),),
    "GangScheduling": ((35, ("GenericWorkload",)),),
    "GracefulNodeShutdownBasedOnPodPriority": ((35, ("GracefulNodeShutdown",)),),
    "ImageVolumeWithDigest": ((36, ("ImageVolume",)),),
    "InPlacePodLevelResourcesVerticalScaling": (
        (35, ("InPlacePodVerticalScaling", "PodLevelResources", "NodeDeclaredFeatures")),
    ),
    "InPlacePodVerticalScalingAllocatedStatus": ((35, ("InPlacePodVerticalScaling",)),),
    "InPlacePodVerticalScalingExclusiveCPUs": ((35, ("InPlacePodVerticalScaling",)),),
    "InPlacePodVerticalScalingExclusiveMemory": (
        (35, ("InPlacePodVerticalScaling", "MemoryManager")),
        (36, ("InPlacePodVerticalScaling",)),
    ),
    "InPlacePodVerticalScalingInitContainers": ((36, ("InPlacePodVerticalScaling", "NodeDeclaredFeatures")),),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": ((35, ("MatchLabelKeysInPodTopologySpread",)),),
    "PodCertificateRequest": ((35, ("AuthorizeNodeWithSelectors",)), (37, ())),
    "PodLevelResourceManagers": ((36, ("PodLevelResources",)),),
    "PodLifecycleSleepActionAllowZero": ((35, ("PodLifecycleSleepAction",)),),
    "ProcMountType": ((35, ("UserNamespacesSupport",)),),
    "ResourceHealthStatus": ((35, ("DynamicResourceAllocation",)),),
    "ResourceHealthStatusMessage": ((36, ("ResourceHealthStatus",)),),
    "RestartAllContainersOnContainerExits": ((35, ("ContainerRestartRules", "NodeDeclaredFeatures")),),
    "ServiceAccountTokenNodeBinding": ((35, ("ServiceAccountTokenNodeBindingValidation",)),),
    "StaleControllerConsistencyDaemonSet": ((36, ("AtomicFIFO",)),),
    "StaleControllerConsistencyJob": ((36, ("AtomicFIFO",)),),
    "StaleControllerConsistencyReplicaSet": ((36, ("AtomicFIFO",)),),
    "StaleControllerConsistencyStatefulSet": ((36, ("AtomicFIFO",)),),
    "StorageVersionAPI": ((35, ("APIServerIdentity",)),),
    "StructuredAuthenticationConfigurationEgressSelector": (
        (35, ("StructuredAuthenticationConfiguration",)),
        (37, ()),
    ),
    "StructuredAuthenticationConfigurationJWKSMetrics": ((35, ("StructuredAuthenticationConfiguration",)), (37, ())),
    "TopologyAwareWorkloadScheduling": ((36, ("GenericWorkload",)),),
    "UnknownVersionInteroperabilityProxy": ((35, ("APIServerIdentity",)),),
    "UserNamespacesHostNetworkSupport": (
        (35, ("UserNamespacesSupport",)),
        (36, ("UserNamespacesSupport", "NodeDeclaredFeatures")),
    ),
    "WindowsCPUAndMemoryAffinity": ((35, ("MemoryManager",)), (37, ())),
    "WindowsGracefulNodeShutdown": ((35, ("GracefulNodeShutdown",)),),
    "WorkloadAwarePreemption": ((36, ("GangScheduling",)),),
    "WorkloadWithJob": ((36, ("GenericWorkload",)),),
    # 1.37: defaultKubernetesFeatureGateDependencies of the same kube_features.go (ead35706) as
    # V1_37_CHANGES; () = the entry is there with no dependency.
    "CompositePodGroup": ((37, ("GenericWorkload", "TopologyAwareWorkloadScheduling")),),
    "DRADerivedAttributes": ((37, ("DynamicResourceAllocation",)),),
    "DRADeviceCompatibilityGroups": ((37, ("DynamicResourceAllocation", "DRAPartitionableDevices")),),
    "DRAFractionalCapacityRange": ((37, ("DRAConsumableCapacity",)),),
    "DRAOptionalNodeOperations": ((37, ("DynamicResourceAllocation", "NodeDeclaredFeatures")),),
    "DRAPartitionableDevicesType": (
        (37, ("DynamicResourceAllocation", "DRAPartitionableDevices", "DRAResourcePoolStatus")),
    ),
    "EventedPLEG": ((37, ("PLEGOnDemandRelist",)),),
    "H2CContainerProbe": ((37, ("NodeDeclaredFeatures",)),),
    "InPlacePodVerticalScalingMemoryBackedVolumes": ((37, ("InPlacePodVerticalScaling", "NodeDeclaredFeatures")),),
    "InPlacePodVerticalScalingSchedulerPreemption": ((37, ("InPlacePodVerticalScaling",)),),
    "KubeletAllocatedPodsEndpoint": ((37, ("InPlacePodVerticalScaling",)),),
    "NodeControllerLeaseCircuitBreaker": ((37, ("AtomicFIFO",)),),
    "PodGroupPreemptionPolicy": ((37, ("GenericWorkload",)),),
    "PodLevelResourcesFixDefaulting": ((37, ("PodLevelResources",)),),
    "PodLevelResourcesFixKubeletQOSClass": ((37, ("PodLevelResources",)),),
    "StaleControllerConsistencyHPA": ((37, ("AtomicFIFO",)),),
}
DEPENDENCIES_SINCE = 35


class FeatureGateError(InputError):
    """A --feature-gates value the release refuses; the message is kube-scheduler's."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field=FLAG)


def _decode(state: str) -> FeatureSpec | None:
    if state == "x":
        return None
    locked = state.endswith("!")
    state = state.rstrip("!")
    return FeatureSpec(state[-1] == "+", _STAGES[state[:-1]], locked)


@functools.cache
def known(minor: int) -> Mapping[str, FeatureSpec]:
    """The gates kube-scheduler 1.<minor> knows, with their specs at that version."""
    if not FIRST_MINOR <= minor <= LAST_MINOR:
        raise ValueError(f"no feature-gate table for 1.{minor}")
    out: dict[str, FeatureSpec] = {
        ALL_ALPHA: FeatureSpec(False, Stage.ALPHA),
        ALL_BETA: FeatureSpec(False, Stage.BETA),
    }
    table_minor = min(minor, 36)
    deltas = [DELTAS[m] for m in sorted(DELTAS) if m <= minor]
    names = list(dict.fromkeys([*SPECS, *(n for d in deltas for n in d)]))
    for name in names:
        spec: FeatureSpec | None = None
        for step in SPECS.get(name, "").split():
            since, state = step.split(":")
            if int(since) <= table_minor:
                spec = _decode(state)
        for d in deltas:
            if name in d:
                spec = _decode(d[name])
        if spec is not None:
            out[name] = spec
    return out


def ever_known(name: str) -> bool:
    return name in SPECS or any(name in d for d in DELTAS.values()) or name in (ALL_ALPHA, ALL_BETA)


def last_default(name: str, minor: int) -> bool:
    """A gate the release no longer knows behaves as its last default (a gate removed after GA is on)."""
    value = False
    for m in range(FIRST_MINOR, minor + 1):
        spec = known(m).get(name)
        if spec is not None:
            value = spec.default
    return value


def dependencies(minor: int) -> Mapping[str, tuple[str, ...]]:
    if minor < DEPENDENCIES_SINCE:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    specs = known(minor)
    for name, steps in DEPENDENCIES.items():
        if name not in specs:  # a gate the release no longer has (GangScheduling in 1.37) depends on nothing
            continue
        for since, deps in steps:
            if since <= minor:
                out[name] = deps
    return out


@dataclass(frozen=True, slots=True)
class FeatureGates:
    """The feature gates of one run: the release's defaults plus what --feature-gates set."""

    minor: int
    # the values --feature-gates set, in the order given (AllAlpha/AllBeta included)
    overrides: Mapping[str, bool] = field(default_factory=dict)
    # what kube-scheduler logs while setting them (deprecated and GA gates)
    warnings: tuple[str, ...] = ()

    def enabled(self, name: str) -> bool:
        """featureEnabled: the explicit value, else AllAlpha/AllBeta's, else the default."""
        if name in self.overrides:
            return self.overrides[name]
        spec = known(self.minor).get(name)
        if spec is None:
            return last_default(name, self.minor) if ever_known(name) else False
        if spec.stage is Stage.ALPHA and ALL_ALPHA in self.overrides and not spec.locked:
            return self.overrides[ALL_ALPHA]
        if spec.stage is Stage.BETA and ALL_BETA in self.overrides and not spec.locked:
            return self.overrides[ALL_BETA]
        return spec.default

    def explicitly_set(self, name: str) -> bool:
        return name in self.overrides

    def non_default(self) -> dict[str, bool]:
        """Every gate whose value differs from the release's default, by name."""
        specs = known(self.minor)
        names = set(self.overrides) - {ALL_ALPHA, ALL_BETA}
        if ALL_ALPHA in self.overrides or ALL_BETA in self.overrides:
            names |= {n for n, s in specs.items() if s.stage in (Stage.ALPHA, Stage.BETA)}
        out = {}
        for n in sorted(names):
            value = self.enabled(n)
            if n in specs and value != specs[n].default:
                out[n] = value
        return out

    def render(self) -> str:
        """The --feature-gates value that gives these gates (String(): sorted k=v)."""
        return ",".join(f"{k}={str(v).lower()}" for k, v in sorted(self.overrides.items()))


def defaults(minor: int) -> FeatureGates:
    return FeatureGates(minor)


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def _parse_bool(text: str) -> bool | None:
    """strconv.ParseBool."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def parse(text: str, minor: int) -> FeatureGates:
    """featureGate.Set: ``k=v,k=v``; empty items are skipped, a later value of a key wins. Go
    walks the map in random order; kwhatif in the order the keys first appear."""
    m: dict[str, bool] = {}
    for item in text.split(","):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {key}")
        raw = raw.strip()
        value = _parse_bool(raw)
        if value is None:
            raise FeatureGateError(
                f'invalid value of {key}={raw}, err: strconv.ParseBool: parsing "{raw}": invalid syntax'
            )
        m[key] = value
    return from_map(m, minor)


def from_map(m: Mapping[str, bool], minor: int) -> FeatureGates:
    """featureGate.SetFromMap at emulation version 1.<minor> (min compatibility 1.<minor-1>)."""
    specs = known(minor)
    errors: list[str] = []
    warnings: list[str] = []
    overrides: dict[str, bool] = {}
    for key, value in m.items():
        spec = specs.get(key)
        if spec is None:
            errors.append(f"unrecognized feature gate: {key}")
            break
        if spec.locked and spec.default != value:
            errors.append(
                f"cannot set feature gate {key} to {str(value).lower()}, feature is locked to {str(spec.default).lower()}"
            )
            if minor < 31:
                break
            continue
        if spec.stage is Stage.PRE_ALPHA:  # not reachable with SPECS' gates; kept for the message
            errors.append(_pre_alpha(key, value, minor))
            continue
        overrides[key] = value
        if spec.stage is Stage.DEPRECATED:
            warnings.append(
                f"Setting deprecated feature gate {key}={str(value).lower()}. It will be removed in a future release."
            )
        elif spec.stage is Stage.GA:
            warnings.append(
                f"Setting GA feature gate {key}={str(value).lower()}. It will be removed in a future release."
            )
    if errors:
        raise FeatureGateError(errors[0] if minor < 31 else aggregate(errors))
    gates = FeatureGates(minor, overrides, tuple(warnings))
    dependency_errors = list(_dependency_errors(gates))
    if dependency_errors:
        raise FeatureGateError(aggregate(dependency_errors))
    return gates


def _pre_alpha(key: str, value: bool, minor: int) -> str:
    text = f"cannot set feature gate {key} to {str(value).lower()}, feature is PreAlpha at emulated version 1.{minor}"
    return text + (f", min compatibility version 1.{minor - 1}" if minor >= 35 else "")


def _dependency_errors(gates: FeatureGates) -> Iterable[str]:
    for feature, deps in sorted(dependencies(gates.minor).items()):
        if not gates.enabled(feature):
            continue
        disabled = [d for d in deps if not gates.enabled(d)]
        if disabled:
            yield f"{feature} is enabled, but depends on features that are disabled: [{' '.join(disabled)}]"
