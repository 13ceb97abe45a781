"""The reconciler seam (controller-runtime ``pkg/reconcile/reconcile.go``).

Reconciliation is *level-based*: a :class:`Request` names an object (namespace, name) and carries
no event. The reconciler reads the latest state and drives the world towards it; an object that was
deleted simply is not found. It returns a :class:`Result` (``requeue_after`` to come back later),
``None`` (done), or raises: a :class:`TerminalError` is logged and not retried, any other exception
is retried with the queue's per-item back-off. How each outcome reaches the queue is decided in one
place, :func:`handle_outcome`.

A plain function ``fn(request) -> Result | None`` is a reconciler too (:func:`reconcile_func`), and
``async def reconcile`` is accepted: in the virtual loop it is driven to completion synchronously
(it must not await real I/O), in real-clock mode it is awaited.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

from kbatch.runtime.workqueue import RateLimitingQueue

__all__ = [
    "Outcome",
    "Reconciler",
    "Request",
    "Result",
    "TerminalError",
    "arun_reconcile",
    "as_reconciler",
    "handle_outcome",
    "reconcile_func",
    "run_reconcile",
]


class Request(NamedTuple):
    """The object to reconcile. ``namespace`` is ``""`` for cluster-scoped kinds.

    A NamedTuple: immutable, and hashed in C (the work queue hashes it on every add).
    """

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def namespace_or_none(self) -> str | None:
        """The namespace as the client wants it (``None`` for cluster-scoped)."""
        return self.namespace or None


@dataclass(frozen=True, slots=True)
class Result:
    """``requeue_after``: reconcile this request again after that many seconds (virtual time)."""

    requeue_after: float | None = None


class TerminalError(Exception):
    """An error that retrying cannot fix: logged and recorded, never requeued."""


@runtime_checkable
class Reconciler(Protocol):
    def reconcile(self, request: Request) -> Result | Awaitable[Result | None] | None: ...


class _FuncReconciler:
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Request], Any]) -> None:
        self.fn = fn

    def reconcile(self, request: Request) -> Any:
        return self.fn(request)

    def __repr__(self) -> str:
        return f"reconcile_func({getattr(self.fn, '__qualname__', self.fn)!r})"


def reconcile_func(fn: Callable[[Request], Any]) -> Reconciler:
    """Make a plain (or async) function a :class:`Reconciler`."""
    return _FuncReconciler(fn)


def as_reconciler(obj: Reconciler | Callable[[Request], Any]) -> Reconciler:
    if hasattr(obj, "reconcile"):
        return obj  # type: ignore[return-value]
    if callable(obj):
        return reconcile_func(obj)
    raise TypeError(f"{obj!r} is neither a Reconciler nor a function of a Request")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one reconcile did, as the loop records it."""

    result: Result | None
    error: BaseException | None = None

    @property
    def kind(self) -> str:
        if self.error is None:
            return "requeue_after" if self.result and self.result.requeue_after else "success"
        return "terminal" if isinstance(self.error, TerminalError) else "error"


def _drive(awaitable: Awaitable[Any]) -> Any:
    """Run a coroutine that never really suspends (virtual mode) to completion."""
    coro = awaitable.__await__()
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("an async reconciler awaited real I/O inside the virtual loop; "
                       "use the client's synchronous calls (they answer immediately)")


def run_reconcile(reconciler: Reconciler, request: Request) -> Outcome:
    """Call the reconciler, catching every ``Exception`` into the outcome (never raises them)."""
    try:
        value = reconciler.reconcile(request)
        if value is None:
            return _SUCCESS
        if inspect.isawaitable(value):
            value = _drive(value)
    except Exception as exc:  # a reconciler must not take the manager down
        return Outcome(None, exc)
    if value is not None and not isinstance(value, Result):
        return Outcome(None, TypeError(f"reconcile returned {value!r}; expected Result or None"))
    return Outcome(value)


_SUCCESS = Outcome(None)


def handle_outcome(queue: RateLimitingQueue[Request], request: Request, outcome: Outcome) -> float | None:
    """The one mapping from a reconcile outcome to the queue (controller-runtime's
    ``reconcileHandler``): error → rate-limited re-add (terminal: forget); ``requeue_after`` →
    forget, then add after the delay; success → forget. ``done`` is the caller's, always.

    Returns the delay before the request comes back, or ``None`` if it does not."""
    if outcome.error is not None:
        if isinstance(outcome.error, TerminalError):
            queue.forget(request)
            return None
        return queue.add_rate_limited(request)
    queue.forget(request)
    if outcome.result is not None and outcome.result.requeue_after:
        queue.add_after(request, outcome.result.requeue_after)
        return outcome.result.requeue_after
    return None


async def arun_reconcile(reconciler: Reconciler, request: Request) -> Outcome:
    """Like :func:`run_reconcile`, but awaits an ``async def reconcile`` (real-clock mode)."""
    try:
        value = reconciler.reconcile(request)
        if inspect.isawaitable(value):
            value = await value
    except Exception as exc:  # a reconciler must not take the manager down
        return Outcome(None, exc)
    if value is not None and not isinstance(value, Result):
        return Outcome(None, TypeError(f"reconcile returned {value!r}; expected Result or None"))
    return Outcome(value)
