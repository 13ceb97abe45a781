"""The MVCC state and its read path: key index, revision counters, write log, range, compaction.

Modelled on etcd ``server/storage/mvcc/kvstore.go`` (``currentRev``, ``compactMainRev``),
``kvstore_txn.go`` (``rangeKeys``) and ``kvstore_compaction.go``. Writes happen only through a
``WriteTxn`` (``txn.py``); this module owns what they write into:

* ``index``: a ``TreeIndex`` from key to ``KeyIndex``, in key order (``index.py``);
* the write log: every retained write (tombstones included) with ``mod_revision >=
  compact_revision``, in commit order, as three parallel sequences: ``log_keys`` (the key, shared with
  the index), ``log_revs`` (its ``mod_revision``, in an ``array``: no int objects) and ``log_updates``
  (1 unless the write created the key). It is what a watcher catching up reads, like etcd's unsynced
  watchers range over the backend by revision, and it tells compaction which keys have history to
  drop. It holds no values: the index keeps superseded values as deltas (``delta.py``), and a log of
  ``KeyValue``s would keep them whole.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from itertools import compress, islice
from operator import attrgetter, itemgetter
from typing import Any, TypeVar

from kbatch.store import columns
from kbatch.store.index import TreeIndex
from kbatch.store.kv import KeyValue, RangeResult
from kbatch.store.records import make_kv
from kbatch.store.revision import FIRST_REVISION, check_compact

__all__ = ["CommitHook", "MVCCStore"]

T = TypeVar("T")

CommitHook = Callable[[int, list[KeyValue], list["KeyValue | None"]], None]
"""Called after each writing transaction with its revision, its writes and what each replaced."""


class MVCCStore:
    """Revisioned key-value state. Not thread-safe: kbatch runs one event loop."""

    __slots__ = ("compacted", "index", "log_keys", "log_revs", "log_updates", "on_commit", "rev")

    def __init__(self, on_commit: CommitHook | None = None) -> None:
        self.rev = FIRST_REVISION
        self.compacted = 0
        self.index = TreeIndex()
        self.log_keys: list[bytes] = []
        self.log_revs = array("q")
        self.log_updates = bytearray()
        self.on_commit = on_commit

    def __getstate__(self) -> tuple[Any, ...]:
        """The state as flat columns (``columns.py``): a saved control plane holds a million entries."""
        cols, log = columns.pack(self.index.items(), self.log_keys)
        return (self.rev, self.compacted, cols, log, self.log_revs, self.log_updates, self.on_commit)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.rev, self.compacted, cols, log, self.log_revs, self.log_updates, self.on_commit = state
        self.index = TreeIndex.of(columns.unpack_index(cols))
        keys = cols[0]
        positions = array("I")
        positions.frombytes(log)
        self.log_keys = [keys[i] for i in positions]

    def log_writes(self, changes: list[KeyValue]) -> None:
        """Append one committed transaction's writes to the write log."""
        if len(changes) == 1:
            kv = changes[0]
            self.log_keys.append(kv.key)
            self.log_revs.append(kv.mod_revision)
            self.log_updates.append(kv.version != 1)
        else:
            self.log_keys.extend([kv.key for kv in changes])
            self.log_revs.extend([kv.mod_revision for kv in changes])
            self.log_updates.extend([kv.version != 1 for kv in changes])

    # -- reads -----------------------------------------------------------------------------------

    def keys_in(self, start: bytes, end: bytes | None) -> list[bytes]:
        """Keys of the index (live or tombstoned) in ``[start, end)``."""
        return self.index.keys_in(start, end)

    def visible(self, start: bytes, end: bytes | None, revision: int | None) -> list[KeyValue]:
        """The live values in ``[start, end)`` at ``revision`` (``None``: latest, including the writes
        of a transaction in progress), in key order."""
        index = self.index.by_key
        out: list[KeyValue] = []
        if revision is None:
            for k in self.keys_in(start, end):
                g = index[k].generations[-1]
                if g:
                    out.append(g[-1])  # type: ignore[arg-type]  # a generation ends with a KeyValue
        else:
            for k in self.keys_in(start, end):
                kv = index[k].get(revision)
                if kv is not None:
                    out.append(kv)
        return out

    def range(
        self,
        start: bytes,
        end: bytes | None,
        revision: int | None,
        limit: int | None,
        keys_only: bool,
        count_only: bool,
        header_revision: int,
    ) -> RangeResult:
        """etcd's ``rangeKeys``: ``count`` is every match, ``more`` says ``limit`` cut the answer.
        ``revision`` must already be checked against the compacted and current revisions."""
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        kvs = self.visible(start, end, revision)
        count = len(kvs)
        more = bool(limit) and count > limit  # type: ignore[operator]
        if count_only:
            return RangeResult((), count, False, header_revision)
        if more:
            kvs = kvs[:limit]
        if keys_only:
            kvs = [make_kv(kv.key, b"", kv.create_revision, kv.mod_revision, kv.version) for kv in kvs]
        return RangeResult(tuple(kvs), count, more, header_revision)

    def history(self, start: bytes, end: bytes | None, from_revision: int,
                limit: int | None = None) -> list[KeyValue]:
        """Every retained write in ``[start, end)`` with ``mod_revision >= from_revision``, in commit
        order; with ``limit``, only the first ``limit`` of them and the rest of the last one's revision
        (a transaction's writes are never split). The caller checks ``from_revision >= compacted``."""
        if end is not None and end == start + b"\0":
            ki = self.index.by_key.get(start)
            writes = iter(()) if ki is None else ki.since(from_revision)
            if limit is None:
                return list(writes)
            return _first_revisions(writes, limit, attrgetter("mod_revision"))
        i = bisect_left(self.log_revs, from_revision)
        keys, revs = self.log_keys, self.log_revs
        if limit is None:
            pairs: Iterator[tuple[bytes, int]] = zip(keys[i:], revs[i:], strict=True)
        else:  # lazily, by position (islice would step over the first i entries at every batch)
            pairs = ((keys[j], revs[j]) for j in range(i, len(keys)))
        if end is None:
            matching = ((k, r) for k, r in pairs if start <= k)
        else:
            matching = ((k, r) for k, r in pairs if start <= k < end)
        wanted = list(matching) if limit is None else _first_revisions(matching, limit, itemgetter(1))
        by_key = self.index.by_key
        found = {  # each key's writes rebuilt in one sweep (deltas are rebuilt backwards)
            k: {kv.mod_revision: kv for kv in by_key[k].since(from_revision)}
            for k in dict.fromkeys([k for k, _ in wanted])
        }
        return [found[k][r] for k, r in wanted]

    def prev_of(self, kv: KeyValue) -> KeyValue | None:
        ki = self.index.by_key.get(kv.key)
        return None if ki is None else ki.prev_of(kv)

    # -- compaction ------------------------------------------------------------------------------

    def compact(self, revision: int) -> None:
        """Drop history below ``revision`` (etcd ``kvstore_compaction.go``).

        Only some keys can hold droppable revisions. A revision is droppable when a later write of
        the same key at or below ``revision`` supersedes it (or closes its generation). That later
        write is either at exactly ``revision``, or in the dropped part of the log (below
        ``revision``, and not below the previous compaction, which left nothing droppable), where it
        is an update or a tombstone (``version != 1``): a create can only follow a tombstone, which
        is then in the dropped part too. So only the keys of dropped updates and tombstones and of
        the writes at ``revision`` are visited, not every key written since the last compaction
        (1,000,000 creates compact in milliseconds)."""
        check_compact(revision, self.rev, self.compacted)
        keys, revs, updates = self.log_keys, self.log_revs, self.log_updates
        cut = bisect_left(revs, revision)
        at = bisect_right(revs, revision, lo=cut)
        touched = dict.fromkeys(compress(islice(keys, cut), islice(updates, cut)))
        touched.update(dict.fromkeys(keys[cut:at]))
        del keys[:cut], revs[:cut], updates[:cut]
        self.compacted = revision
        get = self.index.by_key.get
        gone: list[bytes] = []
        for key in touched:
            ki = get(key)
            if ki is None:
                continue
            gens = ki.generations
            # (the last entry of a generation is a KeyValue, never a delta: key_index.py)
            if len(gens) == 2 and not gens[1] and gens[0][-1].mod_revision < revision:  # type: ignore[union-attr]
                gone.append(key)  # fast path: one generation, deleted before ``revision``
            elif ki.compact(revision):
                gone.append(key)
        self.index.remove(gone)

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the state is inconsistent (for property tests; O(history))."""
        mods = list(self.log_revs)
        if not len(mods) == len(self.log_keys) == len(self.log_updates):
            raise AssertionError("write log sequences differ in length")
        if mods != sorted(mods) or (mods and (mods[0] < self.compacted or mods[-1] > self.rev)):
            raise AssertionError(f"write log out of order or bounds: {mods[:5]}..{mods[-5:]}")
        if not 0 <= self.compacted <= self.rev:
            raise AssertionError(f"compacted {self.compacted} outside [0, {self.rev}]")
        by_key = self.index.by_key
        if [k for k, _ in self.index.items()] != sorted(by_key):
            raise AssertionError("key order does not match the indexed keys")
        for key, ki in by_key.items():
            if ki.key != key:
                raise AssertionError(f"index entry {key!r} holds the KeyIndex of {ki.key!r}")
            ki.check(self.compacted)
        logged = {(k, r): u for k, r, u in zip(self.log_keys, mods, self.log_updates, strict=True)}
        retained = {(kv.key, kv.mod_revision): kv.version != 1
                    for ki in by_key.values() for g in ki.entries() for kv in g
                    if kv.mod_revision >= self.compacted}
        if logged != retained:
            raise AssertionError(f"write log {logged} does not list the retained writes {retained}")


def _first_revisions(items: Iterator[T], limit: int, revision: Callable[[T], int]) -> list[T]:
    """The first ``limit`` of ``items`` (in revision order) and any after them in the last one's
    revision, read lazily: a replay in batches does not scan the rest of the log for each batch."""
    out = list(islice(items, limit))
    if len(out) == limit:
        last = revision(out[-1])
        for item in items:
            if revision(item) != last:
                break
            out.append(item)
    return out
