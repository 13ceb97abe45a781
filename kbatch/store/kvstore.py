"""The MVCC state and its read path: key index, revision counters, write log, range, compaction.

Modelled on etcd ``server/storage/mvcc/kvstore.go`` (``currentRev``, ``compactMainRev``),
``kvstore_txn.go`` (``rangeKeys``) and ``kvstore_compaction.go``. Writes happen only through a
``WriteTxn`` (``txn.py``); this module owns what they write into:

* ``index``: a ``TreeIndex`` from key to ``KeyIndex``, in key order (``index.py``);
* ``log``: every retained write (``KeyValue``, tombstones included) with ``mod_revision >=
  compact_revision``, in commit order. It is what a watcher catching up reads, like etcd's unsynced
  watchers range over the backend by revision, and it tells compaction which keys have history to drop.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import islice
from operator import attrgetter

from kbatch.store.index import TreeIndex
from kbatch.store.kv import KeyValue, RangeResult
from kbatch.store.records import make_kv
from kbatch.store.revision import FIRST_REVISION, check_compact

__all__ = ["CommitHook", "MVCCStore"]

_MOD = attrgetter("mod_revision")

CommitHook = Callable[[int, list[KeyValue], list["KeyValue | None"]], None]
"""Called after each writing transaction with its revision, its writes and what each replaced."""


class MVCCStore:
    """Revisioned key-value state. Not thread-safe: kbatch runs one event loop."""

    __slots__ = ("compacted", "index", "log", "on_commit", "rev")

    def __init__(self, on_commit: CommitHook | None = None) -> None:
        self.rev = FIRST_REVISION
        self.compacted = 0
        self.index = TreeIndex()
        self.log: list[KeyValue] = []
        self.on_commit = on_commit

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
                    out.append(g[-1])
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

    def history(self, start: bytes, end: bytes | None, from_revision: int) -> list[KeyValue]:
        """Every retained write in ``[start, end)`` with ``mod_revision >= from_revision``, in commit
        order. The caller checks ``from_revision >= compacted``."""
        if end is not None and end == start + b"\0":
            ki = self.index.by_key.get(start)
            return [] if ki is None else list(ki.since(from_revision))
        log = self.log
        i = bisect_left(log, from_revision, key=_MOD)
        if end is None:
            return [kv for kv in log[i:] if start <= kv.key]
        return [kv for kv in log[i:] if start <= kv.key < end]

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
        log = self.log
        cut = bisect_left(log, revision, key=_MOD)
        at = bisect_right(log, revision, lo=cut, key=_MOD)
        touched = dict.fromkeys([kv.key for kv in islice(log, cut) if kv.version != 1])
        touched.update(dict.fromkeys([kv.key for kv in log[cut:at]]))
        del log[:cut]
        self.compacted = revision
        get = self.index.by_key.get
        gone: list[bytes] = []
        for key in touched:
            ki = get(key)
            if ki is None:
                continue
            gens = ki.generations
            if len(gens) == 2 and not gens[1] and gens[0][-1].mod_revision < revision:
                gone.append(key)  # fast path: one generation, deleted before ``revision``
            elif ki.compact(revision):
                gone.append(key)
        self.index.remove(gone)

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the state is inconsistent (for property tests; O(history))."""
        mods = [kv.mod_revision for kv in self.log]
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
        logged = {(kv.key, kv.mod_revision) for kv in self.log}
        for ki in by_key.values():
            for g in ki.generations:
                for kv in g:
                    if kv.mod_revision >= self.compacted and (kv.key, kv.mod_revision) not in logged:
                        raise AssertionError(f"write {kv!r} is retained but missing from the log")
