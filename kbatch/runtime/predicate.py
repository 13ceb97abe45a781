"""Event filters (controller-runtime ``pkg/predicate``): which informer events reach a handler.

A :class:`Predicate` answers per event type; :func:`predicate_func` turns ``fn(obj) -> bool`` into one
that applies ``fn`` to the object of every event (the new object for updates). :class:`Funcs` says per
event type (controller-runtime's ``predicate.Funcs``), for a kube-controller-manager handler that
registers only some of ``AddFunc``/``UpdateFunc``/``DeleteFunc`` or filters them differently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "Funcs",
    "GenerationChanged",
    "LabelsChanged",
    "Predicate",
    "ResourceVersionChanged",
    "predicate_func",
]


@runtime_checkable
class Predicate(Protocol):
    def create(self, obj: Any) -> bool: ...

    def update(self, old: Any, new: Any) -> bool: ...

    def delete(self, obj: Any) -> bool: ...


class _Func:
    def __init__(self, fn: Callable[[Any], bool]) -> None:
        self.fn = fn

    def create(self, obj: Any) -> bool:
        return self.fn(obj)

    def update(self, old: Any, new: Any) -> bool:
        return self.fn(new)

    def delete(self, obj: Any) -> bool:
        return self.fn(obj)


def predicate_func(fn: Callable[[Any], bool]) -> Predicate:
    return _Func(fn)


EventTest = Callable[[Any], bool] | bool


class Funcs:
    """Per event type: ``True`` passes every event of that type, ``False`` none, a function
    ``fn(obj) -> bool`` decides (for updates it sees the new object, as a client-go ``UpdateFunc`` that
    reads only ``cur``). Functions must be module level: a saved control plane pickles predicates."""

    __slots__ = ("on_create", "on_delete", "on_update")

    def __init__(self, *, create: EventTest = True, update: EventTest = True,
                 delete: EventTest = True) -> None:
        self.on_create, self.on_update, self.on_delete = create, update, delete

    def create(self, obj: Any) -> bool:
        test = self.on_create
        return test if isinstance(test, bool) else test(obj)

    def update(self, old: Any, new: Any) -> bool:
        test = self.on_update
        return test if isinstance(test, bool) else test(new)

    def delete(self, obj: Any) -> bool:
        test = self.on_delete
        return test if isinstance(test, bool) else test(obj)

    def __getstate__(self) -> tuple[EventTest, EventTest, EventTest]:
        return (self.on_create, self.on_update, self.on_delete)

    def __setstate__(self, state: tuple[EventTest, EventTest, EventTest]) -> None:
        self.on_create, self.on_update, self.on_delete = state


class _UpdateOnly:
    def create(self, obj: Any) -> bool:
        return True

    def delete(self, obj: Any) -> bool:
        return True


class GenerationChanged(_UpdateOnly):
    """Pass updates only when ``metadata.generation`` changed (spec edits, not status writes)."""

    def update(self, old: Any, new: Any) -> bool:
        return old.metadata.generation != new.metadata.generation


class ResourceVersionChanged(_UpdateOnly):
    """Skip resync-style updates that carry the same resourceVersion."""

    def update(self, old: Any, new: Any) -> bool:
        return old.metadata.resource_version != new.metadata.resource_version


class LabelsChanged(_UpdateOnly):
    def update(self, old: Any, new: Any) -> bool:
        return (old.metadata.labels or {}) != (new.metadata.labels or {})


_: list[Predicate] = [GenerationChanged(), ResourceVersionChanged(), LabelsChanged(), _Func(bool), Funcs()]
