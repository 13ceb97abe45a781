"""Workload-aware preemption for a PodGroup that did not fit (KEP-5710; beta in 1.37 under
``GenericWorkload``; upstream ``PodGroupPostFilter`` of DefaultPreemption).

The preemptor is the group (its queued pods, all at the PodGroup's priority); the domain the whole
cluster. In numbered steps:

1. candidate victims are the placed pods of lower priority that are not already terminating, in
   preemption **units**: a pod whose scheduling.k8s.io PodGroup, or a composite above it (gate
   ``CompositePodGroup``), has ``disruptionMode: all`` goes with every placed pod under the highest
   such group (upstream ``getHighestAllAncestor``, ``getCrossNodesVictims`` in
   ``framework/preemption/types.go``); any other pod alone;
2. with every candidate removed from the snapshot, the group is placed once (the workload cycle's
   algorithm, PlacementFeasible included, no Reserve, no effects); if it does not place, preemption
   cannot help. The pods it placed keep their proposed nodes from here on;
3. the units are given back, each kept back only if every placed pod still passes Filter on its
   proposed node with it (the in-place reprieve, :mod:`.reprieve`; upstream #139980): first those a
   PodDisruptionBudget would not let go, then the rest, each most important first
   (:mod:`.victim_order`: higher priority, then composites before PodGroups before pods, then more
   pods, then the earlier start, then the UID; upstream ``MoreImportantVictim``,
   ``FilterVictimsWithPDBViolation``);
4. the rest are the victims: each pod gets ``DisruptionTarget=True``/``PreemptionByScheduler`` and
   is deleted; each victim PodGroup (or CompositePodGroup) gets the same condition; the group's
   pods are nominated to the nodes proposed in step 2 and wait in the unschedulable
   pool, their PodGroup ``PodGroupInitiallyScheduled=False``/``Unschedulable``;
5. while victims of an earlier preemption are still on their nodes, the group preempts nothing new
   (it waits for them).

A group with a topology constraint (TopologyAwareWorkloadScheduling) must fit within one of its
candidate domains (:mod:`.group_placements`): in step 2 the best-scored domain where it fits, as in
the workload cycle (:func:`place_group`); the reprieve keeps the nodes proposed there. A PodGroup with
``preemptionPolicy: Never`` (PodGroupPreemptionPolicy) never preempts: its pods wait.

A CompositePodGroup tree is a preemptor too (:mod:`.composite_cycle`): steps 1-5 with its root's
priority and the whole tree placed in step 2 (:func:`choose_victims` with the tree's placing).

Not modelled (docs/gang.md): Reserve in the simulation (upstream reserves each placed pod, in the
placing and in the reprieve).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.api.scheduling_v1beta1 import DISRUPTION_TARGET, PodGroup
from kbatch.controllers.scheduler.budgets import budget_selectors
from kbatch.controllers.scheduler.framework import Code, Status
from kbatch.controllers.scheduler.group_placements import try_placements
from kbatch.controllers.scheduler.placement import (
    GroupInfo,
    PlacementFeasiblePlugin,
    PlacementProgress,
    run_placement_feasible,
)
from kbatch.controllers.scheduler.reprieve import Assignment, reprieve
from kbatch.controllers.scheduler.types import PodInfo
from kbatch.controllers.scheduler.victim_order import COMPOSITE, POD, POD_GROUP, importance_key, pdb_split

if TYPE_CHECKING:
    from kbatch.controllers.scheduler.group_cycle import GroupCycle, GroupResult

__all__ = ["Placing", "Unit", "choose_victims", "evict", "may_preempt", "park_pods", "place_group",
           "preempt_for_group", "units", "waiting_for_victims"]

Placing = Callable[[], "list[Assignment] | None"]  # place the preemptor on the snapshot and take it off again


@dataclass(frozen=True, slots=True)
class Unit:
    """A set of victims that go together: one pod, or the placed pods under a ``disruptionMode: all``
    PodGroup or CompositePodGroup (``group`` is then its key, ``composite`` whether it is a composite;
    ``in_group``: a lone pod naming a PodGroup)."""

    pods: tuple[tuple[PodInfo, str], ...]  # (pod, node)
    priority: int
    group: str = ""
    composite: bool = False
    in_group: bool = False

    @property
    def rank(self) -> int:
        """Upstream ``victimRank`` of the unit's key type (a lone pod of a PodGroup has the PodGroup's)."""
        return COMPOSITE if self.composite else POD_GROUP if self.group or self.in_group else POD

    @property
    def members(self) -> tuple[PodInfo, ...]:
        return tuple(pod for pod, _ in self.pods)


def _whole(cycle: GroupCycle, group_key: str) -> tuple[str, bool] | None:
    """The highest group at or above PodGroup ``group_key`` with ``disruptionMode: all`` (its key,
    whether a composite), or None: upstream ``getHighestAllAncestor``."""
    pg = cycle.pod_group(group_key)
    if pg is None:
        return None
    top = (group_key, False) if pg.disrupted_as_a_whole() else None
    namespace = group_key.partition("/")[0]
    parent, seen = (pg.spec.parent_composite_pod_group_name if cycle.composite else None), set()
    while parent and parent not in seen:
        seen.add(parent)
        try:
            cpg = cycle.scheduler.ctx.cache.get(CompositePodGroup, parent, namespace)
        except NotFound:
            break
        mode = cpg.spec.disruption_mode
        if mode is not None and mode.all is not None:
            top = (f"{namespace}/{parent}", True)
        parent = cpg.spec.parent_composite_pod_group_name
    return top


def units(cycle: GroupCycle, priority: int) -> list[Unit]:
    """Step 1: the candidate victims below ``priority``, most important first (:mod:`.victim_order`)."""
    snapshot, index = cycle.scheduler.snapshot, cycle.index
    singles: list[Unit] = []
    groups: dict[tuple[str, bool], list[tuple[PodInfo, str]]] = {}
    wholes: dict[str, tuple[str, bool] | None] = {}
    for node in snapshot:
        for key, pod in sorted(node.pods.items()):
            if pod.priority >= priority or pod.terminating:
                continue
            group = index.group_of(key)
            if group and group not in wholes:
                wholes[group] = _whole(cycle, group)
            whole = wholes.get(group) if group else None
            if whole is not None:
                groups.setdefault(whole, []).append((pod, node.name))
            else:
                singles.append(Unit(((pod, node.name),), pod.priority, in_group=bool(group)))
    whole_units = [Unit(tuple(sorted(members, key=lambda m: m[0].key)), min(p.priority for p, _ in members),
                        key, composite)
                   for (key, composite), members in sorted(groups.items())]
    return sorted([*whole_units, *singles], key=importance_key)


def choose_victims(cycle: GroupCycle, candidates: list[Unit], place: Placing, scheduler_name: str
                   ) -> tuple[list[Unit], dict[str, str]] | None:
    """Steps 2-3: the victims (most important first) and where the preemptor's pods go once they are
    gone, or None when removing every candidate does not let it place. ``place`` runs once, on the
    snapshot without any candidate; the reprieve then keeps those proposed nodes (:mod:`.reprieve`),
    trying the units a PodDisruptionBudget protects first, then the others, each most important
    first (upstream ``selectVictimsOnDomain``). The snapshot is left as it was."""
    if not candidates:
        return None
    world = _SnapshotWorld(cycle, scheduler_name)
    try:
        for unit in candidates:
            world.take_off(unit, ())
        assignments = place()
        if assignments is None:
            return None
        violating, fine = pdb_split(candidates, budget_selectors(_budgets(cycle)))
        victims = set(map(id, reprieve([*violating, *fine], assignments, world)))
        return [u for u in candidates if id(u) in victims], {a.pod.key: a.node for a in assignments}
    finally:
        world.restore()


class _SnapshotWorld:
    """:class:`.reprieve.World` on the scheduler's snapshot, with the preemptor profile's PreFilter
    extensions and filters; remembers which units are off the snapshot so that :meth:`restore` can
    put them back."""

    def __init__(self, cycle: GroupCycle, scheduler_name: str) -> None:
        self.snapshot = cycle.scheduler.snapshot
        self.algorithm = cycle.scheduler.algorithms[scheduler_name]
        self.off: dict[int, Unit] = {}

    def take_off(self, unit: Unit, assignments: Sequence[Assignment]) -> None:
        self.off[id(unit)] = unit
        states = [(a.pod, a.state) for a in assignments]
        for pod, node in unit.pods:
            self.snapshot.remove_pod(pod.key)
            self.algorithm.add_pod_to_states(pod, node, states, removed=True)

    def put_back(self, unit: Unit, assignments: Sequence[Assignment]) -> None:
        del self.off[id(unit)]
        states = [(a.pod, a.state) for a in assignments]
        for pod, node in unit.pods:
            self.snapshot.add_pod(pod, node)
            self.algorithm.add_pod_to_states(pod, node, states)

    def filter(self, assignment: Assignment) -> Status | None:
        return self.algorithm.filter_on(assignment.pod, assignment.state, assignment.node)

    def assume(self, assignment: Assignment) -> None:
        self.snapshot.add_pod(assignment.pod, assignment.node)

    def forget(self, assignment: Assignment) -> None:
        self.snapshot.remove_pod(assignment.pod.key)

    def restore(self) -> None:
        """Every unit still off the snapshot back on it (the victims: nothing is evicted here)."""
        for unit in list(self.off.values()):
            for pod, node in unit.pods:
                self.snapshot.add_pod(pod, node)
        self.off.clear()


def _budgets(cycle: GroupCycle) -> list[Any]:
    """The PodDisruptionBudgets in the informer cache, by namespace and name."""
    from kbatch.api.policy_v1 import PodDisruptionBudget

    budgets = cycle.scheduler.ctx.cache.list(PodDisruptionBudget)
    return sorted(budgets, key=lambda b: (b.metadata.namespace or "", b.metadata.name or ""))


def place_group(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo]) -> list[Assignment] | None:
    """A standalone group's :data:`Placing`: the workload cycle's placing without Reserve or effects.
    With a topology constraint every domain is tried and the best one where the group fits kept, by
    the workload cycle's own loop and scores (:func:`.group_placements.try_placements`): upstream's
    PodGroupPostFilter runs the pod group algorithm itself (``schedule_one_podgroup.go``
    ``podGroupSchedulingPlacementAlgorithm``, ``findBestPodGroupPlacement``), once, on the snapshot
    without the victims."""
    key = cycle.topology_key(group.pod_group)
    if not key:
        return _simulate_placing(cycle, group, pods)
    tried = try_placements(cycle, group, pods, key, lambda: _simulate_placing(cycle, group, pods),
                           lambda placed: None if placed is None else [a.pod for a in placed])
    return None if isinstance(tried, str) else tried.best  # step 1's error: preemption cannot help


def _simulate_placing(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo]) -> list[Assignment] | None:
    """The cycle's placing without Reserve or effects: the pods placed, in order, each with its node
    and cycle state, or None; the snapshot is left as it was."""
    s = cycle.scheduler
    snapshot, algorithm = s.snapshot, s.algorithms[pods[0].scheduler_name]
    plugins = [p for p in s.profiles[pods[0].scheduler_name].plugins.values()
               if isinstance(p, PlacementFeasiblePlugin)]
    placed: list[Assignment] = []
    try:
        progress = PlacementProgress(len(cycle.scheduled_members(group.key)), len(pods))
        status = run_placement_feasible(plugins, group, progress)
        if status is not None and status.code == Code.UNSCHEDULABLE:
            return None
        for pod in pods:
            decision = algorithm.schedule(pod, post_filter=False)
            if decision.node is not None:
                algorithm.assume(pod, decision.node)
                placed.append(Assignment(pod, decision.node, decision.state))
            placed_one = decision.node is not None
            progress = PlacementProgress(progress.scheduled + placed_one, progress.remaining - 1)
            status = run_placement_feasible(plugins, group, progress)
            if status is not None and status.code == Code.UNSCHEDULABLE:
                return None
        return placed if placed and (status is None or status.ok) else None
    finally:
        for assignment in reversed(placed):
            snapshot.remove_pod(assignment.pod.key)


def preempt_for_group(cycle: GroupCycle, group: GroupInfo, pods: list[PodInfo], result: GroupResult,
                      now: float) -> bool:
    """Steps 1-5; True when the pods now wait for victims (they were parked here), False when
    preemption cannot help (the caller submits the failure as it is)."""
    if not may_preempt(cycle, group.pod_group, pods):
        return False
    message = f"{result.message}, waiting for preemption to complete"
    if waiting_for_victims(cycle, group.key):
        park_pods(cycle, pods, message, now, {})  # step 5
        cycle.write_condition(group.pod_group, "False", "Unschedulable", message)
        return True
    chosen = choose_victims(cycle, units(cycle, group.pod_group.spec.priority or 0),
                            lambda: place_group(cycle, group, pods), pods[0].scheduler_name)
    if chosen is None:
        cycle.preempting.pop(group.key, None)
        return False
    victims, placement = chosen
    evict(cycle, group.key, victims)
    park_pods(cycle, pods, message, now, placement)
    cycle.write_condition(group.pod_group, "False", "Unschedulable", message)
    return True


def waiting_for_victims(cycle: GroupCycle, key: str) -> bool:
    """Step 5: victims of the preemptor's earlier preemption are still on their nodes."""
    waiting = cycle.preempting.get(key)
    return bool(waiting) and any(cycle.scheduler.snapshot.node_of(k) is not None for k in waiting or ())


def may_preempt(cycle: GroupCycle, group: PodGroup | CompositePodGroup, pods: list[PodInfo]) -> bool:
    """Eligibility: with ``PodGroupPreemptionPolicy`` the (root) group's ``preemptionPolicy`` decides
    (``Never``: the group waits, upstream ``PodGroupPostFilter``; validation made its pods agree);
    without it, a pod with ``preemptionPolicy: Never`` keeps its group from preempting."""
    if cycle.policy_gate:
        return group.spec.preemption_policy != "Never"
    return not any(p.preemption_policy == "Never" for p in pods)


def evict(cycle: GroupCycle, preemptor: str, victims: list[Unit]) -> None:
    """Step 4's effects on the victims; ``preemptor`` (a group key) then waits for them."""
    s = cycle.scheduler
    message = f"{preemptor}: preempting to accommodate a higher priority pod group"
    for unit in victims:
        if unit.group:
            _mark_group(cycle, CompositePodGroup if unit.composite else PodGroup, unit.group, message)
        for pod, node in unit.pods:
            s.evict_for_preemption(pod, f"pod group {preemptor}", node, message)
    cycle.preempting[preemptor] = {pod.key for unit in victims for pod, _ in unit.pods}


def _mark_group(cycle: GroupCycle, kind: type[PodGroup] | type[CompositePodGroup], key: str,
                message: str) -> None:
    """A victim group: ``DisruptionTarget=True``/``PreemptionByScheduler``."""
    from kbatch.controllers.scheduler.group_cycle import set_condition

    s = cycle.scheduler
    namespace, _, name = key.partition("/")
    try:
        group = s.ctx.cache.get(kind, name, namespace)
    except NotFound:
        return
    conditions = [c.to_dict() for c in (group.status.conditions if group.status else None) or ()]
    if set_condition(conditions, DISRUPTION_TARGET, "True", "PreemptionByScheduler", message,
                     group.metadata.generation, s.ctx.clock.now_datetime()):
        try:
            s.ctx.client.patch_status(kind, name, {"status": {"conditions": conditions}}, namespace)
        except NotFound:
            return


def park_pods(cycle: GroupCycle, pods: list[PodInfo], message: str, now: float,
              placement: dict[str, Any]) -> None:
    """The preemptor's pods wait, nominated where the victims make room."""
    for pod in pods:
        cycle.scheduler.reject_pod(pod, message, now, nominate=placement.get(pod.key, pod.nominated_node))
