"""Cases of upstream's scheduling-queue tests, ported one by one: ``pkg/scheduler/backend/queue/
scheduling_queue_test.go`` (stored commit 00cd67b, the 1.36/1.37 layout with ``WasFlushedFromUnschedulable``)
and ``backoff_queue_test.go`` (stored commit 01f26ed), through kbatch's :class:`SchedulingQueue` with
PrioritySort (upstream ``queuesort/priority_sort.go``: priority, then ``QueuedPodInfo.Timestamp``).

Upstream's fake clock is kbatch's ``now`` argument. ``AddUnschedulableIfNotPresent`` after a ``Pop``
is :meth:`SchedulingQueue.unschedulable` with the rejecting plugins; ``MoveAllToActiveOrBackoffQueue``
with ``EventUnschedulableTimeout`` is :meth:`SchedulingQueue.move_all`.

Not translated: the nominator (``TestPriorityQueue_Add``'s nominated-pods map: kbatch keeps nominations
in the snapshot), metrics (``TestPendingPodsMetric``, ``TestIncomingPodsMetrics``), ``Close``, the
in-flight-events bookkeeping internals (``Test_InFlightPods`` asserts upstream's private lists; kbatch's
in-flight behaviour is covered by test_queueing_hints*.py), and cases that insert pods with chosen
``Timestamp``s straight into upstream's internal heaps (``addPodActiveQDirectly``, ``addPodBackoffQ``);
``TestBackoffQueueOrdering`` observes the order in which upstream's back-off heap hands completed pods
over, which kbatch's flush does not expose (they enter the active queue, ordered by PrioritySort; the
early-pop order is tested in test_pop_from_backoff.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler.events import ASSIGNED_POD_DELETE, UNSCHEDULABLE_TIMEOUT
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import (
    INITIAL_BACKOFF,
    MAX_BACKOFF,
    MAX_UNSCHEDULABLE_SECONDS,
    SchedulingQueue,
    backoff_duration,
)

from .sched_builders import pod

LOW, MID, HIGH = 0, 100, 1000  # upstream lowPriority, midPriority, highPriority


def _queue(**kw: Any) -> SchedulingQueue:
    return SchedulingQueue(PrioritySort().sort_key, **kw)


def _fail(q: SchedulingQueue, p: Any, now: float, plugin: str = "plugin") -> None:
    """upstream: ``Pop`` the pod, then ``AddUnschedulableIfNotPresent`` with ``plugin`` rejecting it."""
    assert q.pop(now) is p
    q.unschedulable(p, now, (plugin,))


# -- TestPriorityQueue_Add / _AddWithReversePriorityLessFunc --------------------------------------
def test_priority_queue_add_pops_by_priority() -> None:
    q = _queue()
    med, unsched = pod("mpp", priority=(LOW + HIGH) // 2), pod("up", priority=LOW)
    high = pod("hpp", priority=HIGH)
    for p in (med, unsched, high):
        q.add(p, 0.0)
    assert [q.pop(0.0), q.pop(0.0), q.pop(0.0)] == [high, med, unsched]


# -- TestBackOffFlow ------------------------------------------------------------------------------
def test_backoff_flow() -> None:
    """1 s, 2 s, 4 s, 8 s, then 10 s (the cap) for every further attempt; the pod leaves back-off
    exactly at its expiry (the gate off: no one-second windows)."""
    q = _queue()
    p = pod("test-pod")
    q.add(p, 0.0)
    now = 0.0
    for step, want in enumerate([1, 2, 4, 8, 10, 10, 10]):
        assert q.pop(now) is p
        assert q.entry(p.key).attempts == step  # type: ignore[union-attr]
        q.unschedulable(p, now, ("plugin",))
        q.move_all(now)  # an event: the pod goes to back-off, not yet active
        assert q.where(p.key) == "backoff"
        q.flush(now + want - 0.001)
        assert q.where(p.key) == "backoff"
        now += want
        q.flush(now)
        assert q.where(p.key) == "active"


# -- TestBackoffQueue_calculateBackoffDuration ----------------------------------------------------
@pytest.mark.parametrize(("initial", "maximum", "attempts", "want"), [
    (1, 32, 0, 0),  # "no backoff"
    (1, 32, 16, 32),  # "normal"
    (1, 2**31 - 1, 32, 2**31 - 1),  # "overflow_32bit"
    (1, 2**63 - 1, 64, 2**63 - 1),  # "overflow_64bit"
])
def test_backoff_queue_calculate_backoff_duration(initial: int, maximum: int, attempts: int,
                                                  want: int) -> None:
    assert backoff_duration(attempts, initial, maximum) == want


def test_the_default_backoff_bounds_are_upstreams() -> None:
    """``DefaultPodInitialBackoffDuration`` 1 s, ``DefaultPodMaxBackoffDuration`` 10 s,
    ``DefaultPodMaxInUnschedulablePodsDuration`` 5 min."""
    assert (INITIAL_BACKOFF, MAX_BACKOFF, MAX_UNSCHEDULABLE_SECONDS) == (1.0, 10.0, 300.0)


# -- TestRecentlyTriedPodsGoBack ------------------------------------------------------------------
def test_recently_tried_pods_go_back() -> None:
    """A pod that failed goes behind the other pods of its priority: the queue orders by the time a
    pod was (re)queued, which a failure refreshes, not by its creation."""
    q = _queue()
    pods = [pod(f"test-pod-{i}", priority=HIGH) for i in range(5)]
    for p in pods:
        q.add(p, 0.0)
    now = 0.000001
    first = q.pop(now)
    assert first is pods[0]
    q.unschedulable(first, now, ("plugin",))
    now += MAX_BACKOFF
    q.move_all(now)
    popped = [q.pop(now) for _ in range(5)]
    assert popped[-1] is first and popped[:4] == pods[1:]


# -- TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod -------------------------------------
def test_pod_failed_scheduling_multiple_times_does_not_block_newer_pod() -> None:
    q = _queue()
    unschedulable = pod("test-pod-unscheduled", priority=HIGH)
    q.add(unschedulable, 0.0)
    _fail(q, unschedulable, 0.0)
    now = INITIAL_BACKOFF + 1
    q.move_all(now)
    assert q.pop(now) is unschedulable
    newer = pod("test-newer-pod", priority=HIGH)
    q.add(newer, now)  # added while the older pod is in flight ...
    now += 0.001  # (upstream's cycle takes real time; kbatch's none: at one instant arrival decides)
    q.unschedulable(unschedulable, now, ("plugin",))  # ... which then fails again
    now += INITIAL_BACKOFF + 1
    q.move_all(now)
    assert q.pop(now) is newer  # the newer pod was queued before the older one's last failure


# -- TestHighPriorityBackoff ----------------------------------------------------------------------
def test_high_priority_backoff() -> None:
    q = _queue()
    mid, high = pod("test-midpod", priority=MID), pod("test-highpod", priority=HIGH)
    q.add(mid, 0.0)
    q.add(high, 0.0)
    _fail(q, high, 0.0, "fooPlugin")
    q.move_all(0.0)  # the high-priority pod backs off ...
    assert q.where(high.key) == "backoff"
    assert q.pop(0.0) is mid  # ... and does not block the other one


# -- TestHighPriorityFlushUnschedulablePodsLeftover -----------------------------------------------
def test_high_priority_flush_unschedulable_pods_leftover() -> None:
    q = _queue(hints=None)
    mid, high = pod("test-midpod", priority=MID), pod("test-highpod", priority=HIGH)
    q.add(high, 0.0)
    _fail(q, high, 0.0, "fakePlugin")
    q.add(mid, 0.0)
    _fail(q, mid, 0.0, "fakePlugin")
    q.flush(MAX_UNSCHEDULABLE_SECONDS + 1)
    assert [q.pop(MAX_UNSCHEDULABLE_SECONDS + 1), q.pop(MAX_UNSCHEDULABLE_SECONDS + 1)] == [high, mid]


def test_unschedulable_pods_stay_until_the_five_minutes_are_over() -> None:
    """``flushUnschedulablePodsLeftover`` moves a pod that waited longer than
    ``podMaxInUnschedulablePodsDuration``, no sooner."""
    q = _queue()
    p = pod("p")
    q.add(p, 0.0)
    _fail(q, p, 0.0)
    q.flush(MAX_UNSCHEDULABLE_SECONDS - 0.001)
    assert q.where(p.key) == "unschedulable"
    q.flush(MAX_UNSCHEDULABLE_SECONDS)
    assert q.where(p.key) == "active"


# -- TestPriorityQueue_initPodMaxInUnschedulablePodsDuration --------------------------------------
@pytest.mark.parametrize("duration", [None, 30.0], ids=["default value", "user-defined value"])
def test_init_pod_max_in_unschedulable_pods_duration(duration: float | None) -> None:
    """pInfo1 failed at t-1 s, pInfo2 at t-2 s; after the duration both are active, pInfo2 first
    (its timestamp is earlier)."""
    q = _queue() if duration is None else _queue(max_unschedulable=duration)
    wait = MAX_UNSCHEDULABLE_SECONDS if duration is None else duration
    pod1, pod2 = pod("test-pod-1"), pod("test-pod-2")
    q.add(pod1, 0.0)
    q.add(pod2, 0.0)
    assert q.pop(0.0) is pod1 and q.pop(0.0) is pod2
    q.unschedulable(pod1, 9.0, ("plugin",))
    q.unschedulable(pod2, 8.0, ("plugin",))
    q.flush(10.0 + wait)
    assert [q.pop(10.0 + wait), q.pop(10.0 + wait)] == [pod2, pod1]


# -- TestPodTimestamp ---------------------------------------------------------------------------
def test_pod_timestamp_unschedulable_pods_moved_to_active_are_sorted_by_timestamp() -> None:
    """"add two pod to unschedulablePods then move them to activeQ and sort them by the timestamp":
    pInfo2 (timestamp t+1 s) filed first, pInfo1 (t) second; activeQ gives pInfo1, pInfo2."""
    q = _queue()
    pod1, pod2 = pod("test-pod-1"), pod("test-pod-2")
    q.add(pod1, 0.0)
    q.add(pod2, 0.0)
    assert q.pop(0.0) is pod1 and q.pop(0.0) is pod2
    # upstream files them with preset timestamps, the later one first
    q.unschedulable(pod2, 1.0, ("plugin",))
    q.unschedulable(pod1, 0.0, ("plugin",))
    q.move_all(4.0)  # moveClockForward: 3 s later than the last failure
    assert [q.pop(4.0), q.pop(4.0)] == [pod1, pod2]


# -- TestBackoffQueue_popEachBackoffCompleted -----------------------------------------------------
@pytest.mark.parametrize("pop_from_backoff", [True, False])
def test_backoff_queue_pop_each_backoff_completed(pop_from_backoff: bool) -> None:
    """"Pods in both queues, some pods moved to activeQ": at 10 s, pod0 and pod2 (one attempt, failed
    at 8 s) have completed their back-off, pod1 and pod3 (failed at 9.5 s) have not; pod0 and pod1
    were rejected by a plugin, pod2 and pod3 by an error (the error back-off queue)."""
    q = _queue(pop_from_backoff=pop_from_backoff)
    pods = {name: pod(name) for name in ("pod0", "pod1", "pod2", "pod3")}
    for p in pods.values():
        q.add(p, 0.0)
    assert [q.pop(0.0) for _ in pods] == list(pods.values())
    for name, at in (("pod0", 8.0), ("pod2", 8.0), ("pod1", 9.5), ("pod3", 9.5)):
        if name in ("pod0", "pod1"):
            q.unschedulable(pods[name], at, ("plugin",))
            q.move(ASSIGNED_POD_DELETE, None, None, at)
        else:
            q.retry_after_error(pods[name], at)
        assert q.where(pods[name].key) == "backoff"
    q.flush(10.0)
    assert {n: q.where(p.key) for n, p in pods.items()} == {
        "pod0": "active", "pod1": "backoff", "pod2": "active", "pod3": "backoff"}


# -- TestPriorityQueue_AddUnschedulableIfNotPresent_Backoff ---------------------------------------
def test_add_unschedulable_if_not_present_backoff() -> None:
    """A move request while pods were in flight sends them to back-off when they fail, not to the
    unschedulable pool (they might have fitted after the event)."""
    q = _queue()
    pods = [pod(f"pod{i}", priority=i) for i in range(10)]
    for p in pods:
        q.add(p, 0.0)
    assert [q.pop(0.0) for _ in range(9)] == pods[:0:-1]  # all but the first, by priority
    q.move(UNSCHEDULABLE_TIMEOUT, None, None, 0.0)  # while they are in flight
    assert q.pop(0.0) is pods[0]
    for p in pods[1:]:
        q.unschedulable(p, 0.0, ("plugin",))
    assert all(q.where(p.key) == "backoff" for p in pods[1:])


def test_add_unschedulable_if_not_present_without_event_goes_to_the_unschedulable_pool() -> None:
    """TestPriorityQueue_AddUnschedulableIfNotPresent: no event during the attempt: the pool."""
    q = _queue()
    unsched, high = pod("up", priority=LOW), pod("hpp", priority=HIGH)
    q.add(unsched, 0.0)
    assert q.pop(0.0) is unsched
    q.add(high, 0.0)
    q.unschedulable(unsched, 0.0, ("plugin",))
    assert q.pop(0.0) is high
    assert q.where(unsched.key) == "unschedulable"


# -- TestPriorityQueue_Pop ------------------------------------------------------------------------
@pytest.mark.parametrize(("pop_from_backoff", "want"), [
    (True, ["mpp", "hpp"]),  # "Pop pods from both activeQ and backoffQ when PopFromBackoffQ is enabled"
    (False, ["mpp"]),  # "Pop pod only from activeQ when PopFromBackoffQ is disabled"
])
def test_priority_queue_pop(pop_from_backoff: bool, want: list[str]) -> None:
    """medium priority in activeQ; a high-priority pod a plugin rejected in backoffQ; another one an
    error sent to the error back-off queue; a pod in the unschedulable pool."""
    q = _queue(pop_from_backoff=pop_from_backoff)
    med, high, high2 = pod("mpp", priority=500), pod("hpp", priority=HIGH), pod("hpp2", priority=HIGH)
    unsched = pod("up", priority=LOW)
    for p in (high, high2, unsched):
        q.add(p, 0.0)
    assert [q.pop(0.0) for _ in range(3)] == [high, high2, unsched]
    q.unschedulable(high, 0.0, ("plugin",))
    q.retry_after_error(high2, 0.0)
    q.unschedulable(unsched, 0.0, ("plugin",))
    q.move_all(0.0, pre_check=lambda p: p is high)
    q.add(med, 0.0)
    got = []
    for _ in range(len(want) + 1):
        popped = q.pop(0.0)
        if popped is None:
            break
        got.append(popped.name)
    assert got == want


# -- TestPriorityQueue_Update (without queueing hints) --------------------------------------------
def test_update_pod_that_did_not_exist_in_the_queue_goes_to_active() -> None:
    q = _queue()
    p = pod("mpp")
    assert q.update(p, [], p, 0.0)
    assert q.where(p.key) == "active"


def test_updating_a_pod_in_active_keeps_it_there() -> None:
    q = _queue()
    p = pod("hpp", priority=HIGH)
    q.add(p, 0.0)
    q.update(p, [], p, 0.0)
    assert q.where(p.key) == "active"


@pytest.mark.parametrize(("now", "want"), [(0.5, "backoff"), (MAX_BACKOFF, "active")],
                         ids=["backoff timer not yet expired: backoffQ", "expired: activeQ"])
def test_updating_a_pod_in_the_unschedulable_pool_moves_it_by_its_backoff(now: float, want: str) -> None:
    q = _queue()
    p = pod("mpp")
    q.add(p, 0.0)
    _fail(q, p, 0.0, "queuePlugin")
    q.update(p, [], p, now)
    assert q.where(p.key) == want
