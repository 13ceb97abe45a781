"""The AdmissionCheck reconciler: the ``kueue.x-k8s.io/resource-in-use`` finalizer of a check.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/admissioncheck_controller.go``
(``AdmissionCheckReconciler.Reconcile``; integration test
``test/integration/singlecluster/controller/core/admissioncheck_controller_test.go``).

* A check that is not being deleted gets the finalizer (its own reconcile, on create: the
  AdmissionCheck webhook adds none, unlike the ClusterQueue's and ResourceFlavor's).
* A check being deleted keeps it while a ClusterQueue of the cache names it
  (``Cache.ClusterQueuesUsingAdmissionCheck``); no retry is scheduled: the ClusterQueue events
  that stop naming it bring it back (``acCqHandler``, :func:`.watches.released_checks`).
* Meanwhile the cache keeps the check as it was (``AdmissionCheckReconciler.Update`` skips the cache
  for a check being deleted), so its ClusterQueues stay active; the check leaves the cache once it
  is gone, and a ClusterQueue naming it then reads ``AdmissionCheckNotFound``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from kbatch.api import edit
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck
from kbatch.api.kueue_v1beta2.constants import RESOURCE_IN_USE_FINALIZER
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["AdmissionCheckFinalizer", "finalizers_after"]


def finalizers_after(finalizers: list[str], deleting: bool, in_use: bool) -> list[str]:
    """The check's finalizers after its reconcile: added while it lives, dropped once it is being
    deleted and no ClusterQueue names it, kept otherwise."""
    if not deleting:
        if RESOURCE_IN_USE_FINALIZER in finalizers:
            return finalizers
        return [*finalizers, RESOURCE_IN_USE_FINALIZER]
    if in_use:
        return finalizers
    return [f for f in finalizers if f != RESOURCE_IN_USE_FINALIZER]


class AdmissionCheckFinalizer:
    """``AdmissionCheckReconciler.Reconcile`` (see the module docstring)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        ac = self.mgr.get(AdmissionCheck, request.name)
        if ac is None:
            return None
        current = list(ac.metadata.finalizers or ())
        deleting = ac.metadata.deletion_timestamp is not None
        in_use = deleting and bool(self.mgr.cache.clusterqueues_using_check(request.name))
        wanted = finalizers_after(current, deleting, in_use)
        if wanted == current:
            return None
        obj = edit(ac)
        obj.metadata.finalizers = wanted or None
        with contextlib.suppress(Conflict, NotFound):  # a conflict brings a newer event back
            self.mgr.ctx.client.update(obj)
        return None
