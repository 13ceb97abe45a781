"""Node health from heartbeats, pure (upstream
``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` ``tryUpdateNodeHealth``).

The controller remembers, per node, the last heartbeat it saw (the ``Ready`` condition's
``lastHeartbeatTime`` and the node Lease's ``renewTime``) and its own clock when that value last
changed (the *probe time*). A node whose heartbeat has not changed for ``node-monitor-grace-period``
is unhealthy: its ``Ready`` condition and the kubelet's other conditions (``MemoryPressure``,
``DiskPressure``, ``PIDPressure``) become ``Unknown`` reason ``NodeStatusUnknown`` "Kubelet stopped
posting node status." (a condition the kubelet never posted is added as ``Unknown`` reason
``NodeStatusNeverUpdated`` "Kubelet never posted node status."); the ``Ready=Unknown`` condition
then calls for the ``node.kubernetes.io/unreachable`` taints (:mod:`.taints`).

The controller looks at node health only in its ``monitorNodeHealth`` pass, which runs when the
controller starts and then every ``node-monitor-period`` (5 s; ``wait.UntilWithContext`` in ``Run``):
a heartbeat is observed (and the probe time taken), a silent node timed out, a NoExecute taint queued,
a node registered or removed at the first pass at or after the event (:func:`monitor_tick`).

The grace period is 50 s since Kubernetes 1.32 (it was 40 s before: kubernetes/kubernetes#121793,
#127352: the kubelet must get five 10 s status-update attempts in).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["NODE_MONITOR_GRACE_PERIOD", "NODE_MONITOR_PERIOD", "PASS_EPSILON", "Heartbeat", "Seen",
           "monitor_tick", "observe", "unknown_conditions"]

NODE_MONITOR_GRACE_PERIOD = 50.0
NODE_MONITOR_PERIOD = 5.0  # --node-monitor-period
PASS_EPSILON = 1e-6  # virtual instants are floats: a timer due at a pass may fire a rounding error off it
CONDITION_TYPES = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
Heartbeat = tuple[Any, Any]  # (Ready lastHeartbeatTime, Lease renewTime)


Seen = tuple[Heartbeat, float]  # (last heartbeat, probe time)


def monitor_tick(started: float, period: float, now: float) -> float:
    """The instant of the first monitor pass at or after ``now`` (passes at ``started + k * period``)."""
    passes = max(0.0, now - started) / period
    whole = round(passes)
    k = whole if abs(passes - whole) * period < PASS_EPSILON else int(passes) + 1
    return started + k * period


def observe(seen: Seen | None, heartbeat: Heartbeat, now: float) -> Seen:
    """The (heartbeat, probe time) after seeing ``heartbeat`` at ``now``: the probe time moves only
    when the heartbeat changed (``nodeHealthData.probeTimestamp``)."""
    if seen is None or seen[0] != heartbeat:
        return heartbeat, now
    return seen


def unknown_conditions(current: Iterable[tuple[str, str]], stamp: str) -> list[dict[str, Any]]:
    """Patch items (merge key ``type``) setting the kubelet's conditions to ``Unknown``, given the
    node's current (type, status) pairs; transition time ``stamp``; heartbeat times kept."""
    have = dict(current)
    items = []
    for type_ in CONDITION_TYPES:
        status = have.get(type_)
        if status == "Unknown":
            continue
        reason, message = (("NodeStatusNeverUpdated", "Kubelet never posted node status.") if status is None
                           else ("NodeStatusUnknown", "Kubelet stopped posting node status."))
        items.append({"type": type_, "status": "Unknown", "reason": reason, "message": message,
                      "lastTransitionTime": stamp})
    return items
