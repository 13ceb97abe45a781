"""Pods on a node that went silent are marked not ready, pure (upstream
``pkg/controller/util/node/controller_utils.go`` ``MarkPodsNotReady``, called from
``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` ``monitorNodeHealth`` when the
controller itself moved the node's ``Ready`` condition away from ``True``).

Each pod bound to the node that has a ``Ready`` condition gets it set to ``False``: only the status
changes (and so ``lastTransitionTime``, as ``UpdatePodCondition`` does); reason and message stay
what they were. A pod whose ``Ready`` is already ``False``, or that has none, is left alone. After
the status write upstream records a ``Warning`` event ``NodeNotReady`` "Node is not ready" on the
pod, and a ``Normal`` event ``NodeNotReady`` "Node NAME status is now: NodeNotReady" on the node
(``RecordNodeStatusChange``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["POD_EVENT", "node_event_message", "not_ready_patch"]

POD_EVENT = ("Warning", "NodeNotReady", "Node is not ready")


def node_event_message(node: str) -> str:
    return f"Node {node} status is now: NodeNotReady"


def not_ready_patch(pod: Any, stamp: str) -> dict[str, Any] | None:
    """The strategic status patch (merge key ``type``) making ``pod`` not ready at ``stamp``, or None
    when there is nothing to change."""
    conditions = (pod.status.conditions if pod.status else None) or ()
    ready = next((c for c in conditions if c.type == "Ready"), None)
    if ready is None or ready.status == "False":
        return None
    return {"status": {"conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": stamp}]}}
