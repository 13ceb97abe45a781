"""Node-condition taints and NoExecute eviction times, pure.

Node lifecycle (upstream ``pkg/controller/nodelifecycle/node_lifecycle_controller.go``,
``doNoExecuteTaintingPass`` and ``doNoScheduleTaintingPass``): a node whose ``Ready`` condition is
``False`` carries ``node.kubernetes.io/not-ready`` with effects ``NoSchedule`` and ``NoExecute``;
``Unknown`` (the kubelet stopped posting status) carries ``node.kubernetes.io/unreachable`` with
both effects; ``True`` carries neither.

Taint eviction (``pkg/controller/tainteviction/taint_eviction.go``, ``getMinTolerationTime``): a pod
on a node with ``NoExecute`` taints is evicted at once if it does not tolerate one of them;
otherwise at the earliest ``timeAdded + tolerationSeconds`` over the tolerations that match;
never when every matching toleration has no ``tolerationSeconds``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from kbatch.controllers.scheduler.types import Taint, Toleration

__all__ = [
    "NOT_READY",
    "UNREACHABLE",
    "condition_taints",
    "eviction_time",
    "wanted_taints",
]

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
_OWNED = (NOT_READY, UNREACHABLE)


def condition_taints(ready: str | None) -> list[tuple[str, str]]:
    """(key, effect) pairs the Ready condition status calls for."""
    if ready == "False":
        return [(NOT_READY, "NoSchedule"), (NOT_READY, "NoExecute")]
    if ready == "Unknown":
        return [(UNREACHABLE, "NoSchedule"), (UNREACHABLE, "NoExecute")]
    return []


def wanted_taints(current: Iterable[Taint], ready: str | None, now: float) -> list[Taint]:
    """The node's taints with the condition taints made to match ``ready`` (others untouched)."""
    current = list(current)
    wanted = condition_taints(ready)
    keep = [t for t in current if t.key not in _OWNED or (t.key, t.effect) in wanted]
    have = {(t.key, t.effect) for t in keep}
    for key, effect in wanted:
        if (key, effect) not in have:
            keep.append(Taint(key, effect, "", now if effect == "NoExecute" else None))
    return keep


def eviction_time(taints: Iterable[Taint], tolerations: tuple[Toleration, ...], now: float) -> float | None:
    """When the pod must go (``now`` or later), or None when it may stay."""
    no_execute = [t for t in taints if t.effect == "NoExecute"]
    if not no_execute:
        return None
    deadline = math.inf
    for taint in no_execute:
        matching = [t for t in tolerations if t.tolerates(taint)]
        if not matching:
            return now
        seconds = [t.toleration_seconds for t in matching if t.toleration_seconds is not None]
        if seconds:
            added = taint.time_added if taint.time_added is not None else now
            deadline = min(deadline, added + max(min(seconds), 0))
    return None if deadline == math.inf else max(deadline, now)
