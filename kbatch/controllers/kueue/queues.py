"""The queue manager: pending workloads per LocalQueue and ClusterQueue, and what the scheduler pops.

Upstream: kubernetes-sigs/kueue ``pkg/cache/queue/{manager,cluster_queue,local_queue,
inadmissible_workloads}.go`` (v0.19.2).

A ClusterQueue keeps its pending workloads in an ordered heap (the current preemptor first when its
queue is ``BestEffortFIFO`` — "sticky" —, then higher effective priority, earlier queue-order time,
UID) and a set of *inadmissible* workloads set aside until something changes. ``Pop`` takes the head
(the "inflight" workload). A workload the scheduler could not admit is requeued:

* ``StrictFIFO``: back into the heap (unless its namespace no longer matched);
* ``BestEffortFIFO``: back into the heap only after failing once nomination passed, while preempting,
  or after a failed preemption; otherwise it waits among the inadmissible ones — unless a requeue of
  the inadmissible workloads happened since it was popped, or its flavor scan has flavors left;
* with ``SchedulingEquivalenceHashing``, a ``BestEffortFIFO`` workload that did not fit moves every
  equivalent workload in the heap to the inadmissible set with it.

With admission fair sharing, a ``UsageBasedAdmissionFairSharing`` ClusterQueue pops the head of the
LocalQueue with the lowest usage first (:mod:`.admissionfairsharing.queue_order`); the manager holds
the usage ledger.

Inadmissible workloads go back to the heap when their ClusterQueue's (or, under a Cohort, the whole
Cohort tree's) conditions change: batched, after ``1s`` (``10s`` with ``SchedulerLongRequeueInterval``)
(``NotifyRetryInadmissible``), via :meth:`QueueManager.take_requeue_requests`. A workload whose
``requeueAt`` lies in the future stays inadmissible until then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sortedcontainers import SortedList

from kbatch.api.kueue_config import AdmissionFairSharingConfig
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.selectors import Selector
from kbatch.controllers.kueue.admissionfairsharing import LedgerEntry, UsageLedger, resource_weights
from kbatch.controllers.kueue.admissionfairsharing.arithmetic import usage as afs_usage
from kbatch.controllers.kueue.admissionfairsharing.queue_order import fair_head
from kbatch.controllers.kueue.concurrent_admission.variants import is_variant
from kbatch.controllers.kueue.jobframework.construct import ADMISSION_GATED_BY
from kbatch.controllers.kueue.model.dra import DraOutcome
from kbatch.controllers.kueue.model.info import InfoOptions, WorkloadInfo, condition, is_true, workload_key
from kbatch.controllers.kueue.preemption_gates import has_closed_gate
from kbatch.controllers.kueue.scheduling.assignment import LastState
from kbatch.controllers.kueue.scheduling.cycle import Head, RequeueReason

__all__ = ["ClusterQueueQueue", "LocalQueueQueue", "QueueManager", "admissible"]


def admissible(wl: Workload, admission_gated_by: bool = True) -> bool:
    """``IsAdmissible``: active, not finished, holding no quota, not on hold, not gated."""
    if admission_gated_by and (wl.metadata.annotations or {}).get(ADMISSION_GATED_BY):
        return False
    if wl.spec is not None and wl.spec.active is False:
        return False
    if is_true(wl, Cond.FINISHED) or is_true(wl, Cond.QUOTA_RESERVED):
        return False
    qr = condition(wl, Cond.QUOTA_RESERVED)
    if qr is not None and qr.status == "False" and qr.reason == "OnHold":
        return False
    return not is_true(wl, "WaitingForReplacementPods")


def _requeue_at(info: WorkloadInfo) -> datetime | None:
    rs = info.obj.status.requeue_state if info.obj.status else None
    return rs.requeue_at if rs is not None else None


@dataclass
class LocalQueueQueue:
    """``LocalQueue`` of the queue manager: its ClusterQueue and its pending workloads."""

    key: str
    cluster_queue: str
    items: dict[str, WorkloadInfo] = field(default_factory=dict)


class ClusterQueueQueue:
    """One ClusterQueue's pending workloads (``cache/queue.ClusterQueue``)."""

    def __init__(
        self,
        name: str,
        strategy: str,
        selector: Selector | None,
        clock: Callable[[], datetime],
        nonempty: set[str] | None = None,
    ) -> None:
        self.name = name
        # the names of the ClusterQueues whose heap holds a workload, shared with the manager (which
        # asks "any heads?" several times a cycle: a scan of every queue in a 1,000-queue forest);
        # this queue's name is in it exactly while ``in_heap`` is not empty
        self.nonempty: set[str] = nonempty if nonempty is not None else set()
        self.strategy = strategy
        self.selector = selector
        self.clock = clock
        self.heap: SortedList = SortedList()
        self.in_heap: dict[str, tuple] = {}  # key -> its sort key in ``heap``
        self.infos: dict[str, WorkloadInfo] = {}  # the heap's workloads
        self.inadmissible: dict[str, WorkloadInfo] = {}
        self.inflight: WorkloadInfo | None = None
        self.pop_cycle = 0
        self.queue_inadmissible_cycle = -1
        self.preemptor: tuple[str, bool, int] | None = None  # (key, sticky, generation)
        # ``Info.LastEvaluatedGeneration``: the generation a workload had when it was last popped,
        # kept while the entry the scheduler requeued is the one held (a fresh version from an
        # update replaces it, and with it this); 0 (absent) for a workload never popped
        self.evaluated: dict[str, int] = {}
        self.bulk_moved: dict[str, str] = {}  # scheduling hash -> quota reserved reason
        self.local_queues: set[str] = set()
        # first arrival in this ClusterQueue, the tie-break between equal priority and equal queue
        # order time (creationTimestamp has whole seconds): upstream's heap compares UIDs there
        # (``baseCompareFunc``), random ones; kbatch keeps the order workloads arrived in, a
        # deliberate difference (docs/kueue.md, "Equal queue order")
        self.arrival: dict[str, int] = {}
        self.arrivals = 0
        # admission fair sharing (``UsageBasedAdmissionFairSharing`` with the feature on): a
        # LocalQueue's usage, and how many heap workloads each LocalQueue has; ``None`` when off
        self.afs_usage: Callable[[str], float] | None = None
        self.heap_per_lq: dict[str, int] = {}
        # ``ConcurrentAdmission`` with a ``concurrentAdmissionPolicy``: only Variants enter the heap,
        # parents are never pushed (``ClusterQueue.PushOrUpdate``/``AddFromLocalQueue``)
        self.variants_only = False

    # --- ordering ----------------------------------------------------------------------------------
    def is_sticky(self, key: str) -> bool:
        return self.preemptor is not None and self.preemptor[1] and self.preemptor[0] == key

    def is_preemptor(self, info: WorkloadInfo) -> bool:
        """``IsPreemptor``: the preemptor at the generation it was evaluated with."""
        p = self.preemptor
        return p is not None and p[0] == info.key and p[2] == info.generation

    def _sort_key(self, info: WorkloadInfo) -> tuple:
        seq = self.arrival.get(info.key)
        if seq is None:
            seq = self.arrival[info.key] = self.arrivals
            self.arrivals += 1
        return (not self.is_sticky(info.key), -info.priority, info.queue_order_time, seq, info.key)

    def set_admission_fair_sharing(self, usage: Callable[[str], float] | None) -> None:
        """Order by LocalQueue usage first (``queueOrderingFunc``), or not (``None``)."""
        self.afs_usage = usage
        self.heap_per_lq = {}
        for info in self.infos.values():
            lq = _lq_key(info)
            self.heap_per_lq[lq] = self.heap_per_lq.get(lq, 0) + 1

    def _push(self, info: WorkloadInfo) -> None:
        self._remove_heap(info.key)
        k = self._sort_key(info)
        self.heap.add(k)
        self.in_heap[info.key] = k
        self.nonempty.add(self.name)
        self.infos[info.key] = info
        if self.afs_usage is not None:
            lq = _lq_key(info)
            self.heap_per_lq[lq] = self.heap_per_lq.get(lq, 0) + 1

    def _remove_heap(self, key: str) -> None:
        k = self.in_heap.pop(key, None)
        if k is not None:
            if not self.in_heap:
                self.nonempty.discard(self.name)
            self.heap.remove(k)
            info = self.infos.pop(key, None)
            if self.afs_usage is not None and info is not None:
                self.heap_per_lq[_lq_key(info)] -= 1

    # --- queries ------------------------------------------------------------------------------------
    def pending_active(self) -> int:
        return len(self.in_heap) + (1 if self.inflight is not None else 0)

    def pending_total(self) -> int:
        return self.pending_active() + len(self.inadmissible)

    def tracked(self, key: str) -> WorkloadInfo | None:
        if self.inflight is not None and self.inflight.key == key:
            return self.inflight
        return self.infos.get(key) or self.inadmissible.get(key)

    def backoff_expired(self, info: WorkloadInfo) -> bool:
        """``backoffWaitingTimeExpired``."""
        c = condition(info.obj, Cond.REQUEUED)
        if c is not None and c.status == "False":
            return False
        at = _requeue_at(info)
        return at is None or self.clock() >= at

    # --- changes -------------------------------------------------------------------------------------
    def push_or_update(self, info: WorkloadInfo) -> None:
        """``PushOrUpdate``."""
        if self.variants_only and not is_variant(info.obj):
            return
        key = info.key
        if self.inflight is not None and self.inflight.key == key:
            return
        old = self.inadmissible.get(key)
        evaluated = self.evaluated.pop(key, 0)
        if old is not None:
            # the spec changed since the scheduler evaluated it (an update that arrived while it
            # was inflight was skipped, and the requeue kept the evaluated generation)
            changed_since_eval = evaluated != 0 and info.generation != evaluated
            if not changed_since_eval and not _may_have_become_admissible(old, info):
                self.inadmissible[key] = info
                return
            del self.inadmissible[key]
        if key not in self.in_heap and not self.backoff_expired(info):
            self.inadmissible[key] = info
            return
        if (
            self.strategy == "BestEffortFIFO"
            and key not in self.in_heap
            and info.scheduling_hash
            and info.scheduling_hash in self.bulk_moved
        ):
            self.inadmissible[key] = info
            return
        self._push(info)

    def push_if_not_tracked(self, info: WorkloadInfo, requeued: bool = False) -> bool:
        """``pushToHeapIfNotTracked``; ``requeued``: ``info`` is the scheduler's (it keeps the
        evaluated generation), else a fresh version from a LocalQueue."""
        if self.variants_only and not is_variant(info.obj):
            return False
        key = info.key
        if (
            (self.inflight is not None and self.inflight.key == key)
            or key in self.inadmissible
            or key in self.in_heap
        ):
            return False
        if not requeued:
            self.evaluated.pop(key, None)
        self._push(info)
        return True

    def delete(self, key: str) -> None:
        self.arrival.pop(key, None)
        self.evaluated.pop(key, None)
        self.inadmissible.pop(key, None)
        self._remove_heap(key)
        if self.inflight is not None and self.inflight.key == key:
            self.inflight = None
        if self.preemptor is not None and self.preemptor[0] == key:
            self.preemptor = None

    def pop(self) -> WorkloadInfo | None:
        self.pop_cycle += 1
        if not self.heap:
            self.inflight = None
            return None
        if self.afs_usage is not None:
            k = fair_head(self.heap, lambda k: _lq_key(self.infos[k[-1]]), self.heap_per_lq, self.afs_usage)
            assert k is not None
            key = k[-1]
            self.inflight = self.infos[key]
            self._remove_heap(key)
        else:
            k = self.heap.pop(0)
            key = k[-1]
            del self.in_heap[key]
            if not self.in_heap:
                self.nonempty.discard(self.name)
            self.inflight = self.infos.pop(key)
        self.evaluated[key] = self.inflight.generation
        return self.inflight

    def requeue(
        self,
        info: WorkloadInfo,
        reason: str,
        quota_reserved_reason: str,
        pending_flavors: bool,
        hashing: bool,
    ) -> bool:
        """``RequeueIfNotPresent``."""
        if self.strategy == "StrictFIFO":
            immediate = reason != RequeueReason.NAMESPACE_MISMATCH
        else:
            immediate = reason in (
                RequeueReason.FAILED_AFTER_NOMINATION,
                RequeueReason.PENDING_PREEMPTION,
                RequeueReason.PENDING_MIGRATION,
                RequeueReason.PREEMPTION_FAILED,
            )
        key = info.key
        if reason in (RequeueReason.PENDING_PREEMPTION, RequeueReason.PENDING_MIGRATION):
            # the generation evaluated, not the current one: a workload changed since it was
            # popped is no longer the preemptor (``IsPreemptor`` compares generations)
            self.preemptor = (key, self.strategy == "BestEffortFIFO", self.evaluated.get(key, 0))
        if self.inflight is not None and self.inflight.key == key:
            self.inflight = None
        old = self.inadmissible.get(key)
        if self.backoff_expired(info) and (
            immediate or self.queue_inadmissible_cycle >= self.pop_cycle or pending_flavors
        ):
            if old is not None:
                if key in self.in_heap:
                    return False
                del self.inadmissible[key]
                self._push(old)
                return True
            return self.push_if_not_tracked(info, requeued=True)
        if old is not None or key in self.in_heap:
            return False
        self.inadmissible[key] = info
        if (
            hashing
            and info.scheduling_hash
            and reason in (RequeueReason.NO_FIT, RequeueReason.PREEMPTION_NO_CANDIDATES)
        ):
            self._bulk_move(info.scheduling_hash, quota_reserved_reason or "PendingEvaluation")
        return True

    def _bulk_move(self, scheduling_hash: str, reason: str) -> None:
        """``handleInadmissibleHash``."""
        if self.strategy != "BestEffortFIFO":
            return
        self.bulk_moved[scheduling_hash] = reason
        for key in [k for k, i in self.infos.items() if i.scheduling_hash == scheduling_hash]:
            info = self.infos[key]
            self._remove_heap(key)
            self.inadmissible[key] = info

    def queue_inadmissible(self, namespace_labels: Callable[[str], dict[str, str] | None]) -> int:
        """``queueInadmissibleWorkloads``: back to the heap those whose namespace still matches and
        whose back-off expired."""
        self.queue_inadmissible_cycle = self.pop_cycle
        self.bulk_moved = {}
        moved = 0
        # whether the selector takes a namespace, asked once per namespace: nothing changes the
        # labels during the call, and a ClusterQueue's inadmissible workloads share a few namespaces
        takes: dict[str, bool] = {}
        for key in sorted(self.inadmissible):
            info = self.inadmissible[key]
            namespace = info.namespace
            taken = takes.get(namespace)
            if taken is None:
                labels = namespace_labels(namespace)
                taken = takes[namespace] = (
                    labels is not None and self.selector is not None and self.selector.matches(labels)
                )
            if not taken:
                continue
            if not self.backoff_expired(info) or key in self.in_heap:
                continue
            del self.inadmissible[key]
            self._push(info)
            moved += 1
        return moved


def _lq_key(info: WorkloadInfo) -> str:
    return f"{info.namespace}/{info.queue_name}"


def _may_have_become_admissible(old: WorkloadInfo, new: WorkloadInfo) -> bool:
    """``PushOrUpdate``'s test: the spec, priority boost, reclaimable pods, whether a preemption gate
    is closed (``HasClosedPreemptionGate``) or the Evicted/Requeued conditions changed, or the DRA
    requests (``draRequestsChanged``: the totals; with ``KueueDRAIntegration`` off they differ only
    with the spec, which kbatch compares adjusted)."""
    o, n = old.obj, new.obj
    if o.spec != n.spec or old.priority != new.priority:
        return True
    if [p.requests for p in old.pod_sets] != [p.requests for p in new.pod_sets]:
        return True
    if (o.status.reclaimable_pods if o.status else None) != (n.status.reclaimable_pods if n.status else None):
        return True
    if has_closed_gate(o) != has_closed_gate(n):  # a preemption gate opened (or closed)
        return True
    return any(condition(o, c) != condition(n, c) for c in (Cond.EVICTED, Cond.REQUEUED))


def _unit_weight(lq: str) -> float:
    return 1.0


def _no_dra(wl: Workload) -> DraOutcome | None:
    return None


def _as_is(wl: Workload) -> Workload:
    return wl


class QueueManager:
    """``cache/queue.Manager``; ``cohort_root`` maps a ClusterQueue to its root Cohort ("" when none)."""

    def __init__(
        self,
        options: InfoOptions,
        clock: Callable[[], datetime],
        hashing: bool = True,
        admission_gated_by: bool = True,
        admission_fair_sharing: AdmissionFairSharingConfig | None = None,
    ) -> None:
        self.options = options
        self.clock = clock
        self.hashing = hashing
        self.admission_gated_by = admission_gated_by
        self.cluster_queues: dict[str, ClusterQueueQueue] = {}
        self.nonempty: set[str] = set()  # the ClusterQueues whose heap holds a workload (by name)
        self.local_queues: dict[str, LocalQueueQueue] = {}
        self.assigned: dict[str, str] = {}  # workload key -> LocalQueue key
        self.last: dict[str, LastState] = {}  # workload key -> where its flavor scan stopped
        self.preserve_scan_progress = True
        self.requeue_requests: set[str] = set()  # ClusterQueue or "cohort:<root>" names awaiting requeue
        self.changed = False  # something the scheduler could act on arrived
        # ``workload.AdjustResources`` before every ``NewInfo`` (the manager sets the LimitRange
        # reader, :class:`~kbatch.controllers.kueue.resource_updates.ResourceAdjuster`); it returns
        # the same object when nothing applies
        self.adjust: Callable[[Workload], Workload] = _as_is
        # the DRA path (:class:`~kbatch.controllers.kueue.dra_requests.DraResolver`): the devices a
        # pending workload's templates add to its requests; one it refuses is not queued
        self.dra: Callable[[Workload], DraOutcome | None] = _no_dra
        # admission fair sharing (``afs.Enabled``: the gate and the configuration; ``None``: off):
        # the ledger (``Manager.AfsUsageLedger``), each usage-based ClusterQueue's resource weights,
        # and a LocalQueue's ``spec.fairSharing.weight`` (the manager reads the informer cache)
        self.afs = admission_fair_sharing
        self.afs_ledger = UsageLedger()
        self.afs_weights: dict[str, Mapping[str, float]] = {}
        self.lq_weight: Callable[[str], float] = _unit_weight
        # ``ConcurrentAdmission``: the ClusterQueues with a ``concurrentAdmissionPolicy`` (shared with
        # the cache; the manager fills it with the gate on, so it stays empty with the gate off)
        self.concurrent: set[str] = set()

    def local_queue_usage(self, lq: str, weights: Mapping[str, float]) -> float:
        """``CalcLocalQueueFSUsage``: the LocalQueue's ledger entry (consumed resources and pending
        penalties) weighted; an unknown LocalQueue has used nothing."""
        entry = self.afs_ledger.get(lq) or LedgerEntry()
        return afs_usage(entry.resources, entry.pending_penalty, self.lq_weight(lq), weights)

    def admission_fair_sharing_usage(self) -> dict[str, float] | None:
        """Every LocalQueue of a usage-based ClusterQueue with its usage (what the scheduler's
        snapshot gives the preemptor); ``None`` with admission fair sharing off."""
        if self.afs is None:
            return None
        out: dict[str, float] = {}
        for name in sorted(self.afs_weights):
            cq = self.cluster_queues.get(name)
            for lq in sorted(cq.local_queues) if cq is not None else ():
                out[lq] = self.local_queue_usage(lq, self.afs_weights[name])
        return out

    def uses_admission_fair_sharing(self, cq_name: str) -> bool:
        """``ClusterQueueUsesAdmissionFairSharing`` (with the feature on)."""
        return cq_name in self.afs_weights

    def info(self, wl: Workload) -> WorkloadInfo | None:
        """``NewInfo`` after ``AdjustResources`` and with the DRA resources; ``None`` for a
        workload the DRA path refuses (the workload controller reports why)."""
        adjusted = self.adjust(wl)
        dra = self.dra(adjusted)
        if dra is None:
            return WorkloadInfo.of(adjusted, self.options)
        if dra.inadmissible:
            return None
        return WorkloadInfo.of(adjusted, self.options, dra.requests, dra.replaced)

    # --- ClusterQueues -------------------------------------------------------------------------------
    def add_or_update_cluster_queue(
        self, name: str, strategy: str, selector: Selector | None, admission_mode: str | None = None
    ) -> None:
        cq = self.cluster_queues.get(name)
        weights = resource_weights(admission_mode, self.afs)
        if weights is None:
            self.afs_weights.pop(name, None)
        else:
            self.afs_weights[name] = weights
        if cq is None:
            cq = self.cluster_queues[name] = ClusterQueueQueue(
                name, strategy, selector, self.clock, self.nonempty
            )
            cq.variants_only = name in self.concurrent
            cq.set_admission_fair_sharing(self._usage_for(weights))
            for lq in sorted(self.local_queues.values(), key=lambda q: q.key):
                if lq.cluster_queue == name:
                    cq.local_queues.add(lq.key)
                    for key in sorted(lq.items):
                        self.changed |= cq.push_if_not_tracked(lq.items[key])
        else:
            cq.strategy, cq.selector = strategy, selector
            cq.variants_only = name in self.concurrent
            if weights is not None or cq.afs_usage is not None:  # turned on, off, or new weights
                cq.set_admission_fair_sharing(self._usage_for(weights))

    def _usage_for(self, weights: Mapping[str, float] | None) -> Callable[[str], float] | None:
        if weights is None:
            return None
        return functools.partial(self.local_queue_usage, weights=weights)

    def delete_cluster_queue(self, name: str) -> None:
        self.cluster_queues.pop(name, None)
        self.nonempty.discard(name)
        self.afs_weights.pop(name, None)

    # --- LocalQueues ---------------------------------------------------------------------------------
    def add_local_queue(self, key: str, cluster_queue: str, workloads: Iterable[Workload]) -> None:
        lq = self.local_queues[key] = LocalQueueQueue(key, cluster_queue)
        cq = self.cluster_queues.get(cluster_queue)
        if cq is not None:
            cq.local_queues.add(key)
        for wl in workloads:
            wkey = workload_key(wl.metadata.namespace, wl.metadata.name)
            self.assigned[wkey] = key
            info = self.info(wl) if admissible(wl, self.admission_gated_by) else None
            if info is not None:
                lq.items[wkey] = info
        if cq is not None:
            for wkey in sorted(lq.items):
                self.changed |= cq.push_if_not_tracked(lq.items[wkey])

    def update_local_queue(self, key: str, cluster_queue: str) -> bool:
        """``UpdateLocalQueue``: whether the LocalQueue moved to another ClusterQueue."""
        lq = self.local_queues.get(key)
        if lq is None or lq.cluster_queue == cluster_queue:
            return False
        old = self.cluster_queues.get(lq.cluster_queue)
        if old is not None:
            for wkey in lq.items:
                old.delete(wkey)
            old.local_queues.discard(key)
        lq.cluster_queue = cluster_queue
        new = self.cluster_queues.get(cluster_queue)
        if new is not None:
            for wkey in sorted(lq.items):
                new.push_if_not_tracked(lq.items[wkey])
            new.local_queues.add(key)
            self.changed = True
        return True

    def delete_local_queue(self, key: str) -> None:
        lq = self.local_queues.pop(key, None)
        if lq is None:
            return
        cq = self.cluster_queues.get(lq.cluster_queue)
        if cq is not None:
            for wkey in lq.items:
                cq.delete(wkey)
            cq.local_queues.discard(key)

    def is_concurrent_parent(self, wl: Workload) -> bool:
        """``IsConcurrentAdmissionParentWithoutLock``: not a Variant, and its ClusterQueue has a
        ``concurrentAdmissionPolicy`` (with the gate on)."""
        if not self.concurrent or is_variant(wl):
            return False
        return self.cluster_queue_for(wl) in self.concurrent

    def cluster_queue_for(self, wl: Workload) -> str | None:
        lq = self.local_queues.get(
            f"{wl.metadata.namespace}/{(wl.spec.queue_name if wl.spec else None) or ''}"
        )
        return lq.cluster_queue if lq is not None else None

    # --- workloads ------------------------------------------------------------------------------------
    def add_or_update_workload(self, wl: Workload, info: WorkloadInfo | None = None) -> bool:
        """``AddOrUpdateWorkload``: whether it is now queued in a ClusterQueue (a concurrent
        admission parent never is: its Variants are)."""
        if not admissible(wl, self.admission_gated_by):
            return False
        if self.concurrent and self.is_concurrent_parent(wl):
            return False
        key = workload_key(wl.metadata.namespace, wl.metadata.name)
        qkey = f"{wl.metadata.namespace}/{(wl.spec.queue_name if wl.spec else None) or ''}"
        if self.assigned.get(key, qkey) != qkey:
            self.delete_workload(key)
            self.assigned.pop(key, None)
        lq = self.local_queues.get(qkey)
        if lq is None:
            return False
        self.assigned[key] = qkey
        info = info if info is not None and info.obj is wl else self.info(wl)
        if info is None:
            self.delete_workload(key)
            return False
        lq.items[key] = info
        cq = self.cluster_queues.get(lq.cluster_queue)
        if not self._carries_scan_progress(cq, info):
            self.last.pop(key, None)
        if cq is None:
            return False
        cq.push_or_update(info)
        self.changed = True
        return True

    def _carries_scan_progress(self, cq: ClusterQueueQueue | None, info: WorkloadInfo) -> bool:
        """``AddOrUpdateWorkloadWithoutLock``: the rebuilt ``Info`` keeps the flavor scan progress
        only with ``FlavorFungibilityPreserveScanProgress``, while its ClusterQueue tracks it (heap,
        inadmissible or inflight) and its scheduling shape is the one the progress was recorded
        for (``MatchesSchedulingShape``); otherwise the next cycle starts from the first flavor."""
        last = self.last.get(info.key)
        if last is None:
            return True
        if not self.preserve_scan_progress or cq is None or cq.tracked(info.key) is None:
            return False
        recorded, current = last.scheduling_hash, info.scheduling_hash
        return not (recorded and current) or recorded == current

    def queued(self, key: str) -> bool:
        """Whether the workload is in its LocalQueue (and so in its ClusterQueue's queue, if any)."""
        qkey = self.assigned.get(key)
        lq = self.local_queues.get(qkey) if qkey is not None else None
        return lq is not None and key in lq.items

    def delete_workload(self, key: str) -> None:
        qkey = self.assigned.get(key)
        lq = self.local_queues.get(qkey) if qkey is not None else None
        if lq is None:
            return
        lq.items.pop(key, None)
        cq = self.cluster_queues.get(lq.cluster_queue)
        if cq is not None:
            cq.delete(key)

    def forget_workload(self, key: str) -> None:
        """``DeleteAndForgetWorkload``."""
        self.delete_workload(key)
        self.assigned.pop(key, None)
        self.last.pop(key, None)

    def requeue_workload(
        self,
        current: Workload | None,
        info: WorkloadInfo,
        last: LastState | None,
        reason: str,
        quota_reserved_reason: str,
    ) -> bool:
        """``RequeueWorkload``: ``current`` is the workload as the cache has it now."""
        if current is None or not admissible(current, self.admission_gated_by):
            return False
        key = info.key
        qkey = f"{current.metadata.namespace}/{(current.spec.queue_name if current.spec else None) or ''}"
        lq = self.local_queues.get(qkey)
        if lq is None:
            return False
        self.assigned[key] = qkey
        if current is not info.obj:
            fresh = self.info(current)
            if fresh is None:
                self.delete_workload(key)
                return False
            info = fresh
        lq.items[key] = info
        if last is not None:
            self.last[key] = last
        else:
            self.last.pop(key, None)
        cq = self.cluster_queues.get(lq.cluster_queue)
        if cq is None:
            return False
        return cq.requeue(
            info, reason, quota_reserved_reason, last is not None and last.pending_flavors(), self.hashing
        )

    # --- the scheduler's side --------------------------------------------------------------------------
    def heads(self, active: Callable[[str], bool]) -> list[Head]:
        """``heads``: pop every active ClusterQueue's head (in name order)."""
        out = []
        for name in sorted(self.cluster_queues):
            if not active(name):
                continue
            cq = self.cluster_queues[name]
            info = cq.pop()
            if info is None:
                continue
            is_preemptor = cq.is_preemptor(info)
            out.append(Head(info, name, self.last.get(info.key), is_preemptor))
            lq = self.local_queues.get(self.assigned.get(info.key, ""))
            if lq is not None:
                lq.items.pop(info.key, None)
        return out

    def has_heads(self, active: Callable[[str], bool]) -> bool:
        """Whether an active ClusterQueue's heap holds a workload (the answer does not depend on the
        order the non-empty queues are asked in)."""
        return any(active(name) for name in self.nonempty)

    def notify_retry_inadmissible(self, cq_names: Iterable[str], cohort_root: Callable[[str], str]) -> None:
        for name in cq_names:
            if name not in self.cluster_queues:
                continue
            root = cohort_root(name)
            self.requeue_requests.add(f"cohort:{root}" if root else name)

    def take_requeue_requests(self) -> list[str]:
        out = sorted(self.requeue_requests)
        self.requeue_requests = set()
        return out

    def queue_inadmissible(
        self, cq_names: Iterable[str], namespace_labels: Callable[[str], dict[str, str] | None]
    ) -> int:
        moved = 0
        for name in cq_names:
            cq = self.cluster_queues.get(name)
            if cq is not None:
                moved += cq.queue_inadmissible(namespace_labels)
        if moved:
            self.changed = True
        return moved

    # --- status -------------------------------------------------------------------------------------
    def pending_in_cluster_queue(self, name: str) -> int:
        cq = self.cluster_queues.get(name)
        return cq.pending_total() if cq is not None else 0

    def pending_in_local_queue(self, key: str) -> int:
        lq = self.local_queues.get(key)
        return len(lq.items) if lq is not None else 0

    def default_local_queue_exists(self, namespace: str) -> bool:
        return f"{namespace}/default" in self.local_queues
