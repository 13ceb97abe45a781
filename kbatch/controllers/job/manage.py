"""``manageJob``: which pods to create or delete to move toward the wanted number of active pods.

Upstream: pkg/controller/job/job_controller.go (``manageJob``, ``activePodsForRemoval``,
``getPodCreationInfoForIndependentIndexes``), indexed_job_utils.go (``firstPendingIndexes``,
``appendDuplicatedIndexPodsForRemoval``, ``getNewIndexFailureCounts``).

* Suspended: delete every active pod (finalizer removed first: not counted as failures).
* wanted = ``parallelism`` for work-queue Jobs until the first success (then keep what runs), else
  ``min(parallelism, completions - succeeded)``.
* Too many active (or, Indexed, duplicate / out-of-range indexes): delete — and create nothing in
  the same sync. At most 500 per sync.
* Too few: create ``wanted - active - terminating(only when only failed pods are replaced)``, at
  most 500, unless the failure back-off is still running (then requeue when it ends).
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.controllers.job.actions import PodCreate, PodDelete
from kbatch.controllers.job.backoff import remaining_for_index, remaining_time
from kbatch.controllers.job.classification import (
    active_removal_key,
    annotation_count,
    completion_index,
    is_terminating,
    valid_index,
)
from kbatch.controllers.job.context import SyncContext
from kbatch.controllers.job.failure_policy import match_pod_failure_policy
from kbatch.controllers.job.pod_template import add_index_env
from kbatch.controllers.job.views import PodInfo

__all__ = ["ManageResult", "active_pods_for_removal", "creation_reason", "manage_job", "pending_indexes"]

_CREATED, _DELETED = "pods_created", "pods_deleted"  # metrics.JobSyncActionPodsCreated / ...Deleted


def creation_reason(ctx: SyncContext) -> str:
    """The ``reason`` label of job_pods_creation_total (``recordJobPodsCreationTotal``)."""
    if ctx.job.pod_replacement_policy == "Failed" and ctx.failed > 0:
        return "recreate_failed"
    if ctx.failed > 0 or ctx.terminating > 0:
        return "recreate_terminating_or_failed"
    return "new"


@dataclass(frozen=True, slots=True)
class ManageResult:
    """``action`` is the sync's metrics label (upstream ``manageJob``'s second result)."""

    creates: tuple[PodCreate, ...] = ()
    deletes: tuple[PodDelete, ...] = ()
    requeue_after: float | None = None
    action: str = "tracking"


def active_pods_for_removal(ctx: SyncContext, at_least: int) -> list[PodInfo]:
    """Indexed: pods without a valid index and all but one pod per index first; then by
    :func:`active_removal_key` until ``at_least`` are chosen."""
    job = ctx.job
    if at_least <= 0 and (not job.indexed or _distinct_valid_indexes(ctx.active, job.completions)):
        return []  # what the general path finds then, without grouping and sorting every sync
    return _pods_for_removal(ctx, at_least)


def _pods_for_removal(ctx: SyncContext, at_least: int) -> list[PodInfo]:
    job = ctx.job
    remove: list[PodInfo] = []
    left: list[PodInfo] = list(ctx.active)
    if job.indexed:
        by_index: dict[int, list[PodInfo]] = {}
        left = []
        for pod in ctx.active:
            ix = valid_index(pod, job.completions)
            if ix is None:
                remove.append(pod)
            else:
                by_index.setdefault(ix, []).append(pod)
        for ix in sorted(by_index):
            group = by_index[ix]
            if len(group) > 1:  # duplicates: keep the one that sorts last
                group.sort(key=active_removal_key)
                remove.extend(group[:-1])
            left.append(group[-1])
    if len(remove) < at_least:
        left.sort(key=active_removal_key)
        remove.extend(left[: at_least - len(remove)])
    return remove


def _distinct_valid_indexes(pods: list[PodInfo], completions: int | None) -> bool:
    """Whether every pod has a valid index and no two share one (no duplicate to remove)."""
    seen = {valid_index(p, completions) for p in pods}
    return len(seen) == len(pods) and None not in seen


def _wanted(ctx: SyncContext, active: int) -> int:
    job = ctx.job
    if job.completions is None:
        return active if ctx.succeeded > 0 else job.parallelism
    return max(0, min(job.parallelism, job.completions - ctx.succeeded))


def pending_indexes(ctx: SyncContext, count: int) -> list[int]:
    """The lowest ``count`` indexes that are not succeeded, active, failed or (when only failed
    pods are replaced) held by a terminating pod."""
    job = ctx.job
    taken = set(ctx.succeeded_indexes)
    taken.update(completion_index(p) for p in ctx.active)
    if ctx.failed_indexes:
        taken |= ctx.failed_indexes
    if job.only_replace_failed_pods:
        taken.update(completion_index(p) for p in ctx.pods if is_terminating(p))
    out: list[int] = []
    ix = 0
    completions = job.completions or 0
    while ix < completions and len(out) < count:
        if ix not in taken:
            out.append(ix)
        ix += 1
    return out


def _failure_counts(ctx: SyncContext, replaced: PodInfo | None) -> tuple[int, int]:
    if replaced is None:
        return 0, 0
    failures, ignored = annotation_count(replaced), annotation_count(replaced, ignored=True)
    rules = ctx.job.pod_failure_policy
    if rules is not None and not match_pod_failure_policy(rules, replaced).count_failed:
        return failures, ignored + 1
    return failures + 1, ignored


def _deletes(pods: list[PodInfo], remove_finalizer: bool) -> tuple[PodDelete, ...]:
    return tuple(PodDelete(p.name, p.uid, remove_finalizer, p.ready) for p in pods)


def _indexed_creates(ctx: SyncContext, diff: int) -> ManageResult:
    job = ctx.job
    indexes = pending_indexes(ctx, diff)
    template = _template_with_index_env(ctx)
    if job.backoff_limit_per_index is None:
        return ManageResult(creates=tuple(PodCreate(ix, job, template) for ix in indexes), action=_CREATED)
    creates, wait = [], None
    for ix in indexes:
        last = ctx.delayed_per_index.get(ix)
        remaining = remaining_for_index(last, ctx.now, ctx.config.backoff_base, ctx.config.backoff_cap,
                                        ctx.sidecars)
        if remaining > 0:
            wait = remaining if wait is None else min(wait, remaining)
            continue
        counts = _failure_counts(ctx, last)
        creates.append(PodCreate(ix, job, template, counts))
    return ManageResult(creates=tuple(creates), requeue_after=wait, action=_CREATED)


def _template_with_index_env(ctx: SyncContext) -> dict:
    # The env var is the same for every index: add it once, then copy per pod.
    return add_index_env(ctx.job.template)


def manage_job(ctx: SyncContext) -> ManageResult:
    """Decide creations/deletions. ``ctx.active`` is the current active set."""
    job, cfg = ctx.job, ctx.config
    active = len(ctx.active)
    if job.suspend:
        return ManageResult(deletes=_deletes(active_pods_for_removal(ctx, active), True), action=_DELETED)
    wanted = _wanted(ctx, active)
    to_delete = active_pods_for_removal(ctx, max(0, active - wanted))[: cfg.max_pod_create_delete_per_sync]
    if to_delete:
        return ManageResult(deletes=_deletes(to_delete, True), action=_DELETED)
    terminating = ctx.terminating if job.only_replace_failed_pods else 0
    diff = wanted - terminating - active
    if diff <= 0:
        return ManageResult()
    if job.backoff_limit_per_index is None:
        wait = remaining_time(ctx.backoff, ctx.now, cfg.backoff_base, cfg.backoff_cap)
        if wait > 0:
            return ManageResult(requeue_after=wait, action=_CREATED)
    diff = min(diff, cfg.max_pod_create_delete_per_sync)
    if job.indexed:
        return _indexed_creates(ctx, diff)
    return ManageResult(creates=(PodCreate(None, job, job.template),) * diff, action=_CREATED)
