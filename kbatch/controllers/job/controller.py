"""The ``job`` controller: the pure core wired onto the runtime (upstream job_controller.go ``Controller``).

Reads come from the informer cache (fresh at every reconcile: the loop drains watch events first,
so no "expectations" are needed); writes go through the client. One reconcile:

1. get the Job (gone → release the tracking finalizers of its leftover pods: the orphan cleanup);
2. claim pods: the Job's controlled pods, adopting selector-matching orphans (controller ref +
   tracking finalizer) and releasing controlled pods whose labels no longer match;
3. ``sync_job`` decides; the edge applies: creates in slow-start batches (1, 2, 4, …; a failing
   batch skips the rest), deletes (finalizer stripped first when uncounted), the status with newly
   recorded pods, finalizer removals, then the final status from ``complete_sync``; events;
4. requeue after the back-off / deadline delay.

Triggers as upstream: Job add or spec change → now; status-only Job update and any Pod event →
after the 1 s batching period (``syncJobBatchPeriod``).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from kbatch.api.batch_constants import JOB_NAME_LABEL, JOB_TRACKING_FINALIZER
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import AlreadyExists, Conflict, NotFound, StatusError
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.job.actions import PodCreate, SyncPlan
from kbatch.controllers.job.adapt import job_info, pod_info, status_model
from kbatch.controllers.job.backoff import BackoffRecord
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.pod_template import owner_reference
from kbatch.controllers.job.sync import complete_sync, sync_job
from kbatch.controllers.job.views import JobInfo, PodInfo
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["SYNC_BATCH_PERIOD", "JobReconciler", "slow_start_batches"]

SYNC_BATCH_PERIOD = 1.0  # syncJobBatchPeriod


def slow_start_batches(n: int, initial: int = 1) -> list[int]:
    """Batch sizes for ``n`` creations: 1, 2, 4, … (controller_utils.go ``SlowStartInitialBatchSize``)."""
    sizes, size = [], min(n, initial)
    while n > 0:
        sizes.append(size)
        n -= size
        size = min(2 * size, n)
    return sizes


class JobReconciler:
    """Reconciles one Job. Holds only caches of derived values and the in-memory back-off records
    (upstream keeps those in memory too; a restart loses them)."""

    def __init__(self, ctx: ControllerContext, config: SyncConfig | None = None) -> None:
        self.ctx = ctx
        self.config = config or SyncConfig()
        self.backoff: dict[str, BackoffRecord] = {}
        self._pod_views: dict[str, tuple[str | None, PodInfo]] = {}
        self._templates: dict[str, tuple[int | None, dict[str, Any]]] = {}

    # -- reading -----------------------------------------------------------------------------------
    def _view(self, pod: Pod) -> PodInfo:
        uid, rv = pod.metadata.uid or "", pod.metadata.resource_version
        hit = self._pod_views.get(uid)
        if hit is not None and hit[0] == rv:
            return hit[1]
        info = pod_info(pod)
        self._pod_views[uid] = (rv, info)
        return info

    def _template(self, job: Job) -> dict[str, Any]:
        uid, gen = job.metadata.uid or "", job.metadata.generation
        hit = self._templates.get(uid)
        if hit is None or hit[0] != gen:
            hit = (gen, job.spec.template.to_dict())
            self._templates[uid] = hit
        return hit[1]

    def _claim_pods(self, job: Job) -> list[Pod]:
        """Controlled pods, after adoption and release (controller_ref_manager.go ``ClaimPods``)."""
        ns, uid = job.metadata.namespace, job.metadata.uid or ""
        cache = self.ctx.cache
        owned = cache.list(Pod, ns, index=(BY_CONTROLLER_UID, uid), readonly=True)
        selector = selector_from_model(job.spec.selector)
        claimed = [p for p in owned if selector.matches(p.metadata.labels)]
        for pod in owned:
            if not selector.matches(pod.metadata.labels) and job.metadata.deletion_timestamp is None:
                self._release(pod, uid)
        labels = (job.spec.selector.match_labels or None) if job.spec.selector else None
        candidates = cache.list(Pod, ns, labels=labels, readonly=True) if labels else []
        for pod in candidates:
            meta = pod.metadata
            if meta.controller_ref() is None and meta.deletion_timestamp is None \
                    and selector.matches(meta.labels) and job.metadata.deletion_timestamp is None:
                adopted = self._adopt(pod, job)
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    def _adopt(self, pod: Pod, job: Job) -> Pod | None:
        info = JobInfo(name=job.metadata.name or "", namespace="", uid=job.metadata.uid or "")
        refs = [r.to_dict() for r in pod.metadata.owner_references or ()] + [owner_reference(info)]
        finalizers = list(pod.metadata.finalizers or ())
        if JOB_TRACKING_FINALIZER not in finalizers:
            finalizers.append(JOB_TRACKING_FINALIZER)
        patch = {"metadata": {"ownerReferences": refs, "finalizers": finalizers,
                              "resourceVersion": pod.metadata.resource_version}}
        try:
            return self.ctx.client.patch(Pod, pod.metadata.name or "", patch, pod.metadata.namespace)
        except (NotFound, Conflict):
            return None

    def _release(self, pod: Pod, uid: str) -> None:
        refs = [r.to_dict() for r in pod.metadata.owner_references or () if r.uid != uid]
        with contextlib.suppress(NotFound):
            self.ctx.client.patch(Pod, pod.metadata.name or "", {"metadata": {"ownerReferences": refs}},
                                  pod.metadata.namespace)

    # -- reconcile ---------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        try:
            job = self.ctx.cache.get(Job, request.name, request.namespace, readonly=True)
        except NotFound:
            self._orphan_cleanup(request)
            return None
        info = job_info(job, self._template(job))
        if info.managed_by is not None and info.managed_by != "kubernetes.io/job-controller":
            return None
        pods = [] if info.finished else self._claim_pods(job)
        if info.finished:
            pods = self.ctx.cache.list(Pod, request.namespace, index=(BY_CONTROLLER_UID, info.uid),
                                       readonly=True)
        views = [self._view(p) for p in pods]
        now = self.ctx.clock.now_datetime()
        plan = sync_job(info, views, now, self.backoff.get(info.uid), self.config)
        by_uid = {p.metadata.uid: p for p in pods}
        if plan.status is None:
            for ev in plan.events:
                self.ctx.recorder.event(job, ev.type, ev.reason, ev.message)
            self._remove_finalizers(plan, by_uid)
            self.backoff.pop(info.uid, None)
            return None
        return self._apply(job, info, plan, by_uid, now)

    def _apply(self, job: Job, info: JobInfo, plan: SyncPlan, by_uid: dict, now: Any) -> Result | None:
        failed_creates, create_error = self._create(job, plan.creates)
        self._delete(job, plan, by_uid)
        status = plan.status
        assert status is not None
        if failed_creates:
            status = replace(status, active=max(0, status.active - failed_creates))
            plan = replace(plan, status=status)
        current = job
        if plan.flush_first and status != info.status:
            current = self._write_status(current, status, info.indexed)
        removed = self._remove_finalizers(plan, by_uid)
        final, events = complete_sync(plan, removed, now, info)
        if final != (status if plan.flush_first else info.status):
            current = self._write_status(current, final, info.indexed)
        for ev in (*plan.events, *events):
            self.ctx.recorder.event(job, ev.type, ev.reason, ev.message)
        if final.is_true("Complete") or final.is_true("Failed"):
            self.backoff.pop(info.uid, None)
        elif plan.backoff is not None:
            self.backoff[info.uid] = plan.backoff
        if create_error is not None:
            raise create_error
        return Result(requeue_after=plan.requeue_after) if plan.requeue_after else None

    # -- effects -----------------------------------------------------------------------------------
    def _create(self, job: Job, creates: tuple[PodCreate, ...]) -> tuple[int, StatusError | None]:
        """Create in slow-start batches; returns (pods not created, the first error)."""
        client, recorder = self.ctx.client, self.ctx.recorder
        done = 0
        for size in slow_start_batches(len(creates)):
            error: StatusError | None = None
            for create in creates[done:done + size]:
                try:
                    pod = client.create(Pod.model_validate(create.pod))
                    recorder.event(job, "Normal", "SuccessfulCreate", f"Created pod: {pod.metadata.name}")
                except AlreadyExists:
                    continue
                except StatusError as err:
                    recorder.event(job, "Warning", "FailedCreate", f"Error creating: {err}")
                    error = error or err
            done += size
            if error is not None:
                return len(creates) - done + 1, error
        return 0, None

    def _delete(self, job: Job, plan: SyncPlan, by_uid: dict) -> None:
        client, recorder = self.ctx.client, self.ctx.recorder
        for delete in plan.deletes:
            pod = by_uid.get(delete.uid)
            try:
                if delete.remove_finalizer and pod is not None:
                    self._strip_finalizer(pod)
                client.delete(Pod, delete.name, job.metadata.namespace)
                recorder.event(job, "Normal", "SuccessfulDelete", f"Deleted pod: {delete.name}")
            except NotFound:
                continue
            except StatusError as err:
                recorder.event(job, "Warning", "FailedDelete", f"Error deleting: {err}")

    def _strip_finalizer(self, pod: Pod) -> None:
        finalizers = [f for f in pod.metadata.finalizers or () if f != JOB_TRACKING_FINALIZER]
        self.ctx.client.patch(Pod, pod.metadata.name or "", {"metadata": {"finalizers": finalizers}},
                              pod.metadata.namespace)

    def _remove_finalizers(self, plan: SyncPlan, by_uid: dict) -> set[str]:
        removed: set[str] = set()
        for view in plan.finalizers_to_remove:
            pod = by_uid.get(view.uid)
            if pod is None:
                continue
            try:
                self._strip_finalizer(pod)
            except NotFound:
                pass
            except StatusError:
                continue
            removed.add(view.uid)
        return removed

    def _write_status(self, job: Job, status: Any, indexed: bool) -> Job:
        obj = job.model_copy(update={"status": status_model(status, indexed)})
        return self.ctx.client.update_status(obj)

    def _orphan_cleanup(self, request: Request) -> None:
        """The Job is gone: release the tracking finalizer of pods it controlled (orphan worker)."""
        pods = self.ctx.cache.list(Pod, request.namespace, labels={JOB_NAME_LABEL: request.name},
                                   readonly=True)
        for pod in pods:
            ref = pod.metadata.controller_ref()
            if ref is None or ref.kind != "Job" or not ref.api_version.startswith("batch/"):
                continue
            if JOB_TRACKING_FINALIZER in (pod.metadata.finalizers or ()):
                with contextlib.suppress(NotFound):
                    self._strip_finalizer(pod)
