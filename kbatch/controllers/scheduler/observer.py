"""The informer handler of a scheduler plugin that keeps its own view of other kinds.

DynamicResources (claims, slices, classes, taint rules) and VolumeBinding (claims, volumes,
classes) each learn of their objects through one ``observe(kind, old, new)`` method (``old`` None on
add, ``new`` None on delete); :class:`ObserveHandler` adapts that to an informer's add/update/delete
handler. It is a plain object, not a closure, so a saved control plane pickles it.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ObserveHandler", "Observer"]


class Observer(Protocol):
    def observe(self, kind: str, old: Any, new: Any) -> None: ...


class ObserveHandler:
    """Informer handler feeding ``plugin.observe(kind, old, new)``."""

    __slots__ = ("kind", "plugin")

    def __init__(self, plugin: Observer, kind: str) -> None:
        self.plugin, self.kind = plugin, kind

    def on_add(self, obj: Any) -> None:
        self.plugin.observe(self.kind, None, obj)

    def on_update(self, old: Any, new: Any) -> None:
        self.plugin.observe(self.kind, old, new)

    def on_delete(self, obj: Any) -> None:
        self.plugin.observe(self.kind, obj, None)
