"""The LocalQueue controller's sampling: decayed consumed resources into the ledger and the status.

Upstream: kubernetes-sigs/kueue ``pkg/controller/core/localqueue_controller.go`` (``Reconcile``'s
admission-fair-sharing block, ``initializeAfsIfNeeded``, ``reconcileConsumedUsage``,
``updateAdmissionFsStatus``), v0.19.2. Only for a LocalQueue whose ``Active`` condition is True
(a stopped LocalQueue, or one whose ClusterQueue is missing or inactive, returns before).

Each reconcile first makes sure the ledger has the LocalQueue (seeded from the persisted
``consumedResources``). Within ``usageSamplingInterval`` of the entry's last update, and with no
penalty pending, it only asks to come back when the interval is over; otherwise it decays the
consumed resources toward the LocalQueue's admitted usage, writes them with ``lastUpdate: now``,
and asks to come back after a whole interval. kbatch's requeue runs on the virtual clock, so
``kbatch advance`` drives the samples.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from kbatch.api.kueue_v1beta2 import LocalQueue
from kbatch.controllers.kueue.admissionfairsharing.arithmetic import (
    Amounts,
    duration_seconds,
    from_quantity,
    to_quantity,
)
from kbatch.controllers.kueue.admissionfairsharing.penalties import CacheView, QueuesView, admitted_amounts
from kbatch.runtime.reconcile import Result

__all__ = ["UsageSampler"]


def _persisted(lq: LocalQueue) -> Amounts | None:
    fs = lq.status.fair_sharing if lq.status is not None else None
    afs = fs.admission_fair_sharing_status if fs is not None else None
    if afs is None:
        return None
    return {k: from_quantity(v) for k, v in sorted((afs.consumed_resources or {}).items())}


class UsageSampler:
    """See the module docstring."""

    def __init__(self, queues: QueuesView, cache: CacheView, now: Callable[[], datetime]) -> None:
        self.queues, self.cache, self.now = queues, cache, now

    def reconcile(self, lq: LocalQueue, key: str, cq_name: str, status: dict[str, Any]) -> Result:
        """Updates ``status["fairSharing"]`` when it samples; the requeue either way."""
        cfg = self.queues.afs
        assert cfg is not None
        ledger, now, interval = self.queues.afs_ledger, self.now(), cfg.usage_sampling_interval
        had, entry = ledger.initialize(key, _persisted(lq), now)
        since = duration_seconds(now - entry.last_update) if entry.last_update is not None else 0.0
        if had and since < interval and not ledger.has_pending_penalty(key):
            return Result(requeue_after=interval - since)
        usage = admitted_amounts(self.cache, cq_name, key)
        consumed = ledger.sample(key, usage, now, cfg.usage_half_life_time)
        fair = dict(status.get("fairSharing") or {})
        fair["weightedShare"] = fair.get("weightedShare") or 0
        fair["admissionFairSharingStatus"] = {
            "consumedResources": {k: str(to_quantity(v)) for k, v in sorted(consumed.items())},
            "lastUpdate": now,
        }
        status["fairSharing"] = fair
        return Result(requeue_after=interval)
