"""Kueue's gauges, read at scrape time from the manager's cache and queues.

Upstream keeps each gauge current at the change that moves it (``reportPendingWorkloads`` in
``pkg/cache/queue/metrics.go``, ``ReportClusterQueueStatus``, ``reportActiveWorkloads`` and
``reportResourceMetrics`` in ``pkg/cache/scheduler/clusterqueue.go``, ``localqueue.go``'s, the
LocalQueue controller's ``reportAfsUsage``; v0.19.2) and clears a deleted queue's series. kbatch
reads the same state when ``/metrics`` is scraped (a registry collector), so the scheduler's hot path
does no metrics work at all and a deleted queue's series are gone at the next scrape:

* ``pending_workloads``: the heap and the one the scheduler holds are ``active``, the set-aside ones
  ``inadmissible``; an inactive ClusterQueue's are all ``inadmissible`` (``reportCQPendingWorkloads``);
* ``reserving_active_workloads``: the workloads holding quota; ``admitted_active_workloads``: the
  admitted ones, from the first admission on (upstream's series appears with its first increment);
* ``cluster_queue_status``: 1 for ``pending``, ``active`` or ``terminating``, 0 for the others;
* quotas, reservation and usage per flavor and resource, only with the Configuration's
  ``metrics.enableClusterQueueResources`` (``WithResourceMetrics``); cpu in cores, the rest in units
  (``AsApproximateFloat64``); an unset borrowing or lending limit is ``+Inf``; ``cohort`` is the
  parent Cohort's name (``""`` without one);
* the LocalQueue gauges for the LocalQueues :class:`~.recorder.LocalQueueFilter` exposes, and, with
  admission fair sharing on, each one's usage (``CalculateUsage`` with the configuration's weights).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import LocalQueue
from kbatch.api.pod_resources import CPU
from kbatch.controllers.kueue.metrics.families import ROLE, ClusterQueueFamilies, LocalQueueFamilies
from kbatch.controllers.kueue.metrics.recorder import LocalQueueFilter

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["KueueGauges"]

_STATUSES = ("pending", "active", "terminating")  # metrics.CQStatuses
_CONDITION_STATUSES = ("True", "False", "Unknown")  # ConditionStatusValues
_INF = float("inf")


def amount(resource: str, value: int | None) -> float:
    """A quantity as ``AsApproximateFloat64`` gives it: kbatch keeps cpu in millicores."""
    if value is None:
        return _INF
    return value / 1000 if resource == CPU else float(value)


class KueueGauges:
    """The registry collector: sets every Kueue gauge from the manager's state."""

    def __init__(self, mgr: KueueManager, cq: ClusterQueueFamilies, lq: LocalQueueFamilies | None,
                 lq_filter: LocalQueueFilter, resources: bool) -> None:
        self.mgr, self.cq, self.lq, self.lq_filter, self.resources = mgr, cq, lq, lq_filter, resources
        self.admitted_seen: set[str] = set()  # ClusterQueues whose admitted series exists

    def __call__(self) -> None:
        cq = self.cq
        for family in (cq.pending, cq.reserving_active, cq.admitted_active, cq.status, cq.reservation,
                       cq.usage, cq.nominal, cq.borrowing, cq.lending):
            family.clear()
        for name in sorted(self.mgr.cache.cluster_queues):
            self._cluster_queue(name)
        if self.lq is not None:
            self._local_queues(self.lq)

    def _pending(self, name: str, members: Callable[[str], bool] | None = None) -> tuple[int, int]:
        q = self.mgr.queues.cluster_queues.get(name)
        if q is None:
            return 0, 0
        held = [q.inflight.key] if q.inflight is not None else []
        active = _count((*q.infos, *held), members)
        inadmissible = _count(q.inadmissible, members)
        if not self.mgr.cache.active(name):
            return 0, active + inadmissible
        return active, inadmissible

    def _cluster_queue(self, name: str) -> None:
        cq, node, state = self.cq, self.mgr.cache.cluster_queues[name], self.mgr.cache.states.get(name)
        active, inadmissible = self._pending(name)
        cq.pending.labels(name, "active", ROLE).set(active)
        cq.pending.labels(name, "inadmissible", ROLE).set(inadmissible)
        cq.reserving_active.labels(name, ROLE).set(len(node.workloads))
        admitted = state.admitted_count if state is not None else 0
        if admitted or name in self.admitted_seen:
            self.admitted_seen.add(name)
            cq.admitted_active.labels(name, ROLE).set(admitted)
        current = "terminating" if state is not None and state.terminating else \
            "active" if self.mgr.cache.active(name) else "pending"
        for status in _STATUSES:
            cq.status.labels(name, status, ROLE).set(1 if status == current else 0)
        if self.resources:
            cohort = node.parent.name if node.parent is not None else ""
            used = state.admitted_usage if state is not None else {}
            for (flavor, resource), quota in sorted(node.quotas.items()):
                key = (cohort, name, flavor, resource, ROLE)
                cq.nominal.labels(*key).set(amount(resource, quota.nominal))
                cq.borrowing.labels(*key).set(amount(resource, quota.borrowing_limit))
                cq.lending.labels(*key).set(amount(resource, quota.lending_limit))
                cq.reservation.labels(*key).set(amount(resource, node.usage.get((flavor, resource), 0)))
                cq.usage.labels(*key).set(amount(resource, used.get((flavor, resource), 0)))

    def _local_queues(self, lq: LocalQueueFamilies) -> None:
        for family in (lq.pending, lq.reserving_active, lq.admitted_active, lq.status, lq.reservation,
                       lq.usage, lq.fair_sharing_usage):
            family.clear()
        queues = sorted(self.mgr.ctx.cache.list(LocalQueue), key=lambda q: (q.metadata.namespace or "",
                                                                         q.metadata.name or ""))
        for obj in queues:
            if self.lq_filter.exposes(obj.metadata.labels):
                self._local_queue(lq, obj)

    def _local_queue(self, lq: LocalQueueFamilies, obj: LocalQueue) -> None:
        mgr = self.mgr
        name, namespace = obj.metadata.name or "", obj.metadata.namespace or ""
        key = f"{namespace}/{name}"
        cq_name = (obj.spec.cluster_queue if obj.spec is not None else None) or ""
        mine = mgr.queues.local_queues.get(key)
        members = mine.items.__contains__ if mine is not None else (lambda _k: False)
        active, inadmissible = self._pending(cq_name, members)
        lq.pending.labels(name, namespace, "active", ROLE).set(active)
        lq.pending.labels(name, namespace, "inadmissible", ROLE).set(inadmissible)
        active_cond = next((c.status for c in (obj.status.conditions if obj.status else None) or ()
                            if c.type == "Active"), "Unknown")
        for status in _CONDITION_STATUSES:
            lq.status.labels(name, namespace, status, ROLE).set(1 if status == active_cond else 0)
        state = mgr.cache.states.get(cq_name)
        node = mgr.cache.cluster_queues.get(cq_name)
        if state is not None and node is not None:
            usage = mgr.cache.local_queue_usage(cq_name, key)
            lq.reserving_active.labels(name, namespace, ROLE).set(usage.reserving)
            lq.admitted_active.labels(name, namespace, ROLE).set(usage.admitted_count)
            for flavor, resource in sorted(node.quotas):
                fr = (flavor, resource)
                lq.reservation.labels(name, namespace, flavor, resource, ROLE).set(
                    amount(resource, usage.reserved.get(fr, 0)))
                lq.usage.labels(name, namespace, flavor, resource, ROLE).set(
                    amount(resource, usage.admitted.get(fr, 0)))
        afs = mgr.queues.afs
        if afs is not None:
            value = mgr.queues.local_queue_usage(key, afs.resource_weights or {})
            lq.fair_sharing_usage.labels(name, namespace, cq_name, ROLE).set(value)


def _count(keys: Iterable[str], members: Callable[[str], bool] | None) -> int:
    return sum(1 for k in keys if members is None or members(k))
