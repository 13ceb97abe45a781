"""SchedulingGates (PreEnqueue): a pod with ``spec.schedulingGates`` is not attempted.

Upstream ``pkg/scheduler/framework/plugins/schedulinggates``: the pod stays out of the active
queue and its ``PodScheduled`` condition is ``False`` with reason ``SchedulingGated`` and message
"waiting for scheduling gates: [a b]" until every gate is removed. Queueing hint
(``EventsToRegister``, KEP-4247): the pod's own gates all removed (Pod
UpdatePodSchedulingGatesEliminated).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.events import (
    QUEUE,
    QUEUE_SKIP,
    ActionType,
    ClusterEventWithHint,
    QueueingHint,
    on_pod,
)
from kbatch.controllers.scheduler.framework import Status
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["SCHEDULING_GATED", "SCHEDULING_GATES", "SchedulingGates", "new"]

SCHEDULING_GATED = "SchedulingGated"
SCHEDULING_GATES = "SchedulingGates"  # the plugin's name


class SchedulingGates:
    name = SCHEDULING_GATES

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if not pod.scheduling_gates:
            return None
        gates = " ".join(pod.scheduling_gates)
        return Status.unresolvable(self.name, f"waiting for scheduling gates: [{gates}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [on_pod(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, after_gates_eliminated)]


def after_gates_eliminated(pod: PodInfo, old: PodInfo | None, new: PodInfo) -> QueueingHint:
    """Upstream ``isSchedulableAfterUpdatePodSchedulingGatesEliminated``: the pod itself."""
    return QUEUE if new.key == pod.key and new.uid == pod.uid else QUEUE_SKIP


def new(args: Mapping[str, Any], handle: Any) -> SchedulingGates:
    """The registry's factory: SchedulingGates takes no args."""
    plugin_args("SchedulingGates", args)
    return SchedulingGates()
