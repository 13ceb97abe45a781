"""Kueue's Prometheus metrics on the control plane's registry (``/metrics`` of ``kbatch serve``).

Upstream: kubernetes-sigs/kueue ``pkg/metrics`` (v0.19.2). :mod:`.families` declares the ClusterQueue
and LocalQueue families (upstream's names, labels, buckets and HELP), :mod:`.cohorts` the Cohort ones,
:mod:`.health` the scheduler's, the build's and the job framework's; :mod:`.transitions` decides which
counters a Workload change moves (pure), :mod:`.recorder` applies it from the Workload informer (O(1)
per event), :mod:`.collector` sets the gauges when the registry is scraped. Preemptions are counted
where they are issued (``kueue_preempted_workloads_total``, :func:`.families.preempted_workloads`),
admission attempts and preemption skips by the scheduler once per cycle, workload creation and gate
removals where the job framework does them. Durations are virtual time. MultiKueue's families are
MultiKueue's own. :mod:`.custom_labels` adds ``metrics.customLabels`` (``CustomMetricLabels``) to the
families upstream adds them to.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import ClusterQueue, LocalQueue, Workload
from kbatch.controllers.kueue.metrics.cleanup import QueueCleanup
from kbatch.controllers.kueue.metrics.cohorts import CohortFamilies, ancestors
from kbatch.controllers.kueue.metrics.collector import KueueGauges
from kbatch.controllers.kueue.metrics.custom_labels import (
    CustomLabels,
    custom_labels_of,
    install_custom_labels,
    parse_entries,
)
from kbatch.controllers.kueue.metrics.families import (
    ROLE,
    ClusterQueueFamilies,
    LocalQueueFamilies,
    preempted_workloads,
    preemption_skips,
)
from kbatch.controllers.kueue.metrics.health import (
    POD_ADMISSION_GATE,
    AdmissionAttempts,
    record_gate_removal,
    record_workload_creation,
    register_build_info,
    register_gate_removal,
    register_workload_creation,
)
from kbatch.controllers.kueue.metrics.recorder import LocalQueueFilter, WorkloadMetrics

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["POD_ADMISSION_GATE", "ROLE", "AdmissionAttempts", "custom_labels_of", "install",
           "preempted_workloads", "preemption_skips", "record_gate_removal", "record_workload_creation"]


def install(mgr: KueueManager) -> None:
    """Register the families on ``mgr``'s control plane, the Workload handler and the collector.
    LocalQueue families exist only with ``LocalQueueMetrics`` (``RegisterLQMetrics``)."""
    ctx = mgr.ctx
    config = mgr.settings.config.metrics
    entries = parse_entries(config.get("customLabels")) if mgr.settings.on("CustomMetricLabels") else ()
    custom = CustomLabels(entries, ctx.cache)  # NewCustomLabels: nothing with the gate off
    install_custom_labels(ctx.metrics, custom)
    register_build_info(ctx.metrics)
    register_gate_removal(ctx.metrics)
    if mgr.settings.on("MetricForWorkloadCreationLatency"):
        register_workload_creation(ctx.metrics)
    cq = ClusterQueueFamilies.register(ctx.metrics)
    cohorts = CohortFamilies.register(ctx.metrics)
    lq_filter = LocalQueueFilter(mgr.settings.on("LocalQueueMetrics"), config)
    lq = LocalQueueFamilies.register(ctx.metrics) if mgr.settings.on("LocalQueueMetrics") else None
    workloads = WorkloadMetrics(cq, lq, lq_filter, ctx.cache, ctx.clock.now_datetime,
                                partial(ancestors, mgr.cache), cohorts.subtree_admitted, custom)
    workloads.concurrent_admission = mgr.settings.on("ConcurrentAdmission")
    ctx.cache.informer_for(Workload).add_event_handler(workloads)
    cleanup = QueueCleanup(ctx.metrics, cq, lq, custom)
    ctx.cache.informer_for(ClusterQueue).add_event_handler(cleanup)
    ctx.cache.informer_for(LocalQueue).add_event_handler(cleanup)
    resources = bool(config.get("enableClusterQueueResources"))  # WithResourceMetrics
    ctx.metrics.add_collector(KueueGauges(mgr, cq, lq, cohorts, workloads, lq_filter, resources))
