"""Which pending workload a usage-based ClusterQueue pops next.

Upstream: kubernetes-sigs/kueue ``pkg/cache/queue/cluster_queue.go`` (``queueOrderingFunc``,
``CalcLocalQueueFSUsage`` in ``pkg/workload/workload.go``), v0.19.2: the heap compares two workloads
by their LocalQueues' usage (:func:`~.arithmetic.usage` of the ledger entry: consumed resources plus
pending penalties, resource-weighted, over the LocalQueue's weight) first, the lower first, and only
then by the ClusterQueue's usual order (the sticky preemptor, priority, queue-order time, arrival).

Upstream's heap caches the comparison and is rebuilt when a penalty is pending (``Pop``) or a
LocalQueue was sampled (``RebuildClusterQueue``); kbatch computes the order when it pops, from the
state then, so the two agree at every pop. Since the usage key is the same for all workloads of one
LocalQueue, the head is the first-in-base-order workload of the LocalQueue with the lowest
``(usage, base order)``: the walk over the base order stops once every LocalQueue with a pending
workload has been met. Usage ties fall to the base order, so the pick is a function of the state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

__all__ = ["fair_head"]

K = TypeVar("K")


def fair_head(
    base_order: Iterable[K],
    local_queue_of: Callable[[K], str],
    pending_per_queue: Mapping[str, int],
    usage_of: Callable[[str], float],
) -> K | None:
    """The first of ``base_order`` (sort keys, best first) under ``(usage of its LocalQueue, base
    order)``; ``pending_per_queue`` counts the workloads each LocalQueue has in ``base_order``."""
    firsts: list[tuple[str, K]] = []
    wanted = sum(1 for n in pending_per_queue.values() if n > 0)
    seen: set[str] = set()
    for key in base_order:
        lq = local_queue_of(key)
        if lq in seen:
            continue
        seen.add(lq)
        firsts.append((lq, key))
        if len(seen) >= wanted:
            break
    best: tuple[float, int] | None = None
    head: K | None = None
    for rank, (lq, key) in enumerate(firsts):
        candidate = (usage_of(lq), rank)
        if best is None or candidate < best:
            best, head = candidate, key
    return head
