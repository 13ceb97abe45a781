"""Typed watch over the store watcher: ADDED/MODIFIED/DELETED, selectors, bookmarks, 410 Expired.

Upstream: ``staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go`` (an object that moves
into the selector is ADDED, one that moves out is DELETED carrying its previous state with the new
resourceVersion) and the watch semantics of api-concepts ("Efficient detection of changes"):

* ``resourceVersion`` unset or ``"0"``: synthetic ADDED events for the current state (key order),
  then every change after it; ``"N"``: every change after N, or ``Expired`` when N is compacted;
* DELETED events carry the last state with the deletion's resourceVersion;
* a store watcher cancelled by compaction surfaces as one ``ERROR`` event (Status 410) and the
  stream ends;
* with ``allow_bookmarks``, a BOOKMARK (an object carrying only ``metadata.resourceVersion``) follows
  the initial events and ends
  any poll in which the revision advanced past the last event delivered (e.g. filtered changes).
  Clients must not depend on their timing, as upstream says. That first bookmark carries the
  ``k8s.io/initial-events-end: "true"`` annotation only when the caller asked for
  ``send_initial_events`` (a WatchList request): ``cacher.go`` setInitialEventsEndBookmarkIfRequested
  (k8s.io/apiserver v0.37.0-beta.0) sets the annotated bookmark only for ``sendInitialEvents=true``
  with ``allowWatchBookmarks``.

Pull-based like the store watcher: ``poll()`` never blocks; ``set_notify`` wakes a consumer.

Objects come through the server's :class:`~kbatch.apiserver.decoded_cache.DecodedCache`, so a stored
version the cache already holds is not decoded again (upstream's cacher likewise decodes each etcd
event once for all watchers): ADDED/MODIFIED events carry the cache's shared, read-only instance (the
object the write returned, or one decoded on a miss and kept), so the informer and the server hold
one object per stored version. While a watch is open its kind's writes are held
(:meth:`~kbatch.apiserver.decoded_cache.DecodedCache.watching`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kbatch.api.errors import Expired
from kbatch.api.meta import Resource
from kbatch.apiserver.client import WatchEvent
from kbatch.apiserver.codec import stub
from kbatch.apiserver.decoded_cache import DecodedCache
from kbatch.apiserver.kinds import Kind
from kbatch.apiserver.listing import Filter, make_filter, parse_revision
from kbatch.store.errors import CompactedError, WatchCancelledError
from kbatch.store.kv import Event, EventType, Watcher, pending_batches

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["TypedWatch", "open_watch"]

T = TypeVar("T", bound=Resource)

INITIAL_EVENTS_END = "k8s.io/initial-events-end"


class TypedWatch(Generic[T]):
    """A :class:`kbatch.apiserver.client.WatchStream` of one kind."""

    def __init__(self, kind: Kind, flt: Filter, watcher: Watcher | None, initial: list[WatchEvent[T]],
                 revision: int, allow_bookmarks: bool, cache: DecodedCache) -> None:
        self._kind = kind
        self._model = kind.model
        self._cache = cache
        cache.watching(kind.model, 1)
        self._filter = flt
        self._empty = flt.empty
        self._watcher = watcher
        self._pending: list[WatchEvent[T]] = initial
        self._revision = revision  # highest revision delivered or seen
        self._bookmarks = allow_bookmarks
        self._closed = False

    def poll(self) -> list[WatchEvent[T]]:
        out, self._pending = self._pending, []
        if self._watcher is None or self._closed:
            return out
        delivered = seen = self._revision
        try:
            for events in pending_batches(self._watcher):  # converted batch by batch: a long
                for event in events:  # backlog's values are never all held at once
                    converted = self._convert(event)
                    if converted is not None:
                        out.append(converted)
                        delivered = event.kv.mod_revision
                    self._revision = event.kv.mod_revision
        except CompactedError as err:
            out.append(WatchEvent("ERROR", Expired(
                f"too old resource version: {self._revision} ({err.compact_revision})").status))
            self.close()
            return out
        except WatchCancelledError:  # e.g. the store was restored from a snapshot: the client re-lists
            out.append(WatchEvent("ERROR", Expired(
                f"too old resource version: {self._revision} (the store's history was replaced)").status))
            self.close()
            return out
        if self._bookmarks and self._revision != seen and delivered < self._revision:
            out.append(WatchEvent("BOOKMARK", self._bookmark(self._revision)))
        return out

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        if self._watcher is not None:
            self._watcher.set_notify(fn)
        if fn is not None and self._pending:
            fn()

    def close(self) -> None:
        if not self._closed:
            self._cache.watching(self._model, -1)
        self._closed = True
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None

    # --- conversion -------------------------------------------------------------------------

    def _bookmark(self, revision: int, initial_end: bool = False) -> T:
        obj: Any = stub(self._kind.model, None, None, revision)
        if initial_end:
            obj.metadata.annotations = {INITIAL_EVENTS_END: "true"}
        return obj  # type: ignore[no-any-return]

    def _prev(self, event: Event) -> Resource | None:
        prev = event.prev_kv
        if prev is None:
            return None
        return self._cache.read_only_at(self._model, prev, event.kv.mod_revision)

    def _convert(self, event: Event) -> WatchEvent[T] | None:
        kv = event.kv
        model = self._model
        flt = self._filter
        if event.type is EventType.DELETE:
            prev = self._prev(event)
            if prev is None:
                namespace, name = self._kind.keys.split(kv.key)
                prev = stub(model, namespace, name, kv.mod_revision)
                return WatchEvent("DELETED", prev) if self._empty else None  # type: ignore[arg-type]
            return WatchEvent("DELETED", prev) if self._empty or flt.matches(prev) else None  # type: ignore[arg-type]
        obj = self._cache.shared(model, kv, latest=False)
        if self._empty:  # the informer's case: one event per change, no selector to evaluate
            created = kv.create_revision == kv.mod_revision
            return WatchEvent("ADDED" if created else "MODIFIED", obj)  # type: ignore[arg-type]
        now_in = flt.matches(obj)
        prev = self._prev(event) if kv.version > 1 else None
        was_in = prev is not None and flt.matches(prev)
        if now_in:
            return WatchEvent("MODIFIED" if was_in else "ADDED", obj)  # type: ignore[arg-type]
        if was_in:
            return WatchEvent("DELETED", prev)  # type: ignore[arg-type]
        return None


def open_watch(server: APIServer, model: type[T], namespace: str | None = None, *,
               label_selector: str | None = None, field_selector: str | None = None,
               resource_version: str | None = None, allow_bookmarks: bool = False,
               send_initial_events: bool = False, shared: bool = False) -> TypedWatch[T]:
    """``shared``: events carry the decode cache's read-only instances (see the module docstring);
    ``send_initial_events``: annotate the bookmark after the initial events (WatchList)."""
    kind = server.kind(model)
    if not kind.info.namespaced:
        namespace = None
    flt = make_filter(kind, label_selector, field_selector)
    prefix, end = kind.keys.prefix(namespace), kind.keys.range_end(namespace)
    wanted = parse_revision(resource_version)
    store, cache = server.store, server.decoded
    initial: list[WatchEvent[T]] = []
    if wanted is None:
        result = store.range(prefix, end)
        start = result.revision
        for kv in result.kvs:
            obj = cache.shared(model, kv)
            if flt.empty or flt.matches(obj):
                initial.append(WatchEvent("ADDED", obj))  # type: ignore[arg-type]  # shared() is untyped in T
    else:
        start = wanted
        if start + 1 < store.compact_revision:
            raise Expired(f"too old resource version: {start} ({store.compact_revision})")
    try:
        watcher = store.watch(prefix, end, start_revision=start + 1, prev_kv=True)
    except CompactedError as err:
        raise Expired(f"too old resource version: {start} ({err.compact_revision})") from None
    stream: TypedWatch[T] = TypedWatch(kind, flt, watcher, initial, start, allow_bookmarks, cache)
    if allow_bookmarks and wanted is None:
        marker = stream._bookmark(start, initial_end=send_initial_events)
        stream._pending.append(WatchEvent("BOOKMARK", marker))
    return stream
