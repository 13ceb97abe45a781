"""Rate-limited re-adds (client-go ``util/workqueue/rate_limiting_queue.go``).

``add_rate_limited(item)`` asks the :class:`RateLimiter` how long to wait and delays the add;
``forget(item)`` resets the item's back-off; ``num_requeues(item)`` reports it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TypeVar

from kbatch.runtime.clock import Clock
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.workqueue.delaying import DelayingQueue
from kbatch.runtime.workqueue.rate_limiters import RateLimiter, default_controller_rate_limiter

__all__ = ["RateLimitingQueue"]

T = TypeVar("T", bound=Hashable)


class RateLimitingQueue(DelayingQueue[T]):
    def __init__(
        self,
        clock: Clock,
        timers: TimerQueue,
        rate_limiter: RateLimiter | None = None,
        name: str = "",
        *,
        periodic: bool = False,
    ) -> None:
        super().__init__(clock, timers, name, periodic=periodic)
        if rate_limiter is None:
            rate_limiter = default_controller_rate_limiter(clock)
        self.rate_limiter = rate_limiter

    def add_rate_limited(self, item: T) -> float:
        """Re-add ``item`` after its back-off; returns the delay chosen."""
        delay = self.rate_limiter.when(item)
        self.add_after(item, delay)
        return delay

    def forget(self, item: T) -> None:
        self.rate_limiter.forget(item)

    def num_requeues(self, item: T) -> int:
        return self.rate_limiter.num_requeues(item)
