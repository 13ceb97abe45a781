"""Each simulated kubelet's own user: ``system:node:<nodeName>`` in ``system:nodes``.

Upstream every kubelet has credentials of its own (its client certificate, from TLS bootstrapping:
k8s.io/kubernetes ``pkg/kubelet/certificate/bootstrap``), so each write it makes — its pods' status,
the final delete of a terminated pod, its Node's status, its Lease — is requested by its node's user,
which the NodeRestriction admission plugin and the Node authorizer read back
(``pkg/auth/nodeidentifier/default.go``). kbatch runs every node's kubelet in one controller; it
writes for node N through N's client.
"""

from __future__ import annotations

from kbatch.apiserver.client import Client
from kbatch.apiserver.identities import node_user
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.events import EventRecorder

__all__ = ["NodeClients"]


class NodeClients:
    """``clients(node)``: the client whose writes are ``node``'s kubelet's (made once per node);
    ``clients.recorder(node)``: the kubelet's recorder writing its Events through that client."""

    def __init__(self, ctx: ControllerContext) -> None:
        self._ctx = ctx
        self._clients: dict[str, Client] = {}
        self._recorders: dict[tuple[str, str], EventRecorder] = {}

    def __call__(self, node: str) -> Client:
        client = self._clients.get(node)
        if client is None:
            client = self._clients[node] = self._ctx.client_as(node_user(node))
        return client

    def recorder(self, node: str, host: str | None = None) -> EventRecorder:
        """The kubelet's recorder for ``node`` (``host``: the Events' source host, the controller's
        recorder's when ``None``)."""
        shared = self._ctx.recorder
        if not isinstance(shared, EventRecorder):  # pkg/kubelet records through tools/record
            raise TypeError(f"the kubelet records core/v1 Events; its context has a {type(shared).__name__}")
        key = (node, shared.host if host is None else host)
        recorder = self._recorders.get(key)
        if recorder is None:
            recorder = shared.sink.recorder(shared.component, key[1], client=self(node))
            self._recorders[key] = recorder
        return recorder
