"""The scheduling queue: active, back-off, unschedulable and gated pods (upstream
``pkg/scheduler/backend/queue/scheduling_queue.go`` ``PriorityQueue``).

Guarantees:

* every pending pod is in exactly one place: ``active`` (ready to try, ordered by the QueueSort
  plugin), ``backoff`` (failed recently, waits ``1s * 2**(n-1)`` capped at 10 s, upstream's
  ``podInitialBackoffSeconds``/``podMaxBackoffSeconds``; ``n`` counts the attempts plugins rejected,
  or, after an error, the errors in a row: :meth:`QueuedPod.backoff_count`), ``unschedulable``
  (failed; waits for a cluster event) or ``gated`` (a PreEnqueue plugin, e.g. SchedulingGates, holds it);
* a cluster event (:meth:`move`) moves only the unschedulable pods whose rejecting plugins'
  queueing hints say it may make them schedulable (KEP-4247, :mod:`.events`; upstream
  ``movePodsToActiveOrBackoffQueue``): to ``active``, or to ``backoff`` when its back-off has not
  expired, so nothing busy-loops; a plugin that asked the pod to wait (Pending) and says Queue
  moves it to ``active`` directly. Pods are indexed by rejecting plugin, so an event visits only
  the pods some plugin registered for it could move. Without a hint map (``hints=None``, the
  SchedulerQueueingHints gate off) every event moves every unschedulable pod; :meth:`move_all`
  is that wildcard move (upstream ``EventForceActivate`` for everyone). A gated pod runs
  PreEnqueue again when an event its gating plugin registered for gets Queue from that plugin's
  hint (upstream ``GatingPlugin``/``GatingPluginEvents``), and on any update of its own;
* :meth:`flush` moves back-off pods whose time has come, and unschedulable pods that have waited
  longer than 5 minutes (``podMaxInUnschedulablePodsDuration``; upstream checks every 30 s);
* with ``pop_from_backoff`` (feature gate SchedulerPopFromBackoffQ, KEP-5142, beta and on since
  1.33; upstream ``backend/queue/backoff_queue.go`` and ``active_queue.go`` ``unlockedPop``): when
  the active queue is empty, :meth:`pop` takes the head of the back-off queue before its back-off
  ends, so an idle scheduler retries at once what an event moved there. Back-off expiries are then
  truncated to whole seconds (the 1 s "ordering window"); a pod is backing off while its window is
  not over (it leaves at the next whole second), and within a window the back-off queue is ordered
  as the active queue. Pods that failed with an error (no rejecting or pending plugin) wait in a
  separate error back-off queue that is never popped early. A pod leaves the back-off queue early
  at most once per virtual instant (kbatch's difference: a cycle takes no virtual time here), and
  so does a pod group: the members :meth:`SchedulingQueue.pop_specific` takes out of back-off
  have left it early too;
* orders never depend on hashing: heaps are keyed by (sort key, insertion counter).

The queue never reads a clock: every method that needs time takes ``now``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

from kbatch.controllers.scheduler.events import (
    ClusterEvent,
    HintMap,
    ProfileHints,
    Strategy,
    requeue_strategy,
)
from kbatch.controllers.scheduler.framework import PreEnqueuePlugin, Status
from kbatch.controllers.scheduler.inflight import InFlightEvents, Recorded
from kbatch.controllers.scheduler.types import PodInfo

__all__ = [
    "FLUSH_PERIOD", "MAX_UNSCHEDULABLE_SECONDS", "PodKeys", "QueuedPod", "SchedulingQueue",
    "backoff_duration",
]

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
MAX_UNSCHEDULABLE_SECONDS = 300.0
FLUSH_PERIOD = 30.0

ACTIVE, BACKOFF, UNSCHEDULABLE, GATED = "active", "backoff", "unschedulable", "gated"


@dataclass(frozen=True, slots=True)
class PodKeys:
    """A pre-check naming its pods (``namespace/name``): :meth:`SchedulingQueue.move` looks them up
    instead of asking every waiting or gated pod (same answer, without the scan)."""

    keys: frozenset[str]

    def __call__(self, pod: PodInfo) -> bool:
        return pod.key in self.keys


@dataclass(slots=True)
class QueuedPod:
    pod: PodInfo
    where: str = ACTIVE
    attempts: int = 0  # failed attempts, rejections and errors alike
    unschedulable_count: int = 0  # attempts some plugin rejected (upstream UnschedulableCount)
    consecutive_errors: int = 0  # errors since the last rejection (upstream ConsecutiveErrorsCount)
    last_failure: float = 0.0  # when the last attempt failed (back-off and the 5-minute rule)
    # upstream QueuedPodInfo.Timestamp as the QueueSort plugin sees it: when the pod was added,
    # refreshed by every failed attempt (AddUnschedulableIfNotPresent); moves keep it
    timestamp: float = 0.0
    version: int = 0
    gate: Status | None = None  # the PreEnqueue status while gated
    gating: str = ""  # the PreEnqueue plugin that gates it (upstream GatingPlugin)
    rejectors: tuple[str, ...] = ()  # plugins that rejected the last attempt (UnschedulablePlugins)
    pending: tuple[str, ...] = ()  # plugins that made it wait (PendingPlugins)
    activated_at: float = -1.0  # the instant of its last activation (:meth:`SchedulingQueue.activate`)
    early_pop_at: float = -1.0  # the instant it last left the back-off queue early (:meth:`pop`)

    def backoff_count(self) -> int:
        """What the back-off doubles on (upstream ``getBackoffTime`` in ``backoff_queue.go``): the
        errors in a row when the last attempt was an error, else the rejected attempts; so a pod
        rejected for long does not start an error's retries at the cap, nor errors lengthen its
        rejections' back-off."""
        return self.consecutive_errors or self.unschedulable_count

    def backoff_expiry(self, initial: float, maximum: float) -> float:
        return self.last_failure + backoff_duration(self.backoff_count(), initial, maximum)


def backoff_duration(attempts: int, initial: float, maximum: float) -> float:
    """Upstream ``calculateBackoffDuration`` (``backend/queue/backoff_queue.go``): none before the
    first attempt, then ``initial`` doubled per further attempt until it would pass ``maximum``
    (checked before doubling, so a huge ``maximum`` is reached rather than overflowed)."""
    if attempts == 0:
        return 0
    duration = initial
    for _ in range(1, attempts):
        if duration > maximum - duration:
            return maximum
        duration += duration
    return duration


class SchedulingQueue:
    def __init__(
        self,
        sort_key: Callable[[PodInfo, float], tuple[Any, ...]],
        pre_enqueue: Sequence[PreEnqueuePlugin] | Mapping[str, Sequence[PreEnqueuePlugin]] = (),
        hints: HintMap | ProfileHints | None = None,
        initial_backoff: float = INITIAL_BACKOFF,
        max_backoff: float = MAX_BACKOFF,
        max_unschedulable: float = MAX_UNSCHEDULABLE_SECONDS,
        pop_from_backoff: bool = False,
        early_pop_instant: float = 0.0,
    ) -> None:
        self._sort_key = sort_key
        # PreEnqueue plugins for every pod, or per profile (keyed by schedulerName)
        per_profile = isinstance(pre_enqueue, Mapping)
        self._pre_enqueue: list[PreEnqueuePlugin] = [] if per_profile else list(pre_enqueue)  # type: ignore[arg-type]
        self._pre_enqueue_by: dict[str, list[PreEnqueuePlugin]] = (
            {name: list(ps) for name, ps in pre_enqueue.items()} if per_profile else {})  # type: ignore[union-attr]
        self._initial, self._max, self._max_unschedulable = initial_backoff, max_backoff, max_unschedulable
        self._pods: dict[str, QueuedPod] = {}
        self._waiting: dict[str, QueuedPod] = {}  # the UNSCHEDULABLE ones, oldest failure first
        self._gated: dict[str, QueuedPod] = {}  # the GATED ones
        self._gated_by: dict[str, dict[str, QueuedPod]] = {}  # ... by gating plugin
        self._hints = hints
        # the UNSCHEDULABLE ones by rejecting (or pending) plugin; "" holds those without any
        self._by_plugin: dict[str, dict[str, QueuedPod]] = {}
        self._in_flight = InFlightEvents()
        self._active: list[tuple[tuple[Any, ...], int, str, int]] = []
        # back-off heaps: (expiry, QueueSort key within a window (gate on) or (), counter, key, version);
        # the pods an error sent there (no rejecting or pending plugin) wait apart, never popped early
        self._backoff: list[tuple[float, tuple[Any, ...], int, str, int]] = []
        self._error_backoff: list[tuple[float, tuple[Any, ...], int, str, int]] = []
        self._pop_from_backoff = pop_from_backoff
        # how long one "instant" of the early-pop rule lasts: 0 = exactly one clock reading (virtual
        # clock); a real clock's readings never repeat, so there it is a whole second
        self._early_pop_instant = early_pop_instant
        self._counter = count()

    # -- membership ----------------------------------------------------------------------------
    def add(self, pod: PodInfo, now: float) -> None:
        """A new pending pod, or a new version of one (spec or labels may have changed)."""
        entry = self._pods.get(pod.key)
        if entry is None:
            entry = self._pods[pod.key] = QueuedPod(pod, timestamp=now)
        else:
            entry.pod = pod
        self._place(entry, now)

    def update(self, pod: PodInfo, events: Sequence[ClusterEvent], old: PodInfo, now: float) -> bool:
        """A new version of a queued pod, changed as ``events`` say (``pod_update_events``). An
        unschedulable pod moves only when a hint of its rejecting plugins accepts one of them
        (upstream ``PriorityQueue.Update`` with queueing hints); any other is placed again as by
        :meth:`add`. Returns whether the pod may now be tried (it left the unschedulable pool)."""
        entry = self._pods.get(pod.key)
        if entry is None or entry.where != UNSCHEDULABLE or self._hints is None:
            self.add(pod, now)
            return True
        entry.pod = pod
        for event in events:
            matching = self._hints.matching(event, pod)
            strategy = requeue_strategy(pod, entry.rejectors, entry.pending, event, old, pod, matching)
            if strategy == Strategy.IMMEDIATELY:
                self._move(entry, ACTIVE)
                return True
            if strategy == Strategy.AFTER_BACKOFF:
                self._to_backoff_or_active(entry, now)
                return True
        return False

    def delete(self, key: str) -> None:
        entry = self._pods.pop(key, None)
        if self._in_flight:
            self._in_flight.finish(key)
        if entry is not None:
            self._ungate(entry)
            self._unwait(entry)
            entry.version += 1  # invalidates its heap entries

    def wants_events(self) -> bool:
        """Whether a cluster event could matter: some pod waits for one, is gated or in flight."""
        return bool(self._waiting) or bool(self._gated) or bool(self._in_flight)

    def __contains__(self, key: str) -> bool:
        return key in self._pods

    def __len__(self) -> int:
        return len(self._pods)

    def where(self, key: str) -> str | None:
        entry = self._pods.get(key)
        return entry.where if entry else None

    def entry(self, key: str) -> QueuedPod | None:
        return self._pods.get(key)

    def gated(self, plugin: str | None = None) -> list[QueuedPod]:
        """The gated pods by key; only those ``plugin`` gates when given."""
        found = self._gated.values() if plugin is None else self._gated_by.get(plugin, {}).values()
        return sorted(found, key=lambda e: e.pod.key)

    # -- scheduling ----------------------------------------------------------------------------
    def pop(self, now: float) -> PodInfo | None:
        """The next pod to try (back-off expiries first move to active), or None. With
        ``pop_from_backoff`` an empty active queue gives the head of the back-off queue."""
        self.flush(now)
        while self._active:
            _, _, key, version = heapq.heappop(self._active)
            if (entry := self._current(key, version, ACTIVE)) is not None:
                return self._take(entry)
        return self._pop_backoff_early(now) if self._pop_from_backoff else None

    def _pop_backoff_early(self, now: float) -> PodInfo | None:
        """The head of the back-off queue before its back-off ends, at most once per pod and virtual
        instant. kbatch's difference: upstream's cycle spends real time, kbatch's none, so two pods
        whose failures move each other back (a Coscheduling rejection, say) would retry forever at
        one instant; the second time the pod waits out its back-off. On a real clock (``kbatch serve
        --clock real``) the instant is a whole second: every reading is new there, and without it
        such pods would retry without end inside one settle of the control plane."""
        now = self._instant(now)
        held: list[tuple[Any, ...]] = []
        taken: QueuedPod | None = None
        while taken is None and self._backoff:
            item = heapq.heappop(self._backoff)
            if (entry := self._current(item[-2], item[-1], BACKOFF)) is None:
                continue
            if entry.early_pop_at == now:
                held.append(item)
            else:
                taken = entry
        for item in held:
            heapq.heappush(self._backoff, item)
        if taken is None:
            return None
        taken.early_pop_at = now
        return self._take(taken)

    def _instant(self, now: float) -> float:
        """The instant of the early-pop rule ``now`` falls in (a whole second on a real clock)."""
        if self._early_pop_instant:
            return math.floor(now / self._early_pop_instant) * self._early_pop_instant
        return now

    def _current(self, key: str, version: int, where: str) -> QueuedPod | None:
        """The entry of a heap item that is still valid (the pod is still there, in that version)."""
        entry = self._pods.get(key)
        return entry if entry is not None and entry.version == version and entry.where == where else None

    def _take(self, entry: QueuedPod) -> PodInfo:
        entry.where = "in-flight"
        self._in_flight.begin(entry.pod.key)
        return entry.pod

    def pop_specific(self, key: str, now: float) -> PodInfo | None:
        """Take this pod out of the active queue, back-off or the unschedulable pool for an attempt,
        as :meth:`pop` would (upstream ``PopSpecificPod``: a pod group's cycle takes its queued
        members together); None when it is gated, in flight or not queued.

        A pod taken from the back-off queue (still backing off: :meth:`pop` flushed the expired
        ones at ``now``) leaves it early, so it counts for the once-per-instant rule of
        :meth:`_pop_backoff_early`: the group is one queued entity (upstream's queue holds a
        ``QueuedPodGroupInfo`` with one back-off, ``backend/queue/active_queue.go``
        ``unlockedPop``), and it leaves the back-off queue early at most once per instant, whichever
        member the queue happens to pop first."""
        entry = self._pods.get(key)
        if entry is None or entry.where not in (ACTIVE, BACKOFF, UNSCHEDULABLE):
            return None
        if entry.where == BACKOFF:
            entry.early_pop_at = self._instant(now)
        self._unwait(entry)
        entry.version += 1  # its heap entries are stale now
        entry.where = "in-flight"
        self._in_flight.begin(key)
        return entry.pod

    def peek(self) -> PodInfo | None:
        while self._active:
            _, _, key, version = self._active[0]
            entry = self._pods.get(key)
            if entry is not None and entry.version == version and entry.where == ACTIVE:
                return entry.pod
            heapq.heappop(self._active)
        return None

    def done(self, key: str) -> None:
        """The pod was scheduled (or is being bound): it leaves the queue."""
        self.delete(key)

    def unschedulable(self, pod: PodInfo, now: float, plugins: Sequence[str] = (),
                      pending: Sequence[str] = (), *, error: bool = False) -> None:
        """An attempt failed, rejected by ``plugins`` (or held by ``pending``): wait for a cluster
        event one of their hints accepts (upstream ``AddUnschedulableIfNotPresent``), unless one
        that happened while the pod was in flight already does."""
        entry = self._pods.get(pod.key) or QueuedPod(pod)
        self._pods[pod.key] = entry
        entry.pod, entry.attempts, entry.last_failure, entry.timestamp = pod, entry.attempts + 1, now, now
        if error:  # upstream AddUnschedulableIfNotPresent: no plugin to blame (ErrNoNodesAvailable, ...)
            entry.consecutive_errors += 1
        else:  # a rejection ends an error run (a pod group's members count, with or without a plugin)
            entry.unschedulable_count, entry.consecutive_errors = entry.unschedulable_count + 1, 0
        self._unwait(entry)  # filed again below, under the plugins of this failure
        entry.rejectors, entry.pending = tuple(plugins), tuple(pending)
        self._move(entry, UNSCHEDULABLE)
        seen = self._in_flight.finish(pod.key) if self._in_flight else []
        strategy = self._in_flight_strategy(entry, seen)
        if strategy == Strategy.IMMEDIATELY:
            self._move(entry, ACTIVE)
        elif strategy == Strategy.AFTER_BACKOFF:
            self._to_backoff_or_active(entry, now)

    def _in_flight_strategy(self, entry: QueuedPod, seen: Sequence[Recorded]) -> Strategy:
        """Upstream ``determineSchedulingHintForInFlightPod`` over the events ``seen`` in flight
        (without hints: any event, as upstream's ``moveRequestCycle``)."""
        if not seen:
            return Strategy.SKIP
        if self._hints is None:
            return Strategy.AFTER_BACKOFF
        if not entry.rejectors and not entry.pending:
            return Strategy.SKIP  # kbatch: a pod with no plugin to blame waits for the next event
        strategy = Strategy.SKIP
        for event, old, new in seen:
            found = requeue_strategy(entry.pod, entry.rejectors, entry.pending, event, old, new,
                                     self._hints.matching(event, entry.pod))
            if found == Strategy.IMMEDIATELY:
                return found
            if found == Strategy.AFTER_BACKOFF:
                strategy = found
                if not entry.pending:
                    return strategy
        return strategy

    def retry_after_error(self, pod: PodInfo, now: float) -> None:
        """An attempt hit an error (e.g. a failed bind): back off, then retry without an event."""
        self.unschedulable(pod, now, error=True)
        self._to_backoff_or_active(self._pods[pod.key], now)

    def move_all(self, now: float, pre_check: Callable[[PodInfo], bool] | None = None) -> int:
        """Every unschedulable pod (that passes ``pre_check``) to backoff or active (a wildcard
        event); returns how many."""
        moving = [e for e in self._waiting.values() if pre_check is None or pre_check(e.pod)]
        for entry in moving:
            self._to_backoff_or_active(entry, now)
        return len(moving)

    def move(self, event: ClusterEvent, old: Any, new: Any, now: float,
             pre_check: Callable[[PodInfo], bool] | None = None) -> int:
        """``event`` happened (``old``/``new``: the objects before and after, None for an add or a
        delete): move the unschedulable pods it may help, per their rejecting plugins' hints;
        ``pre_check`` narrows the candidates (upstream ``PreEnqueueCheck``). Returns how many moved."""
        hints = self._hints
        if self._in_flight and (hints is None or hints.interested(event)):
            self._in_flight.record(event, old, new)
        if hints is None or event.wildcard:
            return self.move_all(now, pre_check)
        if not (self._waiting or self._gated) or not hints.interested(event):
            return 0
        plugins = hints.plugins_for(event)
        moved = self._ungated_by(event, old, new, now, hints, plugins, pre_check)
        candidates = ([e for k in sorted(pre_check.keys) if (e := self._waiting.get(k)) is not None]
                      if isinstance(pre_check, PodKeys) else self._candidates(plugins))
        for entry in candidates:
            if pre_check is not None and not pre_check(entry.pod):
                continue
            strategy = requeue_strategy(entry.pod, entry.rejectors, entry.pending, event, old, new,
                                        hints.matching(event, entry.pod))
            if strategy == Strategy.SKIP:
                continue
            moved += 1
            if strategy == Strategy.IMMEDIATELY:
                self._move(entry, ACTIVE)
            else:
                self._to_backoff_or_active(entry, now)
        return moved

    def _ungated_by(self, event: ClusterEvent, old: Any, new: Any, now: float,
                    hints: HintMap | ProfileHints, plugins: Sequence[str],
                    pre_check: Callable[[PodInfo], bool] | None = None) -> int:
        """Gated pods whose gating plugin's hint accepts ``event`` run PreEnqueue again (upstream:
        gated pods wait in the unschedulable pool with ``GatingPluginEvents``); returns how many
        left the gate."""
        if isinstance(pre_check, PodKeys):  # the named pods only: no scan of every gated pod
            found = [e for k in sorted(pre_check.keys) if (e := self._gated.get(k)) is not None
                     and e.gating in plugins]
        else:
            found = [e for name in plugins if name in self._gated_by
                     for e in self._gated_for(event, old, new, hints, name)
                     if pre_check is None or pre_check(e.pod)]
        moved = 0
        for entry in found:
            matching = hints.matching(event, entry.pod)
            if requeue_strategy(entry.pod, (entry.gating,), (), event, old, new, matching) != Strategy.SKIP:
                self._place(entry, now)
                moved += entry.where != GATED
        return moved

    def _gated_for(self, event: ClusterEvent, old: Any, new: Any, hints: HintMap | ProfileHints,
                   plugin: str) -> list[QueuedPod]:
        """The pods ``plugin`` gates that ``event`` can concern: those its registration names
        (sorted by key), else all of them."""
        bucket = self._gated_by[plugin]
        keys = hints.affected(event, plugin, old, new) if len(bucket) > 1 else None
        if keys is None:
            return list(bucket.values())
        return [e for k in sorted(keys) if (e := bucket.get(k)) is not None]

    def _candidates(self, plugins: Sequence[str]) -> list[QueuedPod]:
        """The unschedulable pods rejected by one of ``plugins`` or by none, oldest failure first."""
        buckets = [b for name in (*plugins, "") if (b := self._by_plugin.get(name))]
        if len(buckets) == 1:
            return list(buckets[0].values())
        found = {key: entry for bucket in buckets for key, entry in bucket.items()}
        return [entry for key, entry in self._waiting.items() if key in found] if found else []

    def flush(self, now: float) -> None:
        for heap in (self._backoff, self._error_backoff):
            while heap and not self._backing_off(heap[0][0], now):
                *_, key, version = heapq.heappop(heap)
                if (entry := self._current(key, version, BACKOFF)) is not None:
                    self._move(entry, ACTIVE)
        leftover = []
        for entry in self._waiting.values():
            if now - entry.last_failure < self._max_unschedulable:
                break  # oldest first: the rest waited less
            leftover.append(entry)
        for entry in leftover:  # upstream flushUnschedulablePodsLeftover (EventUnschedulableTimeout)
            self._to_backoff_or_active(entry, now)

    def next_wakeup(self, now: float) -> float | None:
        """The earliest instant at which :meth:`flush` would move something."""
        oldest = next(iter(self._waiting.values()), None)
        deadlines = [oldest.last_failure + self._max_unschedulable] if oldest else []
        for heap in (self._backoff, self._error_backoff):
            while heap:
                *_, key, version = heap[0]
                if self._current(key, version, BACKOFF) is not None:
                    # with windows, a back-off ends when the window of its expiry is over
                    deadlines.append(heap[0][0] + 1.0 if self._pop_from_backoff else heap[0][0])
                    break
                heapq.heappop(heap)
        return min(deadlines) if deadlines else None

    def _expiry(self, entry: QueuedPod) -> float:
        """When ``entry``'s back-off ends; with windows, the start of the whole second it ends in
        (upstream ``getBackoffTime`` with ``alignToWindow``); -inf for a pod never tried."""
        if entry.backoff_count() == 0:
            return -math.inf
        expiry = entry.backoff_expiry(self._initial, self._max)
        return float(math.floor(expiry)) if self._pop_from_backoff else expiry

    def _backing_off(self, expiry: float, now: float) -> bool:
        """Upstream ``isPodBackingoff``: with windows, until the window of the expiry is over."""
        return expiry >= math.floor(now) if self._pop_from_backoff else expiry > now

    # -- internals -----------------------------------------------------------------------------
    def activate(self, keys: Sequence[str], now: float) -> int:
        """Upstream ``PriorityQueue.Activate``: each of these pods waiting in the unschedulable pool
        or in back-off goes to active, its back-off skipped (PreEnqueue still runs: a gated pod stays
        gated); pods active, gated or in flight are left where they are. Returns how many moved
        (upstream ``scheduling_queue.go`` ``Activate``/``activate``: unschedulable pool, then backoffQ).

        kbatch difference: a pod activated once already at this instant respects its back-off. A
        scheduling cycle takes no virtual time, so two members of a group that cannot fit, each
        activating the other, would otherwise reject and re-activate each other forever at one instant
        (upstream spins in real time instead)."""
        moved = 0
        for key in keys:
            entry = self._pods.get(key)
            if entry is None or entry.where not in (UNSCHEDULABLE, BACKOFF) or self._gated_now(entry):
                continue
            was = entry.where
            if entry.activated_at == now:
                self._to_backoff_or_active(entry, now)
            else:
                entry.activated_at = now
                self._move(entry, ACTIVE)
            moved += entry.where != was
        return moved

    def _gated_now(self, entry: QueuedPod) -> bool:
        """Run PreEnqueue on ``entry``; a rejection files it as gated (and returns True)."""
        plugins = (self._pre_enqueue_by.get(entry.pod.scheduler_name, self._pre_enqueue)
                   if self._pre_enqueue_by else self._pre_enqueue)
        for plugin in plugins:
            status = plugin.pre_enqueue(entry.pod)
            if status is not None and not status.ok:
                self._ungate(entry)  # filed again below, under this plugin
                entry.gate, entry.gating = status, plugin.name
                self._move(entry, GATED)
                return True
        entry.gate = None
        return False

    def _place(self, entry: QueuedPod, now: float) -> None:
        if self._gated_now(entry):
            return
        if entry.where in (GATED, UNSCHEDULABLE, "in-flight") or entry.where == ACTIVE:
            self._to_backoff_or_active(entry, now)
        # already in BACKOFF: stays there until its expiry

    def _to_backoff_or_active(self, entry: QueuedPod, now: float) -> None:
        expiry = self._expiry(entry)
        self._move(entry, BACKOFF if self._backing_off(expiry, now) else ACTIVE, expiry)

    def _wait(self, entry: QueuedPod) -> None:
        key = entry.pod.key
        for name in (*entry.rejectors, *entry.pending) or ("",):
            self._by_plugin.setdefault(name, {})[key] = entry

    def _unwait(self, entry: QueuedPod) -> None:
        key = entry.pod.key
        if self._waiting.pop(key, None) is None:
            return
        for name in (*entry.rejectors, *entry.pending) or ("",):
            bucket = self._by_plugin.get(name)
            if bucket is not None:
                bucket.pop(key, None)

    def _ungate(self, entry: QueuedPod) -> None:
        key = entry.pod.key
        if self._gated.pop(key, None) is not None:
            bucket = self._gated_by.get(entry.gating)
            if bucket is not None:
                bucket.pop(key, None)

    def _move(self, entry: QueuedPod, where: str, expiry: float = 0.0) -> None:
        entry.version += 1
        entry.where = where
        self._unwait(entry)
        self._ungate(entry)
        if where == UNSCHEDULABLE:
            self._waiting[entry.pod.key] = entry
            self._wait(entry)
        elif where == GATED:
            self._gated[entry.pod.key] = entry
            self._gated_by.setdefault(entry.gating, {})[entry.pod.key] = entry
        if where == ACTIVE:
            key = self._sort_key(entry.pod, entry.timestamp)
            item = (key, next(self._counter), entry.pod.key, entry.version)
            heapq.heappush(self._active, item)
        elif where == BACKOFF:
            errored = not entry.rejectors and not entry.pending
            within = (self._sort_key(entry.pod, entry.timestamp)
                      if self._pop_from_backoff and not errored else ())
            heapq.heappush(self._error_backoff if errored else self._backoff,
                           (expiry, within, next(self._counter), entry.pod.key, entry.version))
