"""Example tests for the documented KV behaviour (revisions, range, delete, txn, compaction), one per
behaviour, named after it; each runs on ``MemoryStore`` and on ``EtcdStore`` (tests/store/conftest.py)."""

from __future__ import annotations

import pytest

from kbatch.store import (
    KV,
    CompactedError,
    Compare,
    DeleteOp,
    DuplicateKeyError,
    FutureRevisionError,
    KeyValue,
    MemoryStore,
    PutOp,
    RangeOp,
    RangeResult,
    prefix_end,
)


def test_store_implements_kv_protocol(store: MemoryStore) -> None:
    assert isinstance(store, KV)


def test_empty_store_is_at_revision_one_and_first_put_is_two(store: MemoryStore) -> None:
    assert store.revision == 1
    assert store.put(b"a", b"1").revision == 2
    assert store.revision == 2


def test_put_sets_create_mod_revision_and_version(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    store.put(b"b", b"x")
    store.put(b"a", b"2")
    (kv,) = store.range(b"a").kvs
    assert kv == KeyValue(b"a", b"2", create_revision=2, mod_revision=4, version=2)


def test_version_resets_after_delete(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    store.put(b"a", b"2")
    store.delete_range(b"a")
    store.put(b"a", b"3")
    (kv,) = store.range(b"a").kvs
    assert (kv.version, kv.create_revision, kv.mod_revision) == (1, 5, 5)


def test_put_returns_prev_kv_only_when_asked(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    assert store.put(b"a", b"2").prev_kv is None
    prev = store.put(b"a", b"3", prev_kv=True).prev_kv
    assert prev is not None and prev.value == b"2"


def test_range_single_key_prefix_and_from_key(store: MemoryStore) -> None:
    for k in (b"a", b"ab", b"abc", b"b", b"c"):
        store.put(k, k)
    assert [kv.key for kv in store.range(b"ab").kvs] == [b"ab"]
    assert [kv.key for kv in store.range(b"a", prefix_end(b"a")).kvs] == [b"a", b"ab", b"abc"]
    assert [kv.key for kv in store.range(b"ab", b"c").kvs] == [b"ab", b"abc", b"b"]
    assert [kv.key for kv in store.range(b"b", b"\0").kvs] == [b"b", b"c"]
    assert len(store.range(b"\0", b"\0").kvs) == 5
    assert store.range(b"c", b"a").kvs == ()  # range_end before key: empty


def test_range_limit_reports_more_and_full_count(store: MemoryStore) -> None:
    for i in range(5):
        store.put(b"k%d" % i, b"v")
    res = store.range(b"k", prefix_end(b"k"), limit=2)
    assert [kv.key for kv in res.kvs] == [b"k0", b"k1"]
    assert (res.count, res.more) == (5, True)
    res = store.range(b"k", prefix_end(b"k"), limit=5)
    assert (len(res.kvs), res.count, res.more) == (5, 5, False)
    assert store.range(b"k", prefix_end(b"k"), limit=0).count == 5  # 0 means no limit


def test_range_keys_only_and_count_only(store: MemoryStore) -> None:
    store.put(b"a", b"value")
    store.put(b"b", b"value")
    res = store.range(b"a", b"\0", keys_only=True)
    assert [(kv.key, kv.value, kv.version) for kv in res.kvs] == [(b"a", b"", 1), (b"b", b"", 1)]
    res = store.range(b"a", b"\0", count_only=True)
    assert res == RangeResult((), 2, False, store.revision)


def test_range_at_past_revision_sees_state_then(store: MemoryStore) -> None:
    store.put(b"a", b"1")  # 2
    store.put(b"a", b"2")  # 3
    store.delete_range(b"a")  # 4
    store.put(b"b", b"1")  # 5
    assert [kv.value for kv in store.range(b"a", revision=2).kvs] == [b"1"]
    assert [kv.value for kv in store.range(b"a", revision=3).kvs] == [b"2"]
    assert store.range(b"a", revision=4).kvs == ()
    assert store.range(b"a", b"\0", revision=1).kvs == ()
    assert store.range(b"a", revision=3).revision == 5  # header: the current revision, as etcd


def test_range_at_future_revision_raises(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    with pytest.raises(FutureRevisionError):
        store.range(b"a", revision=3)


def test_delete_range_counts_and_returns_prev_kvs(store: MemoryStore) -> None:
    for k in (b"a1", b"a2", b"b"):
        store.put(k, b"v" + k)
    res = store.delete_range(b"a", prefix_end(b"a"), prev_kv=True)
    assert res.deleted == 2 and res.revision == 5
    assert [kv.value for kv in res.prev_kvs] == [b"va1", b"va2"]
    assert store.range(b"a", prefix_end(b"a")).count == 0


def test_delete_of_missing_key_does_not_bump_revision(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    res = store.delete_range(b"zzz")
    assert (res.deleted, res.revision, store.revision) == (0, 2, 2)


def test_txn_with_two_writes_uses_one_revision(store: MemoryStore) -> None:
    res = store.txn(success=[PutOp(b"a", b"1"), PutOp(b"b", b"2")])
    assert res.succeeded and res.revision == 2 == store.revision
    assert {kv.mod_revision for kv in store.range(b"a", b"\0").kvs} == {2}


def test_txn_compare_chooses_branch(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    ok = store.txn([Compare.mod_revision(b"a", "=", 2)], [PutOp(b"a", b"2")], [PutOp(b"a", b"no")])
    assert ok.succeeded
    stale = store.txn([Compare.mod_revision(b"a", "=", 2)], [PutOp(b"a", b"3")], [RangeOp(b"a")])
    assert not stale.succeeded
    assert stale.responses[0].kvs[0].value == b"2"  # type: ignore[union-attr]
    assert store.revision == 3  # the failed branch only read


@pytest.mark.parametrize(
    ("compare", "want"),
    [
        (Compare.version(b"a", "=", 2), True),
        (Compare.version(b"a", "!=", 2), False),
        (Compare.version(b"a", ">", 1), True),
        (Compare.version(b"a", "<", 2), False),
        (Compare.create_revision(b"a", "=", 2), True),
        (Compare.mod_revision(b"a", "<", 4), True),
        (Compare.value_is(b"a", "=", b"2"), True),
        (Compare.value_is(b"a", ">", b"1"), True),
        (Compare.value_is(b"a", "<", b"1"), False),
        # a missing key: version/create/mod are 0 and a value compare is false
        (Compare.version(b"missing", "=", 0), True),
        (Compare.create_revision(b"missing", "=", 0), True),
        (Compare.value_is(b"missing", "!=", b"x"), False),
    ],
)
def test_txn_compares_on_version_create_mod_and_value(
    store: MemoryStore, compare: Compare, want: bool
) -> None:
    store.put(b"a", b"1")
    store.put(b"a", b"2")
    assert store.txn([compare]).succeeded is want


def test_txn_range_sees_its_own_earlier_writes(store: MemoryStore) -> None:
    res = store.txn(success=[PutOp(b"a", b"1"), RangeOp(b"a"), DeleteOp(b"b")])
    assert res.responses[1].kvs[0].value == b"1"  # type: ignore[union-attr]
    assert res.responses[1].revision == res.revision == 2


@pytest.mark.parametrize(
    "ops",
    [
        [PutOp(b"a", b"1"), PutOp(b"a", b"2")],
        [DeleteOp(b"a", prefix_end(b"a")), PutOp(b"ab", b"2")],
    ],
    ids=["put-twice", "put-inside-delete"],
)
def test_txn_rejects_writing_a_key_twice_and_changes_nothing(store: MemoryStore, ops: list) -> None:
    store.put(b"ab", b"0")
    with pytest.raises(DuplicateKeyError):
        store.txn(success=[PutOp(b"z", b"1"), *ops])
    with pytest.raises(DuplicateKeyError):
        store.txn(failure=ops)  # checked even when the branch would not run
    assert store.revision == 2 and store.range(b"z").count == 0


def test_txn_allows_overlapping_deletes(store: MemoryStore) -> None:
    store.put(b"a", b"1")
    res = store.txn(success=[DeleteOp(b"a"), DeleteOp(b"a", b"\0")])
    assert [r.deleted for r in res.responses] == [1, 0]  # type: ignore[union-attr]


def test_empty_key_and_wrong_types_are_rejected(store: MemoryStore) -> None:
    with pytest.raises(ValueError):
        store.put(b"", b"1")
    with pytest.raises(TypeError):
        store.put("a", b"1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.txn([Compare.version(b"a", "=", b"1")])  # type: ignore[arg-type]
    assert store.revision == 1


def test_mutating_caller_buffers_does_not_change_store(store: MemoryStore) -> None:
    key, value = bytearray(b"k"), bytearray(b"v1")
    store.put(key, value)  # type: ignore[arg-type]
    key[0], value[1] = ord("x"), ord("9")
    assert store.range(b"k").kvs[0].value == b"v1"
    with pytest.raises(AttributeError):
        store.range(b"k").kvs[0].value = b"other"  # type: ignore[misc]


def test_compaction_errors_below_and_reads_at_compacted_revision(store: MemoryStore) -> None:
    for i in range(5):
        store.put(b"a", b"%d" % i)  # revisions 2..6
    store.compact(4)
    assert store.compact_revision == 4
    with pytest.raises(CompactedError) as err:
        store.range(b"a", revision=3)
    assert err.value.compact_revision == 4
    assert store.range(b"a", revision=4).kvs[0].value == b"2"
    assert store.range(b"a", revision=5).kvs[0].value == b"3"
    with pytest.raises(CompactedError):
        store.compact(4)
    with pytest.raises(FutureRevisionError):
        store.compact(7)


def test_compaction_removes_deleted_keys_from_index() -> None:
    store = MemoryStore()  # the memory store's own index
    store.put(b"a", b"1")
    store.delete_range(b"a")
    store.put(b"b", b"1")
    store.compact(store.revision)
    assert b"a" not in store._kv.index
    assert store.range(b"a", b"\0").count == 1
