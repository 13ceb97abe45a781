"""NodeUnschedulable (Filter): cordoned nodes (``spec.unschedulable``) take no new pods.

Upstream ``pkg/scheduler/framework/plugins/nodeunschedulable``: a pod that tolerates the
``node.kubernetes.io/unschedulable:NoSchedule`` taint may still go there. Reason "node(s) were
unschedulable", unresolvable.
"""

from __future__ import annotations

from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import PodInfo, Taint

__all__ = ["ERR_REASON", "UNSCHEDULABLE_TAINT", "NodeUnschedulable"]

ERR_REASON = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "NoSchedule")


class NodeUnschedulable:
    name = "NodeUnschedulable"
    node_static = True

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.shape.unschedulable:
            return None
        if any(t.tolerates(UNSCHEDULABLE_TAINT) for t in pod.tolerations):
            return None
        return Status.unresolvable(self.name, ERR_REASON)
