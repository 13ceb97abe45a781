"""The order in which a cycle's nominated entries are tried.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/scheduler.go`` (``makeClassicalIterator``) and
``fair_sharing_iterator.go`` (v0.19.2).

Classical: entries already holding quota first (a second pass), then (``PrioritizePreemptorWorkloads``)
preemptors, then the lower borrowing height, the higher priority (``PrioritySortingWithinCohort``),
the earlier queue-order time. Python's sort is stable, as ``slices.SortFunc`` is not guaranteed to
be; kbatch starts from the heads in ClusterQueue name order, so equal entries keep that order.

Fair sharing: ClusterQueues without a cohort go first (in name order); for a cohort tree, every
candidate entry's dominant resource share is computed with its usage added, at every level, and a
tournament from the root picks, at each cohort, the child whose entry has the lower share
(``FairSharingPrioritizeNonBorrowing``: not borrowing first), then higher priority, then the earlier
queue-order time; the winner is popped and the shares are recomputed for the next pop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kbatch.controllers.kueue.model.quota import Cohort, path_to_root, root_of
from kbatch.controllers.kueue.scheduling.fairshare import DRS, compare_drs, dominant_resource_share

__all__ = ["classical_order", "fair_sharing_order"]


def classical_order(
    entries: list[Any], prioritize_preemptors: bool = False, priority_sorting: bool = True
) -> list[Any]:
    def key(e: Any) -> tuple:
        return (
            not e.has_reservation,
            (not e.is_preemptor) if prioritize_preemptors else False,
            e.assignment.borrowing,
            -e.info.priority if priority_sorting else 0,
            e.info.queue_order_time,
        )

    return sorted(entries, key=key)


def fair_sharing_order(
    entries: list[Any],
    snapshot: Any,
    usage_of: Callable[[Any], dict],
    prioritize_non_borrowing: bool = True,
    prioritize_preemptors: bool = False,
    priority_sorting: bool = True,
) -> Iterator[Any]:
    """Yields entries one by one; the caller processes each (changing the snapshot) before the next."""
    by_cq = {e.cq.name: e for e in entries}
    while by_cq:
        name = sorted(by_cq)[0]
        cq = by_cq[name].cq
        if cq.parent is None:
            yield by_cq.pop(name)
            continue
        root = root_of(cq)
        drs, requested = _compute_drs(root, by_cq, snapshot, usage_of)  # type: ignore[arg-type]
        less = _Comparer(drs, requested, prioritize_non_borrowing, prioritize_preemptors, priority_sorting)
        winner = _tournament(root, by_cq, less)  # type: ignore[arg-type]
        yield by_cq.pop(winner.cq.name)


class _Comparer:
    """``entryComparer.less`` at one cohort of the tournament."""

    def __init__(
        self,
        drs: dict[tuple[str, str], DRS],
        requested: dict[str, dict],
        non_borrowing: bool,
        preemptors: bool,
        priority_sorting: bool,
    ) -> None:
        self.drs, self.requested = drs, requested
        self.non_borrowing, self.preemptors, self.priority_sorting = (
            non_borrowing,
            preemptors,
            priority_sorting,
        )

    def __call__(self, a: Any, b: Any, cohort: str) -> bool:
        if self.preemptors and a.is_preemptor != b.is_preemptor:
            return bool(a.is_preemptor)
        da, db = self.drs[(cohort, a.info.key)], self.drs[(cohort, b.info.key)]
        if self.non_borrowing:
            ba = da.is_borrowing_on(self.requested[a.info.key])
            bb = db.is_borrowing_on(self.requested[b.info.key])
            if ba != bb:
                return not ba
        c = compare_drs(da, db)
        if c != 0:
            return c == -1
        if self.priority_sorting and a.info.priority != b.info.priority:
            return bool(a.info.priority > b.info.priority)
        return bool(a.info.queue_order_time < b.info.queue_order_time)


def _compute_drs(
    root: Cohort, by_cq: dict[str, Any], snapshot: Any, usage_of: Callable[[Any], dict]
) -> tuple[dict[tuple[str, str], DRS], dict[str, dict]]:
    drs: dict[tuple[str, str], DRS] = {}
    requested: dict[str, dict] = {}
    for cq in root.subtree_cluster_queues():
        entry = by_cq.get(cq.name)
        if entry is None:
            continue
        usage = usage_of(entry)
        mark = snapshot.mark()
        snapshot.add_usage(cq, usage)
        requested[entry.info.key] = usage
        share = dominant_resource_share(cq)
        for ancestor in path_to_root(cq):
            drs[(ancestor.name, entry.info.key)] = share
            share = dominant_resource_share(ancestor)
        snapshot.rollback(mark)
    return drs, requested


def _tournament(cohort: Cohort, by_cq: dict[str, Any], less: Callable[[Any, Any, str], bool]) -> Any:
    candidates = []
    for name in sorted(cohort.child_cohorts):
        winner = _tournament(cohort.child_cohorts[name], by_cq, less)
        if winner is not None:
            candidates.append(winner)
    for name in sorted(cohort.child_cqs):
        if name in by_cq:
            candidates.append(by_cq[name])
    if not candidates:
        return None
    best = candidates[0]
    for current in candidates[1:]:
        if less(current, best, cohort.name):
            best = current
    return best
