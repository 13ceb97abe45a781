"""Kueue's health metrics: the scheduler's admission attempts, the build, the job framework's workload
creation latency and the pod scheduling gates' removal (kueue ``pkg/metrics/metrics.go``, v0.19.2).

* ``kueue_admission_attempts_total`` and ``kueue_admission_attempt_duration_seconds`` (default
  buckets): one per scheduling cycle with heads, ``success`` when an entry was assumed
  (``schedule()`` in ``pkg/scheduler/scheduler.go``); the duration in virtual time, which a cycle does
  not advance, so 0. :class:`AdmissionAttempts` resolves its four series once: the scheduler's cost
  is two additions per cycle.
* ``kueue_build_info``: 1, labelled with what ``pkg/version`` gives: the Kueue version kbatch models
  (``v0.19.2``), ``kbatch-<version>`` for the commit, upstream's default build date, and the Python
  runtime in place of Go's (``go_version``, ``compiler``, ``platform``).
* ``kueue_workload_creation_latency_seconds`` (``MetricForWorkloadCreationLatency``, beta, on; buckets
  0.01 doubling, 11 of them): a job's Workload's creation time minus the job's, for a job at generation 1
  (``RecordWorkloadCreationLatency``, ``pkg/controller/jobframework/utils.go``).
* ``kueue_pod_scheduling_gate_removal_seconds`` (default buckets): when Kueue removes one of its
  gates from a pod, the time since the Workload's ``Admitted`` turned true
  (``RecordPodSchedulingGateRemovalSeconds``, ``pkg/util/pod/pod.go``).
"""

from __future__ import annotations

import platform
import sys
from datetime import datetime
from typing import Any

from kbatch import __version__
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue.metrics.custom_labels import CLUSTER_QUEUE, LOCAL_QUEUE, custom_labels_of
from kbatch.controllers.kueue.metrics.families import ROLE, help_text
from kbatch.controllers.kueue.model.info import condition
from kbatch.runtime.metrics import Histogram, MetricsRegistry, exponential_buckets

__all__ = ["KUEUE_VERSION", "POD_ADMISSION_GATE", "AdmissionAttempts", "record_gate_removal",
           "record_workload_creation", "register_build_info", "register_gate_removal",
           "register_workload_creation"]

KUEUE_VERSION = "v0.19.2"
POD_ADMISSION_GATE = "kueue.x-k8s.io/admission"  # podconstants.SchedulingGateName
_CREATION = "kueue_workload_creation_latency_seconds"
_GATE_REMOVAL = "kueue_pod_scheduling_gate_removal_seconds"


class AdmissionAttempts:
    """``AdmissionAttempt(result, duration)``."""

    def __init__(self, registry: MetricsRegistry) -> None:
        labels = ("result", "replica_role")
        name = "kueue_admission_attempts_total"
        total = registry.counter(name, help_text(name), labels)
        name = "kueue_admission_attempt_duration_seconds"
        duration = registry.histogram(name, help_text(name), labels)
        self._series = {result: (total.labels(result, ROLE), duration.labels(result, ROLE))
                        for result in ("success", "inadmissible")}

    def record(self, success: bool, seconds: float) -> None:
        count, duration = self._series["success" if success else "inadmissible"]
        count.inc()
        duration.observe(seconds)


def register_build_info(registry: MetricsRegistry) -> None:
    gauge = registry.gauge("kueue_build_info", help_text("kueue_build_info"),
                           ("git_version", "git_commit", "build_date", "go_version", "compiler", "platform"))
    gauge.labels(KUEUE_VERSION, f"kbatch-{__version__}", "2025-01-01", f"python{platform.python_version()}",
                 sys.implementation.name, f"{sys.platform}/{platform.machine()}").set(1)


def _creation_family(registry: MetricsRegistry) -> Histogram:
    family = registry.get(_CREATION)  # registered by install: a dict lookup per call
    if isinstance(family, Histogram):
        return family
    extra = custom_labels_of(registry).names(LOCAL_QUEUE)  # InitMetricVectors
    return registry.histogram(_CREATION, help_text(_CREATION), ("job_kind", "replica_role", *extra),
                              exponential_buckets(0.01, 2, 11))


def _gate_removal_family(registry: MetricsRegistry) -> Histogram:
    family = registry.get(_GATE_REMOVAL)
    if isinstance(family, Histogram):
        return family
    extra = custom_labels_of(registry).names(CLUSTER_QUEUE)  # InitMetricVectors
    return registry.histogram(_GATE_REMOVAL, help_text(_GATE_REMOVAL),
                              ("name", "cluster_queue", "is_group", "replica_role", *extra))


def register_workload_creation(registry: MetricsRegistry) -> None:
    _creation_family(registry)


def register_gate_removal(registry: MetricsRegistry) -> None:
    _gate_removal_family(registry)


def record_workload_creation(registry: MetricsRegistry, job: Any, kind: str, wl: Workload) -> None:
    """``RecordWorkloadCreationLatency`` for the created ``wl`` of ``job`` (the caller checks the gate)."""
    if (job.metadata.generation or 0) > 1:
        return
    latency = _seconds(wl.metadata.creation_timestamp, job.metadata.creation_timestamp)
    custom = custom_labels_of(registry).local_queue(wl.metadata.namespace or "",
                                                    (wl.spec.queue_name if wl.spec else None) or "")
    _creation_family(registry).labels(kind, ROLE, *custom).observe(latency)


def record_gate_removal(registry: MetricsRegistry, gate: str, wl: Workload, is_group: bool,
                        now: datetime) -> None:
    """``RecordPodSchedulingGateRemovalSeconds``: nothing unless the Workload is admitted. The
    family declares the ClusterQueue custom labels; upstream passes no values for them (and so
    panics when some are configured), kbatch gives the admitting ClusterQueue's."""
    admitted = condition(wl, Cond.ADMITTED)
    if admitted is None or admitted.status != "True" or wl.status is None or wl.status.admission is None:
        return
    family = _gate_removal_family(registry)
    cq = wl.status.admission.cluster_queue or ""
    custom = custom_labels_of(registry).cluster_queue(cq)
    family.labels(gate, cq, "true" if is_group else "false", ROLE, *custom).observe(
        _seconds(now, admitted.last_transition_time))


def _seconds(later: datetime | None, earlier: datetime | None) -> float:
    return (later - earlier).total_seconds() if later is not None and earlier is not None else 0.0
