"""The history of one key, as generations of revisions (etcd ``server/storage/mvcc/key_index.go``).

A *generation* is the life of a key from the put that creates it to the delete that ends it. The
index keeps the ``KeyValue`` of every write (immutable, so they are shared safely with readers and
watch events) in ``generations``, a list of lists ordered by ``mod_revision``. A delete appends a
*tombstone* (``version == 0``) that closes the current generation and opens an empty one, so the key
is live exactly when the last generation is non-empty.

Worked example: ``put@1, put@2, delete@3, put@4, delete@5`` on key ``foo`` gives::

    generations: [1, 2, 3t]  [4, 5t]  []

Compaction at revision ``r`` keeps, in each generation, the last entry at or below ``r`` (it is the
state at ``r``) and everything above ``r``; generations wholly below ``r`` go::

    compact(2): [2, 3t]  [4, 5t]  []
    compact(3): [3t]     [4, 5t]  []   tombstone at exactly r is kept (see below)
    compact(4): [4, 5t]  []
    compact(5): [5t]     []
    compact(6): []                     -> the key is removed from the index

etcd's index keeps that tombstone too (``keyIndex.compact``), but its backend drops the tombstone's
record (``keyIndex.keep``), so an etcd watch that starts at the compacted revision misses that delete.
kbatch keeps the record until the next compaction: watching from ``compact_revision`` is allowed (as
in etcd) and then loses nothing.

A put that supersedes a live value stores that older value as a delta against the new one
(``delta.py``); the last entry of every generation (the live value, or a tombstone and the full value
before it) is always a ``KeyValue``, so every delta has a full value after it in its generation.
Everything read out of a ``KeyIndex`` is a ``KeyValue``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import pairwise

from kbatch.store.delta import Delta, encode, is_delta, rebuild, rebuild_from
from kbatch.store.delta import entry_revision as _MOD
from kbatch.store.kv import KeyValue

__all__ = ["KeyIndex"]


class KeyIndex:
    """All retained revisions of one key. Invariants: revisions strictly increase across the
    flattened generations; every generation but the last ends with a tombstone and no other
    entry is a tombstone; only the last generation may be empty."""

    __slots__ = ("generations", "key")

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.generations: list[list[KeyValue | Delta]] = [[]]

    def latest(self) -> KeyValue | None:
        """The live value, or ``None`` when the key is deleted."""
        g = self.generations[-1]
        return g[-1] if g else None  # type: ignore[return-value]  # a generation's last entry is full

    def put(self, kv: KeyValue) -> None:
        """Append the write ``kv``, keeping the value it supersedes as a delta (``WriteTxn.put``
        does the same inline)."""
        g = self.generations[-1]
        if g:
            g[-1] = encode(g[-1], kv.value)  # type: ignore[arg-type]
        g.append(kv)

    def tombstone(self, kv: KeyValue) -> None:
        """Close the current (non-empty) generation with the tombstone ``kv``."""
        self.generations[-1].append(kv)
        self.generations.append([])

    def get(self, revision: int) -> KeyValue | None:
        """The value visible at ``revision`` (``None`` if absent or deleted then)."""
        for g in reversed(self.generations):
            if g and _MOD(g[0]) <= revision:
                kv = rebuild(self.key, g, bisect_right(g, revision, key=_MOD) - 1)
                return kv if kv.version else None
        return None

    def since(self, revision: int) -> Iterator[KeyValue]:
        """Every retained write with ``mod_revision >= revision``, in revision order."""
        for g in self.generations:
            if g and _MOD(g[-1]) >= revision:
                yield from rebuild_from(self.key, g, bisect_left(g, revision, key=_MOD))

    def entries(self) -> list[list[KeyValue]]:
        """Every retained write, by generation, as ``KeyValue``s."""
        return [rebuild_from(self.key, g, 0) for g in self.generations]

    def prev_of(self, kv: KeyValue) -> KeyValue | None:
        """The live value that the write ``kv`` replaced or deleted (``None`` for a create, or when
        that value is no longer retained)."""
        for g in reversed(self.generations):
            if g and _MOD(g[0]) <= kv.mod_revision:
                i = bisect_left(g, kv.mod_revision, key=_MOD)
                return rebuild(self.key, g, i - 1) if i > 0 else None
        return None

    def compact(self, revision: int) -> bool:
        """Drop what is not needed to read at ``revision`` or later; True when nothing is left."""
        gens = self.generations
        first = 0
        last = len(gens) - 1
        while first < last and _MOD(gens[first][-1]) < revision:
            first += 1
        if first:
            del gens[:first]
        g = gens[0]
        if g:
            keep = bisect_right(g, revision, key=_MOD) - 1
            if keep > 0:
                del g[:keep]
        return len(gens) == 1 and not g

    def check(self, compacted: int) -> None:
        """Raise ``AssertionError`` naming the key if an invariant in the class or module docstring is
        broken (for property tests)."""
        problems = []
        for i, g in enumerate(self.generations):
            if g and is_delta(g[-1]):
                problems.append(f"generation {i} ends with a delta")
            tombstoned = [a for a, b in pairwise(g) if not is_delta(b) and not b.version]
            if any(is_delta(a) for a in tombstoned):
                problems.append(f"generation {i} has a delta right before its tombstone")
        if problems:
            raise AssertionError(f"KeyIndex {self!r} broken: " + "; ".join(problems))
        gens = self.entries()
        flat = [kv for g in gens for kv in g]
        revs = [kv.mod_revision for kv in flat]
        if revs != sorted(set(revs)):
            problems.append(f"revisions not strictly increasing: {revs}")
        for i, gen in enumerate(gens):
            last = i == len(gens) - 1
            if not last and (not gen or gen[-1].version):
                problems.append(f"generation {i} is not closed by a tombstone")
            if any(kv.version == 0 for kv in (gen if last else gen[:-1])):
                problems.append(f"generation {i} has a tombstone before its end")
            if any(kv.key != self.key for kv in gen):
                problems.append(f"generation {i} holds another key's write")
        if sum(1 for kv in flat if kv.mod_revision <= compacted) > 1:
            problems.append(f"more than one revision kept at or below compacted revision {compacted}")
        if problems:
            raise AssertionError(f"KeyIndex {self!r} broken: " + "; ".join(problems))

    def __repr__(self) -> str:
        gens = " ".join(
            "[" + ", ".join(f"{kv.mod_revision}{'' if kv.version else 't'}" for kv in g) + "]"
            for g in self.entries()
        )
        return f"KeyIndex({self.key!r}: {gens})"
