"""From informer events to requests (controller-runtime ``pkg/handler``).

Three ways to turn an object into :class:`~kbatch.runtime.reconcile.Request` values:

* :func:`enqueue_object` — the object itself (what ``for_(Kind)`` uses);
* :func:`enqueue_owner` — the owner named by its controller ``ownerReference`` of a given kind
  (``owns(Kind)``); on update both the old and the new owner are enqueued;
* a *mapper* ``fn(obj) -> Iterable[Request]`` for anything else (``watches(Kind, mapper)``).

What an update maps is the mapper's to say, as each upstream handler decides it: controller-runtime's
``EnqueueRequestsFromMapFunc`` and ``EnqueueRequestForOwner`` map both the old and the new object
(the default here), its ``EnqueueRequestForObject`` only the new one (:func:`enqueue_object`); a
kube-controller-manager controller registers its own client-go handler, which often reads only the new
object (the disruption controller's ``updatePod``, the taint manager's ``handleNodeUpdate``): wrap
such a mapper in :class:`new_object_only`.

:class:`QueueingHandler` joins a mapper, predicates and a queue into an informer event handler.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kbatch.api.meta import Resource
from kbatch.runtime.predicate import Predicate
from kbatch.runtime.reconcile import Request

__all__ = ["Mapper", "QueueingHandler", "enqueue_object", "enqueue_owner", "maps_old_on_update",
           "new_object_only"]

Mapper = Callable[[Any], Iterable[Request]]


def enqueue_object(obj: Any) -> Iterable[Request]:
    return (Request(obj.metadata.namespace or "", obj.metadata.name or ""),)


enqueue_object.maps_old_on_update = False  # type: ignore[attr-defined]  # an update keeps the name


def maps_old_on_update(mapper: Mapper) -> bool:
    """Whether an update event maps the old object as well as the new one (see the module doc)."""
    return bool(getattr(mapper, "maps_old_on_update", True))


class new_object_only:
    """A mapper whose update events map the new object only, as a client-go handler that reads just
    ``cur`` (create and delete events map their one object as before)."""

    __slots__ = ("mapper",)
    maps_old_on_update = False

    def __init__(self, mapper: Mapper) -> None:
        self.mapper = mapper

    def __call__(self, obj: Any) -> Iterable[Request]:
        return self.mapper(obj)

    def __getstate__(self) -> Mapper:
        return self.mapper

    def __setstate__(self, state: Mapper) -> None:
        self.mapper = state


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
            if ref.kind == self.kind and ref.group == self.group:
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
        if self.mapper is enqueue_object:  # the common case, without a lookup: one request
            self.add(Request(new.metadata.namespace or "", new.metadata.name or ""))
            return
        if not maps_old_on_update(self.mapper):
            for req in self.mapper(new):
                self.add(req)
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
