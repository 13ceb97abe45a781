"""Errors raised by the store, named after etcd's (``rpctypes.ErrCompacted``, ``ErrFutureRev``)."""

from __future__ import annotations

__all__ = ["CompactedError", "FutureRevisionError", "StoreError"]


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
