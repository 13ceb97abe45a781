"""Runtime benchmarks (issue 4). Run: ``python benchmarks/runtime_bench.py``.

1. work queue: add/get/done cycles per second (target >= 200,000/s);
2. a no-op reconciler over 100,000 objects through the manager and loop (target <= 2 s);
3. advance through 1,000,000 timers (requeue-after delays) in virtual time (target <= 5 s).

Wall time is measured here, outside kbatch (only ``kbatch/runtime/clock.py`` may read it inside).
"""

from __future__ import annotations

import time

from kbatch.runtime.cache import Cache
from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.loop import Loop
from kbatch.runtime.manager import Manager
from kbatch.runtime.reconcile import Request
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.workqueue import Queue


def bench_queue(n: int = 500_000) -> float:
    q: Queue[Request] = Queue()
    items = [Request("default", f"obj-{i % 1000}") for i in range(n)]
    start = time.perf_counter()
    for item in items:
        q.add(item)
        got = q.get()
        q.done(got)  # type: ignore[arg-type]
    return n / (time.perf_counter() - start)


def _engine() -> tuple[VirtualClock, Manager, Loop]:
    clock, timers = VirtualClock(), TimerQueue()
    manager = Manager(Cache(client=None), clock, timers)
    return clock, manager, Loop(clock, timers, manager)


def bench_noop_reconciler(n: int = 100_000) -> float:
    _, manager, loop = _engine()
    controller = manager.build("noop").complete(lambda request: None)
    requests = [Request("default", f"obj-{i}") for i in range(n)]
    start = time.perf_counter()
    for request in requests:
        controller.enqueue(request)
    done = loop.run_until_idle()
    elapsed = time.perf_counter() - start
    assert done == n, done
    return elapsed


def bench_timers(n: int = 1_000_000) -> tuple[float, float, float]:
    """Returns (seconds to schedule n delayed adds, seconds for advance() to fire them all and
    reconcile each, seconds for advance() through n bare timers)."""
    clock, manager, loop = _engine()
    controller = manager.build("timers").complete(lambda request: None)
    queue = controller.queue
    requests = [Request("default", f"t-{i}") for i in range(n)]
    start = time.perf_counter()
    for i, request in enumerate(requests):
        queue.add_after(request, 1 + (i % 3600))
    scheduled = time.perf_counter()
    loop.advance(3601)
    advanced = time.perf_counter()
    assert controller.reconciles == n and clock.now() == 3601, controller.reconciles
    clock, manager, loop = _engine()
    fired = [0]

    def tick(_: object) -> None:
        fired[0] += 1

    for i in range(n):
        loop.timers.schedule_call(1.0 + (i % 3600), tick, None)
    bare = time.perf_counter()
    loop.advance(3601)
    assert fired[0] == n
    return scheduled - start, advanced - scheduled, time.perf_counter() - bare


def main() -> None:
    rate = bench_queue()
    print(f"work queue add/get/done: {rate:,.0f} cycles/s (target >= 200,000/s) "
          f"{'OK' if rate >= 200_000 else 'MISS'}")
    secs = bench_noop_reconciler()
    print(f"no-op reconciler, 100,000 objects: {secs:.2f} s (target <= 2 s) {'OK' if secs <= 2 else 'MISS'}")
    schedule, advance, bare = bench_timers()
    print(f"advance through 1,000,000 timers, each a delayed add that triggers a reconcile: {advance:.2f} s "
          f"(target <= 5 s) {'OK' if advance <= 5 else 'MISS'}; scheduling them took {schedule:.2f} s")
    print(f"advance through 1,000,000 bare timers: {bare:.2f} s (target <= 5 s) "
          f"{'OK' if bare <= 5 else 'MISS'}")


if __name__ == "__main__":
    main()
