"""``authorization.k8s.io/v1`` over HTTP: the four reviews (:mod:`kbatch.authz.reviews`), create-only,
answered and never stored, as kube-apiserver serves them (``pkg/registry/authorization``):
``selfsubjectaccessreviews``, ``subjectaccessreviews``, ``selfsubjectrulesreviews`` (cluster-scoped)
and ``namespaces/NS/localsubjectaccessreviews``. The group is in discovery, which is how
``kubectl auth can-i`` finds it. The RBAC objects are read from the backend for each review.

This module also reads the RBAC snapshot an impersonated request is authorized against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest, MethodNotAllowed
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.reviews import GROUP, KINDS, VERSION, review
from kbatch.authz.user import UserInfo
from kbatch.server.routing import route_not_found

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.http import Request

__all__ = ["ADMIN", "GROUP", "VERSION", "authorization_resource_list", "rbac_snapshot", "serve"]

Obj = dict[str, Any]
ADMIN = LOCAL_ADMIN
"""Who a request that impersonates no one acts as (docs/rbac.md)."""
_RBAC = (("roles", "Role"), ("rolebindings", "RoleBinding"), ("clusterroles", "ClusterRole"),
         ("clusterrolebindings", "ClusterRoleBinding"))


def authorization_resource_list() -> Obj:
    resources = [{"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind,
                  "verbs": ["create"]} for plural, (kind, namespaced) in KINDS.items()]
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{GROUP}/{VERSION}",
            "resources": resources}


def rbac_snapshot(backend: Backend) -> RbacSnapshot:
    """The cluster's Roles, RoleBindings, ClusterRoles and ClusterRoleBindings (none when the rbac
    family is not served)."""
    lists: list[list[Obj]] = []
    for plural, _ in _RBAC:
        try:
            info = backend.registry.for_name(f"{plural}.rbac.authorization.k8s.io").info
        except BadRequest:
            lists.append([])
            continue
        lists.append(list(backend.list(info, None)["items"]))
    roles, role_bindings, cluster_roles, cluster_role_bindings = lists
    return RbacSnapshot(roles, role_bindings, cluster_roles, cluster_role_bindings)


def serve(backend: Backend, req: Request, rest: list[str], caller: UserInfo | None) -> Obj:
    """The answer to ``req`` on ``/apis/authorization.k8s.io/v1/`` + ``rest``."""
    if not rest:
        return authorization_resource_list()
    namespace = None
    if len(rest) == 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    entry = KINDS.get(rest[0]) if len(rest) == 1 else None
    if entry is None or entry[1] != (namespace is not None):
        raise route_not_found()
    if req.method != "POST":
        raise MethodNotAllowed("the server does not allow this method on the requested resource")
    body = req.json()
    if not isinstance(body, dict):
        raise BadRequest(f"the body of the request was in an unknown format: not a {entry[0]}")
    return review(entry[0], body, namespace, caller or ADMIN, rbac_snapshot(backend))
