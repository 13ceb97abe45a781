"""Property tests for the key index (TreeIndex), one key's generations (KeyIndex) and the index of
watcher groups (GroupIndex)."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given

from kbatch.store.index import TreeIndex
from kbatch.store.key_index import KeyIndex
from kbatch.store.keyrange import contains, key_range
from kbatch.store.kv import prefix_end
from kbatch.store.records import make_kv, make_tombstone
from kbatch.store.watcher_group import GroupIndex

key_st = st.binary(min_size=1, max_size=2)
steps = st.lists(
    st.tuples(st.sampled_from(["create", "remove", "range"]), st.lists(key_st, max_size=12)),
    max_size=30,
)


@given(steps)
def test_tree_index_keeps_key_order_through_creates_and_removals(ops: list) -> None:
    index, model = TreeIndex(), set()
    for op, keys in ops:
        if op == "create":
            for k in keys:
                if k not in model:
                    index.create(k)
                    model.add(k)
        elif op == "remove":
            gone = sorted(set(keys) & model)
            index.remove(gone)
            model -= set(gone)
        else:
            lo, hi = (sorted(keys)[0], sorted(keys)[-1]) if keys else (b"\0", None)
            want = sorted(k for k in model if lo <= k and (hi is None or k < hi))
            assert index.keys_in(lo, hi) == want
        assert len(index) == len(model)
    assert [k for k, _ in index.items()] == sorted(model)


def test_key_index_worked_example_from_docstring() -> None:
    def build() -> KeyIndex:
        ki = KeyIndex(b"foo")
        ki.put(make_kv(b"foo", b"1", 1, 1, 1))
        ki.put(make_kv(b"foo", b"2", 1, 2, 2))
        ki.tombstone(make_tombstone(b"foo", 3))
        ki.put(make_kv(b"foo", b"4", 4, 4, 1))
        ki.tombstone(make_tombstone(b"foo", 5))
        return ki

    def shape(ki: KeyIndex) -> list[list[str]]:
        return [[f"{kv.mod_revision}{'' if kv.version else 't'}" for kv in g] for g in ki.generations]

    assert shape(build()) == [["1", "2", "3t"], ["4", "5t"], []]
    want = {
        2: [["2", "3t"], ["4", "5t"], []],
        3: [["3t"], ["4", "5t"], []],
        4: [["4", "5t"], []],
        5: [["5t"], []],
        6: [[]],
    }
    for at, gens in want.items():
        ki = build()
        assert ki.compact(at) is (at == 6)
        assert shape(ki) == gens
        assert ki.get(at) == build().get(at)  # compaction keeps the state at ``at``


def test_tree_index_removing_few_keys_among_fresh_and_settled_ones() -> None:
    index = TreeIndex()
    for i in range(100):
        index.create(b"s%03d" % i)
    assert len(index.keys_in(b"s", b"t")) == 100  # settles the order
    index.create(b"f1")
    index.create(b"f2")
    index.remove([b"f1", b"s050"])  # few keys: removed one by one, fresh and settled
    assert index.keys_in(b"f", b"g") == [b"f2"]
    assert b"s050" not in index.keys_in(b"s", b"t") and len(index) == 100


range_st = st.tuples(key_st, st.one_of(st.none(), key_st, key_st.map(prefix_end)))


@given(st.lists(range_st, max_size=8), st.lists(st.integers(0, 7), max_size=4), st.lists(key_st, max_size=20))
def test_group_index_finds_exactly_the_groups_containing_a_key(ranges: list, drop: list, keys: list) -> None:
    groups = GroupIndex()
    specs = []
    for key, range_end in ranges:
        start, end = key_range(key, range_end)
        groups.get_or_create((start, end, False))
        specs.append((start, end, False))
    for i in drop:
        if i < len(specs) and specs[i] in groups.by_spec:
            groups.remove(groups.by_spec[specs[i]])
    for k in keys:
        want = {spec for spec in groups.by_spec if contains(spec[0], spec[1], k)}
        got = [g.spec for g in groups.matching(k)]
        # sorted by repr: an unbounded spec's end is None, which does not order against bytes
        assert sorted(got, key=repr) == sorted(want, key=repr) and len(got) == len(set(got))
