"""Workload-aware preemption's reprieve, in place (KEP-5710; kubernetes/kubernetes#139980,
"Reimplement WAP with in place filter reprieval", in 1.37: ``pkg/scheduler/framework/preemption/
podgrouppreemption.go`` ``selectVictimsOnDomain``).

The preemptor group was placed **once**, on the snapshot with every candidate victim removed; that
placing proposed a node for some of its pods (the *assignments*, in the order the pods were placed,
each with the cycle state its PreFilter built). The reprieve then takes the candidate units in order
and, for each:

1. puts the unit's pods back on their nodes, and tells every assignment's cycle state about each of
   them (the PreFilter extensions' AddPod, upstream ``addVictimPodsWithPreFilter``);
2. runs Filter (with the nominated pods, upstream ``RunFilterPluginsWithNominatedPods``) for each
   assigned pod on its **proposed** node, in placing order, adding each pod that passes to its node
   before the next is checked (upstream assumes it there and runs Reserve);
3. if every pod passes, the unit is reprieved and stays; at the first failure the unit's pods come
   off again (PreFilter extensions' RemovePod, upstream ``removeVictimPodsWithPreFilter``) and the
   unit is a victim;
4. either way the assigned pods come off their nodes again, last first.

So the preemptor's pods never move during the reprieve, and a unit is given back only if the
placing found on the emptied snapshot still holds with it. Pods the placing left without a node are
not checked. The decision is this module's; what "put back", "filter" and "assume" do to the
scheduler's snapshot is the caller's (:class:`World`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["Assignment", "World", "reprieve"]


@dataclass(frozen=True, slots=True)
class Assignment:
    """One preemptor pod's proposed node and the cycle state it was placed with (upstream
    ``ProposedAssignment``: ``GetPod``, ``GetNodeName``, ``GetCycleState``)."""

    pod: PodInfo
    node: str
    state: CycleState


U = TypeVar("U")
U_in = TypeVar("U_in", contravariant=True)


class World(Protocol[U_in]):
    """The effects the reprieve needs, on the snapshot the placing ran on."""

    def put_back(self, unit: U_in, assignments: Sequence[Assignment]) -> None:
        """The unit's pods back on their nodes; each assignment's state told (AddPod)."""

    def take_off(self, unit: U_in, assignments: Sequence[Assignment]) -> None:
        """The unit's pods off their nodes again; each assignment's state told (RemovePod)."""

    def filter(self, assignment: Assignment) -> Status | None:
        """Filter for the assigned pod on its proposed node, with the nominated pods."""

    def assume(self, assignment: Assignment) -> None:
        """The assigned pod on its proposed node."""

    def forget(self, assignment: Assignment) -> None:
        """The assigned pod off its node again."""


def reprieve(units: Sequence[U], assignments: Sequence[Assignment], world: World[U]) -> list[U]:
    """Steps 1-4 for each of ``units`` in the given order (the caller's: budget-protected units
    first, each most important first); returns the victims, in that order. The units reprieved are
    left on the snapshot, the victims off it."""
    return [unit for unit in units if not _fits_with(unit, assignments, world)]


def _fits_with(unit: U, assignments: Sequence[Assignment], world: World[U]) -> bool:
    """Whether every assigned pod still passes Filter on its proposed node with ``unit`` back."""
    world.put_back(unit, assignments)
    assumed: list[Assignment] = []
    try:
        for assignment in assignments:
            if world.filter(assignment) is not None:
                world.take_off(unit, assignments)
                return False
            world.assume(assignment)
            assumed.append(assignment)
        return True
    finally:
        for assignment in reversed(assumed):
            world.forget(assignment)
