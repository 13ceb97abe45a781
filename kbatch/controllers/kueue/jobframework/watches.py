"""What a batch/v1 Job integration's controller watches besides its job kind and the Workloads it owns.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_controller.go``
(``parentWorkloadHandler``). The owned Workloads themselves (``reconciler.go`` ``SetupWithManager``:
``Owns(&kueue.Workload{})``) are the builder's ``owns``, :class:`kbatch.runtime.handler.enqueue_owner`,
which compares the controller reference's group and kind as controller-runtime's
``EnqueueRequestForOwner`` does. Mappers are classes, not closures: a saved control plane pickles them.
"""

from __future__ import annotations

from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.runtime.cache import Cache
from kbatch.runtime.cache.indexer import BY_OWNER_UID
from kbatch.runtime.reconcile import Request

__all__ = ["ChildJobs"]


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
