"""Registering the ``job`` controller on a control plane (catalog entry ``kbatch.controllers.job:setup``).

Event handlers follow upstream's (job_controller.go ``addJob``/``updateJob``/``addPod``/...):
a Job add, a spec (generation) change, a deletion mark or a Job delete enqueue the Job now; any other
Job update (its status) and every Pod event enqueue it after the 1 s batching period. Pods without a
controller are mapped to the Jobs whose selector matches them, for adoption.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.job.context import SyncConfig
from kbatch.controllers.job.controller import SYNC_BATCH_PERIOD, JobReconciler
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.reconcile import Request

__all__ = ["setup"]


def _request(obj: Any) -> Request:
    return Request(obj.metadata.namespace or "", obj.metadata.name or "")


class _JobHandler:
    def __init__(self, controller: Controller) -> None:
        self.queue = controller.queue

    def on_add(self, obj: Any) -> None:
        self.queue.add(_request(obj))

    def on_update(self, old: Any, new: Any) -> None:
        urgent = (old.metadata.generation != new.metadata.generation
                  or old.metadata.deletion_timestamp != new.metadata.deletion_timestamp)
        if urgent:
            self.queue.add(_request(new))
        else:
            self.queue.add_after(_request(new), SYNC_BATCH_PERIOD)

    def on_delete(self, obj: Any) -> None:
        self.queue.add(_request(obj))


class _PodHandler:
    def __init__(self, controller: Controller, ctx: ControllerContext) -> None:
        self.queue = controller.queue
        self.ctx = ctx

    def _jobs(self, pod: Any) -> list[Request]:
        ref = pod.metadata.controller_ref()
        ns = pod.metadata.namespace or ""
        if ref is not None:
            if ref.kind == "Job" and ref.api_version.startswith("batch/"):
                return [Request(ns, ref.name)]
            return []
        out = []
        for job in self.ctx.cache.list(Job, ns, readonly=True):
            if job.spec.selector is not None and selector_from_model(job.spec.selector).matches(
                    pod.metadata.labels):
                out.append(_request(job))
        return out

    def _enqueue(self, pod: Any) -> None:
        for req in self._jobs(pod):
            self.queue.add_after(req, SYNC_BATCH_PERIOD)

    def on_add(self, obj: Any) -> None:
        self._enqueue(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(new)
        if old.metadata.controller_ref() != new.metadata.controller_ref():
            self._enqueue(old)

    def on_delete(self, obj: Any) -> None:
        self._enqueue(obj)


def setup(ctx: ControllerContext) -> Controller:
    """Build the ``job`` controller. ``ctx.options`` may override :class:`SyncConfig` fields."""
    known = set(SyncConfig.__dataclass_fields__)
    config = SyncConfig(**{k: v for k, v in ctx.options.items() if k in known})
    reconciler = JobReconciler(ctx, config)
    controller = ctx.build().describe("runs a Job's pods to completion (batch/v1 Job)").complete(reconciler)
    ctx.cache.informer_for(Job).add_event_handler(_JobHandler(controller))
    ctx.cache.informer_for(Pod).add_event_handler(_PodHandler(controller, ctx))
    return controller
