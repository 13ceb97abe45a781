"""SchedulerPopFromBackoffQ (KEP-5142, beta and on since 1.33; upstream ``backend/queue/
backoff_queue.go``, ``active_queue.go`` ``unlockedPop``): an idle scheduler pops the back-off queue's
head at once; back-off expiries fall in whole-second windows, ordered within a window as the active
queue; error back-off is never popped early. And the case that showed it was missing (issue 19's
note): two nodes freed at one instant take a waiting 2-pod Job's pods at that instant, not 2 s apart."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.controllers.scheduler.events import ASSIGNED_POD_DELETE
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.sim import NodeTemplate, create_nodes

from .sched_builders import pod


def _queue(pop_from_backoff: bool = True) -> SchedulingQueue:
    return SchedulingQueue(PrioritySort().sort_key, pop_from_backoff=pop_from_backoff)


def _failed(q: SchedulingQueue, p: Any, now: float, plugins: tuple[str, ...] = ("NodeResourcesFit",)) -> None:
    q.add(p, now)
    assert q.pop(now) is p
    q.unschedulable(p, now, plugins)


def test_an_idle_scheduler_pops_the_backoff_queue_early_but_not_the_error_one() -> None:
    q = _queue()
    unfit, errored = pod("unfit"), pod("errored")
    _failed(q, unfit, 10.3)
    q.add(errored, 10.3)
    assert q.pop(10.3) is errored
    q.retry_after_error(errored, 10.3)  # no rejecting plugin: the error back-off queue
    assert q.move(ASSIGNED_POD_DELETE, None, None, 10.4) == 1
    assert q.where(unfit.key) == "backoff" and q.where(errored.key) == "backoff"
    assert q.pop(10.4) is unfit  # the active queue is empty: the back-off queue's head
    assert q.pop(10.4) is None  # the error back-off waits for its window to end
    assert q.next_wakeup(10.4) == 12.0  # 10.3 + 1 s = 11.3, in the window [11, 12)
    assert q.pop(11.99) is None and q.pop(12.0) is errored


def test_without_the_gate_backoff_ends_at_its_exact_expiry_and_is_never_popped_early() -> None:
    q = _queue(pop_from_backoff=False)
    p = pod("p")
    _failed(q, p, 10.3)
    q.move(ASSIGNED_POD_DELETE, None, None, 10.4)
    assert q.pop(10.4) is None and q.next_wakeup(10.4) == pytest.approx(11.3)
    assert q.pop(11.3) is p


def test_active_pods_go_before_the_backoff_queue() -> None:
    q = _queue()
    waiting, fresh = pod("waiting"), pod("fresh")
    _failed(q, waiting, 1.0)
    q.move(ASSIGNED_POD_DELETE, None, None, 1.5)
    q.add(fresh, 1.5)
    assert [q.pop(1.5), q.pop(1.5), q.pop(1.5)] == [fresh, waiting, None]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(40, 49), st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=8))
def test_backoff_queue_is_ordered_by_window_then_as_the_active_queue(
        specs: list[tuple[int, int, int]]) -> None:
    """Upstream ``lessBackoffCompletedWithPriority``: the earlier window first; within one window,
    as the active queue: the higher priority, then the earlier queue timestamp (the last failure,
    PrioritySort), then arrival."""
    q = _queue()
    pods = []
    for i, (tenths, priority, attempts) in enumerate(specs):
        p = pod(f"p{i}", priority=priority)
        failed_at = tenths / 10
        for k in range(attempts):  # earlier attempts a moment before: one early pop per pod and instant
            _failed(q, p, failed_at - 0.01 * (attempts - 1 - k))
        pods.append((p, failed_at, attempts))
    q.move(ASSIGNED_POD_DELETE, None, None, 5.0)  # failed in [4, 5): every window is >= 5, all back off
    popped = [q.pop(5.0) for _ in pods]
    window = {p.key: int(at + 2 ** (n - 1)) for p, at, n in pods}
    failed = {p.key: at for p, at, _ in pods}
    order = sorted((p for p, _, _ in pods), key=lambda p: (window[p.key], -p.priority, failed[p.key], p.seq))
    assert [p.key for p in popped if p is not None] == [p.key for p in order]


def _job(name: str, pods: int, sleep: int) -> Job:
    return Job.model_validate({"apiVersion": "batch/v1", "kind": "Job",
                               "metadata": {"name": name, "namespace": "default"},
                               "spec": {"completions": pods, "parallelism": pods, "template": {"spec": {
                                   "restartPolicy": "Never", "containers": [{
                                       "name": "c", "image": "busybox", "command": ["sleep", str(sleep)],
                                       "resources": {"requests": {"cpu": "1"}}}]}}}})


@pytest.mark.parametrize(("gates", "expected"),
                         [(None, [40, 40]), ("SchedulerPopFromBackoffQ=false", [40, 42])])
def test_two_nodes_freed_at_one_instant_take_both_waiting_pods(gates: str | None,
                                                               expected: list[int]) -> None:
    """The first freed node takes one pod; the other pod's attempt fails (2nd attempt: 2 s back-off)
    before the second node frees, whose event moves it to the back-off queue. With the gate, the idle
    scheduler pops it at once; without it (before 1.33) it waited for its back-off, until 42 s."""
    cp = ControlPlane(seed=1, controllers="job,scheduler,kubelet", feature_gates=gates)
    create_nodes(cp, 2, NodeTemplate(cpu="1"))
    cp.client.create(_job("first", 2, 40))
    cp.advance(1)
    cp.client.create(_job("second", 2, 10))
    cp.advance(50)
    starts = []
    for p in cp.client.list(Pod, "default").items:
        if p.metadata.name.startswith("second"):
            when = p.status.condition("PodScheduled").last_transition_time
            starts.append(round((when - cp.clock.to_datetime(0)).total_seconds()))
    assert sorted(starts) == expected


def test_a_pod_leaves_the_backoff_queue_early_once_per_instant() -> None:
    """kbatch's rule (a cycle takes no virtual time): the second early pop of a pod at one instant
    waits for its back-off, so pods whose failures move each other back cannot loop at one instant."""
    q = _queue()
    p = pod("p")
    _failed(q, p, 7.0)
    q.move(ASSIGNED_POD_DELETE, None, None, 7.0)
    assert q.pop(7.0) is p  # early, once
    q.unschedulable(p, 7.0, ("NodeResourcesFit",))
    q.move(ASSIGNED_POD_DELETE, None, None, 7.0)
    assert q.pop(7.0) is None  # not twice at 7.0
    assert q.pop(7.5) is p  # a later instant may pop it early again


def test_on_a_real_clock_the_early_pop_instant_is_a_whole_second() -> None:
    """A real clock never reads the same instant twice, so there the rule counts whole seconds;
    otherwise a Coscheduling group with a member that fits nowhere kept ``kbatch serve --clock real``
    retrying inside one settle, never answering."""
    q = SchedulingQueue(PrioritySort().sort_key, pop_from_backoff=True, early_pop_instant=1.0)
    p = pod("p")
    _failed(q, p, 7.0)
    q.move(ASSIGNED_POD_DELETE, None, None, 7.2)
    assert q.pop(7.2) is p  # early, once in second 7
    q.unschedulable(p, 7.3, ("NodeResourcesFit",))
    q.move(ASSIGNED_POD_DELETE, None, None, 7.6)
    assert q.pop(7.6) is None  # a later reading of the same second: not again
    assert q.pop(8.1) is p  # the next second may


@pytest.mark.parametrize(("instant", "times"), [(0.0, (7.0, 7.0, 7.0, 7.5)), (1.0, (7.2, 7.4, 7.9, 8.1))])
def test_members_a_group_cycle_takes_out_of_backoff_have_left_it_early(
        instant: float, times: tuple[float, float, float, float]) -> None:
    """A pod group is one queued entity (upstream ``QueuedPodGroupInfo``, one back-off): when its
    cycle takes the other members out of the back-off queue (``pop_specific``), they have left it
    early at that instant too, so the group cannot come back through another member at the same
    instant (before, a group of n members left it early n times per instant)."""
    q = SchedulingQueue(PrioritySort().sort_key, pop_from_backoff=True, early_pop_instant=instant)
    first, other, solo = pod("first"), pod("other"), pod("solo")
    popped, taken, again, later = times
    for p in (first, other, solo):
        _failed(q, p, 6.5)
    q.move(ASSIGNED_POD_DELETE, None, None, popped)
    assert q.where(first.key) == q.where(other.key) == "backoff"
    assert q.pop(popped) is first  # early: the head of the back-off queue
    assert q.pop_specific(other.key, taken) is other  # the group's cycle takes its other member
    for p in (first, other):
        q.unschedulable(p, taken, ("GangScheduling",))
    q.move(ASSIGNED_POD_DELETE, None, None, again)
    assert q.where(other.key) == "backoff"
    assert q.pop(again) is solo  # a pod outside the group still may
    assert q.pop(again) is None  # neither member again at this instant
    assert q.pop(later) in (first, other)  # a later instant may


def test_pop_specific_of_a_pod_outside_the_backoff_queue_is_no_early_pop() -> None:
    """Only leaving the back-off queue counts: a member taken from the unschedulable pool may still
    leave the back-off queue early once at that instant, as a pod popped from the active queue may."""
    q = _queue()
    member = pod("member")
    _failed(q, member, 7.0)
    assert q.where(member.key) == "unschedulable"
    assert q.pop_specific(member.key, 7.0) is member
    q.unschedulable(member, 7.0, ("NodeResourcesFit",))
    q.move(ASSIGNED_POD_DELETE, None, None, 7.0)
    assert q.pop(7.0) is member
