"""batch/v1 Job status validation (pkg/apis/batch/validation/validation.go ``validateJobStatus``,
``ValidateJobStatusUpdate``; options as pkg/registry/batch/job/strategy.go
``getStatusValidationOptions`` with JobManagedBy on).

Most rules apply only when the status fields they look at change, so that a controller can repair a
status that a spec update made inconsistent (e.g. completedIndexes beyond a reduced completions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kbatch.api import batch_constants as bc
from kbatch.api.base import format_time
from kbatch.api.batch_indexes import IndexesError, first_overlap, parse_indexes
from kbatch.api.batch_v1 import Job, JobStatus
from kbatch.api.errors import FieldError
from kbatch.api.strategies.batch.validation import Errors, _non_negative, _omitted

__all__ = [
    "JobStatusOptions",
    "status_validation_options",
    "validate_job_status",
    "validate_job_status_update",
]


# =============================================================================================
# Job status validation (validateJobStatus, ValidateJobStatusUpdate; JobManagedBy on)
# =============================================================================================


@dataclass(frozen=True, slots=True)
class JobStatusOptions:
    """upstream ``JobStatusValidationOptions``; each flag turns one rule on."""

    reject_decreasing_succeeded: bool = False
    reject_decreasing_failed: bool = False
    reject_disabling_terminal_condition: bool = False
    reject_invalid_completed_indexes: bool = False
    reject_invalid_failed_indexes: bool = False
    reject_failed_indexes_overlapping_completed: bool = False
    reject_completed_indexes_for_non_indexed: bool = False
    reject_failed_indexes_without_per_index_limit: bool = False
    reject_failed_without_failure_target: bool = False
    reject_complete_without_success_criteria_met: bool = False
    reject_finished_with_active_pods: bool = False
    reject_finished_without_start_time: bool = False
    reject_finished_with_uncounted_pods: bool = False
    reject_start_time_update_when_unsuspended: bool = False
    reject_completion_time_before_start_time: bool = False
    reject_mutating_completion_time: bool = False
    reject_complete_without_completion_time: bool = False
    reject_not_complete_with_completion_time: bool = False
    reject_complete_with_failed: bool = False
    reject_complete_with_failure_target: bool = False
    reject_more_ready_than_active: bool = False
    reject_finished_with_terminating_pods: bool = False


def _status(job: Job) -> JobStatus:
    return job.status if job.status is not None else JobStatus()


def _true_types(status: JobStatus) -> frozenset[str]:
    """The condition types ``status.is_true`` holds for (the first condition of a type decides), in one
    pass: the rules below ask ~25 such questions per status write."""
    first: dict[str, str] = {}
    for c in status.conditions or ():
        first.setdefault(c.type, c.status)
    return frozenset(t for t, value in first.items() if value == "True")


def _finished(true: frozenset[str]) -> bool:
    return bc.JOB_COMPLETE in true or bc.JOB_FAILED in true


def _uncounted_key(uncounted: Any) -> Any:
    """What ``_prune(uncounted.to_dict())`` compares: absent struct vs. its two lists, None and [] alike."""
    if uncounted is None:
        return None
    return (tuple(uncounted.succeeded or ()), tuple(uncounted.failed or ()))


def status_validation_options(new: Job, old: Job) -> JobStatusOptions:
    """``getStatusValidationOptions`` with JobManagedBy on: most rules apply only when the fields
    they look at change, so a controller can repair a status a spec update made inconsistent."""
    ns, os_ = _status(new), _status(old)
    indexed = new.spec.completion_mode == bc.COMPLETION_INDEXED
    new_true, old_true = _true_types(ns), _true_types(os_)

    def flipped(type_: str) -> bool:
        return (type_ in new_true) != (type_ in old_true)

    finished = _finished(new_true) != _finished(old_true)
    complete, failed, target = (
        flipped(bc.JOB_COMPLETE),
        flipped(bc.JOB_FAILED),
        flipped(bc.JOB_FAILURE_TARGET),
    )
    completed_idx = (ns.completed_indexes or "") != (os_.completed_indexes or "")
    failed_idx = ns.failed_indexes != os_.failed_indexes
    start, completion = ns.start_time != os_.start_time, ns.completion_time != os_.completion_time
    uncounted = _uncounted_key(ns.uncounted_terminated_pods) != _uncounted_key(os_.uncounted_terminated_pods)
    return JobStatusOptions(
        reject_decreasing_succeeded=not indexed or new.spec.completions != new.spec.parallelism,
        reject_decreasing_failed=True,
        reject_disabling_terminal_condition=True,
        reject_invalid_completed_indexes=completed_idx,
        reject_invalid_failed_indexes=failed_idx,
        reject_completed_indexes_for_non_indexed=completed_idx,
        reject_failed_indexes_without_per_index_limit=failed_idx,
        reject_failed_indexes_overlapping_completed=failed_idx or completed_idx,
        reject_finished_with_active_pods=finished or (ns.active or 0) != (os_.active or 0),
        reject_finished_without_start_time=(finished or start) and not _suspended_with_zero_completions(new),
        reject_finished_with_uncounted_pods=finished or uncounted,
        reject_start_time_update_when_unsuspended=start,
        reject_completion_time_before_start_time=start or completion,
        reject_mutating_completion_time=True,
        reject_not_complete_with_completion_time=complete or completion,
        reject_complete_without_completion_time=complete or completion,
        reject_complete_with_failed=complete or failed,
        reject_complete_with_failure_target=complete or target,
        reject_failed_without_failure_target=failed or target,
        reject_complete_without_success_criteria_met=complete or flipped(bc.JOB_SUCCESS_CRITERIA_MET),
        reject_more_ready_than_active=(ns.ready or 0) != (os_.ready or 0)
        or (ns.active or 0) != (os_.active or 0),
        reject_finished_with_terminating_pods=finished or (ns.terminating or 0) != (os_.terminating or 0),
    )


def _suspended_with_zero_completions(job: Job) -> bool:
    """``isSuspendedWithZeroCompletions`` (kubernetes#132614, fixing the 1.32 regression
    kubernetes#132144): a Job created suspended with ``completions: 0`` is Complete at once and never
    gets a ``startTime``, so the "finished needs startTime" rule does not apply to it."""
    return job.spec.suspend is True and job.spec.completions == 0


def _validate_status_counters(status: JobStatus, path: str) -> Errors:
    errs: Errors = []
    for name in ("active", "succeeded", "failed", "ready", "terminating"):
        errs += _non_negative(getattr(status, name), f"{path}.{name}")
    uncounted = status.uncounted_terminated_pods
    if uncounted is not None:
        seen: set[str] = set()
        for kind in ("succeeded", "failed"):
            for i, uid in enumerate(getattr(uncounted, kind) or ()):
                p = f"{path}.uncountedTerminatedPods.{kind}[{i}]"
                if not uid:
                    errs.append(FieldError.invalid(p, uid, "must not be empty"))
                elif uid in seen:
                    errs.append(FieldError.duplicate(p, uid))
                else:
                    seen.add(uid)
    return errs


def _validate_status_conditions(job: Job, path: str, opts: JobStatusOptions) -> Errors:
    spec, true = job.spec, _true_types(_status(job))
    complete, failed = bc.JOB_COMPLETE in true, bc.JOB_FAILED in true
    target, scm = bc.JOB_FAILURE_TARGET in true, bc.JOB_SUCCESS_CRITERIA_MET in true
    cond = f"{path}.conditions"
    checks = [
        (
            opts.reject_complete_with_failed and complete and failed,
            "cannot set Complete=True and Failed=true conditions",
        ),
        (
            opts.reject_complete_with_failure_target and complete and target,
            "cannot set Complete=True and FailureTarget=true conditions",
        ),
        (
            opts.reject_failed_without_failure_target and failed and not target,
            "cannot set Failed=True condition without the FailureTarget=true condition",
        ),
        (
            opts.reject_complete_without_success_criteria_met and complete and not scm,
            "cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
        ),
        (scm and failed, "cannot set SuccessCriteriaMet=True and Failed=true conditions"),
        (scm and target, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"),
        (
            spec.success_policy is not None and not scm and complete,
            "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True",
        ),
    ]
    return [_omitted(cond, detail) for bad, detail in checks if bad]


def _validate_status_times(job: Job, path: str, opts: JobStatusOptions) -> Errors:
    status = _status(job)
    true = _true_types(status)
    complete, finished = bc.JOB_COMPLETE in true, _finished(true)
    errs: Errors = []
    if opts.reject_not_complete_with_completion_time and status.completion_time is not None and not complete:
        errs.append(
            FieldError.invalid(
                f"{path}.completionTime",
                _time(status.completion_time),
                "cannot set completionTime when there is no Complete=True condition",
            )
        )
    if opts.reject_complete_without_completion_time and status.completion_time is None and complete:
        errs.append(
            FieldError.required(f"{path}.completionTime", "completionTime is required for Complete jobs")
        )
    if (
        opts.reject_completion_time_before_start_time
        and status.start_time
        and status.completion_time
        and status.completion_time < status.start_time
    ):
        errs.append(
            FieldError.invalid(
                f"{path}.completionTime",
                _time(status.completion_time),
                "completionTime cannot be set before startTime",
            )
        )
    if opts.reject_finished_with_active_pods and (status.active or 0) > 0 and finished:
        errs.append(
            FieldError.invalid(f"{path}.active", status.active, "active>0 is invalid for finished job")
        )
    if opts.reject_finished_without_start_time and status.start_time is None and finished:
        errs.append(FieldError.required(f"{path}.startTime", "startTime is required for finished job"))
    uncounted = status.uncounted_terminated_pods
    if (
        opts.reject_finished_with_uncounted_pods
        and finished
        and uncounted is not None
        and (uncounted.failed or uncounted.succeeded)
    ):
        errs.append(
            FieldError.invalid(
                f"{path}.uncountedTerminatedPods",
                uncounted.to_dict(),
                "uncountedTerminatedPods needs to be empty for finished job",
            )
        )
    if opts.reject_finished_with_terminating_pods and (status.terminating or 0) > 0 and finished:
        errs.append(
            FieldError.invalid(
                f"{path}.terminating", status.terminating, "terminating>0 is invalid for finished job"
            )
        )
    if (
        opts.reject_more_ready_than_active
        and status.ready is not None
        and status.ready > (status.active or 0)
    ):
        errs.append(
            FieldError.invalid(f"{path}.ready", status.ready, "cannot set more ready pods than active")
        )
    return errs


def _time(value: Any) -> str:
    return format_time(value)


def _validate_status_indexes(job: Job, path: str, opts: JobStatusOptions) -> Errors:
    status, spec = _status(job), job.spec
    completed, failed_idx = status.completed_indexes or "", status.failed_indexes
    errs: Errors = []
    if opts.reject_invalid_completed_indexes and spec.completions is not None:
        try:
            parse_indexes(completed, spec.completions)
        except IndexesError as err:
            errs.append(
                FieldError.invalid(
                    f"{path}.completedIndexes", completed, f"error parsing completedIndexes: {err}"
                )
            )
    if (
        opts.reject_invalid_failed_indexes
        and spec.completions is not None
        and spec.backoff_limit_per_index is not None
        and failed_idx is not None
    ):
        try:
            parse_indexes(failed_idx, spec.completions)
        except IndexesError as err:
            errs.append(
                FieldError.invalid(f"{path}.failedIndexes", failed_idx, f"error parsing failedIndexes: {err}")
            )
    if (
        opts.reject_completed_indexes_for_non_indexed
        and completed
        and spec.completion_mode != bc.COMPLETION_INDEXED
    ):
        errs.append(
            FieldError.invalid(
                f"{path}.completedIndexes",
                completed,
                "cannot set non-empty completedIndexes when non-indexed completion mode",
            )
        )
    if (
        opts.reject_failed_indexes_without_per_index_limit
        and spec.backoff_limit_per_index is None
        and failed_idx is not None
    ):
        errs.append(
            FieldError.invalid(
                f"{path}.failedIndexes",
                failed_idx,
                "cannot set non-null failedIndexes when backoffLimitPerIndex is null",
            )
        )
    if (
        opts.reject_failed_indexes_overlapping_completed
        and spec.completions is not None
        and failed_idx is not None
    ):
        overlap = first_overlap(completed, failed_idx, spec.completions)
        if overlap is not None:
            errs.append(
                FieldError.invalid(
                    f"{path}.failedIndexes",
                    failed_idx,
                    f"failedIndexes and completedIndexes overlap at index: {overlap}",
                )
            )
    return errs


def validate_job_status(job: Job, opts: JobStatusOptions | None = None, path: str = "status") -> Errors:
    """``validateJobStatus``: counters, uncounted pods, and the condition/time/index invariants."""
    opts = opts or JobStatusOptions()
    return (
        _validate_status_counters(_status(job), path)
        + _validate_status_conditions(job, path, opts)
        + _validate_status_times(job, path, opts)
        + _validate_status_indexes(job, path, opts)
    )


def validate_job_status_update(new: Job, old: Job) -> Errors:
    """``ValidateJobStatusUpdate``: the status rules plus the transition rules (terminal
    conditions stay, counters do not decrease, times are not rewritten)."""
    opts = status_validation_options(new, old)
    errs = validate_job_status(new, opts)
    ns, os_ = _status(new), _status(old)
    new_true, old_true = _true_types(ns), _true_types(os_)
    cond = "status.conditions"
    if opts.reject_disabling_terminal_condition:
        for type_ in (bc.JOB_FAILED, bc.JOB_COMPLETE, bc.JOB_FAILURE_TARGET):
            if type_ in old_true and type_ not in new_true:
                errs.append(_omitted(cond, f"cannot disable the terminal {type_}=True condition"))
    if opts.reject_decreasing_failed and (ns.failed or 0) < (os_.failed or 0):
        errs.append(FieldError.invalid("status.failed", ns.failed or 0, "cannot decrease the failed counter"))
    if opts.reject_decreasing_succeeded and (ns.succeeded or 0) < (os_.succeeded or 0):
        errs.append(
            FieldError.invalid("status.succeeded", ns.succeeded or 0, "cannot decrease the succeeded counter")
        )
    if (
        opts.reject_mutating_completion_time
        and ns.completion_time
        and os_.completion_time
        and ns.completion_time != os_.completion_time
    ):
        errs.append(
            FieldError.invalid(
                "status.completionTime", _time(ns.completion_time), "completionTime cannot be mutated"
            )
        )
    if (
        opts.reject_start_time_update_when_unsuspended
        and os_.start_time is not None
        and os_.start_time != ns.start_time
        and not new.spec.suspend
        and not _resuming(old_true, ns)
    ):
        errs.append(
            FieldError.required("status.startTime", "startTime cannot be removed for unsuspended job")
        )
    scm_new, scm_old = bc.JOB_SUCCESS_CRITERIA_MET in new_true, bc.JOB_SUCCESS_CRITERIA_MET in old_true
    if scm_old and not scm_new:
        errs.append(_omitted(cond, "cannot disable the SuccessCriteriaMet=True condition"))
    if bc.JOB_COMPLETE in old_true and not scm_old and scm_new:
        errs.append(
            _omitted(cond, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions")
        )
    return errs


def _resuming(old_true: frozenset[str], new: JobStatus) -> bool:
    """Suspended goes True -> False: the controller may move startTime while resuming.

    Upstream kubernetes#134769 (v1.34.2, backported to 1.32.10/1.33.6) allows this update; before
    the fix, a Job resumed after it had started and been suspended wedged with "startTime cannot be
    removed for unsuspended job". The new condition must say False (strategy.go ``isJobResuming``,
    ``IsConditionFalse``): a write that drops the condition is not a resume.
    """
    first = next((c.status for c in new.conditions or () if c.type == bc.JOB_SUSPENDED), None)
    return bc.JOB_SUSPENDED in old_true and first == "False"
