"""events.k8s.io/v1 Event: the same stored object as core/v1 Event, served under its newer field names.

kube-apiserver stores one Event resource (``/registry/events``) and serves it in both groups: the
events.k8s.io REST storage reuses core's (``pkg/registry/events/rest/storage_events.go``), and a
request in either group is converted through the internal ``core.Event``
(``pkg/apis/events/v1/conversion.go``). The renamed fields:

==========================  ===========================
events.k8s.io/v1            core/v1
==========================  ===========================
``regarding``               ``involvedObject``
``note``                    ``message``
``reportingController``     ``reportingComponent``
``deprecatedSource``        ``source``
``deprecatedFirstTimestamp`` ``firstTimestamp``
``deprecatedLastTimestamp`` ``lastTimestamp``
``deprecatedCount``         ``count``
==========================  ===========================

Every other field (``eventTime``, ``series``, ``related``, ``action``, ``reason``, ``type``,
``reportingInstance``) keeps its name. :func:`to_storage` and :func:`from_storage` convert wire dicts,
partial ones (patches) too; kbatch stores the core/v1 form.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, MicroTime, Time
from kbatch.api.core_v1.common import ObjectReference
from kbatch.api.core_v1.event import EventSource
from kbatch.api.meta import Resource

__all__ = ["GROUP", "EventSeriesV1", "EventV1", "field_selector_to_storage", "from_storage", "to_storage"]

GROUP = "events.k8s.io"
API_VERSION = f"{GROUP}/v1"
CORE_API_VERSION = "v1"

# events.k8s.io/v1 name -> core/v1 name (the fields the conversion renames)
_RENAMED = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_BACK = {core: v1 for v1, core in _RENAMED.items()}


class EventSeriesV1(KubeModel):
    count: int | None = None
    last_observed_time: MicroTime | None = None


class EventV1(Resource):
    """k8s.io/api ``events/v1/types.go`` Event."""

    api_info: ClassVar[ApiInfo] = ApiInfo(
        group=GROUP, version="v1", kind="Event", plural="events", namespaced=True,
        short_names=("ev",), singular="event", subresources=(),
    )

    event_time: MicroTime | None = None
    series: EventSeriesV1 | None = None
    reporting_controller: str | None = None
    reporting_instance: str | None = None
    action: str | None = None
    reason: str | None = None
    regarding: ObjectReference = Field(default_factory=ObjectReference)
    related: ObjectReference | None = None
    note: str | None = None
    type: str | None = None
    deprecated_source: EventSource | None = None
    deprecated_first_timestamp: Time | None = None
    deprecated_last_timestamp: Time | None = None
    deprecated_count: int | None = None


# events.k8s.io/v1 field labels → core/v1's (kubernetes' field selector conversions for the group:
# regarding.* and reportingController name the core fields they are converted from)
_FIELD_LABELS = {f"regarding.{f}": f"involvedObject.{f}" for f in (
    "kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")}
_FIELD_LABELS["reportingController"] = "reportingComponent"


def field_selector_to_storage(selector: str) -> str:
    """A field selector in events.k8s.io/v1 labels, in core/v1's (each term's label renamed)."""
    return ",".join(_FIELD_LABEL.sub(lambda m: _FIELD_LABELS.get(m.group(0), m.group(0)), term, count=1)
                    for term in selector.split(","))


_FIELD_LABEL = re.compile(r"^[^=!]+")


def _renamed(obj: dict[str, Any], names: dict[str, str], api_version: str) -> dict[str, Any]:
    out = {names.get(key, key): value for key, value in obj.items()}
    if "apiVersion" in obj:
        out["apiVersion"] = api_version
    return out


def to_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """events.k8s.io/v1 → core/v1 (``Convert_v1_Event_To_core_Event``, then core's v1 form)."""
    return _renamed(obj, _RENAMED, CORE_API_VERSION)


def from_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """core/v1 → events.k8s.io/v1 (``Convert_core_Event_To_v1_Event``)."""
    return _renamed(obj, _BACK, API_VERSION)
