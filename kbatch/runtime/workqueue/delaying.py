"""Delayed adds (client-go ``util/workqueue/delaying_queue.go``): ``add_after(item, seconds)``.

Deadlines are measured on the injected clock and kept in the control plane's shared
:class:`~kbatch.runtime.timers.TimerQueue`, so every delay in the system fires from one ordered
heap. When an item is already waiting, the *earlier* deadline wins (client-go's ``insert``): a
later ``add_after`` never postpones it, an earlier one pulls it forward. A ``periodic`` queue's
delays are housekeeping periods (see :class:`~kbatch.runtime.timers.TimerQueue`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

from kbatch.runtime.clock import Clock
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.workqueue.queue import Queue

__all__ = ["DelayingQueue"]

T = TypeVar("T", bound=Hashable)


class DelayingQueue(Queue[T]):
    def __init__(self, clock: Clock, timers: TimerQueue, name: str = "", *, periodic: bool = False) -> None:
        super().__init__(name)
        self.clock = clock
        self._timers = timers
        self._periodic = periodic
        self._waiting: dict[T, tuple[float, int]] = {}  # item -> (deadline, timer handle)

    def add_after(self, item: T, seconds: float) -> None:
        """Add ``item`` once ``seconds`` have passed on the clock (now, if ``seconds <= 0``)."""
        if self.shutting_down:
            return
        if seconds <= 0:
            self.add(item)
            return
        deadline = self.clock.now() + seconds
        current = self._waiting.get(item)
        if current is not None:
            if current[0] <= deadline:
                return
            self._timers.cancel(current[1])
        handle = self._timers.schedule_call(deadline, self._fire, item, periodic=self._periodic)
        self._waiting[item] = (deadline, handle)

    def _fire(self, item: T) -> None:
        self._waiting.pop(item, None)
        self.add(item)

    def waiting_deadline(self, item: T) -> float | None:
        """When ``item`` will be added, if it is waiting on a delay."""
        waiting = self._waiting.get(item)
        return None if waiting is None else waiting[0]

    @property
    def waiting_count(self) -> int:
        return len(self._waiting)

    def shutdown(self) -> None:
        super().shutdown()
        for _, handle in self._waiting.values():
            self._timers.cancel(handle)
        self._waiting.clear()
