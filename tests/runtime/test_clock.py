"""VirtualClock, durations and the timer queue."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.clock import DEFAULT_START, Clock, RealClock, VirtualClock
from kbatch.runtime.duration import format_duration, parse_duration
from kbatch.runtime.timers import TimerQueue


def test_virtual_clock_starts_at_fixed_instant_and_only_moves_forward() -> None:
    clock = VirtualClock()
    assert clock.now() == 0.0
    assert clock.now_datetime() == DEFAULT_START
    clock.advance(90)
    assert clock.now_datetime() == datetime(2025, 1, 1, 0, 1, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="backwards"):
        clock.jump_to(10)
    assert clock.now() == 90.0


def test_virtual_clock_start_is_configurable_and_must_be_aware() -> None:
    start = datetime(2030, 6, 1, 12, tzinfo=UTC)
    assert VirtualClock(start).now_datetime() == start
    with pytest.raises(ValueError):
        VirtualClock(datetime(2030, 6, 1))


def test_both_clocks_satisfy_the_protocol() -> None:
    assert isinstance(VirtualClock(), Clock)
    real = RealClock()
    assert isinstance(real, Clock)
    assert real.now() >= 0 and real.now_datetime().tzinfo is not None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("500ms", 0.5), ("2s", 2.0), ("1m30s", 90.0), ("1h", 3600.0), ("5m", 300.0), (7, 7.0), ("0", 0.0),
     ("1.5h", 5400.0), ("10", 10.0)],
)
def test_parse_duration_go_syntax(text: str | int, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("bad", ["", "5x", "m", "-5s", "1h-2m", -1, "5 m"])
def test_parse_duration_rejects_garbage(bad: str | int) -> None:
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_format_duration() -> None:
    assert format_duration(90) == "1m30s"
    assert format_duration(0.005) == "5ms"
    assert format_duration(3600) == "1h"


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0s"), (0.5, "500ms"), (0.0015, "1.5ms"), (1e-6, "1µs"), (2.5e-6, "2.5µs"), (1e-9, "1ns"),
    (0.999999999, "999.999999ms"),
])
def test_format_duration_below_a_second_as_go(seconds: float, text: str) -> None:
    """Go's time.Duration.String below a second (time/time.go): ms, µs or ns, trailing zeros cut."""
    assert format_duration(seconds) == text


def test_timer_ties_fire_in_scheduling_order_and_cancel_is_lazy() -> None:
    timers = TimerQueue()
    fired: list[str] = []
    timers.schedule(5.0, lambda: fired.append("b"))
    a = timers.schedule(1.0, lambda: fired.append("a"))
    timers.schedule(5.0, lambda: fired.append("c"))
    x = timers.schedule(3.0, lambda: fired.append("x"))
    assert timers.cancel(x) is True
    assert timers.cancel(x) is False
    assert len(timers) == 3 and timers.next_deadline() == 1.0
    while (t := timers.pop_due(10.0)) is not None:
        t.fire()
    assert fired == ["a", "b", "c"]
    assert timers.cancel(a) is False  # cancelling a fired timer changes nothing
    assert len(timers) == 0 and timers.next_deadline() is None


@given(
    deadlines=st.lists(st.integers(0, 50), max_size=60),
    cancels=st.sets(st.integers(0, 59)),
    steps=st.lists(st.integers(0, 20), min_size=1, max_size=10),
)
def test_timers_fire_in_time_then_insertion_order_under_random_advances(
    deadlines: list[int], cancels: set[int], steps: list[int]
) -> None:
    timers = TimerQueue()
    fired: list[int] = []
    handles = [timers.schedule(float(d), lambda i=i: fired.append(i)) for i, d in enumerate(deadlines)]
    for i in sorted(cancels):
        if i < len(handles):
            timers.cancel(handles[i])
    now = 0.0
    for step in steps:
        now += step
        while (t := timers.pop_due(now)) is not None:
            assert t.deadline <= now
            t.fire()
        timers.prune()
        nxt = timers.next_deadline()
        assert nxt is None or nxt > now
    live = [i for i in range(len(deadlines)) if i not in cancels and deadlines[i] <= now]
    assert fired == sorted(live, key=lambda i: (deadlines[i], i))
    assert len(timers) == sum(1 for i, d in enumerate(deadlines) if i not in cancels and d > now)


@given(st.integers(min_value=0, max_value=999_999_999))
def test_format_duration_below_a_second_reads_back(nanos: int) -> None:
    """What kbatch prints for a sub-second duration parses back (Go's ParseDuration syntax) to the
    same nanoseconds."""
    assert round(parse_duration(format_duration(nanos / 1_000_000_000)) * 1_000_000_000) == nanos
