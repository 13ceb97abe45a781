"""kbatch.store: etcd v3 key-value semantics in memory, knowing nothing of Kubernetes.

Guarantees: one global revision per writing transaction, atomic compare-and-swap txns, reads at past
revisions, watches that deliver every event in revision order without blocking writers, compaction
with clear errors, and atomic checksummed snapshots. See docs/store.md.
"""

from kbatch.store.errors import (
    CompactedError,
    DuplicateKeyError,
    FutureRevisionError,
    StoreError,
    WatchCancelledError,
)
from kbatch.store.kv import (
    KV,
    Compare,
    CompareOp,
    CompareTarget,
    DeleteOp,
    DeleteResult,
    Event,
    EventType,
    KeyValue,
    Op,
    PutOp,
    PutResult,
    RangeOp,
    RangeResult,
    TxnResult,
    Watcher,
    prefix_end,
)
from kbatch.store.snapshot import SnapshotError
from kbatch.store.watchable_store import MemoryStore

__all__ = [
    "KV",
    "CompactedError",
    "Compare",
    "CompareOp",
    "CompareTarget",
    "DeleteOp",
    "DeleteResult",
    "DuplicateKeyError",
    "Event",
    "EventType",
    "FutureRevisionError",
    "KeyValue",
    "MemoryStore",
    "Op",
    "PutOp",
    "PutResult",
    "RangeOp",
    "RangeResult",
    "SnapshotError",
    "StoreError",
    "TxnResult",
    "WatchCancelledError",
    "Watcher",
    "prefix_end",
]
