"""Events expire an hour after their last write, as kube-apiserver's ``--event-ttl`` makes them.

kube-apiserver stores every Event (``core/v1`` and ``events.k8s.io/v1`` share one resource) with an
etcd lease of ``--event-ttl`` (default 1h, ``cmd/kube-apiserver/app/options``; the registry's
``TTLFunc`` in ``pkg/registry/core/event/storage/storage.go`` renews it on every write, so an Event
updated by a series lives an hour from its last update). When the lease runs out etcd deletes the
key: the Event is gone without an API request, and watchers see a DELETE. Without this a long
simulation keeps every Event it ever recorded.

:class:`EventExpiry` follows the Events' key range. The TTL is one constant, so expiry times come in
write order: the pending ones are a queue in write order, and one housekeeping timer is armed for the
head. At that instant the expired keys are deleted, each only if it was not written again since (an
etcd compare on the key's mod revision), in write order — the same deletions at the same virtual
instants however the time was advanced (in one ``advance`` or in many CLI commands).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from kbatch.runtime.clock import Clock
from kbatch.runtime.timers import TimerQueue
from kbatch.store.kv import DeleteOp, pending_batches, prefix_end
from kbatch.store.records import make_compare

__all__ = ["EVENTS_PREFIX", "EVENT_TTL", "EventExpiry"]

EVENT_TTL = 3600.0  # kube-apiserver --event-ttl default
EVENTS_PREFIX = b"/registry/events/"


class EventExpiry:
    """Deletes each Event ``ttl`` seconds after its last write; ``pump()`` is a loop source."""

    def __init__(self, store: Any, clock: Clock, timers: TimerQueue, ttl: float = EVENT_TTL) -> None:
        if ttl <= 0:
            raise ValueError(f"event TTL must be positive, got {ttl}")
        self.store = store
        self.clock = clock
        self.timers = timers
        self.ttl = ttl
        self.pending: deque[tuple[float, bytes, int]] = deque()  # (expiry, key, mod revision written)
        self.expired = 0
        self._armed: float | None = None  # the deadline of the timer in the queue, if any
        self._pending = True  # set by the watch's notify: a round with no Event write costs no poll
        self._watcher = self._watch(store.revision + 1)

    def _watch(self, start: int) -> Any:
        watcher = self.store.watch(EVENTS_PREFIX, prefix_end(EVENTS_PREFIX), start_revision=start)
        watcher.set_notify(self._notify)
        return watcher

    def _notify(self) -> None:
        self._pending = True

    def pump(self) -> int:
        """Note the Event writes committed since the last round (written at the clock's instant).
        Polls only after the watch notified (``Watcher.set_notify``: it never stays silent while
        events wait, a cancellation included)."""
        if not self._pending:
            return 0
        self._pending = False
        expiry = self.clock.now() + self.ttl
        noted = False
        try:
            for events in pending_batches(self._watcher):
                for event in events:
                    if event.type.value != "DELETE":
                        self.pending.append((expiry, event.kv.key, event.kv.mod_revision))
                noted = True
        except Exception as err:  # compaction overtook the watch: start again from what is stored
            if type(err).__name__ not in ("CompactedError", "WatchCancelledError"):
                raise
            return self._relist()
        if noted:
            self._arm()
        return 0  # noting a write is not work the loop has to settle

    def _relist(self) -> int:
        self._watcher.close()
        listed = self.store.range(EVENTS_PREFIX, prefix_end(EVENTS_PREFIX))
        expiry = self.clock.now() + self.ttl
        self.pending = deque((expiry, kv.key, kv.mod_revision) for kv in listed.kvs)
        self._watcher = self._watch(listed.revision + 1)
        self._arm()
        return 0

    def _arm(self) -> None:
        if self.pending and self._armed is None:
            self._armed = self.pending[0][0]
            self.timers.schedule_call(self._armed, self._fire, None, periodic=True)

    def close(self) -> None:
        self._watcher.close()

    def _fire(self, _: object) -> None:
        self._armed = None
        now = self.clock.now()
        while self.pending and self.pending[0][0] <= now:
            _, key, revision = self.pending.popleft()
            result = self.store.txn([make_compare(key, "mod", "=", revision)], [DeleteOp(key)])
            self.expired += result.succeeded
        self._arm()
