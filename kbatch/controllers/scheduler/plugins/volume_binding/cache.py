"""The VolumeBinding plugin's assume caches (upstream
``pkg/scheduler/util/assumecache/assume_cache.go``, ``volumebinding/assume_cache.go``).

The informer's objects, by key, and over them the objects the scheduler assumed in Reserve (a
volume pre-bound to a claim, a claim with ``volume.kubernetes.io/selected-node``). An informer event
replaces an assumed object unless it is older (resourceVersions only grow; kbatch's are store
revisions); :meth:`AssumeCache.restore` drops the assumption (Unreserve, or a failed PreBind).
Volumes are indexed by class name (upstream ``ListPVs(storageClassName)``), listed by name so the
matching is deterministic (upstream's index has no order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["AssumeCache", "key_of"]


def key_of(obj: Any) -> str:
    meta = obj.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name or ""


def _version(obj: Any) -> int:
    try:
        return int(obj.metadata.resource_version or 0)
    except ValueError:
        return 0


class AssumeCache:
    def __init__(self, index: Callable[[Any], str] | None = None) -> None:
        self.api: dict[str, Any] = {}
        self.assumed: dict[str, Any] = {}
        self._index = index
        self._by_index: dict[str, set[str]] = {}

    def get(self, key: str) -> Any:
        found = self.assumed.get(key)
        return found if found is not None else self.api.get(key)

    def get_api(self, key: str) -> Any:
        return self.api.get(key)

    def listed(self, value: str) -> list[Any]:
        """The objects (assumed ones over the informer's) whose index is ``value``, by key."""
        return [self.get(k) for k in sorted(self._by_index.get(value, ()))]

    def update(self, obj: Any) -> tuple[Any, Any]:
        """An informer add or update: ``(old, new)`` as the cache showed them."""
        key = key_of(obj)
        old = self.get(key)
        assumed = self.assumed.get(key)
        if assumed is not None and _version(obj) >= _version(assumed):
            del self.assumed[key]
        self._unindex(key)
        self.api[key] = obj
        if self._index is not None:
            self._by_index.setdefault(self._index(obj), set()).add(key)
        return old, self.get(key)

    def delete(self, obj: Any) -> Any:
        key = key_of(obj)
        old = self.get(key)
        self._unindex(key)
        self.api.pop(key, None)
        self.assumed.pop(key, None)
        return old

    def _unindex(self, key: str) -> None:
        old = self.api.get(key)
        if old is not None and self._index is not None:
            self._by_index.get(self._index(old), set()).discard(key)

    def assume(self, obj: Any) -> None:
        """Upstream ``Assume``: only over a known object, never over a newer one."""
        key = key_of(obj)
        current = self.get(key)
        if current is None:
            raise KeyError(f"{key} not found")
        if _version(obj) < _version(current):
            raise ValueError(f"{key} is older than the cached version")
        self.assumed[key] = obj

    def restore(self, key: str) -> None:
        self.assumed.pop(key, None)
