"""Requests held until the end of the current instant, then queued once each, in the order first seen.

A controller whose triggers come in bursts (every pod of a gang ending at one instant) would reconcile
once per event in kbatch, where the loop hands each request to a worker before the next event
arrives. Upstream's work queue de-duplicates a key added again before a worker takes it, so a real
controller mostly sees the burst as one request. :class:`InstantBatch` gives that: mappers wrapped by
:meth:`InstantBatch.mapped` hold their requests, and a timer due *now* (which the loop fires only when
no request is ready, ``kbatch.runtime.loop``) hands them to the queue. Everything here is a plain
object with bound methods, so a saved control plane pickles it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.runtime.clock import Clock
from kbatch.runtime.reconcile import Request
from kbatch.runtime.timers import TimerQueue

__all__ = ["InstantBatch"]

Mapper = Callable[[Any], list[Request]]


class _Deferred:
    """A mapper whose requests go to the batch instead of the queue (it returns none itself)."""

    __slots__ = ("batch", "mapper")

    def __init__(self, batch: InstantBatch, mapper: Mapper) -> None:
        self.batch, self.mapper = batch, mapper

    def __call__(self, obj: Any) -> list[Request]:
        self.batch.defer(self.mapper(obj))
        return []


class InstantBatch:
    """Holds requests until the end of the instant; ``add`` is the controller queue's (set once the
    controller exists)."""

    __slots__ = ("add", "clock", "pending", "timers")

    def __init__(self, clock: Clock, timers: TimerQueue) -> None:
        self.clock, self.timers = clock, timers
        self.add: Any = None
        self.pending: dict[Request, None] = {}  # an ordered set; non-empty iff a flush is due

    def mapped(self, mapper: Mapper) -> Mapper:
        return _Deferred(self, mapper)

    def defer(self, requests: list[Request]) -> None:
        if requests and not self.pending:
            self.timers.schedule_call(self.clock.now(), self._flush, None)
        for request in requests:
            self.pending[request] = None

    def _flush(self, _: Any) -> None:
        pending, self.pending = self.pending, {}
        for request in pending:
            self.add(request)
