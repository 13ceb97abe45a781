"""``kbatch create -f`` of a virtual resource (a review): answered, never stored, as upstream's POST.

kubectl creates a SubjectAccessReview as any object: a POST to the collection, and the response is the
review with its ``status`` (``kubectl create -f sar.yaml -o yaml`` prints it). Over HTTP the CLI does
the same POST; in local mode there is no server in between, so the CLI answers the call with the
resource's declared handler (:mod:`kbatch.server.virtual`), as the local administrator
(:func:`kbatch.apiserver.requester.requester`), with the service-account tokens ``kbatch serve``
would have over the same state (a TokenReview's answer does not depend on the mode), and the
authorizers of ``kbatch serve``'s default ``--authorization-mode Node,RBAC`` (the Node authorizer's
graph listed from the state for this one call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.base import ApiInfo
from kbatch.api.virtual import VirtualResource

if TYPE_CHECKING:
    from kbatch.server.backend import Backend, WriteOptions

__all__ = ["create_virtual", "virtual_info"]

Obj = dict[str, Any]


def virtual_info(resource: VirtualResource) -> ApiInfo:
    """The resource as an :class:`ApiInfo`: what the CLI's paths and namespace placement read."""
    return ApiInfo(resource.group, resource.version, resource.kind, resource.plural, resource.namespaced,
                   singular=resource.singular_name, subresources=())


def create_virtual(backend: Backend, resource: VirtualResource, placed: Obj, opts: WriteOptions) -> Obj:
    """The answer to creating ``placed`` (already in its namespace) as ``resource``."""
    namespace = (placed.get("metadata") or {}).get("namespace") if resource.namespaced else None
    if getattr(backend, "control_plane", None) is None:  # a server: POST, as kubectl does
        return backend.create(virtual_info(resource), namespace, placed, opts)
    from kbatch.apiserver.requester import requester
    from kbatch.server.node_graph_feed import NodeGraphFeed, node_authorizer
    from kbatch.server.service_account_tokens import default_tokens
    from kbatch.server.virtual import VirtualCall, answer, virtual_verb

    verb = virtual_verb(resource, "POST", namespace, None)
    feed = NodeGraphFeed(backend)
    try:
        node = node_authorizer(feed, backend.control_plane.features)  # type: ignore[attr-defined]
        return answer(VirtualCall(backend, resource, verb, requester(), namespace, body=placed,
                                  tokens=default_tokens(backend, None), node_authorizer=node))
    finally:
        feed.close()
