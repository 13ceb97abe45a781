"""MultiKueue's Prometheus counters (kubernetes-sigs/kueue v0.19.2 ``pkg/metrics/metrics.go``,
subsystem ``multikueue``):

* ``multikueue_workloads_dispatched_total{cluster_queue, cluster, replica_role}``: a remote Workload
  created on a worker (``ReportMultiKueueWorkloadDispatched``, from ``nominateAndSynchronizeWorkers``);
* ``multikueue_workloads_admitted_total{cluster_queue, cluster, replica_role}``: the check turned
  Ready because a worker admitted the Workload (``ReportMultiKueueWorkloadAdmitted``, from
  ``reconcileGroup`` 6b); a Workload evicted and admitted again counts again.

``cluster_queue`` is the manager's admitting ClusterQueue (``admittedClusterQueue``: empty without an
admission). Both families are registered with the MultiKueue controllers (upstream registers them at
start-up), HELP texts from :mod:`kbatch.controllers.kueue.metrics.families`.
"""

from __future__ import annotations

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.metrics.families import ROLE, help_text
from kbatch.runtime.metrics import Counter, MetricsRegistry

__all__ = ["ADMITTED", "DISPATCHED", "MultiKueueMetrics"]

DISPATCHED = "multikueue_workloads_dispatched_total"
ADMITTED = "multikueue_workloads_admitted_total"
_LABELS = ("cluster_queue", "cluster", "replica_role")


def _family(registry: MetricsRegistry, name: str) -> Counter:
    family = registry.get(name)
    if isinstance(family, Counter):
        return family
    return registry.counter(name, help_text(name), _LABELS)


def admitted_cluster_queue(wl: Workload) -> str:
    """``admittedClusterQueue``."""
    admission = wl.status.admission if wl.status else None
    return (admission.cluster_queue or "") if admission is not None else ""


class MultiKueueMetrics:
    """The two counters of one manager."""

    def __init__(self, registry: MetricsRegistry) -> None:
        self.dispatched = _family(registry, DISPATCHED)
        self.admitted = _family(registry, ADMITTED)

    def dispatched_to(self, wl: Workload, cluster: str) -> None:
        self.dispatched.labels(admitted_cluster_queue(wl), cluster, ROLE).inc()

    def admitted_on(self, wl: Workload, cluster: str) -> None:
        self.admitted.labels(admitted_cluster_queue(wl), cluster, ROLE).inc()
