"""Classical preemption: which workloads may be preempted, in which order, with which reason.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/preemption/classical/{candidate_generator,
hierarchical_preemption}.go`` (v0.19.2). Candidates are admitted workloads using a (flavor,
resource) that needs preemption:

* in the preemptor's own ClusterQueue, under ``withinClusterQueue`` (reason ``InClusterQueue``);
* in the cohort tree, under ``reclaimWithinCohort``, from ClusterQueues (and sub-Cohorts) above their
  nominal quota. Walking up from the preemptor, once the request fits in the quota of the subtree
  walked so far the preemptor has a *hierarchical advantage* there: those candidates are reclaimed
  (``InCohortReclamation``) before any other; elsewhere a candidate of lower priority may be taken
  while the preemptor borrows (``InCohortReclaimWhileBorrowing``) when ``borrowWithinCohort`` allows
  it (and the candidate's priority is not above ``maxPriorityThreshold``), otherwise only without
  borrowing (``InCohortReclamation``).

Each group is sorted by :func:`~.policy.compare_candidates` and split into evicted and not evicted:
the evicted ones of every group come first. A candidate from another queue stays valid only while
its queue (and every cohort on the path up to the common ancestor) is still above nominal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kbatch.api.kueue_v1beta2.constants import Reason
from kbatch.controllers.kueue.model.clusterqueue import ClusterQueueNode
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.model.quota import (
    Cohort,
    is_within_nominal,
    path_to_root,
    quantities_fit_in_quota,
)
from kbatch.controllers.kueue.model.requests import FlavorResource
from kbatch.controllers.kueue.scheduling.preemption.policy import (
    is_evicted,
    satisfies_policy,
    sort_candidates,
)

__all__ = ["CandidateIterator", "PreemptionCtx", "borrow_within_cohort_forbidden", "uses_resources"]

NEVER, WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(5)
_REASONS = {
    WITHIN_CQ: Reason.IN_CLUSTER_QUEUE,
    HIERARCHICAL_RECLAIM: Reason.IN_COHORT_RECLAMATION,
    RECLAIM_WITHOUT_BORROWING: Reason.IN_COHORT_RECLAMATION,
    RECLAIM_WHILE_BORROWING: Reason.IN_COHORT_RECLAIM_WHILE_BORROWING,
}


@dataclass
class PreemptionCtx:
    """``preemptionCtx``: the preemptor, its queue, the snapshot, what needs preemption and the
    quota the preemptor asks for."""

    preemptor: WorkloadInfo
    cq: ClusterQueueNode
    snapshot: Any
    frs: frozenset[FlavorResource]
    usage: dict[FlavorResource, int]
    now: datetime
    timestamp_buffer: bool = False
    lq_usage: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def uses_resources(info: WorkloadInfo, frs: frozenset[FlavorResource]) -> bool:
    """``WorkloadUsesResources``."""
    return any((ps.flavors.get(res, ""), res) in frs for ps in info.pod_sets for res in ps.flavors)


def borrow_within_cohort_forbidden(cq: ClusterQueueNode) -> tuple[bool, int | None]:
    p = cq.preemption
    if p.borrow_within_cohort == "Never":
        return True, None
    return False, p.max_priority_threshold


def _classify(ctx: PreemptionCtx, wl: WorkloadInfo, advantage: bool) -> int:
    if not uses_resources(wl, ctx.frs):
        return NEVER
    own = wl.cluster_queue == ctx.cq.name
    policy = ctx.cq.preemption.within_cluster_queue if own else ctx.cq.preemption.reclaim_within_cohort
    if not satisfies_policy(ctx.preemptor, wl, policy, ctx.timestamp_buffer):
        return NEVER
    if own:
        return WITHIN_CQ
    if advantage:
        return HIERARCHICAL_RECLAIM
    forbidden, threshold = borrow_within_cohort_forbidden(ctx.cq)
    if forbidden:
        return RECLAIM_WITHOUT_BORROWING
    if wl.priority >= ctx.preemptor.priority or (threshold is not None and wl.priority > threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


@dataclass(frozen=True, slots=True)
class _Candidate:
    wl: WorkloadInfo
    lca: Cohort | None
    variant: int


def _from_cq(
    ctx: PreemptionCtx, cq: ClusterQueueNode, lca: Cohort | None, advantage: bool
) -> list[_Candidate]:
    out = []
    for key in sorted(cq.workloads):
        wl = cq.workloads[key]
        variant = _classify(ctx, wl, advantage)
        if variant != NEVER:
            out.append(_Candidate(wl, lca, variant))
    return out


def _collect_subtree(
    ctx: PreemptionCtx,
    cohort: Cohort,
    root: Cohort,
    skip: Cohort | None,
    advantage: bool,
    into: list[_Candidate],
) -> None:
    for name in sorted(cohort.child_cohorts):
        child = cohort.child_cohorts[name]
        if child is skip or is_within_nominal(child, ctx.frs):
            continue
        _collect_subtree(ctx, child, root, skip, advantage, into)
    for name in sorted(cohort.child_cqs):
        child = cohort.child_cqs[name]
        if child is ctx.cq or not ctx.snapshot.in_snapshot(child):
            continue
        if not is_within_nominal(child, ctx.frs):
            into.extend(_from_cq(ctx, child, root, advantage))


def _collect_hierarchy(ctx: PreemptionCtx) -> tuple[list[_Candidate], list[_Candidate]]:
    hierarchy: list[_Candidate] = []
    priority: list[_Candidate] = []
    if ctx.cq.parent is None or ctx.cq.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority
    advantage, remaining = quantities_fit_in_quota(ctx.cq, ctx.usage)
    previous: Cohort | None = None
    for root in path_to_root(ctx.cq):
        _collect_subtree(ctx, root, root, previous, advantage, hierarchy if advantage else priority)
        fits, remaining = quantities_fit_in_quota(root, remaining)
        advantage = advantage or fits
        previous = root
    return hierarchy, priority


class CandidateIterator:
    """``candidateIterator``: see the module docstring; :meth:`candidates` replays the list."""

    def __init__(self, ctx: PreemptionCtx) -> None:
        self.ctx = ctx
        same = _from_cq(ctx, ctx.cq, None, False) if ctx.cq.preemption.within_cluster_queue != "Never" else []
        hierarchy, priority = _collect_hierarchy(ctx)
        groups = [self._sorted(g) for g in (hierarchy, priority, same)]
        evicted = [c for g in groups for c in g if is_evicted(c.wl)]
        rest = [c for g in groups for c in g if not is_evicted(c.wl)]
        self.items = evicted + rest
        self.no_candidate_from_other_queues = not hierarchy and not priority
        self.no_candidate_for_hierarchical_reclaim = not hierarchy

    def _sorted(self, group: list[_Candidate]) -> list[_Candidate]:
        by_key = {c.wl.key: c for c in group}
        ordered = sort_candidates([c.wl for c in group], self.ctx.cq.name, self.ctx.now, self.ctx.lq_usage)
        return [by_key[w.key] for w in ordered]

    def candidates(self, borrowing: bool) -> Iterator[tuple[WorkloadInfo, str]]:
        for c in self.items:
            if self._valid(c, borrowing):
                yield c.wl, _REASONS[c.variant]

    def _valid(self, c: _Candidate, borrowing: bool) -> bool:
        ctx = self.ctx
        if c.wl.cluster_queue == ctx.cq.name:
            return True
        if borrowing and c.variant == RECLAIM_WITHOUT_BORROWING:
            return False
        cq = ctx.snapshot.cluster_queue(c.wl.cluster_queue)
        if cq is None or is_within_nominal(cq, ctx.frs):
            return False
        for node in path_to_root(cq):
            if node is c.lca:
                break
            if is_within_nominal(node, ctx.frs):
                return False
        return True
