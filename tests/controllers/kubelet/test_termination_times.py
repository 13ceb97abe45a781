"""``stop_times``: ``killContainer``'s arithmetic (hook seconds truncated and taken off, the sidecar's
wait likewise, never under ``minimumGracePeriodInSeconds``)."""

from __future__ import annotations

import pytest

from kbatch.controllers.kubelet.termination import Hook, StopTimes, stop_times

CASES = [
    # (grace, hook seconds, turn, signal at, SIGKILL at)
    (30, None, None, 0.0, 30.0),
    (30, 5.0, None, 5.0, 30.0),
    (30, 2.5, None, 2.5, 30.5),  # 2 whole seconds come off: 28 left from 2.5
    (10, 40.0, None, 10.0, 12.0),  # the hook outlived the grace period: 2 s once
    (10, 9.5, None, 9.5, 11.5),  # 1 s left, raised to 2
    (0, 5.0, None, 0.0, 2.0),  # no grace period: no hook, the minimum
    (30, None, 12.0, 12.0, 30.0),  # a sidecar signalled when the app containers have exited
    (30, 4.0, 12.0, 12.0, 30.0),  # its own hook ran meanwhile
    (30, 4.0, 3.0, 4.0, 30.0),  # the app containers were done before its hook
    (10, None, 25.0, 10.0, 12.0),  # its turn never came within the grace period
]


@pytest.mark.parametrize(("grace", "hook", "turn", "signal", "kill"), CASES)
def test_stop_times(grace: float, hook: float | None, turn: float | None, signal: float, kill: float) -> None:
    got = stop_times(0.0, grace, Hook(hook) if hook is not None else None, turn)
    assert got == StopTimes(signal, kill)
