"""Replaying history in batches (``MVCCStore.history`` with a limit, ``MemoryStore``'s catch-up).

A batch is a prefix of the whole replay, cut after ``limit`` writes and then at the end of that
write's revision (a transaction's writes are never split); replaying batch after batch gives the whole
replay, and a watcher far behind receives its backlog that way, in order, and is synced after.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from kbatch.store import DeleteOp, MemoryStore, PutOp, pending_batches, prefix_end

KEYS = [b"a", b"ab", b"b", b"c"]
# a transaction: 1-3 writes to distinct keys (etcd refuses a key twice in one txn)
txns = st.lists(
    st.lists(st.tuples(st.sampled_from(KEYS), st.booleans(), st.binary(max_size=4)),
             min_size=1, max_size=3, unique_by=lambda w: w[0]),
    min_size=1, max_size=25)
ranges = st.sampled_from([(b"a", prefix_end(b"a")), (b"\0", b"\0"), (b"b", b"b\0"), (b"a", b"c")])


def _apply(store: MemoryStore, batch: list[list[tuple[bytes, bool, bytes]]]) -> None:
    for txn in batch:
        ops = [PutOp(k, v) if put or not store.range(k).kvs else DeleteOp(k) for k, put, v in txn]
        store.txn([], ops)


def _key_range(r: tuple[bytes, bytes]) -> tuple[bytes, bytes | None]:
    start, end = r
    return (b"\0", None) if start == b"\0" and end == b"\0" else (start, end)


@given(txns, ranges, st.integers(1, 30), st.integers(1, 8))
@settings(max_examples=150, deadline=None)
def test_a_limited_history_is_the_whole_history_cut_at_a_revision(
        batch: list, r: tuple[bytes, bytes], from_rev: int, limit: int) -> None:
    store = MemoryStore()
    _apply(store, batch)
    kv = store._kv
    start, end = _key_range(r)
    from_rev = min(from_rev, kv.rev + 1)
    whole = kv.history(start, end, from_rev)
    part = kv.history(start, end, from_rev, limit)
    assert part == whole[: len(part)]
    assert len(part) >= min(limit, len(whole))  # never fewer than asked while more exist
    if len(part) > limit:  # extended only to finish the last revision
        assert {e.mod_revision for e in part[limit - 1:]} == {part[limit - 1].mod_revision}
    if len(part) < len(whole):
        assert whole[len(part)].mod_revision != part[-1].mod_revision


@given(txns, ranges, st.integers(1, 4), st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_watcher_far_behind_gets_its_backlog_in_batches_then_is_synced(
        batch: list, r: tuple[bytes, bytes], catch_up: int, prev_kv: bool) -> None:
    store = MemoryStore(max_backlog=1, catch_up_batch=catch_up)
    w = store.watch(r[0], r[1], start_revision=1, prev_kv=prev_kv)
    wakes: list[int] = []
    w.set_notify(lambda: wakes.append(1))
    _apply(store, batch)
    reference = MemoryStore()
    _apply(reference, batch)
    whole = reference.watch(r[0], r[1], start_revision=1, prev_kv=prev_kv).poll()  # one batch: all
    got = []
    for events in pending_batches(w):
        assert len(events) <= catch_up or len({e.kv.mod_revision for e in events[catch_up - 1:]}) == 1
        got.extend(events)
    assert got == whole
    assert store.watcher_counts() == (1, 0)  # caught up: back in its group
    store.put(b"a", b"after")
    assert [e.kv.value for e in w.poll()] == ([b"after"] if _watches(r, b"a") else [])
    store.check_invariants()


def _watches(r: tuple[bytes, bytes], key: bytes) -> bool:
    start, end = _key_range(r)
    return start <= key and (end is None or key < end)
