"""From informer events to requests (controller-runtime ``pkg/handler``).

Three ways to turn an object into :class:`~kbatch.runtime.reconcile.Request` values:

* :func:`enqueue_object` — the object itself (what ``for_(Kind)`` uses);
* :func:`enqueue_owner` — the owner named by its controller ``ownerReference`` of a given kind
  (``owns(Kind)``); on update both the old and the new owner are enqueued;
* a *mapper* ``fn(obj) -> Iterable[Request]`` for anything else (``watches(Kind, mapper)``).

:class:`QueueingHandler` joins a mapper, predicates and a queue into an informer event handler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kbatch.api.meta import Resource
from kbatch.runtime.predicate import Predicate
from kbatch.runtime.reconcile import Request

__all__ = ["Mapper", "QueueingHandler", "enqueue_object", "enqueue_owner"]

Mapper = Callable[[Any], Iterable[Request]]


def enqueue_object(obj: Any) -> Iterable[Request]:
    return (Request(obj.metadata.namespace or "", obj.metadata.name or ""),)


class enqueue_owner:
    """Map an owned object to its owner of kind ``owner`` (same namespace; ``""`` if cluster-scoped).
    A class rather than a closure: mappers are runtime state, and a saved control plane pickles them."""

    __slots__ = ("group", "kind", "namespaced", "only_controller")

    def __init__(self, owner: type[Resource], *, only_controller: bool = True) -> None:
        info = owner.api_info
        self.kind, self.namespaced, self.group = info.kind, info.namespaced, info.group
        self.only_controller = only_controller

    def __call__(self, obj: Any) -> Iterable[Request]:
        ns = (obj.metadata.namespace or "") if self.namespaced else ""
        out = []
        for ref in obj.metadata.owner_references or ():
            if self.only_controller and not ref.controller:
                continue
            ref_group = ref.api_version.rpartition("/")[0]
            if ref.kind == self.kind and ref_group == self.group:
                out.append(Request(ns, ref.name))
        return out

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.kind, self.namespaced, self.group, self.only_controller)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.kind, self.namespaced, self.group, self.only_controller = state


class QueueingHandler:
    """Informer handler: filter with predicates, map to requests, add to a queue (``add``)."""

    __slots__ = ("add", "mapper", "predicates")

    def __init__(self, add: Callable[[Request], None], mapper: Mapper,
                 predicates: Sequence[Predicate] = ()) -> None:
        self.add = add
        self.mapper = mapper
        self.predicates = tuple(predicates)

    def on_add(self, obj: Any) -> None:
        for p in self.predicates:
            if not p.create(obj):
                return
        for req in self.mapper(obj):
            self.add(req)

    def on_update(self, old: Any, new: Any) -> None:
        for p in self.predicates:
            if not p.update(old, new):
                return
        if self.mapper is enqueue_object:  # an update keeps the object's name: one request
            self.add(Request(new.metadata.namespace or "", new.metadata.name or ""))
            return
        seen: list[Request] = []
        for req in [*self.mapper(old), *self.mapper(new)]:
            if req not in seen:
                seen.append(req)
                self.add(req)

    def on_delete(self, obj: Any) -> None:
        for p in self.predicates:
            if not p.delete(obj):
                return
        for req in self.mapper(obj):
            self.add(req)
