"""kbatch.store.etcd: the ``KV`` protocol on a real etcd v3, over gRPC (``etcd-sdk-python``'s
generated etcd API stubs). See docs/etcd.md.

Guarantees: etcd's revisions, compare-and-swap and compaction as they are; ``MemoryStore``'s argument
checks and errors; watches that deliver every event once, in revision order, across etcd restarts
(or raise ``CompactedError`` when the history they need is gone); bounded memory for slow watchers.
"""

from kbatch.store.etcd.endpoints import grpc_target, parse_endpoints
from kbatch.store.etcd.store import DEFAULT_TIMEOUT, EtcdStore
from kbatch.store.etcd.watcher import EtcdWatcher

__all__ = ["DEFAULT_TIMEOUT", "EtcdStore", "EtcdWatcher", "grpc_target", "parse_endpoints"]
