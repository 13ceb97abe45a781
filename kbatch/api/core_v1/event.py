"""core/v1 Event (k8s.io/api ``core/v1/types.go``), what the event recorder writes.

Unlike most kinds an Event has no spec/status: its fields sit at the top level.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, MicroTime, Time
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.meta import Resource

__all__ = ["Event", "EventSeries", "EventSource"]


class EventSource(KubeModel):
    component: str | None = None
    host: str | None = None


class EventSeries(KubeModel):
    count: int | None = None
    last_observed_time: MicroTime | None = None


class Event(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Event", plural="events", namespaced=True,
        short_names=("ev",), singular="event", subresources=(),
    )

    involved_object: ObjectReference = Field(default_factory=ObjectReference)
    reason: str | None = None
    message: str | None = None
    source: EventSource | None = None
    first_timestamp: Time | None = None
    last_timestamp: Time | None = None
    count: int | None = None
    type: str | None = None  # Normal | Warning
    event_time: MicroTime | None = None
    series: EventSeries | None = None
    action: str | None = None
    related: ObjectReference | None = None
    reporting_component: str = ""
    reporting_instance: str = ""
