"""NodeName (Filter): a pod with ``spec.nodeName`` set fits only that node.

Upstream ``pkg/scheduler/framework/plugins/nodename``; reason "node(s) didn't match the requested
node name", unresolvable. (Pods created with ``nodeName`` are already bound and never reach the
scheduler; the plugin matters for what-if evaluation and for completeness.) Queueing hint
(``EventsToRegister``, KEP-4247): only the addition of the named node (Node Add).
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
)
from kbatch.controllers.scheduler.framework import CycleState, Status
from kbatch.controllers.scheduler.snapshot import NodeInfo
from kbatch.controllers.scheduler.types import NodeShape, PodInfo

__all__ = ["ERR_REASON", "NodeName", "new"]

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName:
    name = "NodeName"
    node_static = True

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        if pod.node_name and pod.node_name != node.name:
            return Status.unresolvable(self.name, ERR_REASON)
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [on_node(ActionType.ADD, after_node_add)]


def after_node_add(pod: PodInfo, old: NodeShape | None, new: NodeShape) -> QueueingHint:
    """Upstream ``isSchedulableAfterNodeAdd``: the added node is the one the pod names."""
    return QUEUE if not pod.node_name or pod.node_name == new.name else QUEUE_SKIP


def new(args: Mapping[str, Any], handle: Any) -> NodeName:
    """The registry's factory: NodeName takes no args."""
    plugin_args("NodeName", args)
    return NodeName()
