"""Pieces every ``kubectl describe`` page is made of: times, multi-line maps and the events table.

From k8s.io/kubectl 1.37 ``pkg/describe/describe.go``: ``time.RFC1123Z`` times, ``printLabelsMultiline``
(``key=value`` lines sorted by key, ``<none>`` when empty), ``printAnnotationsMultiline`` (kubectl's
last-applied configuration left out; a value longer than 140 characters with its key, or with a
newline, printed below the key, each line cut at 138 characters plus ``...``) and ``DescribeEvents``
(sorted by last timestamp, ``AGE (xN over FIRST)`` for repeats, the field path before the message),
which flushes the page's tabwriter first and so is aligned on its own (but ``Events:  <none>`` is
written into the page's tabwriter: :func:`page_and_events`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.base import parse_time
from kbatch.api.humanize import age
from kbatch.api.tabwriter import tabwrite

__all__ = ["annotation_lines", "controlled_by", "event_sort_time", "events_about", "events_table",
           "map_lines", "multiline", "page_and_events", "rfc1123z"]

Obj = dict[str, Any]
_SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}
_MAX_ANNOTATION = 140


def rfc1123z(value: Any) -> str:
    """Go's ``time.RFC1123Z`` of a timestamp, in UTC (``Wed, 01 Jan 2025 00:00:00 +0000``)."""
    return parse_time(value).strftime("%a, %d %b %Y %H:%M:%S +0000")


def multiline(title: str, entries: list[str]) -> list[str]:
    """``title:<TAB>first``, then ``<TAB>next`` lines; ``<none>`` when there is nothing."""
    if not entries:
        return [f"{title}:\t<none>"]
    return [f"{title}:\t{entries[0]}", *(f"\t{e}" for e in entries[1:])]


def map_lines(title: str, values: dict[str, str]) -> list[str]:
    """``printLabelsMultiline``: ``key=value`` entries sorted by key."""
    return multiline(title, [f"{k}={values[k]}" for k in sorted(values)])


def controlled_by(meta: Obj) -> list[str]:
    """``Controlled By:  Kind/name`` for an object with a controller owner reference (``printController``)."""
    owner = next((r for r in meta.get("ownerReferences") or () if r.get("controller")), None)
    return [f"Controlled By:\t{owner.get('kind')}/{owner.get('name')}"] if owner else []


def events_about(events: list[Obj], meta: Obj, kind: str | None = None) -> list[Obj]:
    """kubectl describe's ``searchEvents``: the events whose involved object has the object's name,
    namespace and (when it has one) uid, and ``kind`` unless kubectl clears it (a Pod's reference)."""
    name, namespace, uid = meta.get("name"), meta.get("namespace") or "", meta.get("uid")
    return [e for e in events if _involves(e.get("involvedObject") or {}, name, namespace, uid, kind)]


def _involves(ref: Obj, name: Any, namespace: str, uid: Any, kind: str | None) -> bool:
    return (ref.get("name") == name and (ref.get("namespace") or "") == namespace
            and (kind is None or ref.get("kind") == kind) and (not uid or ref.get("uid") == uid))


def annotation_lines(annotations: dict[str, str]) -> list[str]:
    keys = sorted(k for k in annotations if k not in _SKIP_ANNOTATIONS)
    if not keys:
        return ["Annotations:\t<none>"]
    lines: list[str] = []
    for i, key in enumerate(keys):
        lead = "Annotations:\t" if i == 0 else "\t"
        value = annotations[key].removesuffix("\n")
        if len(value) + len(key) + 2 > _MAX_ANNOTATION or "\n" in value:
            lines.append(f"{lead}{key}:")
            lines += [
                f"\t  {s[: _MAX_ANNOTATION - 2] + '...' if len(s) > _MAX_ANNOTATION - 2 else s}"
                for s in value.split("\n")
            ]
        else:
            lines.append(f"{lead}{key}: {value}")
    return lines


def page_and_events(lines: list[str], events: list[Obj], now: datetime) -> str:
    """A page's lines, then kubectl's ``DescribeEvents``: with no events ``Events:<TAB><none>`` is one
    more line of the page's tabwriter, aligned with the lines above it (``DescribeEvents`` flushes the
    writer only before a table of events)."""
    if not events:
        return tabwrite("\n".join([*lines, "Events:\t<none>"]))
    return f"{tabwrite(chr(10).join(lines))}\n{events_table(events, now)}"


def event_sort_time(event: Obj) -> datetime:
    """When an Event last happened, as kubectl sorts them (``SortableEvents``'s ``eventTime``,
    ``kubectl/pkg/util/event``): a series' ``lastObservedTime``, else ``lastTimestamp``, else
    ``eventTime`` (an events.k8s.io singleton has no ``lastTimestamp``)."""
    series = event.get("series") or {}
    when = series.get("lastObservedTime") or event.get("lastTimestamp") or event.get("eventTime")
    return parse_time(when or "0001-01-01T00:00:00Z")


def events_table(events: list[Obj], now: datetime) -> str:
    """kubectl's ``DescribeEvents``, aligned by its own tabwriter."""
    if not events:
        return tabwrite("Events:\t<none>")
    lines = ["Events:", "  Type\tReason\tAge\tFrom\tMessage", "  ----\t------\t----\t----\t-------"]
    for e in sorted(events, key=event_sort_time):
        first = age(e["eventTime"], now) if e.get("eventTime") else age(e.get("firstTimestamp"), now)
        series, count = e.get("series"), e.get("count") or 0
        if series:
            shown = f"{age(series.get('lastObservedTime'), now)} (x{series.get('count')} over {first})"
        elif count > 1:
            shown = f"{age(e.get('lastTimestamp'), now)} (x{count} over {first})"
        else:
            shown = first
        source = (e.get("source") or {}).get("component") or e.get("reportingComponent") or ""
        message = (e.get("message") or "").strip()
        path = (e.get("involvedObject") or {}).get("fieldPath")
        lines.append(
            f"  {e.get('type', '')}\t{e.get('reason', '')}\t{shown}\t{source}\t"
            + (f"{path}: {message}" if path else message)
        )
    return tabwrite("\n".join(lines))
