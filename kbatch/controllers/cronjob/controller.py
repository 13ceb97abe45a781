"""The ``cronjob`` controller: :func:`sync_cronjob` wired onto the runtime (upstream
cronjob_controllerv2.go ``ControllerV2``). Everything runs in virtual time: the reconcile returns
``requeue_after`` = the next fire time (+100 ms) and the loop's clock jumps there.

CronJob events enqueue the CronJob (a schedule or zone change: at the new next fire time, as
upstream's ``updateCronJob``); Job events enqueue the CronJob that controls the Job (name and uid).
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api.base import format_time
from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.cron import CronError, load_zone, parse_schedule
from kbatch.api.errors import (
    NAMESPACE_TERMINATING_CAUSE,
    AlreadyExists,
    NotFound,
    StatusError,
    has_status_cause,
)
from kbatch.controllers.cronjob.schedule import next_check_delay
from kbatch.controllers.cronjob.sync import CronPlan, sync_cronjob
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.metrics import exponential_buckets
from kbatch.runtime.reconcile import Request, Result

__all__ = ["CronJobReconciler", "setup"]


class CronJobReconciler:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        # upstream pkg/controller/cronjob/metrics/metrics.go CronJobCreationSkew (STABLE)
        self.creation_skew = ctx.metrics.histogram(
            "cronjob_controller_job_creation_skew_duration_seconds",
            "Seconds from a CronJob's scheduled time to the creation of its Job", (),
            exponential_buckets(1, 2, 10))

    def reconcile(self, request: Request) -> Result | None:
        try:
            cj = self.ctx.cache.get(CronJob, request.name, request.namespace)
        except NotFound:
            return None
        jobs = _jobs_to_be_reconciled(self.ctx, cj)
        plan = sync_cronjob(cj, jobs, self.ctx.clock.now_datetime())
        self._apply(cj, plan)
        return Result(requeue_after=plan.requeue_after) if plan.requeue_after else None

    def _apply(self, cj: CronJob, plan: CronPlan) -> None:
        """Effects in upstream's order: history deletes (``cleanupFinishedJobs``), the sync's events,
        Replace's deletes, the create, then one status write (``sync``); a failed Replace delete
        or create is raised after the status write, for the rate-limited requeue."""
        for name in plan.delete:
            self._delete(cj, name)
        for ev in plan.events:
            self.ctx.recorder.event(cj, ev.type, ev.reason, ev.message)
        error: StatusError | None = None
        for ref in plan.replace:
            error = self._delete(cj, ref.get("name") or "")
            if error is not None:  # deleteJob failed: the Job stays active, nothing is created
                plan.active.append(ref)
        if plan.create is not None and error is None:
            error = self._create(cj, plan)
        if plan.update_status:
            status = {"active": plan.active or None,
                      "lastScheduleTime": _t(plan.last_schedule_time),
                      "lastSuccessfulTime": _t(plan.last_successful_time)}
            self.ctx.client.patch_status(CronJob, cj.metadata.name or "", {"status": status},
                                         cj.metadata.namespace)
        if error is not None:
            raise error

    def _delete(self, cj: CronJob, name: str) -> StatusError | None:
        """``deleteJob``: background propagation; ``FailedDelete`` / ``SuccessfulDelete``."""
        try:
            self.ctx.client.delete(Job, name, cj.metadata.namespace, propagation_policy="Background")
        except NotFound:
            pass
        except StatusError as err:
            self.ctx.recorder.event(cj, "Warning", "FailedDelete", f"Deleted job: {err}")
            return err
        self.ctx.recorder.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {name}")
        return None

    def _create(self, cj: CronJob, plan: CronPlan) -> StatusError | None:
        """Create the Job. ``AlreadyExists``: a Job this CronJob controls and ``status.active`` lacks is
        added to it (a status write lost earlier); otherwise nothing changes, ``lastScheduleTime``
        included (upstream ``syncCronJob``)."""
        assert plan.create is not None
        client, ns = self.ctx.client, cj.metadata.namespace
        try:
            job = client.create(Job.model_validate(plan.create))
        except AlreadyExists:
            try:
                job = client.get(Job, plan.create["metadata"]["name"], ns)
            except StatusError as err:
                plan.last_schedule_time = plan.previous_schedule_time
                return err
            ref = job.metadata.controller_ref()
            ours = ref is not None and ref.kind == "CronJob" and ref.uid == cj.metadata.uid
            if not ours or any(r.get("uid") == job.metadata.uid for r in plan.active):
                plan.last_schedule_time = plan.previous_schedule_time
                return None
        except StatusError as err:
            if not has_status_cause(err, NAMESPACE_TERMINATING_CAUSE):  # syncCronJob: no event then
                self.ctx.recorder.event(cj, "Warning", "FailedCreate", f"Error creating job: {err}")
            plan.last_schedule_time = plan.previous_schedule_time
            return err
        else:
            scheduled, created = plan.last_schedule_time, job.metadata.creation_timestamp
            if scheduled is not None and created is not None:
                self.creation_skew.labels().observe((created - scheduled).total_seconds())
            self.ctx.recorder.event(cj, "Normal", "SuccessfulCreate", f"Created job {job.metadata.name}")
        plan.active.append({"kind": "Job", "namespace": ns, "name": job.metadata.name,
                            "uid": job.metadata.uid, "apiVersion": "batch/v1",
                            "resourceVersion": job.metadata.resource_version})
        return None


def _jobs_to_be_reconciled(ctx: ControllerContext, cj: CronJob) -> list[Job]:
    """Upstream ``getJobsToBeReconciled`` (cronjob_controllerv2.go): every Job of the namespace whose
    controller reference carries the CronJob's *name* — neither its uid nor its kind is compared (a
    known upstream quirk, kept for fidelity). Consequence: a CronJob deleted with orphaned Jobs (or
    before the garbage collector reached them) and recreated under the same name treats the old
    Jobs as its own — their history counts against its limits (and may be deleted), their success
    sets ``lastSuccessfulTime``, and an unfinished one draws ``UnexpectedJob``."""
    name = cj.metadata.name
    out = []
    for job in ctx.cache.list(Job, cj.metadata.namespace):
        ref = job.metadata.controller_ref()
        if ref is not None and ref.name == name:
            out.append(job)
    return out


def _t(value):  # RFC 3339, as the API writes metav1.Time
    return format_time(value) if value is not None else None


class _OwningCronJob:
    """Upstream ``addJob``/``updateJob``/``deleteJob`` through ``resolveControllerRef``: a Job
    event queues the CronJob its controller reference names only when a CronJob of that name
    exists and has the reference's uid (a Job of a deleted-and-recreated CronJob queues nothing)."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __call__(self, obj: Any) -> list[Request]:
        ref = obj.metadata.controller_ref()
        if ref is None or ref.kind != "CronJob":
            return []
        namespace = obj.metadata.namespace or ""
        try:
            cj = self.cache.get(CronJob, ref.name, namespace)
        except NotFound:
            return []
        return [Request(namespace, ref.name)] if cj.metadata.uid == ref.uid else []


class _CronJobHandler:
    """``addFunc``/``updateCronJob``/``deleteFunc``: a CronJob added, deleted or changed is synced
    now — except a change of ``schedule`` or ``timeZone``, which only moves the next sync to the new
    schedule's next fire time (+100 ms), so a fire time the new schedule "missed" is not started;
    an unparseable new schedule gets the ``UnParseableCronJobSchedule`` warning and no sync."""

    def __init__(self, ctx: ControllerContext, controller: Controller) -> None:
        self.ctx = ctx
        self.queue = controller.queue

    def on_add(self, obj: CronJob) -> None:
        self.queue.add(_request(obj))

    def on_delete(self, obj: CronJob) -> None:
        self.queue.add(_request(obj))

    def on_update(self, old: CronJob, new: CronJob) -> None:
        if old.spec.schedule == new.spec.schedule and old.spec.time_zone == new.spec.time_zone:
            self.queue.add(_request(new))
            return
        try:
            sched = parse_schedule(new.spec.schedule)
        except CronError:
            self.ctx.recorder.event(new, "Warning", "UnParseableCronJobSchedule",
                                    f"unparseable schedule for cronjob: {new.spec.schedule}")
            return
        tz = None  # formatSchedule: an unknown zone leaves the schedule as it is (UTC)
        if new.spec.time_zone:
            with contextlib.suppress(CronError):
                tz = load_zone(new.spec.time_zone)
        now = self.ctx.clock.now_datetime()
        status = new.status
        delay = next_check_delay(sched, tz, new.metadata.creation_timestamp or now,
                                 status.last_schedule_time if status else None, now)
        if delay is not None:
            self.queue.add_after(_request(new), max(0.0, delay))


def _request(obj: CronJob) -> Request:
    return Request(obj.metadata.namespace or "", obj.metadata.name or "")


def setup(ctx: ControllerContext) -> Controller:
    reconciler = CronJobReconciler(ctx)
    controller = (ctx.build().describe("creates Jobs on a cron schedule (batch/v1 CronJob)")
                  .watches(Job, _OwningCronJob(ctx.cache)).complete(reconciler))
    ctx.cache.informer_for(CronJob).add_event_handler(_CronJobHandler(ctx, controller))
    return controller
