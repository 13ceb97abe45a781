"""A flag that tells whether anything under a key range changed: the basis of small read caches.

Admission plugins read a few stored objects on every create (the pod's Namespace, the
PriorityClasses); a range read costs more than the rest of such a plugin. :class:`WatchedRange` keeps
a store watcher on the range whose notification marks it changed, so a cache built from the range is
rebuilt only after a change. The store is the source of truth: a write behind the server's back
notifies too, and a cancelled watcher (compaction, snapshot restore) notifies as well and is replaced
on the next check. Upstream kube-apiserver's admission plugins read through shared informers for the
same reason (``plugin/pkg/admission/namespace/lifecycle``: the namespace lister).
"""

from __future__ import annotations

from kbatch.store.errors import StoreError
from kbatch.store.kv import KV, Watcher, pending_batches

__all__ = ["WatchedRange"]


class WatchedRange:
    def __init__(self, store: KV, start: bytes, end: bytes) -> None:
        self._store = store
        self._start, self._end = start, end
        self._watcher: Watcher | None = None
        self.changed = True  # read by hot paths as a plain attribute

    def _mark(self) -> None:
        self.changed = True

    def rearm(self) -> None:
        """Start watching afresh from now on: call *before* reading the range, then build the cache."""
        if self._watcher is not None:
            try:
                for _ in pending_batches(self._watcher):  # drained: the next change notifies again
                    pass
            except StoreError:  # cancelled (compacted history, restored store): watch afresh
                self._watcher = None
        if self._watcher is None:
            store = self._store
            self._watcher = store.watch(self._start, self._end, start_revision=store.revision + 1)
            self._watcher.set_notify(self._mark)
        self.changed = False
