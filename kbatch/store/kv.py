"""The store's interface: etcd v3 key-value semantics as Python protocols and value types.

This module holds no logic (the model is etcd's ``server/storage/mvcc/kv.go``). Every backend
(the in-memory MVCC store, and later a real etcd) implements :class:`KV`; everything above the
store depends only on what is written here.

Semantics, as etcd documents them (https://etcd.io/docs/v3.5/learning/api/):

* One global *revision* counts committed transactions; it starts at 1 for an empty store and
  increases by exactly one for every transaction that writes (a read-only txn does not bump it).
* Each key carries ``create_revision`` (revision of the write that created this generation),
  ``mod_revision`` (revision of its last write) and ``version`` (writes since creation; a delete
  ends the generation and the next put starts again at 1).
* ``range_end`` selects the half-open interval ``[key, range_end)``; ``prefix_end(p)`` gives the
  range end for "every key starting with p"; ``range_end == b"\\0"`` means "every key >= key".
* Keys and values are ``bytes``; values are opaque to the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "KV",
    "Compare",
    "CompareOp",
    "CompareTarget",
    "DeleteOp",
    "DeleteResult",
    "Event",
    "EventType",
    "KeyValue",
    "Op",
    "PutOp",
    "PutResult",
    "RangeOp",
    "RangeResult",
    "TxnResult",
    "Watcher",
    "pending_batches",
    "prefix_end",
]


def prefix_end(prefix: bytes) -> bytes:
    """The ``range_end`` that selects every key starting with ``prefix`` (etcd's ``GetPrefixRangeEnd``)."""
    end = bytearray(prefix)
    for i in range(len(end) - 1, -1, -1):
        if end[i] < 0xFF:
            end[i] += 1
            return bytes(end[: i + 1])
    return b"\0"  # every byte is 0xff: select everything from ``prefix`` on


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One key at one revision. Immutable: holding it can never change the store."""

    key: bytes
    value: bytes
    create_revision: int
    mod_revision: int
    version: int


class EventType(Enum):
    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class Event:
    """One change seen by a watcher.

    For ``DELETE``, ``kv`` has the key, an empty value, ``mod_revision`` = the deleting revision and
    ``create_revision = version = 0`` (as etcd reports tombstones). ``prev_kv`` is filled only when the
    watch asked for it and the previous value is still in history.
    """

    type: EventType
    kv: KeyValue
    prev_kv: KeyValue | None = None


@dataclass(frozen=True, slots=True)
class RangeResult:
    kvs: tuple[KeyValue, ...]
    count: int  # keys in the range at that revision, regardless of limit
    more: bool  # True when limit cut the answer short
    revision: int  # the store revision when the read was served (etcd's header.revision)


@dataclass(frozen=True, slots=True)
class PutResult:
    revision: int
    prev_kv: KeyValue | None = None


@dataclass(frozen=True, slots=True)
class DeleteResult:
    revision: int
    deleted: int
    prev_kvs: tuple[KeyValue, ...] = ()


CompareTarget = Literal["version", "create", "mod", "value"]
CompareOp = Literal["=", "!=", "<", ">"]


@dataclass(frozen=True, slots=True)
class Compare:
    """A txn guard. A missing key has version/create/mod revision 0 and compares on ``value`` fail
    (etcd: a value compare against a missing key is false)."""

    key: bytes
    target: CompareTarget
    op: CompareOp
    value: int | bytes

    @classmethod
    def version(cls, key: bytes, op: CompareOp, value: int) -> Compare:
        return cls(key, "version", op, value)

    @classmethod
    def create_revision(cls, key: bytes, op: CompareOp, value: int) -> Compare:
        return cls(key, "create", op, value)

    @classmethod
    def mod_revision(cls, key: bytes, op: CompareOp, value: int) -> Compare:
        return cls(key, "mod", op, value)

    @classmethod
    def value_is(cls, key: bytes, op: CompareOp, value: bytes) -> Compare:
        return cls(key, "value", op, value)


@dataclass(frozen=True, slots=True)
class RangeOp:
    key: bytes
    range_end: bytes | None = None
    limit: int | None = None
    keys_only: bool = False
    count_only: bool = False


@dataclass(frozen=True, slots=True)
class PutOp:
    key: bytes
    value: bytes
    prev_kv: bool = False


@dataclass(frozen=True, slots=True)
class DeleteOp:
    key: bytes
    range_end: bytes | None = None
    prev_kv: bool = False


Op = RangeOp | PutOp | DeleteOp


@dataclass(frozen=True, slots=True)
class TxnResult:
    succeeded: bool
    revision: int
    responses: tuple[RangeResult | PutResult | DeleteResult, ...] = field(default=())


@runtime_checkable
class Watcher(Protocol):
    """A stream of events for a key or range, from a start revision on, in revision order.

    Pull-based: ``poll()`` returns what has arrived since the last call (possibly nothing) and never
    blocks. A watcher far behind may return its backlog in batches (``MemoryStore`` replays history
    at most ``CATCH_UP_BATCH`` events a poll): :func:`pending_batches` polls until nothing is left.
    ``set_notify(fn)`` registers a callback invoked (synchronously, from the writer) when the watcher
    goes from "nothing pending" to "something pending", so an event loop can wake its consumer. When
    the watcher is cancelled by compaction, ``poll()`` raises ``CompactedError``.
    """

    @property
    def id(self) -> int: ...

    def poll(self) -> list[Event]: ...

    def set_notify(self, fn: Callable[[], None] | None) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class KV(Protocol):
    """etcd's KV + Watch + Maintenance surface, as one protocol."""

    @property
    def revision(self) -> int:
        """The current (latest committed) revision."""
        ...

    @property
    def compact_revision(self) -> int:
        """The revision of the last compaction (0 if never compacted)."""
        ...

    def range(
        self,
        key: bytes,
        range_end: bytes | None = None,
        *,
        revision: int | None = None,
        limit: int | None = None,
        keys_only: bool = False,
        count_only: bool = False,
    ) -> RangeResult: ...

    def put(self, key: bytes, value: bytes, prev_kv: bool = False) -> PutResult: ...

    def delete_range(
        self, key: bytes, range_end: bytes | None = None, prev_kv: bool = False
    ) -> DeleteResult: ...

    def txn(
        self,
        compare: Sequence[Compare] = (),
        success: Sequence[Op] = (),
        failure: Sequence[Op] = (),
    ) -> TxnResult: ...

    def watch(
        self,
        key: bytes,
        range_end: bytes | None = None,
        start_revision: int | None = None,
        prev_kv: bool = False,
    ) -> Watcher: ...

    def compact(self, revision: int) -> None: ...

    def snapshot(self, path: str) -> None: ...

    def restore(self, path: str) -> None: ...


def pending_batches(watcher: Watcher) -> Iterator[list[Event]]:
    """Every event pending on ``watcher``, batch by batch, until a poll returns nothing: consumers
    handle one batch before the next is read, so a long backlog is never held at once."""
    while events := watcher.poll():
        yield events
