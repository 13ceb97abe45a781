"""One watcher: a cursor over its group's event log, or a marker to catch up from history
(etcd ``server/storage/mvcc/watcher.go``; the state machine lives in ``watchable_store.py``).

A watcher is *synced* while ``group`` is set (``cursor`` points into that group's log) and *unsynced*
otherwise (``next_rev`` is the first revision it has not received; its next ``poll`` reads the MVCC
history from there). ``error`` is set once the store cancels it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kbatch.store.kv import Event

if TYPE_CHECKING:
    from kbatch.store.watchable_store import MemoryStore
    from kbatch.store.watcher_group import GroupSpec, WatcherGroup

__all__ = ["MemoryWatcher", "NotifyFn"]

NotifyFn = Callable[[], None]


class MemoryWatcher:
    """Implements ``kbatch.store.kv.Watcher`` for ``MemoryStore``."""

    __slots__ = (
        "_id",
        "closed",
        "cursor",
        "error",
        "group",
        "idle",
        "min_rev",
        "next_rev",
        "notify_fn",
        "spec",
        "store",
    )

    def __init__(self, store: MemoryStore, watch_id: int, spec: GroupSpec, next_rev: int) -> None:
        self._id = watch_id
        self.store = store
        self.spec = spec
        self.next_rev = next_rev  # first revision not yet delivered
        self.min_rev = next_rev  # events below this are never delivered (a future start revision)
        self.group: WatcherGroup | None = None
        self.cursor = 0
        self.idle = False  # registered in group.idle, waiting for the next append
        self.notify_fn: NotifyFn | None = None
        self.error: Exception | None = None
        self.closed = False

    @property
    def id(self) -> int:
        return self._id

    @property
    def synced(self) -> bool:
        return self.group is not None

    def poll(self) -> list[Event]:
        """Every event since the last poll, in revision order; never blocks. Raises the
        cancellation error (``CompactedError`` when compaction dropped history it needed)."""
        if self.error is not None:
            raise self.error
        if self.closed:
            return []
        return self.store._poll(self)

    def set_notify(self, fn: NotifyFn | None) -> None:
        """``fn`` runs (synchronously, from the writer) when events become pending after a poll that
        emptied the watcher, and at once if events may already be pending. It may fire and then
        ``poll`` return nothing; it never stays silent while events wait. It should only schedule
        work: the store is mid-commit."""
        self.notify_fn = fn
        if fn is not None and not self.closed:
            self.store._arm_notify(self)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.notify_fn = None
            self.store._remove(self)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "synced" if self.synced else "unsynced"
        return f"MemoryWatcher(id={self._id}, {self.spec[0]!r}..{self.spec[1]!r}, {state})"
