"""The guarded-put fast path of ``txn`` (the API server's create/update/bind shape) answers exactly
like the general transaction code: same result, same store afterwards, same errors for bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.store import Compare, MemoryStore, PutOp
from kbatch.store.txn import _guarded_put, execute, execute_general

KEYS = [b"a", b"b", b"c"]
keys = st.sampled_from(KEYS)
history = st.lists(st.tuples(st.sampled_from(["put", "del"]), keys, st.binary(max_size=2)), max_size=8)
int_compares = st.builds(Compare, keys, st.sampled_from(["version", "create", "mod"]),
                         st.sampled_from(["=", "!=", "<", ">"]), st.integers(0, 6))
value_compares = st.builds(lambda k, op, v: Compare.value_is(k, op, v), keys,
                           st.sampled_from(["=", "!="]), st.binary(max_size=2))


def _replay(steps: list[tuple[str, bytes, bytes]]) -> MemoryStore:
    store = MemoryStore()
    for verb, key, value in steps:
        if verb == "put":
            store.put(key, value)
        else:
            store.delete_range(key)
    return store


def _state(store: MemoryStore) -> tuple:
    kvs = store.range(b"\0", b"\0").kvs
    return store.revision, tuple((kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)
                                 for kv in kvs)


@settings(max_examples=150, deadline=None)
@given(history, st.lists(int_compares | value_compares, max_size=3), keys, st.binary(max_size=2),
       st.booleans())
def test_fast_path_matches_the_general_transaction(steps: list, compare: list[Compare], key: bytes,
                                                   value: bytes, prev: bool) -> None:
    fast_store, general_store = _replay(steps), _replay(steps)
    success = [PutOp(key, value, prev)]
    fast = execute(fast_store._kv, compare, success, ())
    general = execute_general(general_store._kv, compare, success, ())
    assert fast == general
    assert _state(fast_store) == _state(general_store)


@pytest.mark.parametrize("compare", [
    Compare(b"a", "mod", "==", 0),  # type: ignore[arg-type]
    Compare(b"a", "lease", "=", 0),  # type: ignore[arg-type]
    Compare(b"a", "mod", "=", True),
    Compare(b"", "mod", "=", 0),
    Compare(bytearray(b"a"), "mod", "=", 0),  # type: ignore[arg-type]
])
def test_anything_unusual_takes_the_general_path(compare: Compare) -> None:
    store = MemoryStore()
    assert _guarded_put(store._kv, [compare], [PutOp(b"a", b"1")], ()) is None


def test_bad_compare_is_rejected_and_writes_nothing() -> None:
    store = MemoryStore()
    with pytest.raises(ValueError, match="unknown compare op"):
        store.txn([Compare(b"a", "mod", "==", 0)], [PutOp(b"a", b"1")])  # type: ignore[arg-type]
    assert store.revision == 1 and store.range(b"a").kvs == ()
