"""kbatch.store: etcd v3 key-value semantics, knowing nothing of Kubernetes: in memory
(``MemoryStore``) or on a real etcd (``EtcdStore``, docs/etcd.md).

Guarantees: one global revision per writing transaction, atomic compare-and-swap txns, reads at past
revisions, watches that deliver every event in revision order without blocking writers, compaction
with clear errors, and atomic checksummed snapshots. See docs/store.md.
"""

from typing import TYPE_CHECKING

from kbatch.store.errors import (
    CompactedError,
    DuplicateKeyError,
    FutureRevisionError,
    StoreError,
    UnavailableError,
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
    pending_batches,
    prefix_end,
)
from kbatch.store.snapshot import SnapshotError
from kbatch.store.watchable_store import MemoryStore

if TYPE_CHECKING:
    from kbatch.store.etcd import EtcdStore  # imported on first use at run time (``__getattr__``)

__all__ = [
    "KV",
    "CompactedError",
    "Compare",
    "CompareOp",
    "CompareTarget",
    "DeleteOp",
    "DeleteResult",
    "DuplicateKeyError",
    "EtcdStore",
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
    "UnavailableError",
    "WatchCancelledError",
    "Watcher",
    "pending_batches",
    "prefix_end",
]


def __getattr__(name: str) -> object:
    """``EtcdStore`` is imported on first use: it needs the optional ``etcd`` extra (gRPC)."""
    if name == "EtcdStore":
        try:
            from kbatch.store.etcd import EtcdStore
        except ImportError as err:
            raise ImportError(f"EtcdStore needs the etcd client: pip install 'kbatch[etcd]' ({err})") from err
        return EtcdStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
