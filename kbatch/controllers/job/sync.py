"""The Job sync decision: Job + its Pods + now → a :class:`SyncPlan` (upstream job_controller.go
``syncJob``, every Job feature gate on, Kubernetes 1.34).

Steps, as upstream orders them:

1. Skip Jobs managed by another controller (``spec.managedBy``), and finished Jobs (for those only
   the tracking finalizers left on their pods are released: the orphan cleanup).
2. Snapshot (``context.py``): active / terminating pods, newly finished pods, counters, indexes,
   back-off record; ``startTime`` = now when unset and not suspended.
3. Choose a finishing condition (``finishing.py``).
4. Finishing: delete every active pod. Otherwise (Job not being deleted) ``manage_job`` decides
   creations/deletions; then normal completion (``SuccessCriteriaMet``/``CompletionsReached``) and
   the ``Suspended`` condition (JobSuspended / JobResumed, startTime reset on resume).
5. Record finished pods (``tracking.py``); the caller writes that status, removes finalizers and
   calls :func:`complete_sync` for the final status and terminal condition.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from kbatch.api.batch_constants import COMPLETION_MODES, external_manager
from kbatch.controllers.job.actions import Event, PodDelete, SyncPlan
from kbatch.controllers.job.backoff import BackoffRecord
from kbatch.controllers.job.conditions import ensure_condition, new_condition
from kbatch.controllers.job.context import SyncConfig, SyncContext, build_context
from kbatch.controllers.job.finishing import choose_finished_condition
from kbatch.controllers.job.manage import creation_reason, manage_job
from kbatch.controllers.job.tracking import enact_finished, flush_uncounted, record_finished
from kbatch.controllers.job.views import JobInfo, JobStatusInfo, PodInfo

__all__ = ["SyncConfig", "complete_sync", "sync_job", "sync_job_fully"]

COMPLETIONS_REACHED_MESSAGE = "Reached expected number of succeeded pods"


def _min(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _finished_cleanup(pods: list[PodInfo]) -> SyncPlan:
    release = tuple(sorted((p for p in pods if p.has_finalizer), key=lambda p: p.name))
    return SyncPlan(skip="Finished", finalizers_to_remove=release)


def _suspend_condition(ctx: SyncContext, status: JobStatusInfo) -> tuple[JobStatusInfo, list[Event]]:
    now = ctx.now
    if ctx.job.suspend:
        conds, changed = ensure_condition(status.conditions, "Suspended", "True", "JobSuspended",
                                          "Job suspended", now)
        if ctx.config.clear_start_time_when_suspended:
            # KEP-5440 ("Related changes"; the Job page's "Suspending a Job"): the deadline clock is
            # stopped and reset, and the template may change while the Job is suspended
            status = replace(status, start_time=None)
        if changed:
            return replace(status, conditions=conds), [Event("Normal", "Suspended", "Job suspended")]
        return status, []
    conds, changed = ensure_condition(status.conditions, "Suspended", "False", "JobResumed",
                                      "Job resumed", now)
    if changed:
        # Resuming restarts the activeDeadlineSeconds clock (KEP-2232).
        return (replace(status, conditions=conds, start_time=now),
                [Event("Normal", "Resumed", "Job resumed")])
    return status, []


def sync_job(job: JobInfo, pods: list[PodInfo], now: datetime, backoff: BackoffRecord | None = None,
             config: SyncConfig | None = None, *, deletes_failed: bool = False) -> SyncPlan:
    """Decide one sync of ``job``. ``pods`` are the pods the Job controls (after adoption).

    ``deletes_failed``: this sync's pod deletes did not all succeed (the caller re-plans with it).
    On the finishing path (upstream ``syncJob``: "Can't declare the Job as finished yet",
    ``deleted != active``) the finishing condition is dropped for this sync — no interim
    ``FailureTarget``/``SuccessCriteriaMet`` is written and the active pods are not counted failed.
    On manageJob's path the pod not deleted stays active (``active -= removed``), so
    ``CompletionsReached`` is not met either (``complete`` needs ``active == 0``) and the
    ``Suspended`` condition is reconciled instead, as upstream. The next sync decides again."""
    if external_manager(job.managed_by) is not None:
        return SyncPlan(skip="ManagedExternally")
    if job.finished:
        return _finished_cleanup(pods)
    if job.completion_mode not in COMPLETION_MODES:
        return SyncPlan(skip="UnknownCompletionMode", events=(Event(
            "Warning", "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown"),))
    ctx = build_context(job, pods, now, backoff, config or SyncConfig())
    if not job.suspend and (ctx.start_time is None or job.status.is_true("Suspended")):
        # First start, or a resume: the deadline clock (re)starts now. Upstream 1.34 resets
        # startTime on resume only after the deadline check; kbatch resets it first, as the
        # docs describe and 1.35 does (see docs/job.md, "Deliberate differences").
        ctx.start_time = now
    ctx.finished_condition, requeue = choose_finished_condition(ctx)
    status = replace(job.status, start_time=ctx.start_time)
    events: list[Event] = []
    creates: tuple = ()
    deletes: tuple[PodDelete, ...] = ()
    action = "reconciling"  # upstream: until manageJob runs
    active = len(ctx.active)
    if ctx.finished_condition is not None:
        deletes = tuple(PodDelete(p.name, p.uid, False, p.ready) for p in ctx.active)
        if deletes_failed:
            ctx.finished_condition = None
    elif job.deletion_timestamp is None:
        managed = manage_job(ctx)
        creates, deletes, action = managed.creates, managed.deletes, managed.action
        requeue = _min(requeue, managed.requeue_after)
        active += len(creates)
        if not deletes_failed and _completed(ctx, active - len(deletes)):
            ctx.finished_condition = new_condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                                   COMPLETIONS_REACHED_MESSAGE, now)
        else:
            status, events = _suspend_condition(ctx, status)
    elif _completed(ctx, active):
        ctx.finished_condition = new_condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                               COMPLETIONS_REACHED_MESSAGE, now)
    active -= len(deletes)
    ready = sum(1 for p in ctx.active if p.ready) - sum(1 for d in deletes if d.ready)
    terminating = ctx.terminating + len(deletes)
    status = replace(status, active=active, ready=ready, terminating=terminating, has_uncounted=True)
    plan = _track(ctx, status, creates, deletes, events, requeue)
    return replace(plan, action=action, creation_reason=creation_reason(ctx))


def _completed(ctx: SyncContext, active: int) -> bool:
    completions = ctx.job.completions
    if completions is None:
        return ctx.succeeded > 0 and active == 0
    return ctx.succeeded >= completions and active == 0


def _track(ctx: SyncContext, status: JobStatusInfo, creates: tuple, deletes: tuple[PodDelete, ...],
           events: list[Event], requeue: float | None) -> SyncPlan:
    job = ctx.job
    skip = {d.uid for d in deletes if d.remove_finalizer}
    # Uncounted uids whose pods lost the finalizer (or are gone) are counted before any new uid
    # is added, so the first write already carries them (cleanUncountedPodsWithoutFinalizers).
    status = flush_uncounted(status, frozenset(p.uid for p in ctx.pods if p.has_finalizer))
    rec = record_finished(ctx, skip, status)
    # The terminal condition waits while the uncounted cap was reached; the interim FailureTarget /
    # SuccessCriteriaMet is added regardless and, when new, flushed before any finalizer is removed
    # (upstream ``trackJobStatusAndRemoveFinalizers``), so it is written on its own first.
    interim = ctx.finished_condition
    cond = None if rec.cap_reached else interim
    new_status = replace(status, uncounted_succeeded=tuple(rec.uncounted_succeeded),
                         uncounted_failed=tuple(rec.uncounted_failed))
    if job.indexed:
        new_status = replace(new_status, completed_indexes=rec.completed_indexes,
                             succeeded=rec.completed_count)
    if rec.failed_indexes is not None:
        new_status = replace(new_status, failed_indexes=rec.failed_indexes)
    interim_added = (interim is not None and interim.type in ("FailureTarget", "SuccessCriteriaMet")
                     and new_status.condition(interim.type) is None)
    if interim_added and interim is not None:  # (the second test only narrows the type)
        new_status = replace(new_status, conditions=(*new_status.conditions, interim))
    with_finalizer = frozenset(p.uid for p in ctx.pods if p.has_finalizer and p.uid not in skip)
    return SyncPlan(
        creates=creates, deletes=deletes, finalizers_to_remove=tuple(rec.to_release),
        status=new_status, flush_first=bool(rec.to_release) or interim_added, finished_condition=cond,
        events=tuple(events), requeue_after=0.0 if rec.cap_reached else requeue,
        backoff=None if cond is not None else ctx.backoff,
        with_finalizer=with_finalizer, cap_reached=rec.cap_reached,
        policy_actions=tuple(sorted(rec.policy_actions.items())),
    )


def complete_sync(plan: SyncPlan, removed: set[str] | frozenset[str], now: datetime,
                  job: JobInfo) -> tuple[JobStatusInfo, tuple[Event, ...]]:
    """The status after finalizers were removed from the pods whose uids are in ``removed``."""
    assert plan.status is not None
    status = flush_uncounted(plan.status, plan.with_finalizer - removed)
    return enact_finished(status, plan.finished_condition, now, job.completions)


def sync_job_fully(job: JobInfo, pods: list[PodInfo], now: datetime,
                   backoff: BackoffRecord | None = None, config: SyncConfig | None = None,
                   ) -> tuple[SyncPlan, JobStatusInfo | None, tuple[Event, ...]]:
    """:func:`sync_job` then :func:`complete_sync`, assuming every finalizer removal succeeds."""
    plan = sync_job(job, pods, now, backoff, config)
    if plan.status is None:
        return plan, None, plan.events
    removed = frozenset(p.uid for p in plan.finalizers_to_remove)
    status, events = complete_sync(plan, removed, now, job)
    return plan, status, plan.events + events
