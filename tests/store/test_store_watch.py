"""Example tests for watch: history replay, live delivery, notify, slow consumers, compaction.

Tests taking ``new_store`` run on both backends; ``settle(s)`` is where etcd's pushed stream catches
up (a no-op for ``MemoryStore``, which delivers synchronously). Tests of ``MemoryStore``'s own
machinery (groups, its synchronous notify, its slow-consumer bookkeeping) build one directly; their
etcd counterparts are in test_etcd_watch.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kbatch.store import (
    CompactedError,
    DeleteOp,
    EventType,
    MemoryStore,
    PutOp,
    Watcher,
    pending_batches,
    prefix_end,
)
from kbatch.store.watchable_store import CATCH_UP_BATCH

Factory = Callable[..., Any]
Settle = Callable[[Any], None]


def keys_and_revs(events: list) -> list[tuple[bytes, int, EventType]]:
    return [(e.kv.key, e.kv.mod_revision, e.type) for e in events]


def test_watcher_implements_protocol(new_store: Factory) -> None:
    assert isinstance(new_store().watch(b"a"), Watcher)


def test_watch_from_now_sees_only_future_events(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"a", b"old")
    w = s.watch(b"a")
    settle(s)
    assert w.poll() == []
    s.put(b"a", b"new")
    s.put(b"b", b"other")
    settle(s)
    assert keys_and_revs(w.poll()) == [(b"a", 3, EventType.PUT)]
    assert w.poll() == []


def test_watch_from_past_revision_replays_history(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"p/a", b"1")  # 2
    s.put(b"q", b"x")  # 3
    s.put(b"p/b", b"1")  # 4
    s.delete_range(b"p/a")  # 5
    w = s.watch(b"p/", prefix_end(b"p/"), start_revision=3)
    s.put(b"p/c", b"1")  # 6, live after replay
    settle(s)
    assert keys_and_revs(w.poll()) == [
        (b"p/b", 4, EventType.PUT),
        (b"p/a", 5, EventType.DELETE),
        (b"p/c", 6, EventType.PUT),
    ]
    s.put(b"p/d", b"1")
    settle(s)
    assert keys_and_revs(w.poll()) == [(b"p/d", 7, EventType.PUT)]


def test_watch_delete_event_is_a_tombstone(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"a", b"1")
    w = s.watch(b"a", prev_kv=True)
    s.delete_range(b"a")
    settle(s)
    (ev,) = w.poll()
    assert ev.type is EventType.DELETE
    assert (ev.kv.value, ev.kv.create_revision, ev.kv.version, ev.kv.mod_revision) == (b"", 0, 0, 3)
    assert ev.prev_kv is not None and ev.prev_kv.value == b"1"


def test_watch_prev_kv_only_when_asked_also_in_replay(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"a", b"1")
    s.put(b"a", b"2")
    with_prev = s.watch(b"a", start_revision=2, prev_kv=True)
    without = s.watch(b"a", start_revision=2)
    settle(s)
    assert [e.prev_kv.value if e.prev_kv else None for e in with_prev.poll()] == [None, b"1"]
    assert [e.prev_kv for e in without.poll()] == [None, None]


def test_txn_events_share_one_revision_in_op_order(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"b", b"0")
    w = s.watch(b"a", b"\0")
    s.txn(success=[PutOp(b"c", b"1"), DeleteOp(b"b"), PutOp(b"a", b"1")])
    settle(s)
    assert keys_and_revs(w.poll()) == [
        (b"c", 3, EventType.PUT),
        (b"b", 3, EventType.DELETE),
        (b"a", 3, EventType.PUT),
    ]


def test_watch_future_start_revision_skips_earlier_events(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    w = s.watch(b"a", start_revision=4)
    s.put(b"a", b"2")
    s.put(b"a", b"3")
    s.put(b"a", b"4")
    settle(s)
    assert [e.kv.mod_revision for e in w.poll()] == [4]


def test_watchers_on_same_range_share_one_group() -> None:
    s = MemoryStore()
    ws = [s.watch(b"p/", prefix_end(b"p/")) for _ in range(10)]
    assert len(s._groups.by_spec) == 1
    s.put(b"p/x", b"1")
    events = [w.poll() for w in ws]
    assert all(e == events[0] and len(e) == 1 for e in events)
    for w in ws:
        w.close()
    assert not s._groups.by_spec


def test_notify_fires_when_events_become_pending() -> None:
    s = MemoryStore()
    calls: list[int] = []
    w = s.watch(b"a")
    w.set_notify(lambda: calls.append(s.revision))
    s.put(b"a", b"1")
    s.put(b"a", b"2")  # still pending: no second call
    assert calls == [2]
    assert len(w.poll()) == 2
    s.put(b"b", b"x")  # not watched
    s.put(b"a", b"3")
    assert calls == [2, 5]


def test_notify_fires_at_once_when_history_is_pending(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    s.put(b"a", b"1")
    calls: list[str] = []
    w = s.watch(b"a", start_revision=1)
    w.set_notify(lambda: calls.append("wake"))
    settle(s)
    assert calls == ["wake"]
    assert len(w.poll()) == 1


def test_slow_watcher_does_not_block_writer() -> None:
    s = MemoryStore(max_backlog=10)
    slow = s.watch(b"k", prefix_end(b"k"))
    fast = s.watch(b"k", prefix_end(b"k"))
    got_fast = []
    for i in range(3000):
        s.put(b"k%d" % (i % 7), b"v%d" % i)
        got_fast.extend(fast.poll())
    assert s.watcher_counts() == (1, 1)  # the slow one was moved to unsynced
    assert len(s._groups.by_spec[(b"k", b"l", False)].log) <= 10 + 1024  # the group log stays bounded
    batches = list(pending_batches(slow))  # caught up from history: same events, same order,
    got_slow = [e for batch in batches for e in batch]  # at most CATCH_UP_BATCH a poll
    assert got_slow == got_fast and len(got_slow) == 3000
    assert [len(b) for b in batches] == [CATCH_UP_BATCH] * 3
    assert s.watcher_counts() == (2, 0)
    s.put(b"k1", b"after")
    assert [e.kv.value for e in slow.poll()] == [b"after"]


def test_compaction_cancels_watcher_needing_history() -> None:
    s = MemoryStore(max_backlog=5)
    woken: list[bool] = []
    behind = s.watch(b"a", start_revision=1)
    behind.set_notify(lambda: woken.append(True))
    live = s.watch(b"a")
    for i in range(2000):
        s.put(b"a", b"%d" % i)
    assert sum(len(batch) for batch in pending_batches(live)) == 2000  # caught up
    s.compact(s.revision)
    assert woken  # the consumer is told to come and see the error
    with pytest.raises(CompactedError) as err:
        behind.poll()
    assert err.value.requested == 1
    with pytest.raises(CompactedError):
        behind.poll()
    s.put(b"a", b"x")
    assert len(live.poll()) == 1  # an up-to-date watcher is not affected


def test_compaction_keeps_watcher_whose_backlog_is_in_its_group(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    w = s.watch(b"a")
    s.put(b"a", b"1")
    s.put(b"a", b"2")
    settle(s)
    s.compact(s.revision)
    assert [e.kv.value for e in w.poll()] == [b"1", b"2"]


def test_watch_below_compacted_revision_raises_and_at_it_replays() -> None:
    s = MemoryStore()  # etcd drops a tombstone at exactly the compacted revision (docs/store.md)
    s.put(b"a", b"1")  # 2
    s.delete_range(b"a")  # 3
    s.put(b"b", b"1")  # 4
    s.compact(3)
    with pytest.raises(CompactedError):
        s.watch(b"a", start_revision=2)
    w = s.watch(b"a", b"\0", start_revision=3)
    assert keys_and_revs(w.poll()) == [(b"a", 3, EventType.DELETE), (b"b", 4, EventType.PUT)]


def test_closed_watcher_gets_nothing(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    w = s.watch(b"a")
    w.close()
    s.put(b"a", b"1")
    settle(s)
    assert w.poll() == []
    if isinstance(s, MemoryStore):
        assert s.watcher_counts() == (0, 0)


def test_notify_callback_may_poll_and_sees_the_whole_txn(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    w = s.watch(b"a", b"\0")
    seen: list[list[bytes]] = []
    w.set_notify(lambda: seen.append([e.kv.key for e in w.poll()]))
    s.txn(success=[PutOp(b"a", b"1"), PutOp(b"b", b"1")])
    settle(s)
    assert seen == [[b"a", b"b"]]


def test_notify_callback_may_write_to_the_store(new_store: Factory, settle: Settle) -> None:
    s = new_store()
    w = s.watch(b"a", b"\0")
    w.set_notify(lambda: s.put(b"echo", b"x") if s.revision < 3 else None)
    s.put(b"a", b"1")
    settle(s)
    assert [(e.kv.key, e.kv.mod_revision) for e in w.poll()] == [(b"a", 2), (b"echo", 3)]
