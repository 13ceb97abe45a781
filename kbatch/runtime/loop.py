"""The deterministic run loop: one thread, one ordered set of sources, one timer heap.

One *round* of the loop, repeated until nothing moves:

1. drain every watch source, in a fixed order (the trace first, then each informer), running the
   informers' handlers, which only enqueue requests;
2. run the steppers (e.g. the garbage collector);
3. reconcile **one** ready request (controllers round-robin, see ``Manager.process_one``);
4. if nothing else is ready, fire **one** due timer (``deadline <= now``, ties in scheduling order).

``run_until_idle()`` repeats rounds until a round does nothing: no watch event, no ready request,
no due timer. ``advance(d)`` (virtual clock only) then moves time to each timer deadline up to
``now + d`` in order, firing one timer and running until idle before the next, and finally sets
the clock to ``now + d``. Time never moves while work is pending at the current instant. When the
loop is idle and the caller waits for something (``wait_for``), the clock jumps straight to the next
deadline (trio's ``MockClock(autojump_threshold=0)``).

Real-clock mode (``await loop.run()``) runs the same rounds, then sleeps on an ``anyio.Event`` that
the watch sources' notify callbacks set, or until the next timer deadline, whichever comes first.
Notify callbacks must come from the loop's own thread (the in-process API server's writes do);
another thread calls :meth:`Loop.wake_threadsafe`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

import anyio

from kbatch.runtime.clock import Clock, VirtualClock
from kbatch.runtime.manager import Manager
from kbatch.runtime.timers import TimerQueue

__all__ = ["Loop", "NotConverging"]

log = logging.getLogger("kbatch.runtime.loop")

Source = Callable[[], int]  # drains pending events, returns how many it handled


class NotConverging(RuntimeError):
    """``run_until_idle`` did more than ``max_steps`` rounds without becoming idle (a livelock)."""


class Loop:
    max_steps = 10_000_000

    def __init__(self, clock: Clock, timers: TimerQueue, manager: Manager) -> None:
        self.clock = clock
        self.timers = timers
        self.manager = manager
        self.sources: list[Source] = []
        self.hooks: list[Callable[[], None]] = []  # run once per run_until_idle (e.g. compaction)
        self.before_jump: list[Callable[[], None]] = []  # run as virtual time is about to move on
        self._event: anyio.Event | None = None
        self._token: object | None = None  # the running event loop's (real-clock mode), for other threads
        self._stopped = False

    def add_source(self, source: Source) -> None:
        self.sources.append(source)

    def wake(self) -> None:
        """Notify callback for watch sources: something is pending (real-clock mode wakes up)."""
        if self._event is not None:
            self._event.set()

    def wake_threadsafe(self) -> None:
        """:meth:`wake` from another thread (a reader of a remote watch): a real-clock loop asleep until
        its next timer runs a round now; otherwise nothing (the next round picks the work up)."""
        token = self._token
        if token is None:
            return
        import anyio.from_thread

        with contextlib.suppress(Exception):  # the event loop is ending: nothing to wake
            anyio.from_thread.run_sync(self.wake, token=token)  # type: ignore[arg-type]

    # -- one round -------------------------------------------------------------------------------
    def _drain(self) -> int:
        moved = 0
        for source in self.sources:
            moved += source()
        if self.manager.steppers:
            moved += self.manager.step_steppers()
        return moved

    def _fire_one_due(self) -> bool:
        timer = self.timers.pop_due(self.clock.now())
        if timer is None:
            return False
        timer.fire()
        return True

    def run_until_idle(self) -> int:
        """Process everything due at the current instant; returns the number of reconciles."""
        reconciles = rounds = 0
        for hook in self.hooks:
            hook()
        manager, sources, max_steps = self.manager, self.sources, self.max_steps
        process_one, pop_due, now = manager.process_one, self.timers.pop_due, self.clock.now
        while True:  # one round per iteration (see the module docstring); kept flat: this is the hot loop
            rounds += 1
            if rounds > max_steps:
                raise NotConverging(f"not idle after {max_steps} rounds; controllers: {manager.controllers}")
            moved = 0
            for source in sources:
                moved += source()
            if manager.steppers:
                moved += manager.step_steppers()
            if process_one():
                reconciles += 1
                continue
            timer = pop_due(now())
            if timer is not None:
                timer[2](timer[3])
                continue
            if not moved:
                return reconciles

    async def arun_until_idle(self) -> int:
        """:meth:`run_until_idle`, awaiting ``async def`` reconcilers."""
        reconciles = 0
        for hook in self.hooks:
            hook()
        while True:
            moved = self._drain()
            if await self.manager.aprocess_one():
                reconciles += 1
                continue
            if self._fire_one_due() or moved:
                continue
            return reconciles

    # -- virtual time ----------------------------------------------------------------------------
    def _virtual(self) -> VirtualClock:
        if not isinstance(self.clock, VirtualClock):
            raise TypeError("advance/wait_for move virtual time; this control plane runs on a real clock")
        return self.clock

    def _jump(self, clock: VirtualClock, t: float) -> None:
        for hook in self.before_jump:
            hook()
        clock.jump_to(t)

    def advance(self, seconds: float) -> None:
        """Fire every timer up to ``now + seconds`` in order, settling after each; end there."""
        clock = self._virtual()
        if seconds < 0:
            raise ValueError(f"time can't go backwards (advance by {seconds})")
        target = clock.now() + seconds
        self.run_until_idle()
        while (deadline := self.timers.next_deadline()) is not None and deadline <= target:
            self._jump(clock, max(deadline, clock.now()))
            self.run_until_idle()
        self._jump(clock, target)
        self.run_until_idle()
        self.timers.prune()

    async def aadvance(self, seconds: float) -> None:
        clock = self._virtual()
        if seconds < 0:
            raise ValueError(f"time can't go backwards (advance by {seconds})")
        target = clock.now() + seconds
        await self.arun_until_idle()
        while (deadline := self.timers.next_deadline()) is not None and deadline <= target:
            self._jump(clock, max(deadline, clock.now()))
            await self.arun_until_idle()
        self._jump(clock, target)
        await self.arun_until_idle()
        self.timers.prune()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> float:
        """Autojump: run until idle, then jump to the next deadline, until ``predicate()`` holds.
        Returns the virtual seconds waited; raises ``TimeoutError`` after ``timeout``."""
        clock = self._virtual()
        start = clock.now()
        limit = start + timeout
        while True:
            self.run_until_idle()
            if predicate():
                return clock.now() - start
            deadline = self.timers.next_deadline()
            if deadline is None or deadline > limit:
                if clock.now() < limit:
                    self._jump(clock, limit)
                    self.run_until_idle()
                    if predicate():
                        return clock.now() - start
                raise TimeoutError(f"condition not met within {timeout}s of virtual time")
            self._jump(clock, max(deadline, clock.now()))

    # -- real time -------------------------------------------------------------------------------
    async def run(self) -> None:
        """Run forever on the real clock (until :meth:`stop`)."""
        self._stopped = False
        import anyio.lowlevel

        self._token = anyio.lowlevel.current_token()
        try:
            while not self._stopped:
                self._event = anyio.Event()
                await self.arun_until_idle()
                deadline = self.timers.next_deadline()
                timeout = None if deadline is None else max(0.0, deadline - self.clock.now())
                if timeout == 0.0:
                    await anyio.sleep(0)  # let other tasks run before the next round
                    continue
                with anyio.move_on_after(timeout):
                    await self._event.wait()
        finally:  # also when cancelled: the event belongs to this run's event loop only
            self._event = self._token = None

    def __getstate__(self) -> dict[str, object]:
        """A saved loop (kbatch/runtime/image.py) carries no event of a running event loop."""
        return {**self.__dict__, "_event": None, "_token": None}

    def stop(self) -> None:
        self._stopped = True
        self.wake()
