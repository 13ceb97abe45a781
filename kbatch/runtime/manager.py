"""The manager: holds the controllers and steps them in a defined order (controller-runtime
``pkg/manager``, minus the goroutines).

Controllers are kept in registration order. :meth:`Manager.process_one` gives the next ready
request to the next controller *round-robin* (starting after the controller that ran last), so one
busy controller cannot starve the others and the order never depends on hashing or timing.

Besides queue-driven controllers the manager runs *steppers*: components with ``step() -> int``
(how much work they did; 0 when idle), such as the API server's garbage collector. Runnables
(``async def start()``) join the anyio task group in real-clock mode.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, runtime_checkable

from kbatch.runtime.builder import Builder
from kbatch.runtime.cache import Cache
from kbatch.runtime.clock import Clock
from kbatch.runtime.controller import Controller, ReconcileRecord
from kbatch.runtime.timers import TimerQueue

__all__ = ["Closing", "Manager", "Stepper"]

log = logging.getLogger("kbatch.runtime.manager")


@runtime_checkable
class Stepper(Protocol):
    name: str

    def step(self) -> int:
        """Do pending work now; return how much was done (0 = idle)."""
        ...


@runtime_checkable
class Closing(Protocol):
    """A stepper holding a resource beyond the manager (a store watch): released at shutdown."""

    def close(self) -> None: ...


class Manager:
    def __init__(self, cache: Cache, clock: Clock, timers: TimerQueue) -> None:
        self.cache = cache
        self.clock = clock
        self.timers = timers
        self.controllers: list[Controller] = []
        self.steppers: list[Stepper] = []
        self.runnables: list[Callable[[], Coroutine[Any, Any, None]]] = []
        self.observers: list[Callable[[ReconcileRecord], None]] = []
        self._next = 0

    def build(self, name: str) -> Builder:
        """Start declaring a controller named ``name`` (see :class:`~kbatch.runtime.builder.Builder`)."""
        return Builder(self, name)

    def add(self, controller: Controller | Stepper) -> None:
        names = [c.name for c in self.controllers] + [s.name for s in self.steppers]
        if controller.name in names:
            raise ValueError(f"a controller named {controller.name!r} is already registered")
        if isinstance(controller, Controller):
            self.controllers.append(controller)
        else:
            self.steppers.append(controller)

    def add_runnable(self, fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.runnables.append(fn)

    def get(self, name: str) -> Controller:
        for c in self.controllers:
            if c.name == name:
                return c
        raise KeyError(f"no controller named {name!r}")

    def observe(self, record: ReconcileRecord) -> None:
        for fn in self.observers:
            fn(record)

    # -- stepping ----------------------------------------------------------------------------------
    def next_ready(self) -> Controller | None:
        """The controller that should run next (round-robin over those with ready work)."""
        controllers = self.controllers
        start = self._next
        # hot path (every round of the loop scans here): two plain ranges instead of an index modulo
        # per controller, and len() of each queue without the call
        for i in range(start, len(controllers)):
            if controllers[i].queue._queue:
                return self._ran(i)
        for i in range(start):
            if controllers[i].queue._queue:
                return self._ran(i)
        return None

    def _ran(self, i: int) -> Controller:
        """Controller ``i`` runs now: the next scan starts after it."""
        self._next = (i + 1) % len(self.controllers)
        return self.controllers[i]

    def process_one(self) -> bool:
        controller = self.next_ready()
        return controller.process_one() if controller is not None else False

    async def aprocess_one(self) -> bool:
        controller = self.next_ready()
        return await controller.aprocess_one() if controller is not None else False

    def step_steppers(self) -> int:
        return sum(s.step() for s in self.steppers)

    def has_ready(self) -> bool:
        return any(c.queue._queue for c in self.controllers)

    def shutdown(self) -> None:
        for c in self.controllers:
            c.queue.shutdown()
        for s in self.steppers:
            if isinstance(s, Closing):
                s.close()
