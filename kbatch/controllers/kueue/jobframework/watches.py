"""What a job integration's controller watches besides its job kind: Workload events mapped to jobs.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/reconciler.go``
(``SetupWithManager``: ``Owns(&kueue.Workload{})``) and ``pkg/controller/jobs/job/job_controller.go``
(``parentWorkloadHandler``). Mappers are classes, not closures: a saved control plane pickles them.
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.runtime.cache import Cache
from kbatch.runtime.cache.indexer import BY_OWNER_UID
from kbatch.runtime.reconcile import Request

__all__ = ["ChildJobs", "OwnerJob"]


class OwnerJob:
    """Workload events → the job of ``kind`` that controls them (``Owns(&kueue.Workload{})``)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, wl: Workload) -> list[Request]:
        ref = wl.metadata.controller_ref()
        if ref is None or ref.kind != self.kind:
            return []
        return [Request(wl.metadata.namespace or "", ref.name)]


class ChildJobs:
    """A Workload created or updated → the batch Jobs its owner controls (``parentWorkloadHandler``:
    the child jobs of a JobSet, say, whose suspension follows their parent's Workload; deletes are
    ignored, as upstream's handler does: register it with a predicate passing no deletes)."""

    __slots__ = ("cache",)
    maps_old_on_update = False  # Update reads ``ObjectNew`` only

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def __call__(self, wl: Workload) -> list[Request]:
        owner = wl.metadata.controller_ref()
        if owner is None:
            return []
        namespace = wl.metadata.namespace or ""
        jobs = self.cache.list(Job, namespace, index=(BY_OWNER_UID, owner.uid))
        return [Request(namespace, job.metadata.name or "") for job in jobs]

    def __getstate__(self) -> Cache:
        return self.cache

    def __setstate__(self, state: Cache) -> None:
        self.cache = state
