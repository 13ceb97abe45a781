"""Well-known names of the batch API, spelled as upstream spells them, in one place.

Sources: k8s.io/api batch/v1 types.go (labels, annotations, finalizer, enums, condition types and
reasons), pkg/controller/job/job_controller.go (Suspended condition reasons, the reserved
``managedBy`` value), pkg/apis/batch/validation/validation.go (limits).
"""

from __future__ import annotations

from typing import Final

# --- labels, annotations, finalizers (k8s.io/api batch/v1 types.go) ----------------------------
LABEL_PREFIX: Final = "batch.kubernetes.io/"
JOB_NAME_LABEL: Final = "batch.kubernetes.io/job-name"
LEGACY_JOB_NAME_LABEL: Final = "job-name"
CONTROLLER_UID_LABEL: Final = "batch.kubernetes.io/controller-uid"
LEGACY_CONTROLLER_UID_LABEL: Final = "controller-uid"
# Both an annotation and (PodIndexLabel, GA 1.32) a label on the pods of Indexed Jobs.
JOB_COMPLETION_INDEX_ANNOTATION: Final = "batch.kubernetes.io/job-completion-index"
JOB_COMPLETION_INDEX_LABEL: Final = JOB_COMPLETION_INDEX_ANNOTATION
JOB_INDEX_FAILURE_COUNT_ANNOTATION: Final = "batch.kubernetes.io/job-index-failure-count"
JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION: Final = "batch.kubernetes.io/job-index-ignored-failure-count"
JOB_TRACKING_FINALIZER: Final = "batch.kubernetes.io/job-tracking"
CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION: Final = "batch.kubernetes.io/cronjob-scheduled-timestamp"
JOB_COMPLETION_INDEX_ENV: Final = "JOB_COMPLETION_INDEX"
# The reserved spec.managedBy value meaning "the built-in Job controller".
JOB_CONTROLLER_NAME: Final = "kubernetes.io/job-controller"


def external_manager(managed_by: str | None) -> str | None:
    """The ``spec.managedBy`` value when a controller other than the built-in Job controller manages
    the Job (KEP-4368: unset or ``kubernetes.io/job-controller`` means the built-in one), else ``None``."""
    return managed_by if managed_by is not None and managed_by != JOB_CONTROLLER_NAME else None

# --- enums -----------------------------------------------------------------------------------
COMPLETION_NON_INDEXED: Final = "NonIndexed"
COMPLETION_INDEXED: Final = "Indexed"
COMPLETION_MODES: Final = (COMPLETION_NON_INDEXED, COMPLETION_INDEXED)

POD_FAILURE_ACTION_FAIL_JOB: Final = "FailJob"
POD_FAILURE_ACTION_FAIL_INDEX: Final = "FailIndex"
POD_FAILURE_ACTION_IGNORE: Final = "Ignore"
POD_FAILURE_ACTION_COUNT: Final = "Count"
# Sorted, as upstream lists them in messages (sets.List).
POD_FAILURE_ACTIONS: Final = ("Count", "FailIndex", "FailJob", "Ignore")

EXIT_CODES_OP_IN: Final = "In"
EXIT_CODES_OP_NOT_IN: Final = "NotIn"
EXIT_CODES_OPERATORS: Final = (EXIT_CODES_OP_IN, EXIT_CODES_OP_NOT_IN)

CONDITION_TRUE: Final = "True"
CONDITION_FALSE: Final = "False"
CONDITION_UNKNOWN: Final = "Unknown"
CONDITION_STATUSES: Final = ("False", "True", "Unknown")  # sorted, as in upstream messages

POD_REPLACEMENT_FAILED: Final = "Failed"
POD_REPLACEMENT_TERMINATING_OR_FAILED: Final = "TerminatingOrFailed"
POD_REPLACEMENT_POLICIES: Final = (POD_REPLACEMENT_FAILED, POD_REPLACEMENT_TERMINATING_OR_FAILED)

CONCURRENCY_ALLOW: Final = "Allow"
CONCURRENCY_FORBID: Final = "Forbid"
CONCURRENCY_REPLACE: Final = "Replace"
CONCURRENCY_POLICIES: Final = (CONCURRENCY_ALLOW, CONCURRENCY_FORBID, CONCURRENCY_REPLACE)

RESTART_POLICY_NEVER: Final = "Never"
RESTART_POLICY_ON_FAILURE: Final = "OnFailure"
RESTART_POLICY_ALWAYS: Final = "Always"

# --- Job condition types and reasons ---------------------------------------------------------
JOB_SUSPENDED: Final = "Suspended"
JOB_COMPLETE: Final = "Complete"
JOB_FAILED: Final = "Failed"
JOB_FAILURE_TARGET: Final = "FailureTarget"
JOB_SUCCESS_CRITERIA_MET: Final = "SuccessCriteriaMet"

JOB_REASON_POD_FAILURE_POLICY: Final = "PodFailurePolicy"
JOB_REASON_BACKOFF_LIMIT_EXCEEDED: Final = "BackoffLimitExceeded"
JOB_REASON_DEADLINE_EXCEEDED: Final = "DeadlineExceeded"
JOB_REASON_MAX_FAILED_INDEXES_EXCEEDED: Final = "MaxFailedIndexesExceeded"
JOB_REASON_FAILED_INDEXES: Final = "FailedIndexes"
JOB_REASON_SUCCESS_POLICY: Final = "SuccessPolicy"
JOB_REASON_COMPLETIONS_REACHED: Final = "CompletionsReached"
JOB_REASON_SUSPENDED: Final = "JobSuspended"
JOB_REASON_RESUMED: Final = "JobResumed"

# --- limits (pkg/apis/batch/validation/validation.go) ----------------------------------------
MAX_PARALLELISM_FOR_INDEXED_JOB: Final = 100_000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB: Final = 100_000
COMPLETIONS_SOFT_LIMIT: Final = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS: Final = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS: Final = 10_000
MAX_POD_FAILURE_POLICY_RULES: Final = 20
MAX_POD_FAILURE_POLICY_EXIT_CODES: Final = 255
MAX_POD_FAILURE_POLICY_CONDITION_PATTERNS: Final = 20
MAX_MANAGED_BY_LENGTH: Final = 63
MAX_SUCCEEDED_INDEXES_LENGTH: Final = 64 * 1024
MAX_SUCCESS_POLICY_RULES: Final = 20
MAX_CRONJOB_NAME_LENGTH: Final = 52  # 63 minus the 11-character "-<timestamp>" suffix

# --- defaults (pkg/apis/batch/v1/defaults.go) ------------------------------------------------
DEFAULT_BACKOFF_LIMIT: Final = 6
MAX_INT32: Final = 2**31 - 1  # backoffLimit default when backoffLimitPerIndex is set
DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT: Final = 3
DEFAULT_FAILED_JOBS_HISTORY_LIMIT: Final = 1
