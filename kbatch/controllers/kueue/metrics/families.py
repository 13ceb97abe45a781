"""Kueue's Prometheus metric families of ClusterQueues and LocalQueues: names, label names, buckets and
HELP texts as kueue ``pkg/metrics/metrics.go`` (v0.19.2) declares them (subsystem ``kueue``; the HELP
texts are read from :data:`HELP`, generated from that file by ``tools/gen_kueue_metric_help.py``).

The ClusterQueue families (:class:`ClusterQueueFamilies`) are registered with every Kueue manager; the
LocalQueue ones (:class:`LocalQueueFamilies`) as ``RegisterLQMetrics`` does, with ``LocalQueueMetrics``.
Cohort families are in :mod:`.cohorts`, the scheduler's and job framework's in :mod:`.health`.
Each family carries the custom labels :mod:`.custom_labels` installed on the registry for its kinds.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

from kbatch.api.pod_resources import CPU
from kbatch.controllers.kueue.metrics.custom_labels import (
    CLUSTER_QUEUE,
    LOCAL_QUEUE,
    WORKLOAD,
    custom_labels_of,
)
from kbatch.runtime.metrics import Counter, Gauge, Histogram, MetricsRegistry

__all__ = ["ROLE", "ClusterQueueFamilies", "LocalQueueFamilies", "QueueFamilies", "amount", "help_text",
           "kueue_buckets", "preempted_workloads", "preemption_skips"]

# ``roletracker.GetRole(nil)``: kbatch runs one Kueue manager per control plane, no replica tracker
ROLE = "standalone"
_CQ = ("cluster_queue", "priority_class", "replica_role")
_LQ = ("name", "namespace", "priority_class", "replica_role")
_EVICTION = ("reason", "underlying_cause", "priority_class", "replica_role")
_RESOURCE = ("cohort", "cluster_queue", "flavor", "resource", "replica_role")
_CQ_ONLY = ("cluster_queue", "replica_role")
_LQ_RESOURCE = ("name", "namespace", "flavor", "resource", "replica_role")


@cache
def _helps() -> dict[str, str]:
    text = resources.files(__package__).joinpath("help.json").read_text(encoding="utf-8")
    helps: dict[str, str] = json.loads(text)["help"]
    return helps


def help_text(name: str) -> str:
    """Upstream's HELP text of the family ``name``."""
    return _helps()[name]


def amount(resource: str, value: int | None) -> float:
    """A quantity as ``AsApproximateFloat64`` gives it (kbatch keeps cpu in millicores); an unset
    limit is ``+Inf``."""
    if value is None:
        return math.inf
    return value / 1000 if resource == CPU else float(value)


def kueue_buckets(count: int) -> tuple[float, ...]:
    """``generateExponentialBuckets``: 1, then ``count - 1`` buckets from 2.5 doubling."""
    return (1.0, *(2.5 * 2 ** i for i in range(count - 1)))


class _Declare:
    """Registers families under upstream's names with upstream's HELP, each followed by the custom
    labels ``extra`` names (``InitMetricVectors`` appends them to the plain labels)."""

    def __init__(self, registry: MetricsRegistry, extra: tuple[str, ...] = ()) -> None:
        self.r, self.extra = registry, extra

    def counter(self, name: str, labels: tuple[str, ...]) -> Counter:
        return self.r.counter(name, help_text(name), labels + self.extra)

    def gauge(self, name: str, labels: tuple[str, ...]) -> Gauge:
        return self.r.gauge(name, help_text(name), labels + self.extra)

    def histogram(self, name: str, labels: tuple[str, ...], count: int = 14) -> Histogram:
        return self.r.histogram(name, help_text(name), labels + self.extra, kueue_buckets(count))


def _cq_labels(registry: MetricsRegistry) -> tuple[str, ...]:
    return custom_labels_of(registry).names(CLUSTER_QUEUE)


def preempted_workloads(registry: MetricsRegistry) -> Counter:
    """``kueue_preempted_workloads_total`` (``ReportPreemption``), by the preemptor's ClusterQueue
    (and its custom labels)."""
    family = registry.get("kueue_preempted_workloads_total")  # registered by install
    if isinstance(family, Counter):
        return family
    return _Declare(registry, _cq_labels(registry)).counter(
        "kueue_preempted_workloads_total", ("preempting_cluster_queue", "reason", "replica_role"))


def preemption_skips(registry: MetricsRegistry) -> Gauge:
    """``kueue_admission_cycle_preemption_skips`` (``ReportAdmissionCyclePreemptionSkips``): set by the
    scheduler at the end of a cycle for the ClusterQueues whose entries skipped a preemption."""
    family = registry.get("kueue_admission_cycle_preemption_skips")  # registered by install
    if isinstance(family, Gauge):
        return family
    return _Declare(registry, _cq_labels(registry)).gauge("kueue_admission_cycle_preemption_skips", _CQ_ONLY)


@dataclass(frozen=True)
class QueueFamilies:
    """The workload-lifecycle families kueue keeps for ClusterQueues and again for LocalQueues
    (``metrics.go``: ``PendingWorkloads`` and ``LocalQueuePendingWorkloads``, ``QuotaReservedWorkloadsTotal``
    and ``LocalQueueQuotaReservedWorkloadsTotal``, ...): the same transitions counted under a
    ClusterQueue's labels or a LocalQueue's (name and namespace)."""

    pending: Gauge
    quota_reserved: Counter
    quota_reserved_wait: Histogram
    admitted: Counter
    admission_wait: Histogram
    admission_checks_wait: Histogram
    ready_wait: Histogram
    admitted_until_ready: Histogram
    finished_total: Counter
    finished: Gauge
    evicted: Counter

    def counted(self) -> tuple[Counter | Histogram, ...]:
        """The counters and histograms the transitions feed (what a deleted queue's cleanup drops)."""
        return (self.quota_reserved, self.quota_reserved_wait, self.admitted, self.admission_wait,
                self.admission_checks_wait, self.ready_wait, self.admitted_until_ready, self.finished_total,
                self.evicted)


@dataclass(frozen=True)
class ClusterQueueFamilies(QueueFamilies):
    evicted_once: Counter
    pods_ready_to_evicted: Histogram
    eviction_latency: Histogram
    replaced_slices: Counter
    preempted: Counter
    preemption_skips: Gauge
    reserving_active: Gauge
    admitted_active: Gauge
    status: Gauge
    reservation: Gauge
    pending_resources: Gauge
    usage: Gauge
    nominal: Gauge
    borrowing: Gauge
    lending: Gauge
    weighted_share: Gauge
    info: Gauge
    unadmitted: Gauge

    @classmethod
    def register(cls, r: MetricsRegistry) -> ClusterQueueFamilies:
        """Every family with the ClusterQueue custom labels; ``admitted_active_workloads`` with the
        Workload ones after them (``InitMetricVectors``)."""
        cl = custom_labels_of(r)
        d = _Declare(r, cl.names(CLUSTER_QUEUE))
        return cls(
            pending=d.gauge("kueue_pending_workloads", ("cluster_queue", "status", "replica_role")),
            quota_reserved=d.counter("kueue_quota_reserved_workloads_total", _CQ),
            quota_reserved_wait=d.histogram("kueue_quota_reserved_wait_time_seconds", _CQ),
            admitted=d.counter("kueue_admitted_workloads_total", _CQ),
            admission_wait=d.histogram("kueue_admission_wait_time_seconds", _CQ, 16),
            admission_checks_wait=d.histogram("kueue_admission_checks_wait_time_seconds", _CQ),
            ready_wait=d.histogram("kueue_ready_wait_time_seconds", _CQ),
            admitted_until_ready=d.histogram("kueue_admitted_until_ready_wait_time_seconds", _CQ),
            finished_total=d.counter("kueue_finished_workloads_total", _CQ),
            finished=d.gauge("kueue_finished_workloads", _CQ_ONLY),
            evicted=d.counter("kueue_evicted_workloads_total", ("cluster_queue", *_EVICTION)),
            evicted_once=d.counter("kueue_evicted_workloads_once_total", ("cluster_queue", *_EVICTION)),
            pods_ready_to_evicted=d.histogram("kueue_pods_ready_to_evicted_time_seconds",
                                              ("cluster_queue", *_EVICTION[:2], "replica_role")),
            eviction_latency=d.histogram("kueue_workload_eviction_latency_seconds",
                                         ("cluster_queue", "reason", "replica_role")),
            replaced_slices=d.counter("kueue_replaced_workload_slices_total", _CQ_ONLY),
            preempted=preempted_workloads(r),
            preemption_skips=preemption_skips(r),
            reserving_active=d.gauge("kueue_reserving_active_workloads", _CQ_ONLY),
            admitted_active=_Declare(r, cl.names(CLUSTER_QUEUE, WORKLOAD)).gauge(
                "kueue_admitted_active_workloads", _CQ_ONLY),
            status=d.gauge("kueue_cluster_queue_status", ("cluster_queue", "status", "replica_role")),
            reservation=d.gauge("kueue_cluster_queue_resource_reservation", _RESOURCE),
            pending_resources=d.gauge("kueue_cluster_queue_resource_pending",
                                      ("cluster_queue", "resource", "replica_role")),
            usage=d.gauge("kueue_cluster_queue_resource_usage", _RESOURCE),
            nominal=d.gauge("kueue_cluster_queue_nominal_quota", _RESOURCE),
            borrowing=d.gauge("kueue_cluster_queue_borrowing_limit", _RESOURCE),
            lending=d.gauge("kueue_cluster_queue_lending_limit", _RESOURCE),
            weighted_share=d.gauge("kueue_cluster_queue_weighted_share",
                                   ("cluster_queue", "cohort", "replica_role")),
            info=d.gauge("kueue_cluster_queue_info",
                         ("cluster_queue", "parent_cohort", "root_cohort", "replica_role")),
            unadmitted=d.gauge("kueue_unadmitted_workloads",
                               ("cluster_queue", *_EVICTION[:2], "replica_role")),
        )

    def scraped(self) -> tuple[Gauge, ...]:
        """The gauges the collector sets from scratch at each scrape."""
        return (self.pending, self.finished, self.reserving_active, self.admitted_active, self.status,
                self.reservation, self.pending_resources, self.usage, self.nominal, self.borrowing,
                self.lending, self.weighted_share, self.info)


@dataclass(frozen=True)
class LocalQueueFamilies(QueueFamilies):
    reserving_active: Gauge
    admitted_active: Gauge
    status: Gauge
    reservation: Gauge
    usage: Gauge
    fair_sharing_usage: Gauge
    unadmitted: Gauge

    @classmethod
    def register(cls, r: MetricsRegistry) -> LocalQueueFamilies:
        """Every family with the LocalQueue custom labels (``InitMetricVectors``)."""
        d = _Declare(r, custom_labels_of(r).names(LOCAL_QUEUE))
        lq = ("name", "namespace", "replica_role")
        return cls(
            pending=d.gauge("kueue_local_queue_pending_workloads",
                            ("name", "namespace", "status", "replica_role")),
            quota_reserved=d.counter("kueue_local_queue_quota_reserved_workloads_total", _LQ),
            quota_reserved_wait=d.histogram("kueue_local_queue_quota_reserved_wait_time_seconds", _LQ),
            admitted=d.counter("kueue_local_queue_admitted_workloads_total", _LQ),
            admission_wait=d.histogram("kueue_local_queue_admission_wait_time_seconds", _LQ),
            admission_checks_wait=d.histogram("kueue_local_queue_admission_checks_wait_time_seconds", _LQ),
            ready_wait=d.histogram("kueue_local_queue_ready_wait_time_seconds", _LQ),
            admitted_until_ready=d.histogram("kueue_local_queue_admitted_until_ready_wait_time_seconds", _LQ),
            finished_total=d.counter("kueue_local_queue_finished_workloads_total", _LQ),
            finished=d.gauge("kueue_local_queue_finished_workloads", lq),
            evicted=d.counter("kueue_local_queue_evicted_workloads_total", ("name", "namespace", *_EVICTION)),
            reserving_active=d.gauge("kueue_local_queue_reserving_active_workloads", lq),
            admitted_active=d.gauge("kueue_local_queue_admitted_active_workloads", lq),
            status=d.gauge("kueue_local_queue_status", ("name", "namespace", "active", "replica_role")),
            reservation=d.gauge("kueue_local_queue_resource_reservation", _LQ_RESOURCE),
            usage=d.gauge("kueue_local_queue_resource_usage", _LQ_RESOURCE),
            fair_sharing_usage=d.gauge("kueue_local_queue_admission_fair_sharing_usage",
                                       ("name", "namespace", "cluster_queue", "replica_role")),
            unadmitted=d.gauge("kueue_local_queue_unadmitted_workloads",
                               ("name", "namespace", "cluster_queue", *_EVICTION[:2], "replica_role")),
        )

    def scraped(self) -> tuple[Gauge, ...]:
        return (self.pending, self.finished, self.reserving_active, self.admitted_active, self.status,
                self.reservation, self.usage, self.fair_sharing_usage)
