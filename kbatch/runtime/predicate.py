"""Event filters (controller-runtime ``pkg/predicate``): which informer events reach a handler.

A :class:`Predicate` answers per event type; :func:`predicate_func` turns ``fn(obj) -> bool`` into one
that applies ``fn`` to the object of every event (the new object for updates).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = [
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


_: list[Predicate] = [GenerationChanged(), ResourceVersionChanged(), LabelsChanged(), _Func(bool)]
