"""The preemptor: finds the smallest set of workloads whose removal lets a workload fit.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/preemption/{preemption,preemption_oracle}.go``
(v0.19.2). A pure computation over the :class:`~..snapshot.Snapshot` (every what-if removal is rolled
back before returning); issuing the evictions is the scheduler controller's job.

Classical: candidates are removed one by one in :class:`~.classical.CandidateIterator` order until
the workload fits (first allowing the preemptor to borrow, then not — or the other way round, as
``classicalPreemptions`` decides from the candidates and ``borrowWithinCohort``); then, from the
second-to-last removed backwards, each target is put back if the workload still fits
(``fillBackWorkloads``): the result is minimal.

Fair sharing: candidates of the preemptor's own queue (``withinClusterQueue``) and of borrowing
queues in its cohort tree (``reclaimWithinCohort``) are taken in :class:`~.fairsharing.TargetOrdering`
order, under the first strategy, then the second for those the first skipped.

The oracle (``SimulatePreemption``) answers the flavor assigner's question for one (flavor,
resource): would preemption make room, only from other queues (``Reclaim``) or also the preemptor's
own (``Preempt``), and what borrowing height would remain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from kbatch.api.kueue_v1beta2.constants import Reason
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import (
    add_usage,
    find_height_of_lowest_subtree_that_fits,
    remove_usage,
    root_of,
)
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.scheduling.fairshare import DRS
from kbatch.controllers.kueue.scheduling.preemption.classical import (
    Candidate,
    CandidateIterator,
    PreemptionCtx,
    TopologyFit,
    borrow_within_cohort_forbidden,
    uses_resources,
)
from kbatch.controllers.kueue.scheduling.preemption.fairsharing import (
    STRATEGIES,
    TargetOrdering,
    less_than_initial_share,
)
from kbatch.controllers.kueue.scheduling.preemption.policy import satisfies_policy, sort_candidates
from kbatch.controllers.kueue.scheduling.snapshot import (
    Snapshot,
    cq_available,
    cq_borrowing,
    cq_borrowing_with,
)

__all__ = ["NO_CANDIDATES", "PREEMPT", "RECLAIM", "Preemptor", "Target", "preemption_message"]

NO_CANDIDATES, PREEMPT, RECLAIM = 0, 1, 2  # PreemptionPossibility
_T = TypeVar("_T")
POSSIBILITY_NAMES = {NO_CANDIDATES: "NoCandidates", PREEMPT: "Preempt", RECLAIM: "Reclaim"}

HUMAN_REASONS = {
    Reason.IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    Reason.IN_COHORT_RECLAMATION: "reclamation within the cohort",
    Reason.IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    Reason.IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
    "": "UNKNOWN",
}


@dataclass(frozen=True, slots=True)
class Target:
    """A workload to preempt and why (``preemption.Target``)."""

    info: WorkloadInfo
    reason: str


def cq_path(cache: Any, cq_name: str) -> str:
    """``buildCQPath``: ``/root/.../cq``."""
    cq = cache.cluster_queues.get(cq_name)
    parts = [cq_name]
    node = cq.parent if cq is not None else None
    while node is not None:
        parts.append(node.name)
        node = node.parent
    return "/" + "/".join(reversed(parts))


def preemption_message(
    preemptor: WorkloadInfo, reason: str, preemptor_path: str, preemptee_path: str, job_uid: str
) -> str:
    """``preemptionMessage``."""
    return (
        f"Preempted to accommodate a workload (UID: {preemptor.uid or 'UNKNOWN'}, JobUID: "
        f"{job_uid or 'UNKNOWN'}) due to {HUMAN_REASONS.get(reason, 'UNKNOWN')}; preemptor path: "
        f"{preemptor_path or 'UNKNOWN'}; preemptee path: {preemptee_path or 'UNKNOWN'}"
    )


class Preemptor:
    """Configuration of the computation: fair sharing and its strategies, the gates that touch it."""

    def __init__(
        self,
        fair_sharing: bool = False,
        strategies: tuple[str, ...] = (),
        timestamp_buffer: bool = False,
        within_nominal: bool = False,
    ) -> None:
        self.fair_sharing = fair_sharing
        self.strategies = tuple(STRATEGIES[s] for s in strategies) or (
            STRATEGIES["LessThanOrEqualToFinalShare"],
            STRATEGIES["LessThanInitialShare"],
        )
        self.timestamp_buffer = timestamp_buffer
        self.within_nominal = within_nominal  # FairSharingPreemptWithinNominal

    # --- entry points ----------------------------------------------------------------------------
    def get_targets(
        self,
        wl: WorkloadInfo,
        cq: ClusterQueueNode,
        frs: frozenset[FlavorResource],
        usage: dict[FlavorResource, int],
        snapshot: Snapshot,
        now: datetime,
        lq_usage: dict[str, float] | None = None,
        tas: TopologyFit | None = None,
    ) -> list[Target]:
        """``GetTargets``; ``tas`` is the TAS check of the preemptor's topology requests (upstream
        ``preemptionCtx.tasRequests``): a candidate set is enough only when the pod sets' domains are
        found with the candidates' TAS usage removed too."""
        if lq_usage is None:
            lq_usage = snapshot.lq_usage
        ctx = PreemptionCtx(wl, cq, snapshot, frs, usage, now, self.timestamp_buffer, lq_usage, tas=tas)
        return self._fair(ctx) if self.fair_sharing else self._classical(ctx)

    def simulate(
        self,
        wl: WorkloadInfo,
        cq: ClusterQueueNode,
        fr: FlavorResource,
        quantity: int,
        snapshot: Snapshot,
        now: datetime,
        memo: dict[tuple[FlavorResource, int], list[Target]] | None = None,
    ) -> tuple[int, int]:
        """``PreemptionOracle.SimulatePreemption``: (possibility, borrowing height after). The
        targets it found are kept in ``memo`` under (fr, quantity) for the caller to reuse while
        the snapshot is unchanged."""
        targets = self.get_targets(wl, cq, frozenset((fr,)), {fr: quantity}, snapshot, now)
        if memo is not None:
            memo[(fr, quantity)] = targets
        if not targets:
            return NO_CANDIDATES, find_height_of_lowest_subtree_that_fits(cq, fr, quantity)[0]
        mark = snapshot.remove_usage_of(t.info for t in targets)
        borrow = find_height_of_lowest_subtree_that_fits(cq, fr, quantity)[0]
        snapshot.rollback(mark)
        if any(t.info.cluster_queue == cq.name for t in targets):
            return PREEMPT, borrow
        return RECLAIM, borrow

    # --- classical ---------------------------------------------------------------------------------
    def _classical(self, ctx: PreemptionCtx) -> list[Target]:
        """``classicalPreemptions``. Upstream removes each candidate from the snapshot
        (``RemoveWorkload``) and adds it back in the fill-back (``AddWorkload``); the search reads
        only usage (``workloadFits``, the candidates' validity), so it moves only the candidate's
        usage, and every move is rolled back before returning."""
        candidates = CandidateIterator(ctx)
        forbidden, _ = borrow_within_cohort_forbidden(ctx.cq)
        attempts: tuple[bool, ...]
        if candidates.no_candidate_from_other_queues or (forbidden and not _under_nominal(ctx)):
            attempts = (True,)
        elif forbidden and candidates.no_candidate_for_hierarchical_reclaim:
            attempts = (False, True)
        else:
            attempts = (True, False)
        snap = ctx.snapshot
        remove, add = _candidate_moves(ctx.tas)
        for borrowing in attempts:
            mark = snap.mark()
            fits = _fitter(ctx, borrowing)
            removed: list[Candidate] = []
            for c in candidates.candidates(borrowing):
                remove(c)
                removed.append(c)
                if fits():
                    kept = _fill_back(fits, removed, add, remove)
                    _rollback(ctx, mark)
                    return [Target(c.wl, c.reason) for c in kept]
            _rollback(ctx, mark)
        return []

    # --- fair sharing -------------------------------------------------------------------------------
    def _fair(self, ctx: PreemptionCtx) -> list[Target]:
        candidates = self._fair_candidates(ctx)
        if not candidates:
            return []
        candidates = sort_candidates(candidates, ctx.cq.name, ctx.now, ctx.lq_usage)
        snap = ctx.snapshot
        outer = snap.mark()
        snap.add_usage(ctx.cq, ctx.usage)
        fits, targets, retry = self._first_strategy(ctx, candidates, self.strategies[0])
        if not fits and len(self.strategies) > 1:
            fits, targets = self._second_strategy(ctx, retry, targets)
        if not fits:
            _rollback(ctx, outer)
            return []
        # undo the simulated addition, keep the removals, then fill back
        removed = [t.info for t in targets]
        _rollback(ctx, outer)
        for info in removed:
            _take(ctx, info)
        targets = _fill_back(
            lambda: _fits(ctx, True),
            targets,
            lambda t: _give(ctx, t.info),
            lambda t: _take(ctx, t.info),
        )
        _rollback(ctx, outer)
        return targets

    def _fair_candidates(self, ctx: PreemptionCtx) -> list[WorkloadInfo]:
        out = []
        pre = ctx.cq.preemption
        if pre.within_cluster_queue != "Never":
            out += _for_policy(ctx, ctx.cq, pre.within_cluster_queue)
        if ctx.cq.parent is not None and pre.reclaim_within_cohort != "Never":
            root = root_of(ctx.cq)
            for other in root.subtree_cluster_queues():  # type: ignore[attr-defined]
                if other is ctx.cq or not ctx.snapshot.in_snapshot(other):
                    continue
                if other.parent is None or not any(cq_borrowing(other, fr) for fr in ctx.frs):
                    continue
                out += _for_policy(ctx, other, pre.reclaim_within_cohort)
        return out

    def _first_strategy(
        self, ctx: PreemptionCtx, candidates: list[WorkloadInfo], strategy: object
    ) -> tuple[bool, list[Target], list[WorkloadInfo]]:
        snap = ctx.snapshot
        ordering = TargetOrdering(ctx.cq, candidates, snap, ctx.now)
        targets: list[Target] = []
        retry: list[WorkloadInfo] = []
        within_nominal = self.within_nominal and not any(cq_borrowing(ctx.cq, fr) for fr in ctx.frs)
        for cand_cq in ordering:
            if cand_cq is ctx.cq or within_nominal:
                wl = ordering.pop(cand_cq)
                _take(ctx, wl)
                reason = Reason.IN_CLUSTER_QUEUE if cand_cq is ctx.cq else Reason.IN_COHORT_RECLAMATION
                targets.append(Target(wl, reason))
                if _fits_fair(ctx):
                    return True, targets, []
                continue
            preemptor_new, target_old = ordering.shares(cand_cq)
            if _unsatisfiable(preemptor_new, target_old):
                while ordering.has_workload(cand_cq):
                    retry.append(ordering.pop(cand_cq))
                continue
            while ordering.has_workload(cand_cq):
                wl = ordering.pop(cand_cq)
                target_new = ordering.target_share_after_removal(cand_cq, wl)
                if strategy(preemptor_new, target_old, target_new):  # type: ignore[operator]
                    _take(ctx, wl)
                    targets.append(Target(wl, Reason.IN_COHORT_FAIR_SHARING))
                    if _fits_fair(ctx):
                        return True, targets, []
                    break
                retry.append(wl)
        return False, targets, retry

    def _second_strategy(
        self, ctx: PreemptionCtx, retry: list[WorkloadInfo], targets: list[Target]
    ) -> tuple[bool, list[Target]]:
        snap = ctx.snapshot
        ordering = TargetOrdering(ctx.cq, retry, snap, ctx.now)
        for cand_cq in ordering:
            preemptor_new, target_old = ordering.shares(cand_cq)
            passed = less_than_initial_share(preemptor_new, target_old, DRS())
            wl = ordering.pop(cand_cq)
            if passed:
                _take(ctx, wl)
                targets.append(Target(wl, Reason.IN_COHORT_FAIR_SHARING))
                if _fits_fair(ctx):
                    return True, targets
            ordering.drop(cand_cq)
        return False, targets


def _for_policy(ctx: PreemptionCtx, cq: ClusterQueueNode, policy: str) -> list[WorkloadInfo]:
    """``findCandidatesForPolicy``."""
    return [
        wl
        for key, wl in sorted(cq.workloads.items())
        if satisfies_policy(ctx.preemptor, wl, policy, ctx.timestamp_buffer) and uses_resources(wl, ctx.frs)
    ]


def _unsatisfiable(preemptor_new: DRS, target_old: DRS) -> bool:
    return preemptor_new.precise_weighted_share() == float(
        "inf"
    ) and target_old.precise_weighted_share() != float("inf")


def _fits(ctx: PreemptionCtx, borrowing: bool) -> bool:
    """``workloadFits``: the quota, then the topology assignments of the TAS pod sets."""
    for fr, value in ctx.usage.items():
        if not borrowing and cq_borrowing_with(ctx.cq, fr, value):
            return False
        if value > cq_available(ctx.cq, fr):
            return False
    return ctx.tas is None or ctx.tas.fits()


def _fitter(ctx: PreemptionCtx, borrowing: bool) -> Callable[[], bool]:
    """:func:`_fits` for one search: the same questions in the same order, with what does not change
    during the search (the request, the queue's nominal quota) read once when the request is of
    one flavor resource (a simulation's always is) and there is no topology to check."""
    if len(ctx.usage) != 1 or ctx.tas is not None:
        return lambda: _fits(ctx, borrowing)
    ((fr, value),) = ctx.usage.items()
    cq = ctx.cq
    nominal = cq.quota(fr).nominal

    def fits() -> bool:
        if not borrowing and nominal < cq.usage.get(fr, 0) + value:  # cq_borrowing_with
            return False
        return value <= cq_available(cq, fr)

    return fits


def _fits_fair(ctx: PreemptionCtx) -> bool:
    """``workloadFitsForFairSharing``: the preemptor's own usage, simulated as added, taken out."""
    snap = ctx.snapshot
    mark = snap.mark()
    snap.remove_usage(ctx.cq, ctx.usage)
    ok = _fits(ctx, True)
    snap.rollback(mark)
    return ok


def _fill_back(
    fits: Callable[[], bool],
    targets: list[_T],
    add: Callable[[_T], object],
    remove: Callable[[_T], object],
) -> list[_T]:
    """``fillBackWorkloads``: the snapshot has every target removed; from the second-to-last
    backwards, each is put back (``add``) and kept out (``remove``) only if the workload no longer
    ``fits``; a target put back leaves the list by taking the last one's place."""
    targets = list(targets)
    for i in range(len(targets) - 2, -1, -1):
        add(targets[i])
        if fits():
            targets[i] = targets[-1]
            targets.pop()
        else:
            remove(targets[i])
    return targets


def _take(ctx: PreemptionCtx, info: WorkloadInfo) -> None:
    """``Snapshot.RemoveWorkload``: its quota and (for the TAS check) its TAS usage."""
    ctx.snapshot.remove_workload(info)
    if ctx.tas is not None:
        ctx.tas.remove(info)


def _give(ctx: PreemptionCtx, info: WorkloadInfo) -> None:
    """``Snapshot.AddWorkload``."""
    ctx.snapshot.add_workload(info)
    if ctx.tas is not None:
        ctx.tas.add(info)


def _rollback(ctx: PreemptionCtx, mark: int) -> None:
    """Every what-if since ``mark`` undone: the journaled quota and the TAS removals."""
    ctx.snapshot.rollback(mark)
    if ctx.tas is not None:
        ctx.tas.restore()


def _candidate_moves(
    tas: TopologyFit | None,
) -> tuple[Callable[[Candidate], None], Callable[[Candidate], None]]:
    """The classical search's removal and return of a candidate: its usage (the search reads only
    usage), and its TAS usage when the preemptor has topology requests."""
    if tas is None:
        return _remove_candidate, _add_candidate

    def remove(c: Candidate) -> None:
        _remove_candidate(c)
        tas.remove(c.wl)

    def add(c: Candidate) -> None:
        _add_candidate(c)
        tas.add(c.wl)

    return remove, add


def _add_candidate(c: Candidate) -> None:
    cq = c.cq
    for fr, value in c.usage:
        add_usage(cq, fr, value)


def _remove_candidate(c: Candidate) -> None:
    cq = c.cq
    for fr, value in c.usage:
        remove_usage(cq, fr, value)


def _under_nominal(ctx: PreemptionCtx) -> bool:
    """``queueUnderNominalInResourcesNeedingPreemption``."""
    return all(ctx.cq.quota(fr).nominal > ctx.cq.usage.get(fr, 0) for fr in ctx.frs)
