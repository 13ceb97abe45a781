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
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kbatch.api.batch_constants import JOB_TRACKING_FINALIZER, external_manager
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import (
    NAMESPACE_TERMINATING_CAUSE,
    Conflict,
    NotFound,
    StatusError,
    has_status_cause,
)
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.job.actions import PodCreate, PodDelete, SyncPlan
from kbatch.controllers.job.adapt import job_info, pod_info, status_model
from kbatch.controllers.job.backoff import BackoffRecord
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.metrics import JobMetrics
from kbatch.controllers.job.orphans import (
    REMOVE_TRACKING_FINALIZER_PATCH,
    has_tracking_finalizer,
    remove_tracking_finalizer,
)
from kbatch.controllers.job.pod_factory import PodFactory
from kbatch.controllers.job.pod_template import owner_reference
from kbatch.controllers.job.sync import complete_sync, sync_job
from kbatch.controllers.job.views import JobInfo, PodInfo
from kbatch.controllers.job.workload import job_workloads, join_group
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["ORPHANS_BY_NAMESPACE", "SYNC_BATCH_PERIOD", "JobReconciler", "orphan_namespace",
           "slow_start_batches"]

SYNC_BATCH_PERIOD = 1.0  # syncJobBatchPeriod
ORPHANS_BY_NAMESPACE = "job-orphans-by-namespace"  # pod cache index: pods without a controller


def orphan_namespace(pod: Any) -> tuple[str, ...]:
    """Index function: a pod with no controller reference under its namespace (adoption candidates).

    Upstream's ``getPodsForJob`` hands ``ClaimPods`` every pod of the namespace; only those without a
    controller can be adopted, so only they are looked up (not every pod the selector matches).
    """
    meta = pod.metadata
    return (meta.namespace or "",) if meta.controller_ref() is None else ()


def slow_start_batches(n: int, initial: int = 1) -> list[int]:
    """Batch sizes for ``n`` creations: 1, 2, 4, … (controller_utils.go ``SlowStartInitialBatchSize``)."""
    sizes, size = [], min(n, initial)
    while n > 0:
        sizes.append(size)
        n -= size
        size = min(2 * size, n)
    return sizes


_PodEntry = PodInfo | str | None
"""A controlled pod the Job's selector matches: its view (which carries its resourceVersion); one it
does not match: just its resourceVersion."""


class JobReconciler:
    """Reconciles one Job. Holds only caches of derived values (per live Job: its pods' views and
    its template dict, dropped when the Job finishes or is gone) and the in-memory back-off records
    (upstream keeps those in memory too; a restart loses them)."""

    def __init__(self, ctx: ControllerContext, config: SyncConfig | None = None,
                 metrics: JobMetrics | None = None) -> None:
        self.ctx = ctx
        self.config = config or SyncConfig()
        self.metrics = metrics or JobMetrics(ctx.metrics)
        self.backoff: dict[str, BackoffRecord] = {}
        self._pod_views: dict[str, tuple[int | None, dict[str, _PodEntry]]] = {}  # job uid -> (gen, pods)
        self._templates: dict[str, tuple[int | None, dict[str, Any]]] = {}
        self._factories: dict[str, PodFactory] = {}  # job uid -> its pods' builder
        self._uids: dict[Request, str] = {}  # the uid each cached Job had, to forget it once gone
        ctx.cache.add_index(Pod, ORPHANS_BY_NAMESPACE, orphan_namespace)
        self.workloads = job_workloads(ctx)  # KEP-5547 (gates WorkloadWithJob and GenericWorkload)

    # -- reading -----------------------------------------------------------------------------------
    def _forget(self, uid: str) -> None:
        self._pod_views.pop(uid, None)
        self._templates.pop(uid, None)
        self._factories.pop(uid, None)
        self.backoff.pop(uid, None)

    def _template(self, job: Job) -> dict[str, Any]:
        uid, gen = job.metadata.uid or "", job.metadata.generation
        hit = self._templates.get(uid)
        if hit is None or hit[0] != gen:
            hit = (gen, job.spec.template.to_dict())
            self._templates[uid] = hit
        return hit[1]

    def _claim_pods(self, job: Job) -> tuple[list[Pod], list[PodInfo]]:
        """Controlled pods, after adoption and release (controller_ref_manager.go ``ClaimPods``), and
        their views.

        Whether a pod matches the selector and its view are kept per pod uid while its
        resourceVersion does not move (labels change only with it; ``spec.selector`` is immutable,
        and the cache is also dropped on a new Job generation). Only this sync's pods stay cached, so
        nothing of deleted pods is kept."""
        ns, uid = job.metadata.namespace, job.metadata.uid or ""
        cache = self.ctx.cache
        owned = cache.list(Pod, ns, index=(BY_CONTROLLER_UID, uid))
        selector = selector_from_model(job.spec.selector)
        live = job.metadata.deletion_timestamp is None  # a Job being deleted neither adopts nor releases
        gen, old = self._pod_views.get(uid, (None, {}))
        if gen != job.metadata.generation:
            old = {}
        known: dict[str, _PodEntry] = {}
        claimed: list[Pod] = []
        views: list[PodInfo] = []
        memo: dict = {}
        for pod in owned:
            meta = pod.metadata
            pod_uid, rv = meta.uid or "", meta.resource_version
            hit = old.get(pod_uid)
            if hit is None or (hit.resource_version if type(hit) is PodInfo else hit) != rv:
                hit = pod_info(pod, memo) if selector.matches(meta.labels) else rv
            known[pod_uid] = hit
            if type(hit) is PodInfo:
                claimed.append(pod)
                views.append(hit)
            elif live:
                self._release(pod, uid)
        self._pod_views[uid] = (job.metadata.generation, known)
        orphans = (ORPHANS_BY_NAMESPACE, ns or "")
        candidates = cache.list(Pod, ns, index=orphans) if live else []
        for pod in candidates:
            meta = pod.metadata
            if meta.deletion_timestamp is None and selector.matches(meta.labels):
                adopted = self._adopt(pod, job)
                if adopted is not None:
                    claimed.append(adopted)
                    views.append(pod_info(adopted, memo))
        return claimed, views

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
            job = self.ctx.cache.get(Job, request.name, request.namespace)
        except NotFound:
            # Gone: forget what was kept for it. Its pods' finalizers are the orphan queue's
            # (the Job delete event sent them there: wiring ``cleanup_pod_finalizers``).
            uid = self._uids.pop(request, None)
            if uid is not None:
                self._forget(uid)
            return None
        info = job_info(job, self._template(job))
        self._uids[request] = info.uid
        if external_manager(info.managed_by) is not None:
            return None
        if info.finished:
            self._forget(info.uid)
            pods = self.ctx.cache.list(Pod, request.namespace, index=(BY_CONTROLLER_UID, info.uid))
            # only pods still holding the finalizer matter to a finished Job (``_finished_cleanup``)
            memo: dict = {}
            held = [pod_info(p, memo) for p in pods if has_tracking_finalizer(p)]
            if held:
                self._remove_finalizers(sync_job(info, held, self.ctx.clock.now_datetime()))
            return None
        started = self.ctx.clock.now()
        mode = "Indexed" if info.indexed else "NonIndexed"
        action = "reconciling"
        try:
            pods, views = self._claim_pods(job)
            group = self.workloads.ensure(job, pods) if self.workloads is not None else None
            now = self.ctx.clock.now_datetime()
            backoff = self.backoff.get(info.uid)
            plan = sync_job(info, views, now, backoff, self.config)
            if plan.status is None:  # unknown completion mode: no metrics, as upstream
                for ev in plan.events:
                    self.ctx.recorder.event(job, ev.type, ev.reason, ev.message)
                return None
            action = plan.action
            result = self._apply(job, info, plan, pods, now, lambda: sync_job(
                info, views, now, backoff, self.config, deletes_failed=True), group)
        except Exception:
            self.metrics.sync(mode, "error", action, self.ctx.clock.now() - started)
            raise
        self.metrics.sync(mode, "success", action, self.ctx.clock.now() - started)
        return result

    def _apply(self, job: Job, info: JobInfo, plan: SyncPlan, pods: list[Pod], now: Any,
               held: Callable[[], SyncPlan], group: Any = None) -> Result | None:
        """Effects in upstream ``syncJob``'s order. A failed delete switches to the ``held`` plan: on
        the finishing path no finishing condition this sync ("Can't declare the Job as finished
        yet"), on manageJob's path no ``CompletionsReached`` (the kept pod is still active); a failed
        create or delete is raised last, for the rate-limited requeue (``manageJobErr``)."""
        failed_creates, error = self._create(job, plan.creates, plan.creation_reason, group)
        kept: tuple[PodDelete, ...] = ()
        if plan.deletes:
            kept, delete_error = self._delete(job, plan, {p.metadata.uid: p for p in pods})
            error = error or delete_error
            if kept:
                plan = held()
        status = plan.status
        assert status is not None
        if failed_creates or kept:  # only what was created / deleted moves the counters (manageJob)
            status = replace(status, active=max(0, status.active - failed_creates + len(kept)),
                             ready=(status.ready or 0) + sum(1 for d in kept if d.ready),
                             terminating=max(0, (status.terminating or 0) - len(kept)))
            plan = replace(plan, status=status)
        current, written = job, info.status
        if plan.flush_first and status != info.status:
            current = self._write_status(current, status, info)
            written = status
        for action, count in plan.policy_actions:
            self.metrics.policy_actions.labels(action).inc(count)
        removed = self._remove_finalizers(plan)
        final, events = complete_sync(plan, removed, now, info)
        if final != written:
            current = self._write_status(current, final, info, previous=written)
            self._record_finished(info, written, final)
        for ev in (*plan.events, *events):
            self.ctx.recorder.event(job, ev.type, ev.reason, ev.message)
        if final.is_true("Complete") or final.is_true("Failed"):
            self._forget(info.uid)  # finished: nothing of it is needed for another sync
        elif plan.backoff is not None:
            self.backoff[info.uid] = plan.backoff
        if error is not None:
            raise error
        return Result(requeue_after=plan.requeue_after) if plan.requeue_after else None

    def _record_finished(self, info: JobInfo, before: Any, after: Any) -> None:
        """``recordJobFinished``'s metric, when this write added the terminal condition."""
        for type_ in ("Complete", "Failed"):
            if after.is_true(type_) and not before.is_true(type_):
                cond = after.condition(type_)
                self.metrics.job_finished("Indexed" if info.indexed else "NonIndexed", type_, cond.reason)

    # -- effects -----------------------------------------------------------------------------------
    def _create(self, job: Job, creates: tuple[PodCreate, ...], reason: str = "new", group: Any = None,
                ) -> tuple[int, StatusError | None]:
        """Create in slow-start batches; returns (pods not created, the first error). As upstream's
        ``manageJob``, every failed create and every create of the batches skipped after a failing
        batch is taken off ``status.active``. With a PodGroup (KEP-5547) the pods join it."""
        client, recorder = self.ctx.client, self.ctx.recorder
        done = created = failed = 0
        error: StatusError | None = None
        factory = self._factories.setdefault(job.metadata.uid or "", PodFactory()) if creates else None
        for size in slow_start_batches(len(creates)):
            for create in creates[done:done + size]:
                try:
                    new_pod = factory.pod(create)  # type: ignore[union-attr]
                    if group is not None:
                        join_group(new_pod, group)
                    pod = client.create(new_pod)
                    created += 1
                    recorder.event(job, "Normal", "SuccessfulCreate", f"Created pod: {pod.metadata.name}")
                except StatusError as err:  # AlreadyExists included (RealPodControl.createPods)
                    if has_status_cause(err, NAMESPACE_TERMINATING_CAUSE):
                        # manageJob ignores it (every later create fails too) and pod control records
                        # no FailedCreate: the pod stays counted in status.active, as upstream
                        continue
                    failed += 1
                    recorder.event(job, "Warning", "FailedCreate", f"Error creating: {err}")
                    error = error or err
            done += size
            if error is not None:
                break
        counter = self.metrics.pods_created
        if created:
            counter.labels(reason, "succeeded").inc(created)
        if failed:
            counter.labels(reason, "failed").inc(failed)
        return failed + max(0, len(creates) - done), error

    def _delete(self, job: Job, plan: SyncPlan, by_uid: dict,
                ) -> tuple[tuple[PodDelete, ...], StatusError | None]:
        """``deleteJobPods`` / ``deleteActivePods``; returns the deletes that failed (a pod already
        gone counts as deleted) and the first error."""
        client, recorder = self.ctx.client, self.ctx.recorder
        failed: list[PodDelete] = []
        error: StatusError | None = None
        for delete in plan.deletes:
            pod = by_uid.get(delete.uid)
            try:
                if delete.remove_finalizer and pod is not None:
                    remove_tracking_finalizer(client, pod)
                client.delete(Pod, delete.name, job.metadata.namespace)
                recorder.event(job, "Normal", "SuccessfulDelete", f"Deleted pod: {delete.name}")
            except NotFound:
                continue
            except StatusError as err:
                recorder.event(job, "Warning", "FailedDelete", f"Error deleting: {err}")
                failed.append(delete)
                error = error or err
        return tuple(failed), error

    def _remove_finalizers(self, plan: SyncPlan) -> set[str]:
        """``removeTrackingFinalizerFromPods``: one strategic patch per pod (only pods the plan saw
        holding the finalizer are listed); a pod already gone counts as released."""
        removed: set[str] = set()
        patch, client = REMOVE_TRACKING_FINALIZER_PATCH, self.ctx.client
        for view in plan.finalizers_to_remove:
            try:
                client.patch(Pod, view.name, patch, view.namespace, patch_type="strategic")
            except NotFound:
                pass
            except StatusError:
                continue
            removed.add(view.uid)
        return removed

    def _write_status(self, job: Job, status: Any, info: JobInfo, previous: Any = None) -> Job:
        obj = job.model_copy(update={"status": status_model(status, info.indexed)})
        written = self.ctx.client.update_status(obj)
        before = info.status if previous is None else previous
        self.metrics.pods_finished_between(before, status, info.indexed, info.completions,
                                           info.backoff_limit_per_index is not None)
        return written
