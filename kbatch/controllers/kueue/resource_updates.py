"""LimitRanges as Kueue's manager applies them to pending Workloads, and their events.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workload/resources.go`` (``AdjustResources``, called
by the queue manager's ``AddOrUpdateWorkload``, ``AddLocalQueue`` and ``RequeueWorkload`` in
``pkg/cache/queue/manager.go`` before ``NewInfo``; ``ValidateLimitRange`` in
``ValidateAdmissibility``) and ``pkg/controller/core/workload_controller.go``
(``resourceUpdatesHandler``: a LimitRange created, updated or deleted re-adds the namespace's
Workloads without a quota reservation to the queues, adjusted again).

:class:`ResourceAdjuster` is the queue manager's ``AdjustResources``: a Workload in a namespace
with a ``Container`` or ``Pod`` LimitRange item is read with its defaults filled in
(:func:`kbatch.controllers.kueue.model.limitranges.adjust`), so its requests, the
``status.resourceRequests`` the scheduler records and the flavor assignment all count them; any
other Workload is passed through as the same object. RuntimeClass overhead is the other half of
upstream's ``AdjustResources`` (``handlePodOverhead``): kbatch serves no ``node.k8s.io``
RuntimeClass, so a pod set's ``overhead`` counts only when the template sets it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.core_v1 import LimitRange
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.limitranges import Summary, adjust, summarize, violations

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["LimitRangeHandler", "ResourceAdjuster"]


class ResourceAdjuster:
    """Reads the informer cache's LimitRanges (see the module docstring). Pickles as its cache."""

    __slots__ = ("cache",)

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def summary(self, namespace: str) -> Summary | None:
        ranges = self.cache.list(LimitRange, namespace)
        if not ranges:
            return None
        return summarize(sorted(ranges, key=lambda lr: lr.metadata.name or ""))

    def __call__(self, wl: Workload) -> Workload:
        summary = self.summary(wl.metadata.namespace or "")
        return wl if summary is None else adjust(wl, summary)

    def violations(self, wl: Workload) -> list[str]:
        """``ValidateLimitRange`` against the namespace's LimitRanges now."""
        summary = self.summary(wl.metadata.namespace or "")
        return [] if summary is None else violations(wl, summary)

    def __getstate__(self) -> Any:
        return self.cache

    def __setstate__(self, state: Any) -> None:
        self.cache = state


class LimitRangeHandler:
    """``resourceUpdatesHandler`` for LimitRanges: every event re-adds the namespace's Workloads
    that hold no quota reservation (``WorkloadQuotaReservedKey`` False) to their queues, which
    adjust them again; an inadmissible one whose adjusted spec changed goes back to its heap."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, lr: LimitRange) -> None:
        self._requeue(lr)

    def on_update(self, old: LimitRange, new: LimitRange) -> None:
        self._requeue(new)

    def on_delete(self, lr: LimitRange) -> None:
        self._requeue(lr)

    def _requeue(self, lr: LimitRange) -> None:
        from kbatch.controllers.kueue.queues import admissible

        mgr = self.mgr
        queued = False
        for wl in mgr.ctx.cache.list(Workload, lr.metadata.namespace or ""):
            if _reserved(wl) or not admissible(wl, mgr.queues.admission_gated_by):
                continue
            queued |= mgr.queues.add_or_update_workload(wl)
        if queued:
            mgr.kick()


def _reserved(wl: Workload) -> bool:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == "QuotaReserved":
            return c.status == "True"
    return False
