"""An event recorder that writes core/v1 Events the way client-go's does
(``tools/record/event.go`` and ``events_cache.go``).

``recorder.event(obj, "Normal", "SuccessfulCreate", "Created pod: train-0")`` writes an Event in the
object's namespace (``default`` for cluster-scoped objects) named ``<object-name>.<hex of the
virtual time in nanoseconds>``, with ``involvedObject``, ``source.component``, ``firstTimestamp``,
``lastTimestamp``, ``count`` and ``type``. The correlator then behaves as upstream's
``EventCorrelator.EventCorrelate`` (aggregate, then observe, then filter):

* **aggregation** — events with the same (source, object, type, reason) are *similar*; once 10
  distinct messages have been seen among similar events, with no gap of more than 10 minutes, each
  further one is counted on one Event whose message is ``(combined from similar events): `` + the
  message that triggered it. As upstream, the set of messages is then trimmed back to 9 (upstream
  drops an arbitrary one; kbatch the oldest, for determinism), so a message already in the set is
  recorded on its own again;
* **dedup** — an event identical in (source, object and ``fieldPath``, type, reason, message) to
  one already written bumps that Event's ``count`` and ``lastTimestamp`` (a patch) instead of
  creating a new one;
* **spam filter** — per (source, object) a token bucket of 25 events refilling one per 5 minutes
  (:mod:`kbatch.runtime.event_spam`); an event past it is dropped, but still counted, so the next
  write carries the true ``count``.

The object is identified, as upstream's keys do, by kind, namespace, name, uid and apiVersion (not
its resourceVersion). Recording never raises: a failed write is logged.

Each component (``job-controller``, ``default-scheduler``, …) has its own correlator caches, as each
upstream controller builds its own ``EventBroadcaster`` and so its own ``EventCorrelator``: the
scheduler's events about 100,000 pods do not push the Job controller's per-Job aggregation and spam
records out of a shared 4096-entry LRU.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from kbatch.api.base import format_time
from kbatch.api.errors import AlreadyExists, NotFound, StatusError
from kbatch.runtime.clock import Clock
from kbatch.runtime.event_spam import TokenBucket

__all__ = ["EventRecorder", "EventSink", "ObjectRef", "involved_reference"]

log = logging.getLogger("kbatch.runtime.events")

CACHE_SIZE = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL = 600.0
COMBINED_PREFIX = "(combined from similar events): "


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """The object an event is about, by the fields ``involvedObject`` takes (client-go
    ``ObjectReference``), for a caller holding a view of the object rather than the API object: it
    reads like one (``ref.kind``, ``ref.metadata.name``), without building a model only to name it."""

    kind: str
    api_version: str
    name: str
    namespace: str | None = None
    uid: str | None = None
    resource_version: str | None = None

    @property
    def metadata(self) -> ObjectRef:
        return self


def involved_reference(obj: Any) -> dict[str, Any]:
    """``involvedObject`` for an API object (client-go ``reference.GetReference``)."""
    meta = obj.metadata
    ref = {"kind": obj.kind, "apiVersion": obj.api_version, "name": meta.name,
           "namespace": meta.namespace, "uid": meta.uid, "resourceVersion": meta.resource_version}
    return {k: v for k, v in ref.items() if v}


K = TypeVar("K")
V = TypeVar("V")


_MISSING: Any = object()


class _LRU(Generic[K, V]):
    """At most ``size`` entries, dropping the least recently used: :meth:`get` and :meth:`put` both
    count as a use (upstream's ``golang-lru`` ``Get``/``Add``)."""

    __slots__ = ("_items", "size")

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self.size = size

    def get(self, key: K, default: Any = None) -> Any:
        items = self._items
        value = items.get(key, _MISSING)
        if value is _MISSING:
            return default
        items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        items = self._items
        if key in items:
            items.move_to_end(key)
            items[key] = value
            return
        items[key] = value  # a new key goes last
        if len(items) > self.size:
            items.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class _Seen:
    name: str
    namespace: str
    count: int
    first: datetime
    written: bool = True  # False: the first occurrence was dropped by the spam filter


@dataclass
class _Similar:
    last: float
    messages: dict[str, None]  # insertion-ordered set of the distinct messages seen


class _Correlator:
    """One component's ``EventCorrelator`` caches, bounded like upstream's LRUs (4096 entries)."""

    __slots__ = ("seen", "similar", "spam")

    def __init__(self) -> None:
        self.seen: _LRU[tuple[Any, ...], _Seen] = _LRU(CACHE_SIZE)
        self.similar: _LRU[tuple[Any, ...], _Similar] = _LRU(CACHE_SIZE)
        self.spam: _LRU[tuple[Any, ...], TokenBucket] = _LRU(CACHE_SIZE)


class EventSink:
    """Where one control plane's recorders write: the client, the clock, one correlator per
    component, and the last Event name used per object (shared: names are per object)."""

    def __init__(self, client: Any, clock: Clock) -> None:
        self.client = client
        self.clock = clock
        self._correlators: dict[str, _Correlator] = {}
        self._last_nanos: _LRU[tuple[str, str], int] = _LRU(CACHE_SIZE)  # (ns, object) -> last name

    def recorder(self, component: str, host: str = "", client: Any = None) -> EventRecorder:
        """``component``'s recorder; ``client``: what it writes through (the component's own, so its
        Events are requested by its user, as upstream's broadcaster writes with the component's
        client), the sink's when ``None``."""
        correlator = self._correlators.get(component)
        if correlator is None:
            correlator = self._correlators[component] = _Correlator()
        return EventRecorder(self, component, host, correlator, client)


def _nanos(dt: datetime) -> int:
    """The instant in nanoseconds since the epoch (the hex suffix of an Event's name)."""
    return int(dt.timestamp()) * 1_000_000_000 + dt.microsecond * 1000


class EventRecorder:
    def __init__(self, sink: EventSink, component: str, host: str = "",
                 correlator: _Correlator | None = None, client: Any = None) -> None:
        self.sink = sink
        self.client = client if client is not None else sink.client
        self.component = component
        self.host = host
        self.correlator = correlator if correlator is not None else _Correlator()

    def sibling(self, component: str) -> EventRecorder:
        """Another component's recorder sharing this one's sink, host and correlator caches."""
        return EventRecorder(self.sink, component, self.host, self.correlator)

    def event(self, obj: Any, type_: str, reason: str, message: str, field_path: str = "") -> None:
        """Record an event about ``obj`` (``type_`` is ``Normal`` or ``Warning``); ``field_path``, if
        given, names a part of it (``involvedObject.fieldPath``, e.g. the kubelet's
        ``spec.containers{main}``: ``pkg/kubelet/container/ref.go`` ``GenerateContainerRef``)."""
        try:
            self._record(obj, type_, reason, message, field_path)
        except StatusError as err:
            log.warning("could not record event %s/%s on %s: %s", type_, reason, obj.metadata.name, err)

    def eventf(self, obj: Any, type_: str, reason: str, fmt: str, *args: Any, field_path: str = "") -> None:
        self.event(obj, type_, reason, fmt % args if args else fmt, field_path)

    def _record(self, obj: Any, type_: str, reason: str, message: str, field_path: str = "") -> None:
        meta = obj.metadata
        # The object's key fields, as involved_reference would give them (empty -> None).
        obj_key = (obj.kind or None, meta.namespace or None, meta.name or None, meta.uid or None,
                   obj.api_version or None)
        source = (self.component, self.host)
        clock = self.sink.clock
        t = clock.now()
        key, message = self._aggregate((source, obj_key, type_, reason), message, t, field_path)
        cache = self.correlator.seen
        seen = cache.get(key)
        if seen is not None:
            seen.count += 1
        namespace = meta.namespace or "default"
        now = clock.to_datetime(t)
        if not self._accept((source, obj_key), t):
            if seen is None:  # upstream caches the observation even when the event is dropped
                cache.put(key, _Seen("", namespace, 1, now, written=False))
            return
        if seen is not None and seen.written and self._bump(seen, now, message):
            return
        count, first = (seen.count, seen.first) if seen is not None else (1, now)
        ref = involved_reference(obj)
        if field_path:
            ref["fieldPath"] = field_path
        name = self._create_unique(ref, namespace, type_, reason, message, now, count, first)
        cache.put(key, _Seen(name, namespace, count, first))

    def _accept(self, spam_key: tuple[Any, ...], now: float) -> bool:
        """upstream ``EventSourceObjectSpamFilter.Filter``: 25 per (source, object), then 1 / 5 min."""
        spam = self.correlator.spam
        bucket = spam.get(spam_key)
        if bucket is None:
            bucket = TokenBucket.full(now)
            spam.put(spam_key, bucket)
        return bucket.try_accept(now)

    def _create_unique(self, ref: dict[str, Any], namespace: str, type_: str, reason: str, message: str,
                       now: datetime, count: int = 1, first: datetime | None = None) -> str:
        """Create under ``<name>.<hex nanos>``. Virtual time can record two events on one object at
        the same instant (a real clock never does), so a taken name moves on by one nanosecond."""
        key = (namespace, ref["name"])
        last_nanos = self.sink._last_nanos
        nanos = max(_nanos(now), last_nanos.get(key, -1) + 1)
        for _ in range(1000):
            name = f"{ref['name']}.{nanos:x}"
            try:
                self._create(name, namespace, ref, type_, reason, message, now, count, first or now)
            except AlreadyExists:
                nanos += 1
                continue
            last_nanos.put(key, nanos)
            return name
        raise AlreadyExists(f"no free event name for {ref['name']} at {now.isoformat()}")

    def _aggregate(self, key: tuple[Any, ...], message: str, now: float,
                   field_path: str = "") -> tuple[tuple[Any, ...], str]:
        """upstream ``EventAggregate``: similar events (same source, object, type, reason) with no
        gap over 10 minutes; from the 10th distinct message on, they go to one combined event. The
        dedup key is ``getEventKey``'s, which also holds the ``fieldPath`` (the similarity key does
        not: ``EventAggregatorByReasonFunc``)."""
        cache = self.correlator.similar
        similar = cache.get(key)
        if similar is None or now - similar.last > AGGREGATE_INTERVAL:
            similar = _Similar(now, {})
            cache.put(key, similar)
        similar.last = now
        similar.messages[message] = None
        if len(similar.messages) < AGGREGATE_MAX_EVENTS:
            return (*key, field_path, message), message
        del similar.messages[next(iter(similar.messages))]  # upstream PopAny; here the oldest
        return (*key, None), COMBINED_PREFIX + message

    def _bump(self, seen: _Seen, now: datetime, message: str) -> bool:
        """upstream's two-way merge patch of an observed event: count, lastTimestamp, message."""
        from kbatch.api.core_v1 import Event

        patch = {"count": seen.count, "lastTimestamp": format_time(now), "message": message}
        try:
            self.client.patch(Event, seen.name, patch, seen.namespace)
        except NotFound:
            return False
        return True

    def _create(self, name: str, namespace: str, ref: dict[str, Any], type_: str, reason: str,
                message: str, now: datetime, count: int = 1, first: datetime | None = None) -> None:
        from kbatch.api.core_v1 import Event

        source = {"component": self.component, **({"host": self.host} if self.host else {})}
        event = Event.model_validate({
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": ref, "reason": reason, "message": message, "source": source,
            "firstTimestamp": format_time(first or now), "lastTimestamp": format_time(now), "count": count,
            "type": type_, "reportingComponent": self.component, "reportingInstance": self.host,
        })
        self.client.create(event)
