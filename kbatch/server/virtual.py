"""Serving a family's virtual resources (:mod:`kbatch.api.virtual`): one call, one handler.

Upstream's installer (k8s.io/apiserver ``pkg/endpoints/installer.go``) gives a REST storage the
routes of the interfaces it implements: ``Creater`` a ``POST`` on the collection, ``Lister`` a ``GET``
on it, ``Getter`` a ``GET`` of a name; a path or method outside them is go-restful's 404 or 405. The
same rules here (:func:`virtual_verb`), from the declared ``verbs``, for ``kbatch serve`` (``app.py``)
and for the CLI's local mode (``kbatch create -f`` of a review), which both build a
:class:`VirtualCall` and :func:`answer` it. A handler is ``handler(call) -> dict``: the review with
its ``status``, or what was read; a review never writes. A stored kind's declared subresource with a
handler (``serviceaccounts/NAME/token``) is answered the same way (:func:`subresource_call_target`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import MethodNotAllowed
from kbatch.api.registry import KindSpec
from kbatch.api.virtual import Subresource, VirtualResource
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.user import UserInfo
from kbatch.server.routing import route_not_found
from kbatch.server.table import IncludeObject

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.service_account_tokens import TokenService

__all__ = ["VirtualCall", "answer", "subresource_call_target", "subresource_verb", "virtual_verb"]

Obj = dict[str, Any]
_WRITE_VERBS = {"PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass(frozen=True, slots=True)
class VirtualCall:
    """One request on a virtual resource. ``body``: the decoded request body of a ``create``;
    ``user``: who the request acts as (after impersonation); ``tokens`` and ``static_token``: the
    server's service-account tokens and ``serve --token``, for a TokenReview (``None`` when the
    caller has no token service); ``warnings``: what the handler warns about (``Warning`` headers)."""

    backend: Backend
    resource: VirtualResource
    verb: str
    user: UserInfo
    namespace: str | None = None
    name: str | None = None
    body: object = None
    params: Mapping[str, str | None] = field(default_factory=dict)
    tokens: TokenService | None = None
    static_token: str | None = None
    warnings: list[str] = field(default_factory=list)  # the handler's, sent as Warning headers
    node_authorizer: NodeAuthorizer | None = None  # the Node authorizer for reviews, when it is a mode


def virtual_verb(resource: VirtualResource, method: str, namespace: str | None, name: str | None) -> str:
    """The verb of ``method`` on ``resource``'s path, or go-restful's answer when no route fits: a
    name on a resource without item routes, a scope that does not fit, a namespaced create or get
    outside a namespace are 404s; a method the resource does not implement is a 405."""
    items = {"get", "update", "patch", "delete"} & set(resource.verbs)
    if not resource.verbs:  # a storage implementing no verb has no route (Kueue's ``CqREST``)
        raise route_not_found()
    if (name is not None and not items) or (namespace is not None and not resource.namespaced):
        raise route_not_found()
    if method in ("GET", "HEAD"):
        verb = "get" if name is not None else "list"
    elif method == "POST" and name is None:
        verb = "create"
    else:
        verb = _WRITE_VERBS.get(method, "") if name is not None else \
            {"DELETE": "deletecollection"}.get(method, "")
    if resource.namespaced and namespace is None and verb not in ("list", ""):
        raise route_not_found()
    if verb not in resource.verbs:
        raise MethodNotAllowed("the server does not allow this method on the requested resource")
    return verb


def subresource_call_target(parent: KindSpec, sub: Subresource) -> VirtualResource:
    """A stored kind's declared subresource as the resource a :class:`VirtualCall` names: its own
    group version and kind, the parent's scope, ``plural/name`` as its plural."""
    info = parent.info
    return VirtualResource(info.group if sub.group is None else sub.group,
                           info.version if sub.version is None else sub.version,
                           f"{info.plural}/{sub.name}", sub.kind or info.kind, sub.handler or "",
                           namespaced=info.namespaced, verbs=sub.verbs)


def subresource_verb(sub: Subresource, method: str) -> str:
    """The verb of ``method`` on an object's subresource path; go-restful's 405 when not declared."""
    verb = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch",
            "DELETE": "delete"}.get(method, "")
    if verb not in sub.verbs:
        raise MethodNotAllowed("the server does not allow this method on the requested resource")
    return verb


def answer(call: VirtualCall) -> Obj:
    """The handler's answer to ``call``."""
    from kbatch.families import resolve

    handler: Callable[[VirtualCall], Obj] = resolve(call.resource.handler)
    return handler(call)


def virtual_table(resource: VirtualResource, out: Obj, include: IncludeObject) -> Obj:
    """``out`` (a get's or list's answer) as the Table the resource's own converter makes."""
    from kbatch.families import resolve

    assert resource.table is not None
    convert: Callable[[Obj, IncludeObject], Obj] = resolve(resource.table)
    return convert(out, include)
