"""What a Workload's change means for Kueue's counters and histograms: a pure decision on the old and
new versions.

Upstream reports at the write that makes the change (kueue v0.19.2): ``recordQuotaReservationMetrics``
and ``recordWorkloadAdmissionEvents`` (``pkg/scheduler/scheduler.go``), the workload controller when the
last admission check lets a reserved workload in and when a workload finishes or returns to pending
(``pkg/controller/core/workload_controller.go``: ``reportFinishedWorkload``,
``EvictionPendingLatency``), the job reconciler when PodsReady turns true (``pkg/controller/
jobframework/reconciler.go``), ``reportEvictedWorkload`` and ``ReportEvictedWorkloadsOnce``
(``pkg/workload/evict/evict.go``), ``replaceWorkloadSlice``. kbatch reads the same facts off the
informer's update, whichever component wrote it:

* ``QuotaReserved`` turned true: a quota reservation in the admission's ClusterQueue, its wait the
  time since the workload was queued (``QueuedWaitTime``: the ``Requeued`` condition's last
  transition, else the creation);
* ``Admitted`` turned true: an admission, with the same wait, and the admission checks' wait: the time
  since ``QuotaReserved`` turned true (0 when both turn true in one write, as the scheduler reports);
* ``PodsReady`` turned true with reason ``Started`` (a first start, not a recovery): the wait since
  queued and the time from ``Admitted`` to ready;
* ``Evicted`` turned true on a workload with an admission: an eviction, by the condition's reason; a
  deactivation's reason carries its cause (``ReasonWithCause``: ``DeactivatedDueTo<cause>``), split
  back into ``reason`` and ``underlying_cause``; the first of that reason and cause in the
  workload's ``schedulingStats.evictions`` (its count was 0) is also a unique eviction; with
  ``PodsReady`` true, the time from ready to evicted;
* the workload went from holding quota to pending while ``Evicted`` is true: the eviction latency, from
  the condition's last transition, in the old admission's ClusterQueue, by the condition's reason;
* ``Finished`` turned true: a finished workload (ClusterQueue ``""`` without an admission), and, with
  reason ``WorkloadSliceReplaced``, a replaced slice.

Each is labelled with ``spec.priorityClassRef.name`` (``PriorityClassName``: ``""`` when unset).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond, Reason

__all__ = ["Transition", "queued_wait", "transitions"]

_DEACTIVATED_DUE_TO = "DeactivatedDueTo"
_HOLDING = (Cond.QUOTA_RESERVED, Cond.ADMITTED)


@dataclass(frozen=True, slots=True)
class Transition:
    """One counted change. ``kind`` is ``quota_reserved``, ``admitted``, ``ready``, ``evicted``,
    ``eviction_latency`` or ``finished``; ``wait`` is the queued wait (or the eviction latency),
    ``since`` the kind's second duration (admission checks, admitted until ready, ready until evicted;
    ``None`` when there is none), ``first`` a unique eviction or a replaced slice."""

    kind: str
    cluster_queue: str
    namespace: str
    local_queue: str
    priority_class: str
    wait: float = 0.0
    since: float | None = None
    reason: str = ""
    underlying_cause: str = ""
    first: bool = False


def _conditions(wl: Workload) -> dict[str, Any]:
    """The workload's conditions by type (one pass)."""
    return {c.type: c for c in (wl.status.conditions if wl.status else None) or ()}


def _true(conds: dict[str, Any], kind: str) -> bool:
    c = conds.get(kind)
    return c is not None and c.status == "True"


def _seconds(later: datetime | None, earlier: datetime | None) -> float:
    return (later - earlier).total_seconds() if later is not None and earlier is not None else 0.0


def queued_wait(wl: Workload, now: datetime, conds: dict[str, Any] | None = None) -> float:
    """``QueuedWaitTime`` in seconds."""
    requeued = (conds if conds is not None else _conditions(wl)).get(Cond.REQUEUED)
    since = requeued.last_transition_time if requeued is not None else wl.metadata.creation_timestamp
    return _seconds(now, since)


def _split(reason: str) -> tuple[str, str]:
    if reason.startswith(_DEACTIVATED_DUE_TO):
        return "Deactivated", reason[len(_DEACTIVATED_DUE_TO):]
    return reason, ""


def _eviction_count(wl: Workload, reason: str, cause: str) -> int:
    stats = wl.status.scheduling_stats if wl.status else None
    for e in (stats.evictions if stats is not None else None) or ():
        if (e.reason or "") == reason and (e.underlying_cause or "") == cause:
            return e.count or 0
    return 0


def transitions(old: Workload | None, new: Workload, now: datetime) -> list[Transition]:
    """The counted changes from ``old`` to ``new``; a workload first seen (``old`` ``None``: an informer's
    initial list after a restart) changed nothing now."""
    if old is None or new.status is None:
        return []
    was, wants = _conditions(old), _conditions(new)

    def turned(kind: str) -> bool:
        return _true(wants, kind) and not _true(was, kind)

    admission = new.status.admission or (old.status.admission if old.status else None)
    spec = new.spec
    ref = spec.priority_class_ref if spec is not None else None
    queue = (spec.queue_name if spec is not None else None) or ""
    base = ((admission.cluster_queue or "") if admission is not None else "", new.metadata.namespace or "",
            queue, (ref.name if ref is not None else None) or "")
    out = []
    if admission is not None:
        out.extend(_admission_changes(old, new, now, wants, turned, base))
    if Cond.EVICTED in wants:
        latency = _eviction_latency(old, now, was, wants, base)
        if latency is not None:
            out.append(latency)
    if turned(Cond.FINISHED):
        replaced = wants[Cond.FINISHED].reason == Reason.WORKLOAD_SLICE_REPLACED
        out.append(Transition("finished", *base, first=replaced))
    return out


def _admission_changes(old: Workload, new: Workload, now: datetime, wants: dict[str, Any],
                       turned: Callable[[str], bool], base: tuple[str, str, str, str]) -> list[Transition]:
    out = []
    if turned(Cond.QUOTA_RESERVED):
        out.append(Transition("quota_reserved", *base, wait=queued_wait(new, now, wants)))
    if turned(Cond.ADMITTED):
        checks = _seconds(now, wants[Cond.QUOTA_RESERVED].last_transition_time) \
            if Cond.QUOTA_RESERVED in wants else 0.0
        out.append(Transition("admitted", *base, wait=queued_wait(new, now, wants), since=checks))
    if turned(Cond.PODS_READY) and wants[Cond.PODS_READY].reason == Reason.STARTED:
        ready, admitted = wants[Cond.PODS_READY], wants.get(Cond.ADMITTED)
        since = _seconds(ready.last_transition_time, admitted.last_transition_time) \
            if admitted is not None else 0.0
        out.append(Transition("ready", *base, wait=queued_wait(new, now, wants), since=since))
    if turned(Cond.EVICTED):
        evicted = wants[Cond.EVICTED]
        reason, cause = _split(evicted.reason or "")
        first = _eviction_count(old, reason, cause) == 0 < _eviction_count(new, reason, cause)
        ready = wants.get(Cond.PODS_READY)
        to_evicted = _seconds(evicted.last_transition_time, ready.last_transition_time) \
            if ready is not None and ready.status == "True" else None
        out.append(Transition("evicted", *base, since=to_evicted, reason=reason, underlying_cause=cause,
                              first=first))
    return out


def _eviction_latency(old: Workload, now: datetime, was: dict[str, Any], wants: dict[str, Any],
                      base: tuple[str, str, str, str]) -> Transition | None:
    """``EvictionPendingLatency``: from holding quota (reserved or admitted, not finished) to pending
    (neither, not finished) with ``Evicted`` true, in the old admission's ClusterQueue."""
    def holds(conds: dict[str, Any]) -> bool:
        return not _true(conds, Cond.FINISHED) and any(_true(conds, k) for k in _HOLDING)

    if not _true(wants, Cond.EVICTED) or not holds(was) or holds(wants) or _true(wants, Cond.FINISHED):
        return None
    admission = old.status.admission if old.status else None
    cq = (admission.cluster_queue or "") if admission is not None else ""
    if not cq:
        return None
    evicted = wants[Cond.EVICTED]
    latency = max(0.0, _seconds(now, evicted.last_transition_time))
    return Transition("eviction_latency", cq, *base[1:], wait=latency, reason=evicted.reason or "")
