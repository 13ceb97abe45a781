"""An event recorder that writes events.k8s.io/v1 Events the way client-go's ``tools/events`` does
(``event_recorder.go``, ``event_broadcaster.go``), for the components whose upstream records through
that API: kube-scheduler (``cmd/kube-scheduler/app/options/options.go`` builds its broadcaster with
``events.NewEventBroadcasterAdapterWithContext``, ``pkg/scheduler/profile/profile.go`` a recorder per
profile named by its ``schedulerName``), and controller-runtime managers' ``GetEventRecorder``
(``pkg/internal/recorder/recorder.go``: one broadcaster per manager): JobSet and Kueue.

``recorder.eventf(pod, None, "Normal", "Scheduled", "Binding", "Successfully assigned %s to %s", a, b)``
records an Event named ``<regarding name>.<hex of the virtual time in nanoseconds>`` in the regarding
object's namespace (``default`` for a cluster-scoped one) with ``eventTime`` (a MicroTime),
``reportingController``, ``reportingInstance`` (``<controller>-<hostname>``, as ``NewRecorder``
builds it), ``action``, ``reason``, ``regarding``, ``related``, ``note`` and ``type``; no
``deprecated*`` field, so ``kubectl`` shows no count for a singleton.

The broadcaster's ``recordToSink`` then decides what is written. Events are keyed as its ``getKey``
does: (type, action, reason, reportingController, reportingInstance, regarding, related) — the
regarding reference whole, resourceVersion and fieldPath included. The first occurrence is cached and
created; the second gives the cached Event a ``series`` of ``{count: 2, lastObservedTime: now}`` and
writes it (a patch of the series; a create under the cached name when the Event is gone); later ones
only bump the cached series. Every 30 minutes (``refreshExistingEventSeries``) each cached series is
written again, and every 6 minutes (``finishSeries``) a series last observed more than 6 minutes
before is written a last time and dropped from the cache, as is a singleton whose ``eventTime`` is that
old. There is no correlator on this path: no aggregation, no spam filter (those are ``tools/record``'s,
:mod:`kbatch.runtime.events`). The two periods run on the virtual clock from the broadcaster's start,
as timers of the control plane's queue (periodic: housekeeping, not pending work), armed only while the
cache holds something; recording never raises (a failed write is logged and dropped, as upstream gives
up on a rejected Event).

kbatch writes the stored form (core/v1 Event) through the component's client: one Event resource is
served in both groups (docs/apiserver.md), so what users read is the same.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.base import format_micro_time
from kbatch.api.errors import AlreadyExists, NotFound, StatusError
from kbatch.runtime.clock import Clock
from kbatch.runtime.events import involved_reference
from kbatch.runtime.timers import TimerQueue

__all__ = ["Broadcasters", "EventBroadcaster", "EventsV1Recorder"]

log = logging.getLogger("kbatch.runtime.events_v1")

FINISH_TIME = 6 * 60.0
REFRESH_TIME = 30 * 60.0
MAX_NAME_TRIES = 1000


def _frozen(ref: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(ref.items())) if ref else ()


@dataclass
class _Cached:
    """One cached Event (``eventCache``'s value): its stored form, and its series when it has one."""

    name: str
    namespace: str
    body: dict[str, Any]
    event_time: float
    client: Any
    count: int = 0  # the series count; 0: a singleton
    last_observed: float = 0.0


@dataclass
class _Period:
    """One of the broadcaster's ``wait.Until`` loops: ticks at ``start + k * period``."""

    period: float
    handle: int | None = None


@dataclass
class EventBroadcaster:
    """One component's ``tools/events`` broadcaster: its Event cache and the two periodic sweeps.
    ``start`` is the virtual instant it started recording (the phase of its ticks)."""

    client: Any
    clock: Clock
    timers: TimerQueue
    start: float
    cache: dict[tuple[Any, ...], _Cached] = field(default_factory=dict)
    last_nanos: dict[tuple[str, str], int] = field(default_factory=dict)
    refresh: _Period = field(default_factory=lambda: _Period(REFRESH_TIME))
    finish: _Period = field(default_factory=lambda: _Period(FINISH_TIME))

    def recorder(self, controller: str, host: str, action: Callable[[str], str] | None = None,
                 client: Any = None) -> EventsV1Recorder:
        """``NewRecorder(scheme, controller)``: ``reportingInstance`` is ``<controller>-<host>``;
        ``action(reason)`` gives the action of an event recorded without one
        (:meth:`~EventsV1Recorder.event`)."""
        return EventsV1Recorder(self, controller, f"{controller}-{host}", host, action, client)

    # --- recordToSink -------------------------------------------------------------------------------
    def record(self, client: Any, body: dict[str, Any], now: float) -> None:
        key = (body["type"], body["action"], body["reason"], body["reportingComponent"],
               body["reportingInstance"], _frozen(body["involvedObject"]), _frozen(body.get("related")))
        cached = self.cache.get(key)
        if cached is None:
            namespace = body["metadata"]["namespace"]
            name = self._create_unique(client, body, namespace, now)
            if name is not None:
                self.cache[key] = _Cached(name, namespace, body, now, client)
                self._arm()
            return
        if cached.count:
            cached.count += 1
            cached.last_observed = now
            return
        cached.count, cached.last_observed = 2, now
        self._write_series(cached)

    def _create_unique(self, client: Any, body: dict[str, Any], namespace: str, now: float) -> str | None:
        """Create under ``<name>.<hex nanos>``; two Events on one object at one virtual instant (a
        real clock never records them so) take the next nanosecond."""
        regarding = body["involvedObject"].get("name") or ""
        slot = (namespace, regarding)
        nanos = max(_nanos(self.clock, now), self.last_nanos.get(slot, -1) + 1)
        for _ in range(MAX_NAME_TRIES):
            name = f"{regarding}.{nanos:x}"
            try:
                self._create(client, body, name, namespace)
            except AlreadyExists:
                nanos += 1
                continue
            except StatusError as err:
                log.warning("could not record event %s on %s: %s", body["reason"], regarding, err)
                return None
            self.last_nanos[slot] = nanos
            return name
        return None

    @staticmethod
    def _create(client: Any, body: dict[str, Any], name: str, namespace: str) -> None:
        from kbatch.api.core_v1 import Event

        client.create(Event.model_validate({**body, "metadata": {"name": name, "namespace": namespace}}))

    def _write_series(self, cached: _Cached) -> None:
        """``recordEvent`` of a series: a patch of it; a create when the Event is gone."""
        from kbatch.api.core_v1 import Event

        series = {"count": cached.count,
                  "lastObservedTime": format_micro_time(self.clock.to_datetime(cached.last_observed))}
        try:
            try:
                cached.client.patch(Event, cached.name, {"series": series}, cached.namespace)
            except NotFound:
                self._create(cached.client, {**cached.body, "series": series}, cached.name, cached.namespace)
        except StatusError as err:
            log.warning("could not record event series %s/%s: %s", cached.namespace, cached.name, err)

    # --- the periodic sweeps ------------------------------------------------------------------------
    def _arm(self) -> None:
        now = self.clock.now()
        for period, fire in ((self.refresh, self._refresh), (self.finish, self._finish)):
            if period.handle is None or not self.timers.is_pending(period.handle):
                ticks = math.floor((now - self.start) / period.period) + 1
                period.handle = self.timers.schedule_call(self.start + ticks * period.period, fire, None,
                                                          periodic=True)

    def _rearm(self, period: _Period, fire: Callable[[Any], Any], at: float) -> None:
        """The next tick (``wait.Until``: one period after this one) while the cache holds anything."""
        if not self.cache:
            period.handle = None
            return
        ticks = math.floor((at - self.start) / period.period + 1e-9) + 1
        period.handle = self.timers.schedule_call(self.start + ticks * period.period, fire, None,
                                                  periodic=True)

    def _refresh(self, _: Any) -> None:
        """``refreshExistingEventSeries``: write every cached series again."""
        at = self.clock.now()
        for cached in list(self.cache.values()):
            if cached.count:
                self._write_series(cached)
        self._rearm(self.refresh, self._refresh, at)

    def _finish(self, _: Any) -> None:
        """``finishSeries``: a series quiet for 6 minutes is written a last time and forgotten, a
        singleton older than that forgotten."""
        at = self.clock.now()
        horizon = at - FINISH_TIME
        for key, cached in list(self.cache.items()):
            if cached.count:
                if cached.last_observed < horizon:
                    self._write_series(cached)
                    del self.cache[key]
            elif cached.event_time < horizon:
                del self.cache[key]
        self._rearm(self.finish, self._finish, at)


class Broadcasters:
    """A control plane's ``tools/events`` broadcasters, one per upstream process (kube-scheduler, a
    controller-runtime manager), each created when its first component asks for it."""

    def __init__(self, client: Any, clock: Clock, timers: TimerQueue) -> None:
        self.client = client
        self.clock = clock
        self.timers = timers
        self._by_process: dict[str, EventBroadcaster] = {}

    def recorder(self, process: str, controller: str, host: str, action: Callable[[str], str] | None = None,
                 client: Any = None) -> EventsV1Recorder:
        broadcaster = self._by_process.get(process)
        if broadcaster is None:
            broadcaster = self._by_process[process] = EventBroadcaster(self.client, self.clock, self.timers,
                                                                       self.clock.now())
        return broadcaster.recorder(controller, host, action, client)


def _nanos(clock: Clock, t: float) -> int:
    dt = clock.to_datetime(t)
    return int(dt.timestamp()) * 1_000_000_000 + dt.microsecond * 1000


class EventsV1Recorder:
    """``events.EventRecorder`` of one reporting controller (see the module docstring)."""

    def __init__(self, broadcaster: EventBroadcaster, controller: str, instance: str, host: str,
                 action: Callable[[str], str] | None = None, client: Any = None) -> None:
        self.broadcaster = broadcaster
        self.controller = controller
        self.instance = instance
        self.host = host
        self.action = action
        self.client = client if client is not None else broadcaster.client

    def sibling(self, controller: str) -> EventsV1Recorder:
        """Another reporting controller of the same process (a manager's second ``GetEventRecorder``):
        the same broadcaster, client and action table."""
        return EventsV1Recorder(self.broadcaster, controller, f"{controller}-{self.host}", self.host,
                                self.action, self.client)

    def eventf(self, regarding: Any, related: Any, type_: str, reason: str, action: str, note: str,
               *args: Any, field_path: str = "") -> None:
        """``Eventf``: ``note % args`` (the note as given when there are no args)."""
        if type_ not in ("Normal", "Warning"):  # util.ValidateEventType: not recorded
            log.warning("unsupported event type %r for %s", type_, reason)
            return
        ref = involved_reference(regarding)
        if field_path:
            ref["fieldPath"] = field_path
        broadcaster = self.broadcaster
        now = broadcaster.clock.now()
        body: dict[str, Any] = {
            "metadata": {"namespace": ref.get("namespace") or "default"},
            "eventTime": format_micro_time(broadcaster.clock.to_datetime(now)),
            "reportingComponent": self.controller, "reportingInstance": self.instance,
            "action": action, "reason": reason, "involvedObject": ref,
            "message": note % args if args else note, "type": type_,
        }
        if related is not None:
            body["related"] = involved_reference(related)
        broadcaster.record(self.client, body, now)

    def event(self, obj: Any, type_: str, reason: str, message: str, field_path: str = "") -> None:
        """A ``tools/record``-style call (kbatch's controllers record through one API): the action is
        the one upstream passes with ``reason`` (``action(reason)``, else the reason itself)."""
        action = self.action(reason) if self.action is not None else reason
        self.eventf(obj, None, type_, reason, action, message, field_path=field_path)
