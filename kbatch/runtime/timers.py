"""The timer queue: every deadline in the control plane, fired in a defined order.

A binary heap of ``(deadline, seq, timer)`` with lazy deletion (trio's ``Deadlines`` idea):
cancelling a timer only marks it, and popping skips marked entries; when more than half of the
heap is dead it is rebuilt. Ties on the deadline are broken by ``seq``, the order in which timers
were scheduled, so firing order never depends on hashing or object identity.

The queue never reads a clock: callers pass "now" in (:meth:`TimerQueue.pop_due`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from itertools import count

__all__ = ["Timer", "TimerQueue"]


class Timer:
    """A handle to one scheduled callback. ``cancel()`` is idempotent."""

    __slots__ = ("_owner", "callback", "cancelled", "deadline", "seq")

    def __init__(self, deadline: float, seq: int, callback: Callable[[], object], owner: TimerQueue):
        self.deadline = deadline
        self.seq = seq
        self.callback = callback
        self.cancelled = False
        self._owner = owner

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self._owner._dead += 1

    def __lt__(self, other: Timer) -> bool:  # heap order: (deadline, seq)
        return (self.deadline, self.seq) < (other.deadline, other.seq)

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else "pending"
        return f"Timer(deadline={self.deadline}, seq={self.seq}, {state})"


class TimerQueue:
    """Deadlines on a clock's timeline, popped in ``(deadline, scheduling order)`` order."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Timer]] = []
        self._seq = count()
        self._dead = 0

    def schedule(self, deadline: float, callback: Callable[[], object]) -> Timer:
        seq = next(self._seq)
        timer = Timer(deadline, seq, callback, self)
        heapq.heappush(self._heap, (deadline, seq, timer))
        return timer

    def __len__(self) -> int:
        """Live (not cancelled, not fired) timers."""
        return len(self._heap) - self._dead

    def next_deadline(self) -> float | None:
        """The earliest live deadline, or None."""
        heap = self._heap
        while heap and heap[0][2].cancelled:
            heapq.heappop(heap)
            self._dead -= 1
        return heap[0][0] if heap else None

    def pop_due(self, now: float) -> Timer | None:
        """Remove and return the first live timer with ``deadline <= now`` (it counts as fired)."""
        heap = self._heap
        while heap:
            deadline, _, timer = heap[0]
            if timer.cancelled:
                heapq.heappop(heap)
                self._dead -= 1
                continue
            if deadline > now:
                return None
            heapq.heappop(heap)
            timer.cancelled = True  # fired: a later cancel() is a no-op and does not count as dead
            return timer
        return None

    def prune(self) -> None:
        """Drop cancelled entries when they are the majority (keeps memory bounded)."""
        if self._dead * 2 > len(self._heap):
            self._heap = [entry for entry in self._heap if not entry[2].cancelled]
            heapq.heapify(self._heap)
            self._dead = 0
            assert len(self) == len(self._heap)
