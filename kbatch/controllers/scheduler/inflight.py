"""The cluster events seen while pods are being scheduled (upstream ``activeQueue``'s
``inFlightPods`` and ``inFlightEvents``, ``pkg/scheduler/backend/queue/active_queue.go``).

A pod is in flight from the moment it is popped until it is bound, deleted or put back; in kbatch
that window is long only for a pod waiting at Permit. Events of interest that happen meanwhile
are kept, so that when the pod comes back rejected, the queue can ask its rejecting plugins'
hints about them (``determineSchedulingHintForInFlightPod``) instead of missing them. Events are
kept only while some pod is in flight, and only from the oldest in-flight pod's start on.
"""

from __future__ import annotations

from typing import Any

from kbatch.controllers.scheduler.events import ClusterEvent

__all__ = ["InFlightEvents", "Recorded"]

Recorded = tuple[ClusterEvent, Any, Any]


class InFlightEvents:
    def __init__(self) -> None:
        self._start: dict[str, int] = {}  # pod key -> sequence number of the first event it sees
        self._events: list[Recorded] = []
        self._base = 0  # sequence number of self._events[0]

    def __bool__(self) -> bool:
        return bool(self._start)

    def begin(self, key: str) -> None:
        self._start[key] = self._base + len(self._events)

    def record(self, event: ClusterEvent, old: Any, new: Any) -> None:
        if self._start:
            self._events.append((event, old, new))

    def finish(self, key: str) -> list[Recorded]:
        """The events ``key`` saw in flight (empty if it was not in flight); it is no longer."""
        start = self._start.pop(key, None)
        seen = self._events[start - self._base:] if start is not None else []
        if not self._start:
            self._base += len(self._events)
            self._events.clear()
        elif start is not None and start == self._base:
            oldest = min(self._start.values())
            del self._events[:oldest - self._base]
            self._base = oldest
        return seen
