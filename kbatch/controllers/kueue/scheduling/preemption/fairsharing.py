"""Fair-sharing preemption: which ClusterQueue to take from next, and the two strategies.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/preemption/fairsharing/{ordering,target,
least_common_ancestor,strategy}.go`` (v0.19.2). Starting at the root of the preemptor's cohort tree,
the ordering descends into the child (Cohort or ClusterQueue) with the highest dominant resource
share, pruning children that do not borrow (except those on the preemptor's own path) or have no
candidates left; ties between ClusterQueues go to the better next candidate, between Cohorts to the
last one seen (kbatch visits children in name order). Shares are compared at the two children of the
least common ancestor ("almost LCAs") of the preemptor's and the target's queues:

* ``LessThanOrEqualToFinalShare``: preempt when the preemptor's share after admission is at most the
  target's share after the preemption;
* ``LessThanInitialShare``: preempt when it is below the target's share before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import Cohort, Node, path_to_root, root_of
from kbatch.controllers.kueue.scheduling.fairshare import (
    DRS,
    NEGATIVE_DRS,
    compare_drs,
    dominant_resource_share,
)
from kbatch.controllers.kueue.scheduling.preemption.policy import compare_candidates

__all__ = [
    "STRATEGIES",
    "Strategy",
    "TargetOrdering",
    "less_than_initial_share",
    "less_than_or_equal_to_final_share",
]

Strategy = Callable[[DRS, DRS, DRS], bool]


def less_than_or_equal_to_final_share(preemptor_new: DRS, target_old: DRS, target_new: DRS) -> bool:
    return compare_drs(preemptor_new, target_new) <= 0


def less_than_initial_share(preemptor_new: DRS, target_old: DRS, target_new: DRS) -> bool:
    return compare_drs(preemptor_new, target_old) < 0


STRATEGIES: dict[str, Strategy] = {
    "LessThanOrEqualToFinalShare": less_than_or_equal_to_final_share,
    "LessThanInitialShare": less_than_initial_share,
}


class TargetOrdering:
    """``TargetClusterQueueOrdering`` over ``candidates`` (already in candidate order)."""

    def __init__(
        self, preemptor_cq: ClusterQueueNode, candidates: list[WorkloadInfo], snapshot: object, now: datetime
    ) -> None:
        self.cq = preemptor_cq
        self.snapshot = snapshot
        self.now = now
        self.ancestors = {id(a) for a in path_to_root(preemptor_cq)}
        self.targets: dict[str, list[WorkloadInfo]] = {}
        for c in candidates:
            self.targets.setdefault(c.cluster_queue, []).append(c)
        self.pruned_cqs: set[str] = set()
        self.pruned_cohorts: set[str] = set()

    def has_workload(self, cq: ClusterQueueNode) -> bool:
        return bool(self.targets.get(cq.name))

    def pop(self, cq: ClusterQueueNode) -> WorkloadInfo:
        return self.targets[cq.name].pop(0)

    def drop(self, cq: ClusterQueueNode) -> None:
        self.pruned_cqs.add(cq.name)

    def __iter__(self) -> Iterator[ClusterQueueNode]:
        if self.cq.parent is None:
            while self.cq.name not in self.pruned_cqs and self.has_workload(self.cq):
                yield self.cq
            return
        root = root_of(self.cq)
        assert isinstance(root, Cohort)
        while root.name not in self.pruned_cohorts:
            target = self._next(root)
            if target is not None:
                yield target

    def _next(self, cohort: Cohort) -> ClusterQueueNode | None:
        best_cq: ClusterQueueNode | None = None
        best_cq_drs = NEGATIVE_DRS
        for name in sorted(cohort.child_cqs):
            cq = cohort.child_cqs[name]
            if name in self.pruned_cqs or not self.snapshot.in_snapshot(cq):  # type: ignore[attr-defined]
                continue
            drs = dominant_resource_share(cq)
            cmp = compare_drs(drs, best_cq_drs)
            if (not drs.borrowing and cq is not self.cq) or not self.has_workload(cq):
                self.pruned_cqs.add(name)
            elif cmp == 0 and best_cq is not None:
                if (
                    compare_candidates(
                        self.targets[name][0], self.targets[best_cq.name][0], self.cq.name, self.now
                    )
                    < 0
                ):
                    best_cq = cq
            elif cmp == 1:
                best_cq, best_cq_drs = cq, drs
        best_cohort: Cohort | None = None
        best_cohort_drs = NEGATIVE_DRS
        for name in sorted(cohort.child_cohorts):
            child = cohort.child_cohorts[name]
            if name in self.pruned_cohorts:
                continue
            drs = dominant_resource_share(child)
            if not drs.borrowing and id(child) not in self.ancestors:
                self.pruned_cohorts.add(name)
            elif compare_drs(drs, best_cohort_drs) >= 0:
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned_cohorts.add(cohort.name)
            return None
        if best_cohort is not None and compare_drs(best_cohort_drs, best_cq_drs) >= 0:
            return self._next(best_cohort)
        return best_cq

    # --- shares at the almost-least-common ancestors ------------------------------------------------
    def _lca(self, target: ClusterQueueNode) -> Cohort:
        for ancestor in path_to_root(target):
            if id(ancestor) in self.ancestors:
                return ancestor
        raise AssertionError("no least common ancestor")

    @staticmethod
    def _almost_lca(cq: ClusterQueueNode, lca: Cohort) -> Node:
        node: Node = cq
        for ancestor in path_to_root(cq):
            if ancestor is lca:
                return node
            node = ancestor
        raise AssertionError("no almost least common ancestor")

    def shares(self, target: ClusterQueueNode) -> tuple[DRS, DRS]:
        """``ComputeShares``: (the preemptor's new share, the target's old share)."""
        lca = self._lca(target)
        return (
            dominant_resource_share(self._almost_lca(self.cq, lca)),
            dominant_resource_share(self._almost_lca(target, lca)),
        )

    def target_share_after_removal(self, target: ClusterQueueNode, wl: WorkloadInfo) -> DRS:
        snapshot = self.snapshot
        mark = snapshot.mark()  # type: ignore[attr-defined]
        snapshot.remove_usage(target, wl.usage())  # type: ignore[attr-defined]
        share = dominant_resource_share(self._almost_lca(target, self._lca(target)))
        snapshot.rollback(mark)  # type: ignore[attr-defined]
        return share
