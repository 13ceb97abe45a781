"""One controller: a named work queue and the reconciler that drains it (controller-runtime
``pkg/internal/controller``), stepped one item at a time by the loop.

``process_one()`` takes the next ready request, reconciles it, maps the outcome to the queue with
:func:`~kbatch.runtime.reconcile.handle_outcome`, and always calls ``done``. Errors never escape:
each failure is reported to the ``observe`` hook (the manager logs it and records failures in the
trace), so a failing reconciler is visible and its back-off measurable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from kbatch.runtime.reconcile import (
    Outcome,
    Reconciler,
    Request,
    arun_reconcile,
    handle_outcome,
    run_reconcile,
)
from kbatch.runtime.workqueue import RateLimitingQueue

__all__ = ["Controller", "ReconcileRecord"]

log = logging.getLogger("kbatch.runtime.controller")


@dataclass(frozen=True, slots=True)
class ReconcileRecord:
    """What one reconcile did: when, which controller and request, how it ended, when it returns."""

    time: float
    controller: str
    request: Request
    outcome: str  # success | requeue_after | error | terminal
    error: str | None = None
    retry_in: float | None = None


Observer = Callable[[ReconcileRecord], None]


class Controller:
    def __init__(self, name: str, reconciler: Reconciler, queue: RateLimitingQueue[Request], *,
                 description: str = "", observe: Observer | None = None) -> None:
        self.name = name
        self.reconciler = reconciler
        self.queue = queue
        self.description = description
        self.observe = observe
        self.reconciles = 0
        self.errors = 0

    def __repr__(self) -> str:
        return f"Controller({self.name!r}, ready={len(self.queue)})"

    def enqueue(self, request: Request) -> None:
        self.queue.add(request)

    def has_ready(self) -> bool:
        return len(self.queue) > 0

    def process_one(self) -> bool:
        """Reconcile the next ready request; False when nothing is ready."""
        request = self.queue.get()
        if request is None:
            return False
        try:
            self._finish(request, run_reconcile(self.reconciler, request))
        finally:
            self.queue.done(request)
        return True

    async def aprocess_one(self) -> bool:
        request = self.queue.get()
        if request is None:
            return False
        try:
            self._finish(request, await arun_reconcile(self.reconciler, request))
        finally:
            self.queue.done(request)
        return True

    def _finish(self, request: Request, outcome: Outcome) -> None:
        self.reconciles += 1
        retry_in = handle_outcome(self.queue, request, outcome)
        if outcome.error is None:
            return
        self.errors += 1
        error = f"{type(outcome.error).__name__}: {outcome.error}"
        log.warning("%s: reconcile %s failed (%s); retry in %s", self.name, request, error, retry_in,
                    exc_info=outcome.error if log.isEnabledFor(logging.DEBUG) else None)
        if self.observe is not None:
            self.observe(ReconcileRecord(self.queue.clock.now(), self.name, request, outcome.kind,
                                         error, retry_in))
