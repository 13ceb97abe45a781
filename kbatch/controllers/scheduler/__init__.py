"""The simulated kube-scheduler, a framework with plugin seams; controller name ``scheduler``.

Pure core: :class:`Algorithm` (one attempt over a :class:`Snapshot`), :class:`SchedulingQueue`,
the plugin protocols in :mod:`.framework` and the plugins in :mod:`.plugins`. The controller
(:class:`Scheduler`) wires them to informers and writes through the client. docs/simulation.md.
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.scheduler.algorithm import Algorithm, Decision
from kbatch.controllers.scheduler.controller import Scheduler
from kbatch.controllers.scheduler.defaults import default_profile
from kbatch.controllers.scheduler.diagnosis import Diagnosis, fit_error_message
from kbatch.controllers.scheduler.framework import Code, CycleState, PostFilterResult, Profile, Status
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import NodeShape, PodInfo

__all__ = [
    "CYCLE",
    "Algorithm",
    "Code",
    "CycleState",
    "Decision",
    "Diagnosis",
    "NodeInfo",
    "NodeShape",
    "PodInfo",
    "PostFilterResult",
    "Profile",
    "Scheduler",
    "SchedulingQueue",
    "Snapshot",
    "Status",
    "default_profile",
    "fit_error_message",
    "setup",
]

CYCLE = ("", "scheduler/cycle")  # the one request the scheduler's queue ever holds


def setup(ctx: Any, profile: Profile | None = None) -> Scheduler:
    """Catalog factory for ``scheduler``. Options: ``profile`` (kwargs of :func:`default_profile`:
    ``scoring_strategy``, ``percentage_of_nodes_to_score``, ``preemption``), ``events`` (bool)."""
    from kbatch.api.core_v1 import Node, Pod, Service
    from kbatch.controllers.scheduler.plugins import PodTopologySpread
    from kbatch.runtime.reconcile import Request

    scheduler = Scheduler(ctx, profile)
    builder = ctx.build().describe("binds pending pods to nodes (simulated kube-scheduler)")
    controller = builder.complete(scheduler)
    cycle = Request(*CYCLE)
    scheduler.enqueue = lambda: controller.queue.add(cycle)
    scheduler.cycle = controller
    _wire_pdbs(ctx, scheduler.profile)
    ctx.cache.informer_for(Node).add_event_handler(_Handler(scheduler.on_node, scheduler.on_node_delete))
    ctx.cache.informer_for(Pod).add_event_handler(_Handler(scheduler.on_pod, scheduler.on_pod_delete))
    for plugin in scheduler.profile.pre_filter:  # Services select pods for default spreading
        if isinstance(plugin, PodTopologySpread):
            ctx.cache.informer_for(Service).add_event_handler(plugin.services)
    return scheduler


def _wire_pdbs(ctx: Any, profile: Profile) -> None:
    """DefaultPreemption reads PodDisruptionBudgets from the shared cache (upstream: a PDB lister)."""
    from kbatch.api.policy_v1 import PodDisruptionBudget

    for plugin in profile.post_filter:
        if hasattr(plugin, "pdb_lister"):
            plugin.pdb_lister = lambda: ctx.cache.list(PodDisruptionBudget, readonly=True)


class _Handler:
    """Informer handler calling ``upsert(obj)`` on add/update and ``remove(obj)`` on delete."""

    __slots__ = ("remove", "upsert")

    def __init__(self, upsert: Any, remove: Any) -> None:
        self.upsert, self.remove = upsert, remove

    def on_add(self, obj: Any) -> None:
        self.upsert(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self.upsert(new)

    def on_delete(self, obj: Any) -> None:
        self.remove(obj)
