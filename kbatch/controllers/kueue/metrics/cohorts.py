"""Kueue's Cohort metrics and the hierarchy gauges, read from the cache's quota tree at scrape time.

Upstream (kueue v0.19.2): ``pkg/cache/scheduler/cohort_metrics.go`` (``RecordCohortMetrics``: per
Cohort and flavor/resource, the subtree's nominal quota and the reservations of every ClusterQueue
below it, a series only while the value is above 0; ``recordCohortInfo``, ``recordCQInfo``),
``clusterqueue.go`` (``reportActiveWorkloads``: admitted workloads per Cohort subtree;
``reportWeightedShare``), ``cache.go`` (``ResyncCohortGaugeMetrics``: the Cohort's weighted share with
fair sharing on). The ``_info`` and subtree quota/reservation gauges need ``MetricsForCohorts`` (beta,
on); the weighted shares need ``fairSharing`` in the Configuration (a ClusterQueue's also
``metrics.enableClusterQueueResources``, where upstream reports it; a ClusterQueue's infinite share,
zero weight while borrowing, is NaN). A Cohort caught in a cycle reports nothing, as upstream skips it.
``kueue_cohort_subtree_admitted_workloads_total`` is a counter, moved by
:class:`~.recorder.WorkloadMetrics` on each admission.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbatch.controllers.kueue.metrics.custom_labels import (
    CLUSTER_QUEUE,
    COHORT,
    CustomLabels,
    custom_labels_of,
)
from kbatch.controllers.kueue.metrics.families import ROLE, amount, help_text
from kbatch.controllers.kueue.model.quota import Cohort, has_cycle, path_to_root, root_of
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.scheduling.fairshare import dominant_resource_share
from kbatch.runtime.metrics import Counter, Gauge, MetricsRegistry

if TYPE_CHECKING:
    from kbatch.controllers.kueue.cache import KueueCache
    from kbatch.controllers.kueue.metrics.families import ClusterQueueFamilies

__all__ = ["CohortFamilies", "ancestors", "report_cluster_queue", "report_cohorts"]

_FR = ("cohort", "flavor", "resource", "replica_role")


@dataclass(frozen=True)
class CohortFamilies:
    weighted_share: Gauge
    subtree_quota: Gauge
    subtree_admitted: Counter
    subtree_reservations: Gauge
    subtree_admitted_active: Gauge
    info: Gauge

    @classmethod
    def register(cls, r: MetricsRegistry) -> CohortFamilies:
        """The Cohort custom labels on each, but the ClusterQueue ones on
        ``cohort_subtree_admitted_active_workloads`` (``InitMetricVectors``)."""
        cl = custom_labels_of(r)
        extra = cl.names(COHORT)

        def gauge(name: str, labels: tuple[str, ...], more: tuple[str, ...] = extra) -> Gauge:
            return r.gauge(name, help_text(name), labels + more)

        return cls(
            weighted_share=gauge("kueue_cohort_weighted_share", ("cohort", "replica_role")),
            subtree_quota=gauge("kueue_cohort_subtree_quota", _FR),
            subtree_admitted=r.counter("kueue_cohort_subtree_admitted_workloads_total",
                                       help_text("kueue_cohort_subtree_admitted_workloads_total"),
                                       ("cohort", "priority_class", "replica_role", *extra)),
            subtree_reservations=gauge("kueue_cohort_subtree_resource_reservations", _FR),
            subtree_admitted_active=gauge("kueue_cohort_subtree_admitted_active_workloads",
                                          ("cohort", "replica_role"), cl.names(CLUSTER_QUEUE)),
            info=gauge("kueue_cohort_info", ("cohort", "parent_cohort", "root_cohort", "replica_role")),
        )


def ancestors(cache: KueueCache, cq_name: str) -> list[str]:
    """The Cohorts above a ClusterQueue, parent first (``workloadAncestors``); none in a cycle."""
    node = cache.cluster_queues.get(cq_name)
    if node is None or has_cycle(node):
        return []
    return [c.name for c in path_to_root(node)]


def _reservations(cohort: Cohort) -> dict[FlavorResource, int]:
    total: dict[FlavorResource, int] = {}
    for cq in cohort.subtree_cluster_queues():
        for fr, value in cq.usage.items():
            total[fr] = total.get(fr, 0) + value
    return total


def report_cohorts(cache: KueueCache, fam: CohortFamilies, cl: CustomLabels, *, info: bool,
                   fair_sharing: bool) -> None:
    """Sets every Cohort gauge (quantities as the ClusterQueue resource gauges give them)."""
    for family in (fam.weighted_share, fam.subtree_quota, fam.subtree_reservations,
                   fam.subtree_admitted_active, fam.info):
        family.clear()
    for name in sorted(cache.cohorts):
        cohort = cache.cohorts[name]
        if has_cycle(cohort):
            continue
        custom = cl.cohort(name)
        _subtree_admitted(cache, fam, cl, cohort)
        if fair_sharing:
            share = dominant_resource_share(cohort).precise_weighted_share()
            fam.weighted_share.labels(name, ROLE, *custom).set(share)
        if not info:
            continue
        parent = cohort.parent.name if cohort.parent is not None else ""
        fam.info.labels(name, parent, root_of(cohort).name, ROLE, *custom).set(1)
        reserved = _reservations(cohort)
        for fr in sorted(set(cohort.subtree_quota) | set(reserved)):
            flavor, resource = fr
            quota, reservation = cohort.subtree_quota.get(fr, 0), reserved.get(fr, 0)
            if quota > 0:
                fam.subtree_quota.labels(name, flavor, resource, ROLE, *custom).set(amount(resource, quota))
            if reservation > 0:
                series = fam.subtree_reservations.labels(name, flavor, resource, ROLE, *custom)
                series.set(amount(resource, reservation))


def _subtree_admitted(cache: KueueCache, fam: CohortFamilies, cl: CustomLabels, cohort: Cohort) -> None:
    """The subtree's admitted workloads, under each of its ClusterQueues' custom label values
    (upstream's ``reportActiveWorkloads`` reports the Cohort's count with the reporting
    ClusterQueue's values)."""
    cqs = cohort.subtree_cluster_queues()
    if not cqs:
        return
    admitted = sum(s.admitted_count for cq in cqs if (s := cache.states.get(cq.name)) is not None)
    for custom in sorted({cl.cluster_queue(cq.name) for cq in cqs}):
        fam.subtree_admitted_active.labels(cohort.name, ROLE, *custom).set(admitted)


def report_cluster_queue(cache: KueueCache, cq: ClusterQueueFamilies, name: str, custom: tuple[str, ...], *,
                         info: bool, weighted_share: bool) -> None:
    """A ClusterQueue's hierarchy info and weighted share; ``custom``: its custom label values."""
    node = cache.cluster_queues[name]
    if has_cycle(node):
        return
    parent = node.parent.name if node.parent is not None else ""
    if info:
        root = root_of(node).name if node.parent is not None else ""
        cq.info.labels(name, parent, root, ROLE, *custom).set(1)
    if weighted_share:
        share = dominant_resource_share(node).precise_weighted_share()
        cq.weighted_share.labels(name, parent, ROLE, *custom).set(math.nan if math.isinf(share) else share)
