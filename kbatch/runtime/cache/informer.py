"""A shared informer: list, then watch, one kind into one local store (client-go ``SharedIndexInformer``).

``start()`` lists the kind through the client, fills the :class:`~.indexer.Indexer`, calls every
handler's ``on_add``, and opens a watch from the list's resourceVersion. ``pump()`` (called by the
loop) applies pending watch events to the store and calls the handlers in event order. When the
watch reports ``Expired`` (410: the revision was compacted) the informer *relists* and reconciles its
store with the fresh list, calling ``on_add``/``on_update``/``on_delete`` for the differences, then
watches again from the new resourceVersion (client-go's ``Reflector`` ``ListAndWatch``).

One informer per kind is shared by every controller: each event is decoded at most once (by the
server; the object a write returned is not decoded at all) and fanned out to all handlers. Its
objects are the API server's shared, read-only objects (:mod:`kbatch.api.frozen`): handlers and
readers (:class:`~.cache.Cache`) receive them as they are and copy before changing
(``kbatch.api.edit``); equal nested parts of different objects are one shared instance
(:func:`kbatch.api.model_intern.share_structure`). A client whose lists and watch events hand out
objects interned already (``interned_reads``: the in-process API server's decoded cache interns each
object once, when it is written or decoded) is not interned again by the store: one pass per write.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from kbatch.api.errors import Expired, Status
from kbatch.api.meta import Resource
from kbatch.runtime.cache.indexer import Indexer, IndexFunc, object_key

__all__ = ["EventHandler", "SharedInformer"]

log = logging.getLogger("kbatch.runtime.informer")


class EventHandler(Protocol):
    def on_add(self, obj: Any) -> None: ...

    def on_update(self, old: Any, new: Any) -> None: ...

    def on_delete(self, obj: Any) -> None: ...


class SharedInformer:
    def __init__(self, client: Any, kind: type[Resource], namespace: str | None = None,
                 indexers: dict[str, IndexFunc] | None = None) -> None:
        self.client = client
        self.kind = kind
        self.namespace = namespace
        self.store = Indexer(indexers, share=not getattr(client, "interned_reads", False))
        self.handlers: list[EventHandler] = []
        self.resource_version: str | None = None
        self.relists = 0
        self._stream: Any = None
        self._notify: Callable[[], None] | None = None
        self._started = False
        self.notified = True  # the stream may have events: set by its notify, cleared by pump()

    # -- wiring ---------------------------------------------------------------------------------
    def add_event_handler(self, handler: EventHandler) -> None:
        """Register a handler; if already started, it first sees every cached object as an add."""
        self.handlers.append(handler)
        if self._started:
            for obj in self.store.values():
                handler.on_add(obj)

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        """``fn`` runs when the watch may have events; the informer also records that in
        :attr:`notified`, so a loop may skip informers with nothing pending (the watch never stays
        silent while events wait: ``kbatch.store.watcher.MemoryWatcher.set_notify``)."""
        self._notify = fn
        if self._stream is not None:
            self._stream.set_notify(self._on_notify)

    def _on_notify(self) -> None:
        self.notified = True
        fn = self._notify
        if fn is not None:
            fn()

    @property
    def has_synced(self) -> bool:
        return self._started

    # -- list and watch ---------------------------------------------------------------------------
    def start(self) -> None:
        if self._started:
            return
        self._list_and_watch(initial=True)
        self._started = True

    def stop(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def pump(self) -> int:
        """Apply every pending watch event; returns how many were handled."""
        self.notified = False  # before polling: a write made by a handler below notifies again
        if self._stream is None:
            return 0
        try:
            events = self._stream.poll()
        except Expired:
            self._relist()
            return 1
        for n, event in enumerate(events):
            if event.type == "ERROR":
                if _is_expired(event.object):
                    self._relist()
                    return n + 1
                log.warning("watch error for %s: %s", self.kind.__name__, event.object)
                continue
            self._apply(event.type, event.object)
        return len(events)

    def _apply(self, type_: str, obj: Any) -> None:
        rv = obj.metadata.resource_version
        if rv:
            self.resource_version = rv
        if type_ == "BOOKMARK":
            return
        if type_ == "DELETED":
            self.store.delete(object_key(obj))
            for h in self.handlers:
                h.on_delete(obj)
            return
        old = self.store.upsert(obj)
        for h in self.handlers:
            if old is None:
                h.on_add(obj)
            else:
                h.on_update(old, obj)

    def _list_and_watch(self, initial: bool) -> None:
        client = self.client
        listed = client.list(self.kind, self.namespace)
        self.resource_version = listed.metadata.resource_version
        self._replace(listed.items, initial)
        self._stream = client.watch(self.kind, self.namespace, resource_version=self.resource_version or None,
                             allow_bookmarks=True)
        self._stream.set_notify(self._on_notify)

    def _relist(self) -> None:
        self.relists += 1
        log.info("relisting %s after Expired (relist #%d)", self.kind.__name__, self.relists)
        self.stop()
        self._list_and_watch(initial=False)

    def _replace(self, items: list[Resource], initial: bool) -> None:
        """Make the store equal to ``items``, telling handlers about each difference."""
        fresh = {object_key(o): o for o in items}
        for key in self.store.list_keys():
            if key not in fresh:
                gone = self.store.delete(key)
                for h in self.handlers:
                    h.on_delete(gone)
        for key in sorted(fresh):
            obj = fresh[key]
            old = self.store.upsert(obj)
            for h in self.handlers:
                if old is None:
                    h.on_add(obj)
                elif initial or old.metadata.resource_version != obj.metadata.resource_version:
                    h.on_update(old, obj)


def _is_expired(obj: Any) -> bool:
    return isinstance(obj, Status) and (obj.code == 410 or obj.reason in ("Expired", "Gone"))
