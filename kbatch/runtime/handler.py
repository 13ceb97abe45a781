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


def enqueue_owner(owner: type[Resource], *, only_controller: bool = True) -> Mapper:
    """Map an owned object to its owner of kind ``owner`` (same namespace; ``""`` if cluster-scoped)."""
    info = owner.api_info
    group = info.group

    def mapper(obj: Any) -> Iterable[Request]:
        ns = (obj.metadata.namespace or "") if info.namespaced else ""
        out = []
        for ref in obj.metadata.owner_references or ():
            if only_controller and not ref.controller:
                continue
            ref_group = ref.api_version.rpartition("/")[0]
            if ref.kind == info.kind and ref_group == group:
                out.append(Request(ns, ref.name))
        return out

    return mapper


class QueueingHandler:
    """Informer handler: filter with predicates, map to requests, add to a queue (``add``)."""

    __slots__ = ("add", "mapper", "predicates")

    def __init__(self, add: Callable[[Request], None], mapper: Mapper,
                 predicates: Sequence[Predicate] = ()) -> None:
        self.add = add
        self.mapper = mapper
        self.predicates = tuple(predicates)

    def on_add(self, obj: Any) -> None:
        if all(p.create(obj) for p in self.predicates):
            for req in self.mapper(obj):
                self.add(req)

    def on_update(self, old: Any, new: Any) -> None:
        if all(p.update(old, new) for p in self.predicates):
            seen: list[Request] = []
            for req in [*self.mapper(old), *self.mapper(new)]:
                if req not in seen:
                    seen.append(req)
                    self.add(req)

    def on_delete(self, obj: Any) -> None:
        if all(p.delete(obj) for p in self.predicates):
            for req in self.mapper(obj):
                self.add(req)
