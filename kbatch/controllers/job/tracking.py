"""Counting finished pods through the ``job-tracking`` finalizer (KEP-2307; upstream
job_controller.go ``trackJobStatusAndRemoveFinalizers``, ``flushUncountedAndRemoveFinalizers``,
``cleanUncountedPodsWithoutFinalizers``, ``enactJobFinished``).

Two phases, so that no pod is counted twice or lost:

1. :func:`record_finished` — each finished pod still holding the finalizer is *recorded*:
   NonIndexed successes and all counted failures by uid in ``status.uncountedTerminatedPods``,
   Indexed successes straight into ``completedIndexes``. That status is written first.
2. The finalizers are removed; then :func:`flush_uncounted` moves every recorded uid whose pod
   no longer holds the finalizer into ``succeeded``/``failed``, and :func:`enact_finished` adds the
   terminal condition once nothing is uncounted and no pod is terminating.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from operator import attrgetter

from kbatch.api.batch_indexes import format_indexes
from kbatch.controllers.job.actions import Event
from kbatch.controllers.job.classification import is_considered_failed, valid_index
from kbatch.controllers.job.conditions import ensure_condition, terminal_for
from kbatch.controllers.job.context import SyncContext
from kbatch.controllers.job.failure_policy import match_pod_failure_policy
from kbatch.controllers.job.views import JobCondition, JobStatusInfo, PodInfo

__all__ = ["Recorded", "enact_finished", "flush_uncounted", "record_finished"]

_FAILURE_TYPES = ("FailureTarget", "Failed")


class Recorded:
    """Result of phase 1: the pods to release, the new uncounted lists, the indexes."""

    __slots__ = ("cap_reached", "completed_count", "completed_indexes", "failed_indexes", "policy_actions",
                 "to_release", "uncounted_failed", "uncounted_succeeded")

    def __init__(self) -> None:
        self.to_release: list[PodInfo] = []
        self.uncounted_succeeded: list[str] = []
        self.uncounted_failed: list[str] = []
        self.completed_indexes: str = ""
        self.completed_count = 0
        self.failed_indexes: str | None = None
        self.cap_reached = False
        self.policy_actions: dict[str, int] = {}  # podFailureCountByPolicyAction (metrics)


def _can_release(ctx: SyncContext, pod: PodInfo, failed: bool) -> bool:
    job = ctx.job
    if job.deletion_timestamp is not None or ctx.finished_condition is not None or pod.phase == "Succeeded":
        return True
    if not failed:
        return False
    if job.backoff_limit_per_index is not None:
        ix = valid_index(pod, job.completions)
        delayed = ctx.delayed_per_index.get(ix) if ix is not None else None
        if delayed is not None and delayed.uid == pod.uid:
            return False
    return True


def _counts_as_failure(ctx: SyncContext, pod: PodInfo, rec: Recorded) -> bool:
    """Whether a failed pod counts; a matched podFailurePolicy action is tallied for the metrics."""
    rules = ctx.job.pod_failure_policy
    if rules is None:
        return True
    match = match_pod_failure_policy(rules, pod)
    if match.action is not None:
        rec.policy_actions[match.action] = rec.policy_actions.get(match.action, 0) + 1
    return match.count_failed


_INDEX = attrgetter("index")


def record_finished(ctx: SyncContext, skip_uids: set[str], status: JobStatusInfo) -> Recorded:
    """Phase 1 over ``status``, whose uncounted uids without a finalizer were already counted
    (:func:`flush_uncounted` first, as upstream's ``cleanUncountedPodsWithoutFinalizers``)."""
    job = ctx.job
    rec = Recorded()
    rec.uncounted_succeeded = list(status.uncounted_succeeded)
    rec.uncounted_failed = list(status.uncounted_failed)
    # whether a uid was uncounted when the sync began (upstream's jobCtx.uncounted)
    unc_s, unc_f = set(ctx.job.status.uncounted_succeeded), set(ctx.job.status.uncounted_failed)
    failing = ctx.finished_condition is not None and ctx.finished_condition.type in _FAILURE_TYPES
    new_indexes: set[int] = set()
    index_appends = 0  # upstream's len(newSucceededIndexes): an index may be appended twice
    # Indexed: pods in completion-index order (unknown first; creation order among equals), so
    # under the per-sync cap the lowest indexes are recorded first (byCompletionIndex).
    pods = sorted(ctx.pods, key=_INDEX) if job.indexed else ctx.pods
    for pod in pods:
        if not pod.has_finalizer or pod.uid in skip_uids:
            continue
        failed = is_considered_failed(pod, job)
        if not _can_release(ctx, pod, failed):
            continue
        rec.to_release.append(pod)
        ix = valid_index(pod, job.completions) if job.indexed else None
        if pod.phase == "Succeeded" and pod.uid not in unc_f:
            if job.indexed:
                if ix is not None and ix not in ctx.prev_succeeded_indexes:
                    new_indexes.add(ix)
                    index_appends += 1
            elif pod.uid not in unc_s:
                rec.uncounted_succeeded.append(pod.uid)
        elif ((failed or (failing and not pod.terminal)) and pod.uid not in unc_f
              and (not job.indexed or ix is not None) and _counts_as_failure(ctx, pod, rec)):
            rec.uncounted_failed.append(pod.uid)
        # MaxUncountedPods bounds the whole list, the uids uncounted from earlier syncs included
        # (upstream: len(newSucceededIndexes)+len(uncounted.Succeeded)+len(uncounted.Failed)).
        if index_appends + len(rec.uncounted_succeeded) + len(rec.uncounted_failed) >= \
                ctx.config.max_uncounted_pods:
            rec.cap_reached = True
            break
    if job.indexed:
        done = ctx.prev_succeeded_indexes | new_indexes
        rec.completed_indexes = format_indexes(done)
        rec.completed_count = len(done)
    if ctx.failed_indexes is not None:
        rec.failed_indexes = format_indexes(ctx.failed_indexes)
    return rec


def flush_uncounted(status: JobStatusInfo, with_finalizer: frozenset[str] | set[str]) -> JobStatusInfo:
    """Move uncounted uids whose pods no longer hold the finalizer (or are gone) into the counters."""
    keep_s = tuple(u for u in status.uncounted_succeeded if u in with_finalizer)
    keep_f = tuple(u for u in status.uncounted_failed if u in with_finalizer)
    moved_s = len(status.uncounted_succeeded) - len(keep_s)
    moved_f = len(status.uncounted_failed) - len(keep_f)
    if not moved_s and not moved_f:
        return status
    return replace(status, succeeded=status.succeeded + moved_s, failed=status.failed + moved_f,
                   uncounted_succeeded=keep_s, uncounted_failed=keep_f)


def enact_finished(status: JobStatusInfo, cond: JobCondition | None, now: datetime,
                   completions: int | None) -> tuple[JobStatusInfo, tuple[Event, ...]]:
    """Add the terminal Complete/Failed once nothing is uncounted and nothing is terminating."""
    if cond is None or status.uncounted_succeeded or status.uncounted_failed:
        return status, ()
    if status.terminating:
        return status, ()
    final = terminal_for(cond, now)
    conditions, _ = ensure_condition(status.conditions, final.type, "True", final.reason,
                                     final.message, now)
    events: list[Event] = []
    if final.type == "Complete":  # recordJobFinished: the warning comes before "Completed"
        if completions is not None and status.succeeded > completions:
            events.append(Event("Warning", "TooManySucceededPods",
                                "Too many succeeded pods running after completion count reached"))
        events.append(Event("Normal", "Completed", "Job completed"))
        status = replace(status, conditions=conditions, completion_time=now)
    else:
        events.append(Event("Warning", final.reason, final.message))
        status = replace(status, conditions=conditions)
    return status, tuple(events)
