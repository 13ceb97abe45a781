"""The timer queue: every deadline in the control plane, fired in a defined order.

A binary heap of distinct deadlines, each with a FIFO bucket of ``(deadline, seq, fn, arg)``
timers, and lazy deletion (trio's ``Deadlines`` idea): cancelling a timer only forgets its handle,
and popping skips entries whose handle is no longer pending; when more than half of the stored
entries are dead they are rebuilt. Ties on the deadline are broken by
``seq``, the order in which timers were scheduled, so firing order never depends on hashing or
object identity. A handle is the timer's ``seq`` (an int): cheap to create, store and cancel.

The queue never reads a clock: callers pass "now" in (:meth:`TimerQueue.pop_due`).

A timer may be scheduled as *periodic*: a fixed housekeeping period such as pod GC's 20-second
sweep, which upstream runs forever. Periodic timers fire like any other, but they do not count as
pending work: :meth:`TimerQueue.has_pending_work` ignores them, so "advance until idle" can end on
a cluster whose only timers are housekeeping.
"""

from __future__ import annotations

import heapq
from array import array
from collections import deque
from collections.abc import Callable
from types import MethodType
from typing import Any, NamedTuple

__all__ = ["Timer", "TimerQueue"]


def _call(fn: Callable[[], Any]) -> Any:
    return fn()


class Timer(NamedTuple):
    """A popped timer: call ``fire()`` to run it."""

    deadline: float
    seq: int
    fn: Callable[[Any], Any]
    arg: Any

    def fire(self) -> Any:
        return self.fn(self.arg)


class TimerQueue:
    """Deadlines on a clock's timeline, popped in ``(deadline, scheduling order)`` order.

    Timers that share a deadline (common in virtual time: a TTL, a fixed requeue period) share one
    FIFO bucket, so the heap holds each *distinct* deadline once: scheduling into an existing
    bucket is O(1), and FIFO order within a bucket is scheduling order.
    """

    def __init__(self) -> None:
        self._deadlines: list[float] = []  # heap of distinct deadlines that have a bucket
        self._buckets: dict[float, deque[Timer]] = {}
        self._pending: set[int] = set()
        self._periodic: set[int] = set()  # handles of live periodic timers (a subset of _pending)
        self._seq = 0

    def schedule(self, deadline: float, callback: Callable[[], Any]) -> int:
        """Call ``callback()`` at ``deadline``; returns a handle for :meth:`cancel`."""
        return self.schedule_call(deadline, _call, callback)

    def schedule_call(self, deadline: float, fn: Callable[[Any], Any], arg: Any, *,
                      periodic: bool = False) -> int:
        """Call ``fn(arg)`` at ``deadline`` (no closure per timer: the hot path of delayed adds).

        ``periodic`` marks housekeeping that is not pending work (see :meth:`has_pending_work`)."""
        seq = self._seq
        self._seq = seq + 1
        bucket = self._buckets.get(deadline)
        if bucket is None:
            bucket = self._buckets[deadline] = deque()
            heapq.heappush(self._deadlines, deadline)
        bucket.append(Timer(deadline, seq, fn, arg))
        self._pending.add(seq)
        if periodic:
            self._periodic.add(seq)
        return seq

    # --- pickling (a saved control plane, docs/cli.md) -----------------------------------------------
    def __getstate__(self) -> tuple[Any, ...]:
        """The timers as columns, not a ``Timer`` tuple (and a bound method) each: a saved control plane
        holds one or more timers per pod (kbatch/runtime/pickling.py). A bound method is kept as its
        object and name, as pickle itself writes one; buckets in their order, with their lengths."""
        timers = [t for bucket in self._buckets.values() for t in bucket]
        methods = [t.fn if type(t.fn) is MethodType else None for t in timers]
        owners = [None if m is None else m.__self__ for m in methods]
        fns = [t.fn if m is None else m.__func__.__name__ for t, m in zip(timers, methods, strict=True)]
        return (self._deadlines, list(self._buckets), array("q", map(len, self._buckets.values())),
                array("q", (t.seq for t in timers)), owners, fns, [t.arg for t in timers],
                self._pending, self._periodic, self._seq)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self._deadlines, deadlines, lengths, seqs, owners, fns, args, self._pending, self._periodic,
         self._seq) = state
        timers = iter(zip(seqs, owners, fns, args, strict=True))
        self._buckets = {}
        for deadline, length in zip(deadlines, lengths, strict=True):
            self._buckets[deadline] = deque(
                Timer(deadline, seq, fn if owner is None else getattr(owner, fn), arg)
                for seq, owner, fn, arg in (next(timers) for _ in range(length)))

    def cancel(self, handle: int) -> bool:
        """Forget a timer; False if it already fired or was cancelled."""
        if handle in self._pending:
            self._pending.discard(handle)
            self._periodic.discard(handle)
            return True
        return False

    def is_pending(self, handle: int) -> bool:
        return handle in self._pending

    def __len__(self) -> int:
        """Live (not cancelled, not fired) timers."""
        return len(self._pending)

    def _head(self) -> deque[Timer] | None:
        """The earliest bucket, with cancelled timers dropped from its front (None if empty)."""
        deadlines, buckets, pending = self._deadlines, self._buckets, self._pending
        while deadlines:
            bucket = buckets[deadlines[0]]
            while bucket and bucket[0].seq not in pending:
                bucket.popleft()
            if bucket:
                return bucket
            del buckets[heapq.heappop(deadlines)]
        return None

    def has_pending_work(self) -> bool:
        """Whether any live timer is not periodic housekeeping."""
        return len(self._pending) > len(self._periodic)

    def next_deadline(self) -> float | None:
        """The earliest live deadline, or None."""
        bucket = self._head()
        return None if bucket is None else bucket[0].deadline

    def pop_due(self, now: float) -> Timer | None:
        """Remove and return the first live timer with ``deadline <= now`` (it counts as fired)."""
        bucket = self._head()
        if bucket is None or bucket[0].deadline > now:
            return None
        timer = bucket.popleft()
        self._pending.discard(timer.seq)
        self._periodic.discard(timer.seq)
        return timer

    def prune(self) -> None:
        """Drop cancelled entries when they are the majority (keeps memory bounded)."""
        stored = sum(len(b) for b in self._buckets.values())
        if len(self._pending) * 2 >= stored:
            return
        pending = self._pending
        for deadline in list(self._buckets):
            kept = deque(t for t in self._buckets[deadline] if t.seq in pending)
            if kept:
                self._buckets[deadline] = kept
            else:
                del self._buckets[deadline]
        self._deadlines = sorted(self._buckets)
        assert sum(len(b) for b in self._buckets.values()) == len(pending)
