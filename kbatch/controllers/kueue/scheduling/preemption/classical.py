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

Each queue's workloads come from the snapshot's :class:`~..candidate_index.CandidateIndex`, already in
that order within a group and with the resources they use: gathering a group filters and merges
per-queue runs instead of sorting every workload of the cohort for every simulation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any, NamedTuple, Protocol

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
from kbatch.controllers.kueue.scheduling.candidate_index import Slot
from kbatch.controllers.kueue.scheduling.preemption.policy import satisfies_policy, sort_candidates

__all__ = [
    "Candidate",
    "CandidateIterator",
    "PreemptionCtx",
    "TopologyFit",
    "borrow_within_cohort_forbidden",
    "uses_resources",
]

NEVER, WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(5)
_REASONS = {
    WITHIN_CQ: Reason.IN_CLUSTER_QUEUE,
    HIERARCHICAL_RECLAIM: Reason.IN_COHORT_RECLAMATION,
    RECLAIM_WITHOUT_BORROWING: Reason.IN_COHORT_RECLAMATION,
    RECLAIM_WHILE_BORROWING: Reason.IN_COHORT_RECLAIM_WHILE_BORROWING,
}
_ORDER = attrgetter("order")


class TopologyFit(Protocol):
    """The TAS half of ``workloadFits`` (``FindTopologyAssignmentsForWorkload`` over the
    preemptor's TAS requests, ``preemptionCtx.tasRequests``) with the candidates' simulated removal:
    ``remove``/``add`` follow the quota removals (``Snapshot.RemoveWorkload``/``AddWorkload`` move a
    workload's TAS usage too), ``restore`` undoes every removal still in force."""

    def remove(self, info: WorkloadInfo) -> None: ...

    def add(self, info: WorkloadInfo) -> None: ...

    def restore(self) -> None: ...

    def fits(self) -> bool: ...


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
    tas: TopologyFit | None = None  # the preemptor's TAS pod sets (TopologyAwareScheduling)


def uses_resources(info: WorkloadInfo, frs: frozenset[FlavorResource]) -> bool:
    """``WorkloadUsesResources``."""
    return any((ps.flavors.get(res, ""), res) in frs for ps in info.pod_sets for res in ps.flavors)


def borrow_within_cohort_forbidden(cq: ClusterQueueNode) -> tuple[bool, int | None]:
    p = cq.preemption
    if p.borrow_within_cohort == "Never":
        return True, None
    return False, p.max_priority_threshold


def _queue_variant(ctx: PreemptionCtx, own: bool, advantage: bool) -> int | None:
    """``classifyPreemptionVariant`` for every candidate of one queue that uses a resource needing
    preemption and passes the policy; ``None`` when it depends on the candidate's priority (another
    queue's candidate, no hierarchical advantage, ``borrowWithinCohort`` allowed)."""
    if own:
        return WITHIN_CQ
    if advantage:
        return HIERARCHICAL_RECLAIM
    forbidden, _ = borrow_within_cohort_forbidden(ctx.cq)
    return RECLAIM_WITHOUT_BORROWING if forbidden else None


def _priority_variant(ctx: PreemptionCtx, wl: WorkloadInfo) -> int:
    """While the preemptor borrows, only a candidate of lower priority, not above
    ``maxPriorityThreshold``, may be reclaimed."""
    threshold = ctx.cq.preemption.max_priority_threshold
    if wl.priority >= ctx.preemptor.priority or (threshold is not None and wl.priority > threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


class Candidate(NamedTuple):
    """A candidate; ``order`` is :func:`~..candidate_index.order_key`; ``cq`` its ClusterQueue,
    ``usage`` what it holds there, and ``path`` the Cohorts between its queue and the common ancestor
    with the preemptor (empty for the preemptor's own queue), checked again when its turn comes."""

    wl: WorkloadInfo
    variant: int
    order: tuple[Any, ...]
    cq: ClusterQueueNode
    path: tuple[Cohort, ...]
    usage: tuple[tuple[FlavorResource, int], ...]

    @property
    def reason(self) -> str:
        return _REASONS[self.variant]


def _from_cq(
    ctx: PreemptionCtx, cq: ClusterQueueNode, own: bool, advantage: bool, path: tuple[Cohort, ...]
) -> Sequence[Candidate]:
    """``cq``'s candidates in :func:`~..candidate_index.order_key` order. Every workload of ``cq`` is
    of ``cq`` (the cache files a workload under its admission's ClusterQueue), so ``own`` is the
    same for all of them. With the policy ``Any`` and a variant fixed for the queue, the preemptor
    plays no part: the list is kept with the queue's slots, keyed by what it depends on."""
    pre = ctx.cq.preemption
    policy = pre.within_cluster_queue if own else pre.reclaim_within_cohort
    fixed = _queue_variant(ctx, own, advantage)
    index = ctx.snapshot.candidates
    if policy == "Any" and fixed is not None:
        frs, variant = ctx.frs, fixed

        def compute(slots: tuple[Slot, ...]) -> tuple[Candidate, ...]:
            used = (s for s in slots if not s.uses.isdisjoint(frs))
            return tuple(Candidate(s.wl, variant, s.order, cq, path, s.usage) for s in used)

        return index.derived(cq, ctx.now, (frs, variant, path), compute)
    return _classified(ctx, cq, index.slots(cq, ctx.now), policy, fixed, path)


def _classified(
    ctx: PreemptionCtx,
    cq: ClusterQueueNode,
    slots: tuple[Slot, ...],
    policy: str,
    fixed: int | None,
    path: tuple[Cohort, ...],
) -> list[Candidate]:
    """The slots that use a resource needing preemption and pass the policy, as candidates."""
    frs, preemptor, buffer = ctx.frs, ctx.preemptor, ctx.timestamp_buffer
    out = []
    for wl, order, uses, usage in slots:
        if uses.isdisjoint(frs) or not satisfies_policy(preemptor, wl, policy, buffer):
            continue
        variant = fixed if fixed is not None else _priority_variant(ctx, wl)
        out.append(Candidate(wl, variant, order, cq, path, usage))
    return out


def _collect_subtree(
    ctx: PreemptionCtx,
    cohort: Cohort,
    path: tuple[Cohort, ...],
    skip: Cohort | None,
    advantage: bool,
    into: list[Candidate],
) -> None:
    """``path``: the Cohorts from ``cohort`` up to (without) the root being collected."""
    for name in sorted(cohort.child_cohorts):
        child = cohort.child_cohorts[name]
        if child is skip or is_within_nominal(child, ctx.frs):
            continue
        _collect_subtree(ctx, child, (child, *path), skip, advantage, into)
    for name in sorted(cohort.child_cqs):
        child = cohort.child_cqs[name]
        if child is ctx.cq or not ctx.snapshot.in_snapshot(child):
            continue
        if not is_within_nominal(child, ctx.frs):
            into.extend(_from_cq(ctx, child, False, advantage, path))


def _collect_hierarchy(ctx: PreemptionCtx) -> tuple[list[Candidate], list[Candidate]]:
    hierarchy: list[Candidate] = []
    priority: list[Candidate] = []
    if ctx.cq.parent is None or ctx.cq.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority
    advantage, remaining = quantities_fit_in_quota(ctx.cq, ctx.usage)
    previous: Cohort | None = None
    for root in path_to_root(ctx.cq):
        _collect_subtree(ctx, root, (), previous, advantage, hierarchy if advantage else priority)
        fits, remaining = quantities_fit_in_quota(root, remaining)
        advantage = advantage or fits
        previous = root
    return hierarchy, priority


def _evicted_prefix(group: list[Candidate]) -> int:
    """How many of a sorted group are evicted (``CandidatesOrdering`` puts them first)."""
    for i, c in enumerate(group):
        if not c.wl.evicted:
            return i
    return len(group)


class CandidateIterator:
    """``candidateIterator``: see the module docstring; :meth:`candidates` replays the list."""

    def __init__(self, ctx: PreemptionCtx) -> None:
        self.ctx = ctx
        within = ctx.cq.preemption.within_cluster_queue != "Never"
        same = _from_cq(ctx, ctx.cq, True, False, ()) if within else []
        hierarchy, priority = _collect_hierarchy(ctx)
        groups = [self._sorted(g) for g in (hierarchy, priority, same)]
        cuts = [_evicted_prefix(g) for g in groups]  # a sorted group has its evicted ones first
        self.items = [c for g, k in zip(groups, cuts, strict=True) for c in g[:k]]
        self.items += [c for g, k in zip(groups, cuts, strict=True) for c in g[k:]]
        self.no_candidate_from_other_queues = not hierarchy and not priority
        self.no_candidate_for_hierarchical_reclaim = not hierarchy

    def _sorted(self, group: Sequence[Candidate]) -> list[Candidate]:
        """``CandidatesOrdering``: without admission fair sharing, the group's own-queue term is
        constant, so :func:`~..candidate_index.order_key` orders it (a stable sort of per-queue runs
        already in that order); with it, the comparator."""
        ctx = self.ctx
        if ctx.lq_usage is None:
            return sorted(group, key=_ORDER)
        by_key = {c.wl.key: c for c in group}
        ordered = sort_candidates([c.wl for c in group], ctx.cq.name, ctx.now, ctx.lq_usage)
        return [by_key[w.key] for w in ordered]

    def candidates(self, borrowing: bool) -> Iterator[Candidate]:
        """The items valid when their turn comes (the caller removes some as it goes): a candidate
        of another queue stays valid while its queue, and each Cohort up to the common ancestor, is
        above nominal (and, while the preemptor borrows, not one reclaimable only without
        borrowing)."""
        frs = self.ctx.frs
        for c in self.items:
            variant = c.variant
            if variant != WITHIN_CQ:
                if borrowing and variant == RECLAIM_WITHOUT_BORROWING:
                    continue
                if is_within_nominal(c.cq, frs):
                    continue
                if c.path and any(is_within_nominal(node, frs) for node in c.path):
                    continue
            yield c
