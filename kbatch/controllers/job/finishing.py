"""Choosing the condition that ends a Job, before any pod is touched (job_controller.go ``syncJob``).

First hit wins:

a. ``SuccessCriteriaMet=True`` already present → the Job stays on the success path;
b. ``FailureTarget=True`` already present → it will become ``Failed`` with the same reason;
c. a failed pod matches a ``FailJob`` rule → ``FailureTarget`` / ``PodFailurePolicy``;
d. ``failed > backoffLimit``, or (OnFailure) container restarts reach it → ``BackoffLimitExceeded``;
e. not suspended and active for ``activeDeadlineSeconds`` → ``DeadlineExceeded``;
f. (backoffLimitPerIndex) too many failed indexes → ``MaxFailedIndexesExceeded``; or some failed
   and all indexes finished → ``FailedIndexes``;
g. (Indexed) a successPolicy rule matches → ``SuccessCriteriaMet`` / ``SuccessPolicy``.

Failures are recorded as the interim ``FailureTarget`` (KEP-4368 / kubernetes#125510, every gate on).
"""

from __future__ import annotations

from kbatch.controllers.job.classification import is_considered_failed, restart_count_sum
from kbatch.controllers.job.conditions import new_condition
from kbatch.controllers.job.context import SyncContext
from kbatch.controllers.job.failure_policy import match_pod_failure_policy
from kbatch.controllers.job.success_policy import match_success_policy
from kbatch.controllers.job.views import JobCondition

__all__ = ["choose_finished_condition", "deadline_remaining"]

BACKOFF_MESSAGE = "Job has reached the specified backoff limit"
DEADLINE_MESSAGE = "Job was active longer than specified deadline"
MAX_FAILED_INDEXES_MESSAGE = "Job has exceeded the specified maximal number of failed indexes"
FAILED_INDEXES_MESSAGE = "Job has failed indexes"


def _fail_job_message(ctx: SyncContext) -> str | None:
    rules = ctx.job.pod_failure_policy
    if rules is None:
        return None
    for pod in ctx.pods:
        if is_considered_failed(pod, ctx.job):
            match = match_pod_failure_policy(rules, pod)
            if match.action == "FailJob":
                return match.message
    return None


def _past_backoff_on_failure(ctx: SyncContext) -> bool:
    if ctx.job.restart_policy != "OnFailure":
        return False
    restarts = restart_count_sum(ctx.pods)
    limit = ctx.job.backoff_limit
    return restarts > 0 if limit == 0 else restarts >= limit


def deadline_remaining(ctx: SyncContext) -> float | None:
    """Seconds until activeDeadlineSeconds (<= 0: passed); None when it does not apply."""
    job = ctx.job
    if job.active_deadline_seconds is None or ctx.start_time is None or job.suspend:
        return None
    elapsed = (ctx.now - ctx.start_time).total_seconds()
    return job.active_deadline_seconds - elapsed


def _failure(ctx: SyncContext, reason: str, message: str) -> JobCondition:
    return new_condition("FailureTarget", "True", reason, message, ctx.now)


def _existing(ctx: SyncContext) -> JobCondition | None:
    status = ctx.job.status
    scm = status.condition("SuccessCriteriaMet")
    if scm is not None and scm.status == "True":
        return scm
    ft = status.condition("FailureTarget")
    if ft is not None and ft.status == "True":
        return ft
    message = _fail_job_message(ctx)
    if message is not None:
        return _failure(ctx, "PodFailurePolicy", message)
    return None


def _indexed(ctx: SyncContext) -> JobCondition | None:
    job = ctx.job
    completions = job.completions or 0
    if ctx.failed_indexes is not None:
        n_failed = len(ctx.failed_indexes)
        if job.max_failed_indexes is not None and n_failed > job.max_failed_indexes:
            return _failure(ctx, "MaxFailedIndexesExceeded", MAX_FAILED_INDEXES_MESSAGE)
        if n_failed > 0 and n_failed + len(ctx.succeeded_indexes) >= completions:
            return _failure(ctx, "FailedIndexes", FAILED_INDEXES_MESSAGE)
    message = match_success_policy(job.success_policy, completions, ctx.succeeded_indexes)
    if message is not None:
        return new_condition("SuccessCriteriaMet", "True", "SuccessPolicy", message, ctx.now)
    return None


def choose_finished_condition(ctx: SyncContext) -> tuple[JobCondition | None, float | None]:
    """The finishing condition (or None) and, if the deadline is pending, seconds until it."""
    cond = _existing(ctx)
    wait: float | None = None
    if cond is None:
        remaining = deadline_remaining(ctx)
        if ctx.failed > ctx.job.backoff_limit or _past_backoff_on_failure(ctx):
            cond = _failure(ctx, "BackoffLimitExceeded", BACKOFF_MESSAGE)
        elif remaining is not None and remaining <= 0:
            cond = _failure(ctx, "DeadlineExceeded", DEADLINE_MESSAGE)
        elif remaining is not None:
            wait = remaining
    if cond is None and ctx.job.indexed:
        cond = _indexed(ctx)
    return cond, wait
