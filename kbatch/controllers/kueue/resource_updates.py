"""RuntimeClass overhead and LimitRanges as Kueue's manager applies them to pending Workloads, and
their events.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/workload/resources.go`` (``AdjustResources``, called
by the queue manager's ``AddOrUpdateWorkload``, ``AddLocalQueue`` and ``RequeueWorkload`` in
``pkg/cache/queue/manager.go`` before ``NewInfo``; ``ValidateLimitRange`` in
``ValidateAdmissibility``) and ``pkg/controller/core/workload_controller.go``
(``resourceUpdatesHandler``: a LimitRange created, updated or deleted re-adds the namespace's
Workloads without a quota reservation to the queues, adjusted again; a RuntimeClass event does the
same for the Workloads whose pod sets name it, ``WorkloadRuntimeClassKey``).

:class:`ResourceAdjuster` is the queue manager's ``AdjustResources``: first ``handlePodOverhead``
(a pod set naming a RuntimeClass and stating no overhead gets the class's,
:func:`kbatch.controllers.kueue.model.overhead.with_pod_overhead`), then a Workload in a namespace
with a ``Container`` or ``Pod`` LimitRange item is read with its defaults filled in
(:func:`kbatch.controllers.kueue.model.limitranges.adjust`), so its requests, the
``status.resourceRequests`` the scheduler records and the flavor assignment all count them; a
Workload neither changes is passed through as the same object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.core_v1 import LimitRange
from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.node_v1 import RuntimeClass
from kbatch.controllers.kueue.model.limitranges import Summary, adjust, summarize, violations
from kbatch.controllers.kueue.model.overhead import with_pod_overhead

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["LimitRangeHandler", "ResourceAdjuster", "RuntimeClassHandler"]


class ResourceAdjuster:
    """Reads the informer cache's RuntimeClasses and LimitRanges (see the module docstring). Pickles
    as its cache."""

    __slots__ = ("cache",)

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def summary(self, namespace: str) -> Summary | None:
        ranges = self.cache.list(LimitRange, namespace)
        if not ranges:
            return None
        return summarize(sorted(ranges, key=lambda lr: lr.metadata.name or ""))

    def runtime_class(self, name: str) -> RuntimeClass | None:
        try:
            return self.cache.get(RuntimeClass, name)  # type: ignore[no-any-return]
        except NotFound:  # upstream logs the failed Get and counts the pod set without overhead
            return None

    def __call__(self, wl: Workload) -> Workload:
        wl = with_pod_overhead(wl, self.runtime_class)
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
        _requeue_pending(self.mgr, self.mgr.ctx.cache.list(Workload, lr.metadata.namespace or ""))


class RuntimeClassHandler:
    """``resourceUpdatesHandler`` for RuntimeClasses: every event re-adds the Workloads without a quota
    reservation whose pod sets name the class (upstream's ``WorkloadRuntimeClassKey`` index) to their
    queues, which adjust them again."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, rc: RuntimeClass) -> None:
        self._requeue(rc)

    def on_update(self, old: RuntimeClass, new: RuntimeClass) -> None:
        self._requeue(new)

    def on_delete(self, rc: RuntimeClass) -> None:
        self._requeue(rc)

    def _requeue(self, rc: RuntimeClass) -> None:
        name = rc.metadata.name
        users = [wl for wl in self.mgr.ctx.cache.list(Workload) if name in _runtime_classes(wl)]
        _requeue_pending(self.mgr, users)


def _runtime_classes(wl: Workload) -> set[str]:
    """``IndexWorkloadRuntimeClass``: the classes the pod sets' templates name."""
    pod_sets = wl.spec.pod_sets if wl.spec is not None else None
    return {ps.template.spec.runtime_class_name for ps in pod_sets or ()
            if ps.template is not None and ps.template.spec is not None
            and ps.template.spec.runtime_class_name is not None}


def _requeue_pending(mgr: KueueManager, workloads: list[Workload]) -> None:
    """``queueReconcileForPending``: each Workload without a quota reservation that may be admitted
    goes back to its queue (adjusted there again); the scheduler is woken once if any did."""
    from kbatch.controllers.kueue.queues import admissible

    queued = False
    for wl in workloads:
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
