"""Errors raised by the store, named after etcd's (``rpctypes.ErrCompacted``, ``ErrFutureRev``)."""

from __future__ import annotations

__all__ = [
    "CompactedError",
    "DuplicateKeyError",
    "FutureRevisionError",
    "StoreError",
    "UnavailableError",
    "WatchCancelledError",
]


class StoreError(Exception):
    """Base class of every store error."""


class CompactedError(StoreError):
    """The requested revision is below the compacted revision; its history is gone."""

    def __init__(self, requested: int, compact_revision: int) -> None:
        super().__init__(
            f"mvcc: required revision {requested} has been compacted "
            f"(compacted revision is {compact_revision})"
        )
        self.requested = requested
        self.compact_revision = compact_revision


class FutureRevisionError(StoreError):
    """The requested revision is above the current revision."""

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(
            f"mvcc: required revision {requested} is a future revision (current revision is {current})"
        )
        self.requested = requested
        self.current = current


class DuplicateKeyError(StoreError, ValueError):
    """One branch of a txn writes the same key twice (etcd ``ErrDuplicateKey``): two puts of a key,
    or a put of a key that a delete in the same branch also covers."""

    def __init__(self, key: bytes, how: str) -> None:
        super().__init__(f"duplicate key given in txn request: {key!r} is {how}")
        self.key = key


class WatchCancelledError(StoreError):
    """The watcher was cancelled by the store for a reason other than compaction (e.g. ``restore``)."""


class UnavailableError(StoreError):
    """The backend could not be reached or did not answer in time (a real etcd that is down, or
    unreachable). A read changed nothing; a write may or may not have been applied (etcd's
    ``ErrTimeout``): the caller retries it with the same preconditions, which then either succeed
    or report the conflict."""
