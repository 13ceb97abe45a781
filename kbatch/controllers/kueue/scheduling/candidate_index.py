"""Each ClusterQueue's admitted workloads as preemption candidates, in order: computed once per content.

Upstream (kubernetes-sigs/kueue ``pkg/scheduler/preemption/classical/candidate_generator.go``, v0.19.2)
gathers a preemptor's candidates afresh for every simulation: every workload of every ClusterQueue
of the cohort above its nominal quota, filtered (``WorkloadUsesResources``, the preemption policy)
and sorted by ``CandidatesOrdering`` (``pkg/scheduler/preemption/common/ordering.go``). A cycle asks
that of the same cohorts for every head that does not fit.

The order does not need the preemptor. ``CandidatesOrdering`` puts evicted workloads first, then
those of other ClusterQueues, then lower priority, the newest reservation and the UID; within one
of the classical preemptor's candidate groups every candidate is of another ClusterQueue, or every
one is of the preemptor's own, so the second term is constant there and :func:`order_key` (the
others) orders a group as :func:`~.preemption.policy.candidate_key` does. What each workload's
admission uses (:func:`used_flavor_resources`) does not need the preemptor either.

:class:`CandidateIndex` keeps each ClusterQueue's workloads as :class:`Slot`\\ s sorted by that key
(ties by workload key, as the collection visits them), keyed by the queue's
:attr:`~kbatch.controllers.kueue.model.clusterqueue.ClusterQueueNode.workloads_revision` and the
clock reading: any change of the workloads (a what-if of the cycle, or the cache's between cycles)
takes a fresh revision and a rollback restores the old one, so an entry is used only for the content
it was computed from. The scheduler keeps one index across its cycles.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.requests import FlavorResource

__all__ = ["CandidateIndex", "Slot", "order_key", "slots_of", "used_flavor_resources"]

_V = TypeVar("_V")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class Slot(NamedTuple):
    """One admitted workload as a candidate: its order within a group, the flavor resources its
    admission assigned and its usage (``FlavorResourceUsage``) as pairs."""

    wl: WorkloadInfo
    order: tuple[Any, ...]
    uses: frozenset[FlavorResource]
    usage: tuple[tuple[FlavorResource, int], ...]


def order_key(info: WorkloadInfo, now: datetime) -> tuple[Any, ...]:
    """``CandidatesOrdering`` without its own-ClusterQueue term: evicted first, lower priority, the
    most recent reservation (whole microseconds, negated; ``now`` when not reserved), then UID."""
    reserved = ((info.quota_reserved_time or now) - _EPOCH) // _MICROSECOND
    return (not info.evicted, info.priority, -reserved, info.uid)


def used_flavor_resources(info: WorkloadInfo) -> frozenset[FlavorResource]:
    """The (flavor, resource) pairs ``WorkloadUsesResources`` tests: each pod set's assigned ones."""
    return frozenset((ps.flavors.get(res, ""), res) for ps in info.pod_sets for res in ps.flavors)


_ORDER = attrgetter("order")


def slots_of(cq: ClusterQueueNode, now: datetime) -> tuple[Slot, ...]:
    """``cq``'s workloads in :func:`order_key` order (equal keys in workload key order)."""
    slots = [
        Slot(wl, order_key(wl, now), used_flavor_resources(wl), tuple(wl.usage().items()))
        for _, wl in sorted(cq.workloads.items())
    ]
    slots.sort(key=_ORDER)
    return tuple(slots)


class _Entry(NamedTuple):
    node: ClusterQueueNode
    revision: int
    now: datetime
    slots: tuple[Slot, ...]
    derived: dict[Hashable, Any]


class CandidateIndex:
    """:func:`slots_of` per ClusterQueue, recomputed when its workloads or the clock reading differ;
    :meth:`derived` keeps what a caller computes from them under a key naming its other inputs."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def _entry(self, cq: ClusterQueueNode, now: datetime) -> _Entry:
        revision = cq.workloads_revision
        entry = self._entries.get(cq.name)
        if entry is None or entry.node is not cq or entry.revision != revision or entry.now != now:
            entry = self._entries[cq.name] = _Entry(cq, revision, now, slots_of(cq, now), {})
        return entry

    def slots(self, cq: ClusterQueueNode, now: datetime) -> tuple[Slot, ...]:
        return self._entry(cq, now).slots

    def derived(
        self, cq: ClusterQueueNode, now: datetime, key: Hashable, compute: Callable[[tuple[Slot, ...]], _V]
    ) -> _V:
        """``compute(slots)``, once per content of ``cq``'s workloads and ``key``: ``key`` must name
        every other input of ``compute``. Dropped with the slots when the content changes."""
        entry = self._entry(cq, now)
        if key not in entry.derived:
            entry.derived[key] = compute(entry.slots)
        return entry.derived[key]  # type: ignore[no-any-return]
