"""``ttl-after-finished``: delete finished Jobs once ``spec.ttlSecondsAfterFinished`` has passed.

Upstream: ``pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`` (KEP-592).

* A Job *needs cleanup* when it has a TTL, is not being deleted, and has a ``Complete`` or
  ``Failed`` condition with status ``True``; its finish time is that condition's
  ``lastTransitionTime``, and it expires at finish time + TTL.
* Before expiry the request comes back at the expiry instant (``requeue_after``).
* Events (``addJob``/``updateJob``): a Job added or updated that needs cleanup is queued; a deleted
  Job is not (upstream registers no ``DeleteFunc``: nothing is left to clean up).
* At expiry the Job is read again *from the API server*, not the cache (the TTL may have been
  changed, or the Job restarted), re-checked, and deleted with ``Foreground`` propagation and a
  ``uid`` precondition, so its pods go first and a re-created Job of the same name is never hit.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from kbatch.api.errors import Conflict, NotFound
from kbatch.apiserver.client import Preconditions
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.predicate import Funcs
from kbatch.runtime.reconcile import Request, Result, TerminalError

__all__ = ["TTLAfterFinishedReconciler", "expires_at", "needs_cleanup", "setup"]


def _finished_condition(job: Any) -> Any:
    """The true ``Complete``/``Failed`` condition, if the Job has finished."""
    for cond in (job.status.conditions if job.status else None) or ():
        if cond.type in ("Complete", "Failed") and cond.status == "True":
            return cond
    return None


def needs_cleanup(job: Any) -> bool:
    return (job.spec.ttl_seconds_after_finished is not None
            and job.metadata.deletion_timestamp is None
            and _finished_condition(job) is not None)


def expires_at(job: Any) -> datetime | None:
    """When the Job may be deleted (finish time + TTL), or None when it does not need cleanup."""
    if not needs_cleanup(job):
        return None
    finished = _finished_condition(job).last_transition_time
    if finished is None:
        raise TerminalError(f"unable to find the time when Job {job.namespace}/{job.name} finished")
    return finished + timedelta(seconds=job.spec.ttl_seconds_after_finished)


class TTLAfterFinishedReconciler:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.batch_v1 import Job

        self.job_kind = Job
        self.ctx = ctx

    def _time_left(self, job: Any) -> float | None:
        expiry = expires_at(job)
        if expiry is None:
            return None
        return (expiry - self.ctx.clock.now_datetime()).total_seconds()

    def reconcile(self, request: Request) -> Result | None:
        try:
            cached = self.ctx.cache.get(self.job_kind, request.name, request.namespace)
        except NotFound:
            return None
        left = self._time_left(cached)
        if left is None:
            return None
        if left > 0:
            return Result(requeue_after=left)
        try:  # expired: confirm against the API server, not the cache
            fresh = self.ctx.client.get(self.job_kind, request.name, request.namespace_or_none)
        except NotFound:
            return None
        left = self._time_left(fresh)
        if left is None:
            return None
        if left > 0:
            return Result(requeue_after=left)
        try:
            self.ctx.client.delete(self.job_kind, request.name, request.namespace_or_none,
                                   propagation_policy="Foreground",
                                   preconditions=Preconditions(uid=fresh.metadata.uid))
        except (NotFound, Conflict):
            return None
        return None


def setup(ctx: ControllerContext) -> Controller:
    from kbatch.api.batch_v1 import Job

    return (ctx.build()
            .describe("deletes finished Jobs ttlSecondsAfterFinished after they end")
            .for_(Job, Funcs(create=needs_cleanup, update=needs_cleanup, delete=False))
            .complete(TTLAfterFinishedReconciler(ctx)))
