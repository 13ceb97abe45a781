"""The Node authorizer's graph behind ``kbatch serve``, kept current from the store's watch, and the
authorizer built on it (k8s.io/kubernetes ``plugin/pkg/auth/authorizer/node/graph_populator.go``:
informers on pods, persistent volumes, volume attachments and resource slices feed the graph).

Upstream's informers apply each event as it arrives; here the feed lists each resource the first time
a node's request needs the graph, then watches from that list's resourceVersion and applies what the
watch holds each time the graph is read again. A decision therefore sees every write committed before
it, as an informer that is caught up would; a watch that fails (its history compacted away) makes the
next read list again. Nothing happens for requests that are not a node's, and the in-process
controllers never read or feed the graph: its cost is the authorization path's alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.base import ApiInfo
from kbatch.apiserver.node_graph_source import node_authorizer_over
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.node_graph import NodeGraph
from kbatch.authz.node_graph_populator import RESOURCES, GraphPopulator
from kbatch.server.backend import Backend, DictWatch, WatchOptions

if TYPE_CHECKING:
    from kbatch.api.features import FeatureGates

__all__ = ["NodeGraphFeed", "node_authorizer"]

_EVENTS = ("ADDED", "MODIFIED", "DELETED")


def _info(backend: Backend, resource: str) -> ApiInfo | None:
    """The served kind of ``resource[.group]``, or ``None`` (the DRA family off, no storage kinds)."""
    plural, _, group = resource.partition(".")
    for spec in backend.registry:
        info = spec.info
        if info.group == group and info.plural == plural and spec.served is None:
            return info
    return None


class NodeGraphFeed:
    """``feed.graph()``: the graph as of the store's current revision."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._populator: GraphPopulator | None = None
        self._watches: list[tuple[str, DictWatch]] = []

    def graph(self) -> NodeGraph:
        if self._populator is None or not self._catch_up(self._populator):
            self._populator = self._relist()
        return self._populator.graph

    def close(self) -> None:
        for _, watch in self._watches:
            watch.close()
        self._watches = []

    def _relist(self) -> GraphPopulator:
        self.close()
        populator = GraphPopulator(NodeGraph())
        for resource in RESOURCES:
            info = _info(self._backend, resource)
            if info is None:
                continue
            listed = self._backend.list(info, None)
            for item in listed.get("items") or ():
                populator.apply(resource, "ADDED", item)
            rv = str((listed.get("metadata") or {}).get("resourceVersion") or "")
            watch = self._backend.watch(info, None, WatchOptions(resource_version=rv))
            self._watches.append((resource, watch))
        return populator

    def _catch_up(self, populator: GraphPopulator) -> bool:
        """Apply every pending event; ``False`` when a watch ended in an error (list again)."""
        for resource, watch in self._watches:
            while events := watch.poll():
                for event in events:
                    kind = event.get("type")
                    if kind == "ERROR":
                        return False
                    if kind in _EVENTS:
                        populator.apply(resource, str(kind), event.get("object") or {})
        return True


def node_authorizer(feed: NodeGraphFeed, features: FeatureGates | None) -> NodeAuthorizer:
    """The Node authorizer over ``feed``'s graph, with the bootstrap policy's node rules
    (:func:`kbatch.apiserver.node_graph_source.node_authorizer_over`)."""
    return node_authorizer_over(feed.graph, features)
