"""The ``PlacementFeasible`` extension point of the workload scheduling cycle (KEP-4671, Kubernetes
1.37; upstream ``framework.PlacementFeasiblePlugin``, ``framework.PlacementProgress``).

In a pod group's cycle (:mod:`.group_cycle`) the framework asks every such plugin, before the first
pod and after each one, whether the group can still meet its constraints given how many of its pods
are ``scheduled`` (already bound or assumed, those of earlier cycles included) and how many are
``remaining`` to be tried: ``None`` (satisfied), ``Code.WAIT`` (not yet; keep placing) or
``Code.UNSCHEDULABLE`` (cannot be met: stop early). The first non-success status wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kbatch.controllers.scheduler.framework import Status

__all__ = ["GroupInfo", "PlacementFeasiblePlugin", "PlacementProgress", "run_placement_feasible"]


@dataclass(frozen=True, slots=True)
class PlacementProgress:
    scheduled: int
    remaining: int


@dataclass(frozen=True, slots=True)
class GroupInfo:
    """The pod group a cycle places: its key (``namespace/name``) and API object."""

    key: str
    pod_group: Any


@runtime_checkable
class PlacementFeasiblePlugin(Protocol):
    name: str

    def placement_feasible(self, group: GroupInfo, progress: PlacementProgress) -> Status | None: ...


def run_placement_feasible(plugins: Sequence[PlacementFeasiblePlugin], group: GroupInfo,
                           progress: PlacementProgress) -> Status | None:
    for plugin in plugins:
        status = plugin.placement_feasible(group, progress)
        if status is not None and not status.ok:
            return status
    return None
