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

from kbatch.api.base import format_time

__all__ = ["POD_EVENT", "condition_patch", "node_event_message", "not_ready_patch"]

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


def condition_patch(pod: Any, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The strategic status patch setting the condition ``wanted`` (wire form) on ``pod``, as
    ``UpdatePodCondition`` (``pkg/api/v1/pod/util.go``) decides: None when status, reason, message and
    observedGeneration are already those; an unchanged status keeps its ``lastTransitionTime``."""
    conditions = (pod.status.conditions if pod.status else None) or ()
    old = next((c for c in conditions if c.type == wanted["type"]), None)
    if old is None:
        return {"status": {"conditions": [wanted]}}
    same = (old.status, old.reason, old.message, old.observed_generation, old.last_probe_time) == (
        wanted["status"], wanted.get("reason"), wanted.get("message"), wanted.get("observedGeneration"), None)
    if same:
        return None
    if old.status == wanted["status"] and old.last_transition_time is not None:
        wanted = {**wanted, "lastTransitionTime": format_time(old.last_transition_time)}
    return {"status": {"conditions": [wanted]}}
