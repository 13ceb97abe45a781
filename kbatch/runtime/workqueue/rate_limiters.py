"""Back-off policies (client-go ``util/workqueue/default_rate_limiters.go``).

A :class:`RateLimiter` answers three questions about an item: how long to wait before the next
retry (``when``, which also counts the retry), to stop tracking it (``forget``), and how many
retries it has had (``num_requeues``). Combinators build policies from parts:

* :class:`ItemExponentialFailureRateLimiter` — per item, ``base * 2**failures`` capped at ``max``
  (default 5 ms → 1000 s, as client-go's controller default);
* :class:`BucketRateLimiter` — a token bucket shared by all items (default 10 qps, burst 100),
  measured on the injected clock;
* :class:`MaxOfRateLimiter` (``max_of``) — the longest delay of its parts;
* :func:`default_controller_rate_limiter` — ``max_of(exponential, bucket)``, controller-runtime's
  default.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol, runtime_checkable

from kbatch.runtime.clock import Clock

__all__ = [
    "BucketRateLimiter",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "RateLimiter",
    "default_controller_rate_limiter",
    "max_of",
]


@runtime_checkable
class RateLimiter(Protocol):
    def when(self, item: Hashable) -> float:
        """Seconds to wait before ``item`` is retried; records one more failure."""
        ...

    def forget(self, item: Hashable) -> None:
        """Stop tracking ``item`` (it succeeded or was given up on)."""
        ...

    def num_requeues(self, item: Hashable) -> int: ...


class ItemExponentialFailureRateLimiter:
    """``base * 2**n`` for the n-th consecutive failure of an item, capped at ``max_delay``."""

    def __init__(self, base: float = 0.005, max_delay: float = 1000.0) -> None:
        self.base = base
        self.max_delay = max_delay
        self._failures: dict[Hashable, int] = {}

    def when(self, item: Hashable) -> float:
        n = self._failures.get(item, 0)
        self._failures[item] = n + 1
        if n > 64:  # 2**n would overflow any sensible cap
            return self.max_delay
        return min(self.base * (2**n), self.max_delay)

    def forget(self, item: Hashable) -> None:
        self._failures.pop(item, None)

    def num_requeues(self, item: Hashable) -> int:
        return self._failures.get(item, 0)


class BucketRateLimiter:
    """A token bucket (``golang.org/x/time/rate`` ``Reserve``): ``qps`` refill, ``burst`` capacity."""

    def __init__(self, clock: Clock, qps: float = 10.0, burst: int = 100) -> None:
        self.clock = clock
        self.qps = qps
        self.burst = burst
        self._tokens = float(burst)
        self._last = clock.now()

    def when(self, item: Hashable) -> float:
        now = self.clock.now()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def forget(self, item: Hashable) -> None:
        return None

    def num_requeues(self, item: Hashable) -> int:
        return 0


class MaxOfRateLimiter:
    """The longest delay any part asks for; requeues counted as the maximum over the parts."""

    def __init__(self, *limiters: RateLimiter) -> None:
        if not limiters:
            raise ValueError("max_of needs at least one rate limiter")
        self.limiters = limiters

    def when(self, item: Hashable) -> float:
        return max(limiter.when(item) for limiter in self.limiters)

    def forget(self, item: Hashable) -> None:
        for limiter in self.limiters:
            limiter.forget(item)

    def num_requeues(self, item: Hashable) -> int:
        return max(limiter.num_requeues(item) for limiter in self.limiters)


def max_of(*limiters: RateLimiter) -> MaxOfRateLimiter:
    return MaxOfRateLimiter(*limiters)


def default_controller_rate_limiter(clock: Clock) -> RateLimiter:
    """controller-runtime's default: per-item 5 ms → 1000 s, overall 10 qps with burst 100."""
    return max_of(ItemExponentialFailureRateLimiter(0.005, 1000.0), BucketRateLimiter(clock, 10.0, 100))
