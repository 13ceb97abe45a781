"""The correlator's bounded caches (client-go events_cache.go keeps golang-lru caches of 4096):
``get`` and ``put`` both count as a use, and the least recently used key goes first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.events import _LRU

ops = st.lists(st.tuples(st.sampled_from(["get", "put"]), st.integers(0, 7), st.integers()), max_size=60)


@given(st.integers(1, 5), ops)
def test_lru_matches_a_recency_list(size: int, steps: list[tuple[str, int, int]]) -> None:
    lru: _LRU[int, int] = _LRU(size)
    model: list[tuple[int, int]] = []  # least recent first
    for op, key, value in steps:
        found = next((i for i, (k, _) in enumerate(model) if k == key), None)
        if op == "get":
            expected = None if found is None else model[found][1]
            assert lru.get(key) == expected
            if found is not None:
                model.append(model.pop(found))
        else:
            lru.put(key, value)
            if found is not None:
                model.pop(found)
            model.append((key, value))
            if len(model) > size:
                model.pop(0)
        assert len(lru) == len(model)
        assert all(k in lru for k, _ in model)
    assert [lru.get(k) for k, _ in list(model)] == [v for _, v in model]
