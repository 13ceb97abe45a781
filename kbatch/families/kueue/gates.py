"""Kueue v0.19's feature gates, at their v0.19.2 defaults, set with kbatch's ``--feature-gates``.

Upstream: kubernetes-sigs/kueue ``pkg/features/kube_features.go`` at tag v0.19.2 (the last
versioned spec at or below 0.19 of each gate). Every gate is declared, so that any Kueue gate name
is accepted as Kueue's ``--feature-gates`` accepts it; :data:`IMPLEMENTED` lists the ones whose
behaviour kbatch implements (the others belong to features kbatch does not model: TAS,
MultiKueue, DRA's extended resources, counters and capacity, elastic jobs with TAS, concurrent admission,
metrics, integrations kbatch lacks; docs/kueue.md). Mind ``UnadmittedWorkloadsObservability``:
beta but off in v0.19.2.
"""

from __future__ import annotations

from kbatch.api.features import FeatureSpec, Stage

__all__ = ["IMPLEMENTED", "KUEUE_GATES"]

A, B, GA, D = Stage.ALPHA, Stage.BETA, Stage.GA, Stage.DEPRECATED
SOURCE = "kubernetes-sigs/kueue pkg/features/kube_features.go@v0.19.2"

_KUEUE_GATES = (
    ("PartialAdmission", True, B),
    ("FlavorFungibility", True, B),
    ("VisibilityOnDemand", True, B),
    ("DisableWaitForPodsReady", False, A),
    ("PrioritySortingWithinCohort", True, B),
    ("FairSharingPreemptWithinNominal", True, B),
    ("FairSharingPrioritizeNonBorrowing", True, B),
    ("MultiKueue", True, B),
    ("TopologyAwareScheduling", True, B),
    ("LocalQueueMetrics", True, B),
    ("TASProfileMixed", True, B),
    ("HierarchicalCohorts", True, GA, True),
    ("AdmissionFairSharing", True, B),
    ("ObjectRetentionPolicies", True, GA, True),
    ("TASFailedNodeReplacement", True, B),
    ("ElasticJobsViaWorkloadSlices", True, B),
    ("ElasticJobsViaWorkloadSlicesWithTAS", False, A),
    ("TASFailedNodeReplacementFailFast", True, B),
    ("TASReplaceNodeOnPodTermination", True, B),
    ("SkipReassignmentForPodOwnedWorkloads", True, B),
    ("TASReplaceNodeDueToNotReadyOverFixedTime", False, D),
    ("ManagedJobsNamespaceSelectorAlwaysRespected", True, GA, True),
    ("TASBalancedPlacement", False, A),
    ("TASAssignmentsEncodingByHostnamePrefix", True, B),
    ("KueueDRAIntegration", True, B),
    ("KueueDRAIntegrationExtendedResource", True, B),
    ("KueueDRARejectWorkloadsWhenDRADisabled", True, B),
    ("KueueDRAIntegrationPartitionableDevices", True, B),
    ("KueueDRAIntegrationConsumableCapacity", False, A),
    ("MultiKueueAdaptersForCustomJobs", True, B),
    ("WorkloadRequestUseMergePatch", False, A),
    ("MultiKueueAllowInsecureKubeconfigs", False, D, True),
    ("MultiKueueKubeConfigPathValidation", False, A),
    ("ReclaimablePods", True, B),
    ("PropagateBatchJobLabelsToWorkload", True, GA, True),
    ("MultiKueueClusterProfile", False, A),
    ("FailureRecoveryPolicy", False, A),
    ("SkipFinalizersForPodsSuspendedByParent", True, GA, True),
    ("MultiKueueWaitForWorkloadAdmitted", True, GA, True),
    ("MultiKueueRedoAdmissionOnEvictionInWorker", True, GA, True),
    ("TLSOptions", True, B),
    ("RemoveFinalizersWithStrictPatch", True, B),
    ("TASReplaceNodeOnNodeTaints", True, B),
    ("AssignQueueLabelsForPods", True, B),
    ("TASMultiLayerTopology", True, B),
    ("SchedulingEquivalenceHashing", True, B),
    ("SchedulerLongRequeueInterval", False, A),
    ("SchedulerTimestampPreemptionBuffer", False, A),
    ("CustomMetricLabels", False, A),
    ("SparkApplicationIntegration", False, A),
    ("MultiKueueOrchestratedPreemption", False, A),
    ("PriorityBoost", False, A),
    ("AdmissionGatedBy", True, B),
    ("ShortWorkloadNames", False, A),
    ("FastQuotaReleaseInPodIntegration", False, A),
    ("RejectUpdatesToCQWithInvalidOnFlavors", False, A),
    ("FinishOrphanedWorkloads", True, B),
    ("MultiKueueIncrementalDispatcherConfig", True, B),
    ("MultiKueueIncrementalDispatcherRespectConfigOrder", True, B),
    ("ConcurrentAdmission", False, A),
    ("QuotaCheckStrategy", True, B),
    ("MetricForWorkloadCreationLatency", True, B),
    ("TASRespectNodeAffinityPreferred", False, A),
    ("MultiKueueManagerQuotaAutomation", False, A),
    ("WorkloadIdentifierAnnotations", True, B),
    ("WorkloadPriorityClassDefaulting", False, A),
    ("MetricsForCohorts", True, B),
    ("CleanupProvisioningRequestsOnEviction", True, B),
    ("TASHandleOverlappingFlavors", True, B),
    ("UnadmittedWorkloadsObservability", False, B),
    ("TASRecomputeAssignmentWithinSchedulingCycle", True, B),
    ("UnadmittedWorkloadsExplicitStatus", False, B),
    ("DeferRayServiceFinalizationForRedisCleanup", True, B),
    ("TASCacheNodeMatchResults", True, B),
    ("TASCachingRemainingResources", True, B),
    ("TASCacheTopologyTree", False, A),
    ("SchedulerLibraryIntegration", False, A),
    ("VectorizedResourceRequests", True, B),
    ("WorkloadValidateResourcesAreNonNegative", True, B),
    ("TASValidateWorkloadSliceSize", True, B),
    ("WorkloadValidationForPodSetMetadata", True, B),
    ("PrioritizePreemptorWorkloads", False, A),
    ("LWSImmutableGroupSize", True, B),
    ("FlavorFungibilityPreserveScanProgress", True, B),
    ("SkipAncestorCheckForDeletedWorkloads", True, B),
    ("MultiKueueRemoteSpecSync", True, B),
    ("RecomputeAssignmentUponPreemptionTargetsOverlap", False, A),
    ("PodIntegrationValidateGroupOwner", True, B),
    ("ValidateRayAndSparkJobUpdates", True, B),
)

KUEUE_GATES: tuple[FeatureSpec, ...] = tuple(
    FeatureSpec(name, default, stage, bool(locked and locked[0]), source=SOURCE)
    for name, default, stage, *locked in _KUEUE_GATES
)

IMPLEMENTED = frozenset(
    {
        "PartialAdmission",
        "FlavorFungibility",
        "PrioritySortingWithinCohort",
        "FairSharingPreemptWithinNominal",
        "FairSharingPrioritizeNonBorrowing",
        "DisableWaitForPodsReady",
        "ReclaimablePods",
        "SchedulingEquivalenceHashing",
        "UnadmittedWorkloadsObservability",
        "UnadmittedWorkloadsExplicitStatus",
        "SchedulerLongRequeueInterval",
        "SchedulerTimestampPreemptionBuffer",
        "PrioritizePreemptorWorkloads",
        "FinishOrphanedWorkloads",
        "AssignQueueLabelsForPods",
        "QuotaCheckStrategy",
        "WorkloadValidateResourcesAreNonNegative",
        "WorkloadValidationForPodSetMetadata",
        "FlavorFungibilityPreserveScanProgress",
        "ShortWorkloadNames",
        "PriorityBoost",
        "WorkloadPriorityClassDefaulting",
        "ManagedJobsNamespaceSelectorAlwaysRespected",
        "HierarchicalCohorts",
        "ObjectRetentionPolicies",
        "PropagateBatchJobLabelsToWorkload",
        "SkipReassignmentForPodOwnedWorkloads",
        "KueueDRAIntegration",  # the ResourceClaimTemplate path (controllers/kueue/dra_requests.py)
        "KueueDRARejectWorkloadsWhenDRADisabled",
        "ElasticJobsViaWorkloadSlices",  # batch/v1 Jobs (controllers/kueue/workloadslicing/)
        "MultiKueueOrchestratedPreemption",  # preemption gates (controllers/kueue/preemption_gates.py)
    }
)
"""Gates whose behaviour kbatch implements (the rest are accepted and documented as not modelled)."""
