"""``EtcdWatcher``: etcd's pushed watch stream behind the store's pull-based ``Watcher`` protocol.

The stream's reader thread (``stream.py``) hands each response to the watcher, which buffers its
events; the consumer takes them with ``poll()``, which never blocks. States::

    live ──stream ends (etcd down)──▶ broken ──store re-creates it from received_next──▶ live
      │                                  (the store's reconnect thread, with back-off)
      └──more than max_backlog buffered──▶ evicted ──next poll() re-creates it from delivered_next──▶ live
    any ──etcd: start revision compacted──▶ failed (poll() raises CompactedError after the buffer)

* ``received_next``: every event below it has been received (buffered or delivered); a periodic
  progress notification (``header.revision``) moves it on, since etcd sends it to a watcher only
  once every earlier event has gone out. A re-created watch starts here, and events below it are
  dropped, so nothing is lost or repeated across reconnects (clientv3 resumes the same way).
* The slow-consumer rule is ``MemoryStore``'s: past ``max_backlog`` buffered events the watcher
  drops them and its etcd watch (memory stays bounded); its next ``poll()`` watches again from the
  first event it has not delivered, and raises ``CompactedError`` if a compaction took those.
  History replayed up to ``catch_up_to`` (etcd's revision when the watch was made) does not count:
  like ``MemoryStore``'s catch-up, which hands a returning watcher all of it in one poll, it is
  bounded by the history itself; only more than ``max_backlog`` events past it evict.

Notify (the protocol's contract: called when events become pending after a poll emptied the
watcher, and at once when something may already be pending) runs on the consumer's thread when the
consumer has an asyncio event loop: the loop running when ``set_notify`` or ``poll`` was last called
on this watcher, else the store's (``EtcdStore.bind_event_loop``), reached through
``call_soon_threadsafe``. Without one it runs on the stream's reader thread, so such consumers
must only set a flag in it (kbatch's run loop rule: notify callbacks come from the loop's thread).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.store.errors import CompactedError, StoreError, WatchCancelledError
from kbatch.store.etcd import convert
from kbatch.store.kv import Event

if TYPE_CHECKING:
    from kbatch.store.etcd.store import EtcdStore

__all__ = ["EtcdWatcher"]

NotifyFn = Callable[[], None]


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class EtcdWatcher:
    """Implements ``kbatch.store.kv.Watcher`` for ``EtcdStore``."""

    def __init__(self, store: EtcdStore, watch_id: int, start: bytes, range_end: bytes, prev_kv: bool,
                 first: int) -> None:
        self._id = watch_id
        self.store = store
        self.key, self.range_end, self.prev_kv = start, range_end, prev_kv
        self.lock = threading.Lock()
        self.buffer: list[Event] = []
        self.received_next = first
        self.delivered_next = first
        self.state = "new"  # new | live | broken | evicted | failed | inert | closed
        self.etcd_id: int | None = None
        self.error: StoreError | None = None
        self.notify_fn: NotifyFn | None = None
        self._armed = False
        self._home: asyncio.AbstractEventLoop | None = None
        self.delivering = False
        self.catch_up_to = 0

    @property
    def id(self) -> int:
        return self._id

    @property
    def closed(self) -> bool:
        return self.state == "closed"

    # -- the consumer's side ------------------------------------------------------------------------
    def poll(self) -> list[Event]:
        """Every event received since the last poll, in revision order; never blocks. Raises the
        cancellation error once the buffer is drained (``CompactedError`` after a compaction)."""
        loop = _running_loop()
        if loop is not None:
            self._home = loop
        with self.lock:
            self._armed = self.notify_fn is not None
            if self.buffer:
                out, self.buffer = self.buffer, []
                self.delivered_next = self.received_next
                return out
            if self.error is not None:
                raise self.error
            if self.state != "evicted":
                return []
        self.store._rewatch(self, evicted=True)
        if self.error is not None:
            raise self.error
        return []

    def set_notify(self, fn: NotifyFn | None) -> None:
        """``fn`` runs when events become pending after a poll that emptied the watcher, and at once
        if something may already be pending (see the module docstring for the thread it runs on)."""
        loop = _running_loop()
        if loop is not None:
            self._home = loop
        with self.lock:
            self.notify_fn = fn
            pending = bool(self.buffer) or self.error is not None or self.state == "evicted"
            self._armed = fn is not None and not pending and self.state != "closed"
        if fn is not None and pending:
            fn()

    def close(self) -> None:
        with self.lock:
            if self.state == "closed":
                return
            self.state = "closed"
            self.notify_fn = None
            self.buffer = []
            etcd_id, self.etcd_id = self.etcd_id, None
        self.store._forget(self, etcd_id)

    # -- the stream's side (reader thread) ----------------------------------------------------------
    def on_response(self, response: Any) -> None:
        if response.compact_revision:
            self.fail(CompactedError(self.received_next, response.compact_revision))
            return
        if response.canceled:
            self.fail(WatchCancelledError(f"etcd cancelled watch {self._id}: {response.cancel_reason}"))
            return
        evicted_id = None
        with self.lock:
            if self.state != "live":
                return
            self.delivering = True  # not settled until the notify below has run
            if response.events:
                low = self.received_next
                events = [convert.event(e) for e in response.events if e.kv.mod_revision >= low]
                if events:
                    self.buffer.extend(events)
                    self.received_next = events[-1].kv.mod_revision + 1
                limit = self.store.max_backlog
                if len(self.buffer) > limit and self.buffer[-limit - 1].kv.mod_revision > self.catch_up_to:
                    self.buffer = []
                    self.received_next = self.delivered_next
                    self.state = "evicted"
                    evicted_id, self.etcd_id = self.etcd_id, None
            elif response.header.revision >= self.received_next:
                self.received_next = response.header.revision + 1  # progress notification
            fire = self._armed and (bool(self.buffer) or self.state == "evicted")
            if fire:
                self._armed = False
        try:
            if evicted_id is not None:
                self.store._stream.cancel(evicted_id)
            if fire:
                self._fire()
        finally:
            self.delivering = False
            self.store._progressed()

    def on_broken(self) -> None:
        with self.lock:
            if self.state != "live":
                return
            self.state = "broken"
            self.etcd_id = None
        self.store._reconnect(self)

    def fail(self, error: StoreError) -> None:
        """Cancel the watcher with ``error`` (raised by ``poll`` once the buffer is drained)."""
        with self.lock:
            if self.state in ("closed", "failed"):
                return
            self.state = "failed"
            self.error = error
            self.etcd_id = None
            fire = self._armed
            self._armed = False
        if fire:
            self._fire()
        self.store._progressed()

    def _fire(self) -> None:
        fn = self.notify_fn
        if fn is None:
            return
        loop = self._home or self.store._home
        if loop is not None:
            try:
                loop.call_soon_threadsafe(fn)
                return
            except RuntimeError:  # that loop is closed: no consumer there any more
                pass
        fn()

    def settled(self, revision: int) -> bool:
        """Whether every event up to ``revision`` has been received (or cannot come: failed,
        closed, evicted until its next poll, or a range that matches nothing)."""
        if self.delivering:
            return False
        if self.state in ("new", "live", "broken"):
            return self.received_next > revision
        return True

    def __repr__(self) -> str:
        return f"EtcdWatcher(id={self._id}, {self.key!r}..{self.range_end!r}, {self.state})"
