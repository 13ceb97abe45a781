"""The simulated kube-scheduler, a framework with plugin seams; controller name ``scheduler``.

Pure core: :class:`Algorithm` (one attempt over a :class:`Snapshot`), :class:`SchedulingQueue`,
the plugin protocols in :mod:`.framework` and the plugins in :mod:`.plugins`. The controller
(:class:`Scheduler`) wires them to informers and writes through the client. docs/simulation.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.controllers.scheduler.algorithm import Algorithm, Decision
from kbatch.controllers.scheduler.config import SchedulerConfig, SchedulerConfigError, parse_config
from kbatch.controllers.scheduler.controller import Scheduler
from kbatch.controllers.scheduler.defaults import default_profile, plugin_registry
from kbatch.controllers.scheduler.diagnosis import Diagnosis, fit_error_message
from kbatch.controllers.scheduler.framework import Code, CycleState, PostFilterResult, Profile, Status
from kbatch.controllers.scheduler.profiles import (
    Handle,
    build_profiles,
    decode_nested_objects,
    event_handlers,
)
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot
from kbatch.controllers.scheduler.types import NodeShape, PodInfo
from kbatch.runtime.context import ControllerContext

__all__ = [
    "CYCLE",
    "Algorithm",
    "Code",
    "CycleState",
    "Decision",
    "Diagnosis",
    "Handle",
    "NodeInfo",
    "NodeShape",
    "PodInfo",
    "PostFilterResult",
    "Profile",
    "Scheduler",
    "SchedulerConfig",
    "SchedulerConfigError",
    "SchedulingQueue",
    "Snapshot",
    "Status",
    "build_profiles",
    "decode_nested_objects",
    "default_profile",
    "fit_error_message",
    "parse_config",
    "plugin_registry",
    "setup",
]

CYCLE = ("", "scheduler/cycle")  # the one request the scheduler's queue ever holds


def setup(ctx: ControllerContext, profile: Profile | None = None) -> Scheduler:
    """Catalog factory for ``scheduler``. Options: ``config`` (a ``KubeSchedulerConfiguration``
    document, kube-scheduler's ``--config``: profiles, plugins, plugin args; ``ControlPlane``'s
    ``scheduler_config``), ``events`` (bool), ``queueing_hints`` (bool; the SchedulerQueueingHints
    gate must be on too). ``profile`` replaces the configured profiles by that one (tests)."""
    from kbatch.api.core_v1 import Node, Pod

    scheduler = Scheduler(ctx, profile)
    builder = ctx.build().describe("binds pending pods to nodes (simulated kube-scheduler)")
    scheduler.cycle = builder.complete(scheduler)
    ctx.cache.informer_for(Node).add_event_handler(_Handler(scheduler.on_node, scheduler.on_node_delete))
    ctx.cache.informer_for(Pod).add_event_handler(_Handler(scheduler.on_pod, scheduler.on_pod_delete))
    for kind, handler in event_handlers(scheduler.profiles.values()):  # what plugins declare they watch
        ctx.cache.informer_for(kind).add_event_handler(handler)
    return scheduler


class _Handler:
    """Informer handler calling ``upsert(obj)`` on add/update and ``remove(obj)`` on delete."""

    __slots__ = ("remove", "upsert")

    def __init__(self, upsert: Callable[[Any], None], remove: Callable[[Any], None]) -> None:
        self.upsert, self.remove = upsert, remove

    def on_add(self, obj: Any) -> None:
        self.upsert(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self.upsert(new)

    def on_delete(self, obj: Any) -> None:
        self.remove(obj)
