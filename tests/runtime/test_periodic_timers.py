"""Periodic (housekeeping) timers fire like others but are not pending work."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.timers import TimerQueue

ops = st.lists(
    st.one_of(
        st.tuples(st.just("schedule"), st.integers(0, 20), st.booleans()),
        st.tuples(st.just("cancel"), st.integers(0, 30), st.just(False)),
        st.tuples(st.just("pop"), st.integers(0, 20), st.just(False)),
    ),
    max_size=60,
)


@given(ops)
def test_pending_work_counts_only_live_non_periodic_timers(steps: list[tuple[str, int, bool]]) -> None:
    timers = TimerQueue()
    live: dict[int, bool] = {}  # handle -> periodic
    for op, n, periodic in steps:
        if op == "schedule":
            live[timers.schedule_call(float(n), lambda _: None, None, periodic=periodic)] = periodic
        elif op == "cancel":
            assert timers.cancel(n) == (n in live)
            live.pop(n, None)
        else:
            while (timer := timers.pop_due(float(n))) is not None:
                live.pop(timer.seq)
        assert timers.has_pending_work() == any(not p for p in live.values())
        assert len(timers) == len(live)


def test_pod_gc_sweep_does_not_keep_an_empty_cluster_busy() -> None:
    # upstream podgc sweeps every 20 s forever; its timer is housekeeping, not work
    cp = ControlPlane(seed=0)
    assert "podgc" in cp.enabled
    cp.run_until_idle()  # the first sweep runs and schedules the next one
    assert len(cp.timers) >= 1 and not cp.timers.has_pending_work()
    cp.advance(60)  # the sweeps still fire
    assert not cp.timers.has_pending_work()
