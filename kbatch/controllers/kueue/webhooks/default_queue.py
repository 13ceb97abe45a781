"""Whether a namespace has a usable ``default`` LocalQueue: the question Kueue's webhooks ask of most
jobs and pods created.

Upstream's webhooks answer ``DefaultLocalQueueExist`` from the queue manager's in-memory LocalQueues,
fed by an informer (kubernetes-sigs/kueue ``pkg/queue/manager.go``), not from an API read. kbatch keeps
the answers per namespace in a memo that any write under the LocalQueues' key range clears
(:class:`kbatch.apiserver.watched_range.WatchedRange`, as the NamespaceLifecycle plugin does): exact
with the in-memory store, and as current as a watch with etcd, as upstream's cache is. The usual
answer, "no", then costs one dict lookup instead of a store range per create.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import LocalQueue
from kbatch.api.kueue_v1beta2.constants import DEFAULT_LOCAL_QUEUE
from kbatch.apiserver.watched_range import WatchedRange

__all__ = ["DefaultQueues"]

_MAX_SEEN = 4096  # namespaces without a default queue are remembered too: keep the memo bounded


class DefaultQueues:
    """``exists(namespace)``: the namespace's ``default`` LocalQueue exists and is not stopped."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self._range: WatchedRange | None = None  # made on first use: the kind is served by then
        self._seen: dict[str, bool] = {}

    def exists(self, namespace: str) -> bool:
        if not namespace:
            return False
        watched = self._range
        if watched is None:
            keys = self._server.kind(LocalQueue).keys
            watched = self._range = WatchedRange(self._server.store, keys.root, keys.range_end(None))
        if watched.changed:
            watched.rearm()  # before reading: a change from now on is noticed
            self._seen.clear()
        seen = self._seen
        answer = seen.get(namespace)
        if answer is None:
            if len(seen) >= _MAX_SEEN:
                seen.clear()
            answer = seen[namespace] = self._read(namespace)
        return answer

    def _read(self, namespace: str) -> bool:
        try:
            lq = self._server.get(LocalQueue, DEFAULT_LOCAL_QUEUE, namespace)
        except NotFound:
            return False
        return ((lq.spec.stop_policy if lq.spec else None) or "None") == "None"
