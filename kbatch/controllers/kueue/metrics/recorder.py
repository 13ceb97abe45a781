"""The effectful side of Kueue's counters: an informer handler on Workloads that applies
:func:`.transitions.transitions` to the families, O(1) per event (one pass over each version's
conditions and a few series updates), and keeps the finished workloads of each LocalQueue for the
``finished_workloads`` gauges (the queue manager's ``finishedWorkloads``, kueue
``pkg/cache/queue/manager.go``: a finished workload counts until it is deleted).

LocalQueue series follow ``ShouldExposeLocalQueueMetricsForWorkload``: the ``LocalQueueMetrics`` gate
and the Configuration's ``metrics.localQueueMetrics`` (absent: every LocalQueue; ``enable: false``: none;
``localQueueSelector``: the LocalQueues whose labels match), checked by :class:`LocalQueueFilter`.
An admission also counts in every Cohort above its ClusterQueue
(``kueue_cohort_subtree_admitted_workloads_total``, ``ReportCohortSubtreeAdmittedWorkload``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import LocalQueue, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.kueue.concurrent_admission.variants import is_parent, is_variant
from kbatch.controllers.kueue.metrics.custom_labels import NONE, CustomLabels
from kbatch.controllers.kueue.metrics.families import (
    ROLE,
    ClusterQueueFamilies,
    LocalQueueFamilies,
    QueueFamilies,
)
from kbatch.controllers.kueue.metrics.transitions import Transition, transitions
from kbatch.controllers.kueue.model.info import is_true
from kbatch.runtime.cache import Cache
from kbatch.runtime.metrics import Counter

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


def _key(wl: Workload) -> str:
    return f"{wl.metadata.namespace}/{wl.metadata.name}"


def _lq_key(wl: Workload) -> str:
    return f"{wl.metadata.namespace}/{(wl.spec.queue_name if wl.spec else None) or ''}"


_PARENT_COPIES = frozenset({"quota_reserved", "admitted", "evicted", "eviction_latency"})
_VARIANT_COPIES = frozenset({"ready", "finished"})


def _copied_kinds(wl: Workload) -> frozenset[str]:
    """The transitions of a concurrent-admission parent or Variant that are copies, not recorded."""
    if is_parent(wl):
        return _PARENT_COPIES
    return _VARIANT_COPIES if is_variant(wl) else frozenset()


class WorkloadMetrics:
    """Workload add/update/delete events → the counters, histograms and finished sets."""

    def __init__(self, cq: ClusterQueueFamilies, lq: LocalQueueFamilies | None, lq_filter: LocalQueueFilter,
                 cache: Cache, now: Callable[[], datetime], cohorts: Callable[[str], Iterable[str]],
                 cohort_admitted: Counter, custom: CustomLabels = NONE) -> None:
        self.cq, self.lq, self.lq_filter = cq, lq, lq_filter
        self.cache = cache  # the informers': a LocalQueue's labels, for a selector
        self.now = now
        self.cohorts = cohorts  # a ClusterQueue's ancestor Cohorts, nearest first
        self.cohort_admitted = cohort_admitted
        self.finished: dict[str, set[str]] = {}  # LocalQueue key -> its finished workloads' keys
        self.finished_ever: set[str] = set()  # LocalQueues that held one: their series exists (at 0 too)
        self.counted_cohorts: set[str] = set()  # Cohorts with an admitted-workloads series
        self.custom = custom
        # ``ConcurrentAdmission``: a parent's admission, eviction and a Variant's PodsReady are copies
        # the concurrent-admission controller patches in (upstream reports none of them; the
        # Variant's admission was counted), and a finished Variant is no LocalQueue's finished
        # workload (``Manager.AddFinishedWorkload``)
        self.concurrent_admission = False

    def on_add(self, wl: Workload) -> None:
        if is_true(wl, Cond.FINISHED) and not (self.concurrent_admission and is_variant(wl)):
            self._finished(wl)

    def on_update(self, old: Workload, new: Workload) -> None:
        if old.status is new.status:
            return
        copied = _copied_kinds(new) if self.concurrent_admission else frozenset()
        for t in transitions(old, new, self.now()):
            if t.kind in copied:
                continue
            if t.kind == "finished":
                self._finished(new)
            self._record(t)

    def _finished(self, wl: Workload) -> None:
        lq = _lq_key(wl)
        self.finished.setdefault(lq, set()).add(_key(wl))
        self.finished_ever.add(lq)

    def on_delete(self, wl: Workload) -> None:
        keys = self.finished.get(_lq_key(wl))
        if keys is not None:
            keys.discard(_key(wl))
            if not keys:
                del self.finished[_lq_key(wl)]

    def _record(self, t: Transition) -> None:
        custom = self.custom.cluster_queue(t.cluster_queue)
        cq = self.cq
        if t.kind == "evicted":
            self._evicted(t, custom)
        elif t.kind == "eviction_latency":
            cq.eviction_latency.labels(t.cluster_queue, t.reason, ROLE, *custom).observe(t.wait)
            return
        else:
            _count(cq, t, (t.cluster_queue, t.priority_class, ROLE, *custom))
        if t.kind == "admitted":
            for cohort in self.cohorts(t.cluster_queue):
                self.cohort_admitted.labels(cohort, t.priority_class, ROLE, *self.custom.cohort(cohort)).inc()
                self.counted_cohorts.add(cohort)
        elif t.kind == "finished" and t.first:
            cq.replaced_slices.labels(t.cluster_queue, ROLE, *custom).inc()
        if self.lq is not None and self._exposed(t):
            self._record_local(self.lq, t, self.custom.local_queue(t.namespace, t.local_queue))

    def _evicted(self, t: Transition, custom: tuple[str, ...]) -> None:
        cq = self.cq
        eviction = (t.cluster_queue, t.reason, t.underlying_cause, t.priority_class, ROLE, *custom)
        cq.evicted.labels(*eviction).inc()
        if t.first:
            cq.evicted_once.labels(*eviction).inc()
        if t.since is not None:
            ready = (t.cluster_queue, t.reason, t.underlying_cause, ROLE, *custom)
            cq.pods_ready_to_evicted.labels(*ready).observe(t.since)

    def _exposed(self, t: Transition) -> bool:
        if self.lq_filter.selector is None:
            return self.lq_filter.enabled
        try:
            lq = self.cache.get(LocalQueue, t.local_queue, t.namespace)
        except NotFound:
            return False
        return self.lq_filter.exposes(lq.metadata.labels)

    @staticmethod
    def _record_local(lq: LocalQueueFamilies, t: Transition, custom: tuple[str, ...]) -> None:
        if t.kind == "evicted":
            lq.evicted.labels(t.local_queue, t.namespace, t.reason, t.underlying_cause, t.priority_class,
                              ROLE, *custom).inc()
        else:
            _count(lq, t, (t.local_queue, t.namespace, t.priority_class, ROLE, *custom))


def _count(families: QueueFamilies, t: Transition, key: tuple[str, ...]) -> None:
    """A quota reservation, admission, readiness or finish under ``key``, the queue's labels
    (``QuotaReservedWorkload`` / ``LocalQueueQuotaReservedWorkload``, ``IncrementFinishedWorkloadTotal`` /
    ``IncrementLocalQueueFinishedWorkloadTotal`` and their siblings in kueue ``pkg/metrics/metrics.go``:
    each pair counts one transition alike for either kind of queue)."""
    if t.kind == "quota_reserved":
        families.quota_reserved.labels(*key).inc()
        families.quota_reserved_wait.labels(*key).observe(t.wait)
    elif t.kind == "admitted":
        families.admitted.labels(*key).inc()
        families.admission_wait.labels(*key).observe(t.wait)
        families.admission_checks_wait.labels(*key).observe(t.since or 0.0)
    elif t.kind == "ready":
        families.ready_wait.labels(*key).observe(t.wait)
        families.admitted_until_ready.labels(*key).observe(t.since or 0.0)
    else:  # finished
        families.finished_total.labels(*key).inc()
