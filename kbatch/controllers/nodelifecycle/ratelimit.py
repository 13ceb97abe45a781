"""A zone's rate-limited taint queue in virtual time (upstream
``pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go``, ``RateLimitedTimedQueue``, and
client-go ``flowcontrol.NewTokenBucketRateLimiter`` with burst 1).

:class:`TokenBucket` is immutable: at most one token, refilled at ``rate`` tokens per second of
the control plane's clock, full when created. A rate of 0 never grants a token (upstream's
``NewFakeNeverRateLimiter``). Swapping the rate (``SwapLimiter``) keeps the bucket when the rate
is unchanged; otherwise the new bucket starts full unless the old one had no token, in which case
it starts empty (upstream drains the new limiter).

:class:`TaintQueue` holds the nodes waiting for a NoExecute taint, in the order they were queued
(``processAt``, then queueing order), each at most once; a node stays *known* after it was
processed (so it is not queued again) until :meth:`TaintQueue.remove` forgets it. :meth:`try_`
walks the head of the queue while the bucket grants tokens: every visited node costs a token,
whether it is tainted or found healthy (upstream ``Try``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["TaintQueue", "TokenBucket"]

# Float slack when a refill lands exactly on a whole token (1/rate is rarely exact in binary).
_EPSILON = 1e-9
_MIN_RETRY = 1e-3  # upstream retries a failed action after wait + 1 ns; later in virtual time


@dataclass(frozen=True, slots=True)
class TokenBucket:
    rate: float  # tokens per second; <= 0: never
    tokens: float = 1.0
    last: float = 0.0  # when ``tokens`` was measured

    def available(self, now: float) -> float:
        if self.rate <= 0:
            return 0.0
        return min(1.0, self.tokens + max(0.0, now - self.last) * self.rate)

    def try_accept(self, now: float) -> tuple[bool, TokenBucket]:
        """Take a token at ``now`` if there is one; the bucket afterwards."""
        tokens = self.available(now)
        if tokens < 1.0 - _EPSILON:
            return False, self
        return True, replace(self, tokens=max(0.0, tokens - 1.0), last=now)

    def ready_at(self, now: float) -> float | None:
        """When the next token is there (``now`` if it is), None for a rate of 0."""
        if self.rate <= 0:
            return None
        missing = 1.0 - self.available(now)
        return now if missing <= _EPSILON else now + missing / self.rate

    def swap(self, rate: float, now: float) -> TokenBucket:
        """The bucket after ``SwapLimiter(rate)`` at ``now``."""
        if rate == self.rate:
            return self
        if rate <= 0:
            return TokenBucket(0.0, 0.0, now)
        drained = self.available(now) < 1.0 - _EPSILON
        return TokenBucket(rate, 0.0 if drained else 1.0, now)


# The action on a queued node: (done, retry after seconds). Not done: the node waits that long.
Action = Callable[[str], tuple[bool, float]]


class TaintQueue:
    def __init__(self, rate: float, now: float = 0.0) -> None:
        self.bucket = TokenBucket(rate, 1.0, now)
        self._heap: list[tuple[float, int, str]] = []  # (process at, queueing order, node)
        self._waiting: dict[str, tuple[float, int]] = {}  # node -> its live heap key
        self._known: set[str] = set()
        self._seq = 0

    def __contains__(self, node: object) -> bool:
        return node in self._known

    def waiting(self, node: str) -> bool:
        return node in self._waiting

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, node: str, now: float) -> bool:
        """Queue ``node`` to be processed from ``now``; False when it is already known."""
        if node in self._known:
            return False
        self._known.add(node)
        self._push(node, now)
        return True

    def remove(self, node: str) -> bool:
        """Forget ``node`` (dequeued, and may be added again); False when it was not known."""
        if node not in self._known:
            return False
        self._known.discard(node)
        self._waiting.pop(node, None)
        return True

    def _push(self, node: str, at: float) -> None:
        self._seq += 1
        self._waiting[node] = (at, self._seq)
        heapq.heappush(self._heap, (at, self._seq, node))

    def _head(self) -> tuple[float, int, str] | None:
        heap = self._heap
        while heap and self._waiting.get(heap[0][2]) != heap[0][:2]:
            heapq.heappop(heap)  # lazily dropped: removed or re-queued since
        return heap[0] if heap else None

    def swap(self, rate: float, now: float) -> None:
        self.bucket = self.bucket.swap(rate, now)

    def try_(self, now: float, action: Action) -> None:
        """Process the queue's head while tokens last and its time has come (upstream ``Try``)."""
        while (head := self._head()) is not None:
            granted, self.bucket = self.bucket.try_accept(now)
            if not granted or now < head[0]:
                return
            node = head[2]
            done, wait = action(node)
            self._waiting.pop(node, None)
            if not done and node in self._known:
                self._push(node, now + max(wait, _MIN_RETRY))

    def wake_at(self, now: float) -> float | None:
        """When :meth:`try_` can next do something (None: nothing waits, or the rate is 0)."""
        head = self._head()
        ready = self.bucket.ready_at(now) if head is not None else None
        return None if ready is None or head is None else max(ready, head[0])
