"""Upstream's per-source, per-object event spam filter (client-go ``tools/record/events_cache.go``,
``EventSourceObjectSpamFilter``).

Every (source component, source host, involved object kind/namespace/name/uid/apiVersion) gets a
token bucket of 25 tokens refilled at one token per 300 s (client-go ``defaultSpamBurst``,
``defaultSpamQPS``), created full on first use, kept in an LRU of 4096 keys. An event that finds
the bucket empty is dropped. Time is the control plane's clock, so the filter is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SPAM_BURST", "SPAM_QPS", "TokenBucket"]

SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0


@dataclass
class TokenBucket:
    """golang.org/x/time/rate ``Limiter.Allow`` semantics: starts full, refills continuously."""

    burst: int
    qps: float
    tokens: float
    last: float

    @classmethod
    def full(cls, now: float, burst: int = SPAM_BURST, qps: float = SPAM_QPS) -> TokenBucket:
        return cls(burst, qps, float(burst), now)

    def try_accept(self, now: float) -> bool:
        if now > self.last:
            self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.qps)
            self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
