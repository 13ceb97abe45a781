"""The ``cronjob`` controller: :func:`sync_cronjob` wired onto the runtime (upstream
cronjob_controllerv2.go ``ControllerV2``). Everything runs in virtual time: the reconcile returns
``requeue_after`` = the next fire time (+100 ms) and the loop's clock jumps there.

CronJob events enqueue the CronJob; Job events enqueue the CronJob that controls the Job.
"""

from __future__ import annotations

import contextlib

from kbatch.api.base import format_time
from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.errors import AlreadyExists, NotFound, StatusError
from kbatch.controllers.cronjob.sync import CronPlan, sync_cronjob
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.reconcile import Request, Result

__all__ = ["CronJobReconciler", "setup"]


class CronJobReconciler:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> Result | None:
        try:
            cj = self.ctx.cache.get(CronJob, request.name, request.namespace, readonly=True)
        except NotFound:
            return None
        jobs = [j for j in self.ctx.cache.list(Job, request.namespace,
                                               index=(BY_CONTROLLER_UID, cj.metadata.uid or ""),
                                               readonly=True)]
        plan = sync_cronjob(cj, jobs, self.ctx.clock.now_datetime())
        self._apply(cj, plan)
        return Result(requeue_after=plan.requeue_after) if plan.requeue_after else None

    def _apply(self, cj: CronJob, plan: CronPlan) -> None:
        client, rec, ns = self.ctx.client, self.ctx.recorder, cj.metadata.namespace
        for ev in plan.events:
            rec.event(cj, ev.type, ev.reason, ev.message)
        for name in plan.delete:
            with contextlib.suppress(NotFound):
                client.delete(Job, name, ns, propagation_policy="Background")
                rec.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {name}")
        if plan.create is not None:
            try:
                job = client.create(Job.model_validate(plan.create))
                rec.event(cj, "Normal", "SuccessfulCreate", f"Created job {job.metadata.name}")
                plan.active.append({"kind": "Job", "namespace": ns, "name": job.metadata.name,
                                    "uid": job.metadata.uid, "apiVersion": "batch/v1",
                                    "resourceVersion": job.metadata.resource_version})
            except AlreadyExists:
                pass
            except StatusError as err:
                rec.event(cj, "Warning", "FailedCreate", f"Error creating job: {err}")
                raise
        if plan.update_status:
            status = {"active": plan.active or None,
                      "lastScheduleTime": _t(plan.last_schedule_time),
                      "lastSuccessfulTime": _t(plan.last_successful_time)}
            client.patch_status(CronJob, cj.metadata.name or "", {"status": status}, ns)


def _t(value):  # RFC 3339, as the API writes metav1.Time
    return format_time(value) if value is not None else None


def _owner(obj) -> list[Request]:
    ref = obj.metadata.controller_ref()
    if ref is None or ref.kind != "CronJob":
        return []
    return [Request(obj.metadata.namespace or "", ref.name)]


def setup(ctx: ControllerContext) -> Controller:
    reconciler = CronJobReconciler(ctx)
    return (ctx.build().describe("creates Jobs on a cron schedule (batch/v1 CronJob)")
            .for_(CronJob).watches(Job, _owner).complete(reconciler))
