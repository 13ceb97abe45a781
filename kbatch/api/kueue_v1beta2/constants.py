"""Kueue's well-known names: labels, annotations, finalizers, condition types and reasons, enums.

Upstream (v0.19.2): ``apis/kueue/v1beta2/{constants,workload_types,clusterqueue_types,
topology_types}.go``, ``pkg/controller/constants/constants.go``, ``pkg/constants/constants.go``,
``pkg/controller/jobs/job/job_controller.go``.
"""

from __future__ import annotations

__all__ = [
    "ADMISSION_FIELD_MANAGER",
    "BORROW_WITHIN_COHORT_POLICIES",
    "CHECK_STATES",
    "CLUSTER_QUEUE_LABEL",
    "DEFAULT_LOCAL_QUEUE",
    "DEFAULT_POD_SET",
    "ELASTIC_JOB_ANNOTATION",
    "ELASTIC_JOB_SCHEDULING_GATE",
    "FUNGIBILITY_POLICIES",
    "FUNGIBILITY_PREFERENCES",
    "JOB_COMPLETIONS_EQUAL_PARALLELISM",
    "JOB_MIN_PARALLELISM",
    "JOB_STOPPING",
    "JOB_UID_LABEL",
    "LOCAL_QUEUE_LABEL",
    "MANAGED_BY_MULTIKUEUE",
    "MAX_EXEC_TIME_LABEL",
    "POD_SET_LABEL",
    "PREBUILT_WORKLOAD_LABEL",
    "PREEMPTION_POLICIES",
    "QUEUEING_STRATEGIES",
    "QUEUE_LABEL",
    "RECLAIM_POLICIES",
    "RESOURCE_IN_USE_FINALIZER",
    "STOP_POLICIES",
    "WITHIN_CQ_POLICIES",
    "WORKLOAD_PRIORITY_CLASS_LABEL",
    "WORKLOAD_SLICE_NAME_ANNOTATION",
    "WORKLOAD_SLICE_REPLACEMENT_FOR",
    "Cond",
    "Reason",
]

RESOURCE_IN_USE_FINALIZER = "kueue.x-k8s.io/resource-in-use"
DEFAULT_POD_SET = "main"
DEFAULT_LOCAL_QUEUE = "default"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
WORKLOAD_PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
PREBUILT_WORKLOAD_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
POD_SET_LABEL = "kueue.x-k8s.io/podset"
CLUSTER_QUEUE_LABEL = "kueue.x-k8s.io/cluster-queue-name"
LOCAL_QUEUE_LABEL = "kueue.x-k8s.io/local-queue-name"
JOB_MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
JOB_COMPLETIONS_EQUAL_PARALLELISM = "kueue.x-k8s.io/job-completions-equal-parallelism"
JOB_STOPPING = "kueue.x-k8s.io/stopping"
MANAGED_BY_MULTIKUEUE = "kueue.x-k8s.io/multikueue"
# elastic jobs via workload slices (pkg/constants ElasticJobAnnotation, apis/kueue/v1beta2/constants.go
# ElasticJobSchedulingGate, topology_types.go WorkloadSliceNameAnnotation, pkg/workloadslicing)
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
ELASTIC_JOB_SCHEDULING_GATE = "kueue.x-k8s.io/elastic-job"
WORKLOAD_SLICE_NAME_ANNOTATION = "kueue.x-k8s.io/workload-slice-name"
WORKLOAD_SLICE_REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"
# the field manager of the scheduler's and the workload controller's status writes
ADMISSION_FIELD_MANAGER = "kueue-admission"

QUEUEING_STRATEGIES = ("StrictFIFO", "BestEffortFIFO")
STOP_POLICIES = ("None", "Hold", "HoldAndDrain")
FUNGIBILITY_POLICIES = ("MayStopSearch", "TryNextFlavor")
FUNGIBILITY_PREFERENCES = ("BorrowingOverPreemption", "PreemptionOverBorrowing")
RECLAIM_POLICIES = ("Never", "LowerPriority", "Any")
WITHIN_CQ_POLICIES = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
PREEMPTION_POLICIES = ("Never", "Any", "LowerPriority", "LowerOrNewerEqualPriority")
BORROW_WITHIN_COHORT_POLICIES = ("Never", "LowerPriority")
CHECK_STATES = ("Pending", "Ready", "Retry", "Rejected")


class Cond:
    """Condition types (Workload, ClusterQueue, LocalQueue, AdmissionCheck)."""

    QUOTA_RESERVED = "QuotaReserved"
    ADMITTED = "Admitted"
    EVICTED = "Evicted"
    PREEMPTED = "Preempted"
    REQUEUED = "Requeued"
    FINISHED = "Finished"
    PODS_READY = "PodsReady"
    DEACTIVATION_TARGET = "DeactivationTarget"
    ACTIVE = "Active"
    BLOCKED_ON_PREEMPTION_GATES = "BlockedOnPreemptionGates"


class Reason:
    """Condition reasons, as upstream spells them."""

    # QuotaReserved=False (legacy, UnadmittedWorkloadsObservability off) and granular ones
    PENDING = "Pending"
    INADMISSIBLE = "Inadmissible"
    WAITING = "Waiting"
    ON_HOLD = "OnHold"
    NO_MATCHING_FLAVOR = "NoMatchingFlavor"
    WAITING_FOR_QUOTA = "WaitingForQuota"
    EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
    WAITING_FOR_PREEMPTED = "WaitingForPreemptedWorkloads"
    MISCONFIGURED = "Misconfigured"
    SUSPENDED = "Suspended"
    PENDING_EVALUATION = "PendingEvaluation"
    WAITING_FOR_PODS_READY = "WaitingForPodsReady"
    ADMISSION_GATED = "AdmissionGated"  # also a preemption-gated entry's (``processEntry``)
    QUOTA_RESERVED = "QuotaReserved"
    # Admitted
    ADMITTED = "Admitted"
    NO_RESERVATION = "NoReservation"
    NO_RESERVATION_UNSATISFIED_CHECKS = "NoReservationUnsatisfiedChecks"
    UNSATISFIED_CHECKS = "UnsatisfiedChecks"
    UNSATISFIED_ADMISSION_CHECKS = "UnsatisfiedAdmissionChecks"
    PENDING_DELAYED_TOPOLOGY_REQUESTS = "PendingDelayedTopologyRequests"
    # Evicted
    PREEMPTED = "Preempted"
    PODS_READY_TIMEOUT = "PodsReadyTimeout"
    ADMISSION_CHECK = "AdmissionCheck"
    CLUSTER_QUEUE_STOPPED = "ClusterQueueStopped"
    LOCAL_QUEUE_STOPPED = "LocalQueueStopped"
    DEACTIVATED = "Deactivated"
    NODE_FAILURES = "NodeFailures"
    MAXIMUM_EXECUTION_TIME_EXCEEDED = "MaximumExecutionTimeExceeded"
    REQUEUING_LIMIT_EXCEEDED = "RequeuingLimitExceeded"
    # Preempted
    IN_CLUSTER_QUEUE = "InClusterQueue"
    IN_COHORT_RECLAMATION = "InCohortReclamation"
    IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
    IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
    # Requeued
    REACTIVATED = "Reactivated"
    BACKOFF_FINISHED = "BackoffFinished"
    CLUSTER_QUEUE_RESTARTED = "ClusterQueueRestarted"
    LOCAL_QUEUE_RESTARTED = "LocalQueueRestarted"
    # PodsReady
    WAIT_FOR_START = "WaitForStart"
    WAIT_FOR_RECOVERY = "WaitForRecovery"
    STARTED = "Started"
    RECOVERED = "Recovered"
    # Finished
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    OUT_OF_SYNC = "OutOfSync"
    WORKLOAD_SLICE_REPLACED = "WorkloadSliceReplaced"
    OWNER_NOT_FOUND = "OwnerNotFound"
    FAILED_TO_START = "FailedToStart"
    # ClusterQueue / LocalQueue Active
    READY = "Ready"
    FLAVOR_NOT_FOUND = "FlavorNotFound"
    ADMISSION_CHECK_NOT_FOUND = "AdmissionCheckNotFound"
    ADMISSION_CHECK_INACTIVE = "AdmissionCheckInactive"
    STOPPED = "Stopped"
    TERMINATING = "Terminating"
    UNKNOWN = "Unknown"
    CLUSTER_QUEUE_DOES_NOT_EXIST = "ClusterQueueDoesNotExist"
    CLUSTER_QUEUE_IS_INACTIVE = "ClusterQueueIsInactive"
