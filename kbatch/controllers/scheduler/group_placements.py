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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kbatch.api.pod_resources import CPU, MEMORY
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.group_cycle import GroupCycle, GroupResult
    from kbatch.controllers.scheduler.placement import GroupInfo

__all__ = ["Placement", "best_placement", "bin_packing_score", "generate_placements", "place_in_domains",
           "pods_count_scores"]

MAX_SCORE = 100  # framework.MaxNodeScore / MaxScore
_BIN_PACKING_RESOURCES = ((CPU, 1), (MEMORY, 1))


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
                   feasible: Sequence[tuple[Placement, list[PodInfo]]]) -> int:
    """Step 4: the index of the winner among ``feasible`` (placement, the pods it fits)."""
    if len(feasible) == 1:
        return 0
    counts = pods_count_scores(scheduled, [len(pods) for _, pods in feasible])
    totals = [count + bin_packing_score(snapshot, placement, pods)
              for count, (placement, pods) in zip(counts, feasible, strict=True)]
    return totals.index(max(totals))


def place_in_domains(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], key: str) -> GroupResult:
    """Steps 1-5 for a group constrained to one domain of ``key``; on success the chosen placement's
    pods stay assumed (the caller binds or reverts them)."""
    from kbatch.controllers.scheduler.group_cycle import GroupResult, group_message

    s = cycle.scheduler
    scheduled = cycle.scheduled_members(group.key)
    placements = generate_placements(
        s.snapshot, key, ((p.key, s.snapshot.node_of(p.key) or "") for p in scheduled))
    if isinstance(placements, str):
        return GroupResult(Code.ERROR, placements)
    if not placements:
        reason = f"no nodes found with topology label '{key}'"
        return GroupResult(message=group_message((reason,)), reasons=(reason,))
    algorithm = s.algorithms[pods[0].scheduler_name]
    first: GroupResult | None = None
    feasible: list[tuple[Placement, GroupResult]] = []
    for placement in placements:  # step 2
        algorithm.placement = placement.nodes
        try:
            result = cycle.place_default(group, pods)
        finally:
            algorithm.placement = None
        cycle.revert(result)
        if result.code == Code.ERROR:
            return result
        first = first or result
        if result.code == Code.SUCCESS:
            feasible.append((placement, result))
    assert first is not None
    if not feasible:  # step 3
        inner = ", ".join(first.reasons) or "no pods were schedulable"  # RunRootSchedulingAlgorithm's
        reason = f"0/{len(placements)} placements are available, first placement status: {inner}"
        first.code, first.message, first.reasons = Code.UNSCHEDULABLE, group_message((reason,)), (reason,)
        return first
    chosen = feasible[best_placement(s.snapshot, len(scheduled),
                                     [(p, [e.pod for e in r.placed]) for p, r in feasible])][1]
    return cycle.reassume(chosen)  # step 5
