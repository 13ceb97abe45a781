"""The MVCC state as a few flat columns: how a saved control plane keeps its store (docs/cli.md).

A CLI command saves and loads the whole control plane (``kbatch/runtime/image.py``); at 100k pods the
store holds about a million entries (each pod's live value and the deltas of its superseded ones). As
objects, every entry costs the pickler a memo slot and, for a ``KeyValue``, a reducer call and an
argument tuple the pickler's memo keeps alive until the save ends; as columns the ``KeyValue`` objects
cost a few arrays:

* ``keys``      every indexed key, in key order;
* ``shape``     per key: its number of generations, then each generation's length (``array('I')``);
* ``full``      per entry: 1 for a ``KeyValue``, 0 for a delta (``bytearray``);
* ``payloads``  per entry: the value, or the delta itself — the store's own ``bytes`` objects;
* ``revs``      per ``KeyValue``: create_revision, mod_revision, version (``array('q')``);
* the write log, its keys as positions in ``keys``.

The payloads stay the objects the store holds. Joined into one ``bytes`` (formats 1 and 2), they were
a copy of every value on save and again on load (the joined blob, then its slices): at 100k pods
~400 MB more peak memory on each side of a command (measured with ``benchmarks/cli_bench.py``).

The columns are the store's own state, not a format for other programs: ``snapshot.py`` is the
portable, checked format.
"""

from __future__ import annotations

from array import array
from typing import Any

from kbatch.store.key_index import KeyIndex
from kbatch.store.kv import KeyValue
from kbatch.store.records import make_kv

__all__ = ["pack", "unpack_index"]

Columns = tuple[list[bytes], bytes, bytes, list[bytes], bytes]


def pack(items: Any, log_keys: list[bytes]) -> tuple[Columns, bytes]:
    """``items`` (``TreeIndex.items()``: key, KeyIndex in key order) and the write log's keys as
    columns, and those log keys as positions (``array('I')`` bytes) in the key column."""
    keys: list[bytes] = []
    shape = array("I")
    full = bytearray()
    payloads: list[bytes] = []
    revs = array("q")
    for key, ki in items:
        keys.append(key)
        gens = ki.generations
        shape.append(len(gens))
        for g in gens:
            shape.append(len(g))
            for e in g:
                if e.__class__ is bytes:
                    payloads.append(e)
                    full.append(0)
                else:
                    payloads.append(e.value)
                    full.append(1)
                    revs.extend((e.create_revision, e.mod_revision, e.version))
    position = {k: i for i, k in enumerate(keys)}
    log = array("I", [position[k] for k in log_keys])
    return (keys, shape.tobytes(), bytes(full), payloads, revs.tobytes()), log.tobytes()


def unpack_index(columns: Columns) -> list[KeyIndex]:
    """The ``KeyIndex`` of every key of ``columns``, in key order."""
    keys, shape_b, full, payloads, revs_b = columns
    shape = array("I")
    shape.frombytes(shape_b)
    revs = array("q")
    revs.frombytes(revs_b)
    out: list[KeyIndex] = []
    s = e = r = 0
    new = object.__new__
    for key in keys:
        ki = new(KeyIndex)
        ki.key = key
        gens: list[list[KeyValue | bytes]] = []
        ngens = shape[s]
        s += 1
        for _ in range(ngens):
            n = shape[s]
            s += 1
            g: list[KeyValue | bytes] = []
            for _ in range(n):
                if full[e]:
                    g.append(make_kv(key, payloads[e], revs[r], revs[r + 1], revs[r + 2]))
                    r += 3
                else:
                    g.append(payloads[e])
                e += 1
            gens.append(g)
        ki.generations = gens
        out.append(ki)
    return out
