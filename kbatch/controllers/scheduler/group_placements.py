"""Topology-aware workload scheduling: a PodGroup placed whole within one domain of a node label
(KEP-5732, gate ``TopologyAwareWorkloadScheduling``, alpha and off in Kubernetes 1.37).

A PodGroup with ``schedulingConstraints.topology: [{key: K}]`` goes through the workload cycle once
per **placement** — the nodes sharing one value of the node label ``K`` — and the best feasible
placement wins. In numbered steps (upstream ``podGroupSchedulingPlacementAlgorithm``,
``pkg/scheduler/schedule_one_podgroup.go``, and the plugins named below):

1. **PlacementGenerate** (plugin ``TopologyPlacementGenerator``, ``plugins/topologyaware/
   topology_placement.go``): one placement per distinct value of ``K`` among the nodes, nodes without
   the label in none. When members of the group are already scheduled (bound or assumed), only their
   domain is generated; members in two domains, or on a node without ``K``, are an error ("cannot
   determine domain for already scheduled pods: ..."). No placement at all is ``Unschedulable``.
2. Each placement is evaluated by the ordinary cycle (:meth:`GroupCycle.place_default`) with the
   scheduler's view narrowed to its nodes (``Algorithm.placement``, upstream
   ``Snapshot.AssumePlacement``), then reverted; an error ends the cycle with it.
3. No feasible placement: ``Unschedulable``, "0/N placements are available, first placement status:
   <the first placement's reasons>" (``podGroupFitError``); the pods get the first placement's
   per-pod outcome.
4. **PlacementScore**: ``PodGroupPodsCount`` (``plugins/podgrouppodscount``: scheduled members plus
   the pods the placement fits, normalized to 0-100 against the best) plus ``PlacementBinPacking``
   (``plugins/noderesources/placement_bin_packing.go``: MostAllocated over the placement's nodes with
   the group's pods added, cpu and memory weighted 1); the highest total wins. A single feasible
   placement is taken without scoring (``findBestPodGroupPlacement``).
5. The winner's pods are assumed and reserved again on the nodes evaluated, and the cycle goes on
   as for any group (Permit, binding, the condition).

kbatch differences (docs/gang.md): a tie between placements goes to the first in label-value order
(upstream draws at random); placements are tried in that order (upstream's map order). Preemption
for a constrained group (:mod:`.group_preemption`) scores the placements the same way once every
candidate victim is gone; the reprieve keeps the nodes the winner proposed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from kbatch.api.pod_resources import CPU, MEMORY
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.group_cycle import GroupCycle, GroupResult
    from kbatch.controllers.scheduler.placement import GroupInfo

__all__ = ["Placement", "Tried", "best_placement", "bin_packing_score", "generate_placements",
           "place_in_domains", "pods_count_scores", "try_placements"]

MAX_SCORE = 100  # framework.MaxNodeScore / MaxScore
_BIN_PACKING_RESOURCES = ((CPU, 1), (MEMORY, 1))
R = TypeVar("R")  # what evaluating one placement gives (:func:`try_placements`)


@dataclass(frozen=True, slots=True)
class Placement:
    """A candidate domain: its label value (the placement's name) and its nodes."""

    name: str
    nodes: frozenset[str]


def generate_placements(snapshot: Snapshot, key: str, scheduled: Iterable[tuple[str, str]]
                        ) -> list[Placement] | str:
    """Step 1 over ``scheduled`` (pod key, node name) members: the placements in value order, or an
    error message."""
    required: str | None = None
    for pod_key, node_name in scheduled:
        node = snapshot.get(node_name)
        domain = node.shape.labels.get(key) if node is not None else None
        if domain is None:
            return ("cannot determine domain for already scheduled pods: "
                    f"no topology domain found for pod {pod_key}")
        if required is not None and domain != required:
            return ("cannot determine domain for already scheduled pods: "
                    f"more than 1 domain found for pod group: {required}, {domain}")
        required = domain
    domains: dict[str, set[str]] = {}
    for node in snapshot:
        value = node.shape.labels.get(key)
        if value is not None and (required is None or value == required):
            domains.setdefault(value, set()).add(node.name)
    return [Placement(value, frozenset(names)) for value, names in sorted(domains.items())]


def pods_count_scores(scheduled: int, proposed: Sequence[int]) -> list[int]:
    """``PodGroupPodsCount``: ScorePlacement then NormalizePlacementScore (the best count is 100)."""
    counts = [scheduled + n for n in proposed]
    best = max(counts, default=0)
    if best == 0:
        return [0 for _ in counts]  # upstream: an error ("no pods from pod group are assigned ...")
    return [count * MAX_SCORE // best for count in counts]


def bin_packing_score(snapshot: Snapshot, placement: Placement, pods: Iterable[PodInfo]) -> int:
    """``PlacementBinPacking``: MostAllocated over the placement's nodes as one, with ``pods`` (the
    group's pods proposed there, not yet on the snapshot) added."""
    requested = {name: 0 for name, _ in _BIN_PACKING_RESOURCES}
    allocatable = dict(requested)
    for pod in pods:
        for name in requested:
            requested[name] += pod.nonzero_requests.get(name, 0)
    for name in sorted(placement.nodes):
        node = snapshot.get(name)
        if node is None:
            continue
        for resource in requested:
            allocatable[resource] += node.shape.allocatable.get(resource, 0)
            requested[resource] += node.nonzero_requested.get(resource, 0)
    total = weights = 0
    for name, weight in _BIN_PACKING_RESOURCES:
        if allocatable[name] <= 0:
            continue
        total += min(requested[name], allocatable[name]) * MAX_SCORE // allocatable[name] * weight
        weights += weight
    return total // weights if weights else 0


def best_placement(snapshot: Snapshot, scheduled: int,
                   feasible: Sequence[tuple[Placement, Sequence[PodInfo]]]) -> int:
    """Step 4: the index of the winner among ``feasible`` (placement, the pods it fits)."""
    if len(feasible) == 1:
        return 0
    counts = pods_count_scores(scheduled, [len(pods) for _, pods in feasible])
    totals = [count + bin_packing_score(snapshot, placement, pods)
              for count, (placement, pods) in zip(counts, feasible, strict=True)]
    return totals.index(max(totals))


@dataclass(frozen=True, slots=True)
class Tried(Generic[R]):
    """Steps 1, 2 and 4 done: the placements generated, each one's result in the order tried (the
    last ended the loop when the caller's ``stop`` said so), and the winner among the feasible ones
    (None: none was, or the loop stopped)."""

    placements: list[Placement]
    results: list[R]
    best: R | None


def try_placements(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], key: str,
                   evaluate: Callable[[], R], fits: Callable[[R], Sequence[PodInfo] | None],
                   stop: Callable[[R], bool] = lambda _: False) -> Tried[R] | str:
    """Steps 1, 2 and 4 for ``pods`` of ``group`` and the domains of ``key`` (or step 1's error
    message), for both callers: the workload cycle (:func:`place_in_domains`) and workload-aware
    preemption (:func:`.group_preemption.place_group`). ``evaluate`` places the pods with the
    scheduler's view narrowed to one placement and leaves the snapshot as it was; ``fits`` reads
    the pods a result placed (None: the placement is infeasible); ``stop`` ends the loop at a result
    (an error)."""
    snapshot = cycle.scheduler.snapshot
    scheduled = cycle.scheduled_members(group.key)
    placements = generate_placements(snapshot, key,
                                     ((p.key, snapshot.node_of(p.key) or "") for p in scheduled))
    if isinstance(placements, str):
        return placements
    algorithm = cycle.scheduler.algorithms[pods[0].scheduler_name]
    results: list[R] = []
    feasible: list[tuple[Placement, R, Sequence[PodInfo]]] = []
    for placement in placements:  # step 2
        algorithm.placement = placement.nodes
        try:
            result = evaluate()
        finally:
            algorithm.placement = None
        results.append(result)
        if stop(result):
            return Tried(placements, results, None)
        placed = fits(result)
        if placed is not None:
            feasible.append((placement, result, placed))
    if not feasible:
        return Tried(placements, results, None)
    best = best_placement(snapshot, len(scheduled), [(p, placed) for p, _, placed in feasible])  # step 4
    return Tried(placements, results, feasible[best][1])


def place_in_domains(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], key: str) -> GroupResult:
    """Steps 1-5 for a group constrained to one domain of ``key``; on success the chosen placement's
    pods stay assumed (the caller binds or reverts them). A placement's error ends the cycle with it."""
    from kbatch.controllers.scheduler.group_cycle import GroupResult, group_message

    def evaluate() -> GroupResult:
        result = cycle.place_default(group, pods)
        cycle.revert(result)
        return result

    def fits(result: GroupResult) -> list[PodInfo] | None:
        return [e.pod for e in result.placed] if result.code == Code.SUCCESS else None

    tried = try_placements(cycle, group, pods, key, evaluate, fits, stop=lambda r: r.code == Code.ERROR)
    if isinstance(tried, str):
        return GroupResult(Code.ERROR, tried)
    if not tried.placements:
        reason = f"no nodes found with topology label '{key}'"
        return GroupResult(message=group_message((reason,)), reasons=(reason,))
    if tried.results[-1].code == Code.ERROR:
        return tried.results[-1]
    if tried.best is None:  # step 3
        first = tried.results[0]
        inner = ", ".join(first.reasons) or "no pods were schedulable"  # RunRootSchedulingAlgorithm's
        reason = f"0/{len(tried.placements)} placements are available, first placement status: {inner}"
        first.code, first.message, first.reasons = Code.UNSCHEDULABLE, group_message((reason,)), (reason,)
        return first
    return cycle.reassume(tried.best)  # step 5
