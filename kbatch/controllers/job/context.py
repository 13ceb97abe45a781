"""The snapshot one Job sync decides on: the Job, its Pods sorted, and what is derived from them.

Built once per sync by :func:`build_context` (upstream's ``syncJobCtx``, job_controller.go), then
read by the finishing, manage and tracking steps. Nothing here has effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from kbatch.api.batch_indexes import iter_indexes, parse_indexes_lenient
from kbatch.controllers.job.backoff import BackoffRecord, fold_backoff
from kbatch.controllers.job.classification import (
    annotation_count,
    finish_time,
    is_active,
    is_considered_failed,
    is_terminating,
    sidecar_names,
    valid_index,
)
from kbatch.controllers.job.failure_policy import match_pod_failure_policy
from kbatch.controllers.job.views import JobCondition, JobInfo, PodInfo

__all__ = ["SyncConfig", "SyncContext", "build_context", "is_index_failed"]

_MIN_TIME = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class SyncConfig:
    """Tunables, upstream's exported-for-tests variables (job_controller.go)."""

    max_pod_create_delete_per_sync: int = 500  # MaxPodCreateDeletePerSync
    max_uncounted_pods: int = 500  # MaxUncountedPods
    backoff_base: float = 10.0  # DefaultJobPodFailureBackOff
    backoff_cap: float = 600.0  # MaxJobPodFailureBackOff
    # MutableSchedulingDirectivesForSuspendedJobs (KEP-5440, beta, on since 1.36): a suspended
    # Job's ``status.startTime`` is cleared, so the deadline clock restarts on resume
    clear_start_time_when_suspended: bool = True


@dataclass(slots=True)
class SyncContext:
    job: JobInfo
    pods: list[PodInfo]
    now: datetime
    config: SyncConfig
    active: list[PodInfo] = field(default_factory=list)
    terminating: int = 0
    new_succeeded: list[PodInfo] = field(default_factory=list)
    new_failed: list[PodInfo] = field(default_factory=list)
    succeeded: int = 0
    failed: int = 0
    succeeded_indexes: set[int] = field(default_factory=set)
    prev_succeeded_indexes: set[int] = field(default_factory=set)
    failed_indexes: set[int] | None = None
    delayed_per_index: dict[int, PodInfo] = field(default_factory=dict)
    backoff: BackoffRecord = field(default_factory=BackoffRecord)
    finished_condition: JobCondition | None = None
    start_time: datetime | None = None
    sidecars: frozenset[str] = frozenset()  # the template's restartable init containers


def _sort_key(pod: PodInfo) -> tuple[datetime, str]:
    return (pod.creation_timestamp or _MIN_TIME, pod.name)


def _counted_candidates(ctx: SyncContext) -> list[PodInfo]:
    """Pods that can still be counted: tracking finalizer present, valid index if Indexed."""
    job = ctx.job
    out = []
    for pod in ctx.pods:
        if not pod.has_finalizer:
            continue
        if job.indexed and valid_index(pod, job.completions) is None:
            continue
        out.append(pod)
    return out


def is_index_failed(job: JobInfo, pod: PodInfo) -> bool:
    """Whether a failed pod fails its index (FailIndex rule, or the per-index limit reached)."""
    if job.pod_failure_policy is not None:
        match = match_pod_failure_policy(job.pod_failure_policy, pod)
        if match.action == "FailIndex":
            return True
        if not match.count_failed:
            return False
    return annotation_count(pod) >= (job.backoff_limit_per_index or 0)


def _non_ignored(job: JobInfo, pods: list[PodInfo]) -> int:
    if job.pod_failure_policy is None:
        return len(pods)
    return sum(1 for p in pods if match_pod_failure_policy(job.pod_failure_policy, p).count_failed)


def build_context(job: JobInfo, pods: list[PodInfo], now: datetime, backoff: BackoffRecord | None,
                  config: SyncConfig) -> SyncContext:
    ctx = SyncContext(job=job, pods=sorted(pods, key=_sort_key), now=now, config=config)
    status = job.status
    ctx.active = [p for p in ctx.pods if is_active(p)]
    ctx.terminating = sum(1 for p in ctx.pods if is_terminating(p))
    unc_s, unc_f = set(status.uncounted_succeeded), set(status.uncounted_failed)
    candidates = _counted_candidates(ctx)
    ctx.new_succeeded = [p for p in candidates if p.phase == "Succeeded" and p.uid not in unc_s]
    ctx.new_failed = [p for p in candidates if p.uid not in unc_f and is_considered_failed(p, job)]
    ctx.succeeded = status.succeeded + len(ctx.new_succeeded) + len(unc_s)
    ctx.failed = status.failed + _non_ignored(job, ctx.new_failed) + len(unc_f)
    ctx.sidecars = sidecar_names(job)
    ctx.backoff = fold_backoff(backoff, ctx.new_succeeded, ctx.new_failed, ctx.sidecars)
    ctx.start_time = status.start_time
    if job.indexed:
        _indexed_context(ctx, candidates)
    return ctx


def _indexed_context(ctx: SyncContext, candidates: list[PodInfo]) -> None:
    job = ctx.job
    completions = job.completions or 0
    prev = set(iter_indexes(parse_indexes_lenient(job.status.completed_indexes or "", completions)))
    ctx.prev_succeeded_indexes = prev
    new = {valid_index(p, completions) for p in candidates if p.phase == "Succeeded"}
    ctx.succeeded_indexes = prev | {ix for ix in new if ix is not None}
    ctx.succeeded = len(ctx.succeeded_indexes)
    if job.backoff_limit_per_index is None:
        return
    failed = set(iter_indexes(parse_indexes_lenient(job.status.failed_indexes or "", completions)))
    for pod in ctx.new_failed:
        if is_index_failed(job, pod):
            failed.add(valid_index(pod, completions))  # type: ignore[arg-type]
    ctx.failed_indexes = failed
    ctx.delayed_per_index = _delayed_per_index(ctx)


def _absolute_count(pod: PodInfo) -> int:
    return annotation_count(pod) + annotation_count(pod, ignored=True)


def _delayed_per_index(ctx: SyncContext) -> dict[int, PodInfo]:
    """The last failed pod of each index that is neither succeeded, failed nor active
    (``getPodsWithDelayedDeletionPerIndex``): its finalizer is kept until a replacement exists, so
    the replacement can inherit the failure counts."""
    job = ctx.job
    failed = ctx.failed_indexes or set()
    active = {valid_index(p, job.completions) for p in ctx.active}
    delayed: dict[int, PodInfo] = {}
    for pod in ctx.pods:
        if not pod.has_finalizer or not is_considered_failed(pod, job):
            continue
        ix = valid_index(pod, job.completions)
        if ix is None or ix in failed or ix in active or ix in ctx.succeeded_indexes:
            continue
        last = delayed.get(ix)
        if last is None or (_absolute_count(last) <= _absolute_count(pod)
                            and finish_time(pod, ctx.sidecars) >= finish_time(last, ctx.sidecars)):
            delayed[ix] = pod
    return delayed
