"""When an entry penalty is pushed, settled or dropped, and what a settlement folds in.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go`` (``shouldApplyEntryPenalty``,
``updateEntryPenalty``: pushed at assume, dropped when the admission write fails) and
``pkg/controller/core/workload_controller.go`` (``reconcileAfsPenaltiesOnUpdate``,
``updateAfsConsumedUsage``, the ``Delete`` handler), v0.19.2. Everything is a no-op with admission
fair sharing off. See :mod:`.ledger` for the lifecycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Protocol

from kbatch.api.kueue_config import AdmissionFairSharingConfig
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue.admissionfairsharing.arithmetic import Amounts, cache_amounts, entry_penalty
from kbatch.controllers.kueue.admissionfairsharing.ledger import UsageLedger
from kbatch.controllers.kueue.model.info import is_true, workload_key

__all__ = ["CacheView", "PenaltyLifecycle", "QueuesView", "admitted_amounts"]


class QueuesView(Protocol):
    afs: AdmissionFairSharingConfig | None
    afs_ledger: UsageLedger

    def uses_admission_fair_sharing(self, cq_name: str) -> bool: ...


class LocalQueueUsageView(Protocol):
    admitted: dict[tuple[str, str], int]


class CacheView(Protocol):
    def local_queue_usage(self, cq_name: str, lq_key: str) -> LocalQueueUsageView: ...


def admitted_amounts(cache: CacheView, cq_name: str, lq: str) -> Amounts:
    """``LocalQueue.GetAdmittedUsage``: the LocalQueue's admitted usage, flavors summed."""
    totals: dict[str, int] = {}
    for (_, resource), value in cache.local_queue_usage(cq_name, lq).admitted.items():
        totals[resource] = totals.get(resource, 0) + value
    return cache_amounts(sorted(totals.items()))


def _lq_of(wl: Workload) -> str:
    return f"{wl.metadata.namespace}/{(wl.spec.queue_name if wl.spec else None) or ''}"


def _active(wl: Workload) -> bool:
    return wl.spec is None or wl.spec.active is not False


class PenaltyLifecycle:
    """The penalty decisions of the scheduler and the workload controller, over the shared ledger."""

    def __init__(self, queues: QueuesView, cache: CacheView, now: Callable[[], datetime]) -> None:
        self.queues, self.cache, self.now = queues, cache, now

    def applies(self, cq_name: str, wl: Workload) -> bool:
        """``shouldApplyEntryPenalty``: on, a usage-based ClusterQueue, and not a second pass (a
        workload already holding its reservation was pushed for at its first assume)."""
        return (
            self.queues.afs is not None
            and self.queues.uses_admission_fair_sharing(cq_name)
            and not is_true(wl, Cond.QUOTA_RESERVED)
        )

    def push(self, wl: Workload, requests: Iterable[Mapping[str, int]], covered: set[str] | None) -> None:
        """``updateEntryPenalty(add)``: ``requests`` are the pod sets' totals; ``covered``: only
        these resources count (``IgnoreUndeclared``), ``None``: all."""
        cfg = self.queues.afs
        assert cfg is not None
        totals: dict[str, int] = {}
        for ps in requests:
            for name, value in ps.items():
                if covered is None or name in covered:
                    totals[name] = totals.get(name, 0) + value
        penalty = entry_penalty(
            cache_amounts(sorted(totals.items())),
            cfg.usage_sampling_interval,
            cfg.usage_half_life_time,
        )
        key = workload_key(wl.metadata.namespace, wl.metadata.name)
        self.queues.afs_ledger.push_penalty(_lq_of(wl), key, penalty, self.now())

    def rollback(self, wl: Workload) -> None:
        """``updateEntryPenalty(subtract)``: the admission write failed."""
        self.queues.afs_ledger.sub_penalty(_lq_of(wl), workload_key(wl.metadata.namespace, wl.metadata.name))

    def on_update(self, old: Workload, new: Workload, prev: str, status: str) -> None:
        """``reconcileAfsPenaltiesOnUpdate`` (after the cache took the update)."""
        cfg = self.queues.afs
        if cfg is None:
            return
        ledger, active = self.queues.afs_ledger, _active(new)
        key = workload_key(new.metadata.namespace, new.metadata.name)
        admission = new.status.admission if new.status else None
        if (
            active
            and status == "admitted"
            and prev != "admitted"
            and admission is not None
            and self.queues.uses_admission_fair_sharing(admission.cluster_queue or "")
        ):
            lq = _lq_of(new)
            usage = admitted_amounts(self.cache, admission.cluster_queue or "", lq)
            ledger.settle(lq, key, usage, self.now(), cfg.usage_half_life_time)
        if _lq_of(old) != _lq_of(new):
            ledger.sub_penalty(_lq_of(old), key)
        inactive_unreserved = not active and not is_true(new, Cond.QUOTA_RESERVED)
        was_active_or_reserved = _active(old) or is_true(old, Cond.QUOTA_RESERVED)
        if (inactive_unreserved and was_active_or_reserved) or (status == "finished" and prev != "finished"):
            ledger.sub_penalty(_lq_of(new), key)

    def on_delete(self, wl: Workload) -> None:
        """The ``Delete`` handler: a penalty never settled must not stay pending."""
        if self.queues.afs is not None:
            self.rollback(wl)
