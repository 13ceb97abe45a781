"""When each store revision was committed, in virtual time: what a server-side table row of a watch
event is measured against (kbatch/server/watch.py).

Virtual time moves only between instants at which everything due has run (``Loop`` jumps the clock
after a ``run_until_idle``), so every revision written since the previous jump was committed at the
instant the clock is about to leave. :meth:`RevisionTimes.mark`, called before each jump, records
that as one step ``(highest revision, instant)``; a revision's commit instant is the instant of the
first step whose revision reaches it, or now when no step does yet (written at the current instant).
The newest :data:`KEPT` steps are kept; an older revision gets the oldest kept instant, which is
never earlier than its true one.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

__all__ = ["KEPT", "RevisionTimes"]

KEPT = 4096  # steps (clock jumps that followed writes); kept in every image, so few


class RevisionTimes:
    def __init__(self, store: Any, clock: Any) -> None:
        self._store = store
        self._clock = clock
        self._revisions: list[int] = []
        self._instants: list[float] = []

    def mark(self) -> None:
        """The clock is about to leave its current instant: what was written up to now, was written now."""
        revision = self._store.revision
        if self._revisions and self._revisions[-1] >= revision:
            return
        self._revisions.append(revision)
        self._instants.append(self._clock.now())
        if len(self._revisions) > KEPT:  # drop the oldest half at once: amortised O(1)
            del self._revisions[:KEPT // 2], self._instants[:KEPT // 2]

    def instant_of(self, revision: int) -> float:
        """The clock instant at which ``revision`` was committed (see the module docstring)."""
        i = bisect_left(self._revisions, revision)
        return self._instants[i] if i < len(self._instants) else self._clock.now()
