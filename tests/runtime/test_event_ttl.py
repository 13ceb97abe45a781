"""Events expire an hour after their last write (kube-apiserver ``--event-ttl``), at the same virtual
instants however time is advanced."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event
from kbatch.runtime.clock import VirtualClock
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.event_ttl import EVENT_TTL, EventExpiry
from kbatch.runtime.timers import TimerQueue
from kbatch.store import MemoryStore


def _event(name: str, count: int = 1) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
            "reason": "Test", "message": f"seen {count} times", "count": count, "type": "Normal"}


def _names(cp: ControlPlane) -> list[str]:
    return sorted(e.metadata.name for e in cp.client.list(Event, "default").items)


def test_an_event_is_gone_an_hour_after_its_last_write_and_an_update_renews_it() -> None:
    cp = ControlPlane(controllers="")
    cp.apply([_event("old"), _event("renewed")])
    cp.advance("30m")
    cp.apply(_event("renewed", count=2))
    cp.advance(EVENT_TTL - 30 * 60 - 1)
    assert _names(cp) == ["old", "renewed"], "one second before the hour both are there"
    cp.advance(1)
    assert _names(cp) == ["renewed"], "the first is deleted at its hour"
    cp.advance("30m")
    assert _names(cp) == [], "the renewed one an hour after its update"
    deletes = [r for r in cp.trace.records if r.verb == "delete" and r.kind == "Event"]
    assert [(r.name, r.t) for r in deletes] == [("old", "2025-01-01T01:00:00.000000Z"),
                                                   ("renewed", "2025-01-01T01:30:00.000000Z")]


def test_the_ttl_can_be_switched_off() -> None:
    cp = ControlPlane(controllers="", event_ttl=None)
    cp.apply(_event("kept"))
    cp.advance("3h")
    assert _names(cp) == ["kept"]


def test_rejects_a_non_positive_ttl() -> None:
    with pytest.raises(ValueError):
        EventExpiry(MemoryStore(), VirtualClock(), TimerQueue(), 0)


@settings(max_examples=25, deadline=None)
@given(writes=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7200)), min_size=1, max_size=12),
       steps=st.lists(st.integers(1, 5400), min_size=1, max_size=4))
def test_what_remains_is_what_was_written_within_the_hour_however_time_is_split(
        writes: list[tuple[int, int]], steps: list[int]) -> None:
    """Writes at given offsets (names reused: updates), then the same total advance in one step or in
    several: the same Events remain (those last written less than the TTL ago) and the same trace."""
    def run(split: list[int]) -> tuple[list[str], str]:
        cp = ControlPlane(controllers="")
        start = cp.clock.now()
        last: dict[str, float] = {}
        for i, (name, at) in enumerate(sorted(writes, key=lambda w: w[1])):
            cp.advance(at - (cp.clock.now() - start))
            cp.apply(_event(f"e{name}", count=i + 1))
            last[f"e{name}"] = cp.clock.now() - start
        for step in split:
            cp.advance(step)
        now = cp.clock.now() - start
        assert _names(cp) == sorted(n for n, t in last.items() if now - t < EVENT_TTL)
        return _names(cp), cp.trace.digest()

    assert run(steps) == run([sum(steps)])
