"""``MemoryStore``: the MVCC store plus watch, the in-memory ``KV`` backend
(etcd ``server/storage/mvcc/watchable_store.go`` and ``kv_view.go``).

Watchers are *synced* (in a ``WatcherGroup``, fed on every commit) or *unsynced* (behind; fed from the
MVCC history on their next ``poll``). A commit appends each matching event once per group, then wakes
the group's idle watchers; it never waits for, or copies events to, any individual watcher.

Slow-consumer rule (etcd's "victims", without a background loop): a synced watcher that falls more
than ``max_backlog`` events behind its group when the group trims its log (every
``min(1024, max_backlog)`` appends) is moved to the unsynced set, so that the group can drop the
events and writers and other watchers never pay for it. Its next
``poll``-s replay everything from its ``next_rev`` out of the MVCC history, at most
``catch_up_batch`` events a poll (same events, same order, nothing lost or repeated), and the poll
that reaches the current revision puts it back in its group. If a compaction drops history such a
watcher still needs (``next_rev < compact revision``), the watcher is cancelled and its ``poll``
raises ``CompactedError``; the consumer re-lists and watches again, as a Kubernetes informer does.

Watchers created with a start revision at or below the current one start unsynced (history replay,
then live); a future start revision joins the group at once and skips events below it.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbatch.store import snapshot as snapshot_format
from kbatch.store.errors import CompactedError, WatchCancelledError
from kbatch.store.keyrange import as_bytes, key_range
from kbatch.store.kv import (
    Compare,
    DeleteResult,
    Event,
    KeyValue,
    Op,
    PutResult,
    RangeResult,
    TxnResult,
)
from kbatch.store.kvstore import MVCCStore
from kbatch.store.records import make_event
from kbatch.store.revision import check_read, check_watch_start
from kbatch.store.txn import WriteTxn, execute
from kbatch.store.watcher import MemoryWatcher
from kbatch.store.watcher_group import TRIM_EVERY, GroupIndex, WatcherGroup

__all__ = ["CATCH_UP_BATCH", "DEFAULT_MAX_BACKLOG", "MemoryStore"]

DEFAULT_MAX_BACKLOG = 1_000
"""Events a synced watcher may fall behind its group before it is moved to the unsynced set. The
group's log holds each event with its value and previous value until every member has read it, so
this bounds what a burst of writes holds (20,000 JobSet pods, PodGC deleting 7,500 in one
reconcile: peak RSS 467 MiB at 10,000, 435 MiB at 1,000, CPU time unchanged); a watcher further
behind replays from the store's history, which holds those values anyway."""

_RELEASE_AFTER = 64  # a poll that read this many events checks whether its group's log can be dropped

CATCH_UP_BATCH = 1_000
"""The default ``catch_up_batch``: the most events (whole revisions) one ``poll`` of an unsynced
watcher replays from history. A watcher that fell far behind (a controller wrote 90,000 objects in
one reconcile) is replayed in batches, so the replay never holds every rebuilt value and previous
value at once (etcd likewise sends a catching-up watcher at most ``watchBatchMaxRevs`` = 1,000
revisions at a time, ``server/storage/mvcc/watchable_store.go``; kbatch counts events). Consumers
poll until a poll returns nothing (``kbatch.store.kv.pending_batches``)."""


class MemoryStore:
    """In-memory etcd v3 KV with watch (implements ``kbatch.store.kv.KV``). Single-threaded."""

    catch_up_batch = CATCH_UP_BATCH  # (a class default too: a store saved before it existed loads)

    def __init__(self, *, max_backlog: int = DEFAULT_MAX_BACKLOG,
                 catch_up_batch: int = CATCH_UP_BATCH) -> None:
        if max_backlog < 1:
            raise ValueError(f"max_backlog must be >= 1, got {max_backlog}")
        if catch_up_batch < 1:
            raise ValueError(f"catch_up_batch must be >= 1, got {catch_up_batch}")
        self.max_backlog = max_backlog
        self.catch_up_batch = catch_up_batch
        self._kv = MVCCStore(on_commit=self._on_commit)
        self._groups = GroupIndex(trim_every=min(TRIM_EVERY, max_backlog))
        self._unsynced: dict[int, MemoryWatcher] = {}
        self._next_watch_id = 1

    # -- KV ----------------------------------------------------------------------------------------

    @property
    def revision(self) -> int:
        return self._kv.rev

    @property
    def compact_revision(self) -> int:
        return self._kv.compacted

    def range(
        self,
        key: bytes,
        range_end: bytes | None = None,
        *,
        revision: int | None = None,
        limit: int | None = None,
        keys_only: bool = False,
        count_only: bool = False,
    ) -> RangeResult:
        kv = self._kv
        start, end = key_range(key, range_end)
        rev = check_read(revision, kv.rev, kv.compacted)
        return kv.range(start, end, None if rev == kv.rev else rev, limit, keys_only, count_only, kv.rev)

    def put(self, key: bytes, value: bytes, prev_kv: bool = False) -> PutResult:
        """A one-op write transaction (etcd ``kv_view.go``)."""
        if type(key) is not bytes or not key:
            key = key_range(key, None)[0]
        if type(value) is not bytes:
            value = as_bytes(value, "value")
        tw = WriteTxn(self._kv)
        result = tw.put(key, value, prev_kv)
        tw.end()
        return result

    def delete_range(self, key: bytes, range_end: bytes | None = None, prev_kv: bool = False) -> DeleteResult:
        start, end = key_range(key, range_end)
        tw = WriteTxn(self._kv)
        result = tw.delete(start, end, prev_kv)
        tw.end()
        return result

    def txn(
        self, compare: Sequence[Compare] = (), success: Sequence[Op] = (), failure: Sequence[Op] = ()
    ) -> TxnResult:
        return execute(self._kv, compare, success, failure)

    def compact(self, revision: int) -> None:
        """Drop history below ``revision`` and cancel the unsynced watchers that still need it."""
        self._kv.compact(revision)
        for w in list(self._unsynced.values()):
            if w.next_rev < revision:
                self._cancel(w, CompactedError(w.next_rev, revision))

    def snapshot(self, path: str) -> None:
        snapshot_format.write(path, self._kv)

    def restore(self, path: str) -> None:
        """Replace the whole state by the snapshot at ``path``; open watchers are cancelled with
        ``WatchCancelledError`` (their history may no longer exist)."""
        loaded = snapshot_format.read(path)
        kv = self._kv
        kv.rev, kv.compacted, kv.index = loaded.rev, loaded.compacted, loaded.index
        kv.log_keys, kv.log_revs, kv.log_updates = loaded.log_keys, loaded.log_revs, loaded.log_updates
        for w in self._all_watchers():  # after the swap: a woken consumer sees the restored store
            self._cancel(w, WatchCancelledError(f"watcher {w.id} cancelled: store restored from {path}"))

    # -- watch -------------------------------------------------------------------------------------

    def watch(
        self,
        key: bytes,
        range_end: bytes | None = None,
        start_revision: int | None = None,
        prev_kv: bool = False,
    ) -> MemoryWatcher:
        start, end = key_range(key, range_end)
        kv = self._kv
        first = check_watch_start(start_revision, kv.rev, kv.compacted)
        w = MemoryWatcher(self, self._next_watch_id, (start, end, bool(prev_kv)), first)
        self._next_watch_id += 1
        if first <= kv.rev:
            self._unsynced[w.id] = w
        else:
            self._join(w)
        return w

    def _join(self, w: MemoryWatcher) -> None:
        g = self._groups.get_or_create(w.spec)
        g.members[w.id] = w
        w.group = g
        w.cursor = g.head
        w.idle = False

    def _poll(self, w: MemoryWatcher) -> list[Event]:
        g = w.group
        if g is None:
            events = self._catch_up(w)
            if len(events) >= self.catch_up_batch and events[-1].kv.mod_revision < self._kv.rev:
                w.next_rev = events[-1].kv.mod_revision + 1
                if w.notify_fn is not None:
                    w.notify_fn()  # still pending: the consumer polls again
                return events
            self._unsynced.pop(w.id, None)
            self._join(w)
            g = w.group
            assert g is not None
        else:
            i = w.cursor - g.base
            events = g.log[i:] if i < len(g.log) else []
            w.cursor = g.head
            if len(events) >= _RELEASE_AFTER and g.all_read():
                g.trim(self.max_backlog)  # every member has read the log: its events (and values) go now
            if events and events[0].kv.mod_revision < w.min_rev:
                events = [e for e in events if e.kv.mod_revision >= w.min_rev]
        w.next_rev = max(self._kv.rev + 1, w.min_rev)
        if w.notify_fn is not None and not w.idle:
            w.idle = True
            g.idle.append(w)
        return events

    def _catch_up(self, w: MemoryWatcher) -> list[Event]:
        kv = self._kv
        if w.next_rev < kv.compacted:  # compact() cancels these; kept as a guard
            raise CompactedError(w.next_rev, kv.compacted)
        start, end, want_prev = w.spec
        history = kv.history(start, end, max(w.next_rev, w.min_rev), self.catch_up_batch)
        if want_prev:
            return [make_event(e, kv.prev_of(e)) for e in history]
        return [make_event(e, None) for e in history]

    def _arm_notify(self, w: MemoryWatcher) -> None:
        g = w.group
        if g is None or w.cursor < g.head:
            assert w.notify_fn is not None
            w.notify_fn()  # something may be pending already
        elif not w.idle:
            w.idle = True
            g.idle.append(w)

    def _on_commit(self, rev: int, changes: list[KeyValue], prevs: list[KeyValue | None]) -> None:
        groups = self._groups
        if not groups.by_spec:
            return
        for g in groups.fan_out(changes, prevs):
            if g.idle:
                g.wake()  # before trimming, so an evicted watcher has been woken
            if len(g.log) >= g.trim_at:
                self._trim(g)

    def _trim(self, g: WatcherGroup) -> None:
        for w in g.trim(self.max_backlog):
            w.group = None
            w.idle = False
            self._unsynced[w.id] = w
        if not g.members:
            self._groups.remove(g)

    def _remove(self, w: MemoryWatcher) -> None:
        self._unsynced.pop(w.id, None)
        g = w.group
        if g is not None:
            del g.members[w.id]
            w.group = None
            if not g.members:
                self._groups.remove(g)

    def _cancel(self, w: MemoryWatcher, error: Exception) -> None:
        w.error = error
        w.closed = True
        self._remove(w)
        if w.notify_fn is not None:
            fn, w.notify_fn = w.notify_fn, None
            fn()  # let the consumer see the error

    def _all_watchers(self) -> list[MemoryWatcher]:
        synced = [w for g in self._groups.by_spec.values() for w in g.members.values()]
        return sorted([*synced, *self._unsynced.values()], key=lambda w: w.id)

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the store or its watchers are inconsistent (for tests)."""
        self._kv.check_invariants()
        for spec, g in self._groups.by_spec.items():
            if g.spec != spec or not g.members:
                raise AssertionError(f"group {spec!r} is misfiled or has no members")
            for w in g.members.values():
                if w.group is not g or not g.base <= w.cursor <= g.head or w.id in self._unsynced:
                    raise AssertionError(f"{w!r} has a bad cursor or membership in group {spec!r}")
        for w in self._unsynced.values():
            if w.group is not None or w.closed:
                raise AssertionError(f"{w!r} is unsynced but has a group or is closed")

    def watcher_counts(self) -> tuple[int, int]:
        """``(synced, unsynced)`` watcher counts, for tests and metrics."""
        return sum(len(g.members) for g in self._groups.by_spec.values()), len(self._unsynced)
