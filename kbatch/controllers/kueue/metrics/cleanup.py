"""A deleted queue's counters and histograms go with it, as upstream's cleanups drop them (kueue
``pkg/metrics/metrics.go``, v0.19.2): ``ClearClusterQueueMetrics`` when a ClusterQueue is deleted
(its reservations, admissions, finishes, evictions, waits, preemptions it issued, gate removals and
the scheduler's preemption skips), ``ClearLocalQueueMetrics`` when a LocalQueue is
(``pkg/cache/queue/manager.go``). The gauges need no cleanup: the collector sets them from the current
state at each scrape. A Cohort's admitted-workloads counter goes when the Cohort leaves the cache
(``ClearCohortAdmittedWorkloadsMetrics``), checked at scrape by :func:`prune_cohorts`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.kueue_v1beta2 import ClusterQueue
from kbatch.controllers.kueue.metrics.cohorts import CohortFamilies
from kbatch.controllers.kueue.metrics.custom_labels import CLUSTER_QUEUE, LOCAL_QUEUE, NONE, CustomLabels
from kbatch.controllers.kueue.metrics.families import ClusterQueueFamilies, LocalQueueFamilies
from kbatch.runtime.metrics import MetricsRegistry

__all__ = ["QueueCleanup", "prune_cohorts"]

_GATE_REMOVAL = "kueue_pod_scheduling_gate_removal_seconds"


class QueueCleanup:
    """Informer handler for ClusterQueue and LocalQueue deletions."""

    def __init__(self, registry: MetricsRegistry, cq: ClusterQueueFamilies,
                 lq: LocalQueueFamilies | None, custom: CustomLabels = NONE) -> None:
        self.registry, self.cq, self.lq, self.custom = registry, cq, lq, custom

    def on_add(self, obj: Any) -> None:
        return None

    def on_update(self, old: Any, new: Any) -> None:
        """A queue whose custom label values change loses its counters and histograms, as upstream
        resyncs it (``resyncClusterQueueGaugeMetrics`` with ``ClearClusterQueueMetricsOnLabelChange``,
        which also drops ``replaced_workload_slices_total``; the LocalQueue controller's
        ``clearLocalQueueMetrics``); the next events count under the new values."""
        name = new.metadata.name or ""
        if isinstance(new, ClusterQueue):
            if self.custom.changed(CLUSTER_QUEUE, old, new):
                self._cluster_queue(name)
                self.cq.replaced_slices.delete_partial_match(cluster_queue=name)
        elif self.lq is not None and self.custom.changed(LOCAL_QUEUE, old, new):
            self._local_queue(self.lq, name, new.metadata.namespace or "")

    def on_delete(self, obj: Any) -> None:
        name = obj.metadata.name or ""
        if isinstance(obj, ClusterQueue):
            self._cluster_queue(name)
        elif self.lq is not None:
            self._local_queue(self.lq, name, obj.metadata.namespace or "")

    def _cluster_queue(self, name: str) -> None:
        cq = self.cq
        for family in (*cq.counted(), cq.pods_ready_to_evicted, cq.evicted_once, cq.eviction_latency,
                       cq.preemption_skips):
            family.delete_partial_match(cluster_queue=name)
        cq.preempted.delete_partial_match(preempting_cluster_queue=name)
        removal = self.registry.get(_GATE_REMOVAL)
        if removal is not None:
            removal.delete_partial_match(cluster_queue=name)

    @staticmethod
    def _local_queue(lq: LocalQueueFamilies, name: str, namespace: str) -> None:
        for family in lq.counted():
            family.delete_partial_match(name=name, namespace=namespace)


def prune_cohorts(families: CohortFamilies, counted: set[str], present: Iterable[str]) -> None:
    """Drop the admitted-workloads counter of each counted Cohort no longer ``present``."""
    for cohort in sorted(counted - set(present)):
        families.subtree_admitted.delete_partial_match(cohort=cohort)
        counted.discard(cohort)
