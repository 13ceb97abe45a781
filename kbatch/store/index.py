"""The key index: every key the store has history for, by key and in key order
(etcd ``server/storage/mvcc/index.go`` keeps a B-tree of ``keyIndex``).

``by_key`` is a plain dict (point lookups on the write path). Key order lives in a
``SortedList``; keys created since the last ordered read wait in ``fresh`` and are merged in by the
next ``keys_in`` (one bulk sort for a burst of creates instead of one ordered insert per put).
Deleted keys stay, as tombstoned ``KeyIndex`` generations, until compaction removes them.
"""

from __future__ import annotations

from collections.abc import Iterator

from sortedcontainers import SortedList

from kbatch.store.key_index import KeyIndex

__all__ = ["TreeIndex"]


class TreeIndex:
    __slots__ = ("by_key", "fresh", "ordered")

    def __init__(self) -> None:
        self.by_key: dict[bytes, KeyIndex] = {}
        self.ordered = SortedList()
        self.fresh: list[bytes] = []

    @classmethod
    def of(cls, indexes: list[KeyIndex]) -> TreeIndex:
        """An index of ``indexes`` (already in key order, keys distinct)."""
        tree = cls()
        tree.by_key = {ki.key: ki for ki in indexes}
        tree.ordered = SortedList(tree.by_key)
        return tree

    def __len__(self) -> int:
        return len(self.by_key)

    def __contains__(self, key: bytes) -> bool:
        return key in self.by_key

    def create(self, key: bytes) -> KeyIndex:
        """A new, empty ``KeyIndex`` for ``key`` (which must not be indexed yet)."""
        ki = self.by_key[key] = KeyIndex(key)
        self.fresh.append(key)
        return ki

    def _settle(self) -> None:
        if self.fresh:
            self.ordered.update(self.fresh)
            self.fresh.clear()

    def keys_in(self, start: bytes, end: bytes | None) -> list[bytes]:
        """Indexed keys in ``[start, end)`` (``end is None``: unbounded), in order."""
        if end is not None and end == start + b"\0":
            return [start] if start in self.by_key else []
        self._settle()
        return list(self.ordered.irange(start, end, inclusive=(True, False)))

    def items(self) -> Iterator[tuple[bytes, KeyIndex]]:
        """Every ``(key, KeyIndex)`` in key order."""
        self._settle()
        by_key = self.by_key
        return ((k, by_key[k]) for k in self.ordered)

    def remove(self, keys: list[bytes]) -> None:
        """Forget ``keys`` (all indexed); rebuilds the order when that is cheaper."""
        if not keys:
            return
        by_key = self.by_key
        for key in keys:
            del by_key[key]
        if len(keys) * 8 < len(self.ordered):
            if self.fresh:
                gone = set(keys)
                self.fresh = [k for k in self.fresh if k not in gone]
            for key in keys:
                self.ordered.discard(key)
        else:
            self.ordered = SortedList(by_key)
            self.fresh = []
