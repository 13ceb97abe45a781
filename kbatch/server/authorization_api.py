"""``authorization.k8s.io/v1`` reviews: the handler of the four create-only resources the core family
declares (:data:`kbatch.families.core.virtual.AUTHORIZATION`), answered and never stored, as
kube-apiserver's ``pkg/registry/authorization/{subjectaccessreview,selfsubjectaccessreview,
localsubjectaccessreview,selfsubjectrulesreview}/rest.go`` answer them (the decision itself:
:mod:`kbatch.authz.reviews`). Their routes and discovery come from the declaration
(:mod:`kbatch.server.virtual`); the group is in discovery, which is how ``kubectl auth can-i`` finds
it. The RBAC objects are read from the backend for each review.

This module also reads the RBAC snapshot an impersonated request is authorized against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.reviews import review

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.virtual import VirtualCall

__all__ = ["ADMIN", "rbac_snapshot", "serve_review"]

Obj = dict[str, Any]
ADMIN = LOCAL_ADMIN
"""Who a request that impersonates no one acts as (docs/rbac.md)."""
_RBAC = (("roles", "Role"), ("rolebindings", "RoleBinding"), ("clusterroles", "ClusterRole"),
         ("clusterrolebindings", "ClusterRoleBinding"))


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


def serve_review(call: VirtualCall) -> Obj:
    """``REST.Create`` of one review: the request with its ``status``."""
    kind = call.resource.kind
    if not isinstance(call.body, dict):
        raise BadRequest(f"the body of the request was in an unknown format: not a {kind}")
    snapshot = rbac_snapshot(call.backend)
    return review(kind, call.body, call.namespace, call.user, snapshot, call.node_authorizer)
