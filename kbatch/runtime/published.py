"""What controllers publish for the API server's read-only views.

Some served APIs answer from a controller's in-memory state rather than from the store: Kueue's
visibility API reads the queue manager's heaps, as upstream's visibility server holds a pointer to the
queue manager of the kueue-controller-manager it runs in (kueue ``pkg/visibility/server.go``). The
control plane owns one :class:`Published` board; a controller puts its state under a typed
:class:`PublishedKey` at ``setup()``, and a handler gets it back typed, or ``None`` where no such
controller runs in this process (``--controllers`` without it), which the handler answers as an
APIService without a backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Published", "PublishedKey"]

T = TypeVar("T")


@dataclass(frozen=True)
class PublishedKey(Generic[T]):
    """The name a piece of controller state is published under, and the type a reader gets."""

    name: str
    type: type[T]


class Published:
    """The control plane's board of published controller state (one per control plane)."""

    def __init__(self) -> None:
        self._items: dict[str, object] = {}

    def put(self, key: PublishedKey[T], value: T) -> None:
        """Publish ``value`` under ``key``, replacing what a previous setup published."""
        self._items[key.name] = value

    def get(self, key: PublishedKey[T]) -> T | None:
        """What is published under ``key``, or ``None`` when nothing of its type is."""
        value = self._items.get(key.name)
        return value if isinstance(value, key.type) else None

    def get_or_put(self, key: PublishedKey[T], make: Callable[[], T]) -> T:
        """What is published under ``key``; when nothing of its type is, ``make()``, published."""
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value
