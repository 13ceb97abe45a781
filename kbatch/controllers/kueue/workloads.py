"""A Workload's status transitions, as pure functions on a private copy of its status.

Upstream: kubernetes-sigs/kueue ``pkg/workload/{workload,admissionchecks}.go``,
``pkg/workload/evict/evict.go``, ``pkg/workload/finish/finish.go`` (v0.19.2). Each function changes
``status`` (a :class:`~kbatch.api.kueue_v1beta2.WorkloadStatus` the caller copied) and says whether
anything changed, as ``apimeta.SetStatusCondition`` does: a condition's ``lastTransitionTime`` moves
only when its status changes; reason, message and ``observedGeneration`` are always set.

With ``UnadmittedWorkloadsObservability`` off (its v0.19.2 default) the legacy reasons apply: an
unadmitted workload has no ``Admitted`` condition until its first admission, and ``Admitted=False``
then reads ``NoReservation``/"The workload has no reservation".
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from kbatch.api.kueue_v1beta2 import Admission, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond, Reason
from kbatch.api.meta import Condition

__all__ = [
    "MAX_CONDITION_MESSAGE",
    "MAX_EVENT_MESSAGE",
    "check_requeue_at",
    "find",
    "finish",
    "has",
    "prepare_eviction",
    "reason_with_cause",
    "set_condition",
    "set_deactivation_target",
    "set_preempted",
    "set_quota_reservation",
    "set_requeue_state",
    "set_requeued",
    "sync_admitted",
    "topology_assignments_pending",
    "truncate",
    "unset_quota_reservation",
    "update_requeue_state",
]

MAX_EVENT_MESSAGE = 1024
DELAYED_PENDING, DELAYED_READY = "Pending", "Ready"  # ``DelayedTopologyRequestState``
MAX_CONDITION_MESSAGE = 32 * 1024


def truncate(message: str, limit: int = MAX_CONDITION_MESSAGE) -> str:
    """``api.TruncateConditionMessage`` / ``TruncateEventMessage``."""
    if len(message) <= limit:
        return message
    return message[: limit - 4] + " ..."


def reason_with_cause(reason: str, cause: str) -> str:
    return f"{reason}DueTo{cause}"


def find(status: WorkloadStatus | None, kind: str) -> Condition | None:
    for c in (status.conditions if status else None) or ():
        if c.type == kind:
            return c
    return None


def has(status: WorkloadStatus | None, kind: str) -> bool:
    c = find(status, kind)
    return c is not None and c.status == "True"


def set_condition(
    status: WorkloadStatus,
    kind: str,
    value: bool | str,
    reason: str,
    message: str,
    generation: int | None,
    now: datetime,
    ltt: datetime | None = None,
) -> bool:
    """``apimeta.SetStatusCondition``."""
    text = value if isinstance(value, str) else ("True" if value else "False")
    conditions = status.conditions if status.conditions is not None else []
    for c in conditions:
        if c.type != kind:
            continue
        changed = False
        if c.status != text:
            c.status, c.last_transition_time = text, ltt or now
            changed = True
        if (c.reason, c.message, c.observed_generation) != (reason, message, generation):
            c.reason, c.message, c.observed_generation = reason, message, generation
            changed = True
        status.conditions = conditions
        return changed
    conditions.append(
        Condition(
            type=kind,
            status=text,
            reason=reason,
            message=message,
            observed_generation=generation,
            last_transition_time=ltt or now,
        )
    )
    status.conditions = conditions
    return True


def remove_condition(status: WorkloadStatus, kind: str) -> bool:
    before = len(status.conditions or ())
    status.conditions = [c for c in status.conditions or () if c.type != kind] or None
    return len(status.conditions or ()) != before


def _all_checks_ready(status: WorkloadStatus) -> bool:
    return all(c.state == "Ready" for c in status.admission_checks or ())


def topology_assignments_pending(status: WorkloadStatus | None) -> bool:
    """``HasTopologyAssignmentsPending`` (pkg/workload/workload.go): a pod set admitted without a
    topology assignment whose ``delayedTopologyRequest`` is ``Pending`` (TAS behind a
    ProvisioningRequest check: the topology comes after the checks, :mod:`.tas.delayed`)."""
    admission = status.admission if status is not None else None
    return any(
        psa.topology_assignment is None and psa.delayed_topology_request == DELAYED_PENDING
        for psa in (admission.pod_set_assignments if admission is not None else None) or ()
    )


def sync_admitted(
    status: WorkloadStatus,
    generation: int | None,
    now: datetime,
    observability: bool = False,
    explicit: bool = False,
) -> bool:
    """``SyncAdmittedCondition``; accumulates the admitted time when admission ends."""
    reserved = has(status, Cond.QUOTA_RESERVED)
    ready = _all_checks_ready(status)
    admitted_cond = find(status, Cond.ADMITTED)
    admitted = admitted_cond is not None and admitted_cond.status == "True"
    if observability:
        if find(status, Cond.QUOTA_RESERVED) is None and admitted_cond is None and not explicit:
            return False
    elif admitted == (reserved and ready and not topology_assignments_pending(status)):
        return False
    value, reason, message = True, Reason.ADMITTED, "The workload is admitted"
    if not reserved and not ready:
        value = False
        reason, message = (
            (Reason.NO_RESERVATION, "The workload has no reservation")
            if observability
            else (
                Reason.NO_RESERVATION_UNSATISFIED_CHECKS,
                "The workload has no reservation and not all checks ready",
            )
        )
    elif not reserved:
        value, reason, message = False, Reason.NO_RESERVATION, "The workload has no reservation"
    elif not ready:
        value = False
        reason = Reason.UNSATISFIED_ADMISSION_CHECKS if observability else Reason.UNSATISFIED_CHECKS
        message = "The workload has not all checks ready"
    elif topology_assignments_pending(status):
        value, reason = False, Reason.PENDING_DELAYED_TOPOLOGY_REQUESTS
        message = "There are pending delayed topology requests"
    if (
        admitted
        and not value
        and admitted_cond is not None
        and admitted_cond.last_transition_time is not None
    ):
        elapsed = int((now - admitted_cond.last_transition_time).total_seconds())
        status.accumulated_past_execution_time_seconds = (
            status.accumulated_past_execution_time_seconds or 0
        ) + elapsed
    return set_condition(status, Cond.ADMITTED, value, reason, message, generation, now)


def _reset_active(
    status: WorkloadStatus, kind: str, reason: str, generation: int | None, now: datetime
) -> bool:
    prev = find(status, kind)
    if prev is None or prev.status != "True":
        return False
    return set_condition(
        status, kind, False, reason, truncate("Previously: " + (prev.message or "")), generation, now
    )


def set_quota_reservation(
    status: WorkloadStatus, admission: Admission, generation: int | None, now: datetime
) -> bool:
    """``SetQuotaReservation``."""
    status.admission = admission
    changed = set_condition(
        status,
        Cond.QUOTA_RESERVED,
        True,
        Reason.QUOTA_RESERVED,
        truncate(f"Quota reserved in ClusterQueue {admission.cluster_queue}"),
        generation,
        now,
    )
    for kind in (Cond.EVICTED, Cond.PREEMPTED, Cond.BLOCKED_ON_PREEMPTION_GATES):
        changed = _reset_active(status, kind, Reason.QUOTA_RESERVED, generation, now) or changed
    return changed


def unset_quota_reservation(
    status: WorkloadStatus,
    reason: str,
    message: str,
    generation: int | None,
    now: datetime,
    observability: bool = False,
    explicit: bool = False,
) -> bool:
    """``UnsetQuotaReservationWithCondition``."""
    changed = set_condition(status, Cond.QUOTA_RESERVED, False, reason, truncate(message), generation, now)
    if status.admission is not None:
        status.admission = None
        changed = True
    return sync_admitted(status, generation, now, observability, explicit) or changed


def set_requeued(
    status: WorkloadStatus, reason: str, message: str, value: bool, generation: int | None, now: datetime
) -> bool:
    return set_condition(status, Cond.REQUEUED, value, reason, truncate(message), generation, now)


def set_preempted(status: WorkloadStatus, reason: str, message: str, now: datetime) -> bool:
    """``SetPreemptedCondition`` (no observedGeneration, as upstream)."""
    return set_condition(status, Cond.PREEMPTED, True, reason, truncate(message), None, now)


def set_deactivation_target(
    status: WorkloadStatus, reason: str, message: str, generation: int | None, now: datetime
) -> bool:
    return set_condition(status, Cond.DEACTIVATION_TARGET, True, reason, message, generation, now)


def prepare_eviction(
    status: WorkloadStatus,
    reason: str,
    message: str,
    generation: int | None,
    now: datetime,
    stats_reason: str,
    underlying_cause: str = "",
) -> None:
    """``prepareForEviction`` and ``workloadEvictionStateInc``: the Evicted condition, admission checks
    reset to Pending, cluster nomination and unhealthy nodes cleared, ``BlockedOnPreemptionGates``
    turned False and every preemption gate closed again, and the eviction counted in
    ``schedulingStats``."""
    from kbatch.controllers.kueue import preemption_gates as gates

    set_condition(status, Cond.EVICTED, True, reason, truncate(message), generation, now)
    status.cluster_name = None
    status.nominated_cluster_names = None
    status.unhealthy_nodes = None  # ``resetUnhealthyNodes``
    for check in status.admission_checks or ():
        if check.state == "Pending":
            continue
        retry = (check.retry_count or 0) + 1 if check.state == "Retry" else None
        check.message = "Reset to Pending after eviction. Previously: " + (check.state or "")
        check.state, check.last_transition_time, check.retry_count = "Pending", now, retry
        check.pod_set_updates = None
    gates.unset_blocked(status, reason, message, generation, now)
    gates.close_all(status, now)
    _count_eviction(status, stats_reason, underlying_cause)


def _count_eviction(status: WorkloadStatus, reason: str, cause: str) -> None:
    from kbatch.api.kueue_v1beta2 import SchedulingStats, WorkloadSchedulingStatsEviction

    stats = status.scheduling_stats or SchedulingStats()
    evictions = list(stats.evictions or ())
    for e in evictions:
        if (e.reason or "") == reason and (e.underlying_cause or "") == cause:
            e.count = (e.count or 0) + 1
            break
    else:
        evictions.append(
            WorkloadSchedulingStatsEviction(reason=reason, underlying_cause=cause, count=1)
        )
    stats.evictions = evictions
    status.scheduling_stats = stats


def set_requeue_state(status: WorkloadStatus, until: datetime, increment: bool) -> bool:
    """``SetRequeueState``: never moves ``requeueAt`` earlier."""
    from kbatch.api.kueue_v1beta2 import RequeueState

    state = status.requeue_state or RequeueState()
    changed = False
    until = until.replace(microsecond=0)  # metav1.Time is serialized with second precision
    if state.requeue_at is None or state.requeue_at < until:
        state.requeue_at = until
        changed = True
    if increment:
        state.count = (state.count or 0) + 1
        changed = True
    status.requeue_state = state
    return changed


def check_requeue_at(status: WorkloadStatus | None, now: datetime) -> datetime | None:
    """``NeedsRequeueAtUpdate`` (``pkg/workload/admissionchecks.go``): the latest retry time of the
    checks in Retry (``lastTransitionTime + requeueAfterSeconds``) when it is still ahead and later
    than ``requeueState.requeueAt``; None otherwise."""
    latest: datetime | None = None
    for check in (status.admission_checks if status else None) or ():
        if check.state != "Retry" or check.requeue_after_seconds is None:
            continue
        if check.last_transition_time is None:
            continue
        at = check.last_transition_time + timedelta(seconds=check.requeue_after_seconds)
        latest = at if latest is None or at > latest else latest
    if latest is None or latest <= now:
        return None
    current = status.requeue_state.requeue_at if status and status.requeue_state else None
    return latest if current is None or current < latest else None


def update_requeue_state(
    status: WorkloadStatus, base_seconds: int, max_seconds: int, now: datetime, rng: random.Random
) -> None:
    """``UpdateRequeueState``: the n-th requeue waits ``base * 2^(n-1)`` seconds (capped at ``max``)
    plus a jitter of up to 0.01% (apimachinery ``wait.Backoff``, factor 2, jitter 0.0001)."""
    count = ((status.requeue_state.count if status.requeue_state else None) or 0) + 1
    wait = _backoff_wait(base_seconds, max_seconds, count, rng)
    set_requeue_state(status, now + timedelta(seconds=wait), True)


def _backoff_wait(base: int, cap: int, steps: int, rng: random.Random) -> float:
    """The ``steps``-th ``Backoff.Step`` (kueue ``pkg/util/wait`` ``WaitTime``): ``Step`` returns
    the current duration and caps only the next one, so the first step is ``base`` even above
    ``cap``, the later ones ``min(base * 2^(steps-1), cap)``; with its jitter."""
    duration = float(base) * 2 ** max(0, steps - 1)
    if cap and steps > 1:
        duration = min(duration, float(cap))
    return duration + rng.random() * 0.0001 * duration


def finish(status: WorkloadStatus, reason: str, message: str, generation: int | None, now: datetime) -> bool:
    """``finish.Finish``'s condition."""
    if has(status, Cond.FINISHED):
        return False
    return set_condition(status, Cond.FINISHED, True, reason, truncate(message), generation, now)


def status_of(wl: Any) -> WorkloadStatus:
    """A private copy of ``wl``'s status (an empty one when it has none)."""
    from kbatch.api import edit

    return edit(wl.status) if wl.status is not None else WorkloadStatus()
