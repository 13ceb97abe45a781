"""The effectful side of Kueue's counters: an informer handler on Workloads that applies
:func:`.transitions.transitions` to the families, O(1) per event (a few condition lookups and at most
three series updates).

LocalQueue series follow ``ShouldExposeLocalQueueMetricsForWorkload``: the ``LocalQueueMetrics`` gate
and the Configuration's ``metrics.localQueueMetrics`` (absent: every LocalQueue; ``enable: false``: none;
``localQueueSelector``: the LocalQueues whose labels match), checked by :class:`LocalQueueFilter`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import LocalQueue, Workload
from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.kueue.metrics.families import ROLE, ClusterQueueFamilies, LocalQueueFamilies
from kbatch.controllers.kueue.metrics.transitions import Transition, transitions
from kbatch.runtime.cache import Cache

__all__ = ["LocalQueueFilter", "WorkloadMetrics"]


class LocalQueueFilter:
    """``LocalQueueMetricsConfig.ShouldExposeLocalQueueMetrics`` (kueue ``pkg/metrics/localqueue.go``)."""

    def __init__(self, gate: bool, config: Mapping[str, Any] | None) -> None:
        lq = (config or {}).get("localQueueMetrics")
        self.enabled = gate and (lq is None or bool(lq.get("enable")))
        selector = lq.get("localQueueSelector") if isinstance(lq, Mapping) else None
        self.selector = selector_from_model(LabelSelector.model_validate(selector)) if selector else None

    def exposes(self, labels: Mapping[str, str] | None) -> bool:
        return self.enabled and (self.selector is None or self.selector.matches(labels or {}))


class WorkloadMetrics:
    """Workload add/update/delete events → the counters and histograms."""

    def __init__(self, cq: ClusterQueueFamilies, lq: LocalQueueFamilies | None, lq_filter: LocalQueueFilter,
                 cache: Cache, now: Callable[[], datetime]) -> None:
        self.cq, self.lq, self.lq_filter = cq, lq, lq_filter
        self.cache = cache  # the informers': a LocalQueue's labels, for a selector
        self.now = now

    def on_add(self, wl: Workload) -> None:
        return None

    def on_update(self, old: Workload, new: Workload) -> None:
        if old.status is new.status:
            return
        for t in transitions(old, new, self.now()):
            self._record(t)

    def on_delete(self, wl: Workload) -> None:
        return None

    def _record(self, t: Transition) -> None:
        cq = self.cq
        if t.kind == "quota_reserved":
            cq.quota_reserved.labels(t.cluster_queue, t.priority_class, ROLE).inc()
            cq.quota_reserved_wait.labels(t.cluster_queue, t.priority_class, ROLE).observe(t.wait)
        elif t.kind == "admitted":
            cq.admitted.labels(t.cluster_queue, t.priority_class, ROLE).inc()
            cq.admission_wait.labels(t.cluster_queue, t.priority_class, ROLE).observe(t.wait)
        else:
            cq.evicted.labels(t.cluster_queue, t.reason, t.underlying_cause, t.priority_class, ROLE).inc()
        if self.lq is not None and self._exposed(t):
            self._record_local(self.lq, t)

    def _exposed(self, t: Transition) -> bool:
        if self.lq_filter.selector is None:
            return self.lq_filter.enabled
        try:
            lq = self.cache.get(LocalQueue, t.local_queue, t.namespace)
        except NotFound:
            return False
        return self.lq_filter.exposes(lq.metadata.labels)

    @staticmethod
    def _record_local(lq: LocalQueueFamilies, t: Transition) -> None:
        key = (t.local_queue, t.namespace, t.priority_class, ROLE)
        if t.kind == "quota_reserved":
            lq.quota_reserved.labels(*key).inc()
            lq.quota_reserved_wait.labels(*key).observe(t.wait)
        elif t.kind == "admitted":
            lq.admitted.labels(*key).inc()
            lq.admission_wait.labels(*key).observe(t.wait)
        else:
            lq.evicted.labels(t.local_queue, t.namespace, t.reason, t.underlying_cause, t.priority_class,
                              ROLE).inc()
