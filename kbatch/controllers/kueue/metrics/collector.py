"""Kueue's gauges, read at scrape time from the manager's cache and queues.

Upstream keeps each gauge current at the change that moves it (``reportPendingWorkloads`` in
``pkg/cache/queue/metrics.go``, ``ReportClusterQueueStatus``, ``reportActiveWorkloads`` and
``reportResourceMetrics`` in ``pkg/cache/scheduler/clusterqueue.go``, ``localqueue.go``'s, the
LocalQueue controller's ``reportAfsUsage``; v0.19.2) and clears a deleted queue's series. kbatch
reads the same state when ``/metrics`` is scraped (a registry collector), so the scheduler's hot path
does no gauge work and a deleted queue's series are gone at the next scrape:

* ``pending_workloads``: the heap and the one the scheduler holds are ``active``, the set-aside ones
  ``inadmissible``; an inactive ClusterQueue's are all ``inadmissible`` (``reportCQPendingWorkloads``);
* ``reserving_active_workloads``: the workloads holding quota; ``admitted_active_workloads``: the
  admitted ones, from the first admission on (upstream's series appears with its first increment);
* ``cluster_queue_status``: 1 for ``pending``, ``active`` or ``terminating``, 0 for the others;
* quotas, reservation and usage per flavor and resource, only with the Configuration's
  ``metrics.enableClusterQueueResources`` (``WithResourceMetrics``); cpu in cores, the rest in units
  (``AsApproximateFloat64``); an unset borrowing or lending limit is ``+Inf``; ``cohort`` is the
  parent Cohort's name (``""`` without one);
* ``cluster_queue_resource_pending``, with the same switch: per resource, the total requests of the
  pending workloads (heap, inadmissible and the one in the scheduler), 0 for every resource the
  ClusterQueue's quotas name (``reportCQPendingWorkloads``, ``pendingResources``);
* ``finished_workloads``: the finished workloads of each LocalQueue (:class:`~.recorder.WorkloadMetrics`
  keeps them), summed into its ClusterQueue's (``reportCQFinishedWorkloads``); a ClusterQueue's series
  from its first finished workload on;
* the hierarchy (``cluster_queue_info``, the Cohort gauges) and weighted shares, :mod:`.cohorts`;
* the LocalQueue gauges for the LocalQueues :class:`~.recorder.LocalQueueFilter` exposes, and, with
  admission fair sharing on, each one's usage (``CalculateUsage`` with the configuration's weights).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import LocalQueue, Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue.metrics.cleanup import prune_cohorts
from kbatch.controllers.kueue.metrics.cohorts import CohortFamilies, report_cluster_queue, report_cohorts
from kbatch.controllers.kueue.metrics.custom_labels import LOCAL_QUEUE, WORKLOAD, custom_labels_of
from kbatch.controllers.kueue.metrics.families import ROLE, ClusterQueueFamilies, LocalQueueFamilies, amount
from kbatch.controllers.kueue.metrics.recorder import LocalQueueFilter, WorkloadMetrics
from kbatch.controllers.kueue.metrics.unadmitted import report_unadmitted
from kbatch.controllers.kueue.model.info import is_true

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["KueueGauges"]

_STATUSES = ("pending", "active", "terminating")  # metrics.CQStatuses
_CONDITION_STATUSES = ("True", "False", "Unknown")  # ConditionStatusValues


class KueueGauges:
    """The registry collector: sets every Kueue gauge from the manager's state."""

    def __init__(self, mgr: KueueManager, cq: ClusterQueueFamilies, lq: LocalQueueFamilies | None,
                 cohorts: CohortFamilies, workloads: WorkloadMetrics, lq_filter: LocalQueueFilter,
                 resources: bool) -> None:
        self.mgr, self.cq, self.lq, self.lq_filter, self.resources = mgr, cq, lq, lq_filter, resources
        self.cohorts, self.workloads = cohorts, workloads
        self.info = mgr.settings.on("MetricsForCohorts")
        self.fair_sharing = bool(mgr.settings.config.fair_sharing)
        self.unadmitted = mgr.settings.on("UnadmittedWorkloadsObservability")
        self.admitted_seen: set[tuple[str, ...]] = set()  # admitted series that exist (CQ, workload values)
        self.custom = custom_labels_of(mgr.ctx.metrics)

    def __call__(self) -> None:
        for family in self.cq.scraped():
            family.clear()
        finished = self._finished_by_cluster_queue()
        for name in sorted(self.mgr.cache.cluster_queues):
            custom = self.custom.cluster_queue(name)
            self._cluster_queue(name, custom)
            if name in finished:
                self.cq.finished.labels(name, ROLE, *custom).set(finished[name])
        report_cohorts(self.mgr.cache, self.cohorts, self.custom, info=self.info,
                       fair_sharing=self.fair_sharing)
        prune_cohorts(self.cohorts, self.workloads.counted_cohorts, self.mgr.cache.cohorts)
        present = self.mgr.cache.cluster_queues
        self.admitted_seen = {key for key in self.admitted_seen if key[0] in present}
        if self.lq is not None:
            self._local_queues(self.lq)
        if self.unadmitted:
            self._unadmitted()

    def _unadmitted(self) -> None:
        mgr = self.mgr
        cluster_queue_of = {key: q.cluster_queue for key, q in mgr.queues.local_queues.items()
                            if q.cluster_queue in mgr.cache.cluster_queues}
        exposed = {f"{o.metadata.namespace}/{o.metadata.name}" for o in mgr.ctx.cache.list(LocalQueue)
                   if self.lq_filter.exposes(o.metadata.labels)}
        report_unadmitted(mgr.ctx.cache.list(Workload), cluster_queue_of, self.cq.unadmitted,
                          self.lq.unadmitted if self.lq is not None else None, exposed.__contains__,
                          self.custom)

    def _finished_by_cluster_queue(self) -> dict[str, int]:
        """Finished workloads per ClusterQueue, through its LocalQueues; a ClusterQueue one of whose
        LocalQueues ever held one is reported (at 0 too), as upstream's series stays once set."""
        out: dict[str, int] = {}
        queues = self.mgr.queues.local_queues
        for lq_key in sorted(self.workloads.finished_ever):
            lq = queues.get(lq_key)
            if lq is not None:
                count = len(self.workloads.finished.get(lq_key, ()))
                out[lq.cluster_queue] = out.get(lq.cluster_queue, 0) + count
        return out

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

    def _cluster_queue(self, name: str, custom: tuple[str, ...]) -> None:
        cq, node, state = self.cq, self.mgr.cache.cluster_queues[name], self.mgr.cache.states.get(name)
        active, inadmissible = self._pending(name)
        cq.pending.labels(name, "active", ROLE, *custom).set(active)
        cq.pending.labels(name, "inadmissible", ROLE, *custom).set(inadmissible)
        cq.reserving_active.labels(name, ROLE, *custom).set(len(node.workloads))
        self._admitted_active(name, custom)
        current = "terminating" if state is not None and state.terminating else \
            "active" if self.mgr.cache.active(name) else "pending"
        for status in _STATUSES:
            cq.status.labels(name, status, ROLE, *custom).set(1 if status == current else 0)
        report_cluster_queue(self.mgr.cache, cq, name, custom, info=self.info,
                             weighted_share=self.resources and self.fair_sharing)
        if self.resources:
            self._pending_resources(name, custom)
            cohort = node.parent.name if node.parent is not None else ""
            used = state.admitted_usage if state is not None else {}
            for (flavor, resource), quota in sorted(node.quotas.items()):
                key = (cohort, name, flavor, resource, ROLE, *custom)
                cq.nominal.labels(*key).set(amount(resource, quota.nominal))
                cq.borrowing.labels(*key).set(amount(resource, quota.borrowing_limit))
                cq.lending.labels(*key).set(amount(resource, quota.lending_limit))
                cq.reservation.labels(*key).set(amount(resource, node.usage.get((flavor, resource), 0)))
                cq.usage.labels(*key).set(amount(resource, used.get((flavor, resource), 0)))

    def _admitted_active(self, name: str, custom: tuple[str, ...]) -> None:
        """``admitted_active_workloads``: per ClusterQueue, and with Workload custom labels per their
        values (``getLabelValuesFor``); a series from its first admission on, as upstream's ``Add``."""
        counts: dict[tuple[str, ...], int] = {key: 0 for key in self.admitted_seen if key[0] == name}
        state = self.mgr.cache.states.get(name)
        if self.custom.names(WORKLOAD):
            for info in self.mgr.cache.cluster_queues[name].workloads.values():
                if is_true(info.obj, Cond.ADMITTED):
                    key = (name, *self.custom.workload(info.obj))
                    counts[key] = counts.get(key, 0) + 1
        elif state is not None and (state.admitted_count or (name,) in counts):
            counts[(name,)] = state.admitted_count
        for key in sorted(counts):
            self.admitted_seen.add(key)
            self.cq.admitted_active.labels(name, ROLE, *custom, *key[1:]).set(counts[key])

    def _pending_resources(self, name: str, custom: tuple[str, ...]) -> None:
        totals = {resource: 0 for _flavor, resource in self.mgr.cache.cluster_queues[name].quotas}
        q = self.mgr.queues.cluster_queues.get(name)
        if q is not None:
            held = [q.inflight] if q.inflight is not None else []
            for info in (*q.infos.values(), *q.inadmissible.values(), *held):
                for resource, value in info.total_requests().items():
                    totals[resource] = totals.get(resource, 0) + value
        for resource in sorted(totals):
            series = self.cq.pending_resources.labels(name, resource, ROLE, *custom)
            series.set(amount(resource, totals[resource]))

    def _local_queues(self, lq: LocalQueueFamilies) -> None:
        for family in lq.scraped():
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
        custom = self.custom.of_object(LOCAL_QUEUE, obj)
        cq_name = (obj.spec.cluster_queue if obj.spec is not None else None) or ""
        mine = mgr.queues.local_queues.get(key)
        members = mine.items.__contains__ if mine is not None else (lambda _k: False)
        active, inadmissible = self._pending(cq_name, members)
        lq.pending.labels(name, namespace, "active", ROLE, *custom).set(active)
        lq.pending.labels(name, namespace, "inadmissible", ROLE, *custom).set(inadmissible)
        if key in self.workloads.finished_ever:
            lq.finished.labels(name, namespace, ROLE, *custom).set(len(self.workloads.finished.get(key, ())))
        active_cond = next((c.status for c in (obj.status.conditions if obj.status else None) or ()
                            if c.type == "Active"), "Unknown")
        for status in _CONDITION_STATUSES:
            lq.status.labels(name, namespace, status, ROLE, *custom).set(1 if status == active_cond else 0)
        state = mgr.cache.states.get(cq_name)
        node = mgr.cache.cluster_queues.get(cq_name)
        if state is not None and node is not None:
            usage = mgr.cache.local_queue_usage(cq_name, key)
            lq.reserving_active.labels(name, namespace, ROLE, *custom).set(usage.reserving)
            lq.admitted_active.labels(name, namespace, ROLE, *custom).set(usage.admitted_count)
            for flavor, resource in sorted(node.quotas):
                fr = (flavor, resource)
                lq.reservation.labels(name, namespace, flavor, resource, ROLE, *custom).set(
                    amount(resource, usage.reserved.get(fr, 0)))
                lq.usage.labels(name, namespace, flavor, resource, ROLE, *custom).set(
                    amount(resource, usage.admitted.get(fr, 0)))
        afs = mgr.queues.afs
        if afs is not None:
            value = mgr.queues.local_queue_usage(key, afs.resource_weights or {})
            lq.fair_sharing_usage.labels(name, namespace, cq_name, ROLE, *custom).set(value)


def _count(keys: Iterable[str], members: Callable[[str], bool] | None) -> int:
    return sum(1 for k in keys if members is None or members(k))
