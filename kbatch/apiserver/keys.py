"""Storage key layout, as kube-apiserver lays out etcd (``/registry/<group>/<plural>/<ns>/<name>``).

The core group has no group segment (``/registry/pods/default/web-0``); cluster-scoped kinds have no
namespace segment (``/registry/namespaces/default``). Every prefix ends with ``/`` so that one
namespace's range never includes another whose name merely starts the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.base import ApiInfo
from kbatch.store.kv import prefix_end

__all__ = ["REGISTRY_ROOT", "KindKeys"]

REGISTRY_ROOT = b"/registry/"


@dataclass(frozen=True, slots=True)
class KindKeys:
    """Precomputed key prefixes for one kind."""

    root: bytes  # b"/registry/batch/jobs/"
    namespaced: bool

    @classmethod
    def of(cls, info: ApiInfo) -> KindKeys:
        group = f"{info.group}/" if info.group else ""
        return cls(REGISTRY_ROOT + f"{group}{info.plural}/".encode(), info.namespaced)

    def key(self, namespace: str | None, name: str) -> bytes:
        if self.namespaced:
            return self.root + f"{namespace}/{name}".encode()
        return self.root + name.encode()

    def prefix(self, namespace: str | None) -> bytes:
        """All objects of the kind (``namespace`` None) or of one namespace."""
        if self.namespaced and namespace:
            return self.root + f"{namespace}/".encode()
        return self.root

    def range_end(self, namespace: str | None) -> bytes:
        return prefix_end(self.prefix(namespace))

    def split(self, key: bytes) -> tuple[str | None, str]:
        """(namespace, name) of a key under this kind's root."""
        rest = key[len(self.root):].decode()
        if self.namespaced:
            namespace, _, name = rest.partition("/")
            return namespace, name
        return None, rest
