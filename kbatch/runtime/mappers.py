"""Mappers shared by several controllers: an informer event of one kind → requests for another.

Mappers are runtime state (an informer holds them), so they are small classes or module-level
functions, never closures: a saved control plane pickles them (docs/cli.md, "How state is kept").
"""

from __future__ import annotations

from typing import Any

from kbatch.runtime.cache import BY_NODE_NAME, Cache
from kbatch.runtime.reconcile import Request

__all__ = ["PodsOnNode", "bound_to_a_node", "itself"]


def itself(obj: Any) -> list[Request]:
    """The object's own request (a ``watches`` mapper that acts as ``for_``)."""
    return [Request(obj.metadata.namespace or "", obj.metadata.name or "")]


def bound_to_a_node(pod: Any) -> bool:
    """Predicate function: the pod has ``spec.nodeName``."""
    return bool(pod.spec.node_name)


class PodsOnNode:
    """A Node event → the pods bound to that node (the pod informer's ``BY_NODE_NAME`` index);
    ``no_execute_only``: only when the node has a ``NoExecute`` taint."""

    __slots__ = ("cache", "no_execute_only")

    def __init__(self, cache: Cache, *, no_execute_only: bool = False) -> None:
        self.cache = cache
        self.no_execute_only = no_execute_only

    def __call__(self, node: Any) -> list[Request]:
        from kbatch.api.core_v1 import Pod

        if self.no_execute_only and not any(t.effect == "NoExecute" for t in node.spec.taints or ()):
            return []
        pods = self.cache.list(Pod, index=(BY_NODE_NAME, node.metadata.name))
        return [Request(p.metadata.namespace or "", p.metadata.name or "") for p in pods]

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.cache, self.no_execute_only)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.cache, self.no_execute_only = state
