"""SchedulingGates (PreEnqueue): a pod with ``spec.schedulingGates`` is not attempted.

Upstream ``pkg/scheduler/framework/plugins/schedulinggates``: the pod stays out of the active
queue and its ``PodScheduled`` condition is ``False`` with reason ``SchedulingGated`` and message
"waiting for scheduling gates: [a b]" until every gate is removed.
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import Status
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["SCHEDULING_GATED", "SchedulingGates"]

SCHEDULING_GATED = "SchedulingGated"


class SchedulingGates:
    name = "SchedulingGates"

    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        if not pod.scheduling_gates:
            return None
        gates = " ".join(pod.scheduling_gates)
        return Status.unresolvable(self.name, f"waiting for scheduling gates: [{gates}]")
