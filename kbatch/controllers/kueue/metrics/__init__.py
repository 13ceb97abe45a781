"""Kueue's Prometheus metrics on the control plane's registry (``/metrics`` of ``kbatch serve``).

Upstream: kubernetes-sigs/kueue ``pkg/metrics`` (v0.19.2). :mod:`.families` declares the families
(upstream's names, labels and buckets), :mod:`.transitions` decides which counters a Workload change
moves (pure), :mod:`.recorder` applies it from the Workload informer (O(1) per event),
:mod:`.collector` sets the gauges when the registry is scraped. Preemptions are counted where they
are issued (``kueue_preempted_workloads_total``, :func:`.families.preempted_workloads`).
Durations are virtual time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.metrics.collector import KueueGauges
from kbatch.controllers.kueue.metrics.families import (
    ROLE,
    ClusterQueueFamilies,
    LocalQueueFamilies,
    preempted_workloads,
)
from kbatch.controllers.kueue.metrics.recorder import LocalQueueFilter, WorkloadMetrics

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["ROLE", "install", "preempted_workloads"]


def install(mgr: KueueManager) -> None:
    """Register the families on ``mgr``'s control plane, the Workload handler and the collector.
    LocalQueue families exist only with ``LocalQueueMetrics`` (``RegisterLQMetrics``)."""
    ctx = mgr.ctx
    config = mgr.settings.config.metrics
    cq = ClusterQueueFamilies.register(ctx.metrics)
    lq_filter = LocalQueueFilter(mgr.settings.on("LocalQueueMetrics"), config)
    lq = LocalQueueFamilies.register(ctx.metrics) if mgr.settings.on("LocalQueueMetrics") else None
    ctx.cache.informer_for(Workload).add_event_handler(
        WorkloadMetrics(cq, lq, lq_filter, ctx.cache, ctx.clock.now_datetime))
    resources = bool(config.get("enableClusterQueueResources"))  # WithResourceMetrics
    ctx.metrics.add_collector(KueueGauges(mgr, cq, lq, lq_filter, resources))
