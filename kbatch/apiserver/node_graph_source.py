"""The Node authorizer of the API server's own checks, over a graph read from the store.

Upstream's admission plugins and RBAC's policy-based storage are handed the server's whole authorizer
(k8s.io/kubernetes ``pkg/controlplane/apiserver/config.go``: ``Authorization.Authorizer``), whose Node
authorizer keeps its graph from informers (``plugin/pkg/auth/authorizer/node/graph_populator.go``).
An in-process API server has no watch feed of its own, so :class:`StoredNodeGraph` lists the pods,
persistent volumes, volume attachments and resource slices again whenever the store has moved since it
last did, and only when a node's question reaches the graph (a check for a user that is not a node
never reads it). ``kbatch serve`` replaces this authorizer with the one its requests use, kept current
from a watch (:mod:`kbatch.server.node_graph_feed`), so both answer from one graph.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kbatch.authz.chain import AuthorizerChain
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.node_graph import NodeGraph
from kbatch.authz.node_graph_populator import RESOURCES, GraphPopulator
from kbatch.families.rbac.bootstrap_policy import GATE_DEFAULTS
from kbatch.families.rbac.policy_builders import Gates
from kbatch.families.rbac.policy_cluster import node_rules

if TYPE_CHECKING:
    from collections.abc import Callable

    from kbatch.api.features import FeatureGates
    from kbatch.apiserver.server import APIServer

__all__ = ["StoredNodeGraph", "default_chain", "node_authorizer_over"]


def node_authorizer_over(graph: Callable[[], NodeGraph], features: FeatureGates | None) -> NodeAuthorizer:
    """The Node authorizer over ``graph``, with the bootstrap policy's node rules for these gates
    (``bootstrappolicy.NodeRules()``, as kube-apiserver passes them to ``node.NewAuthorizer``)."""
    rules: list[dict[str, Any]] = node_rules(Gates(features, GATE_DEFAULTS))
    return NodeAuthorizer(graph, tuple(rules))


class StoredNodeGraph:
    """``graph()``: the Node authorizer's graph as of the store's current revision."""

    def __init__(self, server: APIServer) -> None:
        self._server = server
        self._revision = -1
        self._graph = NodeGraph()

    def __call__(self) -> NodeGraph:
        revision = self._server.store.revision
        if revision != self._revision:
            self._graph, self._revision = self._build(), revision
        return self._graph

    def _build(self) -> NodeGraph:
        populator = GraphPopulator(NodeGraph())
        wanted = {tuple(r.partition(".")[::2]): r for r in RESOURCES}  # (plural, group) → resource
        for spec in self._server.registry:
            resource = wanted.get((spec.info.plural, spec.info.group))
            if resource is None or spec.served is not None:
                continue
            for obj in self._server.list(spec.model).items:
                populator.apply(resource, "ADDED", json.loads(obj.to_json()))
        return populator.graph


def default_chain(server: APIServer) -> AuthorizerChain:
    """``Node,RBAC`` (kubeadm's and kind's ``--authorization-mode``) over the store's graph."""
    return AuthorizerChain(node_authorizer_over(StoredNodeGraph(server), server.features))
