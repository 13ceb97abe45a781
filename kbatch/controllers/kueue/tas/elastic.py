"""Elastic workload slices with topology-aware scheduling (``ElasticJobsViaWorkloadSlicesWithTAS``,
alpha, off): a replacement slice keeps the pods its predecessor placed.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/cache/scheduler/tas_elastic_workloads.go``
(``handleElasticWorkload``, ``handleScaleUp``, ``handleScaleDown``, ``finalizeElasticAssignment``),
``pkg/util/tas/tas_assignment.go`` (``CountPodsInAssignment``, ``TruncateAssignment``),
``pkg/scheduler/flavorassigner/tas_flavorassigner.go`` (``getPreviousTopologyAssignment``) and
KEP-77 "Topology Aware Scheduling Integration". For a slice that replaces an admitted one, each pod
set's previous topology assignment is the old slice's of the same name; then, against it:

* a previous assignment naming a node the flavor's topology no longer has (deleted, not ready) is
  *stale*, the leader's too: the ordinary search places the whole pod set (a fresh placement);
* **scale-up**: the previous pods stay where they are. Only the new pods (the count less the
  previous assignment's pods) are searched for, the previous pods (and a leader's previous pod)
  taken as already used, a leader with a previous assignment keeps it (only the workers are
  searched); the result is the previous domains merged with the new ones, in leaf order;
* **scale-down**: the previous assignment cut to the new count, from its last domain backwards;
* **same count**: the previous assignment as it was.

What the pod set took is then assumed for the next pod sets of the Workload (the new pods only,
on a scale-up, beside the previous ones already assumed). As upstream, the search of a scale-up
sees the previous pods twice: as the old slice's TAS usage (it is still admitted while its
replacement is searched) and as the assumed usage of the kept pods.

Everything here is pure: the cycle (:mod:`.cycle`) passes the snapshot and the assumed usage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.cluster import assignment_domains
from kbatch.controllers.kueue.tas.replacement import merge_domains
from kbatch.controllers.kueue.tas.snapshot import (
    DomainValues,
    PodSetTASRequest,
    TASFlavorSnapshot,
    TopologyResult,
)

__all__ = [
    "AddAssumed",
    "Assumed",
    "ElasticPlacement",
    "find_elastic",
    "pod_count",
    "previous_assignment",
    "truncate",
]

Assumed = dict[DomainValues, dict[str, int]]
AddAssumed = Callable[[Assumed, Iterable[tuple[DomainValues, int]], Mapping[str, int]], None]


@dataclass(frozen=True, slots=True)
class ElasticPlacement:
    """A pod set's (and its leader's) result on the elastic path."""

    workers: TopologyResult
    leader: TopologyResult | None = None


def previous_assignment(replaced: Workload | None, pod_set: str) -> TopologyResult | None:
    """``getPreviousTopologyAssignment``: the replaced slice's topology assignment of the pod set
    of that name, if it has one."""
    admission = replaced.status.admission if replaced is not None and replaced.status else None
    for psa in (admission.pod_set_assignments if admission else None) or ():
        if psa.name == pod_set and psa.topology_assignment is not None:
            levels, domains = assignment_domains(psa.topology_assignment)
            return TopologyResult(levels, tuple(domains))
    return None


def pod_count(result: TopologyResult) -> int:
    """``CountPodsInAssignment``."""
    return sum(count for _, count in result.domains)


def truncate(result: TopologyResult, count: int) -> TopologyResult:
    """``TruncateAssignment``: the first domains, in order, holding ``count`` pods (the last one
    cut short)."""
    out: list[tuple[DomainValues, int]] = []
    left = count
    for values, have in result.domains:
        if left <= 0:
            break
        out.append((values, min(have, left)))
        left -= min(have, left)
    return TopologyResult(result.levels, tuple(out))


def _stale(snap: TASFlavorSnapshot, result: TopologyResult | None) -> bool:
    """``IsTopologyAssignmentStale``: a domain that is no leaf of the snapshot."""
    return result is not None and len(snap.leaves_of(result)) != len(result.domains)


def find_elastic(
    snap: TASFlavorSnapshot,
    workers: tuple[PodSetTASRequest, TopologyResult | None],
    leader: tuple[PodSetTASRequest, TopologyResult | None] | None,
    assumed: Assumed,
    add_assumed: AddAssumed,
    simulate_empty: bool = False,
) -> ElasticPlacement | None:
    """``handleElasticWorkload`` for a pod set (and its podset-group leader), each with its
    previous assignment; ``None`` when the ordinary search applies (no previous assignment, or a
    stale one). Updates ``assumed`` with what the pod sets take."""
    request, previous = workers
    if previous is None or _stale(snap, previous) or (leader is not None and _stale(snap, leader[1])):
        return None
    before = pod_count(previous)
    if request.count > before:
        return _scale_up(snap, workers, leader, assumed, add_assumed, simulate_empty)
    kept = truncate(previous, request.count) if request.count < before else previous
    return _finalize(snap, request, kept, leader, assumed, add_assumed)


def _scale_up(
    snap: TASFlavorSnapshot,
    workers: tuple[PodSetTASRequest, TopologyResult | None],
    leader: tuple[PodSetTASRequest, TopologyResult | None] | None,
    assumed: Assumed,
    add_assumed: AddAssumed,
    simulate_empty: bool,
) -> ElasticPlacement:
    """``handleScaleUp``: the new pods searched around the kept ones."""
    request, previous = workers
    assert previous is not None
    add_assumed(assumed, snap.leaves_of(previous), request.single_pod)
    kept_leader = leader[1] if leader is not None else None
    if leader is not None and kept_leader is not None:
        add_assumed(assumed, snap.leaves_of(kept_leader), leader[0].single_pod)
    searched_leader = leader[0] if leader is not None and kept_leader is None else None
    delta = replace(request, count=request.count - pod_count(previous))
    found, found_leader = snap.find_group(delta, searched_leader, assumed, simulate_empty)
    if found.failure:
        return ElasticPlacement(found, found if leader is not None else None)
    merged = merge_domains(snap, found.levels or previous.levels, found.domains, previous.domains)
    if leader is not None and kept_leader is None and found_leader is not None:
        add_assumed(assumed, snap.leaves_of(found_leader), leader[0].single_pod)
    add_assumed(assumed, snap.leaves_of(found), request.single_pod)
    return ElasticPlacement(merged, kept_leader if kept_leader is not None else found_leader)


def _finalize(
    snap: TASFlavorSnapshot,
    request: PodSetTASRequest,
    kept: TopologyResult,
    leader: tuple[PodSetTASRequest, TopologyResult | None] | None,
    assumed: Assumed,
    add_assumed: AddAssumed,
) -> ElasticPlacement:
    """``finalizeElasticAssignment``: the kept workers' assignment and the leader's previous one."""
    add_assumed(assumed, snap.leaves_of(kept), request.single_pod)
    kept_leader = leader[1] if leader is not None else None
    if leader is not None and kept_leader is not None:
        add_assumed(assumed, snap.leaves_of(kept_leader), leader[0].single_pod)
    return ElasticPlacement(kept, kept_leader if leader is not None else None)
