"""The informer cache: one shared informer per kind, and the Reader controllers read through.

Like controller-runtime's ``pkg/cache``: asking for a kind the first time creates its informer
(``informer_for``), started immediately if the cache is already running. Every informer is pumped
by the loop in the order the kinds were first asked for.

Reads hand out the cached objects themselves: they are the API server's shared, read-only objects
(:mod:`kbatch.api.frozen`; controller-runtime: "cache objects are read-only, DeepCopy first"). A
controller that changes an object copies it with ``kbatch.api.edit`` first; strict mode
(``KBATCH_STRICT=1``, on in CI) turns a change in place into an error where it happens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from kbatch.api.errors import NotFound
from kbatch.api.meta import Resource
from kbatch.runtime.cache.indexer import BY_LABEL, BY_NAMESPACE, IndexFunc, key_of
from kbatch.runtime.cache.informer import SharedInformer

__all__ = ["Cache"]

T = TypeVar("T", bound=Resource)


class Cache:
    def __init__(self, client: Any) -> None:
        self.client = client
        self._informers: dict[type[Resource], SharedInformer] = {}
        self._notify: Callable[[], None] | None = None
        self._started = False
        self._pending = True  # some informer may have news: set by their notify, cleared by pump()

    # -- informers ---------------------------------------------------------------------------------
    def informer_for(self, kind: type[Resource]) -> SharedInformer:
        informer = self._informers.get(kind)
        if informer is None:
            informer = SharedInformer(self.client, kind)
            informer.set_notify(self._informer_notified)
            self._informers[kind] = informer
            self._pending = True  # a new informer starts out notified
            if self._started:
                informer.start()
        return informer

    def add_index(self, kind: type[Resource], name: str, fn: IndexFunc) -> None:
        self.informer_for(kind).store.add_index(name, fn)

    @property
    def informers(self) -> list[SharedInformer]:
        return list(self._informers.values())

    def set_notify(self, fn: Callable[[], None] | None) -> None:
        self._notify = fn
        for informer in self._informers.values():
            informer.set_notify(self._informer_notified)

    def _informer_notified(self) -> None:
        """Every informer's notify: one of them may have events (``pump`` looks), and ``fn`` of
        :meth:`set_notify` is woken."""
        self._pending = True
        fn = self._notify
        if fn is not None:
            fn()

    def start(self) -> None:
        self._started = True
        for informer in list(self._informers.values()):
            informer.start()

    def stop(self) -> None:
        for informer in self._informers.values():
            informer.stop()

    def pump(self) -> int:
        """Deliver pending watch events of every informer whose watch notified (registration order;
        the loop calls this every round, and most rounds only one kind, or none, has news: a round
        after which none notified scans none)."""
        if not self._pending:
            return 0
        self._pending = False  # before pumping: a write made by a handler notifies again
        total = 0
        for informer in list(self._informers.values()):
            if informer.notified:
                total += informer.pump()
        return total

    # -- Reader ------------------------------------------------------------------------------------
    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        """The cached object (shared, read only); ``NotFound`` when absent."""
        obj = self.informer_for(kind).store.get(key_of(namespace, name))
        if obj is None:
            raise NotFound.of(kind.api_info.group_resource, name)
        return obj  # type: ignore[return-value]

    def list(
        self,
        kind: type[T],
        namespace: str | None = None,
        *,
        labels: Mapping[str, str] | None = None,
        index: tuple[str, str] | None = None,
    ) -> list[T]:
        """Cached objects (shared, read only) in key order, filtered by namespace, exact labels and/or
        one index value."""
        store = self.informer_for(kind).store
        if index is not None:
            keys = store.index_keys(*index)
        elif labels:
            first = min(labels.items())
            keys = store.index_keys(BY_LABEL, f"{first[0]}={first[1]}")
        elif namespace:
            keys = store.index_keys(BY_NAMESPACE, namespace)
        else:
            keys = store.list_keys()
        if namespace and (index is not None or labels):
            prefix = namespace + "/"
            keys = [k for k in keys if k.startswith(prefix)]
        if labels:
            keys = [k for k in keys if _has_labels(store.get(k), labels)]  # type: ignore[arg-type]
        return [store.get(k) for k in keys]  # type: ignore[misc]


def _has_labels(obj: Resource, labels: Mapping[str, str]) -> bool:
    have = obj.metadata.labels or {}
    return all(have.get(k) == v for k, v in labels.items())
