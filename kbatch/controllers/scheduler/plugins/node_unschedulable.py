"""NodeUnschedulable (Filter): cordoned nodes (``spec.unschedulable``) take no new pods.

Upstream ``pkg/scheduler/framework/plugins/nodeunschedulable``: a pod that tolerates the
``node.kubernetes.io/unschedulable:NoSchedule`` taint may still go there. Reason "node(s) were
unschedulable", unresolvable.

Queueing hints (``EventsToRegister``, KEP-4247): a schedulable node added, or a node turned from
unschedulable to schedulable (Node Add | UpdateNodeTaint; upstream reports ``spec.unschedulable``
cleared as UpdateNodeTaint); the pod itself gaining a toleration of the unschedulable taint.
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
    on_node,
    on_pod,
)
from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.plugins.taint_toleration import same_pod
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo, Taint

__all__ = ["ERR_REASON", "UNSCHEDULABLE_TAINT", "NodeUnschedulable", "new"]

ERR_REASON = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "NoSchedule")


def after_node_change(pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeChange``."""
    if new.unschedulable:
        return QUEUE_SKIP
    return QUEUE if old is None or old.unschedulable else QUEUE_SKIP


def after_toleration_added(pod: PodInfo, old: PodInfo | None, new: PodInfo) -> QueueingHint:
    """Upstream ``isSchedulableAfterPodTolerationChange``."""
    if same_pod(pod, new) and any(t.tolerates(UNSCHEDULABLE_TAINT) for t in new.tolerations):
        return QUEUE
    return QUEUE_SKIP


class NodeUnschedulable:
    name = "NodeUnschedulable"
    node_static = True

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if not node.shape.unschedulable:
            return None
        if any(t.tolerates(UNSCHEDULABLE_TAINT) for t in pod.tolerations):
            return None
        return Status.unresolvable(self.name, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            on_node(ActionType.ADD | ActionType.UPDATE_NODE_TAINT, after_node_change),
            on_pod(ActionType.UPDATE_POD_TOLERATION, after_toleration_added),
        ]


def new(args: Mapping[str, Any], handle: Any) -> NodeUnschedulable:
    """The registry's factory: NodeUnschedulable takes no args."""
    plugin_args("NodeUnschedulable", args)
    return NodeUnschedulable()
