"""What the back-off doubles on (upstream ``backend/queue/scheduling_queue.go``
``AddUnschedulableIfNotPresent`` and ``backoff_queue.go`` ``getBackoffTime``, 1.36/1.37): a rejected
attempt adds to ``UnschedulableCount`` and ends a run of errors; an error (no rejecting or pending
plugin) adds to ``ConsecutiveErrorsCount``; the back-off uses the error count while it is not zero,
else the rejection count. Before, kbatch doubled on every failed attempt of either kind."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import INITIAL_BACKOFF, MAX_BACKOFF, SchedulingQueue, backoff_duration

from .sched_builders import pod


def _queue() -> SchedulingQueue:
    return SchedulingQueue(PrioritySort().sort_key)


def test_an_error_after_many_rejections_backs_off_one_second() -> None:
    """Five rejections (10 s back-off), then an error: the error's first retry waits 1 s, not 10 s."""
    q, p = _queue(), pod("p")
    q.add(p, 0.0)
    now = 0.0
    for _ in range(5):
        assert q.pop(now) is p
        q.unschedulable(p, now, ("NodeResourcesFit",))
        q.move_all(now)
        now += 20.0
        q.flush(now)
    assert q.pop(now) is p
    q.retry_after_error(p, now)
    assert q.where(p.key) == "backoff"
    q.flush(now + 1.0)
    assert q.where(p.key) == "active"


def test_a_rejection_after_errors_counts_rejections_only() -> None:
    """Three errors (4 s for the third), then a rejection: the first rejection backs off 1 s."""
    q, p = _queue(), pod("p")
    q.add(p, 0.0)
    now = 0.0
    for _ in range(3):
        assert q.pop(now) is p
        q.retry_after_error(p, now)
        now += 20.0
        q.flush(now)
    assert q.pop(now) is p
    q.unschedulable(p, now, ("NodeResourcesFit",))
    q.move_all(now)
    assert q.where(p.key) == "backoff"
    q.flush(now + 1.0)
    assert q.where(p.key) == "active"


@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_backoff_count_is_the_error_run_or_the_rejections(failures: list[bool]) -> None:
    """Any sequence of failures (True: rejected, False: an error): the back-off is that of the
    trailing run of errors when the last failure was one, else of all the rejections so far."""
    q, p = _queue(), pod("p")
    q.add(p, 0.0)
    now = 0.0
    for rejected in failures:
        assert q.pop(now) is p
        if rejected:
            q.unschedulable(p, now, ("NodeResourcesFit",))
            q.move_all(now)
        else:
            q.retry_after_error(p, now)
        now += 20.0
        q.flush(now)
    trailing_errors = len(failures) - len("".join("r" if r else "e" for r in failures).rstrip("e"))
    want = trailing_errors or sum(failures)
    entry = q.entry(p.key)
    assert entry is not None
    assert entry.backoff_expiry(INITIAL_BACKOFF, MAX_BACKOFF) == now - 20.0 + backoff_duration(
        want, INITIAL_BACKOFF, MAX_BACKOFF)


def test_a_rejection_without_a_plugin_is_still_a_rejection() -> None:
    """A pod group's member rejected with its group (no plugin of its own to blame) counts as
    rejected, not as an error: upstream counts the group entity's rejection (``QueuedPodGroupInfo``);
    only an error (:meth:`SchedulingQueue.retry_after_error`) starts an error run. Three rejections,
    then one without a plugin: the fourth rejection's 8 s."""
    q, p = _queue(), pod("p")
    q.add(p, 0.0)
    now = 0.0
    for plugins in (("NodeResourcesFit",),) * 3 + ((),):
        assert q.pop(now) is p
        q.unschedulable(p, now, plugins)
        q.move_all(now)
        now += 20.0
        q.flush(now)
    entry = q.entry(p.key)
    assert entry is not None and entry.backoff_count() == 4
