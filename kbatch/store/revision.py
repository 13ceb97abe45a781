"""Revision rules shared by reads, watches and compaction (etcd ``server/storage/mvcc/revision.go``,
``kvstore.go`` and ``kvstore_txn.go``).

The store's revision is etcd's *main* revision: one per committed writing transaction, starting at 1
for an empty store, so the first write is revision 2. etcd's *sub* revision (the order of the writes
inside one transaction) is implicit here: the writes of a transaction are kept and delivered in the
order of its operations.
"""

from __future__ import annotations

from kbatch.store.errors import CompactedError, FutureRevisionError

__all__ = ["FIRST_REVISION", "check_compact", "check_read", "check_watch_start"]

FIRST_REVISION = 1
"""The revision of an empty store (etcd reports header revision 1 before any write)."""


def check_read(requested: int | None, current: int, compacted: int) -> int:
    """The revision a range reads at. ``None`` or ``0`` mean "current" (etcd: ``revision <= 0``).
    Reading at the compacted revision itself is allowed: its state is retained."""
    if not requested:
        return current
    if requested < 0:
        raise ValueError(f"revision must be >= 0, got {requested}")
    if requested > current:
        raise FutureRevisionError(requested, current)
    if requested < compacted:
        raise CompactedError(requested, compacted)
    return requested


def check_compact(requested: int, current: int, compacted: int) -> None:
    """etcd refuses a compaction at or below the last one and above the current revision."""
    if requested > current:
        raise FutureRevisionError(requested, current)
    if requested <= compacted:
        raise CompactedError(requested, compacted)


def check_watch_start(requested: int | None, current: int, compacted: int) -> int:
    """The first revision a new watcher reports. ``None``/``0`` mean "after now"; a future start is
    allowed (events arrive once the store gets there); below the compacted revision is an error."""
    if not requested:
        return current + 1
    if requested < 0:
        raise ValueError(f"start_revision must be >= 0, got {requested}")
    if requested < compacted:
        raise CompactedError(requested, compacted)
    return requested
