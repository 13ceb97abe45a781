"""Work queues with client-go's guarantees: fair, stingy, re-add while processing, delayed adds
(earliest deadline wins) and per-item back-off. Layers: :class:`Queue` ⊂ :class:`DelayingQueue` ⊂
:class:`RateLimitingQueue`; delays are measured on the injected clock.
"""

from kbatch.runtime.workqueue.delaying import DelayingQueue
from kbatch.runtime.workqueue.queue import Queue
from kbatch.runtime.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
    RateLimiter,
    default_controller_rate_limiter,
    max_of,
)
from kbatch.runtime.workqueue.rate_limiting import RateLimitingQueue

__all__ = [
    "BucketRateLimiter",
    "DelayingQueue",
    "ItemExponentialFailureRateLimiter",
    "MaxOfRateLimiter",
    "Queue",
    "RateLimiter",
    "RateLimitingQueue",
    "default_controller_rate_limiter",
    "max_of",
]
