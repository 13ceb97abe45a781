"""The loop's semantics without an API server: run_until_idle, advance, back-off, crashes."""

from __future__ import annotations

import itertools

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.cache import Cache
from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.controller import ReconcileRecord
from kbatch.runtime.loop import Loop, NotConverging
from kbatch.runtime.manager import Manager
from kbatch.runtime.reconcile import Request, Result, TerminalError
from kbatch.runtime.timers import TimerQueue


def _setup() -> tuple[VirtualClock, Manager, Loop, list[ReconcileRecord]]:
    clock, timers = VirtualClock(), TimerQueue()
    manager = Manager(Cache(client=None), clock, timers)
    records: list[ReconcileRecord] = []
    manager.observers.append(records.append)
    return clock, manager, Loop(clock, timers, manager), records


def test_requeue_after_fires_in_virtual_time_and_time_does_not_move_while_busy() -> None:
    clock, manager, loop, _ = _setup()
    seen: list[tuple[float, str]] = []

    def reconcile(req: Request) -> Result | None:
        seen.append((clock.now(), req.name))
        return Result(requeue_after=10) if len(seen) < 3 else None

    ctrl = manager.build("ticker").complete(reconcile)
    ctrl.enqueue(Request("ns", "a"))
    assert loop.run_until_idle() == 1 and clock.now() == 0
    loop.advance(25)
    assert seen == [(0, "a"), (10, "a"), (20, "a")]
    assert clock.now() == 25
    loop.advance(100)
    assert len(seen) == 3


def test_failing_reconciler_backs_off_exponentially_without_taking_the_manager_down() -> None:
    clock, manager, loop, records = _setup()
    attempts: list[float] = []
    healthy: list[str] = []

    def broken(req: Request) -> None:
        attempts.append(clock.now())
        raise RuntimeError("boom")

    manager.build("broken").complete(broken).enqueue(Request("", "x"))
    manager.build("healthy").complete(lambda r: healthy.append(r.name)).enqueue(Request("", "y"))
    loop.advance(1.0)
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(attempts)]
    assert gaps[:5] == [0.005, 0.01, 0.02, 0.04, 0.08]
    assert healthy == ["y"]
    assert records[0].outcome == "error" and records[0].error == "RuntimeError: boom"
    assert records[0].retry_in == 0.005
    assert manager.get("broken").errors == len(attempts)


def test_terminal_error_is_not_retried() -> None:
    _, manager, loop, records = _setup()
    calls: list[str] = []

    def fatal(req: Request) -> None:
        calls.append(req.name)
        raise TerminalError("bad spec")

    manager.build("fatal").complete(fatal).enqueue(Request("", "x"))
    loop.advance(3600)
    assert calls == ["x"]
    assert [r.outcome for r in records] == ["terminal"]


def test_controllers_take_turns_round_robin() -> None:
    _, manager, loop, _ = _setup()
    order: list[str] = []
    a = manager.build("a").complete(lambda r: order.append("a" + r.name))
    b = manager.build("b").complete(lambda r: order.append("b" + r.name))
    for i in range(3):
        a.enqueue(Request("", str(i)))
        b.enqueue(Request("", str(i)))
    loop.run_until_idle()
    assert order == ["a0", "b0", "a1", "b1", "a2", "b2"]


def test_duplicate_controller_names_are_rejected() -> None:
    _, manager, _, _ = _setup()
    manager.build("x").complete(lambda r: None)
    with pytest.raises(ValueError, match="already registered"):
        manager.build("x").complete(lambda r: None)


def test_livelock_is_reported() -> None:
    _, manager, loop, _ = _setup()
    loop.max_steps = 1000
    ctrl = manager.build("spin").complete(
        lambda r: ctrl.enqueue(Request("", "other" if r.name == "x" else "x")))
    ctrl.enqueue(Request("", "x"))
    with pytest.raises(NotConverging):
        loop.run_until_idle()


def test_wait_for_autojumps_to_deadlines_and_times_out() -> None:
    clock, manager, loop, _ = _setup()
    done: list[float] = []
    ctrl = manager.build("later").complete(lambda r: done.append(clock.now()))
    ctrl.queue.add_after(Request("", "x"), 42)
    assert loop.wait_for(lambda: bool(done), timeout=100) == 42
    with pytest.raises(TimeoutError):
        loop.wait_for(lambda: False, timeout=5)
    assert clock.now() == 47


def test_timers_with_equal_deadlines_fire_in_scheduling_order_each_settled() -> None:
    _clock, manager, loop, _ = _setup()
    order: list[str] = []
    ctrl = manager.build("c").complete(lambda r: order.append(r.name))
    for name in ["z", "a", "m"]:
        ctrl.queue.add_after(Request("", name), 5)
    loop.advance(5)
    assert order == ["z", "a", "m"]


def test_async_reconciler_in_sync_and_async_entry_points() -> None:
    clock, manager, loop, _ = _setup()
    seen: list[str] = []

    async def reconcile(req: Request) -> Result | None:
        seen.append(req.name)
        return None

    ctrl = manager.build("async").complete(reconcile)
    ctrl.enqueue(Request("", "sync"))
    loop.run_until_idle()
    ctrl.enqueue(Request("", "async"))

    async def main() -> None:
        await loop.arun_until_idle()
        await loop.aadvance(5)

    anyio.run(main)
    assert seen == ["sync", "async"] and clock.now() == 5


def test_negative_advance_is_refused() -> None:
    _, _, loop, _ = _setup()
    with pytest.raises(ValueError, match="backwards"):
        loop.advance(-1)


@given(
    delays=st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(1, 40)), max_size=25),
    steps=st.lists(st.integers(0, 15), min_size=1, max_size=8),
)
def test_advance_reconciles_each_item_at_its_earliest_deadline_in_order(
    delays: list[tuple[str, int]], steps: list[int]
) -> None:
    clock, manager, loop, _ = _setup()
    seen: list[tuple[float, str]] = []
    ctrl = manager.build("timed").complete(lambda r: seen.append((clock.now(), r.name)))
    for name, delay in delays:
        ctrl.queue.add_after(Request("", name), delay)
    want: dict[str, tuple[int, int]] = {}  # name -> (deadline, first scheduling position)
    for pos, (name, delay) in enumerate(delays):
        if name not in want or delay < want[name][0]:
            want[name] = (delay, pos if name not in want or delay < want[name][0] else want[name][1])
    now = 0.0
    for step in steps:
        before = clock.now()
        loop.advance(step)
        now += step
        assert clock.now() == now >= before
        assert ctrl.queue.processing_count == 0 and len(ctrl.queue) == 0, "idle after advance"
    expected = sorted(((float(d), n) for n, (d, _) in want.items() if d <= now),
                      key=lambda e: (e[0], want[e[1]][1]))
    assert [n for _, n in seen] == [n for _, n in expected]
    assert seen == expected


def test_a_loop_cancelled_while_running_on_the_real_clock_keeps_no_event_and_pickles() -> None:
    """``kbatch serve --clock real`` cancels ``run()`` at shutdown and then saves the control plane:
    the event of the finished event loop must not stay behind (it does not pickle)."""
    import pickle

    from kbatch.runtime.clock import RealClock

    clock, timers = RealClock(), TimerQueue()
    loop = Loop(clock, timers, Manager(Cache(client=None), clock, timers))

    async def main() -> None:
        with anyio.move_on_after(0.05):
            await loop.run()

    anyio.run(main)
    assert loop._event is None
    assert pickle.loads(pickle.dumps(loop))._event is None


def test_another_thread_wakes_a_real_clock_loop_asleep_without_timers() -> None:
    """``wake_threadsafe``: a MultiKueue watch reader (another thread) hands an event over while the
    loop sleeps with no timer due; the loop runs a round at once (without it, the round would wait for
    the next timer, here forever)."""
    import threading

    from kbatch.runtime.clock import RealClock

    clock, timers = RealClock(), TimerQueue()
    loop = Loop(clock, timers, Manager(Cache(client=None), clock, timers))
    box: list[int] = []
    drained: list[int] = []

    async def main() -> None:
        done = anyio.Event()

        def source() -> int:
            moved = len(box)
            drained.extend(box)
            box.clear()
            if drained:
                done.set()
            return moved

        loop.add_source(source)
        async with anyio.create_task_group() as tg:
            tg.start_soon(loop.run)
            await anyio.wait_all_tasks_blocked()  # the loop is asleep: no timer, nothing pending

            def post() -> None:
                box.append(1)
                loop.wake_threadsafe()

            thread = threading.Thread(target=post)
            thread.start()
            with anyio.fail_after(30):
                await done.wait()
            loop.stop()
        thread.join()

    anyio.run(main)
    assert drained == [1]
    assert loop._token is None
