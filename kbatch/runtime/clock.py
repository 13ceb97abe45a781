"""Clocks: the only module in kbatch that reads the wall clock.

Two implementations of one small protocol (the shape of trio's ``trio.abc.Clock`` and client-go's
injected ``clock.Clock``):

* :class:`VirtualClock` starts at a fixed instant (2025-01-01T00:00:00Z unless told otherwise) and
  moves only when told to, by :meth:`VirtualClock.advance` or :meth:`VirtualClock.jump_to`. It
  never moves backwards: like trio's ``MockClock.jump``, a negative step raises ``ValueError``.
* :class:`RealClock` follows the machine's monotonic clock for the timeline and the system clock
  for wall time. Only ``kbatch serve --clock real`` uses it.

``now()`` is seconds on the clock's own timeline (0.0 at the start instant for the virtual clock);
deadlines, back-offs and timers are all expressed on that timeline. ``now_datetime()`` is the
aware UTC wall time that goes into objects (creationTimestamp, conditions, events).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

__all__ = ["DEFAULT_START", "Clock", "RealClock", "VirtualClock", "wall_clock_start"]

DEFAULT_START = datetime(2025, 1, 1, tzinfo=UTC)


def wall_clock_start() -> datetime:
    """The machine's time now, to the second: a virtual clock's start for a state directory created
    with ``--clock-start now`` (recorded there, so every later command and replay reads the record)."""
    return datetime.now(UTC).replace(microsecond=0)


@runtime_checkable
class Clock(Protocol):
    """What the runtime needs from time."""

    @property
    def is_virtual(self) -> bool:
        """True when time moves only when the control plane moves it."""
        ...

    def now(self) -> float:
        """Seconds on this clock's timeline (monotonic, never decreasing)."""
        ...

    def now_datetime(self) -> datetime:
        """The current wall time as an aware UTC datetime."""
        ...

    def to_datetime(self, t: float) -> datetime:
        """The wall time of timeline instant ``t``."""
        ...


class VirtualClock:
    """A clock that moves only by :meth:`advance` / :meth:`jump_to` (trio ``MockClock`` with rate 0).

    >>> c = VirtualClock()
    >>> c.advance(90)
    >>> c.now(), c.now_datetime().isoformat()
    (90.0, '2025-01-01T00:01:30+00:00')
    """

    is_virtual = True

    def __init__(self, start: datetime = DEFAULT_START) -> None:
        if start.tzinfo is None:
            raise ValueError("VirtualClock start must be timezone-aware (use tzinfo=UTC)")
        self._start = start.astimezone(UTC)
        self._now = 0.0

    @property
    def start(self) -> datetime:
        return self._start

    def now(self) -> float:
        return self._now

    def now_datetime(self) -> datetime:
        return self.to_datetime(self._now)

    def to_datetime(self, t: float) -> datetime:
        return self._start + timedelta(seconds=t)

    def advance(self, seconds: float) -> None:
        """Move forward by ``seconds`` (>= 0). Time can't go backwards."""
        if seconds < 0:
            raise ValueError(f"time can't go backwards (advance by {seconds})")
        self._now += float(seconds)

    def jump_to(self, t: float) -> None:
        """Move to timeline instant ``t`` (>= now)."""
        if t < self._now:
            raise ValueError(f"time can't go backwards (jump to {t} < now {self._now})")
        self._now = float(t)

    def __repr__(self) -> str:
        return f"VirtualClock(now={self._now}, at={self.now_datetime().isoformat()})"


class RealClock:
    """The machine's clocks: ``time.monotonic`` for the timeline, ``datetime.now(UTC)`` for wall time."""

    is_virtual = False

    def __init__(self) -> None:
        self._origin = time.monotonic()
        self._wall_origin = datetime.now(UTC)

    def now(self) -> float:
        return time.monotonic() - self._origin

    def now_datetime(self) -> datetime:
        return datetime.now(UTC)

    def to_datetime(self, t: float) -> datetime:
        return self._wall_origin + timedelta(seconds=t)

    def __repr__(self) -> str:
        return f"RealClock(now={self.now():.3f})"
