"""What a Workload's change means for Kueue's counters: a pure decision on the old and new versions.

Upstream reports at the write that makes the change: ``recordQuotaReservationMetrics`` and
``recordWorkloadAdmissionEvents`` (kueue ``pkg/scheduler/scheduler.go``), the workload controller
when the last admission check lets a reserved workload in (``pkg/controller/core/
workload_controller.go``), ``reportEvictedWorkload`` (``pkg/workload/evict/evict.go``), v0.19.2. kbatch
reads the same facts off the informer's update, whichever component wrote it:

* ``QuotaReserved`` turned true: a quota reservation in the admission's ClusterQueue, its wait the
  time since the workload was queued (``QueuedWaitTime``: the ``Requeued`` condition's last
  transition, else the creation);
* ``Admitted`` turned true: an admission, with the same wait;
* ``Evicted`` turned true on a workload with an admission: an eviction, by the condition's reason; a
  deactivation's reason carries its cause (``ReasonWithCause``: ``DeactivatedDueTo<cause>``), split
  back into ``reason`` and ``underlying_cause``.

Each is labelled with ``spec.priorityClassRef.name`` (``PriorityClassName``: ``""`` when unset).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue.model.info import condition, is_true

__all__ = ["Transition", "queued_wait", "transitions"]

_DEACTIVATED_DUE_TO = "DeactivatedDueTo"


@dataclass(frozen=True, slots=True)
class Transition:
    """One counted change: ``kind`` is ``quota_reserved``, ``admitted`` or ``evicted``."""

    kind: str
    cluster_queue: str
    namespace: str
    local_queue: str
    priority_class: str
    wait: float = 0.0
    reason: str = ""
    underlying_cause: str = ""


def queued_wait(wl: Workload, now: datetime) -> float:
    """``QueuedWaitTime`` in seconds."""
    requeued = condition(wl, Cond.REQUEUED)
    since = requeued.last_transition_time if requeued is not None else wl.metadata.creation_timestamp
    return (now - since).total_seconds() if since is not None else 0.0


def _turned(old: Workload | None, new: Workload, kind: str) -> bool:
    return is_true(new, kind) and (old is None or not is_true(old, kind))


def _split(reason: str) -> tuple[str, str]:
    if reason.startswith(_DEACTIVATED_DUE_TO):
        return "Deactivated", reason[len(_DEACTIVATED_DUE_TO):]
    return reason, ""


def transitions(old: Workload | None, new: Workload, now: datetime) -> list[Transition]:
    """The counted changes from ``old`` to ``new``; a workload first seen (``old`` ``None``: an informer's
    initial list after a restart) changed nothing now."""
    if old is None or new.status is None:
        return []
    admission = new.status.admission or (old.status.admission if old is not None and old.status else None)
    if admission is None:
        return []
    spec = new.spec
    ref = spec.priority_class_ref if spec is not None else None
    queue = (spec.queue_name if spec is not None else None) or ""
    base = (admission.cluster_queue or "", new.metadata.namespace or "", queue,
            (ref.name if ref is not None else None) or "")
    out = []
    if _turned(old, new, Cond.QUOTA_RESERVED):
        out.append(Transition("quota_reserved", *base, wait=queued_wait(new, now)))
    if _turned(old, new, Cond.ADMITTED):
        out.append(Transition("admitted", *base, wait=queued_wait(new, now)))
    if _turned(old, new, Cond.EVICTED):
        reason, cause = _split(condition(new, Cond.EVICTED).reason or "")
        out.append(Transition("evicted", *base, reason=reason, underlying_cause=cause))
    return out
