"""Superseded values kept as deltas (kbatch/store/delta.py): every revision reads back byte-exact,
whatever the values share, and the deltas actually save the memory they exist for."""

from __future__ import annotations

import tracemalloc

import hypothesis.strategies as st
from hypothesis import given

from kbatch.store import MemoryStore
from kbatch.store.delta import CHECKPOINT, GRAIN, HEADER, MIN_SAVING, encode, is_delta, rebuild, rebuild_from
from kbatch.store.key_index import KeyIndex
from kbatch.store.records import make_kv, make_tombstone

BODY = bytes(range(256)) * 2  # repeated content: the split between prefix and suffix is ambiguous


@st.composite
def related_values(draw: st.DrawFn) -> bytes:
    """Values that share a prefix and/or a suffix with each other, as versions of one object do."""
    head = draw(st.integers(0, len(BODY)))
    tail = draw(st.integers(0, len(BODY)))
    return BODY[:head] + draw(st.binary(max_size=2 * GRAIN)) + BODY[len(BODY) - tail :]


values = related_values() | st.binary(max_size=3 * MIN_SAVING)


@given(st.lists(values, min_size=1, max_size=3 * CHECKPOINT), st.data())
def test_every_version_of_a_key_rebuilds_byte_exact(versions: list[bytes], data: st.DataObject) -> None:
    ki = KeyIndex(b"k")
    for rev, v in enumerate(versions, start=2):
        ki.put(make_kv(b"k", v, 2, rev, rev - 1))
    if data.draw(st.booleans(), label="deleted"):
        ki.tombstone(make_tombstone(b"k", len(versions) + 2))
    ki.check(0)
    g = ki.generations[0]
    assert [rebuild(b"k", g, i).value for i in range(len(versions))] == versions
    for rev, v in enumerate(versions, start=2):
        kv = ki.get(rev)
        assert kv is not None
        assert (kv.value, kv.mod_revision, kv.version, kv.create_revision) == (v, rev, rev - 1, 2)
    start = data.draw(st.integers(0, len(versions)), label="start")
    assert [kv.value for kv in rebuild_from(b"k", g, start)][: len(versions) - start] == versions[start:]
    runs = "".join("d" if is_delta(e) else "f" for e in g)
    assert "d" * CHECKPOINT not in runs  # a rebuild walks fewer than CHECKPOINT deltas


@given(related_values(), related_values())
def test_a_delta_is_the_new_value_around_a_middle_and_saves_min_saving(old: bytes, new: bytes) -> None:
    prev = make_kv(b"k", old, 2, 2, 1)
    d = encode(prev, new)
    if d is prev:
        return
    mod, create, version, head, tail = HEADER.unpack_from(d)
    mid = d[HEADER.size :]
    assert (mod, create, version) == (2, 2, 1)
    assert new[:head] + mid + new[len(new) - tail :] == old
    assert head + tail >= MIN_SAVING and head + tail <= min(len(old), len(new))


def test_the_live_value_and_the_value_before_a_tombstone_stay_whole() -> None:
    ki = KeyIndex(b"k")
    for rev in range(2, 6):
        ki.put(make_kv(b"k", BODY + b"%d" % rev, 2, rev, rev - 1))
    ki.tombstone(make_tombstone(b"k", 6))
    ki.put(make_kv(b"k", BODY, 7, 7, 1))
    shape = [["d" if is_delta(e) else "f" for e in g] for g in ki.generations]
    assert shape == [["d", "d", "d", "f", "f"], ["f"]]
    live = ki.latest()
    assert live is not None and live.value is ki.generations[-1][-1].value


def test_superseded_revisions_cost_a_fraction_of_their_value() -> None:
    """500 status-like updates of a 2 KiB object: history held as deltas, not 500 whole copies."""
    store = MemoryStore()
    doc = b'{"spec":' + b"s" * 2000 + b',"status":{"n":%06d}}'
    store.put(b"/k", doc % 0)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, 501):
            store.put(b"/k", doc % i)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 500 * 400  # whole copies would be > 500 * 2000 bytes
    for r in range(2, store.revision + 1):
        assert store.range(b"/k", revision=r).kvs[0].value == doc % (r - 2)
