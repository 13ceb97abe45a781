"""Well-known names of the JobSet API (jobset.x-k8s.io/v1alpha2), spelled as kubernetes-sigs/jobset
v0.12.0 spells them, in one place.

Sources: ``api/jobset/v1alpha2/jobset_types.go`` (labels, annotations, enums, condition types, the
reserved ``managedBy`` value), ``pkg/constants/constants.go`` (the restart-attempt labels, condition
and event reasons and messages), ``pkg/features/features.go`` (the controller's feature gates) and
``pkg/webhooks/jobset_webhook.go`` (limits and webhook messages).
"""

from __future__ import annotations

from typing import Final

GROUP: Final = "jobset.x-k8s.io"
VERSION: Final = "v1alpha2"
API_VERSION: Final = f"{GROUP}/{VERSION}"

# --- labels and annotations on child Jobs and their pods (jobset_types.go, constants.go) --------
JOBSET_NAME_KEY: Final = "jobset.sigs.k8s.io/jobset-name"
JOBSET_UID_KEY: Final = "jobset.sigs.k8s.io/jobset-uid"
REPLICATED_JOB_REPLICAS_KEY: Final = "jobset.sigs.k8s.io/replicatedjob-replicas"
GLOBAL_REPLICAS_KEY: Final = "jobset.sigs.k8s.io/global-replicas"
REPLICATED_JOB_NAME_KEY: Final = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-index"
JOB_GLOBAL_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-global-index"
JOB_KEY: Final = "jobset.sigs.k8s.io/job-key"  # SHA-1 hex of "<namespace>/<job name>"
GROUP_NAME_KEY: Final = "jobset.sigs.k8s.io/group-name"
GROUP_REPLICAS_KEY: Final = "jobset.sigs.k8s.io/group-replicas"
JOB_GROUP_INDEX_KEY: Final = "jobset.sigs.k8s.io/job-group-index"
COORDINATOR_KEY: Final = "jobset.sigs.k8s.io/coordinator"
RESTARTS_KEY: Final = "jobset.sigs.k8s.io/restart-attempt"  # = status.restarts at creation
JOB_RESTART_ATTEMPT_KEY: Final = "jobset.sigs.k8s.io/job-restart-attempt"  # RestartJob gate
PRIORITY_KEY: Final = "jobset.sigs.k8s.io/priority"  # pod label set by the pod webhook
IN_PLACE_RESTART_ATTEMPT_KEY: Final = "jobset.sigs.k8s.io/in-place-restart-attempt"
DISABLE_IN_PLACE_RESTART_KEY: Final = "jobset.sigs.k8s.io/disable-in-place-restart"

# exclusive placement (alpha annotations)
EXCLUSIVE_KEY: Final = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY_KEY: Final = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB_KEY: Final = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT_KEY: Final = "alpha.jobset.sigs.k8s.io/no-schedule"

# The reserved spec.managedBy value meaning "the built-in JobSet controller".
JOBSET_CONTROLLER_NAME: Final = "jobset.sigs.k8s.io/jobset-controller"


def external_manager(managed_by: str | None) -> str | None:
    """The ``spec.managedBy`` value when another controller manages the JobSet (``jobset_controller.go``
    ``managedByExternalController``: unset or the reserved name means the built-in one), else None."""
    return managed_by if managed_by is not None and managed_by != JOBSET_CONTROLLER_NAME else None


# --- enums -----------------------------------------------------------------------------------
OPERATOR_ALL: Final = "All"
OPERATOR_ANY: Final = "Any"
OPERATORS: Final = (OPERATOR_ALL, OPERATOR_ANY)

FAIL_JOBSET: Final = "FailJobSet"
RESTART_JOBSET: Final = "RestartJobSet"
RESTART_JOBSET_IGNORE_MAX: Final = "RestartJobSetAndIgnoreMaxRestarts"
RESTART_JOB: Final = "RestartJob"
RESTART_JOB_IGNORE_MAX: Final = "RestartJobAndIgnoreMaxRestarts"
FAILURE_ACTIONS: Final = (FAIL_JOBSET, RESTART_JOBSET, RESTART_JOBSET_IGNORE_MAX, RESTART_JOB,
                          RESTART_JOB_IGNORE_MAX)

RECREATE: Final = "Recreate"
BLOCKING_RECREATE: Final = "BlockingRecreate"
IN_PLACE_RESTART: Final = "InPlaceRestart"
RESTART_STRATEGIES: Final = (RECREATE, BLOCKING_RECREATE, IN_PLACE_RESTART)

ANY_ORDER: Final = "AnyOrder"
IN_ORDER: Final = "InOrder"
STARTUP_ORDERS: Final = (ANY_ORDER, IN_ORDER)

DEPENDENCY_READY: Final = "Ready"
DEPENDENCY_COMPLETE: Final = "Complete"
DEPENDS_ON_STATUSES: Final = (DEPENDENCY_READY, DEPENDENCY_COMPLETE)

RETAIN_DELETE: Final = "Delete"
RETAIN_RETAIN: Final = "Retain"
RETENTION_POLICIES: Final = (RETAIN_DELETE, RETAIN_RETAIN)

DEFAULT_GROUP_NAME: Final = "default"

# --- condition types (jobset_types.go) ---------------------------------------------------------
COMPLETED: Final = "Completed"
FAILED: Final = "Failed"
SUSPENDED: Final = "Suspended"
RESTARTING: Final = "RestartingJobSet"
STARTUP_IN_PROGRESS: Final = "StartupPolicyInProgress"
STARTUP_COMPLETED: Final = "StartupPolicyCompleted"

# --- condition and event reasons and messages (pkg/constants/constants.go) ---------------------
REACHED_MAX_RESTARTS_REASON: Final = "ReachedMaxRestarts"
REACHED_MAX_RESTARTS_MESSAGE: Final = "jobset failed due to reaching max number of restarts"
FAILED_JOBS_REASON: Final = "FailedJobs"
FAILED_JOBS_MESSAGE: Final = "jobset failed due to one or more job failures"
ALL_JOBS_COMPLETED_REASON: Final = "AllJobsCompleted"
ALL_JOBS_COMPLETED_MESSAGE: Final = "jobset completed successfully"
JOB_CREATION_FAILED_REASON: Final = "JobCreationFailed"
HEADLESS_SERVICE_CREATION_FAILED_REASON: Final = "HeadlessServiceCreationFailed"
PVC_CREATION_FAILED_REASON: Final = "PVCCreationFailed"
EXCLUSIVE_PLACEMENT_VIOLATION_REASON: Final = "ExclusivePlacementViolation"
EXCLUSIVE_PLACEMENT_VIOLATION_MESSAGE: Final = "Pod violated JobSet exclusive placement policy"
IN_ORDER_IN_PROGRESS_REASON: Final = "InOrderStartupPolicyInProgress"
IN_ORDER_IN_PROGRESS_MESSAGE: Final = "in order startup policy is in progress"
IN_ORDER_COMPLETED_REASON: Final = "InOrderStartupPolicyCompleted"
IN_ORDER_COMPLETED_MESSAGE: Final = "in order startup policy has completed"
RESTARTING_DEFAULT_FAILURE_POLICY: Final = "DefaultFailurePolicy"
RESTARTING_FAILURE_POLICY_PREFIX: Final = "FailurePolicy_"  # + the rule's name
RESTARTING_JOBS_READY: Final = "JobsReady"
RESTARTING_JOBS_READY_MESSAGE: Final = "all jobs are ready"
RESTARTING_JOBSET_FAILED: Final = "JobSetFailed"
RESTARTING_JOBSET_FAILED_MESSAGE: Final = "jobset failed"
RESTARTING_JOBSET_COMPLETED: Final = "JobSetCompleted"
RESTARTING_JOBSET_SUSPENDED: Final = "JobSetSuspended"
SUSPENDED_REASON: Final = "SuspendedJobs"
SUSPENDED_MESSAGE: Final = "jobset is suspended"
RESUMED_REASON: Final = "ResumeJobs"
RESUMED_MESSAGE: Final = "jobset is resumed"
FAIL_JOBSET_ACTION_REASON: Final = "FailJobSetFailurePolicyAction"
FAIL_JOBSET_ACTION_MESSAGE: Final = "applying FailJobSet failure policy action"
RESTART_JOBSET_ACTION_REASON: Final = "RestartJobSetFailurePolicyAction"
RESTART_JOBSET_ACTION_MESSAGE: Final = "applying RestartJobSet failure policy action"
RESTART_JOBSET_IGNORE_MAX_ACTION_REASON: Final = "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction"
RESTART_JOBSET_IGNORE_MAX_ACTION_MESSAGE: Final = (
    "applying RestartJobSetAndIgnoreMaxRestarts failure policy action")
RESTART_JOB_ACTION_REASON: Final = "RestartJobFailurePolicyAction"
RESTART_JOB_ACTION_MESSAGE: Final = "applying RestartJob failure policy action"
RESTART_JOB_IGNORE_MAX_ACTION_REASON: Final = "RestartJobAndIgnoreMaxRestartsFailurePolicyAction"
RESTART_JOB_IGNORE_MAX_ACTION_MESSAGE: Final = "applying RestartJobAndIgnoreMaxRestarts failure policy action"

# --- the JobSet controller's feature gates (pkg/features/features.go, v0.12.0) ---------------
GATE_IN_PLACE_RESTART: Final = "InPlaceRestart"  # alpha, off
GATE_RESTART_JOB: Final = "RestartJob"  # alpha, off
GATE_ELASTIC_JOBSET: Final = "ElasticJobSet"  # alpha, off

# --- limits (jobset_webhook.go) --------------------------------------------------------------
MAX_MANAGED_BY_LENGTH: Final = 63
MAX_VOLUME_CLAIM_NAME_LENGTH: Final = 63
MAX_REPLICAS_PER_REPLICATED_JOB: Final = 1024  # with RestartJob actions: jobRestarts has MaxItems 1024
MAX_INT32: Final = 2**31 - 1
# Job failure reasons a rule may name (batch/v1 JobReason* constants).
JOB_FAILURE_REASONS: Final = ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes",
                              "MaxFailedIndexesExceeded", "PodFailurePolicy")
