"""A ClusterQueue's pending workloads in pop order: ``ClusterQueue.Snapshot``
(kueue ``pkg/cache/queue/cluster_queue.go``, v0.19.2).

Every pending workload counts: those in the heap, the inadmissible ones set aside and the one the
scheduler holds (``totalElements``). They sort as the heap does (``baseCompareFunc``): the sticky
preemptor of a ``BestEffortFIFO`` queue first, then higher effective priority, then earlier queue
order time; kbatch breaks the last tie by arrival where upstream compares UIDs (docs/kueue.md, "Equal
queue order"). With admission fair sharing on the ClusterQueue, the usage of each workload's
LocalQueue comes first (``buildSnapshotSort``), read once per snapshot as upstream's usage cache is.

Pure: it reads the queue and changes nothing (the heap's own sort key would assign an arrival number
to a workload it has never held).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.queues import ClusterQueueQueue

__all__ = ["pending_snapshot"]

_LATE = float("inf")


def _elements(cq: ClusterQueueQueue) -> list[WorkloadInfo]:
    """``totalElements``: heap, inadmissible and inflight, in key order (then sorted)."""
    out = [cq.infos[k] for k in sorted(cq.infos)]
    out += [cq.inadmissible[k] for k in sorted(cq.inadmissible)]
    if cq.inflight is not None:
        out.append(cq.inflight)
    return out


def _base_key(cq: ClusterQueueQueue, info: WorkloadInfo) -> tuple[bool, int, datetime, float, str]:
    return (not cq.is_sticky(info.key), -info.priority, info.queue_order_time,
            cq.arrival.get(info.key, _LATE), info.key)


def pending_snapshot(cq: ClusterQueueQueue) -> list[WorkloadInfo]:
    """The ClusterQueue's pending workloads, first to be popped first."""
    elements = _elements(cq)
    usage_of: Callable[[str], float] | None = cq.afs_usage
    if usage_of is None:
        return sorted(elements, key=lambda i: _base_key(cq, i))
    usage: dict[str, float] = {}
    for info in elements:
        lq = f"{info.namespace}/{info.queue_name}"
        if lq not in usage:
            usage[lq] = usage_of(lq)
    return sorted(elements, key=lambda i: (usage[f"{i.namespace}/{i.queue_name}"], _base_key(cq, i)))
