"""The loop's watch sources cost nothing in a round with no write for them: the trace and the Event
expiry poll their watch only after it notified (``Watcher.set_notify`` never stays silent while
events wait, a cancellation included); and the manager's round-robin scan picks what a modulo scan
picks."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.event_ttl import EVENTS_PREFIX, EventExpiry
from kbatch.runtime.manager import Manager
from kbatch.runtime.timers import TimerQueue
from kbatch.runtime.trace import Trace
from kbatch.store import MemoryStore


class _CountingWatcher:
    """A watcher that counts its polls (everything else is the real one's)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.polls = 0

    def poll(self) -> Any:
        self.polls += 1
        return self.inner.poll()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _put(store: MemoryStore, key: bytes, n: int) -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
           "data": {"n": str(n)}}
    store.put(key, json.dumps(obj).encode())


def test_the_trace_polls_only_after_a_write_and_still_records_every_one() -> None:
    store, clock = MemoryStore(), VirtualClock()
    trace = Trace(store, clock)
    woken: list[int] = []
    trace.set_notify(lambda: woken.append(1))
    trace.pump()
    watcher = trace._watcher = _CountingWatcher(trace._watcher)
    for _ in range(3):
        assert trace.pump() == 0
    assert watcher.polls == 0, "no write since the last round: nothing to poll"
    woken.clear()
    _put(store, b"/registry/configmaps/default/c", 1)
    assert woken, "a write still wakes the loop (real-clock mode)"
    _put(store, b"/registry/configmaps/default/c", 2)
    assert trace.pump() == 2 and watcher.polls >= 1
    assert [json.loads(line)["verb"] for line in trace.lines()] == ["create", "update"]


def test_the_trace_sees_its_watch_cancelled_and_records_the_gap(tmp_path: Any) -> None:
    store, clock = MemoryStore(), VirtualClock()
    trace = Trace(store, clock)
    _put(store, b"/registry/configmaps/default/c", 1)
    trace.pump()
    trace.pump()  # idle: the next pump polls only if the cancellation notified
    store.snapshot(str(tmp_path / "snap"))
    store.restore(str(tmp_path / "snap"))  # cancels every open watch
    trace.pump()
    assert [json.loads(line)["verb"] for line in trace.lines()] == ["create", "gap"]
    _put(store, b"/registry/configmaps/default/c", 2)
    trace.pump()
    assert json.loads(trace.lines()[-1])["verb"] == "update", "followed again from the gap on"


def test_the_event_expiry_polls_only_after_an_event_write() -> None:
    store, clock = MemoryStore(), VirtualClock()
    timers = TimerQueue()
    expiry = EventExpiry(store, clock, timers)
    expiry.pump()
    watcher = expiry._watcher = _CountingWatcher(expiry._watcher)
    store.put(b"/registry/configmaps/default/c", b"{}")  # not an Event: no notify
    for _ in range(3):
        expiry.pump()
    assert watcher.polls == 0
    store.put(EVENTS_PREFIX + b"default/e1", b"{}")
    expiry.pump()
    assert watcher.polls >= 1 and [key for _, key, _ in expiry.pending] == [EVENTS_PREFIX + b"default/e1"]


def _reference_pick(busy: list[bool], start: int) -> int | None:
    """The scan as it was: offsets from ``start`` modulo the number of controllers."""
    n = len(busy)
    for offset in range(n):
        i = (start + offset) % n
        if busy[i]:
            return i
    return None


@given(busy=st.lists(st.booleans(), min_size=1, max_size=12), data=st.data())
def test_the_round_robin_scan_picks_what_the_modulo_scan_picks(busy: list[bool], data: Any) -> None:
    manager = Manager(cache=None, clock=None, timers=None)  # type: ignore[arg-type]
    controllers = [SimpleNamespace(queue=SimpleNamespace(_queue=[1] if b else []), name=str(i))
                   for i, b in enumerate(busy)]
    manager.controllers = controllers  # type: ignore[assignment]
    start = data.draw(st.integers(0, len(busy) - 1))
    manager._next = start
    expected = _reference_pick(busy, start)
    picked = manager.next_ready()
    assert (None if picked is None else controllers.index(picked)) == expected  # type: ignore[arg-type]
    assert manager._next == (start if expected is None else (expected + 1) % len(busy))


def test_the_cache_skips_idle_rounds_and_still_delivers_the_next_write() -> None:
    from kbatch.api.core_v1 import Pod
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.testing.builders import make_pod

    cp = ControlPlane(seed=3, controllers="scheduler")
    cp.advance(1)
    pumped: list[str] = []
    for informer in cp.cache.informers:
        inner = informer.pump
        kind = informer.kind.__name__
        def counted(inner: Any = inner, kind: str = kind) -> int:
            pumped.append(kind)
            return int(inner())
        informer.pump = counted  # type: ignore[method-assign]
    for _ in range(3):
        assert cp.cache.pump() == 0
    assert pumped == [], "nothing written since the last round: no informer is looked at"
    cp.client.create(make_pod("p").obj())
    assert cp.cache.pump() == 1 and pumped == ["Pod"]
    assert [p.metadata.name for p in cp.cache.list(Pod, "default")] == ["p"]
