"""Kueue's Prometheus metric families: names, label names and buckets as kueue ``pkg/metrics/metrics.go``
(v0.19.2) declares them (subsystem ``kueue``); the HELP texts are kbatch's own summaries.

Only the families :mod:`kbatch.controllers.kueue.metrics` keeps are declared: the ClusterQueue ones
(pending, reserving and admitted workloads, quota reservations, admissions, evictions, preemptions,
their wait times, the queue's status, its quotas and usage), the LocalQueue ones ``RegisterLQMetrics``
adds with ``LocalQueueMetrics``, and admission fair sharing's usage.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.runtime.metrics import Counter, Gauge, Histogram, MetricsRegistry

__all__ = ["ROLE", "ClusterQueueFamilies", "LocalQueueFamilies", "kueue_buckets", "preempted_workloads"]

# ``roletracker.GetRole(nil)``: kbatch runs one Kueue manager per control plane, no replica tracker
ROLE = "standalone"
_CQ = ("cluster_queue", "priority_class", "replica_role")
_LQ = ("name", "namespace", "priority_class", "replica_role")
_EVICTION = ("reason", "underlying_cause", "priority_class", "replica_role")
_RESOURCE = ("cohort", "cluster_queue", "flavor", "resource", "replica_role")
_LQ_RESOURCE = ("name", "namespace", "flavor", "resource", "replica_role")


def kueue_buckets(count: int) -> tuple[float, ...]:
    """``generateExponentialBuckets``: 1, then ``count - 1`` buckets from 2.5 doubling."""
    return (1.0, *(2.5 * 2 ** i for i in range(count - 1)))


def preempted_workloads(registry: MetricsRegistry) -> Counter:
    """``kueue_preempted_workloads_total`` (``ReportPreemption``), by the preemptor's ClusterQueue."""
    return registry.counter("kueue_preempted_workloads_total",
                            "Workloads preempted, by the preempting ClusterQueue and the preemption reason",
                            ("preempting_cluster_queue", "reason", "replica_role"))


@dataclass(frozen=True)
class ClusterQueueFamilies:
    pending: Gauge
    quota_reserved: Counter
    quota_reserved_wait: Histogram
    admitted: Counter
    admission_wait: Histogram
    evicted: Counter
    preempted: Counter
    reserving_active: Gauge
    admitted_active: Gauge
    status: Gauge
    reservation: Gauge
    usage: Gauge
    nominal: Gauge
    borrowing: Gauge
    lending: Gauge

    @classmethod
    def register(cls, r: MetricsRegistry) -> ClusterQueueFamilies:
        return cls(
            pending=r.gauge("kueue_pending_workloads", "Pending workloads, by ClusterQueue and status "
                            "(active: in the queue; inadmissible: set aside until something changes)",
                            ("cluster_queue", "status", "replica_role")),
            quota_reserved=r.counter("kueue_quota_reserved_workloads_total",
                                     "Workloads that got a quota reservation, by ClusterQueue", _CQ),
            quota_reserved_wait=r.histogram(
                "kueue_quota_reserved_wait_time_seconds",
                "Seconds from a workload's creation or requeue to its quota reservation, by ClusterQueue",
                _CQ, kueue_buckets(14)),
            admitted=r.counter("kueue_admitted_workloads_total", "Workloads admitted, by ClusterQueue", _CQ),
            admission_wait=r.histogram(
                "kueue_admission_wait_time_seconds",
                "Seconds from a workload's creation or requeue to its admission, by ClusterQueue",
                _CQ, kueue_buckets(16)),
            evicted=r.counter("kueue_evicted_workloads_total",
                              "Workload evictions, by ClusterQueue, reason and underlying cause",
                              ("cluster_queue", *_EVICTION)),
            preempted=preempted_workloads(r),
            reserving_active=r.gauge("kueue_reserving_active_workloads",
                                     "Workloads holding a quota reservation, by ClusterQueue",
                                     ("cluster_queue", "replica_role")),
            admitted_active=r.gauge("kueue_admitted_active_workloads",
                                    "Admitted active workloads, by ClusterQueue",
                                    ("cluster_queue", "replica_role")),
            status=r.gauge("kueue_cluster_queue_status",
                           "1 for the ClusterQueue's status (pending, active or terminating), 0 for others",
                           ("cluster_queue", "status", "replica_role")),
            reservation=r.gauge("kueue_cluster_queue_resource_reservation",
                                "Resources reserved in the ClusterQueue, by flavor and resource", _RESOURCE),
            usage=r.gauge("kueue_cluster_queue_resource_usage",
                          "Resources admitted workloads use in the ClusterQueue, by flavor and resource",
                          _RESOURCE),
            nominal=r.gauge("kueue_cluster_queue_nominal_quota",
                            "The ClusterQueue's nominal quota, by flavor and resource", _RESOURCE),
            borrowing=r.gauge("kueue_cluster_queue_borrowing_limit",
                              "The ClusterQueue's borrowing limit (+Inf when unset), by flavor and resource",
                              _RESOURCE),
            lending=r.gauge("kueue_cluster_queue_lending_limit",
                            "The ClusterQueue's lending limit (+Inf when unset), by flavor and resource",
                            _RESOURCE),
        )


@dataclass(frozen=True)
class LocalQueueFamilies:
    pending: Gauge
    quota_reserved: Counter
    quota_reserved_wait: Histogram
    admitted: Counter
    admission_wait: Histogram
    evicted: Counter
    reserving_active: Gauge
    admitted_active: Gauge
    status: Gauge
    reservation: Gauge
    usage: Gauge
    fair_sharing_usage: Gauge

    @classmethod
    def register(cls, r: MetricsRegistry) -> LocalQueueFamilies:
        return cls(
            pending=r.gauge("kueue_local_queue_pending_workloads",
                            "Pending workloads, by LocalQueue and status (active or inadmissible)",
                            ("name", "namespace", "status", "replica_role")),
            quota_reserved=r.counter("kueue_local_queue_quota_reserved_workloads_total",
                                     "Workloads that got a quota reservation, by LocalQueue", _LQ),
            quota_reserved_wait=r.histogram(
                "kueue_local_queue_quota_reserved_wait_time_seconds",
                "Seconds from a workload's creation or requeue to its quota reservation, by LocalQueue",
                _LQ, kueue_buckets(14)),
            admitted=r.counter("kueue_local_queue_admitted_workloads_total",
                               "Workloads admitted, by LocalQueue", _LQ),
            admission_wait=r.histogram(
                "kueue_local_queue_admission_wait_time_seconds",
                "Seconds from a workload's creation or requeue to its admission, by LocalQueue",
                _LQ, kueue_buckets(14)),
            evicted=r.counter("kueue_local_queue_evicted_workloads_total",
                              "Workload evictions, by LocalQueue, reason and underlying cause",
                              ("name", "namespace", *_EVICTION)),
            reserving_active=r.gauge("kueue_local_queue_reserving_active_workloads",
                                     "Workloads holding a quota reservation, by LocalQueue",
                                     ("name", "namespace", "replica_role")),
            admitted_active=r.gauge("kueue_local_queue_admitted_active_workloads",
                                    "Admitted active workloads, by LocalQueue",
                                    ("name", "namespace", "replica_role")),
            status=r.gauge("kueue_local_queue_status",
                           "1 for the LocalQueue's Active condition status (True, False or Unknown), 0 for "
                           "others", ("name", "namespace", "active", "replica_role")),
            reservation=r.gauge("kueue_local_queue_resource_reservation",
                                "Resources the LocalQueue's workloads reserve, by flavor and resource",
                                _LQ_RESOURCE),
            usage=r.gauge("kueue_local_queue_resource_usage",
                          "Resources the LocalQueue's admitted workloads use, by flavor and resource",
                          _LQ_RESOURCE),
            fair_sharing_usage=r.gauge(
                "kueue_local_queue_admission_fair_sharing_usage",
                "The LocalQueue's admission fair sharing usage: weighted consumed resources and pending "
                "penalties over its weight", ("name", "namespace", "cluster_queue", "replica_role")),
        )
