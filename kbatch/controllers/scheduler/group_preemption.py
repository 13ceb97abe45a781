"""Workload-aware preemption for a PodGroup that did not fit (KEP-5710; beta in 1.37 under
``GenericWorkload``; upstream ``PodGroupPostFilter`` of DefaultPreemption).

The preemptor is the group (its queued pods, all at the PodGroup's priority); the domain the whole
cluster. In numbered steps:

1. candidate victims are the placed pods of lower priority that are not already terminating, in
   preemption **units**: a pod whose scheduling.k8s.io PodGroup has ``disruptionMode: all`` goes
   with every placed pod of its group; any other pod alone;
2. with every candidate removed from the snapshot, the group must place (the workload cycle's
   algorithm, PlacementFeasible included, no Reserve, no effects); otherwise preemption cannot help;
3. the units are given back most important first (higher priority, then groups before pods, then
   name), each kept back only if the group still places without it (the reprieve);
4. the rest are the victims: each pod gets ``DisruptionTarget=True``/``PreemptionByScheduler`` and
   is deleted; each victim PodGroup gets the same condition; the group's pods are nominated to the
   nodes of the last successful placement and wait in the unschedulable pool, their PodGroup
   ``PodGroupInitiallyScheduled=False``/``Unschedulable``;
5. while victims of an earlier preemption are still on their nodes, the group preempts nothing new
   (it waits for them).

A group with a topology constraint (TopologyAwareWorkloadScheduling) must fit within one of its
candidate domains (:mod:`.group_placements`), the first, in label-value order, where it does. A
PodGroup with ``preemptionPolicy: Never`` (PodGroupPreemptionPolicy) never preempts: its pods wait.

Not modelled (docs/gang.md): PodDisruptionBudgets in the reprieve order, the scoring of the domains
where the group would fit after preemption.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1beta1 import DISRUPTION_TARGET, PodGroup
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.group_placements import generate_placements
from kbatch.controllers.scheduler.placement import (
    GroupInfo,
    PlacementFeasiblePlugin,
    PlacementProgress,
    run_placement_feasible,
)
from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.group_cycle import GroupCycle, GroupResult

__all__ = ["Unit", "preempt_for_group", "simulate"]


@dataclass(frozen=True, slots=True)
class Unit:
    """A set of victims that go together: one pod, or the placed pods of a ``disruptionMode: all``
    PodGroup (``group`` is then its key)."""

    pods: tuple[tuple[PodInfo, str], ...]  # (pod, node)
    priority: int
    group: str = ""

    def sort_key(self) -> tuple[int, int, str]:
        return (-self.priority, 0 if self.group else 1, self.group or self.pods[0][0].key)


def _units(cycle: GroupCycle, priority: int) -> list[Unit]:
    """Step 1."""
    snapshot, index = cycle.scheduler.snapshot, cycle.index
    singles: list[Unit] = []
    groups: dict[str, list[tuple[PodInfo, str]]] = {}
    for node in snapshot:
        for key, pod in sorted(node.pods.items()):
            if pod.priority >= priority or pod.terminating:
                continue
            group = index.group_of(key)
            pg = cycle.pod_group(group) if group else None
            if pg is not None and pg.disrupted_as_a_whole():
                groups.setdefault(group, []).append((pod, node.name))
            else:
                singles.append(Unit(((pod, node.name),), pod.priority))
    whole = [Unit(tuple(members), min(p.priority for p, _ in members), key)
             for key, members in sorted(groups.items())]
    return sorted([*whole, *singles], key=Unit.sort_key)


def simulate(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], removed: list[Unit]
             ) -> dict[str, str] | None:
    """Steps 2-3's test: with ``removed`` out of the snapshot, where the group's pods would go (pod
    key -> node), or None when the group does not place. The snapshot is left as it was."""
    s = cycle.scheduler
    snapshot, algorithm = s.snapshot, s.algorithms[pods[0].scheduler_name]
    for unit in removed:
        for pod, _ in unit.pods:
            snapshot.remove_pod(pod.key)
    try:
        key = cycle.topology_key(group.pod_group)
        if not key:
            return _simulate_placing(cycle, group, pods)
        placements = generate_placements(snapshot, key, (
            (p.key, snapshot.node_of(p.key) or "") for p in cycle.scheduled_members(group.key)))
        for placement in placements if not isinstance(placements, str) else ():
            algorithm.placement = placement.nodes
            try:
                placed = _simulate_placing(cycle, group, pods)
            finally:
                algorithm.placement = None
            if placed is not None:
                return placed
        return None
    finally:
        for unit in removed:
            for pod, node in unit.pods:
                snapshot.add_pod(pod, node)


def _simulate_placing(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo]) -> dict[str, str] | None:
    """The cycle's placing without Reserve or effects (pod key -> node), or None; the snapshot is
    left as it was."""
    s = cycle.scheduler
    snapshot, algorithm = s.snapshot, s.algorithms[pods[0].scheduler_name]
    plugins = [p for p in s.profiles[pods[0].scheduler_name].plugins.values()
               if isinstance(p, PlacementFeasiblePlugin)]
    placed: dict[str, str] = {}
    try:
        progress = PlacementProgress(len(cycle.scheduled_members(group.key)), len(pods))
        status = run_placement_feasible(plugins, group, progress)
        if status is not None and status.code == Code.UNSCHEDULABLE:
            return None
        for pod in pods:
            decision = algorithm.schedule(pod, post_filter=False)
            if decision.node is not None:
                algorithm.assume(pod, decision.node)
                placed[pod.key] = decision.node
            placed_one = decision.node is not None
            progress = PlacementProgress(progress.scheduled + placed_one, progress.remaining - 1)
            status = run_placement_feasible(plugins, group, progress)
            if status is not None and status.code == Code.UNSCHEDULABLE:
                return None
        return placed if placed and (status is None or status.ok) else None
    finally:
        for key in placed:
            snapshot.remove_pod(key)


def preempt_for_group(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], result: GroupResult,
                      now: float) -> bool:
    """Steps 1-5; True when the pods now wait for victims (they were parked here), False when
    preemption cannot help (the caller submits the failure as it is)."""
    if not _may_preempt(cycle, group, pods):
        return False
    waiting = cycle.preempting.get(group.key)
    if waiting and any(cycle.scheduler.snapshot.node_of(key) is not None for key in waiting):
        _park(cycle, group, pods, result, now, {})  # step 5
        return True
    priority = group.pod_group.spec.priority or 0
    units = _units(cycle, priority)
    if not units or simulate(cycle, group, pods, units) is None:
        cycle.preempting.pop(group.key, None)
        return False
    victims = list(units)
    for unit in units:  # step 3: most important first
        trial = [u for u in victims if u is not unit]
        if simulate(cycle, group, pods, trial) is not None:
            victims = trial
    placement = simulate(cycle, group, pods, victims) or {}
    _evict(cycle, group, victims, placement)
    cycle.preempting[group.key] = {pod.key for unit in victims for pod, _ in unit.pods}
    _park(cycle, group, pods, result, now, placement)
    return True


def _may_preempt(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo]) -> bool:
    """Eligibility: with ``PodGroupPreemptionPolicy`` the PodGroup's ``preemptionPolicy`` decides
    (``Never``: the group waits, upstream ``PodGroupPostFilter``; validation made its pods agree);
    without it, a pod with ``preemptionPolicy: Never`` keeps its group from preempting."""
    if cycle.policy_gate:
        return bool(group.pod_group.preempts())
    return not any(p.preemption_policy == "Never" for p in pods)


def _evict(cycle: GroupCycle, group: GroupInfo, victims: list[Unit], placement: dict[str, str]) -> None:
    """Step 4's effects on the victims."""
    s = cycle.scheduler
    message = f"{group.key}: preempting to accommodate a higher priority pod group"
    for unit in victims:
        if unit.group:
            _mark_group(cycle, unit.group, message)
        for pod, node in unit.pods:
            s.evict_for_preemption(pod, f"pod group {group.key}", node, message)


def _mark_group(cycle: GroupCycle, key: str, message: str) -> None:
    """A victim PodGroup: ``DisruptionTarget=True``/``PreemptionByScheduler``."""
    from kbatch.controllers.scheduler.group_cycle import set_condition

    pg = cycle.pod_group(key)
    if pg is None:
        return
    s = cycle.scheduler
    conditions = [c.to_dict() for c in (pg.status.conditions if pg.status else None) or ()]
    if set_condition(conditions, DISRUPTION_TARGET, "True", "PreemptionByScheduler", message,
                     pg.metadata.generation, s.ctx.clock.now_datetime()):
        try:
            s.ctx.client.patch_status(PodGroup, pg.metadata.name or "",
                                      {"status": {"conditions": conditions}}, pg.metadata.namespace)
        except NotFound:
            return


def _park(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], result: GroupResult, now: float,
          placement: dict[str, Any]) -> None:
    """The group's pods wait, nominated where the victims make room."""
    s = cycle.scheduler
    message = f"{result.message}, waiting for preemption to complete"
    for pod in pods:
        s.reject_pod(pod, message, now, nominate=placement.get(pod.key, pod.nominated_node))
    cycle.write_condition(group.pod_group, "False", "Unschedulable", message)
