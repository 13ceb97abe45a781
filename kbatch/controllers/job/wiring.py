"""Registering the ``job`` controller on a control plane (catalog entry ``kbatch.controllers.job:setup``).

Event handlers follow upstream's (job_controller.go ``addJob``/``updateJob``/``deleteJob``/``addPod``/
``updatePod``/``deletePod``): a Job add, a spec (generation) change, a deletion mark or a Job delete
enqueue the Job now; any other Job update (its status) and every Pod event enqueue it after the 1 s
batching period; an update that sets or changes a started Job's ``activeDeadlineSeconds`` also
queues it for the new deadline. A pod update that keeps its resourceVersion (a relist's) is ignored.
A pod's controller reference is resolved by name *and* uid; pods without a controller are mapped to
the Jobs whose selector matches them, for adoption. Pods that still hold the tracking finalizer but
that no Job will count (orphaned, their Job gone or finished) go to the orphan queue, a second
controller ``job-orphan-pod`` (:mod:`kbatch.controllers.job.orphans`); a deleted or finished Job sends
its remaining tracked pods there too (``cleanupPodFinalizers``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.gates import MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS, gate_on
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.controller import SYNC_BATCH_PERIOD, JobReconciler
from kbatch.controllers.job.metrics import JobMetrics
from kbatch.controllers.job.orphans import (
    OrphanPodReconciler,
    has_tracking_finalizer,
    is_job_finished,
    managed_externally,
    resolve_job,
)
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.reconcile import Request

__all__ = ["ORPHAN_CONTROLLER", "setup"]

ORPHAN_CONTROLLER = "job-orphan-pod"  # upstream's orphanQueue is named job_orphan_pod


def _request(obj: Any) -> Request:
    return Request(obj.metadata.namespace or "", obj.metadata.name or "")


def _finished_with_finalizer(pod: Any) -> bool:
    """``isFinishedPodWithTrackingFinalizer``."""
    if pod is None:
        return False
    phase = pod.status.phase if pod.status is not None else None
    return phase in ("Succeeded", "Failed") and has_tracking_finalizer(pod)


def _same_ref(a: Any, b: Any) -> bool:
    """``equality.Semantic.DeepEqual`` of two controller references: most updates keep the very
    same object, and comparing field dicts skips pydantic's slower generic ``__eq__``."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return type(a) is type(b) and a.__dict__ == b.__dict__


class _Queues:
    """The Job queue, the orphan-pod queue, the cache and the metrics both handlers share."""

    def __init__(self, jobs: Controller, orphans: Controller, ctx: ControllerContext,
                 metrics: JobMetrics) -> None:
        self.jobs = jobs.queue
        self.orphans = orphans.queue
        self.cache = ctx.cache
        self.metrics = metrics

    def job_now(self, job: Any) -> None:
        self.jobs.add(_request(job))

    def job_batched(self, job: Any) -> None:
        self.jobs.add_after(_request(job), SYNC_BATCH_PERIOD)

    def job_after(self, job: Any, seconds: float) -> None:
        self.jobs.add_after(_request(job), seconds)

    def batched_already(self, namespace: str, ref: Any) -> bool:
        """Whether the Job ``ref`` names is already due within the batching period: queueing it
        after that period again would change nothing (the earlier deadline wins), so there is no
        need to resolve the reference first."""
        deadline = self.jobs.waiting_deadline(Request(namespace, ref.name))
        return deadline is not None and deadline <= self.jobs.clock.now() + SYNC_BATCH_PERIOD

    def orphan(self, pod: Any) -> None:
        self.orphans.add(_request(pod))

    def cleanup_pod_finalizers(self, job: Any) -> None:
        """``cleanupPodFinalizers``: the Job's controlled pods that still hold the finalizer."""
        uid = job.metadata.uid or ""
        for pod in self.cache.list(Pod, job.metadata.namespace, index=(BY_CONTROLLER_UID, uid)):
            if has_tracking_finalizer(pod):
                self.orphan(pod)


def _deadline_moved(old: Any, new: Any, now: Any) -> float | None:
    """``updateJob``'s resync for ``activeDeadlineSeconds``: a started Job whose deadline was set or
    changed is queued for when the new deadline passes (now, if it has), whatever the sync does."""
    start = new.status.start_time if new.status is not None else None
    ads = new.spec.active_deadline_seconds
    if start is None or ads is None or old.spec.active_deadline_seconds == ads:
        return None
    return float(ads) - (now - start).total_seconds()


class _JobHandler:
    def __init__(self, queues: _Queues) -> None:
        self.q = queues

    def on_add(self, obj: Any) -> None:
        self.q.job_now(obj)
        name = managed_externally(obj)
        if name is not None:
            self.q.metrics.external.labels(name).inc()

    def on_update(self, old: Any, new: Any) -> None:
        urgent = (old.metadata.generation != new.metadata.generation
                  or old.metadata.deletion_timestamp != new.metadata.deletion_timestamp)
        if urgent:
            self.q.job_now(new)
        else:
            self.q.job_batched(new)
        if is_job_finished(new):  # a backup: a Job is not finished before its finalizers are gone
            self.q.cleanup_pod_finalizers(new)
        left = _deadline_moved(old, new, self.q.jobs.clock.now_datetime())
        if left is not None:
            self.q.job_after(new, left)

    def on_delete(self, obj: Any) -> None:
        self.q.job_now(obj)
        self.q.cleanup_pod_finalizers(obj)


class _PodHandler:
    def __init__(self, queues: _Queues) -> None:
        self.q = queues

    def _record_finalizer(self, old: Any, new: Any) -> None:
        """``recordFinishedPodWithTrackingFinalizer``."""
        was, now = _finished_with_finalizer(old), _finished_with_finalizer(new)
        if was != now:
            self.q.metrics.tracking_finalizer.labels("add" if now else "delete").inc()

    def _adopters(self, pod: Any) -> None:
        ns = pod.metadata.namespace or ""
        for job in self.q.cache.list(Job, ns):
            if job.spec.selector is not None and selector_from_model(job.spec.selector).matches(
                    pod.metadata.labels):
                self.q.job_batched(job)

    def _resolve(self, pod: Any, ref: Any) -> Job | None:
        return resolve_job(self.q.cache, pod.metadata.namespace or "", ref)

    def _sync_owner(self, pod: Any, ref: Any) -> None:
        """Queue the Job ``ref`` names, if it still exists (batched, as upstream's pod handlers)."""
        if self.q.batched_already(pod.metadata.namespace or "", ref):
            return
        job = self._resolve(pod, ref)
        if job is not None:
            self.q.job_batched(job)

    def on_add(self, obj: Any) -> None:
        self._record_finalizer(None, obj)
        if obj.metadata.deletion_timestamp is not None:
            self._deleted(obj)
            return
        ref = obj.metadata.controller_ref()
        if ref is not None:
            self._sync_owner(obj, ref)
            return
        if has_tracking_finalizer(obj):
            self.q.orphan(obj)
        self._adopters(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._record_finalizer(old, new)
        if old.metadata.resource_version == new.metadata.resource_version:
            return
        if new.metadata.deletion_timestamp is not None:
            self._deleted(new)
            return
        ref, old_ref = new.metadata.controller_ref(), old.metadata.controller_ref()
        ref_changed = not _same_ref(ref, old_ref)
        if ref_changed and old_ref is not None:
            self._sync_owner(old, old_ref)
        if ref is not None:
            self._sync_owner(new, ref)
            return
        if has_tracking_finalizer(new):
            self.q.orphan(new)
        if ref_changed or old.metadata.labels != new.metadata.labels:
            self._adopters(new)

    def on_delete(self, obj: Any) -> None:
        self._record_finalizer(obj, None)
        self._deleted(obj)

    def _deleted(self, pod: Any) -> None:
        """``deletePod``: the Job syncs; a pod whose Job is gone or finished goes to the orphans."""
        ref = pod.metadata.controller_ref()
        if ref is None:
            if has_tracking_finalizer(pod):
                self.q.orphan(pod)
            return
        job = self._resolve(pod, ref)
        if job is None or is_job_finished(job):
            if has_tracking_finalizer(pod):
                self.q.orphan(pod)
            return
        self.q.job_batched(job)


def setup(ctx: ControllerContext) -> Controller:
    """Build the ``job`` controller (and its orphan-pod queue). ``ctx.options`` may override
    :class:`SyncConfig` fields."""
    known = set(SyncConfig.__dataclass_fields__)
    config = SyncConfig(**{k: v for k, v in ctx.options.items() if k in known})
    if not gate_on(ctx.features, MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS):
        config = replace(config, clear_start_time_when_suspended=False)
    metrics = JobMetrics(ctx.metrics)
    reconciler = JobReconciler(ctx, config, metrics)
    controller = ctx.build().describe("runs a Job's pods to completion (batch/v1 Job)").complete(reconciler)
    orphans = (ctx.build(ORPHAN_CONTROLLER)
               .describe("releases the job-tracking finalizer of pods no Job will count")
               .complete(OrphanPodReconciler(ctx.cache, ctx.client)))
    queues = _Queues(controller, orphans, ctx, metrics)
    ctx.cache.informer_for(Job).add_event_handler(_JobHandler(queues))
    ctx.cache.informer_for(Pod).add_event_handler(_PodHandler(queues))
    if reconciler.workloads is not None:
        # addSchedulingInformers (pkg/controller/job/job_scheduling_manager.go, 1.36 and 1.37): the
        # Workload and PodGroup informers give the controller listers and indexes, and no event
        # handlers: a Workload or PodGroup event enqueues no Job. The Job creates both before its
        # pods in one sync and reads them back from the cache on its later syncs.
        from kbatch.api.scheduling_v1beta1 import PodGroup, Workload

        ctx.cache.informer_for(Workload)
        ctx.cache.informer_for(PodGroup)
    return controller
