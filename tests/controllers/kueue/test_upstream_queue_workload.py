"""Upstream's ``pkg/workload/workload_test.go`` cases that decide queue order and requeueing
(kubernetes-sigs/kueue v0.19.2): ``TestGetQueueOrderTimestamp``, ``TestSetRequeueState``, and
``UpdateRequeueState``'s back-off (``pkg/util/wait/backoff.go`` ``WaitTime`` over apimachinery's
``wait.Backoff.Step``), against :mod:`kbatch.controllers.kueue.model.info` and
:mod:`kbatch.controllers.kueue.workloads`. Case ids are upstream's names.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from kbatch.api.kueue_v1beta2 import RequeueState, WorkloadStatus
from kbatch.controllers.kueue.workloads import set_requeue_state, update_requeue_state

from .upstream_queue import NOW, cond, info, make_wl

HOUR = timedelta(hours=1)

ORDER = {
    "no condition": ([], NOW, NOW),
    "evicted by preemption": ([cond("Evicted", "True", "Preempted", NOW + HOUR)], NOW, NOW),
    "evicted by PodsReady timeout": (
        [cond("Evicted", "True", "PodsReadyTimeout", NOW + HOUR)], NOW + HOUR, NOW),
    "after eviction": ([cond("Evicted", "False", "PodsReadyTimeout", NOW + HOUR)], NOW, NOW),
}


@pytest.mark.parametrize("case", list(ORDER))
def test_get_queue_order_timestamp(case: str) -> None:
    """``TestGetQueueOrderTimestamp``: per requeuing timestamp (Eviction, Creation)."""
    conds, want_eviction, want_creation = ORDER[case]
    wl = make_wl("name", "ns", created=NOW, conditions=conds)
    assert info(wl, "Eviction").queue_order_time == want_eviction
    assert info(wl, "Creation").queue_order_time == want_creation


BASE = datetime(2024, 1, 1, 12, 0, 0, tzinfo=UTC)
FUTURE, LATER, PAST = BASE + timedelta(minutes=5), BASE + timedelta(minutes=10), BASE - timedelta(minutes=5)
ZERO = datetime(1, 1, 1, tzinfo=UTC)

# name: (requeue state (at, count) or None, increment, want updated, want at, want count)
SET_REQUEUE = {
    "should initialize and set time when requeue state is nil without increment": (
        None, False, True, FUTURE, None),
    "should initialize and set time and count when requeue state is nil with increment": (
        None, True, True, FUTURE, 1),
    "should update time when existing requeue time is earlier": ((PAST, 2), False, True, FUTURE, 2),
    "should not update time when existing requeue time is later": ((LATER, 3), False, False, LATER, 3),
    "should increment count but keep later requeue time": ((LATER, 3), True, True, LATER, 4),
    "should increment count when requeue time is same": ((FUTURE, 1), True, True, FUTURE, 2),
    "should increment from zero count": ((PAST, 0), True, True, FUTURE, 1),
    "should handle zero time in requeue state": ((ZERO, 0), True, True, FUTURE, 1),
}


@pytest.mark.parametrize("case", list(SET_REQUEUE))
def test_set_requeue_state(case: str) -> None:
    """``TestSetRequeueState``: ``requeueAt`` never moves earlier; the count increments on demand."""
    state, increment, want_updated, want_at, want_count = SET_REQUEUE[case]
    status = WorkloadStatus()
    if state is not None:
        status.requeue_state = RequeueState(requeue_at=state[0], count=state[1])
    assert set_requeue_state(status, FUTURE, increment) is want_updated
    assert status.requeue_state is not None
    assert status.requeue_state.requeue_at == want_at
    assert status.requeue_state.count == want_count


# (backoffBaseSeconds, backoffMaxSeconds, requeuing count before) -> the wait before jitter
BACKOFF = [
    (60, 3600, 0, 60),
    (60, 3600, 1, 120),
    (60, 3600, 5, 1920),
    (60, 3600, 6, 3600),
    (60, 3600, 20, 3600),
    (10, 25, 1, 20),
    (10, 25, 2, 25),
    # the first step returns the initial duration; only the next ones are capped
    (120, 60, 0, 120),
    (120, 60, 1, 60),
]


@pytest.mark.parametrize("base, cap, count, want", BACKOFF)
def test_update_requeue_state_backoff(base: int, cap: int, count: int, want: int) -> None:
    """``UpdateRequeueState``: the n-th requeue waits ``wait.NewBackoff(base, max, 2, 0.0001)
    .WaitTime(n)``; apimachinery's ``Step`` returns the current duration and caps the next one, so
    the n-th wait is ``min(base * 2^(n-1), max)`` from the second step on, and ``base`` (even above
    ``max``) at the first."""
    status = WorkloadStatus(requeue_state=RequeueState(count=count) if count else None)
    update_requeue_state(status, base, cap, BASE, random.Random(0))
    assert status.requeue_state is not None and status.requeue_state.count == count + 1
    wait = (status.requeue_state.requeue_at - BASE).total_seconds()
    assert want <= wait <= want * 1.0001 + 1


ON_HOLD = {
    "false without QuotaReserved condition": ([], False),
    "true with QuotaReserved=False and reason OnHold": (
        [cond("QuotaReserved", "False", "OnHold", message="StatefulSet scaled to zero; workload on hold")],
        True),
    "false when QuotaReserved=False with other reason": ([cond("QuotaReserved", "False", "Inadmissible")],
                                                          False),
    "false when QuotaReserved=True": ([cond("QuotaReserved", "True", "OnHold")], False),
}


@pytest.mark.parametrize("case", list(ON_HOLD))
def test_is_on_hold(case: str) -> None:
    """``TestIsOnHold``, seen through ``IsAdmissible`` (kbatch's :func:`admissible`): a workload on
    hold is not queued; one holding quota is not queued either, on hold or not."""
    from kbatch.controllers.kueue.queues import admissible

    conds, on_hold = ON_HOLD[case]
    reserved = any(c["type"] == "QuotaReserved" and c["status"] == "True" for c in conds)
    assert admissible(make_wl("wl", "ns", conditions=conds)) is (not on_hold and not reserved)
