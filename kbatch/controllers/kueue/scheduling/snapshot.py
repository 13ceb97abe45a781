"""The scheduling cycle's view of the cache: a journaled what-if over the live quota tree.

Upstream (kubernetes-sigs/kueue ``pkg/cache/scheduler/snapshot.go``, ``clusterqueue_snapshot.go``)
copies the cache into a snapshot at the start of every cycle and mutates the copy. kbatch works on the
live tree instead and records every change in a :class:`~kbatch.controllers.kueue.model.quota.Journal`;
:meth:`Snapshot.close` undoes them all, and the scheduler then "assumes" its admissions in the cache
for real. The observable behaviour is the same (the cycle sees the cache as of its start plus its own
decisions), without copying thousands of workloads per cycle.

The functions below are ``ClusterQueueSnapshot``'s quota questions (``Available``,
``PotentialAvailable``, ``BorrowingWith``, ``Fits``) on a node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbatch.controllers.kueue.cache import KueueCache
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import (
    Journal,
    Node,
    add_usage,
    available,
    path_to_root,
    potential_available,
    remove_usage,
)
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.scheduling.candidate_index import CandidateIndex

__all__ = [
    "Snapshot",
    "chain_of",
    "cq_available",
    "cq_borrowing",
    "cq_borrowing_with",
    "cq_fits",
    "cq_potential",
]


def cq_available(cq: ClusterQueueNode, fr: FlavorResource) -> int:
    """``ClusterQueueSnapshot.Available``: never negative."""
    return max(0, available(cq, fr))


def cq_potential(cq: ClusterQueueNode, fr: FlavorResource) -> int:
    return potential_available(cq, fr)


def cq_borrowing_with(cq: ClusterQueueNode, fr: FlavorResource, value: int) -> bool:
    return cq.quota(fr).nominal < cq.usage.get(fr, 0) + value


def cq_borrowing(cq: ClusterQueueNode, fr: FlavorResource) -> bool:
    return cq_borrowing_with(cq, fr, 0)


def cq_fits(cq: ClusterQueueNode, usage: Mapping[FlavorResource, int]) -> bool:
    return all(cq_available(cq, fr) >= value for fr, value in usage.items())


def chain_of(node: Node) -> frozenset[int]:
    """The ids of ``node`` and its ancestors: every node a quota question about ``node`` reads
    (:func:`~kbatch.controllers.kueue.model.quota.available` walks up the parents only)."""
    return frozenset((id(node), *(id(a) for a in path_to_root(node))))


def _reaches(node: Node, chain: frozenset[int]) -> bool:
    """Whether ``node`` or one of its ancestors is in ``chain`` (``chain_of(node)`` meets it), without
    building ``node``'s own chain."""
    return id(node) in chain or any(id(a) in chain for a in path_to_root(node))


class Snapshot:
    """See the module docstring. ``inactive`` holds the ClusterQueues left out of this cycle;
    ``candidates`` the preemption candidates' order per ClusterQueue, computed once per content (the
    scheduler passes the same index to every cycle: its entries are keyed by the content's revision
    and the clock reading, so an unchanged queue is not sorted again)."""

    def __init__(self, cache: KueueCache, candidates: CandidateIndex | None = None) -> None:
        self.cache = cache
        self.journal = Journal()
        cache.tree.journal = self.journal
        self.flavors: Mapping[str, Any] = cache.flavors
        self.inactive = frozenset(n for n in cache.cluster_queues if not cache.schedulable(n))
        self.candidates = candidates if candidates is not None else CandidateIndex()
        # admission fair sharing: each usage-based ClusterQueue's LocalQueues' usage as of the cycle's
        # start (``LocalQueueFSUsage`` on the snapshot's workloads; preemption candidates of one
        # ClusterQueue in different LocalQueues are taken from the higher usage first); ``None`` off
        self.lq_usage: dict[str, float] | None = None

    def cluster_queue(self, name: str) -> ClusterQueueNode | None:
        if name in self.inactive:
            return None
        return self.cache.cluster_queues.get(name)

    def in_snapshot(self, cq: Any) -> bool:
        return cq.name not in self.inactive

    # --- what-if changes (journaled) ----------------------------------------------------------------
    def mark(self) -> int:
        return self.journal.mark()

    def rollback(self, mark: int) -> None:
        self.journal.rollback(mark)

    def close(self) -> None:
        self.journal.rollback(0)
        self.cache.tree.journal = None

    @staticmethod
    def add_usage(cq: ClusterQueueNode, usage: Mapping[FlavorResource, int]) -> None:
        for fr, value in usage.items():
            add_usage(cq, fr, value)

    @staticmethod
    def remove_usage(cq: ClusterQueueNode, usage: Mapping[FlavorResource, int]) -> None:
        for fr, value in usage.items():
            remove_usage(cq, fr, value)

    def add_workload(self, info: WorkloadInfo) -> None:
        cq = self.cache.cluster_queues.get(info.cluster_queue)
        if cq is None:
            return
        cq.put_workload(info)
        self.add_usage(cq, info.usage())

    def remove_workload(self, info: WorkloadInfo) -> None:
        cq = self.cache.cluster_queues.get(info.cluster_queue)
        if cq is None:
            return
        cq.drop_workload(info.key)
        self.remove_usage(cq, info.usage())

    def remove_usage_of(self, infos: Iterable[WorkloadInfo], chain: frozenset[int] | None = None) -> int:
        """``SimulateWorkloadUsageRemoval``: returns the mark to roll back to. With ``chain`` (a
        :func:`chain_of`), only the workloads whose removal changes a node of it: those whose queue
        or one of its ancestors is in it (a removal changes its queue and, as it gives usage back,
        that queue's ancestors, nothing else), so the chain's usage ends as with all of them."""
        mark = self.mark()
        for info in infos:
            cq = self.cache.cluster_queues.get(info.cluster_queue)
            if cq is not None and (chain is None or _reaches(cq, chain)):
                self.remove_usage(cq, info.usage())
        return mark
