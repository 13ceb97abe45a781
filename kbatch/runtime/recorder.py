"""What a controller records Events through: the one surface both recorders offer.

A component records either core/v1 Events (client-go's ``tools/record``, :mod:`kbatch.runtime.events`)
or events.k8s.io/v1 Events (``tools/events``, :mod:`kbatch.runtime.events_v1`), as its upstream binary
does; ``ControllerSpec.events`` says which. Controllers call the same two methods on either, so
``ControllerContext.recorder`` is typed by this protocol. The richer call of events.k8s.io/v1
(``eventf`` with a ``related`` object and an ``action``) is reached by narrowing to
``EventsV1Recorder`` where upstream uses it (the scheduler's preemption).
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Recorder"]


class Recorder(Protocol):
    def event(self, obj: Any, type_: str, reason: str, message: str, field_path: str = "") -> None:
        """Record an Event about ``obj`` (``type_`` ``Normal`` or ``Warning``); never raises."""

    def sibling(self, component: str) -> Recorder:
        """Another component's recorder of the same process, sharing this one's caches."""
