"""Node-condition taints and NoExecute eviction times, pure.

Node lifecycle (upstream ``pkg/controller/nodelifecycle/node_lifecycle_controller.go``,
``doNoExecuteTaintingPass`` and ``doNoScheduleTaintingPass``): a node whose ``Ready`` condition is
``False`` carries ``node.kubernetes.io/not-ready`` with effects ``NoSchedule`` and ``NoExecute``;
``Unknown`` (the kubelet stopped posting status) carries ``node.kubernetes.io/unreachable`` with
both effects; ``True`` carries neither. The ``NoExecute`` ones are added through the zone's rate-limited
queue (:mod:`.zones`, :mod:`.ratelimit`): :func:`no_execute_step` is ``processTaintBaseEviction``'s
choice for one node, :func:`with_no_execute` the swap the tainting pass makes.

TaintNodesByCondition (``doNoScheduleTaintingPass``, ``nodeConditionToTaintKeyStatusMap``; KEP
"Graduate TaintNodeByCondition to GA"): the ``NoSchedule`` taints follow the node's conditions at
once (:func:`no_schedule_taints`): ``Ready`` ``False`` / ``Unknown`` -> ``not-ready`` /
``unreachable``; ``MemoryPressure``, ``DiskPressure``, ``NetworkUnavailable``, ``PIDPressure``
``True`` -> ``memory-pressure``, ``disk-pressure``, ``network-unavailable``, ``pid-pressure``; and
``spec.unschedulable`` -> ``node.kubernetes.io/unschedulable`` (all ``node.kubernetes.io/``). Only
``NoSchedule`` taints with these keys are the controller's: it adds the missing ones (with
``timeAdded``, as ``SwapNodeControllerTaint`` stamps every taint it adds) and removes the ones no
condition calls for; any other taint, and these keys with other effects, stay as they are.

Taint eviction (``pkg/controller/tainteviction/taint_eviction.go``, ``processPodOnNode``,
``getMinTolerationTime``, ``GetMatchingTolerations``): a pod on a node with ``NoExecute`` taints is
evicted at once if it does not tolerate one of them; otherwise ``tolerationSeconds`` after the
controller first saw it so (the least over the *first* matching toleration of each taint; 0 if one
is <= 0); never when none of those has ``tolerationSeconds``. The taint's ``timeAdded`` plays no part
(:func:`plan_eviction`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kbatch.controllers.scheduler.types import Taint, Toleration

__all__ = [
    "CONDITION_TAINT_KEYS",
    "DISK_PRESSURE",
    "MEMORY_PRESSURE",
    "NETWORK_UNAVAILABLE",
    "NOT_READY",
    "PID_PRESSURE",
    "UNREACHABLE",
    "UNSCHEDULABLE",
    "Scheduled",
    "condition_taints",
    "has_no_execute",
    "matching_tolerations",
    "min_toleration_seconds",
    "no_execute_key",
    "no_execute_step",
    "no_schedule_taints",
    "plan_eviction",
    "wanted_taints",
    "with_no_execute",
]

Scheduled = tuple[float, float]  # a pod's eviction work: (created, fire at), TimedWorker's CreatedAt, FireAt
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
_OWNED = (NOT_READY, UNREACHABLE)
MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
PID_PRESSURE = "node.kubernetes.io/pid-pressure"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
CONDITION_TAINT_KEYS: dict[str, dict[str, str]] = {  # condition type -> status -> NoSchedule taint key
    "Ready": {"False": NOT_READY, "Unknown": UNREACHABLE},
    "MemoryPressure": {"True": MEMORY_PRESSURE},
    "DiskPressure": {"True": DISK_PRESSURE},
    "NetworkUnavailable": {"True": NETWORK_UNAVAILABLE},
    "PIDPressure": {"True": PID_PRESSURE},
}
_NO_SCHEDULE_OWNED = frozenset({UNSCHEDULABLE, *(key for by_status in CONDITION_TAINT_KEYS.values()
                                                 for key in by_status.values())})


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


def no_schedule_taints(current: Iterable[Taint], conditions: Iterable[tuple[str, str]],
                       unschedulable: bool, now: float) -> list[Taint]:
    """The node's taints with its condition / unschedulable ``NoSchedule`` taints made to match its
    ``conditions`` ((type, status) pairs, in the node's order) and ``spec.unschedulable``
    (``doNoScheduleTaintingPass``): the ones kept stay in place, the new ones are appended (in
    condition order, then unschedulable) with ``time_added`` ``now``."""
    current = list(current)
    wanted = [key for type_, status in conditions
              if (key := CONDITION_TAINT_KEYS.get(type_, {}).get(status)) is not None]
    if unschedulable:
        wanted.append(UNSCHEDULABLE)
    keep = [t for t in current
            if t.effect != "NoSchedule" or t.key not in _NO_SCHEDULE_OWNED or t.key in wanted]
    have = {t.key for t in keep if t.effect == "NoSchedule"}
    added = [Taint(key, "NoSchedule", "", now) for key in dict.fromkeys(wanted) if key not in have]
    return keep + added


def no_execute_key(ready: str | None) -> str | None:
    """The NoExecute condition taint's key for a Ready status (None: neither)."""
    return NOT_READY if ready == "False" else UNREACHABLE if ready == "Unknown" else None


def with_no_execute(current: Iterable[Taint], key: str | None, now: float) -> list[Taint]:
    """The node's taints with exactly ``key``'s NoExecute condition taint (added at ``now`` unless
    present) and not the other one (upstream ``SwapNodeControllerTaint``)."""
    keep = [t for t in current if t.key not in _OWNED or t.effect != "NoExecute" or t.key == key]
    if key is not None and not any(t.key == key and t.effect == "NoExecute" for t in keep):
        keep.append(Taint(key, "NoExecute", "", now))
    return keep


def has_no_execute(current: Iterable[Taint], key: str) -> bool:
    return any(t.key == key and t.effect == "NoExecute" for t in current)


def no_execute_step(current: Iterable[Taint], ready: str | None) -> str:
    """``processTaintBaseEviction`` for one node: ``"swap"`` (it carries the other condition's
    NoExecute taint: replace it now, not rate-limited), ``"queue"`` (queue it for the zone's
    rate-limited tainting), ``"reachable"`` (Ready: remove both NoExecute taints, dequeue) or
    ``""`` (no Ready condition: nothing)."""
    key = no_execute_key(ready)
    if key is None:
        return "reachable" if ready == "True" else ""
    other = UNREACHABLE if key == NOT_READY else NOT_READY
    return "swap" if has_no_execute(current, other) else "queue"


def matching_tolerations(taints: Iterable[Taint],
                         tolerations: Sequence[Toleration]) -> list[Toleration] | None:
    """For each taint the *first* toleration that tolerates it (upstream ``GetMatchingTolerations``),
    or None when some taint is tolerated by none."""
    used = []
    for taint in taints:
        first = next((t for t in tolerations if t.tolerates(taint)), None)
        if first is None:
            return None
        used.append(first)
    return used


def min_toleration_seconds(used: Iterable[Toleration]) -> float | None:
    """``getMinTolerationTime`` over the used tolerations: 0 if one has ``tolerationSeconds`` <= 0,
    else the least of the ones with seconds; None (forever) when none has seconds."""
    seconds = [t.toleration_seconds for t in used if t.toleration_seconds is not None]
    if not seconds:
        return None
    return float(max(min(seconds), 0))


def plan_eviction(taints: Iterable[Taint], tolerations: Sequence[Toleration], now: float,
                  scheduled: Scheduled | None) -> Scheduled | None:
    """``processPodOnNode``: the pod's eviction work, ``(created, fire_at)``, given the one already
    ``scheduled`` (or None: cancel it / schedule nothing). The clock starts when the controller
    observes the taint, not at the taint's ``timeAdded``; while some work is scheduled its start
    stays, and the work is kept as is when its start plus the new minimum is before ``now`` plus
    it (so a longer toleration does not postpone it)."""
    no_execute = [t for t in taints if t.effect == "NoExecute"]
    if not no_execute:
        return None
    used = matching_tolerations(no_execute, tolerations)
    if used is None:
        return (now, now)  # not all tolerated: at once
    minimum = min_toleration_seconds(used)
    if minimum is None:
        return None  # tolerated forever
    if scheduled is None:
        return (now, now + minimum)
    if scheduled[0] + minimum < now + minimum:
        return scheduled
    return (scheduled[0], now + minimum)
